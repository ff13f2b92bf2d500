"""Markdown written by profile owners, rendered safely: markdown-it-py with raw HTML off,
then nh3 (Ammonia) as a second line of defence."""

from __future__ import annotations

from functools import lru_cache

import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup

_ALLOWED_TAGS = {
    "p", "br", "em", "strong", "code", "pre", "blockquote", "ul", "ol", "li", "a",
    "h3", "h4", "h5", "h6", "hr", "table", "thead", "tbody", "tr", "th", "td", "del", "sup", "sub",
}  # fmt: skip
_ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}}


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # "js-default" is the CommonMark preset with raw HTML disabled; tables and strikethrough on.
    return MarkdownIt("js-default").enable(["table", "strikethrough"])


#: Texts whose rendering is kept (a few thousand notices, bios and award names of a
#: university, some kilobytes each at most).
RENDERED_TEXTS = 4096


@lru_cache(maxsize=RENDERED_TEXTS)
def render_markdown(text: str | None) -> Markup:
    """Render owner-written Markdown to sanitised HTML. The same text gives the same HTML, so
    it is rendered once while it stays among the last :data:`RENDERED_TEXTS` texts (a
    recruiting page renders fifty descriptions: markdown-it and nh3 were a third of its time,
    and the same notices appear again on the next request, the profiles, the area pages)."""
    if not text:
        return Markup("")
    html = _parser().render(text)
    cleaned = nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        attributes=_ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener nofollow ugc",
    )
    return Markup(cleaned)  # noqa: S704 - sanitised by nh3 just above


def render_inline(text: str | None) -> Markup:
    """Render a one-paragraph Markdown snippet without the surrounding <p>."""
    html = str(render_markdown(text)).strip()
    if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        html = html[3:-4]
    return Markup(html)  # noqa: S704 - sanitised by render_markdown
