"""DOIs and arXiv ids: found in what people write (a bare id, ``doi:``/``arXiv:`` strings,
URLs) and brought to one comparable form."""

from __future__ import annotations

import re
from urllib.parse import unquote

_DOI_RE = re.compile(r"10\.\d{4,9}/[^\s\"<>{}]+")
# New-style ids carry YYMM, so a month check keeps DOIs like 10.1145/1234.56789 out.
_ARXIV_NEW_RE = re.compile(r"(?<![\d.])(\d{2}(?:0[1-9]|1[0-2])\.\d{4,5})(?:v\d+)?(?!\d)")
_ARXIV_OLD_RE = re.compile(r"(?<![\w.-])([a-z][a-z-]*)((?:\.[a-z]{2})?/\d{7})(?:v\d+)?(?!\d)", re.I)
ARXIV_BARE_RE = re.compile(r"\d{4}\.\d{4,5}(?:v\d+)?")


def normalise_doi(s: str | None) -> str | None:
    """Return the bare, lower-cased DOI found in ``s`` (a DOI, ``doi:`` string or URL).

    >>> normalise_doi("https://doi.org/10.1145/ABC")
    '10.1145/abc'

    Returns ``None`` when ``s`` holds no DOI. DOIs are case-insensitive, so lower case makes
    them comparable for duplicate detection.
    """
    if not s:
        return None
    if "%" in s:
        s = unquote(s)
    m = _DOI_RE.search(s.replace("\\_", "_"))
    if m is None:
        return None
    # A DOI at the end of a sentence or in a list drags the punctuation along.
    return m.group(0).rstrip(".,;:").lower()


def normalise_arxiv(s: str | None) -> str | None:
    """Return the version-less arXiv id in ``s`` (an id, ``arXiv:`` string or arxiv.org URL).

    >>> normalise_arxiv("arXiv:2401.01234v2")
    '2401.01234'

    Old-style ids keep their subject class (``math.GT/0309136``); ``None`` if there is none.
    """
    if not s:
        return None
    m = _ARXIV_NEW_RE.search(s)
    if m is not None:
        return m.group(1)
    m = _ARXIV_OLD_RE.search(s)
    if m is not None and not m.group(1).lower().startswith(("http", "www")):
        return m.group(1).lower() + m.group(2)
    return None


def arxiv_problem(text: str) -> str | None:
    """Why ``text``, given as an arXiv id, is not one (``None``: it is). An arXiv id is new
    style, ``YYMM.NNNN`` or ``YYMM.NNNNN`` (``2401.01234``), or old style, an archive and
    ``YYMMNNN`` (``hep-th/9901001``, ``math.GT/0309136``), either with ``arXiv:``, a version
    or an arxiv.org address around it. Reference managers write other numbers there (an NIH
    manuscript number such as ``NIHMS150003``)."""
    if normalise_arxiv(text) is not None:
        return None
    return (
        f"'{text.strip()}' is not an arXiv identifier (YYMM.NNNNN, or archive/YYMMNNN as in "
        "hep-th/9901001)"
    )


def doi_problem(text: str) -> str | None:
    """Why ``text``, given as a DOI, is not one (``None``: it is): a DOI starts with ``10.``,
    a registrant code of digits, then ``/`` and the item's suffix (``10.1145/3600006``)."""
    if normalise_doi(text) is not None:
        return None
    return f"'{text.strip()}' is not a DOI (a DOI starts with 10., as in 10.1145/3600006)"


def arxiv_url(arxiv_id: str) -> str:
    return f"https://arxiv.org/abs/{arxiv_id}"
