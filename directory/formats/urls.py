"""One policy for the web addresses a profile links to, whatever they came from.

BibTeX and ORCID imports, interchange documents and forms all ask :func:`web_url`: control
and invisible characters are removed *before* the scheme is read (so ``\\x01javascript:``
is not taken for a relative path), only ``http``/``https`` addresses with a host are kept,
and a relative address (al-folio's ``pdf = {p24.pdf}``) is resolved against the site's
address when one is given. Everything refused comes back with the reason, for a message.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import urljoin, urlsplit

__all__ = ["person_link_kind", "same_address", "web_url"]

_SCHEME_RE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
#: An address that :func:`web_url` keeps as it is, known without parsing it: http or https, a
#: host name of ASCII letters, digits and hyphens (an optional port), then a path, query or
#: fragment or nothing. Most links of an import are such; ``tests/formats/test_urls.py`` checks that
#: the shortcut answers as the full parse does.
_PLAIN_WEB_URL_RE = re.compile(
    r"https?://[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::[0-9]{1,5})?(?:[/?#]|\Z)", re.IGNORECASE
)


def _visible(value: str) -> str:
    # Most addresses are printable ASCII without spaces: nothing to remove (an import checks
    # thousands of them). In ASCII, isprintable() is False for every control character and
    # every white space but the space itself.
    if value.isascii() and value.isprintable() and " " not in value:
        return value
    # Cc: control characters; Cf: invisible format characters (zero-width space, bidi...).
    return "".join(
        ch for ch in value if not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf")
    )


def web_url(value: str | None, base: str | None = None) -> tuple[str | None, str | None]:
    """``(address, None)`` for a link a page may point at, else ``(None, why not)``.

    ``base`` (``https://example.org/~me/``) resolves relative addresses; without it they
    are refused, with a reason saying how to keep them.
    """
    url = _visible(value or "")
    if not url:
        return None, "it is empty"
    if _PLAIN_WEB_URL_RE.match(url):
        return url, None
    return _parsed_web_url(url, base)


def _parsed_web_url(url: str, base: str | None) -> tuple[str | None, str | None]:
    """:func:`web_url` of a visible, non-empty ``url``, by parsing it."""
    scheme = _SCHEME_RE.match(url)
    if scheme is None and not url.startswith("//"):
        if base is None:
            return None, (
                "it is a file of your own web site, not a full address; give the site's "
                "address to keep it"
            )
        resolved, problem = web_url(base)
        if resolved is None:
            return None, f"the site's address {base!r} is not usable: {problem}"
        url = urljoin(resolved if resolved.endswith("/") else resolved + "/", url)
    elif scheme is None:
        url = "https:" + url
    try:
        parts = urlsplit(url)
    except ValueError:  # "http://[oops": a host in brackets that is no IPv6 address
        return None, "it is not a valid web address"
    if parts.scheme.lower() not in ("http", "https"):
        return None, "only web addresses (http, https) are kept"
    if not parts.netloc:
        return None, "it has no host name"
    return url, None


#: A person's link kinds known by their host (a profile's "Google Scholar", "GitHub"...).
LINK_KINDS_BY_HOST = {
    "scholar.google.com": "scholar",
    "dblp.org": "dblp",
    "dblp.uni-trier.de": "dblp",
    "orcid.org": "orcid",
    "github.com": "github",
    "linkedin.com": "linkedin",
    "www.linkedin.com": "linkedin",
}


def person_link_kind(url: str, label: str | None) -> str:
    """The kind of a person's link (``PERSON_LINK_KINDS``): by its host, else a homepage when
    it has no label of its own, a CV for a labelled CV PDF, else "other"."""
    host = urlsplit(url).hostname or ""
    kind = LINK_KINDS_BY_HOST.get(host, "homepage" if label is None else "other")
    if url.lower().endswith(".pdf") and label and "cv" in label.lower():
        kind = "cv"
    return kind


def same_address(url: str) -> str:
    """A form of ``url`` that two spellings of one address share (http or https, host case,
    a ``www.``, a trailing slash), to find a link already there."""
    try:
        parts = urlsplit(_visible(url))
    except ValueError:  # "http://[not an address": compared as it is
        return url.casefold()
    host = parts.netloc.rpartition("@")[2].lower().removeprefix("www.")  # with its port
    path = parts.path.rstrip("/")
    query = f"?{parts.query}" if parts.query else ""
    return f"{host}{path}{query}"
