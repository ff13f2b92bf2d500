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
from sqlalchemy import inspect
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
from directory.formats.placements import parse_placement, structure_placement
from directory.services.access import person_clause
from directory.services.identity import current_viewer
from directory.web.csrf import DirectoryForm

YEAR = [Optional(), NumberRange(1900, 2200, message="Enter a year such as 2024.")]
MONTH = [Optional(), NumberRange(1, 12, message="Enter a month from 1 to 12.")]


def http_url(form: Any, field: Any) -> None:
    """Links must be web addresses (never ``javascript:`` or ``data:``)."""
    if field.data and urlsplit(field.data).scheme not in ("http", "https"):
        raise ValidationError("Enter a web address starting with https:// or http://.")


def url_field(label: str) -> StringField:
    return StringField(
        label, [Optional(), Length(max=1000), http_url, URL(message="Enter a full web address.")]
    )


def text(label: str, max_length: int, required: bool = False, **kw: Any) -> StringField:
    first = DataRequired(message="This field is required.") if required else Optional()
    return StringField(label, [first, Length(max=max_length)], **kw)


def markdown(label: str, required: bool = False, **kw: Any) -> TextAreaField:
    """A Markdown text area; the editing page offers a preview of every such field."""
    first = DataRequired(message="This field is required.") if required else Optional()
    kw.setdefault("description", "Markdown: **bold**, *italic*, [link](https://…), lists.")
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
    return options(vocabulary)


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
            "This page carried an invalid version of the record; reload it and try again."
        )


class VersionedForm(DirectoryForm):
    #: The version of the record the form was loaded from.
    version = HiddenField(validators=[record_version])

    def base_version(self) -> int | None:
        return as_version(self.version.data)


class EntryForm(VersionedForm):
    """Fields every entry has."""

    visibility = SelectField(
        "Who sees this",
        choices=vocab(m.VISIBILITIES),
        default="public",
        description="Private entries are shown only to you and the profile's editors.",
    )
    #: Fields handled by the kind's own code instead of a plain copy.
    extra_fields: tuple[str, ...] = ()

    def prepare(self, owner: m.Person, session: Any) -> None:
        """Set choices that depend on the database (areas, the owner's papers...)."""

    def prepare_for(self, obj: Any) -> None:
        """Adjust the form to the stored entry it edits (None for a new one)."""

    def load(self, obj: Any) -> None:
        """Fill extra fields from ``obj`` when showing a stored entry."""

    def fill(self, obj: Any, session: Any) -> None:
        """Copy the form's values onto ``obj``."""
        columns = {c.key: c for c in inspect(type(obj)).columns}
        for field in self:
            if field.name in columns and field.name not in ("version", "id", "owner_id"):
                if field.name in self.extra_fields:
                    continue
                value = field.data
                if isinstance(value, str):
                    value = value.strip()
                    if value == "" and columns[field.name].nullable:
                        value = None
                setattr(obj, field.name, value)


class DateRangeFields:
    start_year = IntegerField("Start year", YEAR)
    start_month = IntegerField("Start month", MONTH)
    end_year = IntegerField("End year", YEAR)
    end_month = IntegerField("End month", MONTH)
    is_current = BooleanField("Ongoing (shown as “– present”)")


def _month_or_none(value: Any) -> int | None:
    """A month select's value: 1 to 12, or None for "no month"."""
    if value in (None, ""):
        return None
    return int(value)


class NewsItemForm(EntryForm):
    year = IntegerField(
        "Year",
        [InputRequired(message="Enter the year."), *YEAR[1:]],
        render_kw={"inputmode": "numeric"},
    )
    month = SelectField(
        "Month",
        choices=options([("", "—"), *((str(i), name) for i, name in enumerate(m.MONTHS, 1))]),
        coerce=_month_or_none,
        default=None,
    )
    day = IntegerField(
        "Day", [Optional(), NumberRange(1, 31, message="Enter a day from 1 to 31.")],
        render_kw={"inputmode": "numeric"},
    )  # fmt: skip
    #: One date, its parts side by side ("[July 2026] I will attend OSDI '26": a month is enough).
    field_groups = {"year": ("Date (a year, or a month, or a day)", ("year", "month", "day"))}
    body = markdown("News", required=True)
    url = url_field("Link")
    archived = BooleanField("Show under “older news”")

    def validate(self, extra_validators: Any = None) -> bool:
        valid = super().validate(extra_validators)
        year, month, day = self.year.data, self.month.data, self.day.data
        if self.day.errors or day is None or year is None or self.year.errors:
            return valid
        if month is None:
            self.day.errors.append("Choose the month of this day, or leave the day empty.")
            return False
        try:
            date(year, month, day)
        except ValueError:
            self.day.errors.append(f"{m.MONTHS[month - 1]} {year} has no day {day}.")
            return False
        return valid


class EducationForm(EntryForm, DateRangeFields):
    degree = text("Degree", 120, required=True, description="e.g. Ph.D., B.S.")
    field = text("Field", 200)
    institution = text("Institution", 200, required=True)
    unit = text("School or department", 200)
    place = text("Place", 200)
    advisors = text("Advisors", 400)
    thesis = text("Thesis title", 400)
    thesis_url = url_field("Thesis link")
    note = TextAreaField("Note", [Optional(), Length(max=2000)])


class ExperienceForm(EntryForm, DateRangeFields):
    kind = SelectField("Kind", choices=vocab(m.EXPERIENCE_KINDS), default="job")
    title = text("Position", 200, required=True)
    organisation = text("Organisation", 200, required=True)
    place = text("Place", 200)
    hosts = text("Hosts or mentors", 400)
    hosts_label = text("Introduce them as", 40, description="Hosts, Advisor, Mentor…")
    description = markdown("Description")
    url = url_field("Link")


class ResearchProjectForm(EntryForm):
    title = text("Title", 300, required=True)
    summary = markdown("Summary")
    url = url_field("Link")
    status = SelectField("Status", choices=vocab(m.PROJECT_STATUSES), default="current")
    parent_id = SelectField("Part of", coerce=str, default="")
    extra_fields = ("parent_id",)

    def prepare(self, owner: m.Person, session: Any) -> None:
        from sqlalchemy import select

        projects = session.scalars(
            select(m.ResearchProject)
            .where(m.ResearchProject.owner_id == owner.id)
            .order_by(m.ResearchProject.position)
        )
        self.parent_id.choices = options(
            [("", "— (a top-level project)")] + [(str(p.id), p.title) for p in projects]
        )

    def load(self, obj: Any) -> None:
        self.parent_id.data = str(obj.parent_id) if obj.parent_id else ""

    def validate_parent_id(self, field: Any) -> None:
        editing = getattr(self, "_editing_id", None)
        if field.data and editing is not None and field.data == str(editing):
            raise ValidationError("A project cannot be part of itself.")

    def fill(self, obj: Any, session: Any) -> None:
        super().fill(obj, session)
        obj.parent_id = int(self.parent_id.data) if self.parent_id.data else None


class TeachingForm(EntryForm):
    title = text("Course", 300, required=True)
    course_code = text("Course code", 60)
    term = text("Term", 60, description="e.g. Fall 2025")
    year = IntegerField("Year", YEAR)
    institution = text("Institution", 200)
    role = SelectField("Role", choices=vocab(m.TEACHING_ROLES), default="instructor")
    url = url_field("Link")


class ServiceForm(EntryForm):
    kind = SelectField("Kind", choices=vocab(m.SERVICE_KINDS))
    venue = text("Venue or body", 200, required=True)
    year = IntegerField("Year", YEAR)
    role = text("Role", 120, description="When not plain membership: Co-Chair, Area chair…")
    note = text("Note", 200)


class AwardForm(EntryForm):
    title = text("Award", 400, required=True)
    title_translation = text("Translation", 400)
    year = IntegerField("Year", YEAR)
    giver = text("Given by", 200)
    url = url_field("Link")
    note = text("Note", 400)


class FundingForm(EntryForm):
    funder = text("Funder", 200, required=True)
    title = text("Grant title", 400)
    grant_number = text("Grant number", 120)
    url = url_field("Link")
    start_year = IntegerField("Start year", YEAR)
    end_year = IntegerField("End year", YEAR)
    note = TextAreaField("Note", [Optional(), Length(max=2000)])


class CustomSectionForm(EntryForm):
    title = text("Heading", 200, required=True)
    body = markdown("Text", required=True)


#: The intake select's value for a notice whose old free-text intake names no term.
KEEP_TERM_TEXT = "keep"


class RecruitingNoticeForm(EntryForm):
    level = SelectField("Recruiting", choices=vocab(m.RECRUITING_LEVELS))
    term_season = SelectField(
        "Season", choices=options([("", m.ROLLING_LABEL), *m.TERM_SEASONS]), default=""
    )
    term_year = IntegerField(
        "Year",
        [Optional(), NumberRange(*m.TERM_YEARS, message="Enter a year such as 2027.")],
        render_kw={"inputmode": "numeric"},
    )
    title = text("Title", 300)
    description = markdown("Description", required=True)
    how_to_apply = markdown("How to apply")
    deadline = DateField("Apply by", [Optional()])
    expires_on = DateField(
        "Take down on", [Optional()], description="The notice disappears on this date."
    )
    funding_note = text("Funding", 400)
    funded = BooleanField("Funded positions")
    areas = MultiCheckboxField("Research areas", coerce=int)
    extra_fields = ("areas", "term_season", "term_year")
    field_groups = {
        "term_season": (
            "When the position starts",
            ("term_season", "term_year"),
            "A season and its year, or rolling: open at any time, shown to students asking "
            "for any term.",
        )
    }
    #: The stored intake text that names no term, shown as a choice to keep (None if none).
    unreadable_term: str | None = None

    def prepare(self, owner: m.Person, session: Any) -> None:
        from sqlalchemy import select

        areas = session.scalars(select(m.ResearchArea).order_by(m.ResearchArea.name))
        self.areas.choices = options([(a.id, a.name) for a in areas])

    def prepare_for(self, obj: Any) -> None:
        """A stored notice whose intake is old text naming no term: flag it next to the
        field and offer to keep it as written (choosing a term replaces it)."""
        if obj is None or not obj.term_unreadable:
            return
        self.unreadable_term = obj.term
        self.term_season.choices = options(
            [("", m.ROLLING_LABEL), *m.TERM_SEASONS,
             (KEEP_TERM_TEXT, f"Keep as written: “{obj.term}”")]
        )  # fmt: skip
        self.term_season.description = (
            f"“{obj.term}” names no season and year, so students filtering by term do not "
            "see this notice. Choose a season and a year, or rolling."
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
                "Choose a season for this year, or leave the year empty for a rolling notice."
            )
        elif season not in ("", KEEP_TERM_TEXT) and year.data is None:
            year.errors.append("Enter the year the position starts, e.g. 2027.")
        else:
            return valid
        return False

    def fill(self, obj: Any, session: Any) -> None:
        from sqlalchemy import select

        super().fill(obj, session)
        season = self.term_season.data
        if season == KEEP_TERM_TEXT and obj.term_unreadable:
            pass  # kept as it was written
        elif season in ("", KEEP_TERM_TEXT):
            obj.set_intake(m.ROLLING)
        else:
            obj.set_intake(m.Term(season, self.term_year.data))
        ids = self.areas.data or []
        obj.areas = (
            list(session.scalars(select(m.ResearchArea).where(m.ResearchArea.id.in_(ids))))
            if ids
            else []
        )


ADVISING_SIDES = (
    ("student", "I advise this person (my student)"),
    ("advisor", "This person advises me (my advisor)"),
)


class AdvisingRelationForm(EntryForm):
    side = SelectField("Relation", choices=options(ADVISING_SIDES), default="student")
    other_id = SelectField(
        "Department member",
        coerce=str,
        default="",
        description="Choose a department member, or type an outside name below.",
    )
    other_name = text("Or a name outside the department", 200)
    role = SelectField("Advising role", choices=vocab(m.ADVISING_ROLES), default="advisor")
    degree = SelectField("Degree", choices=vocab(m.DEGREES), default="phd")
    start_year = IntegerField("Start year", YEAR)
    end_year = IntegerField("End year", YEAR)
    status = SelectField("Status", choices=vocab(m.ADVISING_STATUSES), default="current")
    thesis = text("Thesis", 400)
    placement = text(
        "Placement",
        300,
        description="Where they went, as you would write it, e.g. Assistant Professor, CMU "
        "(2024). Leave the three placement fields below empty to have them read from it.",
    )
    placement_organisation = text("Placement: organisation", 200, description="e.g. CMU")
    placement_kind = SelectField(
        "Placement: kind of position",
        choices=options([("", "—"), *m.PLACEMENT_KINDS]),
        default="",
    )
    placement_year = IntegerField("Placement: year", YEAR, description="When they started there.")
    note = text("Note", 300)
    extra_fields = ("side", "other_id", "other_name")

    def prepare(self, owner: m.Person, session: Any) -> None:
        from sqlalchemy import select

        # Only people the viewer may see anywhere else: a picker must not reveal a private
        # profile's name.
        people = session.scalars(
            select(m.Person)
            .where(m.Person.id != owner.id, person_clause(current_viewer(), m.Person))
            .order_by(m.Person.sort_name)
        )
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
            self.placement.description = (
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
                "Choose a department member or type a name.",
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
                    "Name the organisation they went to (or clear the kind and year)."
                ]
            valid = False
        return valid

    def fill(self, obj: Any, session: Any) -> None:
        super().fill(obj, session)
        structure_placement(obj)
        other = int(self.other_id.data) if self.other_id.data else None
        name = None if other else (self.other_name.data or "").strip() or None
        owner = obj.owner_id
        if self.side.data == "student":
            changed = obj.student_id != other
            obj.advisor_id, obj.advisor_name = owner, None
            obj.student_id, obj.student_name = other, name
        else:
            changed = obj.advisor_id != other
            obj.student_id, obj.student_name = owner, None
            obj.advisor_id, obj.advisor_name = other, name
        # A department member on the other side sees the relation on their profile only after
        # they confirm it; the owner's side is confirmed by entering it.
        if changed or obj.id is None:
            other_confirmed = other is None
            if self.side.data == "student":
                obj.advisor_confirmed, obj.student_confirmed = True, other_confirmed
            else:
                obj.student_confirmed, obj.advisor_confirmed = True, other_confirmed


# ----------------------------------------------------------------------------- the person


LINK_KINDS_BY_HOST = {
    "scholar.google.com": "scholar",
    "dblp.org": "dblp",
    "dblp.uni-trier.de": "dblp",
    "orcid.org": "orcid",
    "github.com": "github",
    "linkedin.com": "linkedin",
    "www.linkedin.com": "linkedin",
}


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
        host = urlsplit(url).hostname or ""
        kind = LINK_KINDS_BY_HOST.get(host, "homepage" if label is None else "other")
        if url.lower().endswith(".pdf") and label and "cv" in label.lower():
            kind = "cv"
        links.append({"kind": kind, "url": url, "label": label})
    return links


def format_links(links: list[Any]) -> str:
    return "\n".join(f"{k.label} | {k.url}" if k.label else k.url for k in links)


class ProfileForm(VersionedForm):
    """What the owner maintains about themself."""

    full_name = text("Full name", 200, required=True)
    native_name = text("Name in another script", 200, description="e.g. 魏星达")
    name_variants = TextAreaField(
        "Other spellings as an author",
        [Optional(), Length(max=2000)],
        description="One per line, e.g. X. Wei — used to link your papers.",
        render_kw={"rows": 2},
    )
    pronouns = text("Pronouns", 40)
    title = text("Title", 300, description="e.g. Assistant Professor")
    rank = SelectField("Faculty rank", choices=options([("", "—"), *m.FACULTY_RANKS]), default="")
    unit = text("Unit", 200, description="Lab, group or institute")
    email = StringField(
        "Email", [Optional(), Length(max=254), Email(message="Enter an email address.")]
    )
    office = text("Office", 200)
    address = TextAreaField("Postal address", [Optional(), Length(max=1000)])
    phone = text("Phone", 64)
    interests = text(
        "Research interests",
        1000,
        description="One line, e.g. operating systems, machine learning systems.",
    )
    bio = markdown("Biography")
    links = TextAreaField(
        "Links",
        [Optional(), Length(max=10000)],
        description="One per line: a URL, or “Label | URL”.",
        render_kw={"rows": 4},
    )
    areas = MultiCheckboxField("Research areas", coerce=int)
    visibility = SelectField(
        "Who sees this profile", choices=vocab(m.VISIBILITIES), default="public"
    )

    PLAIN = (
        "full_name", "native_name", "pronouns", "title", "rank", "unit", "email", "office",
        "address", "phone", "interests", "bio", "visibility",
    )  # fmt: skip

    def prepare(self, session: Any) -> None:
        from sqlalchemy import select

        areas = session.scalars(select(m.ResearchArea).order_by(m.ResearchArea.name))
        self.areas.choices = options([(a.id, a.name) for a in areas])

    def load(self, person: m.Person) -> None:
        for name in self.PLAIN:
            getattr(self, name).data = getattr(person, name) or (
                "" if name != "visibility" else "public"
            )
        self.name_variants.data = "\n".join(person.name_variants or [])
        self.links.data = format_links(person.links)
        self.areas.data = [a.id for a in person.areas]
        self.version.data = person.version

    def validate_links(self, field: Any) -> None:
        for number, link in enumerate(parse_links(field.data), start=1):
            if urlsplit(link["url"]).scheme not in ("http", "https"):
                raise ValidationError(f"Line {number}: enter a web address starting with https://.")

    def fill(self, person: m.Person, session: Any) -> None:
        from sqlalchemy import select

        for name in self.PLAIN:
            value = (getattr(self, name).data or "").strip()
            setattr(person, name, value if name == "full_name" else (value or None))
        person.visibility = self.visibility.data or "public"
        person.name_variants = [
            v.strip() for v in (self.name_variants.data or "").splitlines() if v.strip()
        ]
        wanted = parse_links(self.links.data)
        current = [{"kind": k.kind, "url": k.url, "label": k.label} for k in person.links]
        if wanted != current:
            person.links = [m.PersonLink(position=i, **link) for i, link in enumerate(wanted)]
        ids = self.areas.data or []
        person.areas = (
            list(session.scalars(select(m.ResearchArea).where(m.ResearchArea.id.in_(ids))))
            if ids
            else []
        )


class PhotoForm(DirectoryForm):
    photo = FileField("Photo", [FileRequired(message="Choose an image file.")])
    alt_text = text("Describe the photo", 300, description="For people who cannot see it.")


#: The choices of a CV section's place: left out, or a place from 1.
CV_PLACES = [("", "Leave out"), *((str(i), str(i)) for i in range(1, len(m.CV_SECTIONS) + 1))]


class PaperListForm(VersionedForm):
    """How the owner's papers and CV are laid out: whether selected papers are listed again
    below, and the CV's sections (one ``cv_<section>`` place each, added below the class)."""

    repeat_selected = BooleanField(
        "List my selected papers again under their year",
        description="Off: each paper is listed once, the selected ones first. On: the selected "
        "papers come first and are listed again with the others (profile, CV and print).",
    )

    def section_fields(self) -> list[tuple[str, Any]]:
        return [(name, self[f"cv_{name}"]) for name, _ in m.CV_SECTIONS]

    def load(self, person: m.Person) -> None:
        self.repeat_selected.data = person.repeat_selected
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
            first.errors = [*first.errors, "Give at least one section a place on the CV."]
            return False
        return valid

    def fill(self, person: m.Person) -> None:
        person.repeat_selected = bool(self.repeat_selected.data)
        chosen = self.chosen_sections()
        # Every section in the default order is no choice: a section added later is included.
        person.cv_sections = None if chosen == [n for n, _ in m.CV_SECTIONS] else chosen


for _name, _label in m.CV_SECTIONS:
    setattr(
        PaperListForm,
        f"cv_{_name}",
        SelectField(_label, choices=options(CV_PLACES), default=""),
    )


def photo_focus_field(label: str) -> IntegerField:
    def step(form: Any, field: Any) -> None:
        if field.data is not None and field.data % 5:
            raise ValidationError("Use a multiple of 5 (0, 5, 10 … 100).")

    return IntegerField(
        label,
        [InputRequired(message="Enter a number from 0 to 100."),
         NumberRange(0, 100, message="Enter a number from 0 to 100."), step],
        render_kw={"min": 0, "max": 100, "step": 5, "inputmode": "numeric"},
    )  # fmt: skip


class PhotoFocusForm(VersionedForm):
    """The point of the photo kept in view where it is cropped to a square or a circle."""

    focus_x = photo_focus_field("Across, in % from the left edge")
    focus_y = photo_focus_field("Down, in % from the top edge")


# ----------------------------------------------------------------------------- small actions


class ActionForm(DirectoryForm):
    """A one-button form (delete, confirm, approve...): only the CSRF token."""


class VersionedActionForm(VersionedForm):
    """A one-button form about one record version (delete, move)."""


class MoveForm(VersionedForm):
    direction = HiddenField(validators=[DataRequired()])

    def validate_direction(self, field: Any) -> None:
        if field.data not in ("up", "down"):
            raise ValidationError("Move up or down.")


class DelegateForm(DirectoryForm):
    delegate_id = SelectField("Person", coerce=str, validators=[DataRequired()])


class RejectForm(DirectoryForm):
    reason = TextAreaField(
        "Reason (shown to the author)", [DataRequired(message="Say why."), Length(max=2000)]
    )


class ReasonForm(DirectoryForm):
    reason = TextAreaField("Note (optional)", [Optional(), Length(max=2000)])


# ----------------------------------------------------------------------------- admin


class PersonAdminForm(VersionedForm):
    full_name = text("Full name", 200, required=True)
    slug = StringField(
        "Address (slug)",
        [Optional(), Length(max=120)],
        description="Letters, digits and hyphens; made from the name when empty.",
    )
    role = SelectField("Role", choices=vocab(m.ROLE_NAMES))
    email = StringField("Email", [Optional(), Length(max=254), Email()])
    user_key = StringField(
        "Sign-in identity",
        [Optional(), Length(max=254)],
        description="The host's stable key for this person (username, eppn or email).",
    )
    active = BooleanField("Active", default=True)
    visibility = SelectField("Profile visibility", choices=vocab(m.VISIBILITIES))

    def validate_slug(self, field: Any) -> None:
        import re

        if field.data and not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", field.data):
            raise ValidationError("Use lower-case letters, digits and single hyphens.")


class AreaForm(VersionedForm):
    name = text("Name", 120, required=True)
    slug = StringField("Slug", [Optional(), Length(max=80)])
    description = TextAreaField("Description", [Optional(), Length(max=2000)])
    parent_id = SelectField("Broader area", coerce=str, default="")


class MergeForm(DirectoryForm):
    keep_id = SelectField("Keep this profile", coerce=str, validators=[DataRequired()])
    merge_id = SelectField("Merge this duplicate into it", coerce=str, validators=[DataRequired()])

    def validate_merge_id(self, field: Any) -> None:
        if field.data == self.keep_id.data:
            raise ValidationError("Choose two different people.")


# ----------------------------------------------------------------------------- onboarding


class OnboardingUploadForm(DirectoryForm):
    people_file = FileField(
        "CSV file of people", [FileRequired(message="Choose a CSV file to upload.")]
    )


class OnboardingConfirmForm(DirectoryForm):
    """The preview's confirm button: the file travels with it (nothing is stored between
    preview and confirm) and is checked again in full before anything is written."""

    #: The uploaded file's bytes, base64-encoded.
    source = HiddenField()
    filename = HiddenField()
    #: The lines the preview said would be written; confirming writes only those.
    lines = HiddenField()
    send_invitations = BooleanField("E-mail each person their invitation", default=True)


class RemindForm(DirectoryForm):
    """The stale report's selection: whom to send a reminder."""

    people = SelectMultipleField("Remind", coerce=int, validate_choice=False)

    def validate_people(self, field: Any) -> None:
        if not field.data:
            raise ValidationError("Choose at least one person to remind.")
        listed = {choice.value for choice in field.choices or ()}
        if not set(field.data) <= listed:
            raise ValidationError(
                "Only people this report lists, with an e-mail address, can be reminded; "
                "reload the report and choose again."
            )
