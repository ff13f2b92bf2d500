"""Where the plugin's non-Python files live.

In the source tree ``migrations/``, ``templates/`` and ``static/`` sit beside the package (the
layout the project was designed with); the wheel copies them into the package. Both work.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """Return the folder ``name`` ("migrations", "templates" or "static")."""
    installed = _PACKAGE / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name
