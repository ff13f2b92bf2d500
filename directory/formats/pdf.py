"""HTML to PDF with WeasyPrint (the ``pdf`` extra, with Debian's Pango: ``make pdf-libs``).
Without it the directory works as before and only offers the printable HTML."""

from __future__ import annotations

import logging

try:  # WeasyPrint needs Pango at import time; without either, PDFs are simply not offered.
    import weasyprint
except (ImportError, OSError):  # pragma: no cover - depends on the machine
    weasyprint = None


def pdf_available() -> bool:
    """Whether PDFs can be made here."""
    return weasyprint is not None


def _data_only() -> object:
    """A URL fetcher that reads data: URLs and refuses everything else (WeasyPrint 67+ has
    URLFetcher; older releases take a function)."""
    if hasattr(weasyprint, "URLFetcher"):
        return weasyprint.URLFetcher(allowed_protocols=("data",))

    def no_fetching(url: str, *args: object, **kwargs: object) -> dict:
        if url.startswith("data:"):
            return weasyprint.default_url_fetcher(url)
        raise ValueError(f"not fetched for a PDF: {url}")

    return no_fetching


def html_to_pdf(html: str, stylesheets: list[str], base_url: str | None = None) -> bytes:
    """A PDF of ``html`` styled by ``stylesheets`` (CSS texts). Nothing outside the document
    is fetched: the page's images and styles must be inline or data URLs."""
    if weasyprint is None:
        raise RuntimeError("WeasyPrint is not installed (pip install 'faculty-directory[pdf]')")

    # WeasyPrint logs every screen-only rule it skips (media queries, overflow-x...): noise.
    log = logging.getLogger("weasyprint")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        document = weasyprint.HTML(string=html, base_url=base_url, url_fetcher=_data_only())
        return document.write_pdf(stylesheets=[weasyprint.CSS(string=c) for c in stylesheets])
    finally:
        log.setLevel(level)
