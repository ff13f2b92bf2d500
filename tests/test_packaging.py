"""A host that pip-installs the wheel (not the source tree) can migrate and render pages."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

HOST = textwrap.dedent(
    """
    import json, sys, tempfile
    from flask import Flask
    import directory
    from directory import Directory, migrate
    from directory.db import get_session
    from directory.cli import demo_documents
    from directory.formats.interchange import import_documents

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
    print(json.dumps({"module": directory.__file__, "status": page.status_code,
                      "has_name": "Xingda Wei" in page.get_data(as_text=True),
                      "css": css.status_code}))
    """
)


@pytest.mark.slow
def test_installed_wheel_migrates_and_renders(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("faculty_directory-*.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", str(wheel)],
        check=True,
        capture_output=True,
    )
    # Run from an empty folder so that nothing from the source tree can be imported.
    work = tmp_path / "elsewhere"
    work.mkdir()
    clean_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [str(python), "-c", HOST],
        cwd=work,
        env=clean_env,
        check=True,
        capture_output=True,
        text=True,
    )
    import json

    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["module"].startswith(str(env_dir))
    assert result["status"] == 200
    assert result["has_name"] is True
    assert result["css"] == 200
