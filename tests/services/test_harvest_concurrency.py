"""Two harvest runs at once (two app hosts with the same cron line), on a database of their
own (SQLite file or the PostgreSQL server of the suite): one runs, the other skips; nothing is
written twice and neither waits on the other. The first run is held inside its fetch until
the second has answered, so the two overlap for certain."""

from __future__ import annotations

import threading

from sqlalchemy import func, select

from directory import migrate
from directory import models as m
from directory.services.claims.harvest import run_harvest
from directory.services.harvest.sources import harvest_person
from directory.services.identity import Viewer
from tests.conftest import make_app
from tests.support.harvest_data import HarvestPerson, orcid_for
from tests.support.harvest_server import harvest_server

ROBOT = Viewer(key=None, is_admin=True, name="command line")


def test_two_runs_at_once_neither_double_writes_nor_deadlocks(scratch_url) -> None:
    app = make_app(DIRECTORY_DATABASE_URL=scratch_url)
    directory = app.extensions["directory"]
    migrate.upgrade(directory.db.engine)
    orcid = orcid_for(7)
    with app.app_context():
        session = directory.db.new_session()
        session.add(m.Person(slug="ada", full_name="Ada Lovelace", sort_name="Lovelace, Ada",
                             role="faculty", orcid=orcid))  # fmt: skip
        session.commit()
        session.close()
    inside, second_done = threading.Event(), threading.Event()
    reports: dict[str, object] = {}

    with harvest_server([HarvestPerson("ada", "Ada Lovelace", orcid=orcid)], 5) as server:
        app.config.update(DIRECTORY_HARVEST_SOURCES={"orcid": server.sources["orcid"]},
                          DIRECTORY_HARVEST_PAUSES={})  # fmt: skip

        def slow_fetch(*args):
            inside.set()
            assert second_done.wait(30), "the second run never answered"
            return harvest_person(*args)

        def run(name: str, fetch=None) -> None:
            with app.app_context():
                session = directory.db.new_session()
                try:
                    kwargs = {"fetch": fetch} if fetch else {}
                    reports[name] = run_harvest(session, ROBOT, app.config, **kwargs)
                finally:
                    session.close()

        first = threading.Thread(target=run, args=("first", slow_fetch))
        first.start()
        assert inside.wait(30)
        second = threading.Thread(target=run, args=("second",))
        second.start()
        second.join(30)
        assert not second.is_alive(), "the second run waited on the first"
        second_done.set()
        first.join(30)
        assert not first.is_alive()

    assert reports["second"].refused and "holds the lock" in reports["second"].refused
    assert reports["first"].refused is None and reports["first"].lines[0].new == 5
    with app.app_context():
        session = directory.db.new_session()
        count = session.scalar(select(func.count()).select_from(m.ClaimCandidate))
        runs = session.scalar(select(func.count()).select_from(m.HarvestRun))
        locks = session.scalar(select(func.count()).select_from(m.HarvestLock))
        session.close()
    assert (count, runs, locks) == (5, 1, 0)
    directory.db.engine.dispose()
