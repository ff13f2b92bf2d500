"""What a department installs: the wheel and sdist carry the licence and the changelog, and a
host that pip-installs the wheel (not the source tree) can migrate, render pages and pass
`flask directory check`."""

from __future__ import annotations

import email
import json
import os
import subprocess
import sys
import tarfile
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

import directory

#: They build and install the wheel into a host of their own on SQLite (the test database's
#: URL is removed from its environment), whichever database the suite runs on.
pytestmark = pytest.mark.engine_independent

ROOT = Path(__file__).resolve().parents[2]

HOST = textwrap.dedent(
    """
    import json, sys, tempfile
    from flask import Flask
    import directory
    from directory import Directory, migrate
    from directory.db import get_session
    from directory.cli import demo_documents
    from directory.services.interchange import import_documents

    app = Flask("host", instance_path=tempfile.mkdtemp())
    app.config.update(SECRET_KEY="x", SERVER_NAME="host.test",
                      DIRECTORY_DATABASE_URL="sqlite:///" + tempfile.mkdtemp() + "/d.sqlite3")
    Directory(app)
    with app.app_context():
        migrate.upgrade(app.extensions["directory"].db.engine)
        session = get_session()
        import_documents(session, demo_documents())
        session.commit()
    client = app.test_client()
    page = client.get("/directory/people/xingda-wei")
    css = client.get("/directory/assets/directory.css")
    chinese = client.get("/directory/people/xingda-wei", headers={"Accept-Language": "zh-CN"})
    print(json.dumps({"module": directory.__file__, "status": page.status_code,
                      "has_name": "Xingda Wei" in page.get_data(as_text=True),
                      "css": css.status_code,
                      "chinese": '<html lang="zh-Hans">' in chinese.get_data(as_text=True)
                                 and "研究方向" in chinese.get_data(as_text=True)}))
    """
)


EMPTY_HOST = textwrap.dedent(
    """
    from pathlib import Path
    from flask import Flask
    from directory import Directory

    # The directory's default database: directory.sqlite3 in this instance folder.
    app = Flask("empty_host", instance_path=str(Path(__file__).resolve().parents[1] / "instance"))
    app.config["SECRET_KEY"] = "x"
    Directory(app)
    """
)


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The wheel and the sdist, built from the source tree as CI builds them."""
    folder = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(folder), str(ROOT)],
        check=True,
        capture_output=True,
    )
    return folder


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel pip-installed: its python."""
    (wheel,) = dist.glob("faculty_directory-*.whl")
    env_dir = tmp_path_factory.mktemp("venv")
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", str(wheel)],
        check=True,
        capture_output=True,
    )
    return python


def clean_env() -> dict[str, str]:
    """The environment without this source tree on the path or the test database."""
    drop = ("PYTHONPATH", "DIRECTORY_TEST_DATABASE_URL")
    return {k: v for k, v in os.environ.items() if k not in drop}


@pytest.mark.slow
def test_wheel_and_sdist_carry_licence_changelog_and_metadata(dist: Path) -> None:
    (wheel,) = dist.glob("faculty_directory-*.whl")
    (sdist,) = dist.glob("faculty_directory-*.tar.gz")
    version = directory.__version__
    assert wheel.name == f"faculty_directory-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"faculty_directory-{version}.dist-info"
        licence = archive.read(f"{info}/licenses/LICENSE").decode()
        changelog = archive.read("directory/CHANGELOG.md").decode()
        meta = email.message_from_bytes(archive.read(f"{info}/METADATA"))
    assert licence == (ROOT / "LICENSE").read_text()
    assert "Copyright (c) 2026 The faculty-directory contributors" in licence
    assert changelog == (ROOT / "CHANGELOG.md").read_text()
    assert "directory/migrations/env.py" in names
    # The compiled catalogue ships (and its source, for a department's own corrections).
    assert "directory/translations/zh_Hans/LC_MESSAGES/directory.mo" in names
    assert "directory/translations/zh_Hans/LC_MESSAGES/directory.po" in names
    assert meta["Version"] == version
    assert meta["License-Expression"] == "MIT"
    assert meta["Requires-Python"] == ">=3.12"
    classifiers = meta.get_all("Classifier")
    assert "Programming Language :: Python :: 3.12" in classifiers
    assert "Framework :: Flask" in classifiers
    assert "PostgreSQL" in meta["Summary"] and "SQLite" in meta["Summary"]
    with tarfile.open(sdist) as archive:
        top = f"faculty_directory-{version}"
        members = set(archive.getnames())
    for name in ("LICENSE", "CHANGELOG.md", "requirements.lock", "pyproject.toml"):
        assert f"{top}/{name}" in members, name


@pytest.mark.slow
def test_flask_directory_check_passes_on_an_empty_host(installed: Path, tmp_path: Path) -> None:
    (tmp_path / "host.py").write_text(EMPTY_HOST)
    flask = [str(installed.parent / "flask"), "--app", "host", "directory"]

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*flask, *args], cwd=tmp_path, env=clean_env(), capture_output=True, text=True
        )

    before = run("check")
    assert before.returncode == 1, before.stdout + before.stderr
    assert "run `flask directory db upgrade`" in before.stdout
    assert run("db", "upgrade").returncode == 0
    after = run("check")
    assert after.returncode == 0, after.stdout + after.stderr
    assert "PROBLEM" not in after.stdout
    for name in ("settings", "routes", "database", "migrations", "identity", "headers", "search"):
        assert f"ok  {name}: " in after.stdout, name


@pytest.mark.slow
def test_installed_wheel_migrates_and_renders(installed: Path, tmp_path: Path) -> None:
    # Run from an empty folder so that nothing from the source tree can be imported.
    work = tmp_path / "elsewhere"
    work.mkdir()
    out = subprocess.run(
        [str(installed), "-c", HOST],
        cwd=work,
        env=clean_env(),
        check=True,
        capture_output=True,
        text=True,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["module"].startswith(str(installed.parent.parent))
    assert result["status"] == 200
    assert result["has_name"] is True
    assert result["css"] == 200
    # The shipped Chinese catalogue serves a Chinese page from the installed wheel.
    assert result["chinese"] is True
