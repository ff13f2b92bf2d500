"""CSRF protection of the directory's forms, whatever the host does about CSRF.

Every form of the plugin subclasses :class:`DirectoryForm`, and every POST route validates
one (``validate_on_submit()``), so a request without a valid token is refused before anything
is written (tests/test_form_classes.py and tests/test_csrf_everywhere.py find every form class
and every mutating route and check this). A Flask-WTF form checks its own token, so the forms
are protected whether or not the host uses ``CSRFProtect`` (with it, the host's check covers
the blueprint too and the form accepts the same token). With DIRECTORY_CSRF on (the default)
they stay protected even when the host turns ``WTF_CSRF_ENABLED`` off, e.g. because it protects
its own forms some other way. A hand-written form (the sign-out button of the page layout, a
host's overridden template) takes its token from :func:`csrf_token`; the view it posts to
checks it with its DirectoryForm.
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
