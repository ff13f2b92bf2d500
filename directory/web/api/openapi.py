"""The OpenAPI 3.1 document of the JSON API v1, served at ``<prefix>/api/v1/openapi.json``.

Written by hand, except the profile entry schemas, which come from the entry kinds'
declarations the API renders (:func:`directory.web.api.representations.api_kinds`), and the query
parameters, which come from the filter classes the API reads them with (:data:`LIST_FILTERS`;
each parameter's schema is the one the API checks a value against). Schemas are strict (every key
required, no others) so that a test comparing them with real responses catches any drift.
"""

from __future__ import annotations

from typing import Any

from flask import current_app

from directory import models as m
from directory.services import alumni, alumni_counts
from directory.services.department.people import PeopleQuery
from directory.services.department.publications import PublicationSearch
from directory.services.department.recruiting import RecruitingFilters
from directory.services.parameters import MAX_PER_PAGE, Filters, Paging, Parameter
from directory.web.api.representations import api_kinds, json_type

STRING = {"type": "string"}
NULLABLE_STRING = {"type": ["string", "null"]}
INTEGER = {"type": "integer"}
NULLABLE_INTEGER = {"type": ["integer", "null"]}
BOOLEAN = {"type": "boolean"}
URL = {"type": "string", "format": "uri"}
NULLABLE_URL = {"type": ["string", "null"], "format": "uri"}
NULLABLE_DATE = {"type": ["string", "null"], "format": "date"}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def strict(properties: dict[str, Any], description: str | None = None) -> dict[str, Any]:
    """An object schema with exactly these properties, all present."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    if description:
        schema["description"] = description
    return schema


def array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def enum(vocabulary: tuple[tuple[str, str], ...], nullable: bool = False) -> dict[str, Any]:
    values: list[Any] = list(m.values(vocabulary))
    if nullable:
        return {"type": ["string", "null"], "enum": [*values, None]}
    return {"type": "string", "enum": values}


AREA_REF = strict({"slug": STRING, "name": STRING})

PERSON_SUMMARY = {
    "slug": STRING,
    "name": STRING,
    "native_name": NULLABLE_STRING,
    "sort_name": STRING,
    "role": enum(m.ROLES),
    "role_label": STRING,
    "rank": NULLABLE_STRING,
    "title": NULLABLE_STRING,
    "unit": NULLABLE_STRING,
    "pronouns": NULLABLE_STRING,
    "areas": array(ref("AreaRef")),
    "interests": NULLABLE_STRING,
    "email": {
        "type": ["string", "null"],
        "description": "Only for signed-in members; always null for anonymous callers.",
    },
    "recruiting": {**BOOLEAN, "description": "Has an open recruiting notice."},
    "photo_url": NULLABLE_URL,
    "url": {**URL, "description": "The profile page."},
    "api_url": URL,
}

PUBLICATION = {
    "uid": {**STRING, "description": "Stable identity, also the profile page anchor pub-<uid>."},
    "title": STRING,
    "authors": array(
        strict(
            {
                "name": {**STRING, "description": "As printed on the paper."},
                "person": {
                    "type": ["string", "null"],
                    "description": "Slug of the author's profile, when it is visible.",
                },
                "co_first": BOOLEAN,
                "corresponding": BOOLEAN,
                "role": {"enum": ["author", "editor"], "description": "An editor of the volume."},
                "given": NULLABLE_STRING,
                "particle": {**NULLABLE_STRING, "description": 'The von part ("van", "de la").'},
                "family": NULLABLE_STRING,
                "suffix": {**NULLABLE_STRING, "description": '"Jr.", "III".'},
            }
        )
    ),
    "authors_incomplete": {
        **BOOLEAN,
        "description": 'The list is cut short ("and others"): the paper has more authors.',
    },
    "venue": NULLABLE_STRING,
    "venue_short": NULLABLE_STRING,
    "year": NULLABLE_INTEGER,
    "month": NULLABLE_INTEGER,
    "type": enum(m.PUBLICATION_TYPES),
    "type_label": STRING,
    "status": enum(m.PUBLICATION_STATUSES),
    "abstract": NULLABLE_STRING,
    "doi": NULLABLE_STRING,
    "arxiv_id": NULLABLE_STRING,
    "volume": NULLABLE_STRING,
    "number": NULLABLE_STRING,
    "pages": NULLABLE_STRING,
    "publisher": NULLABLE_STRING,
    "location": NULLABLE_STRING,
    "note": NULLABLE_STRING,
    "labels": array(STRING),
    "links": array(ref("Link")),
    "awards": array(STRING),
    "badges": array(strict({"name": STRING, "issuer": NULLABLE_STRING})),
    "relations": array(
        strict({"kind": enum(m.PUBLICATION_RELATIONS), "target": {**STRING, "description": "uid"}})
    ),
    "url": {
        **NULLABLE_URL,
        "description": "Where the paper is shown: a visible author's profile, if any.",
    },
}

POSITION = {
    "id": INTEGER,
    "level": enum(m.RECRUITING_LEVELS),
    "level_label": STRING,
    "term": {
        **NULLABLE_STRING,
        "description": 'The intake, e.g. "Fall 2026" (or text naming no term, as its owner wrote '
        "it); null for a rolling notice.",
    },
    "term_season": {**enum(m.TERM_SEASONS, nullable=True)},
    "term_year": NULLABLE_INTEGER,
    "rolling": {**BOOLEAN, "description": "Open to any intake: matches every term filter."},
    "term_label": {**STRING, "description": '"Fall 2026", or "Rolling / any time".'},
    "title": STRING,
    "description": {**STRING, "description": "Markdown."},
    "description_html": {**STRING, "description": "The Markdown rendered and sanitised."},
    "how_to_apply": NULLABLE_STRING,
    "deadline": NULLABLE_DATE,
    "expires_on": NULLABLE_DATE,
    "funded": BOOLEAN,
    "funding_note": NULLABLE_STRING,
    "areas": array(ref("AreaRef")),
    "person": strict(
        {"slug": STRING, "name": STRING, "title": NULLABLE_STRING, "url": URL, "api_url": URL}
    ),
    "url": URL,
}

ADVISING = strict(
    {
        "name": STRING,
        "person": {"type": ["string", "null"], "description": "Slug, when the profile is visible."},
        "role": enum(m.ADVISING_ROLES),
        "degree": enum(m.DEGREES),
        "status": enum(m.ADVISING_STATUSES),
        "start_year": NULLABLE_INTEGER,
        "end_year": NULLABLE_INTEGER,
        "thesis": NULLABLE_STRING,
        "placement": {**NULLABLE_STRING, "description": "Where they went, as written."},
        "placement_organisation": NULLABLE_STRING,
        "placement_kind": enum(m.PLACEMENT_KINDS, nullable=True),
        "placement_year": NULLABLE_INTEGER,
        "note": NULLABLE_STRING,
    }
)

#: A kind of placement, with "unknown" for alumni whose placement has no kind.
SUMMARY_KIND = {
    "type": "string",
    "enum": [*m.values(m.PLACEMENT_KINDS), "unknown"],
}

ALUMNUS = strict(
    {
        "name": STRING,
        "person": {"type": ["string", "null"], "description": "Slug, when there is a profile."},
        "degree": enum(m.DEGREES, nullable=True),
        "degree_label": NULLABLE_STRING,
        "year": {**NULLABLE_INTEGER, "description": "Year of graduation."},
        "advisors": array(
            strict(
                {
                    "name": STRING,
                    "person": {
                        "type": ["string", "null"],
                        "description": "Slug, if in the department.",
                    },
                    "role": enum(m.ADVISING_ROLES),
                }
            )
        ),
        "thesis": NULLABLE_STRING,
        "placement": strict(
            {
                "text": {**NULLABLE_STRING, "description": "As written."},
                "organisation": NULLABLE_STRING,
                "kind": enum(m.PLACEMENT_KINDS, nullable=True),
                "kind_label": NULLABLE_STRING,
                "year": {**NULLABLE_INTEGER, "description": "When they started there."},
            },
            "Where they went: the text as written, and its structure.",
        ),
        "url": {**NULLABLE_URL, "description": "The alumnus's profile page, if any."},
    }
)

ALUMNI_SUMMARY = strict(
    {
        "total": {**INTEGER, "description": "Alumni the filters keep."},
        "no_year": {**INTEGER, "description": "Of them, those without a year of graduation."},
        "years": array(
            strict(
                {
                    "year": INTEGER,
                    "count": INTEGER,
                    "kinds": array(strict({"kind": SUMMARY_KIND, "count": INTEGER})),
                }
            )
        ),
        "degrees": array(
            strict(
                {
                    "degree": enum(m.DEGREES, nullable=True),
                    "degree_label": NULLABLE_STRING,
                    "count": INTEGER,
                }
            )
        ),
        "kinds": array(
            strict({"kind": SUMMARY_KIND, "kind_label": NULLABLE_STRING, "count": INTEGER})
        ),
        "advisors": array(
            strict({"person": NULLABLE_STRING, "name": STRING, "count": INTEGER}),
        ),
        "advisor_pages": strict(
            {"page": INTEGER, "per_page": INTEGER, "pages": INTEGER, "total": INTEGER}
        ),
        "links": strict(
            {
                "alumni": URL,
                "page": URL,
                "csv": URL,
                "next_advisors": NULLABLE_URL,
                "prev_advisors": NULLABLE_URL,
            }
        ),
    },
    "Counts of the alumni per year of graduation (every year from the first to the last, "
    "split by kind of position), degree, kind of position and department advisor (an alumnus "
    "counts once for each of their advisors). The advisors come a page at a time, most "
    "alumni first (``advisors`` is the page; ``advisor_pages`` and the links tell the rest).",
)

#: What an entry kind's OpenAPI schema holds besides its fields (see
#: :data:`directory.web.api.representations.ENTRY_SHAPES`).
ENTRY_EXTRAS: dict[str, dict[str, Any]] = {
    "awards": {
        "publication": {
            "type": ["string", "null"],
            "description": "uid of the paper the award is for, when visible.",
        }
    },
    "projects": {
        "publications": array({**STRING, "description": "uid"}),
        "children": array(ref("Project")),
    },
}


def _entry_schemas() -> dict[str, Any]:
    """The schema of each entry kind the API lists, from its declaration and columns."""
    return {
        kind.api_name: strict(
            {
                "id": INTEGER,
                **{name: json_type(kind.model, name) for name in kind.fields},
                **ENTRY_EXTRAS.get(kind.name, {}),
            }
        )
        for kind in api_kinds()
    }


def _person_detail() -> dict[str, Any]:
    properties = {
        **PERSON_SUMMARY,
        "name_variants": array(STRING),
        "office": NULLABLE_STRING,
        "address": NULLABLE_STRING,
        "phone": NULLABLE_STRING,
        "bio": {**NULLABLE_STRING, "description": "Markdown."},
        "bio_html": {**STRING, "description": "The bio rendered and sanitised."},
        "last_confirmed": NULLABLE_DATE,
        "links": array(ref("Link")),
        **{kind.name: array(ref(kind.api_name)) for kind in api_kinds()},
        "positions": array(ref("Position")),
        "students": array(ref("Advising")),
        "advisors": array(ref("Advising")),
        "publications": array(ref("ProfilePublication")),
    }
    return strict(properties, "A whole profile, as the caller may see it on the profile page.")


def _list(item: str) -> dict[str, Any]:
    return strict(
        {
            "items": array(ref(item)),
            "page": {"type": "integer", "minimum": 1},
            "per_page": {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE},
            "pages": {"type": "integer", "minimum": 1},
            "total": {"type": "integer", "minimum": 0},
            "links": ref("PageLinks"),
        }
    )


#: What each list reads from the query string besides its paging (:class:`Paging`): the
#: document lists these parameters with their schemas, and the API's views read the query
#: string with the same classes, checking each value against the same schema.
LIST_FILTERS: dict[str, type[Filters]] = {
    "/people": PeopleQuery,
    "/positions": RecruitingFilters,
    "/publications": PublicationSearch,
    "/areas": Paging,
    "/alumni": alumni.AlumniFilters,
    "/alumni/summary": alumni_counts.AlumniSummaryFilters,
}

#: What each query parameter means (its schema comes from its filter class).
PARAMETER_DESCRIPTIONS = {
    "page": "Page number.",
    "advisors": (
        "Page number of the advisors' counts (the site's page size a page, at most "
        f"{MAX_PER_PAGE})."
    ),
    "per_page": f"Items per page (default: the site's page size, at most {MAX_PER_PAGE}).",
    "role": "Role category.",
    "area": (
        "Slug of a research area (see /areas); its sub-areas are included; an unknown slug is "
        "a 400 naming the parameter."
    ),
    "person": "Slug of a person; an unknown (or hidden) one is a 400 naming the parameter.",
    "unit": "Exact name of the unit (institute, group).",
    "recruiting": "Whether they have an open position.",
    "letter": (
        "The letter the listing's A-Z index files a person under (the surname's first letter,"
        " accents folded: Östberg is under O), in either case."
    ),
    "q": (
        "Words to search for (all must match; the last also as a prefix), as on the search page."
    ),
    "topic": (
        'What they work on, in words ("LLM serving", a question): people ranked by how much '
        "their interests, biography, projects, recruiting notices and papers they may be seen "
        "with match it, best first, instead of by name (docs/search.md). On /positions: the "
        "open positions of those people."
    ),
    "level": "Level recruited for.",
    "term": (
        'Intake: a season and a year, e.g. "Fall 2027", or "rolling". Gives the notices of that '
        "term and every rolling notice (rolling: those only)."
    ),
    "funded": "Whether funding is guaranteed.",
    "year": "Year.",
    "type": "Kind of publication.",
    "venue": "Part of the name or short name of the venue (any case).",
    "awards": "Whether the paper won an award.",
    "year_from": "Graduated in this year or later.",
    "year_to": "Graduated in this year or earlier; before year_from it is a 400 naming year_to.",
    "advisor": (
        "Slug of a department advisor; an unknown (or hidden) one is a 400 naming the parameter."
    ),
    "degree": "Degree.",
    "kind": "Kind of position they went to; unknown: a placement with no kind (or none).",
}

#: An empty value, ``?funded=``, is the same as leaving the parameter out.
EMPTY = {"type": "string", "maxLength": 0}


def _query(name: str, parameter: Parameter) -> dict[str, Any]:
    """A query parameter as the API reads it: valid against its schema, or empty."""
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": {"anyOf": [dict(parameter.schema), EMPTY]},
        "description": (
            f"{PARAMETER_DESCRIPTIONS[name]} An empty value is the same as leaving it out; "
            "any other value not allowed here, or the parameter given twice, is a 400 naming "
            "it."
        ),
    }


def _list_parameters(path: str) -> list[dict[str, Any]]:
    """The paging (shared components) and then the filters of the list at ``path``."""
    paging = Paging.parameters()
    parameters: list[dict[str, Any]] = [
        {"$ref": f"#/components/parameters/{name}"} for name in paging
    ]
    for name, parameter in LIST_FILTERS[path].parameters().items():
        if name in paging:
            if parameter is not paging[name]:  # a page's page number is the lists' own
                raise ValueError(f"{path}: the filter {name} is not the paging's")
            continue
        parameters.append(_query(name, parameter))
    return parameters


def _filter_parameters(path: str) -> list[dict[str, Any]]:
    """The filters of ``path`` without the paging (an answer that is not a list)."""
    paging = Paging.parameters()
    return [
        _query(name, parameter)
        for name, parameter in LIST_FILTERS[path].parameters().items()
        if name not in paging
    ]


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _get(
    summary: str, operation_id: str, response: dict[str, Any], parameters: list, *errors: str
) -> dict[str, Any]:
    responses: dict[str, Any] = {
        "200": _json(response, "OK"),
        "304": {"description": "Not modified (the ETag given in If-None-Match still matches)."},
    }
    for status in errors:
        responses[status] = {"$ref": f"#/components/responses/{status}"}
    return {
        "get": {
            "summary": summary,
            "operationId": operation_id,
            "parameters": parameters,
            "responses": responses,
        }
    }


def openapi_document(server_url: str) -> dict[str, Any]:
    """The document, with ``server_url`` (the API's root URL) as its server."""
    department = current_app.config["DIRECTORY_DEPARTMENT_NAME"]
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"{department}: faculty directory API",
            "version": "1",
            "description": (
                "Read-only access to the directory's people, open positions, publications, "
                "research areas and alumni. Answers show what the caller may see on the web pages: "
                "anonymous callers get public entries only; signed-in members (by the site's "
                "session cookie) also get members-only entries and email addresses. Lists "
                "are paginated; anonymous answers carry an ETag and may be cached."
            ),
        },
        "servers": [{"url": server_url}],
        "paths": _paths(),
        "components": _components(),
    }


def _paths() -> dict[str, Any]:
    """Every path of the API, with its parameters and answers."""
    return {
        "/": _get(
            "Links to the API's resources",
            "getIndex",
            strict(
                {
                    "openapi": URL,
                    "people": URL,
                    "positions": URL,
                    "publications": URL,
                    "areas": URL,
                    "alumni": URL,
                    "alumni_summary": URL,
                }
            ),
            [],
        ),
        "/openapi.json": _get("This document", "getOpenAPI", {"type": "object"}, []),
        "/people": _get(
            "People of the department (active members, not alumni), by sort name",
            "listPeople",
            _list("PersonSummary"),
            _list_parameters("/people"),
            "400",
        ),
        "/people/{slug}": {
            **_get(
                "One person's whole profile",
                "getPerson",
                ref("PersonDetail"),
                [
                    {
                        "name": "slug",
                        "in": "path",
                        "required": True,
                        "schema": STRING,
                    }
                ],
                "404",
            ),
        },
        "/positions": _get(
            "Open positions (recruiting notices), soonest deadline first",
            "listPositions",
            _list("Position"),
            _list_parameters("/positions"),
            "400",
        ),
        "/publications": _get(
            "Publications of the department, newest first",
            "listPublications",
            _list("Publication"),
            _list_parameters("/publications"),
            "400",
        ),
        "/areas": _get(
            "Research areas", "listAreas", _list("Area"), _list_parameters("/areas"), "400"
        ),
        "/alumni": _get(
            "Alumni: past students of the department, most recent first",
            "listAlumni",
            _list("Alumnus"),
            _list_parameters("/alumni"),
            "400",
        ),
        "/alumni/summary": _get(
            "Alumni counted per year, degree, kind of position and advisor",
            "getAlumniSummary",
            ref("AlumniSummary"),
            _filter_parameters("/alumni/summary"),
            "400",
        ),
    }


def _components() -> dict[str, Any]:
    """The shared parameters, error answers and schemas."""
    problem = {"application/problem+json": {"schema": ref("Problem")}}
    return {
        "parameters": {
            name: _query(name, parameter) for name, parameter in Paging.parameters().items()
        },
        "responses": {
            "400": {
                "description": (
                    "A parameter has a bad value, or names a research area or person that "
                    "does not exist (or that the caller may not see); `parameter` says which."
                ),
                "content": problem,
            },
            "404": {"description": "No such thing (or not visible).", "content": problem},
        },
        "schemas": _schemas(),
    }


def _schemas() -> dict[str, Any]:
    return {
        "Problem": {
            "type": "object",
            "description": "RFC 9457 problem details.",
            "properties": {
                "type": STRING,
                "title": STRING,
                "status": INTEGER,
                "detail": STRING,
                "parameter": {**STRING, "description": "The offending parameter."},
            },
            "required": ["type", "title", "status", "detail"],
            "additionalProperties": False,
        },
        "PageLinks": strict(
            {
                "self": URL,
                "first": URL,
                "last": URL,
                "next": NULLABLE_URL,
                "prev": NULLABLE_URL,
            }
        ),
        "Link": strict({"kind": STRING, "label": NULLABLE_STRING, "url": STRING}),
        "AreaRef": AREA_REF,
        "Area": strict(
            {
                "slug": STRING,
                "name": STRING,
                "description": NULLABLE_STRING,
                "parent": {**NULLABLE_STRING, "description": "Slug of the broader area."},
                "people": {**INTEGER, "description": "People listed in the area."},
                "people_url": URL,
            }
        ),
        "PersonSummary": strict(PERSON_SUMMARY),
        "PersonDetail": _person_detail(),
        "Publication": strict(PUBLICATION),
        "ProfilePublication": strict(
            {
                **PUBLICATION,
                "selected": {**BOOLEAN, "description": "Among the selected papers."},
                "section": {
                    **NULLABLE_STRING,
                    "description": "Heading the owner files it under instead of its year.",
                },
            }
        ),
        "Position": strict(POSITION),
        "Advising": ADVISING,
        "Alumnus": ALUMNUS,
        "AlumniSummary": ALUMNI_SUMMARY,
        **_entry_schemas(),
    }
