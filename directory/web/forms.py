"""Flask-WTF forms of the editing pages. Every form carries a CSRF token; forms of records
carry the record's ``version`` so that a save based on an outdated page is refused.

Entry forms share :class:`EntryForm`; :meth:`EntryForm.fill` copies the fields whose names are
model columns onto the record, so most kinds need nothing but their field list.
"""

from __future__ import annotations

from datetime import date
from typing import Any
from urllib.parse import urlsplit

from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    DateField,
    HiddenField,
    IntegerField,
    SelectField,
    SelectMultipleField,
    StringField,
    TextAreaField,
)
from wtforms.validators import (
    URL,
    DataRequired,
    Email,
    InputRequired,
    Length,
    NumberRange,
    Optional,
    ValidationError,
)
from wtforms.widgets import CheckboxInput, ListWidget

try:
    from wtforms import SelectChoice
except ImportError:  # pragma: no cover - WTForms before 3.3
    SelectChoice = None

from directory import models as m
from directory.formats.person_ids import PERSON_IDENTIFIERS, IdentifierError, normalise_identifier
from directory.formats.placements import parse_placement
from directory.formats.urls import person_link_kind
from directory.i18n import gettext as _
from directory.i18n import lazy_gettext as _l
from directory.services import areas as taxonomy
from directory.services import editor, person_identifiers
from directory.services.identity import current_viewer
from directory.services.operations.entries import KEEP_TERM_TEXT
from directory.services.operations.people import PLAIN_FIELDS
from directory.web.csrf import DirectoryForm

YEAR = [Optional(), NumberRange(1900, 2200, message=_l("Enter a year such as 2024."))]
MONTH = [Optional(), NumberRange(1, 12, message=_l("Enter a month from 1 to 12."))]


def http_url(form: Any, field: Any) -> None:
    """Links must be web addresses (never ``javascript:`` or ``data:``)."""
    if field.data and urlsplit(field.data).scheme not in ("http", "https"):
        raise ValidationError(_l("Enter a web address starting with https:// or http://."))


def url_field(label: str) -> StringField:
    return StringField(
        label,
        [Optional(), Length(max=1000), http_url, URL(message=_l("Enter a full web address."))],
    )


def limit(column: Any) -> int:
    """The longest text a model's column holds (its ``String(n)``): the entry forms take
    their limits from the models, which declare them once."""
    return column.property.columns[0].type.length


def text(label: str, max_length: int | Any, required: bool = False, **kw: Any) -> StringField:
    """A line of text of at most ``max_length`` characters (a number, or the model's column
    whose limit it is)."""
    if not isinstance(max_length, int):
        max_length = limit(max_length)
    first = DataRequired(message=_l("This field is required.")) if required else Optional()
    return StringField(label, [first, Length(max=max_length)], **kw)


def markdown(label: str, required: bool = False, **kw: Any) -> TextAreaField:
    """A Markdown text area; the editing page offers a preview of every such field."""
    first = DataRequired(message=_l("This field is required.")) if required else Optional()
    kw.setdefault("description", _l("Markdown: **bold**, *italic*, [link](https://…), lists."))
    return TextAreaField(
        label, [first, Length(max=20000)], render_kw={"data-markdown": "1", "rows": 6}, **kw
    )


def options(pairs: Any) -> list[Any]:
    """Select choices from (value, label) pairs, as the installed WTForms wants them
    (WTForms 3.3 deprecates plain tuples in favour of SelectChoice)."""
    if SelectChoice is None:  # pragma: no cover - older WTForms
        return list(pairs)
    return [SelectChoice(value, label) for value, label in pairs]


def vocab(vocabulary: tuple[tuple[str, str], ...]) -> list[Any]:
    """Choices from a vocabulary, their labels shown in the reader's language."""
    return options((value, _l(label)) for value, label in vocabulary)


class MultiCheckboxField(SelectMultipleField):
    """Several choices as checkboxes (usable without JavaScript)."""

    widget = ListWidget(prefix_label=False)
    option_widget = CheckboxInput()


#: The largest record version a form may name (the column is a 32-bit integer on PostgreSQL).
MAX_VERSION = 2**31 - 1


def as_version(value: Any) -> int | None:
    """``value`` as a record version (a whole number from 0 to MAX_VERSION), else None."""
    text_value = str(value).strip() if value is not None else ""
    if text_value.isascii() and text_value.isdigit() and int(text_value) <= MAX_VERSION:
        return int(text_value)
    return None


def record_version(form: Any, field: Any) -> None:
    """A version is a whole number the database can compare with (empty: a new record)."""
    if str(field.data or "").strip() and as_version(field.data) is None:
        raise ValidationError(
            _l("This page carried an invalid version of the record; reload it and try again.")
        )


class VersionedForm(DirectoryForm):
    #: The version of the record the form was loaded from.
    version = HiddenField(validators=[record_version])

    def base_version(self) -> int | None:
        return as_version(self.version.data)


class EntryForm(VersionedForm):
    """Fields every entry has."""

    visibility = SelectField(
        _l("Who sees this"),
        choices=vocab(m.VISIBILITIES),
        default="public",
        description=_l("Private entries are shown only to you and the profile's editors."),
    )

    def prepare(self, owner: m.Person, session: Any) -> None:
        """Set choices that depend on the database (areas, the owner's papers...)."""

    def prepare_for(self, obj: Any) -> None:
        """Adjust the form to the stored entry it edits (None for a new one)."""

    def load(self, obj: Any) -> None:
        """Fill extra fields from ``obj`` when showing a stored entry."""


class DateRangeFields:
    start_year = IntegerField(_l("Start year"), YEAR)
    start_month = IntegerField(_l("Start month"), MONTH)
    end_year = IntegerField(_l("End year"), YEAR)
    end_month = IntegerField(_l("End month"), MONTH)
    is_current = BooleanField(_l("Ongoing (shown as “– present”)"))


def _month_or_none(value: Any) -> int | None:
    """A month select's value: 1 to 12, or None for "no month"."""
    if value in (None, ""):
        return None
    return int(value)


class NewsItemForm(EntryForm):
    year = IntegerField(
        _l("Year"),
        [InputRequired(message=_l("Enter the year.")), *YEAR[1:]],
        render_kw={"inputmode": "numeric"},
    )
    month = SelectField(
        _l("Month"),
        choices=options([("", "—"), *((str(i), _l(name)) for i, name in enumerate(m.MONTHS, 1))]),
        coerce=_month_or_none,
        default=None,
    )
    day = IntegerField(
        _l("Day"), [Optional(), NumberRange(1, 31, message=_l("Enter a day from 1 to 31."))],
        render_kw={"inputmode": "numeric"},
    )  # fmt: skip
    #: One date, its parts side by side ("[July 2026] I will attend OSDI '26": a month is enough).
    field_groups = {"year": (_l("Date (a year, or a month, or a day)"), ("year", "month", "day"))}
    body = markdown(_l("News"), required=True)
    url = url_field(_l("Link"))
    archived = BooleanField(_l("Show under “older news”"))

    def validate(self, extra_validators: Any = None) -> bool:
        valid = super().validate(extra_validators)
        year, month, day = self.year.data, self.month.data, self.day.data
        if self.day.errors or day is None or year is None or self.year.errors:
            return valid
        if month is None:
            self.day.errors.append(_("Choose the month of this day, or leave the day empty."))
            return False
        try:
            date(year, month, day)
        except ValueError:
            self.day.errors.append(
                _(
                    "%(month)s %(year)s has no day %(day)s.",
                    month=_(m.MONTHS[month - 1]),
                    year=year,
                    day=day,
                )
            )
            return False
        return valid


class EducationForm(EntryForm, DateRangeFields):
    degree = text(
        _l("Degree"), m.Education.degree, required=True, description=_l("e.g. Ph.D., B.S.")
    )
    field = text(_l("Field"), m.Education.field)
    institution = text(_l("Institution"), m.Education.institution, required=True)
    unit = text(_l("School or department"), m.Education.unit)
    place = text(_l("Place"), m.Education.place)
    advisors = text(_l("Advisors"), m.Education.advisors)
    thesis = text(_l("Thesis title"), m.Education.thesis)
    thesis_url = url_field(_l("Thesis link"))
    note = TextAreaField(_l("Note"), [Optional(), Length(max=2000)])


class ExperienceForm(EntryForm, DateRangeFields):
    kind = SelectField(_l("Kind"), choices=vocab(m.EXPERIENCE_KINDS), default="job")
    title = text(_l("Position"), m.Experience.title, required=True)
    organisation = text(_l("Organisation"), m.Experience.organisation, required=True)
    place = text(_l("Place"), m.Experience.place)
    hosts = text(_l("Hosts or mentors"), m.Experience.hosts)
    hosts_label = text(
        _l("Introduce them as"), m.Experience.hosts_label, description=_l("Hosts, Advisor, Mentor…")
    )
    description = markdown(_l("Description"))
    url = url_field(_l("Link"))


class ResearchProjectForm(EntryForm):
    title = text(_l("Title"), m.ResearchProject.title, required=True)
    summary = markdown(_l("Summary"))
    url = url_field(_l("Link"))
    status = SelectField(_l("Status"), choices=vocab(m.PROJECT_STATUSES), default="current")
    parent_id = SelectField(_l("Part of"), coerce=str, default="")

    def prepare(self, owner: m.Person, session: Any) -> None:
        projects = editor.projects_of(session, owner)
        self.parent_id.choices = options(
            [("", "— (a top-level project)")] + [(str(p.id), p.title) for p in projects]
        )

    def load(self, obj: Any) -> None:
        self.parent_id.data = str(obj.parent_id) if obj.parent_id else ""

    def validate_parent_id(self, field: Any) -> None:
        editing = getattr(self, "_editing_id", None)
        if field.data and editing is not None and field.data == str(editing):
            raise ValidationError(_l("A project cannot be part of itself."))


class TeachingForm(EntryForm):
    title = text(_l("Course"), m.Teaching.title, required=True)
    course_code = text(_l("Course code"), m.Teaching.course_code)
    term = text(_l("Term"), m.Teaching.term, description=_l("e.g. Fall 2025"))
    year = IntegerField(_l("Year"), YEAR)
    institution = text(_l("Institution"), m.Teaching.institution)
    role = SelectField(_l("Role"), choices=vocab(m.TEACHING_ROLES), default="instructor")
    url = url_field(_l("Link"))


class ServiceForm(EntryForm):
    kind = SelectField(_l("Kind"), choices=vocab(m.SERVICE_KINDS))
    venue = text(_l("Venue or body"), m.Service.venue, required=True)
    year = IntegerField(_l("Year"), YEAR)
    role = text(
        _l("Role"),
        m.Service.role,
        description=_l("When not plain membership: Co-Chair, Area chair…"),
    )
    note = text(_l("Note"), m.Service.note)


class AwardForm(EntryForm):
    title = text(_l("Award"), m.Award.title, required=True)
    title_translation = text(_l("Translation"), m.Award.title_translation)
    year = IntegerField(_l("Year"), YEAR)
    giver = text(_l("Given by"), m.Award.giver)
    url = url_field(_l("Link"))
    note = text(_l("Note"), m.Award.note)


class FundingForm(EntryForm):
    funder = text(_l("Funder"), m.Funding.funder, required=True)
    title = text(_l("Grant title"), m.Funding.title)
    grant_number = text(_l("Grant number"), m.Funding.grant_number)
    url = url_field(_l("Link"))
    start_year = IntegerField(_l("Start year"), YEAR)
    end_year = IntegerField(_l("End year"), YEAR)
    note = TextAreaField(_l("Note"), [Optional(), Length(max=2000)])


class CustomSectionForm(EntryForm):
    title = text(_l("Heading"), m.CustomSection.title, required=True)
    body = markdown(_l("Text"), required=True)


#: The intake select's value for a notice whose old free-text intake names no term.


class RecruitingNoticeForm(EntryForm):
    level = SelectField(_l("Recruiting"), choices=vocab(m.RECRUITING_LEVELS))
    term_season = SelectField(
        _l("Season"), choices=vocab((("", m.ROLLING_LABEL), *m.TERM_SEASONS)), default=""
    )
    term_year = IntegerField(
        _l("Year"),
        [Optional(), NumberRange(*m.TERM_YEARS, message=_l("Enter a year such as 2027."))],
        render_kw={"inputmode": "numeric"},
    )
    title = text(_l("Title"), m.RecruitingNotice.title)
    description = markdown(_l("Description"), required=True)
    how_to_apply = markdown(_l("How to apply"))
    deadline = DateField(_l("Apply by"), [Optional()])
    expires_on = DateField(
        _l("Take down on"), [Optional()], description=_l("The notice disappears on this date.")
    )
    funding_note = text(_l("Funding"), m.RecruitingNotice.funding_note)
    funded = BooleanField(_l("Funded positions"))
    areas = MultiCheckboxField(_l("Research areas"), coerce=int)
    field_groups = {
        "term_season": (
            _l("When the position starts"),
            ("term_season", "term_year"),
            _l(
                "A season and its year, or rolling: open at any time, shown to students "
                "asking for any term."
            ),
        )
    }
    #: The stored intake text that names no term, shown as a choice to keep (None if none).
    unreadable_term: str | None = None

    def prepare(self, owner: m.Person, session: Any) -> None:
        areas = taxonomy.research_areas(session)
        self.areas.choices = options([(a.id, a.name) for a in areas])

    def prepare_for(self, obj: Any) -> None:
        """A stored notice whose intake is old text naming no term: flag it next to the
        field and offer to keep it as written (choosing a term replaces it)."""
        if obj is None or not obj.term_unreadable:
            return
        self.unreadable_term = obj.term
        self.term_season.choices = [
            *vocab((("", m.ROLLING_LABEL), *m.TERM_SEASONS)),
            *options([(KEEP_TERM_TEXT, _("Keep as written: “%(term)s”", term=obj.term))]),
        ]
        self.term_season.description = _(
            "“%(term)s” names no season and year, so students filtering by term do not see "
            "this notice. Choose a season and a year, or rolling.",
            term=obj.term,
        )

    def load(self, obj: Any) -> None:
        self.areas.data = [a.id for a in obj.areas]
        self.term_season.data = KEEP_TERM_TEXT if obj.term_unreadable else (obj.term_season or "")
        self.term_year.data = obj.term_year

    def validate(self, extra_validators: Any = None) -> bool:
        # Season and year are checked together here: an empty year's Optional() ends its own
        # validators before an inline validate_term_year could run.
        valid = super().validate(extra_validators)
        season, year = self.term_season.data, self.term_year
        if year.errors:
            return False
        if season in ("", KEEP_TERM_TEXT) and year.data is not None:
            year.errors.append(
                _("Choose a season for this year, or leave the year empty for a rolling notice.")
            )
        elif season not in ("", KEEP_TERM_TEXT) and year.data is None:
            year.errors.append(_("Enter the year the position starts, e.g. 2027."))
        else:
            return valid
        return False


ADVISING_SIDES = (
    ("student", _l("I advise this person (my student)")),
    ("advisor", _l("This person advises me (my advisor)")),
)


class AdvisingRelationForm(EntryForm):
    side = SelectField(_l("Relation"), choices=options(ADVISING_SIDES), default="student")
    other_id = SelectField(
        _l("Department member"),
        coerce=str,
        default="",
        description=_l("Choose a department member, or type an outside name below."),
    )
    other_name = text(_l("Or a name outside the department"), 200)
    role = SelectField(_l("Advising role"), choices=vocab(m.ADVISING_ROLES), default="advisor")
    degree = SelectField(_l("Degree"), choices=vocab(m.DEGREES), default="phd")
    start_year = IntegerField(_l("Start year"), YEAR)
    end_year = IntegerField(_l("End year"), YEAR)
    status = SelectField(_l("Status"), choices=vocab(m.ADVISING_STATUSES), default="current")
    thesis = text(_l("Thesis"), m.AdvisingRelation.thesis)
    placement = text(
        _l("Placement"),
        300,
        description=_l(
            "Where they went, as you would write it, e.g. Assistant Professor, CMU "
            "(2024). Leave the three placement fields below empty to have them read from it."
        ),
    )
    placement_organisation = text(
        _l("Placement: organisation"),
        m.AdvisingRelation.placement_organisation,
        description=_l("e.g. CMU"),
    )
    placement_kind = SelectField(
        _l("Placement: kind of position"),
        choices=vocab((("", "—"), *m.PLACEMENT_KINDS)),
        default="",
    )
    placement_year = IntegerField(
        _l("Placement: year"), YEAR, description=_l("When they started there.")
    )
    note = text(_l("Note"), m.AdvisingRelation.note)

    def prepare(self, owner: m.Person, session: Any) -> None:
        people = editor.people_to_pick(session, current_viewer(), owner)
        self.other_id.choices = options([("", "—")] + [(str(p.id), p.full_name) for p in people])

    def load(self, obj: Any) -> None:
        if obj.placement and not (
            obj.placement_organisation or obj.placement_kind or obj.placement_year
        ):
            # A suggestion read from the text, shown for the editor to check and save (only
            # a whole one: half a suggestion would refuse a save of something else).
            found = parse_placement(obj.placement)
            if found.understood:
                self.placement_organisation.data = found.organisation
                self.placement_kind.data = found.kind
                self.placement_year.data = found.year
        if obj.placement_unparsed:
            self.placement.description = _(
                "This placement could not be read: please give its organisation and kind of "
                "position below (the text is kept as written)."
            )
        owner_is_advisor = obj.advisor_id == obj.owner_id
        self.side.data = "student" if owner_is_advisor else "advisor"
        other_id = obj.student_id if owner_is_advisor else obj.advisor_id
        self.other_id.data = str(other_id) if other_id else ""
        self.other_name.data = obj.student_name if owner_is_advisor else obj.advisor_name

    def validate(self, extra_validators: Any = None) -> bool:
        # Checked here, not in a validate_other_name: an empty name's Optional() ends that
        # field's validators, so an inline check never ran and a nameless relation was saved.
        valid = super().validate(extra_validators)
        if not self.other_id.data and not (self.other_name.data or "").strip():
            self.other_name.errors = [
                *self.other_name.errors,
                _("Choose a department member or type a name."),
            ]
            valid = False
        # A kind or year of position is at an organisation (the field's own validators stop
        # at an empty field). An organisation without its kind is kept, and flagged to
        # complete, like a text that could not be read: refusing it would refuse saving
        # anything else of the relation.
        organisation = (self.placement_organisation.data or "").strip()
        if (self.placement_kind.data or self.placement_year.data) and not organisation:
            if not self.placement_organisation.errors:
                self.placement_organisation.errors = [
                    _("Name the organisation they went to (or clear the kind and year).")
                ]
            valid = False
        return valid


# ----------------------------------------------------------------------------- the person


def labelled_lines(text_value: str | None) -> list[tuple[str, str]]:
    """Non-empty lines of ``value`` or ``Label | value``, as (label, value); label may be ""."""
    pairs = []
    for raw in (text_value or "").splitlines():
        label, _, value = raw.strip().rpartition("|")
        if value.strip():
            pairs.append((label.strip(), value.strip()))
    return pairs


def parse_links(text_value: str) -> list[dict[str, str | None]]:
    """Lines of ``URL`` or ``Label | URL``; the kind comes from the host (or 'other')."""
    links = []
    for label, url in labelled_lines(text_value):
        label = label or None
        kind = person_link_kind(url, label)
        links.append({"kind": kind, "url": url, "label": label})
    return links


def format_links(links: list[Any]) -> str:
    return "\n".join(f"{k.label} | {k.url}" if k.label else k.url for k in links)


class IdentifierFields:
    """A person's identifiers at the bibliographic sources, for the owner's profile form and
    the admin's person form: each read into its stored form (an ORCID iD's check digit
    verified) and refused, next to its field, when another person holds it."""

    orcid = text(
        _l("ORCID iD"), 60, description=_l("e.g. 0000-0002-1825-0097 or its orcid.org link")
    )
    dblp = text(_l("DBLP pid"), 120, description=_l("The part after dblp.org/pid/, e.g. 12/3456"))
    openalex = text(_l("OpenAlex author id"), 60, description=_l("e.g. A5023888391"))
    semantic_scholar = text(_l("Semantic Scholar author id"), 60, description=_l("e.g. 1741101"))

    IDENTIFIERS = tuple(scheme.key for scheme in PERSON_IDENTIFIERS)

    def prepare_identifiers(self, session: Any, person: m.Person | None) -> None:
        self._session, self._person = session, person

    def load_identifiers(self, person: m.Person) -> None:
        for key, value in person_identifiers.identifiers_of(person).items():
            getattr(self, key).data = value or ""

    def identifier_values(self) -> dict[str, str | None]:
        return dict(getattr(self, "_identifiers", {}))

    def validate(self, extra_validators: Any = None) -> bool:
        valid = super().validate(extra_validators)  # type: ignore[misc]
        read: dict[str, str | None] = {}
        for key in self.IDENTIFIERS:
            field = getattr(self, key)
            try:
                read[key] = normalise_identifier(key, field.data)
            except IdentifierError as error:
                field.errors = [*field.errors, str(error)]
                valid = False
        session = getattr(self, "_session", None)
        taken = (
            {}
            if session is None
            else person_identifiers.holders(session, read, getattr(self._person, "id", None))
        )
        for key, holder in taken.items():
            getattr(self, key).errors.append(
                _("%(name)s already has this identifier.", name=holder.full_name)
            )
            valid = False
        self._identifiers = read
        return valid


class ProfileForm(IdentifierFields, VersionedForm):
    """What the owner maintains about themself."""

    full_name = text(_l("Full name"), 200, required=True)
    native_name = text(_l("Name in another script"), 200, description=_l("e.g. 魏星达"))
    name_variants = TextAreaField(
        _l("Other spellings as an author"),
        [Optional(), Length(max=2000)],
        description=_l("One per line, e.g. X. Wei — used to link your papers."),
        render_kw={"rows": 2},
    )
    pronouns = text(_l("Pronouns"), 40)
    title = text(_l("Title"), 300, description=_l("e.g. Assistant Professor"))
    rank = SelectField(_l("Faculty rank"), choices=vocab((("", "—"), *m.FACULTY_RANKS)), default="")
    unit = text(_l("Unit"), 200, description=_l("Lab, group or institute"))
    email = StringField(
        _l("Email"), [Optional(), Length(max=254), Email(message=_l("Enter an email address."))]
    )
    office = text(_l("Office"), 200)
    address = TextAreaField(_l("Postal address"), [Optional(), Length(max=1000)])
    phone = text(_l("Phone"), 64)
    interests = text(
        _l("Research interests"),
        1000,
        description=_l("One line, e.g. operating systems, machine learning systems."),
    )
    bio = markdown(_l("Biography"))
    links = TextAreaField(
        _l("Links"),
        [Optional(), Length(max=10000)],
        description=_l("One per line: a URL, or “Label | URL”."),
        render_kw={"rows": 4},
    )
    areas = MultiCheckboxField(_l("Research areas"), coerce=int)
    visibility = SelectField(
        _l("Who sees this profile"), choices=vocab(m.VISIBILITIES), default="public"
    )

    PLAIN = PLAIN_FIELDS

    def prepare(self, session: Any, person: m.Person | None = None) -> None:
        areas = taxonomy.research_areas(session)
        self.areas.choices = options([(a.id, a.name) for a in areas])
        self.prepare_identifiers(session, person)

    def load(self, person: m.Person) -> None:
        for name in self.PLAIN:
            getattr(self, name).data = getattr(person, name) or (
                "" if name != "visibility" else "public"
            )
        self.name_variants.data = "\n".join(person.name_variants or [])
        self.links.data = format_links(person.links)
        self.areas.data = [a.id for a in person.areas]
        self.load_identifiers(person)
        self.version.data = person.version

    def validate_links(self, field: Any) -> None:
        for number, link in enumerate(parse_links(field.data), start=1):
            if urlsplit(link["url"]).scheme not in ("http", "https"):
                raise ValidationError(
                    _("Line %(number)s: enter a web address starting with https://.", number=number)
                )

    def values(self) -> dict[str, Any]:
        """What was typed, as the plain values :func:`directory.services.operations.people.
        update_profile` takes: the text lines read into names and links."""
        return {
            **{name: getattr(self, name).data for name in self.PLAIN},
            "name_variants": [
                v.strip() for v in (self.name_variants.data or "").splitlines() if v.strip()
            ],
            "links": parse_links(self.links.data),
            "areas": self.areas.data or [],
            "identifiers": self.identifier_values(),
        }


class PhotoForm(DirectoryForm):
    photo = FileField(_l("Photo"), [FileRequired(message=_l("Choose an image file."))])
    alt_text = text(_l("Describe the photo"), 300, description=_l("For people who cannot see it."))


#: The choices of a CV section's place: left out, or a place from 1.
CV_PLACES = [("", _l("Leave out")), *((str(i), str(i)) for i in range(1, len(m.CV_SECTIONS) + 1))]


class PaperListForm(VersionedForm):
    """How the owner's papers and CV are laid out: whether selected papers are listed again
    below, whether unpublished papers are listed in their year, and the CV's sections (one
    ``cv_<section>`` place each, added below the class)."""

    repeat_selected = BooleanField(
        _l("List my selected papers again under their year"),
        description=_l(
            "Off: each paper is listed once, the selected ones first. On: the selected "
            "papers come first and are listed again with the others (profile, CV and print)."
        ),
    )

    unpublished_in_year = BooleanField(
        _l("List my preprints and papers under review in their year"),
        description=_l(
            "Off: they come first, under “Preprints”, “Under review”… On: each is listed among "
            "the papers of its year, marked with its status (one without a year stays under "
            "its status)."
        ),
    )

    def section_fields(self) -> list[tuple[str, Any]]:
        return [(name, self[f"cv_{name}"]) for name, _ in m.CV_SECTIONS]

    def load(self, person: m.Person) -> None:
        self.repeat_selected.data = person.repeat_selected
        self.unpublished_in_year.data = person.unpublished_in_year
        names = [n for n, _ in m.CV_SECTIONS]
        chosen = names if person.cv_sections is None else person.cv_sections
        places = {name: str(i) for i, name in enumerate(chosen, start=1) if name in names}
        for name, field in self.section_fields():
            field.data = places.get(name, "")
        self.version.data = person.version

    def chosen_sections(self) -> list[str]:
        """The sections with a place, in place order (equal places: the default order)."""
        names = [n for n, _ in m.CV_SECTIONS]
        placed = [(int(f.data), names.index(n), n) for n, f in self.section_fields() if f.data]
        return [name for _, _, name in sorted(placed)]

    def validate(self, extra_validators: Any = None) -> bool:
        valid = super().validate(extra_validators)
        if valid and not self.chosen_sections():
            first = self.section_fields()[0][1]
            first.errors = [*first.errors, _("Give at least one section a place on the CV.")]
            return False
        return valid


for _name, _label in m.CV_SECTIONS:
    setattr(
        PaperListForm,
        f"cv_{_name}",
        SelectField(_l(_label), choices=options(CV_PLACES), default=""),
    )


def photo_focus_field(label: str) -> IntegerField:
    def step(form: Any, field: Any) -> None:
        if field.data is not None and field.data % 5:
            raise ValidationError(_l("Use a multiple of 5 (0, 5, 10 … 100)."))

    return IntegerField(
        label,
        [InputRequired(message=_l("Enter a number from 0 to 100.")),
         NumberRange(0, 100, message=_l("Enter a number from 0 to 100.")), step],
        render_kw={"min": 0, "max": 100, "step": 5, "inputmode": "numeric"},
    )  # fmt: skip


class PhotoFocusForm(VersionedForm):
    """The point of the photo kept in view where it is cropped to a square or a circle."""

    focus_x = photo_focus_field(_l("Across, in percent from the left edge"))
    focus_y = photo_focus_field(_l("Down, in percent from the top edge"))


# ----------------------------------------------------------------------------- small actions


class ActionForm(DirectoryForm):
    """A one-button form (delete, confirm, approve...): only the CSRF token."""


class VersionedActionForm(VersionedForm):
    """A one-button form about one record version (delete, move)."""


class MoveForm(VersionedForm):
    direction = HiddenField(validators=[DataRequired()])

    def validate_direction(self, field: Any) -> None:
        if field.data not in ("up", "down"):
            raise ValidationError(_l("Move up or down."))


class DelegateForm(DirectoryForm):
    delegate_id = SelectField(_l("Person"), coerce=str, validators=[DataRequired()])


class RejectForm(DirectoryForm):
    reason = TextAreaField(
        _l("Reason (shown to the author)"), [DataRequired(message=_l("Say why.")), Length(max=2000)]
    )


class ReasonForm(DirectoryForm):
    reason = TextAreaField(_l("Note (optional)"), [Optional(), Length(max=2000)])
