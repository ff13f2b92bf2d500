"""Content-Security-Policy text: a policy with a per-response nonce added, and the inline code
of a page that such a policy would block (for ``flask directory check``).

A nonce (``'nonce-…'`` in ``script-src`` and ``style-src``) lets the ``<script>`` and
``<style>`` elements that carry it run under a strict policy, one response at a time; an
inline event handler (``onclick=``) or a ``javascript:`` URL never runs under it."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser

#: The directives a nonce is added to.
NONCE_DIRECTIVES = ("script-src", "style-src")


def policy_with_nonce(policy: str, nonce: str) -> str:
    """``policy`` with ``'nonce-<nonce>'`` in script-src and style-src (each made from
    default-src, or ``'self'``, where the policy has none)."""
    directives = [part.strip() for part in policy.split(";") if part.strip()]
    names = [part.split()[0].lower() for part in directives]
    default = next(
        (part.split()[1:] for part in directives if part.split()[0].lower() == "default-src"),
        ["'self'"],
    )
    source = f"'nonce-{nonce}'"
    for name in NONCE_DIRECTIVES:
        if name in names:
            i = names.index(name)
            if source not in directives[i].split():
                directives[i] = f"{directives[i]} {source}"
        else:
            directives.append(" ".join([name, *default, source]))
    return "; ".join(directives)


@dataclass(frozen=True)
class InlineCode:
    """A piece of a page's inline code that a policy without 'unsafe-inline' blocks unless it
    carries the response's nonce (``what``: "<script>", "<style>", "onclick=" ...)."""

    what: str
    line: int
    nonce: str | None


class _Scanner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[InlineCode] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        line = self.getpos()[0]
        if tag in ("script", "style") and not (tag == "script" and values.get("src")):
            kind = (values.get("type") or "").lower()
            if tag == "script" and kind and "javascript" not in kind and kind != "module":
                return  # data (application/ld+json, a template), never run
            self.found.append(InlineCode(f"<{tag}>", line, values.get("nonce")))
        for name, _value in attrs:
            if name.startswith("on"):
                self.found.append(InlineCode(f"{name}=", line, None))


def inline_code(html: str) -> list[InlineCode]:
    """The inline ``<script>``/``<style>`` elements and event-handler attributes of ``html``,
    in the order they stand."""
    scanner = _Scanner()
    scanner.feed(html)
    scanner.close()
    return scanner.found


def blocked_inline_code(html: str, nonce: str | None) -> list[InlineCode]:
    """What of ``html``'s inline code a strict policy with ``nonce`` (None: no nonce) would
    block: anything without that nonce, and every event handler."""
    return [code for code in inline_code(html) if nonce is None or code.nonce != nonce]


def inline_allowed(policy: str, what: str) -> bool:
    """Whether ``policy`` lets inline code of this kind (``what`` from :class:`InlineCode`)
    run without a nonce: its directive (or default-src) has 'unsafe-inline' and no nonce (a
    nonce makes browsers ignore 'unsafe-inline'). No policy allows everything."""
    if not policy.strip():
        return True
    directive = "style-src" if what == "<style>" else "script-src"
    sources: dict[str, list[str]] = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            sources[words[0].lower()] = words[1:]
    given = sources.get(directive, sources.get("default-src", []))
    if any(word.startswith("'nonce-") for word in given):
        return False
    return "'unsafe-inline'" in given
