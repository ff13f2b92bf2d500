"""The recruiting notice written in Python (directory/web/notice_html.py) is the macro it
replaced, byte for byte: the macro's former Jinja is kept below and both render every shape of
notice (title or none, owner's title or none, a native name, each kind of term, funded, areas,
how to apply, each date), with hostile text in every field, in English and Chinese."""

from __future__ import annotations

import itertools
from datetime import date, datetime

import pytest
from jinja2 import ChoiceLoader, DictLoader
from markupsafe import escape

from directory import models as m
from directory.i18n import force_locale
from directory.web.notice_html import notice_html

#: ``ui.recruiting_notice`` of templates/directory/_macros.html before it printed notice_html.
FORMER_MACRO = """{% macro recruiting_notice(n, level=3) -%}
{% set owner_link %}<a href="{{ directory_profile_url(n.owner.slug) }}">{{ directory_name(n.owner.full_name, n.owner.native_name) }}</a>{% endset %}
<article class="notice" id="notice-{{ n.id }}">
  {% if n.title %}
  <h{{ level }} class="notice__title">{{ n.title }}</h{{ level }}>
  <p class="notice__owner">{{ owner_link }}{% if n.owner.title %}, {{ n.owner.title }}{% endif %}</p>
  {% else %}
  <h{{ level }} class="notice__title">{{ owner_link }}</h{{ level }}>
  {% if n.owner.title %}<p class="notice__owner">{{ n.owner.title }}</p>{% endif %}
  {% endif %}
  <ul class="notice__facts" aria-label="{{ _("About this position") }}">
    <li><span class="tag tag--level">{{ directory_label(directory_vocab.RECRUITING_LEVELS, n.level) }}</span></li>
    <li><span class="tag tag--term{% if n.is_rolling %} tag--rolling{% endif %}">{% if n.is_rolling %}{{ _("Rolling: any time") }}{% else %}{{ directory_term_label(n) }}{% endif %}</span></li>
    {% if n.funded %}<li><span class="tag tag--funded">{{ _("Funded") }}</span></li>{% endif %}
    {% for a in n.areas %}<li><a class="tag" href="{{ url_for('directory.area', slug=a.slug) }}">{{ a.name }}</a></li>{% endfor %}
  </ul>
  <div class="prose">{{ n.description | directory_markdown }}</div>
  {% if n.how_to_apply %}<div class="notice__apply"><strong>{{ _("How to apply:") }}</strong> {{ n.how_to_apply | directory_inline }}</div>{% endif %}
  <p class="notice__meta">
    {% if n.funding_note %}{% trans note=n.funding_note %}Funding: {{ note }}.{% endtrans %} {% endif %}
    {% if n.deadline %}{% trans day=directory_long_date(n.deadline) %}Apply by {{ day }}.{% endtrans %} {% endif %}
    {% if n.expires_on %}{% trans day=directory_long_date(n.expires_on) %}Listing expires on {{ day }}.{% endtrans %} {% endif %}
    {% if n.last_confirmed %}{% trans day=directory_long_date(n.last_confirmed) %}Last confirmed {{ day }}.{% endtrans %}{% else %}{% trans day=directory_long_date(n.updated_at.date()) %}Last updated {{ day }}.{% endtrans %}{% endif %}
  </p>
</article>
{%- endmacro %}"""  # noqa: E501

HOSTILE = "<x-hostile a='1' b=\"2\">&amp;"

#: Each intake a notice can have: a term, rolling, and text naming no term.
TERMS = [("fall", 2026, None), (None, None, None), (None, None, f"sometime {HOSTILE}")]


def _notice(number: int, shape: tuple) -> m.RecruitingNotice:
    """A notice (not stored) of ``shape``: which optional parts it has, hostile text in each."""
    titled, owner_titled, native, (season, year, term), funded, areas, apply, dated = shape
    owner = m.Person(
        slug=f"owner-{number}",
        full_name=f"Ada {HOSTILE}",
        native_name="王小明" if native else None,
        title=f"Professor {HOSTILE}" if owner_titled else None,
    )
    notice = m.RecruitingNotice(
        id=number,
        owner=owner,
        level=("phd", "postdoc", "intern")[number % 3],
        title=f"Join {HOSTILE}" if titled else None,
        description=f"We **work** on {HOSTILE}\n\n* one\n* two",
        how_to_apply=f"Write to [us](https://example.org) {HOSTILE}" if apply else None,
        funded=funded,
        funding_note=f"Fully {HOSTILE}" if dated else None,
        deadline=date(2026, 3, 7) if dated else None,
        expires_on=date(2026, 12, 31) if dated else None,
        last_confirmed=date(2026, 1, 2) if dated else None,
        areas=[m.ResearchArea(slug="networking", name=f"Networks {HOSTILE}"),
               m.ResearchArea(slug="a b/ü", name="Odd slug")] if areas else [],
    )  # fmt: skip
    notice.term_season, notice.term_year, notice.term = season, year, term
    notice.updated_at = datetime(2026, 2, 3, 4, 5, 6)
    return notice


#: Every combination: titled, owner titled, native name, term, funded, areas, how to apply, dates.
BOTH = [True, False]
SHAPES = list(itertools.product(BOTH, BOTH, BOTH, TERMS, BOTH, BOTH, BOTH, BOTH))


@pytest.mark.parametrize("locale", ["en", "zh_Hans"])
def test_the_notice_is_the_former_macro_byte_for_byte(app, locale) -> None:
    # Named under directory/ as the macro was: its gettext looks in the directory's catalogue.
    former_file = DictLoader({"directory/former.html": FORMER_MACRO})
    env = app.jinja_env.overlay(loader=ChoiceLoader([former_file, app.jinja_env.loader]))
    former = env.get_template("directory/former.html").module.recruiting_notice
    with app.test_request_context("/"), force_locale(locale):
        for number, shape in enumerate(SHAPES, 1):
            notice = _notice(number, shape)
            for level in (3, 2):
                assert str(notice_html(notice, level)) == str(former(notice, level)), shape


def test_the_macro_prints_it(app) -> None:
    notice = _notice(1, SHAPES[0])
    with app.test_request_context("/"), force_locale("en"):
        macro = app.jinja_env.get_template("directory/_macros.html").module.recruiting_notice
        assert str(macro(notice, 2)) == str(notice_html(notice, 2))
        assert str(macro(notice)) == str(notice_html(notice, 3))


def test_every_text_reaches_the_notice_escaped(app) -> None:
    notice = _notice(1, SHAPES[0])
    with app.test_request_context("/"), force_locale("en"):
        html = str(notice_html(notice))
    assert "<x-hostile" not in html
    for text in (notice.title, notice.owner.title, notice.funding_note, notice.areas[0].name):
        assert str(escape(text)) in html
