"""Onboarding people in bulk from a CSV file: read, check against the directory, then write.

:func:`plan_onboarding` reads the file (UTF-8 with or without a byte-order mark, or UTF-16
with one; comma- or tab-separated) and checks every row against the directory as it is now,
writing nothing: the preview shows each row with its problems next to it. :func:`onboard`
writes the rows that have none, all in the request's unit of work (so all or nothing): a
person, an invitation and, when the row names an advisor, a confirmed advising relation each,
recorded in the person's history, and one grouped record of the whole file.

The columns, matched without regard to case or surrounding spaces:

* ``name`` (required): the full name, in any script ("王小明", "José Núñez");
* ``email`` (required): where the invitation goes; unique in the directory and the file;
* ``role`` (required): a role's value or name, singular or plural ("phd_student",
  "PhD student", "PhD students");
* ``unit``: the lab or group; an existing unit's spelling is used whatever its case;
* ``areas``: research areas of the taxonomy by name or slug, separated by ";";
* ``advisor``: an existing person (e-mail, address or exact name) or another row's e-mail
  or name;
* ``slug``: the profile's address, when the one made from the name is taken.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from difflib import get_close_matches
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session

from directory import models as m
from directory.formats.names import make_slug, sort_name
from directory.formats.person_ids import IdentifierError, normalise_identifier
from directory.formats.text import has_control_characters
from directory.services.access import can_admin
from directory.services.invitations import create_invitation
from directory.services.kinds import ADVISING, ONBOARDING, PERSON
from directory.services.person_identifiers import identifiers_of, set_identifiers

if TYPE_CHECKING:
    from directory.services.unit_of_work import UnitOfWork

#: The identifier columns (formats.person_ids): a bare id or the source's profile URL.
IDENTIFIER_COLUMNS = ("orcid", "dblp", "openalex", "semantic_scholar")
COLUMNS = ("name", "email", "role", "unit", "areas", "advisor", "slug", *IDENTIFIER_COLUMNS)
REQUIRED = ("name", "email", "role")
AREA_SEPARATOR = ";"
LIMITS = {"name": 200, "email": 254, "unit": 200, "slug": 120, "advisor": 254, "areas": 2000,
          **dict.fromkeys(IDENTIFIER_COLUMNS, 120)}  # fmt: skip
_EMAIL = re.compile(r"[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>.]+")
_SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
#: The degree an advising relation records, by the student's role.
DEGREE_BY_ROLE = {"phd_student": "phd", "masters_student": "masters",
                  "undergraduate": "undergraduate", "postdoc": "postdoc"}  # fmt: skip


@dataclass
class PlannedPerson:
    """One row of the file and what checking it found."""

    line: int
    values: dict[str, str]
    #: (column or None for the row as a whole, message)
    errors: list[tuple[str | None, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    slug: str = ""
    role: str = ""
    unit: str | None = None
    area_ids: list[int] = field(default_factory=list)
    advisor_id: int | None = None
    #: The line of the row that is this person's advisor, when the advisor is new too.
    advisor_line: int | None = None
    #: The identifiers in their stored forms, by column.
    identifiers: dict[str, str | None] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors

    def error(self, column: str | None, message: str) -> None:
        self.errors.append((column, message))

    def errors_in(self, column: str) -> list[str]:
        return [message for where, message in self.errors if where == column]


@dataclass
class OnboardingPlan:
    filename: str | None
    columns: list[str] = field(default_factory=list)
    rows: list[PlannedPerson] = field(default_factory=list)
    #: Problems of the file as a whole (nothing can be onboarded from it).
    problems: list[str] = field(default_factory=list)

    @property
    def valid(self) -> list[PlannedPerson]:
        return [] if self.problems else [row for row in self.rows if row.ok]

    @property
    def invalid(self) -> list[PlannedPerson]:
        return [row for row in self.rows if not row.ok]

    @property
    def valid_lines(self) -> str:
        """The lines that would be written, as the confirm form carries them: confirming
        writes only if checking again gives the same rows."""
        return ",".join(str(row.line) for row in self.valid)


# ----------------------------------------------------------------------------- reading


def decode(data: bytes) -> tuple[str | None, str | None]:
    """The file's text, or why it cannot be read."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), None
        except UnicodeDecodeError:
            return None, "The file starts like UTF-16 text but is not valid UTF-16."
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return None, (
            f"The file is not UTF-8 text (byte 0x{data[error.start]:02x} on line {line}). "
            "Save it from your spreadsheet as “CSV UTF-8” and upload it again."
        )


def _delimiter(header_line: str) -> str:
    return "\t" if "\t" in header_line and "," not in header_line else ","


def read_rows(
    text: str, max_rows: int
) -> tuple[list[str], list[tuple[int, dict[str, str], int]], list[str]]:
    """(columns, [(line, values, extra fields)], problems) of the CSV text."""
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        return [], [], ["The file is empty: it needs a header row, e.g. “name,email,role”."]
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(first), strict=True)
    header: list[str] | None = None
    rows: list[tuple[int, dict[str, str], int]] = []
    try:
        for fields in reader:
            if not any(value.strip() for value in fields):
                continue  # blank lines
            if header is None:
                header = [name.strip().lower() for name in fields]
                problems = _header_problems(header, first)
                if problems:
                    return header, [], problems
                continue
            if len(rows) >= max_rows:
                return (
                    header,
                    [],
                    [
                        f"The file holds more than {max_rows} people; onboard at most {max_rows} "
                        "per file (split it in parts)."
                    ],
                )
            values = {name: (fields[i].strip() if i < len(fields) else "")
                      for i, name in enumerate(header)}  # fmt: skip
            rows.append((reader.line_num, values, max(0, len(fields) - len(header))))
    except csv.Error as error:
        return header or [], [], [f"Line {reader.line_num} cannot be read as CSV: {error}."]
    if header is None:
        return [], [], ["The file is empty: it needs a header row, e.g. “name,email,role”."]
    if not rows:
        return header, [], ["The file has a header but nobody in it."]
    return header, rows, []


def _header_problems(header: list[str], first_line: str) -> list[str]:
    problems = []
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        hint = ""
        if ";" in first_line and "," not in first_line:
            hint = " The header looks separated by semicolons; save the file with commas."
        problems.append(
            f"The header lacks the column{'s' if len(missing) > 1 else ''} "
            f"{', '.join(missing)} (it has: {', '.join(header) or 'nothing'}).{hint}"
        )
    for name in header:
        if name and name not in COLUMNS:
            close = get_close_matches(name, COLUMNS, n=1)
            hint = f" Did you mean “{close[0]}”?" if close else ""
            problems.append(
                f"Unknown column “{name}”.{hint} The columns are: {', '.join(COLUMNS)}."
            )
        elif not name:
            problems.append("A column of the header has no name.")
    repeated = sorted({name for name in header if name and header.count(name) > 1})
    if repeated:
        problems.append(f"The header names {', '.join(repeated)} more than once.")
    return problems


# ----------------------------------------------------------------------------- checking


def _role_names() -> dict[str, str]:
    names = {}
    for vocabulary in (m.ROLES, m.ROLE_NAMES):
        for value, label in vocabulary:
            names[value.lower()] = value
            names[label.lower()] = value
            names[value.replace("_", " ")] = value
    return names


@dataclass
class _Directory:
    """What the rows are checked against, read once per plan."""

    emails: dict[str, m.Person]
    slugs: dict[str, m.Person]
    names: dict[str, list[m.Person]]
    units: dict[str, str]
    areas: dict[str, m.ResearchArea]
    area_names: list[str]
    #: (column, stored identifier) -> the person holding it.
    identifiers: dict[tuple[str, str], m.Person] = field(default_factory=dict)

    @classmethod
    def read(cls, session: Session) -> _Directory:
        people = list(session.scalars(select(m.Person)))
        names: dict[str, list[m.Person]] = {}
        for person in people:
            names.setdefault(person.full_name.casefold(), []).append(person)
        units = {}
        for unit in session.scalars(
            select(m.Person.unit).where(m.Person.unit.isnot(None)).distinct()
        ):
            units.setdefault(unit.strip().casefold(), unit.strip())
        areas: dict[str, m.ResearchArea] = {}
        for area in session.scalars(select(m.ResearchArea).order_by(m.ResearchArea.name)):
            areas[area.slug.casefold()] = area
            areas[area.name.strip().casefold()] = area
        return cls(
            emails={p.email.strip().casefold(): p for p in people if p.email},
            slugs={p.slug: p for p in people},
            names=names,
            units=units,
            areas=areas,
            area_names=sorted({a.name for a in areas.values()}),
            identifiers={(key, value): p for p in people
                         for key, value in identifiers_of(p).items() if value},
        )  # fmt: skip


def plan_onboarding(
    session: Session, data: bytes, filename: str | None, *, max_bytes: int, max_rows: int
) -> OnboardingPlan:
    """Read and check ``data`` (the uploaded file) without writing anything."""
    plan = OnboardingPlan(filename=filename)
    if len(data) > max_bytes:
        plan.problems.append(
            f"The file is larger than {max_bytes:,} bytes, the most accepted; split it in parts."
        )
        return plan
    text, problem = decode(data)
    if problem:
        plan.problems.append(problem)
        return plan
    plan.columns, raw_rows, plan.problems = read_rows(text or "", max_rows)
    if plan.problems:
        return plan
    known = _Directory.read(session)
    roles = _role_names()
    plan.rows = [PlannedPerson(line=line, values=values) for line, values, _extra in raw_rows]
    for row, (_line, _values, extra) in zip(plan.rows, raw_rows, strict=True):
        if extra:
            row.error(None, f"This row has {extra} more field{'s' if extra > 1 else ''} than "
                            "the header (a comma inside a value needs quotes).")  # fmt: skip
        _check_row(row, known, roles)
    _check_within_file(plan.rows, known)
    _check_advisors(plan.rows, known)
    return plan


def _check_row(row: PlannedPerson, known: _Directory, roles: dict[str, str]) -> None:
    """Check one row against the directory, in the order its problems are listed: every
    value, then the name, e-mail, role, unit, areas and the profile's address."""
    _check_values(row)
    name = row.values.get("name", "")
    if not name:
        row.error("name", "A name is required.")
    _check_email(row, known)
    _check_role(row, roles)
    _check_unit(row, known)
    _check_areas(row, known)
    _check_slug(row, known, name)
    _check_identifiers(row, known)


def _check_identifiers(row: PlannedPerson, known: _Directory) -> None:
    """Each identifier is one of its kind (an ORCID iD's check digit) and no one's yet."""
    for column in IDENTIFIER_COLUMNS:
        try:
            value = normalise_identifier(column, row.values.get(column))
        except IdentifierError as error:
            row.error(column, str(error))
            continue
        holder = known.identifiers.get((column, value)) if value else None
        if holder is not None:
            row.error(column, f"{holder.full_name} already has this identifier.")
        row.identifiers[column] = value


def _check_values(row: PlannedPerson) -> None:
    """No control characters, and no value longer than its column takes."""
    values = row.values
    for column, value in values.items():
        if has_control_characters(value):
            row.error(column, "Holds invisible control characters; remove them.")
        limit = LIMITS.get(column)
        if limit and len(value) > limit:
            row.error(column, f"Longer than {limit} characters.")


def _check_email(row: PlannedPerson, known: _Directory) -> None:
    """An e-mail address is required, and must be no one's in the directory yet."""
    email = row.values.get("email", "")
    if not email:
        row.error("email", "An e-mail address is required (the invitation goes there).")
    elif not _EMAIL.fullmatch(email):
        row.error("email", f"“{email}” is not an e-mail address.")
    elif email.casefold() in known.emails:
        other = known.emails[email.casefold()]
        row.error("email", f"Already in the directory: {other.full_name} ({other.slug}).")


def _check_role(row: PlannedPerson, roles: dict[str, str]) -> None:
    """A role is required, written as a role's value or label."""
    role_text = row.values.get("role", "")
    row.role = roles.get(role_text.casefold(), "")
    if not role_text:
        row.error("role", "A role is required.")
    elif not row.role:
        row.error("role", f"Unknown role “{role_text}”; use one of: "
                          f"{', '.join(label for _v, label in m.ROLE_NAMES)}.")  # fmt: skip


def _check_unit(row: PlannedPerson, known: _Directory) -> None:
    """The unit as the directory writes it; a new one is noted, with the closest existing."""
    unit = row.values.get("unit", "")
    if unit:
        existing = known.units.get(unit.casefold())
        row.unit = existing or unit
        if existing and existing != unit:
            row.notes.append(f"Unit written as the directory has it: “{existing}”.")
        elif not existing:
            close = get_close_matches(unit.casefold(), list(known.units), n=1, cutoff=0.8)
            hint = f" Did you mean “{known.units[close[0]]}”?" if close else ""
            row.notes.append(f"“{unit}” is a new unit in the directory.{hint}")


def _check_areas(row: PlannedPerson, known: _Directory) -> None:
    """Every research area named must exist (by slug or name)."""
    for part in (p.strip() for p in row.values.get("areas", "").split(AREA_SEPARATOR)):
        if not part:
            continue
        area = known.areas.get(part.casefold())
        if area is None:
            close = get_close_matches(part, known.area_names, n=1, cutoff=0.6)
            hint = f" Did you mean “{close[0]}”?" if close else ""
            row.error("areas", f"Unknown research area “{part}”.{hint} Add it under Research "
                               "areas first, or leave it out.")  # fmt: skip
        elif area.id not in row.area_ids:
            row.area_ids.append(area.id)


def _check_slug(row: PlannedPerson, known: _Directory, name: str) -> None:
    """The profile's address: the ``slug`` given or one made from the name; no one's yet."""
    wanted = row.values.get("slug", "")
    if wanted and not _SLUG.fullmatch(wanted):
        row.error("slug", "Use lower-case letters, digits and single hyphens.")
    row.slug = wanted or (make_slug(name) if name else "")
    taken = known.slugs.get(row.slug)
    if row.slug and taken is not None:
        where = "slug" if wanted else "name"
        row.error(where, f"The address /people/{row.slug} is {taken.full_name}’s; if this is "
                         "another person, give the row a “slug” column value.")  # fmt: skip


def _check_within_file(rows: list[PlannedPerson], known: _Directory) -> None:
    first_email: dict[str, int] = {}
    first_slug: dict[str, int] = {}
    for row in rows:
        email = row.values.get("email", "").casefold()
        if email and email in first_email:
            row.error("email", f"The same e-mail address as line {first_email[email]}.")
        elif email:
            first_email[email] = row.line
        if row.slug and row.slug in first_slug:
            where = "slug" if row.values.get("slug") else "name"
            row.error(where, f"The same address (/people/{row.slug}) as line "
                             f"{first_slug[row.slug]}; give one of them a “slug”.")  # fmt: skip
        elif row.slug:
            first_slug[row.slug] = row.line
    first_id: dict[tuple[str, str], int] = {}
    for row in rows:
        for column, value in row.identifiers.items():
            if value and (column, value) in first_id:
                row.error(column, f"The same identifier as line {first_id[(column, value)]}.")
            elif value:
                first_id[(column, value)] = row.line


def _check_advisors(rows: list[PlannedPerson], known: _Directory) -> None:
    by_email = {r.values.get("email", "").casefold(): r for r in rows if r.values.get("email")}
    by_name: dict[str, list[PlannedPerson]] = {}
    for r in rows:
        by_name.setdefault(r.values.get("name", "").casefold(), []).append(r)
    for row in rows:
        wanted = row.values.get("advisor", "")
        if not wanted:
            continue
        key = wanted.casefold()
        existing = ([known.emails[key]] if key in known.emails else
                    [known.slugs[wanted]] if wanted in known.slugs else
                    known.names.get(key, []))  # fmt: skip
        in_file = [by_email[key]] if key in by_email else by_name.get(key, [])
        found = len(existing) + len(in_file)
        if found == 0:
            row.error("advisor", f"No one called “{wanted}” is in the directory or this file; "
                                 "give the advisor's e-mail address.")  # fmt: skip
        elif found > 1:
            row.error("advisor", f"“{wanted}” names {found} people; give the advisor's e-mail "
                                 "address instead.")  # fmt: skip
        elif existing:
            row.advisor_id = existing[0].id
        elif in_file[0] is row:
            row.error("advisor", "A person cannot be their own advisor.")
        else:
            row.advisor_line = in_file[0].line
    # An advisor whose own row cannot be written makes the student's row wait too.
    lines = {r.line: r for r in rows}
    changed = True
    while changed:
        changed = False
        for row in rows:
            advisor = lines.get(row.advisor_line) if row.advisor_line else None
            if advisor is not None and not advisor.ok and row.ok:
                row.error("advisor", f"The advisor's row (line {advisor.line}) has problems; "
                                     "fix it first.")  # fmt: skip
                changed = True


# ----------------------------------------------------------------------------- writing


@dataclass
class Onboarded:
    person: m.Person
    token: str


def onboard(
    uow: UnitOfWork, plan: OnboardingPlan, *, invitation_days: int, unlisted: bool
) -> list[Onboarded]:
    """Write every row of ``plan`` without problems: each person with an invitation (and an
    advising relation), each in their history, and one grouped record of the file. Only
    flushes; the unit of work commits all of it or nothing."""
    session = uow.session
    rows = plan.valid
    done: list[Onboarded] = []
    by_line: dict[int, m.Person] = {}
    for row in rows:
        name = row.values["name"]
        person = m.Person(
            full_name=name, slug=row.slug, sort_name=sort_name(name), role=row.role,
            email=row.values["email"], unit=row.unit, active=True, visibility="public",
            published=not unlisted,
            areas=[session.get(m.ResearchArea, area_id) for area_id in row.area_ids],
        )  # fmt: skip
        set_identifiers(person, row.identifiers)
        changes = uow.change_set(person, approval_exempt=True)
        changes.create(PERSON, person)
        session.flush()
        token = create_invitation(changes, invitation_days)
        changes.finish()
        by_line[row.line] = person
        done.append(Onboarded(person, token))
    for row in rows:
        advisor_id = row.advisor_id or (by_line[row.advisor_line].id if row.advisor_line else None)
        if advisor_id is None:
            continue
        student = by_line[row.line]
        changes = uow.change_set(student, approval_exempt=True)
        relation = m.AdvisingRelation(
            owner_id=student.id, advisor_id=advisor_id, student_id=student.id,
            degree=DEGREE_BY_ROLE.get(row.role, "phd"), status="current",
            advisor_confirmed=True, student_confirmed=True,
        )  # fmt: skip
        changes.create(ADVISING, relation)
        changes.finish()
    batch = uow.change_set(None, allowed=can_admin(uow.viewer))
    where = f" from {plan.filename}" if plan.filename else ""
    batch.group(
        ONBOARDING, "import", f"Onboarded {len(done)} people{where}",
        {"filename": plan.filename, "people": [o.person.id for o in done],
         "left_out": [row.line for row in plan.invalid]},
    )  # fmt: skip
    batch.finish()
    return done
