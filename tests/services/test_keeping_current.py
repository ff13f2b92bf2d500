"""Keeping people current: unlisted-until-published profiles, the stale report (counted from the
later of created, last edited and confirmed; alumni left out), reminder e-mails sent to a real
SMTP server from the report and from ``flask directory remind-stale``, their signed one-click
"still current" link followed without signing in, and the admin's people table."""

from __future__ import annotations

import re
import time
from datetime import UTC, date, datetime, timedelta
from html import unescape

import pytest
from itsdangerous import TimestampSigner, URLSafeTimedSerializer
from sqlalchemy import func, select

from directory import models as m
from directory.models import ChangeRecord, Reminder
from directory.services import reminders
from tests.conftest import login
from tests.support.editing import post
from tests.support.mail import free_port, html_of, links_in, mail_settings, text_of
from tests.support.pages import card_slugs

LONG_AGO = datetime.now(UTC) - timedelta(days=900)


def count(db, model) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(model))


def path_of(link: str) -> str:
    return link.split("directory.test", 1)[1]


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html).group(1)


# ----------------------------------------------------------------------------- unlisted


def test_a_new_person_stays_unlisted_until_the_owner_publishes(client, db, make_person) -> None:
    make_person("Mia Member", user_key="mia")
    login(client, "admin")
    response = post(client, "/directory/admin/people/new", {
        "full_name": "Nora New", "role": "phd_student", "visibility": "public", "active": "y",
        "user_key": "nora"})  # fmt: skip
    assert response.status_code == 302
    nora = db.scalar(select(m.Person).where(m.Person.slug == "nora-new"))
    assert nora.published is False
    admin_page = client.get("/directory/people/nora-new").get_data(as_text=True)
    assert "This profile is not listed yet" in admin_page
    assert "nora-new" not in card_slugs(client.get("/directory/").get_data(as_text=True))

    for who in (None, "mia"):
        login(client, who)
        assert client.get("/directory/people/nora-new").status_code == 404
        assert "nora-new" not in card_slugs(client.get("/directory/").get_data(as_text=True))
        api = client.get("/directory/api/v1/people").get_json()
        assert "nora-new" not in {p["slug"] for p in api["items"]}
        assert "nora-new" not in client.get("/directory/sitemap.xml").get_data(as_text=True)

    login(client, "nora")
    own = client.get("/directory/people/nora-new").get_data(as_text=True)
    assert "only you and the department's admins see it" in own
    editor = client.get("/directory/me").get_data(as_text=True)
    assert "Publish my profile" in editor
    assert post(client, "/directory/people/nora-new/publish").status_code == 302
    db.expire_all()
    assert db.get(m.Person, nora.id).published is True
    record = db.scalars(select(ChangeRecord).where(ChangeRecord.person_id == nora.id)
                        .order_by(ChangeRecord.id.desc())).first()  # fmt: skip
    assert record.actor_key == "nora"
    assert (record.before["published"], record.after["published"]) == (False, True)

    login(client, None)
    assert client.get("/directory/people/nora-new").status_code == 200
    assert "nora-new" in card_slugs(client.get("/directory/").get_data(as_text=True))


def test_an_admin_publishes_and_unlists_and_a_delegate_may_not(client, db, make_person) -> None:
    nora = make_person("Nora New", user_key="nora", published=False)
    dan = make_person("Dan Delegate", user_key="dan")
    db.add(m.Delegation(person_id=nora.id, delegate_id=dan.id))
    db.commit()
    login(client, "dan")
    assert client.get("/directory/people/nora-new/edit").status_code == 200  # helps keep it
    assert post(client, "/directory/people/nora-new/publish").status_code == 403
    login(client, "mia")
    assert post(client, "/directory/people/nora-new/publish").status_code == 404
    login(client, "admin")
    assert "Publish the profile" in client.get("/directory/admin/people/nora-new").text
    assert post(client, "/directory/people/nora-new/publish").status_code == 302
    db.expire_all()
    assert db.get(m.Person, nora.id).published is True
    assert post(client, "/directory/people/nora-new/publish", {"listed": "0"}).status_code == 302
    db.expire_all()
    assert db.get(m.Person, nora.id).published is False


def test_with_the_setting_off_new_people_are_public_at_once(app, client, db, monkeypatch) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_NEW_PROFILES_UNLISTED", False)
    login(client, "admin")
    post(
        client,
        "/directory/admin/people/new",
        {"full_name": "Pat Public", "role": "faculty", "visibility": "public", "active": "y"},
    )
    login(client, None)
    assert client.get("/directory/people/pat-public").status_code == 200


# ----------------------------------------------------------------------------- the stale report


@pytest.fixture
def stale_world(db, make_person) -> dict[str, m.Person]:
    people = {
        "new": make_person("Fresh Newcomer", email="new@x.org"),  # created a minute ago
        "old": make_person("Olga Old", email="olga@x.org", created_at=LONG_AGO),
        "edited": make_person("Eddie Edited", email="eddie@x.org", created_at=LONG_AGO),
        "confirmed": make_person("Cora Confirmed", created_at=LONG_AGO,
                                 last_confirmed=date.today() - timedelta(days=3)),
        "mailless": make_person("Nemo Noaddress", created_at=LONG_AGO),
        "alumna": make_person("Alma Alumna", role="alumni", email="alma@x.org",
                              created_at=LONG_AGO),
        "gone": make_person("Gus Gone", active=False, email="gus@x.org", created_at=LONG_AGO),
    }  # fmt: skip
    db.add(ChangeRecord(person_id=people["edited"].id, entity_kind="news", action="create",
                        created_at=datetime.now(UTC) - timedelta(days=10)))  # fmt: skip
    db.add(ChangeRecord(person_id=people["old"].id, entity_kind="news", action="create",
                        created_at=LONG_AGO + timedelta(days=5)))  # fmt: skip
    db.commit()
    return people


def _stale_names(client) -> list[str]:
    html = client.get("/directory/admin/stale").get_data(as_text=True)
    return re.findall(r'<th scope="row"><a href="/directory/admin/people/[^"]+">([^<]+)</a>', html)


def test_the_stale_report_counts_from_the_latest_activity_and_leaves_alumni_out(
    client, stale_world, inbox
) -> None:
    login(client, "admin")
    assert _stale_names(client) == ["Nemo Noaddress", "Olga Old"]
    html = client.get("/directory/admin/stale").get_data(as_text=True)
    rows = {
        name: row for row, name in re.findall(r'<tr>(.*?">([^<]+)</a></th>.*?)</tr>', html, re.S)
    }
    olga, nemo = rows["Olga Old"], rows["Nemo Noaddress"]
    last_edit = (LONG_AGO + timedelta(days=5)).date().isoformat()
    assert f'"Current since">{last_edit}<' in olga and f'"Last edited">{last_edit}<' in olga
    assert '"Last confirmed">never<' in olga and '"Last reminded">never<' in olga
    assert f'name="people" value="{stale_world["old"].id}"' in olga
    assert "none: cannot be reminded" in nemo and 'name="people"' not in nemo
    assert "2 stale profiles" in client.get("/directory/admin/").get_data(as_text=True)


def test_a_reminder_is_sent_and_its_link_confirms_without_signing_in(
    app, client, db, stale_world, inbox
) -> None:
    olga = stale_world["old"]
    login(client, "admin")
    response = post(client, "/directory/admin/stale/remind", {"people": str(olga.id)},
                    follow_redirects=True)  # fmt: skip
    assert "Reminder sent to 1 person: Olga Old." in response.get_data(as_text=True)
    [message] = inbox.messages
    assert message["To"] == "olga@x.org" and "still current" in message["Subject"]
    [link] = [link for link in links_in(text_of(message)) if "/current/" in link]
    assert f'href="{link}"' in html_of(message)
    reminder = db.scalar(select(Reminder))
    assert (reminder.person_id, reminder.sent_to, reminder.sent_by_key) == (
        olga.id, "olga@x.org", "admin")  # fmt: skip
    assert "Olga Old" in _stale_names(client)  # reminded, still stale until confirmed

    login(client, None)
    page = client.get(path_of(link))
    assert page.status_code == 200 and "Olga Old" in page.get_data(as_text=True)
    db.expire_all()
    assert db.get(m.Person, olga.id).last_confirmed is None  # opening the link changes nothing
    assert client.post(path_of(link)).status_code == 400  # no CSRF token: refused
    done = client.post(path_of(link), data={"csrf_token": csrf_of(page.get_data(as_text=True))})
    assert done.status_code == 200
    assert "is marked as current" in done.get_data(as_text=True)
    db.expire_all()
    assert db.get(m.Person, olga.id).last_confirmed == date.today()
    record = db.scalars(select(ChangeRecord).where(ChangeRecord.person_id == olga.id)
                        .order_by(ChangeRecord.id.desc())).first()  # fmt: skip
    assert record.actor_key == reminders.BY_LINK.key and record.after["last_confirmed"]
    login(client, "admin")
    history = client.get("/directory/people/olga-old/history").get_data(as_text=True)
    assert "still-current link" in history
    assert "Olga Old" not in _stale_names(client)

    login(client, None)
    used = client.get(path_of(link))
    assert used.status_code == 410 and "has been used already" in used.get_data(as_text=True)
    again = client.post(path_of(link), data={"csrf_token": csrf_of(page.get_data(as_text=True))})
    assert again.status_code == 410


def test_a_tampered_foreign_or_expired_link_gets_a_clear_page(app, client, db, stale_world) -> None:
    olga = stale_world["old"]
    reminder = Reminder(person_id=olga.id, sent_to="olga@x.org")
    db.add(reminder)
    db.commit()
    token = reminders.link_token(app.secret_key, reminder)
    cases = {
        token[:-3] + ("aaa" if not token.endswith("aaa") else "bbb"): "is not valid",
        # Signed with the key but for another purpose (a CSRF token's salt).
        URLSafeTimedSerializer(app.secret_key, salt="wtf-csrf-token").dumps(
            {"r": reminder.id, "p": olga.id}): "is not valid",
        # The right signature on another person's reminder id.
        URLSafeTimedSerializer(app.secret_key, salt=reminders.SALT).dumps(
            {"r": reminder.id, "p": olga.id + 999}): "no longer exists",
    }  # fmt: skip

    class Signed31DaysAgo(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - 31 * 86400

    expired = URLSafeTimedSerializer(app.secret_key, salt=reminders.SALT, signer=Signed31DaysAgo)
    cases[expired.dumps({"r": reminder.id, "p": olga.id})] = "has expired"
    for bad, message in cases.items():
        for method in ("GET", "POST"):
            response = client.open(f"/directory/current/{bad}", method=method)
            assert response.status_code == 410, (bad, method)
            assert message in unescape(response.get_data(as_text=True)), (bad, method)
    db.expire_all()
    assert db.get(m.Person, olga.id).last_confirmed is None


def test_the_report_s_reminder_without_mail_or_choice_says_why(
    app, client, db, stale_world
) -> None:
    login(client, "admin")
    page = client.get("/directory/admin/stale").get_data(as_text=True)
    assert "E-mail is not set up" in page
    assert 'name="people"' not in page and "Send a reminder" not in page
    response = post(client, "/directory/admin/stale/remind", {"people": str(stale_world["old"].id)})
    assert response.status_code == 400 and "E-mail is not set up" in response.text
    for key, value in mail_settings(free_port()).items():
        app.config[key] = value
    try:
        response = post(client, "/directory/admin/stale/remind", {})
        assert response.status_code == 400 and "Choose at least one person" in response.text
        fresh = post(client, "/directory/admin/stale/remind",
                     {"people": str(stale_world["new"].id)})  # fmt: skip
        assert fresh.status_code == 400 and "Only people this report lists" in fresh.text
        down = post(client, "/directory/admin/stale/remind", {"people": str(stale_world["old"].id)})
        assert down.status_code == 503 and "could not be reached" in down.text
    finally:
        for key in mail_settings(0):
            app.config[key] = None if key != "DIRECTORY_MAIL_PORT" else 25
        app.config["DIRECTORY_MAIL_TIMEOUT"] = 10
    assert count(db, Reminder) == 0
    login(client, "mia")
    assert post(client, "/directory/admin/stale/remind",
                {"people": str(stale_world["old"].id)}).status_code == 403  # fmt: skip


# ----------------------------------------------------------------------------- the command


def test_remind_stale_is_safe_to_run_daily(app, runner, db, stale_world, inbox) -> None:
    dry = runner.invoke(args=["directory", "remind-stale", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "would remind Olga Old <olga@x.org>" in dry.output
    assert "skipped Nemo Noaddress (nemo-noaddress): no e-mail address" in dry.output
    assert inbox.messages == [] and count(db, Reminder) == 0

    first = runner.invoke(args=["directory", "remind-stale"])
    assert first.exit_code == 0, first.output
    assert "reminded Olga Old <olga@x.org>" in first.output
    assert "Sent 1 reminder(s); 0 not sent." in first.output
    assert [msg["To"] for msg in inbox.messages] == ["olga@x.org"]
    reminder = db.scalar(select(Reminder))
    assert reminder.sent_by_key is None  # the command line

    again = runner.invoke(args=["directory", "remind-stale"])
    assert again.exit_code == 0 and "Nobody to remind" in again.output
    assert len(inbox.messages) == 1 and count(db, Reminder) == 1

    reminder.sent_at = datetime.now(UTC) - timedelta(days=31)
    db.commit()
    assert "Nobody to remind" in runner.invoke(args=["directory", "remind-stale", "--days", "40"]
                                               ).output  # fmt: skip
    later = runner.invoke(args=["directory", "remind-stale"])
    assert "reminded Olga Old" in later.output and len(inbox.messages) == 2

    # The e-mailed link works like the report's.
    [link] = [link for link in links_in(text_of(inbox.messages[-1])) if "/current/" in link]
    client = app.test_client()
    page = client.get(path_of(link))
    assert page.status_code == 200
    assert client.post(path_of(link), data={"csrf_token": csrf_of(page.text)}).status_code == 200


def test_remind_stale_says_what_is_missing(app, runner, db, stale_world, monkeypatch) -> None:
    result = runner.invoke(args=["directory", "remind-stale"])
    assert result.exit_code == 1 and "E-mail is not set up" in result.output
    for key, value in mail_settings(free_port()).items():
        monkeypatch.setitem(app.config, key, value)
    result = runner.invoke(args=["directory", "remind-stale"])
    assert result.exit_code == 1 and "could not be reached" in result.output
    assert "Nothing was recorded" in result.output
    assert count(db, Reminder) == 0
    assert runner.invoke(args=["directory", "remind-stale", "--days", "0"]).exit_code == 2


def test_remind_stale_builds_links_from_url_without_server_name(
    app, runner, db, stale_world, inbox, monkeypatch
) -> None:
    monkeypatch.setitem(app.config, "SERVER_NAME", None)
    result = runner.invoke(args=["directory", "remind-stale"])
    assert result.exit_code == 1 and "pass --url" in result.output
    result = runner.invoke(
        args=["directory", "remind-stale", "--url", "https://www.cs.example.edu"]
    )
    assert result.exit_code == 0, result.output
    assert any(link.startswith("https://www.cs.example.edu/directory/current/")
               for link in links_in(text_of(inbox.messages[0])))  # fmt: skip


# ----------------------------------------------------------------------------- the people table


def test_the_people_table_filters_by_role_names_roles_singly_and_invites(
    client, db, make_person, inbox
) -> None:
    make_person("Sam Student", role="phd_student", email="sam@x.org")
    make_person("Fay Faculty", email="fay@x.org")
    login(client, "admin")
    html = client.get("/directory/admin/people").get_data(as_text=True)
    assert "<td>PhD student</td>" in html and "PhD students" not in html
    assert '<option value="phd_student">PhD student</option>' in html
    filtered = client.get("/directory/admin/people?role=phd_student").get_data(as_text=True)
    assert "Sam Student" in filtered and "Fay Faculty" not in filtered
    assert '<option value="phd_student" selected>' in filtered
    everyone = client.get("/directory/admin/people?role=nonsense").get_data(as_text=True)
    assert "Sam Student" in everyone and "Fay Faculty" in everyone
    assert 'action="/directory/admin/people/sam-student/invite"' in html

    response = post(client, "/directory/admin/people/sam-student/invite")
    assert response.status_code == 200
    assert "The invitation was e-mailed to sam@x.org" in response.text
    [message] = inbox.to("sam@x.org")
    [link] = [link for link in links_in(text_of(message)) if "/claim/" in link]
    assert link in response.text
    login(client, "sam")
    assert post(client, path_of(link)).status_code == 302
    db.expire_all()
    assert db.scalar(select(m.Person.user_key).where(m.Person.slug == "sam-student")) == "sam"


def test_an_invitation_without_mail_or_address_shows_the_link_and_why(client, make_person) -> None:
    make_person("Sam Student", role="phd_student", email="sam@x.org")
    make_person("Fay Faculty")
    login(client, "admin")
    response = post(client, "/directory/admin/people/sam-student/invite")
    assert response.status_code == 200 and "E-mail is not set up" in response.text
    assert "/directory/claim/" in response.text
    response = post(client, "/directory/admin/people/fay-faculty/invite")
    assert "This person has no e-mail address" in response.text
    assert "/directory/claim/" in response.text
