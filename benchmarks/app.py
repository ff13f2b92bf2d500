"""The app ``make bench`` serves under gunicorn (``benchmarks.app:app``): the standalone site
of wsgi.py plus a trivial endpoint of the same app, whose throughput is the yardstick for the
directory's pages. Configured like wsgi.py, through DIRECTORY_* environment variables."""

from __future__ import annotations

from typing import Any

from flask import Flask

from wsgi import create_app


def make_app(**config: Any) -> Flask:
    app = create_app(config)

    @app.route("/bench/trivial")
    def trivial() -> str:
        return "ok"

    return app


app = make_app()
