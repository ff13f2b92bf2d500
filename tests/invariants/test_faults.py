"""Faults: an unreachable database gives a 503 page (or a JSON error) and the site recovers by
itself when the database is back; an import interrupted midway writes nothing."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from directory import migrate
from directory import models as m
from directory.services import interchange
from directory.services.cache import current_generation
from directory.web.views.common import wants_json
from tests.conftest import make_app


# ----------------------------------------------------------------------------- outages
class TcpProxy:
    """A TCP relay in front of the PostgreSQL server: ``down()`` drops every connection and
    refuses new ones (as a crashed or unreachable server does), ``up()`` listens again on the
    same port."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self._listener: socket.socket | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def up(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen()
        listener.settimeout(0.1)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while self._listener is listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self._lock:
                self._sockets += [client, upstream]
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


@dataclass
class Outage:
    """A database the test can take away and give back."""

    url: str
    engine_options: dict[str, Any] = field(default_factory=dict)
    down: Any = None
    up: Any = None


@pytest.fixture
def outage(scratch_url: str, tmp_path: Path) -> Iterator[Outage]:
    url = make_url(scratch_url)
    if url.get_backend_name() == "sqlite":
        # The file's folder disappears (an unmounted volume); each request opens the file anew.
        folder = tmp_path / "data"
        folder.mkdir()
        away = tmp_path / "away"
        yield Outage(
            url=f"sqlite:///{folder / 'directory.sqlite3'}",
            engine_options={"poolclass": NullPool},
            down=lambda: folder.rename(away),
            up=lambda: away.rename(folder),
        )
        return
    proxy = TcpProxy((url.host or "127.0.0.1", url.port or 5432))
    proxy.up()
    try:
        proxied = url.set(host="127.0.0.1", port=proxy.port)
        yield Outage(
            url=proxied.render_as_string(hide_password=False), down=proxy.down, up=proxy.up
        )
    finally:
        proxy.down()


@pytest.mark.slow
def test_an_unreachable_database_gives_503_and_the_site_recovers_by_itself(outage) -> None:
    app = make_app(
        DIRECTORY_DATABASE_URL=outage.url,
        DIRECTORY_ENGINE_OPTIONS=outage.engine_options,
        DIRECTORY_CACHE_SECONDS=60,
    )
    state = app.extensions["directory"].db
    migrate.upgrade(state.engine)
    with state.new_session() as session:
        person = m.Person(
            slug="ada", full_name="Ada Lovelace", sort_name="Lovelace", role="faculty"
        )
        session.add(person)
        session.commit()
    client = app.test_client()
    try:
        assert client.get("/directory/people/ada").status_code == 200

        outage.down()
        page = client.get("/directory/people/ada")
        assert page.status_code == 503
        assert "temporarily unavailable" in page.text
        assert page.headers["Retry-After"] == "30"
        assert "frame-ancestors" in page.headers["Content-Security-Policy"]
        for api in (
            client.get("/directory/", headers={"Accept": "application/json"}),
            client.get("/directory/api/v1/people"),
        ):
            assert api.status_code == 503
            assert api.mimetype == "application/problem+json"
            assert api.json["status"] == 503
        assert client.get("/directory/people/ada").status_code == 503  # and again, no crash

        outage.up()
        page = client.get("/directory/people/ada")
        assert page.status_code == 200
        assert "Ada Lovelace" in page.text
    finally:
        state.dispose()


def test_api_paths_and_json_clients_get_json_errors(app) -> None:
    with app.test_request_context("/directory/api/v1/people"):
        assert wants_json()
    with app.test_request_context("/directory/", headers={"Accept": "application/json"}):
        assert wants_json()
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    with app.test_request_context("/directory/", headers={"Accept": browser}):
        assert not wants_json()


# ----------------------------------------------------------------------------- imports


def _document(slug: str, name: str) -> dict:
    return {
        "format": "faculty-directory-profile",
        "format_version": 1,
        "person": {"slug": slug, "full_name": name, "role": "faculty"},
        "news": [{"year": 2026, "body": f"{name} joined."}],
        "publications": [
            {
                "ref": "p",
                "title": f"A paper by {name}",
                "year": 2025,
                "authors": [{"name": name, "person": slug}],
            }  # fmt: skip
        ],
    }


def test_an_import_interrupted_midway_writes_nothing(runner, db, tmp_path, monkeypatch) -> None:
    files = []
    for slug, name in (("ada", "Ada Lovelace"), ("grace", "Grace Hopper")):
        path = tmp_path / f"{slug}.json"
        path.write_text(json.dumps(_document(slug, name)))
        files.append(str(path))
    generation = current_generation(db)
    db.rollback()

    original = interchange._Importer.import_document
    written: list[str] = []

    def fail_on_the_second(self, doc, person, *source):
        if written:
            raise OSError("disk full (injected fault)")
        original(self, doc, person, *source)
        written.append(person.slug)

    monkeypatch.setattr(interchange._Importer, "import_document", fail_on_the_second)
    result = runner.invoke(args=["directory", "import-profile", *files])
    assert result.exit_code != 0
    assert written == ["ada"]  # the first profile was fully written before the fault

    assert db.scalar(select(func.count(m.Person.id))) == 0
    assert db.scalar(select(func.count(m.Publication.id))) == 0
    assert db.scalar(select(func.count(m.NewsItem.id))) == 0
    assert current_generation(db) == generation  # no cached page was invalidated either


# ----------------------------------------------------------------------------- teardown


@pytest.mark.slow
def test_a_connection_lost_before_teardown_does_not_turn_the_response_into_a_500(outage) -> None:
    """The backend goes away after the view answered, while the session still holds its
    transaction: closing it at teardown must not raise (it did, outside every handler)."""
    app = make_app(
        DIRECTORY_DATABASE_URL=outage.url, DIRECTORY_ENGINE_OPTIONS=outage.engine_options
    )
    engine = app.extensions["directory"].db.engine
    migrate.upgrade(engine)
    taken = []

    @app.after_request
    def _lose_the_connection(response):
        if not taken:
            taken.append(True)
            outage.down()
        return response

    response = app.test_client().get("/directory/")
    assert taken and response.status_code == 200
    app.extensions["directory"].db.dispose()
