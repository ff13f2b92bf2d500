"""The write path is structural: every mutating route goes through the unit of work.

* No ``commit()`` in the package outside :mod:`directory.services.unit_of_work` (the source
  is read), and every mutating request commits exactly once (commits are counted).
* Every mutating route of the blueprint (found in ``app.url_map``, not listed by hand) has a
  scenario below or in the access matrix; run as the owner it leaves a history record, run as
  a member whose role needs approval it leaves a proposal and changes nothing else.
* Imported papers are found by search as soon as the import's request has committed; an
  import by a member whose changes need approval waits, and approving it puts the papers on
  their profile (so does approving a paper added by hand).
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from sqlalchemy import event, func, select

from directory import models as m
from directory.models import ChangeRecord, PendingChange
from directory.services.photos import photo_from_bytes
from directory.services.reminders import link_token
from tests.conftest import login
from tests.invariants.test_access_matrix import ROUTES, world  # noqa: F401 - the matrix's world fixture
from tests.support.editing import post

PACKAGE = Path(__file__).resolve().parents[2] / "directory"
UNIT_OF_WORK = PACKAGE / "services" / "unit_of_work.py"
#: The one caller of ``UnitOfWork.commit()`` outside the unit of work: the blueprint's wrapper
#: of every view, when the view succeeds.
COMMITTING = PACKAGE / "web" / "committing.py"
P = "/directory/people/ada-lovelace"

BIBTEX = b"""@inproceedings{lovelace2026engine,
  title = {Notes on the Analytical Engine Revisited},
  author = {Lovelace, Ada and Babbage, Charles},
  booktitle = {Proceedings of the Symposium on Engines},
  year = {2026},
  doi = {10.5555/engine.2026.1}
}
"""


# ----------------------------------------------------------------------------- one commit


def _commit_calls(path: Path) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "commit"
    ]


def test_no_commit_outside_the_unit_of_work() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path == UNIT_OF_WORK:
            continue
        for node in _commit_calls(path):
            receiver = node.func.value  # type: ignore[attr-defined]
            if path == COMMITTING and isinstance(receiver, ast.Name) and receiver.id == "uow":
                continue  # UnitOfWork.commit(), the unit's own single commit
            offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert offenders == []
    assert len(_commit_calls(COMMITTING)) == 1


@pytest.fixture
def commits(app) -> list[int]:
    """The COMMITs of the directory's sessions, as they happen (a savepoint's release, also
    reported as a commit by SQLAlchemy, is not one)."""
    seen: list[int] = []
    maker = app.extensions["directory"].db.sessionmaker

    def count(session: Any) -> None:
        if not session.in_nested_transaction() and not session.info.get("arranges"):
            seen.append(1)

    event.listen(maker, "before_commit", count)
    yield seen
    event.remove(maker, "before_commit", count)


# ----------------------------------------------------------------------------- the scenarios


def _hidden(html: str, name: str) -> str:
    found = re.search(rf'name="{name}" type="hidden" value="([^"]*)"', html)
    assert found, f"no hidden {name} field"
    return found.group(1)


def _draft(client, db, person: m.Person) -> str:
    """An uploaded BibTeX file waiting for its preview: the preview's URL."""
    draft = m.ImportDraft(
        person_id=person.id, created_by=person.user_key, kind="bibtex",
        source=BIBTEX.decode(), filename="mine.bib",
    )  # fmt: skip
    db.add(draft)
    db.commit()
    return f"{P}/publications/import/{draft.token}"


def _confirm_import(client, db, w) -> Any:
    url = _draft(client, db, db.get(m.Person, w["ada"]))
    html = client.get(url).get_data(as_text=True)
    return client.post(
        url, data={"csrf_token": _hidden(html, "csrf_token"),
                   "fingerprint": _hidden(html, "fingerprint")},
    )  # fmt: skip


def _view_update(client, db, w) -> Any:
    uid = db.get(m.Publication, w["pub"]).uid
    return post(client, f"{P}/publications/manage", {"shown": uid, "selected": uid})


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 40), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def _upload_photo(client, db, w) -> Any:
    return post(client, f"{P}/edit/photo", {"photo": (io.BytesIO(_png()), "me.png"),
                                            "alt_text": "Ada"})  # fmt: skip


def _remove_photo(client, db, w) -> Any:
    db.get(m.Person, w["ada"]).photo = photo_from_bytes(_png(), "Ada")
    db.commit()
    return post(client, f"{P}/edit/photo/remove")


def _photo_for_ada(db, w) -> None:
    person = db.get(m.Person, w["ada"])
    if person.photo is None:
        person.photo = photo_from_bytes(_png(), "Ada")
        db.commit()


def _photo_focus(client, db, w) -> Any:
    """The focal point of Ada's photo: a change of her profile like its other fields."""
    _photo_for_ada(db, w)
    version = db.get(m.Person, w["ada"]).version
    return post(client, f"{P}/edit/photo/focus", {"focus_x": "20", "focus_y": "35",
                                                  "version": version})  # fmt: skip


_photo_focus.arrange = _photo_for_ada  # type: ignore[attr-defined]


def _second_paper(db, w) -> m.Publication:
    other = m.Publication(title="A Paper", year=2024, created_by_id=w["mia"])
    db.add(other)
    db.flush()
    db.add(m.ProfilePublication(person_id=w["mia"], publication_id=other.id))
    db.commit()
    return other


def _merge(client, db, w) -> Any:
    other, pub = _second_paper(db, w), db.get(m.Publication, w["pub"])
    return post(client, f"/directory/publications/{pub.uid}/merge", {"other": other.uid})


def _versions(client, db, w) -> Any:
    other, pub = _second_paper(db, w), db.get(m.Publication, w["pub"])
    return post(client, f"/directory/publications/{pub.uid}/versions",
                {"other": other.uid, "direction": "this"})  # fmt: skip


def _split(client, db, w) -> Any:
    pub = db.get(m.Publication, w["pub"])
    db.add(m.ProfilePublication(person_id=w["mia"], publication_id=pub.id))
    db.commit()
    return post(client, f"/directory/publications/{pub.uid}/split", {"person": str(w["mia"])})


def _another_paper(db, w) -> None:
    """A second paper of the same year on Ada's profile, listed after the first."""
    if db.scalar(select(m.Publication.id).where(m.Publication.title == "Another Paper")):
        return
    other = m.Publication(title="Another Paper", year=2024, created_by_id=w["ada"])
    db.add(other)
    db.flush()
    db.add(m.ProfilePublication(person_id=w["ada"], publication_id=other.id, position=1))
    db.commit()


def _move_paper(client, db, w) -> Any:
    """Move the paper below another of the same year: both papers' listings change."""
    _another_paper(db, w)
    pub = db.get(m.Publication, w["pub"])
    return post(client, f"{P}/edit/publications/{pub.id}/move",
                {"direction": "down", "version": pub.version})  # fmt: skip


_move_paper.arrange = _another_paper  # type: ignore[attr-defined]


def _claim(client, db, w) -> Any:
    token = "an-invitation-token"
    db.add(m.Invitation(person_id=w["sam"], token_hash=hashlib.sha256(token.encode()).hexdigest(),
                        expires_at=datetime.now(UTC) + timedelta(days=1)))  # fmt: skip
    db.commit()
    login(client, "newcomer")
    return post(client, f"/directory/claim/{token}")


def _still_current(client, db, w) -> Any:
    """The one-click confirmation of a reminder's link, by whoever opens it (not signed in)."""
    reminder = m.Reminder(person_id=w["ada"], sent_to="ada@example.org")
    db.add(reminder)
    db.commit()
    url = f"/directory/current/{link_token(client.application.secret_key, reminder)}"
    login(client, None)
    return post(client, url)


#: Mutating routes (or cases of them) the access matrix does not walk: endpoint -> (who, how).
#: ``who`` is the role that does it; ``how`` posts it and returns the response.
EXTRA: dict[str, tuple[str, Callable[..., Any]]] = {
    "directory.publications_preview": ("owner", _confirm_import),
    "directory.publications_manage": ("owner", _view_update),
    "directory.edit_photo": ("owner", _upload_photo),
    "directory.remove_photo": ("owner", _remove_photo),
    "directory.edit_photo_focus": ("owner", _photo_focus),
    "directory.publication_merge": ("admin", _merge),
    "directory.publication_versions": ("admin", _versions),
    "directory.publication_split": ("admin", _split),
    "directory.claim_profile": ("newcomer", _claim),
    "directory.move_publication": ("owner", _move_paper),
    "directory.still_current": ("visitor", _still_current),
}

#: Mutating routes that change no directory content, with the reason; every other one must
#: leave a history record (and wait for approval where the settings say so).
NOT_CONTENT = {
    "directory.login": "signs in; writes only the account's failure count",
    "directory.logout": "signs out; writes nothing",
    "directory.publications_import": "stores the uploader's own draft, shown to nobody else",
    "directory.my_publications_import": "the same, for the signed-in person's own profile",
    "directory.publications_discard": "deletes the uploader's own draft",
    "directory.admin_import_people": "reads the uploaded file, shows its preview; writes nothing",
    "directory.admin_remind": "records which reminder e-mails were sent; changes no profile",
    "directory.check_now": "asks the next harvest run to take this person first; writes a "
    "request, changes no profile",
}

#: Decisions kept on the proposal itself (who, when, why) rather than in the history.
DECIDED_ON_THE_PROPOSAL = {"directory.reject": "a rejection changes no content"}

#: Content changes recorded in the history but never held for approval, with the reason.
APPROVAL_EXEMPT = {
    "directory.edit_photo": "the image itself is not kept in the history",
    "directory.remove_photo": "the image itself is not kept in the history",
    "directory.confirm_current": "says the profile is current; changes nothing shown",
    "directory.confirm_advising": "confirms the other side's entry, which it does not change",
    "directory.confirm_authorship": "the member says a printed name is theirs (about oneself)",
    "directory.decline_authorship": "the member says a printed name is not theirs",
    "directory.reject_candidate": "the member says a harvested work is not theirs",
}


def _matrix_endpoint(app, url: str) -> str:
    adapter = app.url_map.bind("directory.test")
    return adapter.match(url.split("?")[0], method="POST")[0]


def _matrix_posts(app) -> dict[str, tuple]:
    """The access matrix's POST scenarios by endpoint (several may share one)."""
    found: dict[str, tuple] = {}
    sample = {"news": 1, "pub": 1, "record": 1, "pending": 1, "area": 1, "relation": 1,
              "delegation": 1, "mia": 1, "sam": 1, "suggested": 1, "found": 1,
              "coauthored": 1}  # fmt: skip
    for route in ROUTES:
        name, method, url, _data, _allowed = route
        if method == "POST":
            found.setdefault(_matrix_endpoint(app, url.format(**sample)), route)
    return found


def test_every_mutating_route_has_a_scenario(app) -> None:
    mutating = {
        rule.endpoint
        for rule in app.url_map.iter_rules()
        if rule.endpoint.startswith("directory.") and rule.methods & {"POST", "PUT", "PATCH"}
    }
    covered = set(_matrix_posts(app)) | set(EXTRA) | set(NOT_CONTENT)
    assert mutating - covered == set(), "add a scenario for these routes"
    assert set(EXTRA) | set(NOT_CONTENT) <= mutating, "a listed route no longer exists"


def _content(db) -> tuple:
    """Everything public or private that a write could change: every table's rows, except
    the history, the proposals and the bookkeeping (drafts, search documents, cache state,
    and a claim candidate's "waiting on this proposal": the proposal's own record)."""
    db.expire_all()
    skip = {ChangeRecord.__table__, PendingChange.__table__, m.ImportDraft.__table__,
            m.SearchDocument.__table__, m.CacheState.__table__}  # fmt: skip
    waiting = {m.ClaimCandidate.__table__.c.state, m.ClaimCandidate.__table__.c.pending_change_id}
    state = []
    for table in m.Base.metadata.sorted_tables:
        if table in skip:
            continue
        columns = [c for c in table.columns
                   if c.name not in ("created_at", "updated_at") and c not in waiting]  # fmt: skip
        rows = db.execute(select(*columns).order_by(*table.primary_key.columns)).all()
        state.append((table.name, [tuple(r) for r in rows]))
    return tuple(state)


def _count(db, model) -> int:
    return db.scalar(select(func.count()).select_from(model))


def _scenarios(app) -> list[tuple[str, str, Callable[..., Any]]]:
    """(endpoint, who, post) for every content write: the matrix's POSTs (as the owner where
    the owner may, else as an admin) and the EXTRA cases."""
    scenarios = []
    for endpoint, (_name, _m, url, data, allowed) in sorted(_matrix_posts(app).items()):
        if endpoint in NOT_CONTENT or endpoint in EXTRA:
            continue

        def run(client, db, w, url=url, data=data):
            return post(client, url.format(**w), data(w))

        scenarios.append((endpoint, "owner" if "owner" in allowed else "admin", run))
    scenarios += [(endpoint, who, how) for endpoint, (who, how) in EXTRA.items()]
    return scenarios


@pytest.fixture(scope="module")
def scenarios(app) -> list[tuple[str, str, Callable[..., Any]]]:
    return _scenarios(app)


KEYS = {"owner": "ada", "admin": "admin", "newcomer": "newcomer", "visitor": None}


def _world_with_ada(db, world) -> dict[str, Any]:  # noqa: F811 - the matrix's fixture
    world = dict(world)
    world["ada"] = db.scalar(select(m.Person.id).where(m.Person.slug == "ada-lovelace"))
    return world


def test_every_write_is_recorded_and_commits_once(
    app,
    client,
    db,
    connection,
    world,  # noqa: F811 - the access matrix's fixture
    scenarios,
    commits,
) -> None:
    w = _world_with_ada(db, world)
    missing, commit_counts = [], {}
    for endpoint, who, run in scenarios:
        savepoint = connection.begin_nested()
        # A scenario arranges its data in a session of its own, begun inside the savepoint:
        # committing it releases only its own savepoint, never the test's.
        arrange = app.extensions["directory"].db.new_session()
        arrange.info["arranges"] = True  # its commits are the test's, not the request's
        try:
            login(client, KEYS[who])
            records = _count(db, ChangeRecord)
            commits.clear()
            response = run(client, arrange, w)
            assert response.status_code < 400, (endpoint, response.get_data(as_text=True))
            if endpoint not in DECIDED_ON_THE_PROPOSAL and _count(db, ChangeRecord) <= records:
                missing.append(endpoint)
            commit_counts[endpoint] = len(commits)
        finally:
            arrange.close()
            savepoint.rollback()
            db.expire_all()
    assert missing == [], "these writes left no history record"
    assert {e: n for e, n in commit_counts.items() if n != 1} == {}, "one COMMIT per request"
    assert len(commit_counts) == len(scenarios)


def test_every_write_of_a_member_needing_approval_waits(
    app,
    client,
    db,
    connection,
    world,  # noqa: F811 - the access matrix's fixture
    scenarios,
    monkeypatch,
) -> None:
    """The owner's role needs approval: each of their writes leaves a proposal and nothing
    else (admins' changes never wait)."""
    w = _world_with_ada(db, world)
    monkeypatch.setitem(app.config, "DIRECTORY_APPROVAL_ROLES", ["faculty"])
    login(client, "ada")
    checked = []
    for endpoint, who, run in scenarios:
        if who != "owner" or endpoint in APPROVAL_EXEMPT:
            continue
        savepoint = connection.begin_nested()
        # A scenario arranges its data in a session of its own, begun inside the savepoint:
        # committing it releases only its own savepoint, never the test's.
        arrange = app.extensions["directory"].db.new_session()
        arrange.info["arranges"] = True  # its commits are the test's, not the request's
        try:
            # Data a scenario needs (and would otherwise arrange itself) is not the change.
            getattr(run, "arrange", lambda db, w: None)(arrange, w)
            before, pending = _content(db), _count(db, PendingChange)
            response = run(client, arrange, w)
            assert response.status_code < 400, (endpoint, response.get_data(as_text=True))
            assert _count(db, PendingChange) > pending, f"{endpoint} left no proposal"
            assert _content(db) == before, f"{endpoint} changed content before approval"
            checked.append(endpoint)
        finally:
            arrange.close()
            savepoint.rollback()
            db.expire_all()
    assert len(checked) >= 10, checked


# ----------------------------------------------------------------------------- imports, approvals


@pytest.fixture
def student(make_person):
    """A PhD student whose changes wait for approval, and their confirmed advisor."""
    advisor = make_person("Grace Hopper", user_key="grace")
    student = make_person("Sam Student", role="phd_student", user_key="sam")
    return advisor, student


def _advise(db, advisor, student) -> None:
    db.add(m.AdvisingRelation(owner_id=advisor.id, advisor_id=advisor.id, student_id=student.id,
                              advisor_confirmed=True, student_confirmed=True))  # fmt: skip
    db.commit()


def _import_as(client, slug: str, data: bytes) -> Any:
    url = f"/directory/people/{slug}/publications/import"
    html = client.get(url).get_data(as_text=True)
    response = client.post(
        url, content_type="multipart/form-data",
        data={"csrf_token": _hidden(html, "csrf_token"),
              "bibtex_file": (io.BytesIO(data), "mine.bib")},
    )  # fmt: skip
    assert response.status_code == 302, response.get_data(as_text=True)
    preview = response.headers["Location"]
    html = client.get(preview).get_data(as_text=True)
    return client.post(
        preview, data={"csrf_token": _hidden(html, "csrf_token"),
                       "fingerprint": _hidden(html, "fingerprint")},
    )  # fmt: skip


def _search_titles(client, q: str) -> str:
    """The text of the search results page (highlighting removed)."""
    html = client.get(f"/directory/search?q={q}").get_data(as_text=True)
    return re.sub(r"</?mark>", "", html)


def test_an_imported_paper_is_found_by_search_at_once(client, db, make_person) -> None:
    make_person(user_key="ada")
    login(client, "ada")
    assert _import_as(client, "ada-lovelace", BIBTEX).status_code == 302
    login(client, None)
    assert "Notes on the Analytical Engine Revisited" in _search_titles(client, "analytical")
    record = db.scalar(select(ChangeRecord).where(ChangeRecord.entity_kind == "import"))
    assert record is not None and record.after["created"]


def test_a_paper_imported_on_the_command_line_is_found_by_search(
    runner, client, make_person, tmp_path
) -> None:
    make_person(user_key="ada")
    bib = tmp_path / "mine.bib"
    bib.write_bytes(BIBTEX)
    result = runner.invoke(
        args=["directory", "import-bibtex", "--person", "ada-lovelace", "--yes", str(bib)]
    )
    assert result.exit_code == 0, result.output
    assert "Notes on the Analytical Engine Revisited" in _search_titles(client, "analytical")


def test_an_import_by_a_student_waits_for_the_advisor(
    app, client, db, student, monkeypatch
) -> None:
    advisor, sam = student
    _advise(db, advisor, sam)
    monkeypatch.setitem(app.config, "DIRECTORY_APPROVAL_ROLES", ["phd_student"])
    login(client, "sam")
    response = _import_as(client, "sam-student", BIBTEX)
    assert response.status_code == 302
    assert _count(db, m.Publication) == 0
    pending = db.scalar(select(PendingChange).where(PendingChange.entity_kind == "import"))
    assert pending is not None and pending.status == "pending"
    login(client, None)
    assert "Analytical Engine" not in _search_titles(client, "analytical")

    login(client, "grace")
    approvals = client.get("/directory/approvals").get_data(as_text=True)
    assert "Import from mine.bib" in approvals
    assert post(client, f"/directory/approvals/{pending.id}/approve").status_code == 302
    login(client, None)
    profile = client.get("/directory/people/sam-student").get_data(as_text=True)
    assert "Notes on the Analytical Engine Revisited" in profile
    assert "Notes on the Analytical Engine Revisited" in _search_titles(client, "analytical")
    db.expire_all()
    assert db.get(PendingChange, pending.id).status == "approved"


def test_an_approved_paper_added_by_hand_appears_on_the_profile(
    app, client, db, student, monkeypatch
) -> None:
    advisor, sam = student
    _advise(db, advisor, sam)
    monkeypatch.setitem(app.config, "DIRECTORY_APPROVAL_ROLES", ["phd_student"])
    login(client, "sam")
    response = post(client, "/directory/people/sam-student/edit/publications/new", {
        "title": "A Hand-Written Paper", "authors": "Sam Student", "type": "conference",
        "status": "published", "visibility": "public", "year": "2026", "selected": "y",
    })  # fmt: skip
    assert response.status_code == 302
    assert _count(db, m.Publication) == 0
    pending = db.scalar(select(PendingChange))
    login(client, "grace")
    assert post(client, f"/directory/approvals/{pending.id}/approve").status_code == 302
    db.expire_all()
    row = db.scalar(select(m.ProfilePublication).where(
        m.ProfilePublication.person_id == sam.id))  # fmt: skip
    assert row is not None and row.selected
    login(client, None)
    profile = client.get("/directory/people/sam-student").get_data(as_text=True)
    assert "A Hand-Written Paper" in profile


def test_an_import_can_be_reverted_from_the_history(client, db, make_person) -> None:
    make_person(user_key="ada")
    login(client, "ada")
    _import_as(client, "ada-lovelace", BIBTEX)
    record = db.scalar(select(ChangeRecord).where(ChangeRecord.entity_kind == "import"))
    response = post(client, f"{P}/history/{record.id}/revert")
    assert response.status_code == 302
    db.expire_all()
    assert _count(db, m.Publication) == 0
    assert "Analytical Engine" not in _search_titles(client, "analytical")


def test_the_history_lists_grouped_changes_and_undoes_only_what_it_can(
    client, db, make_person
) -> None:
    ada = make_person(user_key="ada")
    login(client, "admin")
    assert post(client, f"/directory/admin/people/{ada.slug}/invite").status_code == 200
    login(client, "ada")
    _import_as(client, "ada-lovelace", BIBTEX)
    page = client.get(f"{P}/history").get_data(as_text=True)
    assert "Imported" in page and "Notes on the Analytical Engine Revisited" in page
    assert "Undo this import" in page
    invitation = db.scalar(select(ChangeRecord).where(ChangeRecord.entity_kind == "invitation"))
    response = post(client, f"{P}/history/{invitation.id}/revert", follow_redirects=True)
    assert response.status_code == 200
    assert "cannot be undone from the history" in response.get_data(as_text=True)
