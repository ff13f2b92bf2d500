"""CSRF protection of the directory's forms, whatever the host does about CSRF.

Every form of the plugin subclasses :class:`DirectoryForm`. A Flask-WTF form checks its own
token, so the forms are protected whether or not the host uses ``CSRFProtect`` (with it, the
host's check covers the blueprint too and the form accepts the same token). With
DIRECTORY_CSRF on (the default) they stay protected even when the host turns
``WTF_CSRF_ENABLED`` off, e.g. because it protects its own forms some other way.
"""

from __future__ import annotations

from flask import current_app
from flask_wtf import FlaskForm
from flask_wtf.csrf import generate_csrf


class DirectoryForm(FlaskForm):
    """Base of the plugin's forms."""

    class Meta:
        @property
        def csrf(self) -> bool:
            config = current_app.config
            return bool(config["DIRECTORY_CSRF"] or config.get("WTF_CSRF_ENABLED", True))


def csrf_failed(form: FlaskForm) -> bool:
    """Whether a submitted form was refused for its CSRF token (missing, expired, foreign)."""
    field = getattr(form, "csrf_token", None)
    return bool(field is not None and field.errors)


def csrf_token() -> str:
    """A token for a hand-written form (``directory_csrf_token()`` in templates)."""
    return generate_csrf()
