"""`flask directory harvest` end to end against the loopback server of the sources (real
HTTP, each API's shape): per person and source fetched/new/known/errors with progress; a
harvest-run record per person and source; a re-run with nothing new writes nothing; one
source failing leaves the others; a run finding the lock held skips; the policy setting
accepts a person's ORCID works; "check now" is used up by the next run."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from directory import models as m
from tests.conftest import login
from tests.support.harvest_data import HarvestPerson, orcid_for
from tests.support.harvest_server import harvest_server
from tests.support.mail import links_in, text_of


def _rows(db) -> dict[str, int]:
    db.expire_all()
    return {
        model.__tablename__: db.scalar(select(func.count()).select_from(model))
        for model in (m.ClaimCandidate, m.HarvestRun, m.Publication, m.ProfilePublication,
                      m.ChangeRecord, m.ClaimRejection)
    }  # fmt: skip


@pytest.fixture
def ada_at_sources(make_person):
    orcid = orcid_for(1)
    ada = make_person(orcid=orcid, dblp_pid="12/3456", openalex_id="A5000000001",
                      semantic_scholar_id="1000001")  # fmt: skip
    person = HarvestPerson("ada", "Ada Lovelace", orcid=orcid, dblp="12/3456",
                           openalex="A5000000001", semantic_scholar="1000001")  # fmt: skip
    return ada, person


@pytest.fixture
def served(app, ada_at_sources, monkeypatch):
    with harvest_server([ada_at_sources[1]], works_per_source=4) as server:
        monkeypatch.setitem(app.config, "DIRECTORY_HARVEST_SOURCES", server.sources)
        monkeypatch.setitem(app.config, "DIRECTORY_HARVEST_PAUSES", {})
        yield server


def test_a_run_reports_each_source_and_a_rerun_writes_nothing(runner, db, served) -> None:
    result = runner.invoke(args=["directory", "harvest"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("[1/1")]
    assert {line.split()[2].rstrip(":") for line in lines} >= {"orcid", "openalex", "dblp"}
    assert all("fetched" in line or "skipped" in line for line in lines)
    first = _rows(db)
    assert first["directory_claim_candidates"] > 0 and first["directory_harvest_runs"] > 0
    assert first["directory_profile_publications"] == 0  # nothing on the profile by itself
    again = runner.invoke(args=["directory", "harvest"])
    assert again.exit_code == 0, again.output
    assert "new 0" in again.output and _rows(db) == first


def test_one_failing_source_leaves_the_others(runner, db, served) -> None:
    served.fault("openalex", "500")
    result = runner.invoke(args=["directory", "harvest"])
    assert result.exit_code == 0, result.output
    failed = [line for line in result.output.splitlines() if " openalex:" in line]
    assert failed and "error" in failed[0]
    run = db.scalars(select(m.HarvestRun).where(m.HarvestRun.source == "openalex")).one()
    assert run.errors
    assert db.scalars(select(m.HarvestRun).where(m.HarvestRun.source == "orcid")).one().new > 0


def test_a_run_finding_the_lock_held_skips_and_writes_nothing(runner, db, served) -> None:
    db.add(m.HarvestLock(name="harvest", holder="other-host:1"))
    db.commit()
    before = _rows(db)
    result = runner.invoke(args=["directory", "harvest"])
    assert "Harvest skipped: another harvest run (other-host:1) holds the lock" in result.output
    assert _rows(db) == before


def test_the_policy_accepts_orcid_works_through_the_write_path(
    app, runner, db, served, ada_at_sources, monkeypatch
) -> None:
    monkeypatch.setitem(app.config, "DIRECTORY_HARVEST_AUTO_ACCEPT", ("orcid",))
    result = runner.invoke(args=["directory", "harvest", "--source", "orcid"])
    assert result.exit_code == 0, result.output
    ada = ada_at_sources[0]
    listed = db.scalar(select(func.count()).select_from(m.ProfilePublication).where(
        m.ProfilePublication.person_id == ada.id))  # fmt: skip
    accepted = db.scalars(select(m.ClaimCandidate).where(m.ClaimCandidate.state == "accepted"))
    assert listed == len(accepted.all()) > 0
    assert {r.entity_kind for r in db.scalars(select(m.ChangeRecord))} == {"publication"}


def test_dry_run_and_check_now(runner, db, served, ada_at_sources) -> None:
    db.add(m.HarvestRequest(person_id=ada_at_sources[0].id, requested_by="ada"))
    db.commit()
    before = _rows(db)
    dry = runner.invoke(args=["directory", "harvest", "--dry-run"])
    assert "dry run: nothing written" in dry.output and _rows(db) == before
    runner.invoke(args=["directory", "harvest", "--person", "ada-lovelace"])
    db.expire_all()
    assert db.get(m.HarvestRequest, ada_at_sources[0].id) is None


def test_the_admin_sees_each_source_with_its_faults_first(client, runner, served) -> None:
    served.fault("openalex", "500")
    runner.invoke(args=["directory", "harvest"])
    login(client, "admin")
    page = client.get("/directory/admin/harvest").get_data(as_text=True)
    assert "Harvest status" in page and "Ada Lovelace" in page
    first_row = page.split("<tbody>")[1].split("</tr>")[0]
    assert "OpenAlex" in first_row and "500" in first_row
    login(client, "ada")
    assert client.get("/directory/admin/harvest").status_code == 403


def test_the_digest_tells_of_new_papers_at_most_weekly_with_a_signed_link(
    client, runner, db, served, ada_at_sources, inbox
) -> None:
    ada = ada_at_sources[0]
    ada.email = "ada@example.edu"
    db.commit()
    result = runner.invoke(args=["directory", "harvest", "--source", "orcid"])
    assert "Digest e-mails: 1 sent." in result.output, result.output
    [message] = inbox.to("ada@example.edu")
    assert message["Subject"] == "4 new papers found for you"
    body = text_of(message)
    [link] = [u for u in links_in(body) if "/found/" in u]
    response = client.get(link.replace("http://directory.test", ""))
    assert response.status_code == 302
    assert response.headers["Location"].endswith("/people/ada-lovelace/edit#found")
    altered = link.replace("http://directory.test", "")[:-3] + "xyz"
    assert client.get(altered).status_code == 410
    # A paper not told of yet, a moment later: no second digest within the week.
    inbox.clear()
    db.execute(m.ClaimCandidate.__table__.update().values(notified_at=None).where(
        m.ClaimCandidate.id == db.scalar(select(func.max(m.ClaimCandidate.id)))))  # fmt: skip
    db.commit()
    again = runner.invoke(args=["directory", "harvest", "--source", "orcid"])
    assert "Digest e-mails: 0 sent." in again.output
    assert inbox.to("ada@example.edu") == []
