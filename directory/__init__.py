"""A faculty directory for department web sites, as a Flask extension.

from directory import Directory
Directory(app)            # or: ext = Directory(); ext.init_app(app)

The package is layered (a test checks it): ``directory.models`` (every table, importing
nothing else of the plugin), ``directory.services`` (the write path and the read rules) and
``directory.formats`` (BibTeX, ORCID, interchange, JSON-LD, API, Atom), then
``directory.web`` (the blueprint, views and forms) and ``directory.cli``. Importing this
package loads none of them: ``Directory`` is loaded on first use, so that
``import directory.models`` (a host's Alembic env, a script) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from directory.extension import Directory

__all__ = ["Directory"]
#: The one place the version is written (pyproject.toml reads it; see CHANGELOG.md).
__version__ = "0.2.0.dev0"


def __getattr__(name: str) -> Any:
    # PEP 562: the extension (and with it the web layer) is imported on first use.
    if name == "Directory":
        from directory.extension import Directory

        return Directory
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
