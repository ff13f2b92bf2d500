"""What every harvest parser shares: reading a body as JSON or XML (a body that is not the
service's documented shape raises :class:`HarvestParseError`, which the fetching side records
in words), one page of works with the cursor or offset of the next, and small text helpers."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

from directory.formats.harvest.works import HarvestedWork

_SPACE_RE = re.compile(r"\s+")
_TAG_RE = re.compile(r"<[^>]+>")
_ISO_DATE_RE = re.compile(r"^(\d{4})(?:-(\d{2}))?")


class HarvestParseError(ValueError):
    """The body is not what the service documents (not JSON or XML, or the wrong shape)."""


@dataclass
class HarvestPage:
    """One response's works, and how to ask for the next page (``None``: this was the last)."""

    works: list[HarvestedWork] = field(default_factory=list)
    #: The cursor (OpenAlex, Crossref) or offset (arXiv, Semantic Scholar) of the next page.
    next: str | int | None = None
    #: How many works the service says the whole list has, when it says.
    total: int | None = None


def load_json(body: bytes | str, what: str) -> Any:
    """``body`` as JSON; :class:`HarvestParseError` naming ``what`` if it is not."""
    try:
        return json.loads(body)
    except (UnicodeDecodeError, ValueError) as exc:
        raise HarvestParseError(f"{what} is not JSON ({exc})") from exc


def load_json_object(body: bytes | str, what: str) -> dict[str, Any]:
    data = load_json(body, what)
    if not isinstance(data, dict):
        raise HarvestParseError(f"{what} is not a JSON object")
    return data


def load_xml(body: bytes | str, what: str) -> ET.Element:
    """``body`` as XML; a document type declaration is refused (no entity expansion from a
    remote answer), as is anything that is not well-formed."""
    head = body[:2048] if isinstance(body, bytes) else body[:2048].encode("utf-8", "replace")
    if b"<!ENTITY" in head or b"<!entity" in head:
        raise HarvestParseError(f"{what} declares XML entities, which are not read")
    try:
        return ET.fromstring(body)  # noqa: S314 - entities refused above, size capped by the fetcher
    except ET.ParseError as exc:
        raise HarvestParseError(f"{what} is not well-formed XML ({exc})") from exc


def clean(text: Any) -> str | None:
    """``text`` with its white space collapsed, or ``None`` if nothing is left."""
    if text is None:
        return None
    cleaned = _SPACE_RE.sub(" ", str(text)).strip()
    return cleaned or None


def strip_markup(text: Any) -> str | None:
    """An abstract without its JATS or HTML tags (Crossref's ``<jats:p>``)."""
    if not isinstance(text, str):
        return None
    return clean(_TAG_RE.sub(" ", text))


def iso_year_month(text: Any) -> tuple[int | None, int | None]:
    """(year, month) from ``2021-05-03``, ``2021-05`` or ``2021``."""
    match = _ISO_DATE_RE.match(str(text or "").strip())
    if match is None:
        return None, None
    month = int(match.group(2)) if match.group(2) else None
    return int(match.group(1)), month if month and 1 <= month <= 12 else None


def as_int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def first_text(value: Any) -> str | None:
    """The first string of a list (Crossref's ``title`` and ``container-title``), or a string."""
    if isinstance(value, list):
        value = next((item for item in value if isinstance(item, str) and item.strip()), None)
    return clean(value) if isinstance(value, str) else None
