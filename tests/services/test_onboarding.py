"""Onboarding people from a CSV file: the upload, its preview with each row's problems next to
it, the limits, and the confirm step that writes every valid row at once (people,
invitations, advising, history) and e-mails the invitations through a real SMTP server, whose
messages are parsed and their links followed."""

from __future__ import annotations

import io
import re
from base64 import b64encode
from html import unescape

import pytest
from sqlalchemy import func, select

from directory import models as m
from directory.models import ChangeRecord, Invitation
from tests.conftest import login
from tests.support.editing import csrf_token, post
from tests.support.mail import links_in, mail_settings, text_of

UPLOAD = "/directory/admin/people/import"
CONFIRM = "/directory/admin/people/import/confirm"


@pytest.fixture
def department(db, make_person):
    """Two research areas, a faculty member in a unit, and someone already onboarded."""
    db.add_all([m.ResearchArea(slug="systems", name="Systems"),
                m.ResearchArea(slug="machine-learning", name="Machine Learning")])  # fmt: skip
    db.commit()
    grace = make_person("Grace Hopper", email="grace@cs.example.edu", unit="Systems Lab")
    make_person("Old Timer", email="old@cs.example.edu")
    return grace


def upload(client, data: bytes, filename: str = "people.csv"):
    return client.post(
        UPLOAD, content_type="multipart/form-data",
        data={"csrf_token": csrf_token(client), "people_file": (io.BytesIO(data), filename)},
    )  # fmt: skip


def hidden(html: str, name: str) -> str:
    found = re.search(rf'id="{name}" name="{name}" type="hidden" value="([^"]*)"', html)
    assert found, f"no hidden {name}"
    return unescape(found.group(1))


def confirm(client, preview_html: str, send: bool = True):
    data = {name: hidden(preview_html, name) for name in ("source", "filename", "lines")}
    if send:
        data["send_invitations"] = "y"
    return post(client, CONFIRM, data)


def row_of(html: str, line: int) -> str:
    found = re.search(rf'<tr class="[^"]*" id="line-{line}">(.*?)</tr>', html, re.S)
    assert found, f"no row for line {line}"
    return found.group(1)


def count(db, model) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(model))


GOOD = (
    "\ufeffName,Email,Role,Unit,Areas,Advisor\n"  # a byte-order mark, as Excel writes it
    "王小明,xiaoming@cs.example.edu,PhD student,systems lab,Systems; machine learning,"
    "grace@cs.example.edu\n"
    "José Núñez,jose@cs.example.edu,faculty,Vision Group,,\n"
    "Ana Lima,ana@cs.example.edu,Master's students,,Machine Learning,José Núñez\n"
).encode()


def test_a_file_is_previewed_then_written_with_invitations_e_mailed(
    client, db, department, inbox
) -> None:
    login(client, "admin")
    people_before = count(db, m.Person)
    response = upload(client, GOOD)
    html = response.get_data(as_text=True)
    assert response.status_code == 200, html
    # The preview writes nothing.
    assert count(db, m.Person) == people_before and count(db, Invitation) == 0
    assert "<strong>3</strong> ready" in html
    assert "/people/wang-xiao-ming" in row_of(html, 2)
    assert "Unit written as the directory has it: “Systems Lab”" in row_of(html, 2)
    assert "“Vision Group” is a new unit" in row_of(html, 3)

    done = confirm(client, html)
    page = done.get_data(as_text=True)
    assert done.status_code == 200, page
    assert count(db, m.Person) == people_before + 3
    xiaoming = db.scalar(select(m.Person).where(m.Person.email == "xiaoming@cs.example.edu"))
    assert (xiaoming.full_name, xiaoming.slug, xiaoming.role) == (
        "王小明", "wang-xiao-ming", "phd_student")  # fmt: skip
    assert xiaoming.unit == "Systems Lab"
    assert sorted(a.slug for a in xiaoming.areas) == ["machine-learning", "systems"]
    assert xiaoming.published is False  # DIRECTORY_NEW_PROFILES_UNLISTED
    ana = db.scalar(select(m.Person).where(m.Person.email == "ana@cs.example.edu"))
    jose = db.scalar(select(m.Person).where(m.Person.email == "jose@cs.example.edu"))
    relations = {(r.advisor_id, r.student_id, r.degree, r.confirmed)
                 for r in db.scalars(select(m.AdvisingRelation))}  # fmt: skip
    assert relations == {(department.id, xiaoming.id, "phd", True),
                         (jose.id, ana.id, "masters", True)}  # fmt: skip
    # History: each person's creation and invitation, and one record of the whole file.
    kinds = [(r.entity_kind, r.action) for r in db.scalars(
        select(ChangeRecord).where(ChangeRecord.person_id == xiaoming.id)
        .order_by(ChangeRecord.id))]  # fmt: skip
    assert kinds == [("person", "create"), ("invitation", "invite"), ("advising", "create")]
    batch = db.scalar(select(ChangeRecord).where(ChangeRecord.entity_kind == "onboarding"))
    assert batch.summary == "Onboarded 3 people from people.csv"
    assert set(batch.after["people"]) == {xiaoming.id, ana.id, jose.id}

    # Three e-mails, each with the claim link the page shows; following one claims the profile.
    assert sorted(msg["To"] for msg in inbox.messages) == [
        "ana@cs.example.edu", "jose@cs.example.edu", "xiaoming@cs.example.edu"]  # fmt: skip
    message = inbox.to("xiaoming@cs.example.edu")[0]
    assert message["From"] == "Directory <directory@cs.example.edu>"
    assert "王小明" in text_of(message)
    [link] = [link for link in links_in(text_of(message)) if "/claim/" in link]
    assert link in page
    path = link.split("directory.test", 1)[1]
    login(client, "xiaoming")
    claim_page = client.get(path)
    assert claim_page.status_code == 200 and "王小明" in claim_page.get_data(as_text=True)
    assert post(client, path).status_code == 302
    db.expire_all()
    assert db.get(m.Person, xiaoming.id).user_key == "xiaoming"


def test_each_row_s_problems_are_shown_next_to_it_and_only_good_rows_are_written(
    client, db, department
) -> None:
    data = (
        b"name,email,role,areas,advisor,slug\n"
        b"Good One,good@cs.example.edu,faculty,,,\n"  # 2
        b"Bad Role,badrole@cs.example.edu,professor,,,\n"  # 3
        b"Bad Area,badarea@cs.example.edu,faculty,Sytems,,\n"  # 4
        b"No Advisor,noadv@cs.example.edu,phd_student,,Nobody Known,\n"  # 5
        b"Copy Mail,good@cs.example.edu,faculty,,,\n"  # 6
        b"Existing Mail,OLD@cs.example.edu,faculty,,,\n"  # 7
        b"Good One,another@cs.example.edu,staff,,,\n"  # 8: same address as line 2
        b"Grace Hopper,grace2@cs.example.edu,faculty,,,\n"  # 9: the address is taken
        b"Not A Mail,not-an-address,faculty,,,\n"  # 10
        b",noname@cs.example.edu,faculty,,,\n"  # 11
        b"Too,many@cs.example.edu,faculty,,,,extra\n"  # 12
        b"Bad Slug,badslug@cs.example.edu,faculty,,,Bad Slug!\n"  # 13
        b"Student Of Bad,sob@cs.example.edu,phd_student,,badrole@cs.example.edu,\n"  # 14
        b"Grace Hopper,grace3@cs.example.edu,faculty,,,grace-hopper-2\n"  # 15: ok, own slug
        b"Bell\x07 Char,bell@cs.example.edu,faculty,,,\n"  # 16
    )
    login(client, "admin")
    before = count(db, m.Person)
    html = upload(client, data).get_data(as_text=True)
    expected = {
        3: "Unknown role “professor”",
        4: "Unknown research area “Sytems”. Did you mean “Systems”?",
        5: "No one called “Nobody Known” is in the directory or this file",
        6: "The same e-mail address as line 2.",
        7: "Already in the directory: Old Timer (old-timer).",
        8: "The same address (/people/good-one) as line 2",
        9: "The address /people/grace-hopper is Grace Hopper’s",
        10: "“not-an-address” is not an e-mail address.",
        11: "A name is required.",
        12: "This row has 1 more field than the header",
        13: "Use lower-case letters, digits and single hyphens.",
        14: "The advisor's row (line 3) has problems",
        16: "Holds invisible control characters; remove them.",
    }
    for line, message in expected.items():
        row = unescape(row_of(html, line))
        assert message in row, (line, row)
        assert "Left out" in row
    for line in (2, 15):
        assert "Ready" in row_of(html, line) and "field__errors" not in row_of(html, line)
    assert "<strong>2</strong> ready, <strong>13</strong> with problems" in html
    assert 'class="cell--error">professor' in row_of(html, 3)

    page = confirm(client, html, send=False).get_data(as_text=True)
    assert count(db, m.Person) == before + 2
    assert {
        p.slug
        for p in db.scalars(
            select(m.Person).where(
                m.Person.email.in_(["good@cs.example.edu", "grace3@cs.example.edu"])
            )
        )
    } == {"good-one", "grace-hopper-2"}
    assert "13 rows with problems were left out" in page
    assert count(db, Invitation) == 2


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "The file is empty"),
        (b"name,email\nAda,ada@x.org\n", "The header lacks the column role"),
        (b"name;email;role\nAda;ada@x.org;faculty\n", "looks separated by semicolons"),
        (b"name,emial,role\n", "Unknown column “emial”. Did you mean “email”?"),
        (b"name,email,role\n", "The file has a header but nobody in it."),
        (b"name,email,role,role\nA,a@x.org,faculty,faculty\n", "names role more than once"),
        (
            "name,email,role\nJosé,jose@x.org,faculty\n".encode("latin-1"),
            "The file is not UTF-8 text (byte 0xe9 on line 2)",
        ),
        (b'name,email,role\n"Unclosed,a@x.org,faculty\n', "cannot be read as CSV"),
    ],
)
def test_a_file_that_cannot_be_read_is_refused_with_the_reason(
    client, db, department, data, message
) -> None:
    login(client, "admin")
    before = count(db, m.Person)
    response = upload(client, data)
    assert response.status_code == 400
    html = unescape(response.get_data(as_text=True))
    assert message in html
    assert 'id="people_file-errors"' in html  # next to the file field
    assert count(db, m.Person) == before


def test_the_size_and_row_limits_are_explicit(app, client, db, department, monkeypatch) -> None:
    login(client, "admin")
    monkeypatch.setitem(app.config, "DIRECTORY_ONBOARDING_MAX_ROWS", 2)
    rows = "".join(f"P{i} Person,p{i}@x.org,faculty\n" for i in range(3))
    html = unescape(upload(client, f"name,email,role\n{rows}".encode()).get_data(as_text=True))
    assert "The file holds more than 2 people; onboard at most 2 per file" in html
    two = upload(client, f"name,email,role\n{rows.splitlines(True)[0]}{rows.splitlines(True)[1]}"
                 .encode())  # fmt: skip
    assert two.status_code == 200 and "<strong>2</strong> ready" in two.get_data(as_text=True)

    monkeypatch.setitem(app.config, "DIRECTORY_ONBOARDING_MAX_BYTES", 100)
    big = b"name,email,role\n" + b"A Person,a@x.org,faculty\n" + b"B" * 90  # 131 bytes
    html = unescape(upload(client, big).get_data(as_text=True))
    assert "The file is larger than 100 bytes, the most accepted" in html
    small = upload(client, big[:100])
    assert small.status_code == 200, small.get_data(as_text=True)
    assert "Up to 2 people" in client.get(UPLOAD).get_data(as_text=True)


def test_utf16_and_tab_separated_files_from_spreadsheets_are_read(client, department) -> None:
    login(client, "admin")
    text = "name\temail\trole\n李华\tlihua@x.org\tPostdoctoral researcher\n"
    html = upload(client, text.encode("utf-16")).get_data(as_text=True)
    assert "<strong>1</strong> ready" in html and "/people/li-hua" in html


def test_confirming_after_the_directory_changed_writes_nothing(
    client, db, department, make_person
) -> None:
    login(client, "admin")
    html = upload(client, GOOD).get_data(as_text=True)
    make_person("Someone Else", email="jose@cs.example.edu")  # meanwhile
    before = count(db, m.Person)
    response = confirm(client, html)
    assert response.status_code == 409
    page = unescape(response.get_data(as_text=True))
    assert "The directory changed since the preview" in page
    assert "Already in the directory: Someone Else" in page
    assert count(db, m.Person) == before and count(db, Invitation) == 0


def test_without_mail_settings_the_links_are_shown_and_nothing_is_lost(
    client, db, department
) -> None:
    login(client, "admin")
    html = upload(client, GOOD).get_data(as_text=True)
    assert "E-mail is not set up" in html
    page = confirm(client, html).get_data(as_text=True)
    assert "No invitation was e-mailed: E-mail is not set up" in page
    assert len(re.findall(r"http://directory.test/directory/claim/[\w-]+", page)) == 3
    assert count(db, Invitation) == 3


def test_a_mail_server_that_cannot_be_reached_is_reported(
    app, client, db, department, monkeypatch
) -> None:
    from tests.support.mail import free_port

    for key, value in mail_settings(free_port()).items():  # nothing listens there
        monkeypatch.setitem(app.config, key, value)
    login(client, "admin")
    page = confirm(client, upload(client, GOOD).get_data(as_text=True)).get_data(as_text=True)
    assert "could not be reached" in page
    assert count(db, Invitation) == 3 and page.count("/directory/claim/") == 3


def test_a_refused_recipient_is_reported_and_the_others_are_sent(
    client, db, department, inbox
) -> None:
    data = b"name,email,role\nRefused Person,refused@cs.example.edu,staff\nFine,fine@x.org,staff\n"
    login(client, "admin")
    page = confirm(client, upload(client, data).get_data(as_text=True)).get_data(as_text=True)
    assert "Not sent: refused by the mail server: 550 5.1.1 No such mailbox here" in page
    assert [msg["To"] for msg in inbox.messages] == ["fine@x.org"]
    assert count(db, Invitation) == 2


def test_only_admins_onboard(client, db, department) -> None:
    login(client, "grace-key")
    assert client.get(UPLOAD).status_code == 403
    assert upload(client, GOOD).status_code == 403
    data = {"source": b64encode(GOOD).decode(), "lines": "2,3,4"}
    assert post(client, CONFIRM, data).status_code == 403
    login(client, None)
    assert post(client, CONFIRM, data).status_code == 403
    login(client, "admin")
    for garbage in ("not base64!", "ünïcode"):
        assert post(client, CONFIRM, {**data, "source": garbage}).status_code == 400
    assert count(db, Invitation) == 0


def test_identifier_columns_are_checked_and_written(client, db, department) -> None:
    department.orcid = "0000-0002-1825-0097"
    db.commit()
    login(client, "admin")
    data = (
        b"name,email,role,orcid,dblp,openalex,semantic_scholar\n"
        b"Ida Id,ida@cs.example.edu,faculty,https://orcid.org/0000-0001-5109-3700,12/3456,"
        b"A5023888391,1741101\n"
        b"Bad Digit,bad@cs.example.edu,faculty,0000-0001-5109-3701,,,\n"
        b"Taken Id,taken@cs.example.edu,faculty,0000-0002-1825-0097,,,\n"
        b"Twice,twice@cs.example.edu,faculty,,12/3456,,\n"
    )
    html = upload(client, data).get_data(as_text=True)
    assert "check digit is wrong" in row_of(html, 3)
    assert "Grace Hopper already has this identifier." in row_of(html, 4)
    assert "The same identifier as line 2." in row_of(html, 5)
    assert confirm(client, html, send=False).status_code == 200
    ida = db.scalar(select(m.Person).where(m.Person.email == "ida@cs.example.edu"))
    assert (ida.orcid, ida.dblp_pid, ida.openalex_id, ida.semantic_scholar_id) == (
        "0000-0001-5109-3700",
        "12/3456",
        "A5023888391",
        "1741101",
    )
    assert count(db, m.Person) == 3  # Grace, Old Timer, Ida: the three others are left out
