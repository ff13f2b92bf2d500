"""A site in the shape of the Flask tutorial: raw sqlite3, its own register/login storing the
user id in the session, the user row on ``g.user``. It embeds the directory at /directory, in
its own layout, with the directory's tables in a database of their own."""

from __future__ import annotations

import os

from flask import Flask

from directory import Directory


def create_app(test_config: dict | None = None, instance_path: str | None = None) -> Flask:
    app = Flask(__name__, instance_path=instance_path, instance_relative_config=True)
    app.config.from_mapping(
        SECRET_KEY="dev",
        DATABASE=os.path.join(app.instance_path, "flaskr.sqlite"),
        # The faculty directory in this site's layout; who is signed in is on g.user.
        DIRECTORY_BASE_TEMPLATE="base.html",
        DIRECTORY_IDENTITY_SOURCE="g",
        DIRECTORY_ADMINS=["chair"],
        DIRECTORY_DATABASE_URL="sqlite:///" + os.path.join(app.instance_path, "directory.sqlite3"),
    )
    app.config.update(test_config or {})
    os.makedirs(app.instance_path, exist_ok=True)

    from tests.hosts.flaskr import auth, blog, db

    db.init_app(app)
    app.register_blueprint(auth.bp)
    app.register_blueprint(blog.bp)
    app.add_url_rule("/", endpoint="index")
    Directory(app)
    return app
