"""The standalone site's module, as a WSGI server (gunicorn wsgi:app) imports it."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_what_the_site_loads_at_start_is_frozen_out_of_full_collections(tmp_path) -> None:
    """After ``import wsgi`` the libraries' long-lived tables (pypinyin's 47,000 phrases alone
    are some 200,000 lists) are in the permanent generation: a full collection does not scan
    them."""
    probe = (
        "import gc, wsgi, pypinyin.phrases_dict as p; "
        "print(gc.get_freeze_count(), len(gc.get_objects()), len(p.phrases_dict), "
        "*gc.get_threshold())"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env={"DIRECTORY_DATABASE_URL": f"sqlite:///{tmp_path / 'site.sqlite3'}", "PATH": ""},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    frozen, collected, phrases, *thresholds = map(int, out)
    assert phrases > 40_000 and frozen > 4 * phrases
    assert collected < frozen / 4  # what a full collection still scans
    # Collection itself stays on, as often as Python's default for the young generations;
    # full collections are considered ten times less often than by default (wsgi.py: why).
    assert thresholds == [*gc.get_threshold()[:2], 100]
