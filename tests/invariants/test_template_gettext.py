"""Templates' gettext, made once per request and text (directory.i18n), says exactly what
Jinja's own newstyle wrapper of the same function says: for every message of every shipped
catalogue and of the source language, in the directory's templates and the host's, escaped and
not, with and without variables; and a forced locale is not answered from the memo."""

from __future__ import annotations

import pytest
from jinja2.ext import _make_new_gettext
from markupsafe import Markup

from directory import i18n
from directory.formats.markdown import RENDERED_TEXTS, render_markdown

ZH = {"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.5"}
#: A directory template (its catalogue first) and one of the host's (the host's alone).
TEMPLATE_NAMES = ("directory/_macros.html", "host/page.html")


def _messages() -> list[str]:
    """Every message id of the shipped catalogues that takes no plural, and a few that none
    has (the host's or nobody's)."""
    ids = set()
    for locale in i18n.available_locales():
        for key in getattr(i18n.catalogue(locale), "_catalog", {}):
            if isinstance(key, str) and key:
                ids.add(key)
    return sorted(ids | {"Not a message of the directory", "100%% & <b>bold</b>"})


@pytest.mark.parametrize("headers", [{}, ZH], ids=["en", "zh"])
def test_every_message_reads_as_jinjas_wrapper_says(app, headers) -> None:
    """In one request, so that each kind of template and escaping asks the same memo."""
    jinjas = _make_new_gettext(i18n._template_gettext)
    messages = [m for m in _messages() if "%(" not in m]  # with variables: never memoised
    assert len(messages) > 100
    with app.test_request_context("/directory/", headers=headers):
        for _round in range(2):  # the second round is answered from the memo
            for name in TEMPLATE_NAMES:
                for autoescape in (True, False):
                    template = app.jinja_env.from_string("{{ x }}")
                    template.name = name
                    context = template.new_context({})
                    context.eval_ctx.autoescape = autoescape
                    for message in messages:
                        expected = jinjas(context, message)
                        ours = i18n._newstyle_gettext(context, message)
                        assert ours == expected, (name, autoescape, message)
                        assert type(ours) is type(expected), (name, autoescape, message)


def test_variables_are_formatted_and_escaped_as_jinja_does(app) -> None:
    jinjas = _make_new_gettext(i18n._template_gettext)
    with app.test_request_context("/directory/", headers=ZH):
        template = app.jinja_env.from_string("{{ x }}")
        template.name = "directory/_macros.html"
        context = template.new_context({})
        for title in ("Plain", "<script>alert(1)</script>", "50% & more"):
            ours = i18n._newstyle_gettext(context, "Links for %(title)s", title=title)
            assert ours == jinjas(context, "Links for %(title)s", title=title)
            assert isinstance(ours, Markup) and "<script>" not in ours


def test_a_forced_locale_is_not_answered_from_the_memo(app) -> None:
    with app.test_request_context("/directory/", headers=ZH):
        template = app.jinja_env.from_string("{{ _('Recruiting') }}")
        template.name = "directory/page.html"
        assert template.render() == "招生"
        with i18n.force_locale("en"):
            assert template.render() == "Recruiting"
        assert template.render() == "招生"


def test_markdown_gives_the_same_html_for_the_same_text_and_keeps_a_bounded_number() -> None:
    render_markdown.cache_clear()
    texts = [f"Paper **{i}** & <b>not html</b>\n\n* one\n* two" for i in range(RENDERED_TEXTS + 10)]
    first = [render_markdown(text) for text in texts[:50]]
    assert "<strong>1</strong>" in first[1] and "<b>" not in first[1]
    for text in texts:
        render_markdown(text)
    assert render_markdown.cache_info().currsize == RENDERED_TEXTS
    # Rendered again (the first texts have left the memo): the same HTML.
    assert [render_markdown(text) for text in texts[:50]] == first
