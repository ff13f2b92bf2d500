"""schema.org JSON-LD for directory pages. Only public facts go in (never the email), and the
JSON is escaped for safe embedding inside a <script> element."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from flask import current_app, url_for
from markupsafe import Markup

from directory import models as m
from directory.web.views.common import item_url


def _dump(data: dict[str, Any]) -> Markup:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # "</script>" and "<!--" inside a string must not end the element.
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)  # noqa: S704 - escaped above


#: Words in an organisation's name that say what it is, most telling first.
_ORGANIZATION_WORDS = (
    ("CollegeOrUniversity", re.compile(r"universit|college|école|ecole|universidad|universität|"
     r"institute of technology|polytechnic|\bETH\b|\bEPFL\b|\bMIT\b", re.IGNORECASE)),
    ("ResearchOrganization", re.compile(r"research|laborator|\blabs?\b|institut|\bcentre\b|"
     r"\bcenter\b|academy|akademie", re.IGNORECASE)),
    ("Corporation", re.compile(r"\b(inc|corp|corporation|ltd|llc|gmbh|co\.|company|technologies)\b",
     re.IGNORECASE)),
)  # fmt: skip


def organization_type(name: str | None) -> str:
    """The schema.org type of an organisation, from its name ("Duke University" a
    CollegeOrUniversity, "NVIDIA Research" a ResearchOrganization, "Acme Inc." a Corporation);
    the department's own institution has the type DIRECTORY_INSTITUTION_TYPE."""
    config = current_app.config
    if not name or name == config["DIRECTORY_INSTITUTION_NAME"]:
        return config["DIRECTORY_INSTITUTION_TYPE"]
    for kind, pattern in _ORGANIZATION_WORDS:
        if pattern.search(name):
            return kind
    return "Organization"


def organization(name: str) -> dict[str, Any]:
    return {"@type": organization_type(name), "name": name}


def _institution(name: str | None) -> dict[str, Any]:
    return organization(name or current_app.config["DIRECTORY_INSTITUTION_NAME"])


def zoned(moment: datetime | None) -> str | None:
    """An ISO 8601 time with its zone (stored times without one are UTC)."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


def person_data(person: m.Person, education: list[m.Education] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "@type": "Person",
        "name": person.full_name,
        "url": item_url("directory.profile", "slug", person.slug, external=True),
    }
    if person.native_name:
        data["alternateName"] = person.native_name
    if person.title:
        data["jobTitle"] = person.title
    institution = _institution(person.institution)
    unit = person.unit or (
        current_app.config["DIRECTORY_DEPARTMENT_NAME"] if not person.institution else None
    )
    # The unit is part of the institution; a person with no unit works for the institution.
    works_for = (
        {"@type": "Organization", "name": unit, "parentOrganization": institution}
        if unit
        else institution
    )
    data["affiliation"] = works_for
    data["worksFor"] = works_for
    if person.title:
        data["hasOccupation"] = {"@type": "Occupation", "name": person.title}
    if education:
        schools = list(dict.fromkeys(e.institution for e in education if e.institution))
        data["alumniOf"] = [organization(name) for name in schools]
    if person.areas:
        data["knowsAbout"] = [area.name for area in person.areas]
    same_as = [link.url for link in person.links]
    if same_as:
        data["sameAs"] = same_as
    if person.photo is not None and person.visibility == "public":
        data["image"] = item_url("directory.photo", "slug", person.slug, external=True)
    return data


def scholarly_article(
    data: dict[str, Any], url: str, author_urls: list[str | None] | None = None
) -> dict[str, Any]:
    """A paper as a schema.org ScholarlyArticle, from its interchange dict; ``author_urls``
    gives, in author order, the profile address of each author the viewer may see."""
    urls = author_urls or []
    authors = []
    editors = []
    for i, author in enumerate(data.get("authors") or []):
        item = _contributor(author, urls[i] if i < len(urls) else None)
        (editors if author.get("role") == "editor" else authors).append(item)
    article: dict[str, Any] = {"@type": "ScholarlyArticle", "@id": url, "url": url,
                               "headline": data["title"][:110], "name": data["title"]}  # fmt: skip
    if authors:
        article["author"] = authors
    if editors:
        article["editor"] = editors
    if data.get("year"):
        article["datePublished"] = _year_month(data["year"], data.get("month"))
    if data.get("abstract"):
        article["abstract"] = data["abstract"]
    _add_venue(article, data)
    if data.get("pages"):
        article["pagination"] = data["pages"]
    if data.get("publisher"):
        article["publisher"] = organization(data["publisher"])
    if data.get("doi"):
        article["identifier"] = {"@type": "PropertyValue", "propertyID": "DOI",
                                 "value": data["doi"]}  # fmt: skip
    same_as = _same_as(data)
    if same_as:
        article["sameAs"] = same_as
    if data.get("awards"):
        article["award"] = list(data["awards"])
    if data.get("labels"):
        article["keywords"] = list(data["labels"])
    if data.get("status") and data["status"] != "published":
        article["creativeWorkStatus"] = data["status"].replace("_", " ")
    return article


def _contributor(author: dict[str, Any], url: str | None) -> dict[str, Any]:
    """An author or editor as a Person (with family and given name) or an Organization."""
    # A family name alone of several words is an organisation ("LaTeX3 Project Team").
    organisation = bool(author.get("family")) and not (
        author.get("given") or author.get("particle") or author.get("suffix")
    ) and " " in author["family"]  # fmt: skip
    item: dict[str, Any] = {"@type": "Organization" if organisation else "Person",
                            "name": author["name"]}  # fmt: skip
    if not organisation and author.get("family"):
        family = " ".join(p for p in (author.get("particle"), author["family"]) if p)
        item["familyName"] = family
        if author.get("given"):
            item["givenName"] = author["given"]
    if url:
        item["url"] = url
    return item


def _year_month(year: int, month: int | None) -> str:
    return f"{year:04d}-{month:02d}" if month and 1 <= month <= 12 else str(year)


def _add_venue(article: dict[str, Any], data: dict[str, Any]) -> None:
    """The venue: the event a conference paper was published at, else the periodical (with
    its volume and issue) the article is part of."""
    if data.get("venue"):
        at_event = data.get("type") in ("conference", "workshop")
        venue = {"@type": "PublicationEvent" if at_event else "Periodical", "name": data["venue"]}
        article["publication" if at_event else "isPartOf"] = venue
    for key, name in (("volume", "volumeNumber"), ("number", "issueNumber")):
        if data.get(key):
            article.setdefault("isPartOf", {})[name] = str(data[key])


def _same_as(data: dict[str, Any]) -> list[str]:
    """The paper's other addresses: its DOI, its arXiv page and its absolute links, once each."""
    same_as = []
    if data.get("doi"):
        same_as.append(f"https://doi.org/{data['doi']}")
    if data.get("arxiv_id"):
        same_as.append(f"https://arxiv.org/abs/{data['arxiv_id']}")
    same_as += [link["url"] for link in data.get("links") or [] if "://" in (link["url"] or "")]
    return list(dict.fromkeys(same_as))


def paper_page_jsonld(
    data: dict[str, Any], url: str, author_urls: list[str | None], modified: datetime | None
) -> Markup:
    """A paper's own page: the ScholarlyArticle itself, with the page's canonical address."""
    article = {"@context": "https://schema.org", **scholarly_article(data, url, author_urls)}
    if modified is not None:
        article["dateModified"] = zoned(modified)
    return _dump(article)


def papers_collection_jsonld(articles: list[dict[str, Any]], name: str, url: str) -> Markup:
    """A list of papers (the department's publications page) as a CollectionPage of
    ScholarlyArticle items, in the order shown."""
    return _dump(
        {
            "@context": "https://schema.org",
            "@type": "CollectionPage",
            "name": name,
            "url": url,
            "about": _department(),
            "mainEntity": {
                "@type": "ItemList",
                "numberOfItems": len(articles),
                "itemListElement": [
                    {"@type": "ListItem", "position": i + 1, "item": article}
                    for i, article in enumerate(articles)
                ],
            },
        }
    )


def profile_page_jsonld(
    person: m.Person,
    education: list[m.Education] | None = None,
    papers: list[dict[str, Any]] | None = None,
) -> Markup:
    """A profile: the Person (with ``alumniOf`` from ``education``) and the papers the page
    shows, as ScholarlyArticle items (each a dict from :func:`scholarly_article`)."""
    entity = person_data(person, education)
    if papers:
        entity["subjectOf"] = papers
    return _dump(
        {
            "@context": "https://schema.org",
            "@type": "ProfilePage",
            "dateModified": zoned(person.updated_at),
            "mainEntity": entity,
        }
    )


def _department() -> dict[str, Any]:
    return {
        "@type": "Organization",
        "name": current_app.config["DIRECTORY_DEPARTMENT_NAME"],
        "parentOrganization": _institution(None),
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
    return _collection(page.people.items, page.area.name, url, about=about)
