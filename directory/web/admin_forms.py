"""Flask-WTF forms of the admin's pages and of the onboarding import (a person's record as the
admin edits it, areas, merges, the CSV upload and its confirmation, reminders). The editing
pages' forms and the helpers these build on are in :mod:`directory.web.forms`."""

from __future__ import annotations

import re
from typing import Any

from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    HiddenField,
    SelectField,
    SelectMultipleField,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, Email, Length, Optional, ValidationError

from directory import models as m
from directory.i18n import lazy_gettext as _l
from directory.web.csrf import DirectoryForm
from directory.web.forms import IdentifierFields, VersionedForm, text, vocab


class PersonAdminForm(IdentifierFields, VersionedForm):
    full_name = text(_l("Full name"), 200, required=True)
    slug = StringField(
        _l("Address (slug)"),
        [Optional(), Length(max=120)],
        description=_l("Letters, digits and hyphens; made from the name when empty."),
    )
    role = SelectField(_l("Role"), choices=vocab(m.ROLE_NAMES))
    email = StringField(_l("Email"), [Optional(), Length(max=254), Email()])
    user_key = StringField(
        _l("Sign-in identity"),
        [Optional(), Length(max=254)],
        description=_l("The host's stable key for this person (username, eppn or email)."),
    )
    active = BooleanField(_l("Active"), default=True)
    visibility = SelectField(_l("Profile visibility"), choices=vocab(m.VISIBILITIES))

    def validate_slug(self, field: Any) -> None:

        if field.data and not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", field.data):
            raise ValidationError(_l("Use lower-case letters, digits and single hyphens."))


class AreaForm(VersionedForm):
    name = text(_l("Name"), 120, required=True)
    slug = StringField(_l("Slug"), [Optional(), Length(max=80)])
    description = TextAreaField(_l("Description"), [Optional(), Length(max=2000)])
    parent_id = SelectField(_l("Broader area"), coerce=str, default="")


class MergeForm(DirectoryForm):
    keep_id = SelectField(_l("Keep this profile"), coerce=str, validators=[DataRequired()])
    merge_id = SelectField(
        _l("Merge this duplicate into it"), coerce=str, validators=[DataRequired()]
    )

    def validate_merge_id(self, field: Any) -> None:
        if field.data == self.keep_id.data:
            raise ValidationError(_l("Choose two different people."))


# ----------------------------------------------------------------------------- onboarding


class OnboardingUploadForm(DirectoryForm):
    people_file = FileField(
        _l("CSV file of people"), [FileRequired(message=_l("Choose a CSV file to upload."))]
    )


class OnboardingConfirmForm(DirectoryForm):
    """The preview's confirm button: the file travels with it (nothing is stored between
    preview and confirm) and is checked again in full before anything is written."""

    #: The uploaded file's bytes, base64-encoded.
    source = HiddenField()
    filename = HiddenField()
    #: The lines the preview said would be written; confirming writes only those.
    lines = HiddenField()
    send_invitations = BooleanField(_l("E-mail each person their invitation"), default=True)


class RemindForm(DirectoryForm):
    """The stale report's selection: whom to send a reminder."""

    people = SelectMultipleField(_l("Remind"), coerce=int, validate_choice=False)

    def validate_people(self, field: Any) -> None:
        if not field.data:
            raise ValidationError(_l("Choose at least one person to remind."))
        listed = {choice.value for choice in field.choices or ()}
        if not set(field.data) <= listed:
            raise ValidationError(
                _l(
                    "Only people this report lists, with an e-mail address, can be reminded; "
                    "reload the report and choose again."
                )
            )
