"""The directory's interface in the reader's language (Flask-Babel).

The plugin's messages live in their own gettext domain, ``directory``, in
``directory/translations/<locale>/LC_MESSAGES/directory.mo``, so that they never collide with
the host's catalogue (Flask-Babel's default domain, ``messages``):

- Python code marks a message with :func:`gettext` (``_``), :func:`ngettext` or, for a string
  built before any request (form labels, vocabularies), :func:`lazy_gettext`;
- templates use ``_()``, ``gettext`` and ``{% trans %}``: in the directory's templates (under
  ``directory/``, e-mails included) they look a message up in the directory's catalogue first
  and then in the host's; in the host's templates (its pages, its layout around a directory
  page) they are Flask-Babel's own.

Who decides the language: a host that initialised Flask-Babel before ``Directory(app)`` keeps
its locale selector (the directory shows the closest of DIRECTORY_LANGUAGES, else the first).
Otherwise the directory initialises Flask-Babel itself and chooses: ``?lang=``, then the
language remembered in a cookie from an earlier ``?lang=``, then ``Accept-Language``, then the
first of DIRECTORY_LANGUAGES. Outside a request (the command line), the environment's
``LANGUAGE``/``LC_ALL``/``LC_MESSAGES``/``LANG`` choose, as for any gettext program.

Catalogues are read once per process and locale; a request only looks its locale up.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import flask_babel
from babel import Locale, UnknownLocaleError
from babel import default_locale as environment_locale
from babel.core import get_global
from babel.dates import format_date as babel_format_date
from babel.dates import format_skeleton, format_time
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations
from flask import Flask, current_app, g, has_app_context, has_request_context, request
from flask_babel.speaklater import LazyString
from jinja2 import pass_context
from markupsafe import Markup

from directory.models.entries import TERM_SEASONS

#: Where the directory's compiled catalogues are, one folder per locale.
TRANSLATIONS = Path(__file__).resolve().parent / "translations"

#: The gettext domain of the directory's messages (its .po/.mo files are called so).
DOMAIN = "directory"

#: The cookie that remembers a language chosen with ``?lang=`` (standalone sites only).
COOKIE = "directory_language"

#: Languages the interface is written in without a catalogue.
SOURCE_LANGUAGE = "en"

_catalogues: dict[str, NullTranslations] = {}


# ----------------------------------------------------------------------------- the catalogue


def catalogue(locale: str) -> NullTranslations:
    """The directory's translations for ``locale``, read once per process."""
    try:
        return _catalogues[locale]
    except KeyError:
        loaded = Translations.load(str(TRANSLATIONS), [locale], DOMAIN)
        _catalogues[locale] = loaded
        return loaded


def available_locales() -> list[str]:
    """The locales a catalogue ships for, plus the source language."""
    shipped = sorted(
        path.parent.parent.name for path in TRANSLATIONS.glob(f"*/LC_MESSAGES/{DOMAIN}.mo")
    )
    return [SOURCE_LANGUAGE, *shipped]


def gettext(string: str, **variables: Any) -> str:
    """``string`` in the current language, ``%(name)s`` replaced by ``variables``."""
    translated = catalogue(current_locale()).gettext(string)
    return translated % variables if variables else translated


_ = gettext


def ngettext(singular: str, plural: str, num: int, **variables: Any) -> str:
    """The singular or plural form for ``num`` in the current language (``%(num)s`` is
    ``num`` formatted for the locale)."""
    variables.setdefault("num", format_number(num))
    translated = catalogue(current_locale()).ngettext(singular, plural, num)
    return translated % variables


def lazy_gettext(string: str, **variables: Any) -> LazyString:
    """A message translated when it is shown (class-level form labels, module constants)."""
    return LazyString(gettext, string, **variables)


def translate(text: str | None) -> str:
    """A message marked elsewhere (``N_`` in the vocabularies) in the current language."""
    return gettext(text) if text else ""


# ----------------------------------------------------------------------------- the locale


def _script(tag: str) -> tuple[str, str | None]:
    """(language, script) of a locale identifier, the script filled in from CLDR's likely
    subtags: "zh_CN" and "zh" are ("zh", "Hans"), "zh_TW" is ("zh", "Hant")."""
    try:
        locale = Locale.parse(tag.replace("-", "_"))
    except (ValueError, TypeError, UnknownLocaleError):
        return tag.split("_")[0].split("-")[0].lower(), None
    script = locale.script
    if not script:
        likely = get_global("likely_subtags")
        full = likely.get(f"{locale.language}_{locale.territory}") or likely.get(locale.language)
        script = full.split("_")[1] if full and full.count("_") >= 2 else None
    return locale.language, script


def match_language(tag: str | None, languages: list[str]) -> str | None:
    """The entry of ``languages`` that serves a reader asking for ``tag`` (a BCP 47 tag such
    as "zh-CN" or a locale identifier such as "zh_Hans_CN"), or ``None``."""
    if not tag:
        return None
    normal = tag.replace("-", "_")
    for language in languages:
        if language.lower() == normal.lower():
            return language
    wanted = _script(normal)
    for language in languages:
        if _script(language) == wanted:
            return language
    if wanted[1] is None:  # a bare language with no likely script: any variant of it
        for language in languages:
            if _script(language)[0] == wanted[0]:
                return language
    return None


def languages() -> list[str]:
    """DIRECTORY_LANGUAGES of the current app."""
    return list(current_app.config["DIRECTORY_LANGUAGES"])


def owns_babel(app: Flask) -> bool:
    """Whether the directory initialised Flask-Babel (a standalone site) rather than the host."""
    babel = app.extensions.get("babel")
    return babel is not None and babel.locale_selector is select_locale


def select_locale() -> str | None:
    """The locale selector the directory gives Flask-Babel on a standalone site."""
    choice = languages()
    if not has_request_context():
        return command_line_locale()
    asked = match_language(request.args.get("lang"), choice)
    if asked:
        return asked
    remembered = match_language(request.cookies.get(COOKIE), choice)
    if remembered:
        return remembered
    for tag, _quality in request.accept_languages:
        found = match_language(tag, choice)
        if found:
            return found
    return choice[0]


def command_line_locale() -> str:
    """The locale outside a request: the environment's (LANGUAGE, LC_ALL, LC_MESSAGES,
    LANG), the closest of DIRECTORY_LANGUAGES, else the first."""
    choice = languages()
    return match_language(environment_locale("LC_MESSAGES"), choice) or choice[0]


def current_locale() -> str:
    """The locale the directory speaks now: one of DIRECTORY_LANGUAGES.

    In a request, Flask-Babel's locale (the host's selector, or :func:`select_locale`).
    Outside one (the command line, a worker), the environment's, never the host's selector:
    a host's selector may read ``request``, ``g``, ``session`` or the signed-in user, which
    only its own requests have. The choice is pinned for Flask-Babel too (its ``get_locale``
    and ``get_translations`` in the same application context, and so in a request the
    command makes in that context, read it and call no selector)."""
    if not has_app_context():
        return SOURCE_LANGUAGE
    cached = g.get("_directory_locale")
    if cached:
        return cached
    if not has_request_context():
        chosen = command_line_locale()
        if g.get("babel_locale") is None:
            g.babel_locale = Locale.parse(chosen)
    elif "babel" in current_app.extensions:
        chosen = match_language(str(flask_babel.get_locale()), languages()) or languages()[0]
    else:  # Flask-Babel not (yet) initialised
        chosen = languages()[0]
    g._directory_locale = chosen
    return chosen


@contextmanager
def command_request_context(app: Flask, **options: Any) -> Iterator[None]:
    """``app.test_request_context(**options)`` for work a command does as if in a request
    (building URLs, rendering a page): in the command's locale, never the host's selector,
    which would read a request the host never saw."""
    current_locale()
    with app.test_request_context(**options):
        yield


#: What a request keeps of its locale (``g``'s names): set anew inside :func:`force_locale`.
_PER_LOCALE = ("_directory_locale", "_directory_lookup", "_directory_markup_gettext")


@contextmanager
def force_locale(locale: str) -> Iterator[None]:
    """Speak ``locale`` (one of DIRECTORY_LANGUAGES, else the closest, else the first) inside
    the block, e.g. for a message to someone else than the reader, then the reader's again."""
    chosen = match_language(locale, languages()) or languages()[0]
    saved = {key: g.get(key) for key in _PER_LOCALE}
    g._directory_locale, g._directory_lookup, g._directory_markup_gettext = chosen, None, None
    try:
        with flask_babel.force_locale(chosen):
            yield
    finally:
        for key, value in saved.items():
            setattr(g, key, value)


def html_lang(locale: str | None = None) -> str:
    """The BCP 47 tag of ``locale`` (default: the current one) for ``lang`` and ``hreflang``:
    "zh_Hans" is "zh-Hans"."""
    return (locale or current_locale()).replace("_", "-")


#: Names a language switch shows where CLDR's display name is not what readers look for.
NATIVE_LANGUAGE_NAMES = {"zh_Hans": "简体中文", "zh_Hant": "繁體中文"}


def language_name(locale: str) -> str:
    """A language's name in that language ("English", "简体中文")."""
    if locale in NATIVE_LANGUAGE_NAMES:
        return NATIVE_LANGUAGE_NAMES[locale]
    try:
        return Locale.parse(locale).get_display_name() or locale
    except (ValueError, UnknownLocaleError):
        return locale


def department_name() -> str:
    """The department's name in the current language (DIRECTORY_DEPARTMENT_NAMES), else
    DIRECTORY_DEPARTMENT_NAME."""
    config = current_app.config
    return (
        config["DIRECTORY_DEPARTMENT_NAMES"].get(current_locale())
        or config["DIRECTORY_DEPARTMENT_NAME"]
    )


def term_label(obj: Any) -> str:
    """An intake in the current language ("Fall 2026" is "2026年秋季"): a Term, or a notice
    (its intake, else the text its owner typed, as written)."""
    term = getattr(obj, "intake", obj)
    if term is None:
        return (getattr(obj, "term", None) or "").strip()
    if term.rolling:
        return translate(term.label)
    season = dict(TERM_SEASONS).get(term.season, term.season or "")
    return gettext("%(season)s %(year)s", season=translate(season), year=term.year)


# ----------------------------------------------------------------------------- formatting


def format_number(number: int | float | None) -> str:
    """A number written for the current locale ("12,345")."""
    return "" if number is None else format_decimal(number, locale=current_locale())


def format_long_date(day: date | None) -> str:
    """A day in words for the current locale ("March 7, 2026", "2026年3月7日")."""
    if not day:
        return ""
    return _long_date(day, current_locale())


@lru_cache(maxsize=4096)
def _long_date(day: date, locale: str) -> str:
    return babel_format_date(day, format="long", locale=locale)


def format_short_date(day: date | datetime | None) -> str:
    """A day, abbreviated ("Mar 7, 2026", "2026年3月7日")."""
    if not day:
        return ""
    return babel_format_date(day, format="medium", locale=current_locale())


def format_timestamp(moment: datetime | None) -> str:
    """A moment to the minute, in UTC ("Mar 7, 2026, 14:05 UTC")."""
    if not moment:
        return ""
    locale = current_locale()
    day = babel_format_date(moment, format="medium", locale=locale)
    text = f"{day} {format_time(moment, 'HH:mm', locale=locale)}"
    return gettext("%(moment)s UTC", moment=text)


def format_month_year(year: int | None, month: int | None = None) -> str:
    """ "Aug 2024" ("2024年8月"), or the year alone."""
    if not year:
        return ""
    if month and 1 <= month <= 12:
        return _month_year(year, month, current_locale())
    return str(year)


@lru_cache(maxsize=4096)
def _month_year(year: int, month: int, locale: str) -> str:
    return format_skeleton("yMMM", date(year, month, 1), locale=locale)


# ----------------------------------------------------------------------------- names


#: Scripts whose names a locale of that language shows first, by the first letter's
#: Unicode name.
_SCRIPT_LANGUAGES = {"CJK": "zh", "HIRAGANA": "ja", "KATAKANA": "ja", "HANGUL": "ko"}


def script_language(text: str | None) -> str | None:
    """The language a name in another script is written in, by its first letter ("魏星达" is
    "zh"), or ``None`` when its script is none of the known ones."""
    for char in text or "":
        if char.isalpha():
            first = unicodedata.name(char, "").split(" ")[0]
            return _SCRIPT_LANGUAGES.get(first)
    return None


def name_parts(full_name: str, native_name: str | None) -> list[tuple[str, str | None]]:
    """The names of a person in the order the current locale shows them, each with its
    language tag (``None``: the page's): on a zh page a Han native name comes first."""
    if not native_name:
        return [(full_name, None)]
    native_language = script_language(native_name)
    native = (native_name, native_language)
    if native_language and native_language == current_locale().split("_")[0]:
        return [native, (full_name, "en")]
    return [(full_name, None), native]


# ----------------------------------------------------------------------------- Jinja


def _lookup() -> tuple[dict, NullTranslations, NullTranslations, dict]:
    """(the directory's messages, its catalogue, the host's catalogue, the texts of templates'
    gettext calls without variables already made) in the current locale, worked out once per
    request (templates call gettext hundreds of times a page)."""
    cached = g.get("_directory_lookup") if has_app_context() else None
    if cached is not None:
        return cached
    ours = catalogue(current_locale())
    found = (getattr(ours, "_catalog", {}), ours, flask_babel.get_translations(), {})
    if has_app_context():
        g._directory_lookup = found
    return found


def _directory_template(context: Any) -> bool:
    """Whether a template of the directory is being rendered (its own pages, macros and
    e-mails, or a host's override of one, all under ``directory/``), not one of the host's."""
    return (context.name or "").startswith("directory/")


@pass_context
def _template_gettext(context: Any, string: str) -> str:
    """Templates' gettext: in the directory's templates its catalogue, then the host's
    (Flask-Babel's domain); in the host's templates the host's alone."""
    messages, _ours, host, _texts = _lookup()
    found = messages.get(string) if _directory_template(context) else None
    return found if found is not None else host.gettext(string)


@pass_context
def _newstyle_gettext(context: Any, string: str, **variables: Any) -> str:
    """What Jinja's newstyle gettext makes of :func:`_template_gettext` (the translation,
    Markup when autoescaping, formatted with ``variables``), the same text; the translation
    is looked up once per request and text, and a call without variables made once (a
    citation asks for "and", "Abstract", "Bib"… once per paper, the editor for "Move up:
    %(entry)s" once per entry: a page, some five hundred times)."""
    texts = _lookup()[3]
    key = (string, _directory_template(context), context.eval_ctx.autoescape, bool(variables))
    found = texts.get(key)
    if found is None:
        text = _newstyle_text(context, string)
        # As Jinja's newstyle gettext: always a format string, with or without variables
        # (kept as one when it has them, else formatted once).
        found = texts[key] = text if variables else text % variables
    return found % variables if variables else found


def _newstyle_text(context: Any, string: str) -> str:
    """The translation of ``string`` as a format string (Markup when autoescaping)."""
    text = _template_gettext(context, string)
    if context.eval_ctx.autoescape:
        text = Markup(text)  # noqa: S704 - a translation, trusted as Jinja trusts it
    return text


@pass_context
def _newstyle_alias(context: Any, *args: Any, **kwargs: Any) -> Any:
    """Templates' ``_()``: the context's gettext, called at once when it is the one above."""
    gettext = context.resolve("gettext")
    if gettext is _newstyle_gettext:
        return _newstyle_gettext(context, *args, **kwargs)
    return context.call(gettext, *args, **kwargs)


@pass_context
def _template_ngettext(context: Any, singular: str, plural: str, num: int) -> str:
    return _plural_text(singular, plural, num, _directory_template(context))


def _plural_text(singular: str, plural: str, num: int, directory: bool) -> str:
    messages, ours, host, _texts = _lookup()
    if directory and (singular, 0) in messages:
        return ours.ngettext(singular, plural, num)
    return host.ngettext(singular, plural, num)


def markup_gettext(string: str, **variables: Any) -> Markup:
    """What ``{{ _(string) }}`` or ``{% trans %}`` prints in one of the directory's templates,
    for HTML written in Python (:mod:`directory.web.citation_html`): the same translation,
    trusted as the template trusts it, with ``variables`` escaped into it."""
    return markup_translator()(string, **variables)


def markup_translator() -> Callable[..., Markup]:
    """:func:`markup_gettext` for the current request, its texts looked up once per request
    and text, as the templates' own (a page of citations asks for "and", "Abstract"… a few
    hundred times: take it once, name it ``_``, and call it)."""
    found = g.get("_directory_markup_gettext") if has_app_context() else None
    if found is not None:
        return found
    messages, _ours, host, texts = _lookup()

    def translated(string: str, **variables: Any) -> Markup:
        key = (string, True, True, bool(variables))
        text = texts.get(key)
        if text is None:
            found = messages.get(string)
            text = Markup(found if found is not None else host.gettext(string))  # noqa: S704
            text = texts[key] = text if variables else text % variables
        return text % variables if variables else text

    if has_app_context():
        g._directory_markup_gettext = translated
    return translated


def markup_ngettext(singular: str, plural: str, num: int, **variables: Any) -> Markup:
    """What ``{% trans count=num %}…{% pluralize %}…{% endtrans %}`` prints in one of the
    directory's templates (:func:`markup_gettext`'s plural)."""
    text = Markup(_plural_text(singular, plural, num, True))  # noqa: S704 - a translation
    return text % {"num": num, **variables}


def _template_pgettext(context: str, string: str) -> str:
    return flask_babel.get_translations().pgettext(context, string)


def _template_npgettext(context: str, singular: str, plural: str, num: int) -> str:
    return flask_babel.get_translations().npgettext(context, singular, plural, num)


def install_jinja(app: Flask) -> None:
    """Give the app's templates the directory-aware gettext callables (newstyle, as
    Flask-Babel installs them). Called at start-up and again on the first request, in case the
    host initialised Flask-Babel after the directory and replaced them."""
    env = app.jinja_env
    env.add_extension("jinja2.ext.i18n")
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=_template_gettext,
        ngettext=_template_ngettext,
        pgettext=_template_pgettext,
        npgettext=_template_npgettext,
        newstyle=True,
    )
    # Jinja's newstyle wrapper of gettext, made once per request and text (see above).
    env.globals.update(gettext=_newstyle_gettext, _=_newstyle_alias)
    app.extensions["directory"].jinja_gettext = env.globals["gettext"]


def jinja_installed(app: Flask) -> bool:
    return app.jinja_env.globals.get("gettext") is app.extensions["directory"].jinja_gettext


def init_app(app: Flask) -> None:
    """Initialise Flask-Babel unless the host did, and install the template callables."""
    if "babel" not in app.extensions:
        flask_babel.Babel(app, locale_selector=select_locale)
    install_jinja(app)


def language_links() -> list[dict[str, Any]]:
    """The language switch of a standalone page: each of DIRECTORY_LANGUAGES with the current
    page's address in it. Empty where the host chooses the language, or with one language."""
    if not has_request_context() or not owns_babel(current_app):
        return []
    choice = languages()
    if len(choice) < 2:
        return []
    current = current_locale()
    return [
        {
            "code": language,
            "tag": html_lang(language),
            "name": language_name(language),
            "url": _page_url(language),
            "current": language == current,
        }
        for language in choice
    ]


def _page_url(language: str | None) -> str:
    """This page's address with ``?lang=language`` (``None``: without any)."""
    # Page 1 is the page without a page argument (as the pagination links write it).
    args = {
        key: values
        for key, values in request.args.lists()
        if key != "lang" and not (key == "page" and values == ["1"])
    }
    if language:
        args["lang"] = [language]
    query = "&".join(
        f"{_quote(key)}={_quote(value)}" for key, values in args.items() for value in values
    )
    return f"{request.script_root}{request.path}" + (f"?{query}" if query else "")


def default_language_url() -> str:
    """This page's address without ``?lang=``: the one that follows the reader's browser
    (``hreflang="x-default"``)."""
    return _page_url(None)


def _quote(text: str) -> str:
    return quote(text, safe="")


def html_name(full_name: str, native_name: str | None) -> Markup:
    """A person's names for a page: the locale's first, the other beside it in a
    ``native-name`` span, each marked with its language where it differs from the page's."""
    parts = name_parts(full_name, native_name)
    out = []
    for i, (text, lang) in enumerate(parts):
        attrs = Markup(' lang="{}"').format(lang) if lang else Markup("")
        if i == 0:
            out.append(Markup("<span{}>{}</span>").format(attrs, text) if lang else text)
        else:
            out.append(Markup('<span class="native-name"{}>{}</span>').format(attrs, text))
    return Markup(" ").join(out)
