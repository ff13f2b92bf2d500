"""A person's identifiers at the bibliographic sources: ORCID iD, DBLP pid, OpenAlex author id,
Semantic Scholar author id. Each is read from what people paste (the bare id or the
source's profile URL) into one stored form, or refused with a message saying why.

Pure: no database, no network."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from directory.i18n import lazy_gettext as _l

_ORCID_RE = re.compile(r"(?:orcid\.org/)?(\d{4})-?(\d{4})-?(\d{4})-?(\d{3}[\dX])$", re.I)
# DBLP pids: "12/3456", "123/4567-1", "w/XingdaWei", "07/5016-2"; the URL adds ".html"/".xml".
_DBLP_RE = re.compile(
    r"(?:dblp\.(?:org|uni-trier\.de)/pid/)?([a-z0-9]+/[A-Za-z0-9-]+?)(?:\.(?:html|xml))?$", re.I
)
_OPENALEX_RE = re.compile(r"(?:openalex\.org/(?:authors/)?)?(A\d{4,12})$", re.I)
_S2_RE = re.compile(r"(?:semanticscholar\.org/author/(?:[^/]+/)?)?(\d{1,12})$")


class IdentifierError(ValueError):
    """A value that is not an identifier of its kind; the message says why."""


def orcid_checksum(base_digits: str) -> str:
    """The ISO 7064 mod 11-2 check character of the 15 base digits of an ORCID iD."""
    total = 0
    for digit in base_digits:
        total = (total + int(digit)) * 2
    result = (12 - total % 11) % 11
    return "X" if result == 10 else str(result)


def _bare(text: str) -> str:
    value = unquote(text.strip())
    value = re.sub(r"^https?://(www\.)?", "", value, flags=re.I)
    return value.rstrip("/")


def normalise_orcid(text: str) -> str:
    """``0000-0002-1825-0097`` from an iD or ``https://orcid.org/…``; refuses a wrong
    check digit (a typo in any one digit, or two swapped, is caught)."""
    found = _ORCID_RE.match(_bare(text))
    if found is None:
        raise IdentifierError(
            _l("An ORCID iD is 16 digits in four groups, e.g. 0000-0002-1825-0097.")
        )
    groups = [g.upper() for g in found.groups()]
    digits = "".join(groups)
    if orcid_checksum(digits[:15]) != digits[15]:
        raise IdentifierError(
            _l("This ORCID iD's check digit is wrong: look for a mistyped digit.")
        )
    return "-".join(groups)


def normalise_dblp(text: str) -> str:
    """A DBLP pid (``12/3456``, ``w/XingdaWei``) from itself or its dblp.org/pid URL."""
    found = _DBLP_RE.match(_bare(text))
    if found is None:
        raise IdentifierError(_l("A DBLP pid looks like 12/3456 (the part after dblp.org/pid/)."))
    return found.group(1)


def normalise_openalex(text: str) -> str:
    """An OpenAlex author id (``A5023888391``) from itself or its openalex.org URL."""
    found = _OPENALEX_RE.match(_bare(text))
    if found is None:
        raise IdentifierError(
            _l("An OpenAlex author id is A followed by digits, e.g. A5023888391.")
        )
    return "A" + found.group(1)[1:]


def normalise_semantic_scholar(text: str) -> str:
    """A Semantic Scholar author id (digits) from itself or its semanticscholar.org URL."""
    found = _S2_RE.match(_bare(text))
    if found is None:
        raise IdentifierError(_l("A Semantic Scholar author id is a number, e.g. 1741101."))
    return found.group(1)


@dataclass(frozen=True)
class IdentifierScheme:
    """One kind of person identifier: its document key, the Person column, its reader, its
    public URL."""

    key: str
    column: str
    label: str
    normalise: object
    url: str


#: Every person identifier, in the document's order ("identifiers": {key: value}).
PERSON_IDENTIFIERS = (
    IdentifierScheme("orcid", "orcid", _l("ORCID iD"), normalise_orcid, "https://orcid.org/{}"),
    IdentifierScheme("dblp", "dblp_pid", _l("DBLP pid"), normalise_dblp, "https://dblp.org/pid/{}.html"),
    IdentifierScheme("openalex", "openalex_id", _l("OpenAlex author id"), normalise_openalex,
                     "https://openalex.org/authors/{}"),
    IdentifierScheme("semantic_scholar", "semantic_scholar_id", _l("Semantic Scholar author id"),
                     normalise_semantic_scholar, "https://www.semanticscholar.org/author/{}"),
)  # fmt: skip
IDENTIFIER_SCHEMES = {scheme.key: scheme for scheme in PERSON_IDENTIFIERS}


def normalise_identifier(key: str, text: str | None) -> str | None:
    """The stored form of ``text`` as identifier ``key`` (None when empty); raises
    :class:`IdentifierError`."""
    if text is None or not str(text).strip():
        return None
    return IDENTIFIER_SCHEMES[key].normalise(str(text))  # type: ignore[operator]
