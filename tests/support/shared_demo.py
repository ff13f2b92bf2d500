"""The demo department loaded once per test module instead of once per test (importing it
takes seconds, most of all on PostgreSQL).

A module imports these fixtures to replace conftest's ``connection``: the demo is written
inside a module-wide transaction, each test runs in a savepoint within it that is rolled back
afterwards, and everything is rolled back at the end of the module. Every test of the module
then sees the demo (no ``demo`` fixture needed).

    from tests.support.shared_demo import connection, demo_connection  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from sqlalchemy import Connection

from directory.cli import demo_documents
from directory.services.interchange import import_documents


@pytest.fixture(scope="module")
def demo_connection(app: Flask) -> Iterator[Connection]:
    state = app.extensions["directory"].db
    conn = state.engine.connect()
    outer = conn.begin()
    state.sessionmaker.configure(bind=conn, join_transaction_mode="create_savepoint")
    try:
        with app.app_context():
            session = state.new_session()
            import_documents(session, demo_documents(), list_named=True)  # as load-demo does
            session.commit()
            session.close()
        yield conn
    finally:
        state.sessionmaker.configure(
            bind=state.engine, join_transaction_mode="conservative_savepoint"
        )
        outer.rollback()
        conn.close()


@pytest.fixture
def connection(demo_connection: Connection) -> Iterator[Connection]:
    savepoint = demo_connection.begin_nested()
    try:
        yield demo_connection
    finally:
        if savepoint.is_active:
            savepoint.rollback()
