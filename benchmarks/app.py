"""The app ``make bench`` serves under gunicorn (``benchmarks.app:app``): the standalone site
of wsgi.py plus two yardsticks for the directory's pages, a trivial endpoint and a
``send_file`` of a page's own bytes (written by the benchmark into BENCH_FILES). Configured
like wsgi.py, through DIRECTORY_* environment variables."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask, abort, send_file

from wsgi import create_app


def make_app(**config: Any) -> Flask:
    app = create_app(config)
    files = Path(os.environ.get("BENCH_FILES", "/nonexistent"))

    @app.route("/bench/trivial")
    def trivial() -> str:
        return "ok"

    @app.route("/bench/file/<int:number>")
    def file(number: int) -> Any:
        """The bytes a cache hit of page ``number`` sends (gzipped, as wrk asks for)."""
        path = files / f"{number}.gz"
        if not path.is_file():
            abort(404)
        response = send_file(path, mimetype="text/html")
        response.headers["Content-Encoding"] = "gzip"
        response.vary.add("Accept-Encoding")
        return response

    return app


app = make_app()
