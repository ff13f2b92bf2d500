"""schema.org JSON-LD for directory pages. Only public facts go in (never the email), and the
JSON is escaped for safe embedding inside a <script> element."""

from __future__ import annotations

import json
from typing import Any

from flask import current_app, url_for
from markupsafe import Markup

from directory import models as m


def _dump(data: dict[str, Any]) -> Markup:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # "</script>" and "<!--" inside a string must not end the element.
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)  # noqa: S704 - escaped above


def person_data(person: m.Person) -> dict[str, Any]:
    data: dict[str, Any] = {
        "@type": "Person",
        "name": person.full_name,
        "url": url_for("directory.profile", slug=person.slug, _external=True),
    }
    if person.native_name:
        data["alternateName"] = person.native_name
    if person.title:
        data["jobTitle"] = person.title
    data["affiliation"] = {
        "@type": "Organization",
        "name": person.unit or current_app.config["DIRECTORY_DEPARTMENT_NAME"],
        "parentOrganization": {
            "@type": "CollegeOrUniversity",
            "name": person.institution or current_app.config["DIRECTORY_INSTITUTION_NAME"],
        },
    }
    if person.areas:
        data["knowsAbout"] = [area.name for area in person.areas]
    same_as = [link.url for link in person.links]
    if same_as:
        data["sameAs"] = same_as
    if person.photo is not None and person.visibility == "public":
        data["image"] = url_for("directory.photo", slug=person.slug, _external=True)
    return data


def profile_page_jsonld(person: m.Person) -> Markup:
    return _dump(
        {
            "@context": "https://schema.org",
            "@type": "ProfilePage",
            "dateModified": person.updated_at.isoformat() if person.updated_at else None,
            "mainEntity": person_data(person),
        }
    )


def _department() -> dict[str, Any]:
    return {
        "@type": "Organization",
        "name": current_app.config["DIRECTORY_DEPARTMENT_NAME"],
        "parentOrganization": {
            "@type": "CollegeOrUniversity",
            "name": current_app.config["DIRECTORY_INSTITUTION_NAME"],
        },
    }


def _collection(people: list[m.Person], name: str, url: str, **extra: Any) -> Markup:
    return _dump(
        {
            "@context": "https://schema.org",
            "@type": "CollectionPage",
            "name": name,
            "url": url,
            **extra,
            "mainEntity": {
                "@type": "ItemList",
                "numberOfItems": len(people),
                "itemListElement": [
                    {"@type": "ListItem", "position": i + 1, "item": person_data(p)}
                    for i, p in enumerate(people)
                ],
            },
        }
    )


def listing_jsonld(people: list[m.Person], name: str) -> Markup:
    """The listing as a CollectionPage of the people shown, in the order shown."""
    url = url_for("directory.index", _external=True)
    return _collection(people, name, url, about=_department())


def area_jsonld(page: Any) -> Markup:
    """A research area's page: its people, about the area."""
    url = url_for("directory.area", slug=page.area.slug, _external=True)
    about = {"@type": "Thing", "name": page.area.name}
    if page.area.description:
        about["description"] = page.area.description
    return _collection(page.people, page.area.name, url, about=about)
