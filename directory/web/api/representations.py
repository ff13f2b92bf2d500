"""What people, publications, positions and areas look like in the JSON API (v1).

Everything here works on objects already filtered for the viewer, and filters again wherever a
related object could be hidden from them (a co-author's profile, a paper an award points to).
The entry kinds' fields are their declarations' (:data:`directory.models.ENTRY_KINDS`,
:func:`api_kinds`); the OpenAPI document derives their schemas from the same declarations and
the models' columns.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import url_for
from sqlalchemy import Boolean, Date, Integer

from directory import models as m
from directory.formats.markdown import render_markdown
from directory.services.access import can_see_email, can_view, person_visible
from directory.services.identity import Viewer
from directory.services.profiles import Profile
from directory.services.publication_rows import NAME_PARTS
from directory.services.search_index import notice_title


def api_kinds() -> list[m.EntryKind]:
    """The entry kinds the API lists under their names (their fields are the declaration's,
    besides ``id``): every declared kind with an OpenAPI name."""
    return [kind for kind in m.ENTRY_KINDS.values() if kind.api_name]


PUBLICATION_FIELDS = (
    "venue", "venue_short", "year", "month", "type", "status", "abstract", "doi", "arxiv_id",
    "volume", "number", "pages", "publisher", "location", "note",
)  # fmt: skip
ADVISING_FIELDS = (
    "role", "degree", "status", "start_year", "end_year", "thesis", "placement",
    "placement_organisation", "placement_kind", "placement_year", "note",
)  # fmt: skip


def json_type(model: type[m.Base], name: str) -> dict[str, Any]:
    """The JSON Schema of one column as the API renders it."""
    col = model.__table__.columns[name]
    if isinstance(col.type, Boolean):
        schema: dict[str, Any] = {"type": "boolean"}
    elif isinstance(col.type, Integer):
        schema = {"type": "integer"}
    elif isinstance(col.type, Date):
        schema = {"type": "string", "format": "date"}
    else:
        schema = {"type": "string"}
    if col.nullable:
        schema["type"] = [schema["type"], "null"]
    return schema


def _value(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def _fields(obj: Any, names: tuple[str, ...]) -> dict[str, Any]:
    return {"id": obj.id, **{name: _value(getattr(obj, name)) for name in names}}


def _external(endpoint: str, **values: Any) -> str:
    return url_for(endpoint, _external=True, **values)


def area(area: m.ResearchArea) -> dict[str, Any]:
    return {"slug": area.slug, "name": area.name}


def person_ref(person: m.Person | None, viewer: Viewer) -> str | None:
    """A related person's slug, only if the viewer may see their profile."""
    if person is None or not person_visible(viewer, person):
        return None
    return person.slug


def person_summary(person: m.Person, viewer: Viewer, recruiting: bool) -> dict[str, Any]:
    return {
        "slug": person.slug,
        "name": person.full_name,
        "native_name": person.native_name,
        "sort_name": person.sort_name,
        "role": person.role,
        "role_label": m.label(m.ROLES, person.role),
        "rank": person.rank,
        "title": person.title,
        "unit": person.unit,
        "pronouns": person.pronouns,
        "areas": [area(a) for a in person.areas],
        "interests": person.interests,
        "email": person.email if can_see_email(viewer) else None,
        "recruiting": recruiting,
        "photo_url": _external("directory.photo", slug=person.slug) if person.photo else None,
        "url": _external("directory.profile", slug=person.slug),
        "api_url": _external("directory.api_person", slug=person.slug),
    }


def publication(pub: m.Publication, viewer: Viewer, url: str | None) -> dict[str, Any]:
    return {
        "uid": pub.uid,
        "title": pub.title,
        "authors": [
            {
                "name": a.name,
                "person": person_ref(a.person, viewer),
                "co_first": a.co_first,
                "corresponding": a.corresponding,
                "role": a.role or "author",
                **{part: getattr(a, part) for part in NAME_PARTS},
            }
            for a in pub.authorships
        ],
        "authors_incomplete": pub.authors_incomplete,
        **{name: getattr(pub, name) for name in PUBLICATION_FIELDS},
        "type_label": m.label(m.PUBLICATION_TYPES, pub.type),
        "labels": list(pub.labels or []),
        "links": [{"kind": k.kind, "label": k.label, "url": k.url} for k in pub.links],
        "awards": [award.name for award in pub.awards],
        "badges": [{"name": b.name, "issuer": b.issuer} for b in pub.badges],
        "relations": [
            {"kind": rel.kind, "target": rel.target.uid}
            for rel in pub.relations
            if can_view(viewer, rel.target)
        ],
        "url": url,
    }


def position(notice: m.RecruitingNotice) -> dict[str, Any]:
    owner = notice.owner
    return {
        "id": notice.id,
        "level": notice.level,
        "level_label": m.label(m.RECRUITING_LEVELS, notice.level),
        "term": None if notice.is_rolling else notice.term_label,
        "term_season": notice.term_season,
        "term_year": notice.term_year,
        "rolling": notice.is_rolling,
        "term_label": notice.term_label,
        "title": notice_title(notice),
        "description": notice.description,
        "description_html": str(render_markdown(notice.description)),
        "how_to_apply": notice.how_to_apply,
        "deadline": _value(notice.deadline),
        "expires_on": _value(notice.expires_on),
        "funded": notice.funded,
        "funding_note": notice.funding_note,
        "areas": [area(a) for a in notice.areas],
        "person": {
            "slug": owner.slug,
            "name": owner.full_name,
            "title": owner.title,
            "url": _external("directory.profile", slug=owner.slug),
            "api_url": _external("directory.api_person", slug=owner.slug),
        },
        "url": _external("directory.profile", slug=owner.slug, _anchor="recruiting"),
    }


def _advising(rel: m.AdvisingRelation, side: str, viewer: Viewer) -> dict[str, Any]:
    other = getattr(rel, side)
    return {
        "name": rel.advisor_display if side == "advisor" else rel.student_display,
        "person": person_ref(other, viewer),
        **{name: getattr(rel, name) for name in ADVISING_FIELDS},
    }


def _entry(entry: Any, kind: m.EntryKind, viewer: Viewer) -> dict[str, Any]:
    return _fields(entry, kind.fields)


def _award(award: m.Award, kind: m.EntryKind, viewer: Viewer) -> dict[str, Any]:
    shown = award.publication is not None and can_view(viewer, award.publication)
    return {**_fields(award, kind.fields), "publication": award.publication.uid if shown else None}


def _project(project: m.ResearchProject, kind: m.EntryKind, viewer: Viewer) -> dict[str, Any]:
    return {
        **_fields(project, kind.fields),
        "publications": [pub.uid for pub in project.visible_publications],
        "children": [_project(child, kind, viewer) for child in project.visible_children],
    }


#: How one entry looks in the API, for the kinds that carry more than their fields.
ENTRY_SHAPES = {"awards": _award, "projects": _project}


def person_detail(profile: Profile, viewer: Viewer) -> dict[str, Any]:
    """The whole profile as ``viewer`` sees it on the profile page."""
    person = profile.person
    data = person_summary(person, viewer, recruiting=bool(profile.recruiting))
    data.update(
        name_variants=list(person.name_variants or []),
        office=person.office,
        address=person.address,
        phone=person.phone,
        bio=person.bio,
        bio_html=str(render_markdown(person.bio)),
        last_confirmed=_value(person.last_confirmed),
        links=[{"kind": k.kind, "label": k.label, "url": k.url} for k in person.links],
    )
    for kind in api_kinds():
        shape = ENTRY_SHAPES.get(kind.name, _entry)
        data[kind.name] = [shape(entry, kind, viewer) for entry in profile.entries(kind.name)]
    data["positions"] = [position(notice) for notice in profile.recruiting]
    students = profile.students
    data["students"] = [
        _advising(rel, "student", viewer)
        for rel in students.current_phd
        + students.current_masters
        + students.current_other
        + students.past
    ]
    # The profile holds only relations the viewer may see (access.advising_visible).
    data["advisors"] = [_advising(rel, "advisor", viewer) for rel in profile.advisors]
    data["publications"] = [
        {
            **publication(
                row.publication,
                viewer,
                _external(
                    "directory.profile", slug=person.slug, _anchor=f"pub-{row.publication.uid}"
                ),
            ),
            "selected": row.selected,
            "section": row.section,
        }
        for group in profile.publications
        for row in group.items
    ]
    return data


# ----------------------------------------------------------------------------- alumni


def _kind(kind: str | None) -> dict[str, Any]:
    known = kind if kind in m.values(m.PLACEMENT_KINDS) else None
    return {"kind": kind, "kind_label": m.label(m.PLACEMENT_KINDS, known) if known else None}


def _listed_ref(person: Any) -> str | None:
    """The slug of a person an alumni output names (a
    :class:`directory.services.alumni.PersonRef`): the read rules that made the record have
    already let through only people whose profile the viewer may see."""
    return person.slug if person is not None else None


def alumnus(record: Any, viewer: Viewer) -> dict[str, Any]:
    """One alumnus of the alumni list (a :class:`directory.services.alumni.Alumnus`)."""
    person = _listed_ref(record.person)
    return {
        "name": record.name,
        "person": person,
        "degree": record.degree,
        "degree_label": m.label(m.DEGREES, record.degree) if record.degree else None,
        "year": record.year,
        "advisors": [
            {"name": a.name, "person": _listed_ref(a.person), "role": a.role}
            for a in record.advisors
        ],
        "thesis": record.thesis,
        "placement": {
            "text": record.placement,
            "organisation": record.placement_organisation,
            **_kind(record.placement_kind),
            "year": record.placement_year,
        },
        "url": _external("directory.profile", slug=person) if person else None,
    }


def alumni_summary(summary: Any, viewer: Viewer) -> dict[str, Any]:
    """The counts of the alumni summary (a :class:`directory.services.alumni.AlumniSummary`
    with its page of advisors); a kind "unknown" counts the alumni whose placement has no
    kind."""
    pages = summary.advisor_page
    return {
        "total": summary.total,
        "no_year": summary.no_year,
        "years": [
            {
                "year": year,
                "count": sum(parts.values()),
                "kinds": [{"kind": k, "count": n} for k, n in parts.items()],
            }
            for year, parts in summary.years
        ],
        "degrees": [
            {
                "degree": degree,
                "degree_label": m.label(m.DEGREES, degree) if degree else None,
                "count": count,
            }
            for degree, count in summary.degrees
        ],
        "kinds": [{**_kind(kind), "count": count} for kind, count in summary.kinds],
        "advisors": [
            {"person": _listed_ref(person), "name": person.full_name, "count": count}
            for person, count in summary.advisors
        ],
        "advisor_pages": {
            "page": pages.number,
            "per_page": pages.size,
            "pages": pages.pages,
            "total": pages.total,
        },
    }
