"""A site behind single sign-on at the web server (Shibboleth, CAS or an OIDC module), which
puts the signed-in user's eppn in the WSGI environ's REMOTE_USER and their groups in
``isMemberOf``. The directory is the site's home: mounted at the root."""

from __future__ import annotations

from flask import Flask, render_template, request

from directory import Directory


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(
        SECRET_KEY="dev",
        DIRECTORY_URL_PREFIX="/",
        DIRECTORY_BASE_TEMPLATE="layout.html",
        DIRECTORY_DEPARTMENT_NAME="School of Engineering",
        DIRECTORY_IDENTITY_SOURCE="remote_user",
        DIRECTORY_REMOTE_ROLES_VARIABLE="isMemberOf",
        DIRECTORY_ADMIN_ROLE="eng-directory-admins",
    )
    app.config.update(test_config or {})
    Directory(app)

    @app.route("/about")
    def about() -> str:
        return render_template("about.html", who=request.environ.get("REMOTE_USER"))

    return app
