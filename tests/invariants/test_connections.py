"""What the directory's own engine sets on every connection it opens, on the test database's
server (CI runs this on SQLite and on PostgreSQL): the settings docs/performance.md measured."""

from __future__ import annotations

from sqlalchemy import text

from directory import db as directory_db
from directory.db import make_engine
from tests.conftest import scratch_database


def test_each_connection_gets_the_settings_of_its_engine(tmp_path) -> None:
    with scratch_database(tmp_path) as url:
        engine = make_engine(url)
        try:
            with engine.connect() as connection:
                if engine.dialect.name == "postgresql":
                    # No JIT: compiling the search's ranked statement cost more than running it.
                    assert connection.execute(text("SHOW jit")).scalar() == "off"
                else:
                    mmap = connection.exec_driver_sql("PRAGMA mmap_size").scalar()
                    assert mmap == directory_db.SQLITE_MMAP_BYTES
                    assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        finally:
            engine.dispose()
