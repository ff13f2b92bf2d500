"""A value as HTML text for HTML written in Python (directory/web/citation_html.py,
directory/web/notice_html.py): markupsafe's escaping, as a plain string."""

from __future__ import annotations


def html_text(value: str) -> str:
    """``value`` as HTML text: markupsafe's ``escape`` (the same five characters replaced the
    same way), as a plain string to paste into the HTML (a profile escapes some two thousand
    values, and ``escape`` makes a Markup object of each, and ``Markup.format`` goes through
    ``string.Formatter``: several times the cost); Markup as it is."""
    if hasattr(value, "__html__"):
        return value.__html__()
    return (
        value.replace("&", "&amp;")
        .replace(">", "&gt;")
        .replace("<", "&lt;")
        .replace("'", "&#39;")
        .replace('"', "&#34;")
    )
