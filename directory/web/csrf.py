"""CSRF protection of the directory's forms, whatever the host does about CSRF.

Every form of the plugin subclasses :class:`DirectoryForm`, and every POST route validates
one (``validate_on_submit()``), so a request without a valid token is refused before anything
is written (tests/invariants/test_form_classes.py and tests/invariants/test_csrf_everywhere.py find
every form class
and every mutating route and check this). A Flask-WTF form checks its own token, so the forms
are protected whether or not the host uses ``CSRFProtect`` (with it, the host's check covers
the blueprint too and the form accepts the same token). With DIRECTORY_CSRF on (the default)
they stay protected even when the host turns ``WTF_CSRF_ENABLED`` off, e.g. because it protects
its own forms some other way. A hand-written form (the sign-out button of the page layout, a
host's overridden template) takes its token from :func:`csrf_token`; the view it posts to
checks it with its DirectoryForm.

Every form also applies the directory's one rule about characters
(:mod:`directory.formats.text`): a text field holding a control character (NUL, ``\x01``...)
is refused with a message next to it, and shown again without those characters, so what the
user saves next is exactly what they see. Refusing rather than stripping silently: the user
learns that what they pasted was not what it looked like, and nothing is stored they did not see.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask_wtf import FlaskForm
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

from directory.formats.text import has_control_characters, strip_control_characters

CONTROL_CHARACTER_MESSAGE = (
    "This field held invisible control characters; they were removed. "
    "Check the text and save again."
)


class DirectoryForm(FlaskForm):
    """Base of the plugin's forms."""

    class Meta:
        @property
        def csrf(self) -> bool:
            config = current_app.config
            return bool(config["DIRECTORY_CSRF"] or config.get("WTF_CSRF_ENABLED", True))

    def validate(self, extra_validators: Any = None) -> bool:
        """The fields' own validation, then the rule about control characters for every text
        field (see the module's docstring)."""
        cleaned = []
        for field in self:
            if isinstance(field.data, str) and has_control_characters(field.data):
                field.data = strip_control_characters(field.data)
                cleaned.append(field)
        valid = super().validate(extra_validators)
        for field in cleaned:
            field.errors = [*field.errors, CONTROL_CHARACTER_MESSAGE]
        return valid and not cleaned

    def token_field(self) -> Markup:
        """The CSRF token's hidden field (nothing when CSRF is off), rendered once per form:
        the editor posts some three hundred one-button forms with one form object, and
        WTForms' rendering of the same field was a quarter of that page's time."""
        rendered = getattr(self, "_token_field", None)
        if rendered is None:
            field = getattr(self, "csrf_token", None)
            rendered = self._token_field = field() if field is not None else Markup("")
        return rendered


def csrf_failed(form: FlaskForm) -> bool:
    """Whether a submitted form was refused for its CSRF token (missing, expired, foreign)."""
    field = getattr(form, "csrf_token", None)
    return bool(field is not None and field.errors)


def csrf_token() -> str:
    """A token for a hand-written form (``directory_csrf_token()`` in templates)."""
    return generate_csrf()
