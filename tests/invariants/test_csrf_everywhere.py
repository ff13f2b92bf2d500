"""Every mutating route of the directory refuses a request without its CSRF token, even in a
host that sets ``WTF_CSRF_ENABLED = False`` (DIRECTORY_CSRF left at its default), and writes
nothing.

The routes are the blueprint's rules in the URL map that accept POST, PUT, PATCH or DELETE, not
a list: a new one fails here until SAMPLES holds a request it accepts. Each request is made as
someone allowed to make it, on the demo department, first without the token (refused: 400 or
403, the database and the sign-in unchanged) and then, as the control, with it (accepted, and
something changed), so that the refusal is the token's doing and not the data's.
"""

from __future__ import annotations

import hashlib
import io
import re
from base64 import b64encode
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select
from werkzeug.routing import Rule

from directory import models as m
from directory.services.accounts import save_account
from directory.services.identity import (
    BUILTIN_GENERATION_KEY,
    BUILTIN_SESSION_KEY,
    BUILTIN_TOKEN_KEY,
    Viewer,
)
from directory.services.invitations import create_invitation
from directory.services.photos import photo_from_bytes
from directory.services.pubimport.drafts import create_draft
from directory.services.reminders import link_token
from directory.services.unit_of_work import UnitOfWork
from tests.conftest import make_app
from tests.invariants.test_security import _COLLECTION_APP, _blueprint_rules, _image
from tests.support.editing import csrf_token
from tests.support.mail import Inbox, mail_settings, smtp_server

# Every test of this module sees the demo department, loaded once (see shared_demo.py).
from tests.support.shared_demo import connection, demo_connection  # noqa: F401

MUTATING = ("DELETE", "PATCH", "POST", "PUT")
PASSWORD = "correct horse battery"
#: The profile the requests are about: a faculty member with entries and shared papers.
SUBJECT = "xingda-wei"
#: A profile made stale (created and edited long ago) for the reminder.
STALE = "yang-liu"
LONG_AGO = datetime.now(UTC) - timedelta(days=900)
ONBOARDING_CSV = "name,email,role\nOnly Once,only.once@example.org,staff\n"
BIBTEX = """@inproceedings{wei2026csrf,
  title = {Tokens Everywhere: A Study of Forms},
  author = {Wei, Xingda},
  booktitle = {Proceedings of a Test},
  year = {2026}
}"""


def mutating_rules(app: Flask) -> list[tuple[Rule, str]]:
    """(rule, method) for every rule of the directory blueprint that accepts a mutating
    method."""
    rules = {id(rule): rule for method in MUTATING for rule in _blueprint_rules(app, method)}
    return sorted(
        (
            (rule, method)
            for rule in rules.values()
            for method in sorted(rule.methods & set(MUTATING))
        ),
        key=lambda pair: (pair[0].rule, pair[1]),
    )


ROUTES = mutating_rules(_COLLECTION_APP)


# ----------------------------------------------------------------------------- the host


@pytest.fixture(scope="module")
def inbox() -> Iterator[tuple[Inbox, int]]:
    """The mail server reminders are sent to (a real SMTP server on a loopback port)."""
    with smtp_server() as server:
        yield server


@pytest.fixture(scope="module")
def host(app: Flask, demo_connection, inbox) -> Flask:  # noqa: F811
    """A site that turns Flask-WTF's CSRF check off, as some hosts do; its own sign-in is on
    so that /login and /logout are live routes too."""
    site = make_app(
        WTF_CSRF_ENABLED=False,
        DIRECTORY_IDENTITY_SOURCE="builtin",
        DIRECTORY_BUILTIN_LOGIN=True,
        DIRECTORY_ENGINE=app.extensions["directory"].db.engine,
        **mail_settings(inbox[1]),
    )
    site.extensions["directory"].db.sessionmaker.configure(
        bind=demo_connection, join_transaction_mode="create_savepoint"
    )
    return site


@pytest.fixture
def client(host: Flask, connection):  # noqa: F811
    return host.test_client()


@pytest.fixture(scope="module")
def world(host: Flask) -> dict[str, Any]:
    """What the requests need beyond the demo, added once for the module: sign-in accounts
    (the admin, and the subject as owner), a photo, a delegation, an unconfirmed advising
    relation, a change to revert, a change awaiting approval, an import draft and an
    invitation. ``url`` holds a value for every URL argument of the routes."""
    from directory.models import accounts

    state = host.extensions["directory"].db
    with host.app_context(), pytest.MonkeyPatch.context() as patch:
        patch.setattr(accounts, "PASSWORD_HASH_METHOD", "pbkdf2:sha256:1000")
        session = state.new_session()
        person = session.scalar(select(m.Person).where(m.Person.slug == SUBJECT))
        people = {p.slug: p for p in session.scalars(select(m.Person))}
        for account in (save_account(session, "admin", PASSWORD)[0],
                        save_account(session, "owner", PASSWORD, person)[0]):  # fmt: skip
            # The open session each one's cookie names (see sign_in below).
            token_hash = hashlib.sha256(SESSION_TOKENS[account.username].encode()).hexdigest()
            session.add(m.SignInSession(token_hash=token_hash, account_id=account.id))
        person.photo = photo_from_bytes(_image("PNG"), "A portrait")
        delegation = m.Delegation(person_id=person.id, delegate_id=people["danyang-zhuo"].id)
        relation = m.AdvisingRelation(
            owner_id=people["danyang-zhuo"].id, advisor_id=people["danyang-zhuo"].id,
            student_id=person.id, student_confirmed=False,
        )  # fmt: skip
        # The first of the subject's courses (so that it can move down).
        course = session.scalars(
            select(m.Teaching).where(m.Teaching.owner_id == person.id).order_by(m.Teaching.position)
        ).first()
        session.add_all([delegation, relation])
        session.flush()
        record = m.ChangeRecord(
            actor_key="owner", person_id=person.id, entity_kind="teaching", entity_id=course.id,
            action="update", entity_version=course.version, before={"title": "An older title"},
            after={"title": course.title},
        )  # fmt: skip
        pending = m.PendingChange(
            author_key="owner", person_id=person.id, entity_kind="teaching", action="create",
            proposed={"title": "Proposed course", "role": "instructor", "visibility": "public",
                      "position": 0},
        )  # fmt: skip
        session.add_all([record, pending])
        draft = create_draft(session, person, "admin", "bibtex", BIBTEX, None, 24)
        changes = UnitOfWork(session, Viewer(key="admin", is_admin=True)).change_set(
            people["dingyan-zhang"], approval_exempt=True
        )
        invitation = create_invitation(changes, 14)
        changes.finish()
        # Two papers on the subject's profile that a co-author lists too (one can be split).
        on_profile = select(m.ProfilePublication.publication_id).where(
            m.ProfilePublication.person_id == person.id
        )
        shared, other = session.scalars(
            select(m.Publication)
            .join(m.ProfilePublication)
            .where(m.Publication.id.in_(on_profile))
            .group_by(m.Publication.id)
            .having(func.count() > 1)
            .order_by(m.Publication.id)
            .limit(2)
        ).all()
        area = session.scalars(select(m.ResearchArea).order_by(m.ResearchArea.id)).first()
        # A co-author import's suggestion to the subject, waiting for their answer.
        asked = m.Publication(title="A Paper Someone Imported", year=2024)
        asked.authorships.append(
            m.Authorship(position=0, name="Initials Only", suggested_person_id=person.id)
        )
        session.add(asked)
        # A harvested work in the subject's claim queue.
        found = m.ClaimCandidate(
            person_id=person.id, work_key="doi:10.1234/csrf", keys=["doi:10.1234/csrf"],
            title="A Work Found", source="orcid", found_by="orcid", score=60, evidence=[],
            work={"source": "orcid", "source_key": "1", "title": "A Work Found",
                  "found_by": "orcid"},
        )  # fmt: skip
        session.add(found)
        # A stale profile with an address, to be reminded; and a reminder's link to follow.
        stale = people[STALE]
        stale.email, stale.created_at = "yang.liu@example.org", LONG_AGO
        for record in session.scalars(
            select(m.ChangeRecord).where(m.ChangeRecord.person_id == stale.id)
        ):
            record.created_at = LONG_AGO
        reminder = m.Reminder(person_id=people["jiahao-wang"].id, sent_to="jw@example.org")
        session.add(reminder)
        session.flush()
        session.commit()
        world = {
            "url": {
                "slug": person.slug, "kind": "teaching", "entry_id": course.id,
                "relation_id": relation.id, "record_id": record.id,
                "delegation_id": delegation.id, "pub_id": shared.id, "uid": shared.uid,
                "token": draft.token, "invitation": invitation, "pending_id": pending.id,
                "area_id": area.id, "authorship_id": asked.authorships[0].id,
                "candidate_id": found.id, "source": "orcid",
                "reminder": link_token(host.secret_key, reminder),
            },
            "person_id": person.id, "full_name": person.full_name,
            "person_version": person.version, "entry_version": course.version,
            "pub_version": shared.version, "other_uid": other.uid,
            "area_version": area.version, "new_delegate": people["rongxin-cheng"].id,
            "keep": people["jinbo-han"].id, "duplicate": people["kaixi-zhang"].id,
            "stale": stale.id,
        }  # fmt: skip
        session.close()
    # The preview's fingerprint, as the page gives it to the browser.
    client = host.test_client()
    sign_in(client, "admin")
    page = client.get(f"/directory/people/{SUBJECT}/publications/import/{draft.token}")
    assert page.status_code == 200, page.get_data(as_text=True)
    found = re.search(r'name="fingerprint" type="hidden" value="(\w+)"', page.text)
    assert found, "the preview has no fingerprint to confirm with"
    world["fingerprint"] = found[1]
    return world


#: The built-in sessions the world opens, by username: the token each cookie carries.
SESSION_TOKENS = {"admin": "a session of admin", "owner": "a session of owner"}


def sign_in(client, username: str | None) -> None:
    """Sign ``username`` in to the built-in sign-in (None: sign out) for the next requests."""
    with client.session_transaction() as session:
        session.clear()
        if username is not None:
            session[BUILTIN_SESSION_KEY] = username
            session[BUILTIN_GENERATION_KEY] = 0  # a new account's generation
            session[BUILTIN_TOKEN_KEY] = SESSION_TOKENS[username]


def fingerprint(db, client) -> dict[str, Any]:
    """The row count of every table, the page cache's generation (it moves with every
    committed write) and who the client is signed in as."""
    state = {
        table.name: db.scalar(select(func.count()).select_from(table))
        for table in m.Base.metadata.sorted_tables
    }
    state["generation"] = db.scalar(select(m.CacheState.generation))
    with client.session_transaction() as session:
        state["signed in as"] = session.get(BUILTIN_SESSION_KEY)
    return state


def changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, tuple]:
    return {key: (before[key], after[key]) for key in before if before[key] != after[key]}


# ----------------------------------------------------------------------------- the requests


@dataclass(frozen=True)
class Sample:
    """A request its route accepts: form data from the world and the route's URL values, who
    makes it (an account of the world, None: nobody signed in), and which world value a URL
    argument takes when not the one of its name."""

    data: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] = lambda w, url: {}
    #: The department admin may do everything but what needs a profile of one's own.
    who: str | None = "admin"
    url: dict[str, str] = field(default_factory=dict)
    #: For a POST that by design writes nothing (a preview): what its accepted answer shows,
    #: the control that the refusal without a token was the token's doing.
    shows: str | None = None


def _person(w: dict[str, Any], url: dict[str, Any]) -> dict[str, Any]:
    """The admin's person form: a new person, or the subject with their sign-in kept."""
    if "slug" not in url:
        return {"full_name": "Nora New", "role": "faculty", "visibility": "public", "active": "y"}
    return {"full_name": w["full_name"], "role": "faculty", "visibility": "members",
            "active": "y", "user_key": "owner", "version": w["person_version"]}  # fmt: skip


#: endpoint → a request it accepts (every mutating endpoint needs one).
SAMPLES: dict[str, Sample] = {
    "directory.login": Sample(lambda w, url: {"username": "owner", "password": PASSWORD},
                              who=None),
    "directory.logout": Sample(),
    "directory.edit_entry": Sample(lambda w, url: {
        "title": "Distributed Systems", "year": "2026", "visibility": "public",
        "version": w["entry_version"]}),
    "directory.delete_entry": Sample(lambda w, url: {"version": w["entry_version"]}),
    "directory.move_entry": Sample(lambda w, url: {"direction": "down",
                                                   "version": w["entry_version"]}),
    "directory.edit_profile": Sample(lambda w, url: {
        "full_name": w["full_name"], "visibility": "private", "version": w["person_version"]}),
    "directory.edit_photo": Sample(lambda w, url: {  # another picture than the one it has
        "photo": (io.BytesIO(_image("PNG", (80, 80))), "me.png"), "alt_text": "A new portrait"}),
    "directory.remove_photo": Sample(),
    "directory.edit_photo_focus": Sample(lambda w, url: {
        "focus_x": "25", "focus_y": "30", "version": w["person_version"]}),
    "directory.edit_papers_and_cv": Sample(lambda w, url: {
        "repeat_selected": "y", "cv_publications": "1", "version": w["person_version"]}),
    "directory.confirm_current": Sample(),
    "directory.confirm_advising": Sample(),
    "directory.confirm_authorship": Sample(),
    "directory.accept_candidate": Sample(),
    "directory.reject_candidate": Sample(),
    "directory.accept_all_candidates": Sample(),
    "directory.check_now": Sample(),
    "directory.decline_authorship": Sample(),
    "directory.revert_change": Sample(),
    "directory.delegates": Sample(lambda w, url: {"delegate_id": str(w["new_delegate"])}),
    "directory.remove_delegate": Sample(),
    "directory.edit_publication": Sample(lambda w, url: {
        "title": "Tokens, Revisited", "authors": w["full_name"], "type": "conference",
        "status": "published", "visibility": "public", "version": w["pub_version"]}),
    "directory.remove_publication": Sample(lambda w, url: {"version": w["pub_version"]}),
    "directory.move_publication": Sample(lambda w, url: {"direction": "down",
                                                         "version": w["pub_version"]}),
    "directory.admin_person": Sample(_person),
    "directory.admin_deactivate": Sample(),
    "directory.admin_invite": Sample(),
    "directory.admin_merge": Sample(lambda w, url: {"keep_id": str(w["keep"]),
                                                    "merge_id": str(w["duplicate"])}),
    "directory.admin_areas": Sample(lambda w, url: {"name": "Serverless Computing",
                                                    "version": w["area_version"]}),
    "directory.admin_delete_area": Sample(),
    "directory.approve": Sample(),
    "directory.reject": Sample(lambda w, url: {"reason": "Not this term."}),
    "directory.claim_profile": Sample(url={"token": "invitation"}),
    "directory.my_publications_import": Sample(lambda w, url: {"bibtex_text": BIBTEX},
                                               who="owner"),  # the admin has no profile
    "directory.publications_import": Sample(lambda w, url: {"bibtex_text": BIBTEX}),
    "directory.publications_preview": Sample(lambda w, url: {"fingerprint": w["fingerprint"]}),
    "directory.publications_discard": Sample(),
    "directory.publications_manage": Sample(lambda w, url: {"shown": w["url"]["uid"],
                                                            "hidden": w["url"]["uid"]}),
    "directory.publication_merge": Sample(lambda w, url: {"other": w["other_uid"]}),
    "directory.publication_versions": Sample(lambda w, url: {"other": w["other_uid"],
                                                             "direction": "this"}),
    "directory.publication_split": Sample(lambda w, url: {"person": str(w["person_id"])}),
    "directory.admin_import_people": Sample(lambda w, url: {
        "people_file": (io.BytesIO(ONBOARDING_CSV.encode()), "people.csv")},
        shows="<strong>1</strong> ready"),
    "directory.admin_import_confirm": Sample(lambda w, url: {
        "source": b64encode(ONBOARDING_CSV.encode()).decode(), "lines": "2"}),
    "directory.publish_profile": Sample(lambda w, url: {"listed": "0"}),
    "directory.admin_remind": Sample(lambda w, url: {"people": str(w["stale"])}),
    "directory.still_current": Sample(url={"token": "reminder"}, who=None),
}  # fmt: skip


def _url_values(rule: Rule, sample: Sample, world: dict[str, Any]) -> dict[str, Any]:
    values = {}
    for argument in sorted(rule.arguments):
        key = sample.url.get(argument, argument)
        if key not in world["url"]:
            pytest.fail(f"{rule.endpoint} ({rule.rule}): no value for <{argument}>; add one "
                        "to the world fixture's url")  # fmt: skip
        values[argument] = world["url"][key]
    return values


def test_every_mutating_route_is_walked(host: Flask) -> None:
    """The walk below covers exactly the rules of the host's URL map that accept anything
    but reading (GET, HEAD, OPTIONS), each with a request it accepts."""
    writing = sorted(
        rule.rule
        for rule in host.url_map.iter_rules()
        if rule.endpoint.startswith("directory.")
        and not (rule.methods or set()) <= {"GET", "HEAD", "OPTIONS"}
    )
    walked = sorted({rule.rule for rule, _ in ROUTES})
    assert len(walked) == len(writing), f"walked {len(walked)} of {len(writing)} rules"
    assert walked == writing
    endpoints = {rule.endpoint for rule, _ in ROUTES}
    assert not set(SAMPLES) - endpoints, "SAMPLES names endpoints the app does not have"


@pytest.mark.parametrize(
    ("rule", "method"), ROUTES, ids=[f"{method} {rule.rule}" for rule, method in ROUTES]
)
def test_a_request_without_its_token_is_refused_and_writes_nothing(
    client, db, world, rule: Rule, method: str
) -> None:
    sample = SAMPLES.get(rule.endpoint)
    if sample is None:
        pytest.fail(f"{rule.endpoint} ({rule.rule}): add a request it accepts to SAMPLES")
    values = _url_values(rule, sample, world)
    url = rule.build(values, append_unknown=False)[1]
    sign_in(client, sample.who)
    before = fingerprint(db, client)

    response = client.open(url, method=method, data=sample.data(world, values))
    assert response.status_code in (400, 403), (
        f"{method} {url} without a token, as {sample.who or 'nobody'}: {response.status_code}"
    )
    assert changes(before, fingerprint(db, client)) == {}, f"{method} {url} wrote without a token"

    # The control: the same request with the form's token is accepted and changes something.
    data = {"csrf_token": csrf_token(client), **sample.data(world, values)}
    response = client.open(url, method=method, data=data)
    assert response.status_code in (200, 302, 303), (
        f"{method} {url} with its token, as {sample.who or 'nobody'}: {response.status_code}\n"
        + response.get_data(as_text=True)[:2000]
    )
    if sample.shows is not None:
        assert sample.shows in response.get_data(as_text=True), f"{method} {url}: not shown"
        assert changes(before, fingerprint(db, client)) == {}, f"{method} {url} wrote"
    else:
        assert changes(before, fingerprint(db, client)), f"{method} {url} changed nothing"
