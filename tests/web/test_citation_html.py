"""The citation HTML written in Python (directory/web/citation_html.py): every text field of a
paper and its parts reaches the page escaped, whichever branch prints it; its escaping is
markupsafe's, character for character; its texts are the templates' (translated, their
variables escaped)."""

from __future__ import annotations

import dataclasses

import pytest
from markupsafe import Markup, escape

from directory.i18n import force_locale, markup_gettext
from directory.services.shown_papers import (
    ShownAuthor,
    ShownAward,
    ShownBadge,
    ShownLink,
    ShownPaper,
    ShownPerson,
    ShownRelation,
    ShownTarget,
)
from directory.web.citation_html import _text, author_list, citation, venue_line

HOSTILE = "<x-hostile a='1' b=\"2\">&amp;"


def _fill(cls: type, **fixed: object) -> object:
    """An instance of the plain value ``cls`` with every text field hostile, but ``fixed``."""
    values = {}
    for f in dataclasses.fields(cls):
        if f.name in fixed:
            values[f.name] = fixed[f.name]
        elif f.type in ("str", "str | None"):
            values[f.name] = f"{HOSTILE}{cls.__name__}.{f.name}"
        elif f.type == "list[str]":
            values[f.name] = [f"{HOSTILE}{cls.__name__}.{f.name}"]
        elif f.type in ("bool",):
            values[f.name] = True
        elif f.type in ("int", "int | None"):
            values[f.name] = 7
        else:
            values[f.name] = [] if f.default_factory is not dataclasses.MISSING else None
    return cls(**values)


def hostile_paper() -> ShownPaper:
    """A paper whose every text field (and every part's) is hostile, in a shape that prints
    each of them: public, an author linked, an editor, a visible related version."""
    paper = _fill(ShownPaper, visibility="public", status="preprint", type="chapter", year=2020)
    person = _fill(ShownPerson, visibility="public", slug="a-person")
    author = _fill(ShownAuthor, role="author", person_id=3, person=person)
    editor = _fill(ShownAuthor, role="editor", person_id=None, person=None)
    paper.authorships = [author, editor]
    paper.links = [_fill(ShownLink, label=None, kind="code"), _fill(ShownLink)]
    paper.awards = [_fill(ShownAward)]
    paper.badges = [_fill(ShownBadge)]
    target = _fill(ShownTarget, visibility="public", uid="target")
    paper.relations = [ShownRelation("preprint", target)]
    return paper


def test_every_text_field_reaches_the_citation_escaped(app) -> None:
    paper = hostile_paper()
    with app.test_request_context("/"), force_locale("en"):
        html = str(citation(paper, None, bib=HOSTILE + "bib", id_prefix=HOSTILE + "prefix"))
        html += str(author_list(paper, None, fold=False)) + str(venue_line(paper))
    assert "<x-hostile" not in html
    # Each field's text is printed, escaped (a field missing from the page proves nothing).
    fields = [
        (cls.__name__, f.name)
        for cls in (ShownPaper, ShownAuthor, ShownPerson, ShownLink, ShownAward, ShownBadge)
        for f in dataclasses.fields(cls)
        if f.type in ("str", "str | None", "list[str]")
    ]
    shown = {(cls, name) for cls, name in fields if str(escape(f"{HOSTILE}{cls}.{name}")) in html}
    paper_fields = ("uid", "title", "venue", "volume", "number", "pages", "article")
    paper_fields += ("publisher", "location", "note", "labels", "abstract", "doi")
    printed = {("ShownPaper", name) for name in paper_fields} | {
        ("ShownAuthor", "name"),
        ("ShownLink", "url"),
        ("ShownLink", "label"),
        ("ShownBadge", "name"),
        ("ShownBadge", "issuer"),
    }
    assert printed <= shown, printed - shown
    assert str(escape(HOSTILE + "bib")) in html
    assert str(escape(HOSTILE + "prefix")) in html
    assert str(escape(f"{HOSTILE}ShownTarget.title")) in html


@pytest.mark.parametrize("low, high", [(0, 0x3000), (0xFF00, 0xFFFF)])
def test_the_escaping_is_markupsafes(low: int, high: int) -> None:
    text = "".join(chr(c) for c in range(low, high) if not 0xD800 <= c <= 0xDFFF)
    assert _text(text) == str(escape(text))
    for c in "&<>'\"":
        assert _text(f"a{c}b{c}") == str(escape(f"a{c}b{c}"))
    already = Markup("<b>kept</b>")
    assert _text(already) == "<b>kept</b>"


def test_texts_are_translated_with_their_variables_escaped(app) -> None:
    with app.test_request_context("/"):
        with force_locale("zh_Hans"):
            assert markup_gettext("Abstract") != "Abstract"
            links = markup_gettext("Links for %(title)s", title="<T>")
            assert "&lt;T&gt;" in links and "<T>" not in links
        with force_locale("en"):
            assert markup_gettext("Abstract") == "Abstract"
            # Not in any catalogue: the text itself, as a template prints it.
            assert markup_gettext("No such message 100%%") == "No such message 100%"
