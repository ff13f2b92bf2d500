"""The interface in the reader's language: every template string is marked, the shipped
Simplified Chinese catalogue holds every message, every page rendered in zh_Hans shows no
interface string left in English, and the locale follows the host, ``?lang=``, a cookie and
Accept-Language within DIRECTORY_LANGUAGES. Names in another script, sorting and the A–Z index
follow the locale."""

from __future__ import annotations

import io
import re
from datetime import date

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo, write_mo
from flask import Flask, render_template_string
from flask_babel import Babel
from sqlalchemy import select

from directory import Directory, i18n
from directory import models as m
from directory.formats.names import initial, name_sort_key
from directory.services.health import DirectoryConfigError, language_problems
from directory.services.snapshots import FIELD_LABELS, field_label
from directory.web.mails import invitation_mail
from tests.conftest import login, make_app
from tests.invariants.test_access_matrix import ROUTES as EDITING_ROUTES
from tests.invariants.test_access_matrix import (
    P,
    world,  # noqa: F401 - the editing matrix's fixture
)
from tests.support.editing import post
from tests.support.i18n import (
    CATALOGUES,
    TEMPLATES,
    extracted,
    read_text,
    shipped_catalogues,
    template_env,
    unmarked_in_python,
    unmarked_in_source,
    unmarked_text,
)
from tests.web.test_page_cache import caching  # noqa: F401 - the session app with the page cache on

ZH = {"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.5"}
TEMPLATE_FILES = sorted([*TEMPLATES.rglob("*.html"), *TEMPLATES.rglob("*.txt")])
CATALOGUE = shipped_catalogues()["zh_Hans"]


# ----------------------------------------------------------------------------- the sources


def test_the_marking_check_finds_unmarked_text() -> None:
    source = (
        '<p>Hello {{ name }}</p><p>{{ _("Marked") }}</p><img alt="A photo">'
        "{% trans %}Also marked{% endtrans %}{% if x %}In a branch{% endif %}"
        '{% macro m() %}<b>In a macro</b>{% endmacro %}&middot; <h{{ n }} title="Tip">1</h{{ n }}>'
        # Literals in expressions: shown as they are unless a gettext call wraps them; data
        # (compared, a key, a CSS class, an identifier) is no text.
        "{% for label in [(_('Marked heading'), 1), (\"Current master's students\", 2)] %}"
        "{% endfor %}{{ x or 'none: cannot be reminded' }}{{ 'Publications' if y }}"
        "{{ {'key': 'research area'}[k] }}{% if f.type == 'BooleanField' %}{% endif %}"
        "{{ d['Some key'] }}{{ m(class_='button button--small') }}{{ url_for('publications') }}"
    )
    assert unmarked_in_source(source, template_env()) == [
        "Hello", "A photo", "In a branch", "In a macro", "Tip",
        "Current master's students", "none: cannot be reminded", "Publications", "research area",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "path", TEMPLATE_FILES, ids=[str(p.relative_to(TEMPLATES)) for p in TEMPLATE_FILES]
)
def test_every_template_string_is_marked_for_translation(path) -> None:
    assert unmarked_text(path, template_env()) == [], "wrap these in _() or {% trans %}"


VIEW_FILES = sorted((TEMPLATES.parent / "directory" / "web").rglob("*.py"))


def test_the_python_marking_check_finds_unmarked_text() -> None:
    source = (
        'flash("Saved.")\nflash(_("Marked."))\nform.slug.errors = [*form.slug.errors, "Taken."]\n'
        'form.a.errors = [_("Marked.")]\ntitle = f"Person: {name}" if p else "New"\n'
        'title = _("Marked")\nflash(message)\nform.b.errors = ["-"]\n'
    )
    assert unmarked_in_python(source) == [
        "'Saved.'", "'Taken.'", "f'Person: {name}' if p else 'New'",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "path", VIEW_FILES, ids=[str(p.relative_to(TEMPLATES.parent)) for p in VIEW_FILES]
)
def test_every_view_message_is_marked_for_translation(path) -> None:
    """What a view flashes, puts into a form's errors or makes a page's title is in _()."""
    assert unmarked_in_python(path.read_text(encoding="utf-8")) == [], "wrap these in _()"


def test_the_shipped_catalogue_has_every_message_translated() -> None:
    found = extracted()
    assert len(found) > 500
    catalogue = {message.id if isinstance(message.id, str) else message.id[0]: message
                 for message in CATALOGUE if message.id}  # fmt: skip
    missing = sorted(set(found) - set(catalogue))
    assert not missing, f"run the update of docs/translating.md; missing: {missing[:10]}"
    stale = sorted(set(catalogue) - set(found))
    assert not stale, f"messages no source uses any more: {stale[:10]}"
    fuzzy = sorted(key for key, message in catalogue.items() if message.fuzzy)
    assert not fuzzy, f"fuzzy translations: {fuzzy[:10]}"
    empty = sorted(
        key
        for key, message in catalogue.items()
        if not all(message.string if isinstance(message.string, tuple) else [message.string])
    )
    assert not empty, f"untranslated: {empty[:10]}"


def test_translations_keep_every_placeholder() -> None:
    placeholder = re.compile(r"%\(\w+\)s")
    for message in CATALOGUE:
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        wanted = set(placeholder.findall(ids[-1])) - {"%(count)s"}
        for text in strings:
            assert wanted <= set(placeholder.findall(text)), (message.id, text)


def test_every_history_field_label_is_translated(app) -> None:
    """The history and the approval queue name fields by FIELD_LABELS, translated where shown:
    each label is marked for translation, so that `make messages` extracts it, and has its
    Chinese in the shipped catalogue ("Sorted as" once had neither)."""
    unmarked = sorted(set(FIELD_LABELS.values()) - set(extracted()))
    assert unmarked == [], "mark them with N_()"
    catalogue = {message.id: message.string for message in CATALOGUE if message.id}
    untranslated = sorted(label for label in FIELD_LABELS.values() if not catalogue.get(label))
    assert untranslated == [], "add them to the catalogue (docs/translating.md)"
    with app.test_request_context("/directory/", headers=ZH):
        assert i18n.translate(field_label("sort_name")) == "排序用姓名"
        assert i18n.translate(field_label("visibility")) == catalogue["Who sees this"]


def test_the_compiled_catalogue_is_the_source_compiled() -> None:
    def plain(value):
        return tuple(value) if isinstance(value, list | tuple) else value

    with (CATALOGUES / "zh_Hans" / "LC_MESSAGES" / "directory.mo").open("rb") as handle:
        compiled = {plain(msg.id): plain(msg.string) for msg in read_mo(handle) if msg.id}
    source = {plain(msg.id): plain(msg.string) for msg in CATALOGUE if msg.id}
    assert compiled == source, "run `make catalogues` (pybabel compile) after editing the .po"


# ----------------------------------------------------------------------------- every page


def _english_messages() -> tuple[set[str], list[re.Pattern]]:
    """Interface text as the English pages show it (whole messages, and the literal parts of
    messages with placeholders or markup), for messages whose translation differs."""
    whole: set[str] = set()
    parts: list[re.Pattern] = []
    for message in CATALOGUE:
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        for text in ids:
            if text in strings:
                continue
            plain = re.sub(r"<[^>]+>", "\x00", text.replace("%%", "%"))
            if "%(" not in plain and "\x00" not in plain:
                whole.add(" ".join(plain.split()))
                continue
            pieces = [p.strip() for p in re.split(r"%\(\w+\)s|\x00", plain)]
            literal = [re.escape(p) for p in pieces]
            if sum(len(re.findall(r"[A-Za-z]{2,}", p)) for p in pieces) >= 2:
                parts.append(re.compile(r"\s*.+?\s*".join(literal)))
    return whole, parts


ENGLISH_WHOLE, ENGLISH_PATTERNS = _english_messages()

#: GET pages that are not HTML for people (feeds, exports, the API, files).
NOT_PAGES = {
    "directory.static", "directory.photo", "directory.cv_pdf", "directory.sitemap_xml",
    "directory.news_feed", "directory.recruiting_feed", "directory.person_publications_bibtex",
    "directory.person_publications_csl", "directory.department_publications_bibtex",
    "directory.department_publications_csl", "directory.login", "directory.logout",
}  # fmt: skip


#: Content of the editing matrix's department that happens to read like a message.
WORLD_CONTENT = {"Older news"}


def _left_in_english(html: str) -> list[str]:
    return [
        text
        for text in read_text(html, entities=False)
        if text not in WORLD_CONTENT
        and (text in ENGLISH_WHOLE or any(p.fullmatch(text) for p in ENGLISH_PATTERNS))
    ]


def test_the_english_check_finds_english() -> None:
    assert _left_in_english("<p>Recruiting now</p><p>Apply by 7 March.</p><p>招生</p>") == [
        "Recruiting now",
        "Apply by 7 March.",
    ]


@pytest.fixture
def rich_world(db, world):  # noqa: F811 - the editing matrix's fixture, extended
    """The matrix's department plus an entry of every profile section, a notice, an alumnus
    and a paper page, with content no message could be mistaken for."""
    ada = db.scalar(select(m.Person).where(m.Person.slug == "ada-lovelace"))
    ada.native_name = "阿达"
    ada.bio = "Zq bio"
    ada.interests = "Zq interests"
    ada.last_confirmed = date(2026, 3, 7)
    area = db.get(m.ResearchArea, world["area"])
    ada.areas.append(area)
    db.add_all(
        [
            m.RecruitingNotice(owner_id=ada.id, level="phd", term="Zq 2027", description="Zq",
                               how_to_apply="Zq", deadline=date(2099, 1, 1), funded=True,
                               funding_note="Zq", areas=[area]),
            m.Education(owner_id=ada.id, degree="Zq", field="Zq", institution="Zq",
                        start_year=2010, end_year=2014, advisors="Zq", thesis="Zq"),
            m.Experience(owner_id=ada.id, kind="job", title="Zq", organisation="Zq",
                         start_year=2015, start_month=8, is_current=True, hosts="Zq"),
            m.Teaching(owner_id=ada.id, title="Zq", year=2024, role="teaching_assistant"),
            m.Service(owner_id=ada.id, kind="program_committee", venue="Zq", year=2024),
            m.Award(owner_id=ada.id, title="Zq", year=2024, giver="Zq"),
            m.Funding(owner_id=ada.id, funder="Zq", title="Zq", start_year=2020),
            m.ResearchProject(owner_id=ada.id, title="Zq", status="current"),
            m.CustomSection(owner_id=ada.id, title="Zq", body="Zq"),
        ]
    )  # fmt: skip
    # A second version of the matrix's paper, on the profile too: both pages name the relation.
    version = m.Publication(title="Zq Version", year=2025, created_by_id=ada.id)
    version.authorships.append(m.Authorship(position=0, name="Ada Lovelace", person=ada))
    db.add(version)
    db.flush()
    db.add(m.ProfilePublication(person_id=ada.id, publication_id=version.id))
    db.add(m.PublicationRelation(publication_id=version.id, target_id=world["pub"],
                                 kind="extended_version_of"))  # fmt: skip
    alum = m.Person(full_name="Zq Alum", slug="zq-alum", sort_name="Alum, Zq", role="alumni")
    db.add(alum)
    db.flush()
    db.add(m.AdvisingRelation(owner_id=ada.id, advisor_id=ada.id, student_id=alum.id,
                              degree="phd", status="graduated", end_year=2020,
                              advisor_confirmed=True, student_confirmed=True))  # fmt: skip
    db.commit()
    return {**world, "uid": db.get(m.Publication, world["pub"]).uid, "version_uid": version.uid}


def _pages(app: Flask, values: dict) -> dict[str, str]:
    """A URL for every HTML page of the blueprint: the editing matrix's GET routes and every
    other GET route of the URL map."""
    pages = {name: url.format(**values) for name, method, url, _data, _allowed in EDITING_ROUTES
             if method == "GET"}  # fmt: skip
    adapter = app.url_map.bind("directory.test")
    covered = {adapter.match(url)[0] for url in pages.values()}
    samples = {"slug": "ada-lovelace", "uid": values["uid"], "token": "no-such-token",
               "area_id": values["area"]}  # fmt: skip
    for rule in app.url_map.iter_rules():
        endpoint = rule.endpoint
        if (
            not endpoint.startswith("directory.")
            or "GET" not in (rule.methods or ())
            or endpoint in NOT_PAGES
            or endpoint in covered
            or "api" in endpoint
        ):
            continue  # fmt: skip
        arguments = {name: samples.get(name, "systems") for name in rule.arguments}
        if endpoint == "directory.area":
            arguments["slug"] = "systems"
        pages[endpoint] = adapter.build(endpoint, arguments)
    pages["search"] = "/directory/search?q=Ada"
    pages["not found"] = "/directory/people/nobody-at-all"
    pages["filtered listing"] = "/directory/?recruiting=1&letter=L"
    pages["the other version"] = adapter.build("directory.paper", {"uid": values["version_uid"]})
    return pages


def test_every_page_in_chinese_leaves_no_interface_string_in_english(
    app, client, db, rich_world
) -> None:
    login(client, "admin")
    # An import preview: the richest page of the editor.
    bib = (
        b"@inproceedings{a, title={Zq Paper}, author={Lovelace, Ada}, booktitle={Zq}, year={2024}}"
    )
    response = post(
        client,
        f"{P}/publications/import",
        {"bibtex_file": (io.BytesIO(bib), "a.bib")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 302, response.data[:300]
    pages = _pages(app, rich_world)
    pages["import preview"] = response.headers["Location"]
    seen = 0
    for name, url in sorted(pages.items()):
        english = client.get(url)
        chinese = client.get(url, headers=ZH)
        assert chinese.status_code == english.status_code, name
        if chinese.mimetype != "text/html":
            continue
        seen += 1
        html = chinese.get_data(as_text=True)
        assert '<html lang="zh-Hans">' in html, name
        assert _left_in_english(html) == [], f"{name} ({url}) in zh_Hans"
        # The check can fail: the same page in English shows the English messages.
        if english.status_code == 200:
            assert _left_in_english(english.get_data(as_text=True)), name
    assert seen >= 40


def test_form_errors_and_wtforms_own_messages_are_translated(client, db, world) -> None:  # noqa: F811
    login(client, "ada")
    response = post(client, f"{P}/edit/news/new", {"year": "", "body": "", "url": "nope"},
                    headers=ZH)  # fmt: skip
    html = response.get_data(as_text=True)
    assert "请输入年份。" in html  # our message
    assert "此项为必填项。" in html
    assert "请输入以 https:// 或 http:// 开头的网址。" in html
    data = {"year": "twenty", "body": "x", "visibility": "public"}
    response = post(client, f"{P}/edit/news/new", data, headers=ZH)
    # WTForms' own "Not a valid integer value." from its zh catalogue (Flask-WTF's i18n).
    assert "Not a valid integer" not in response.get_data(as_text=True)
    assert "整数" in response.get_data(as_text=True)


def test_flash_messages_are_in_the_readers_language(client, db, world) -> None:  # noqa: F811
    login(client, "ada")
    response = post(client, f"{P}/edit/news/new",
                    {"year": "2026", "body": "Zq", "visibility": "public"},
                    headers=ZH, follow_redirects=True)  # fmt: skip
    assert "新闻已保存。" in response.get_data(as_text=True)


# ----------------------------------------------------------------------------- the locale


def test_accept_language_chooses_and_english_is_the_default(client, make_person) -> None:
    make_person()
    assert '<html lang="en">' in client.get("/directory/").get_data(as_text=True)
    for header in ("zh-CN", "zh", "zh-Hans-CN,en;q=0.5", "de, zh-SG;q=0.8"):
        html = client.get("/directory/", headers={"Accept-Language": header}).get_data(True)
        assert '<html lang="zh-Hans">' in html and "<h1>成员</h1>" in html, header
    # Traditional Chinese has no catalogue: the next language asked for, else the default.
    html = client.get("/directory/", headers={"Accept-Language": "zh-TW"}).get_data(True)
    assert '<html lang="en">' in html


def test_the_language_switch_works_without_javascript_and_is_remembered(client, make_person):
    make_person()
    page = client.get("/directory/?role=faculty").get_data(as_text=True)
    assert '<nav class="site-languages" aria-label="Language">' in page
    assert 'href="/directory/?role=faculty&amp;lang=zh_Hans" hreflang="zh-Hans"' in page
    alternates = re.findall(r'<link rel="alternate" hreflang="([\w-]+)" href="([^"]+)">', page)
    assert alternates == [
        ("en", "/directory/?role=faculty&amp;lang=en"),
        ("zh-Hans", "/directory/?role=faculty&amp;lang=zh_Hans"),
        ("x-default", "/directory/?role=faculty"),
    ]
    response = client.get("/directory/?role=faculty&lang=zh_Hans")
    assert "<h1>成员</h1>" in response.get_data(as_text=True)
    assert f"{i18n.COOKIE}=zh_Hans" in response.headers["Set-Cookie"]
    # Remembered: the next page, without ?lang=, even against Accept-Language.
    later = client.get("/directory/recruiting", headers={"Accept-Language": "en"})
    assert '<html lang="zh-Hans">' in later.get_data(as_text=True)
    back = client.get("/directory/recruiting?lang=en")
    assert '<html lang="en">' in back.get_data(as_text=True)
    assert '<span aria-current="true" lang="en">English</span>' in back.get_data(as_text=True)


def test_an_unknown_lang_parameter_is_ignored(client, make_person) -> None:
    make_person()
    response = client.get("/directory/?lang=<script>", headers=ZH)
    assert response.status_code == 200
    assert '<html lang="zh-Hans">' in response.get_data(as_text=True)
    assert "Set-Cookie" not in response.headers


def test_the_department_name_can_be_given_per_language(tmp_path) -> None:
    names = {"zh_Hans": "计算机科学系"}
    app = make_app(
        DIRECTORY_DEPARTMENT_NAMES=names, DIRECTORY_DATABASE_URL=f"sqlite:///{tmp_path}/n.db"
    )
    with app.test_request_context("/directory/", headers=ZH):
        assert i18n.department_name() == "计算机科学系"
    with app.test_request_context("/directory/"):
        assert i18n.department_name() == "Department of Computer Science"


def test_directory_languages_limits_the_choice(tmp_path) -> None:
    app = make_app(DIRECTORY_LANGUAGES=["en"], DIRECTORY_DATABASE_URL=f"sqlite:///{tmp_path}/a.db")
    with app.test_request_context("/directory/?lang=zh_Hans", headers=ZH):
        assert i18n.current_locale() == "en"
        assert i18n.language_links() == []  # one language: no switch
    app = make_app(DIRECTORY_LANGUAGES=["zh_Hans", "en"],
                   DIRECTORY_DATABASE_URL=f"sqlite:///{tmp_path}/b.db")  # fmt: skip
    with app.test_request_context("/directory/"):
        assert i18n.current_locale() == "zh_Hans"  # the first is the default


def test_the_check_refuses_languages_without_a_catalogue(tmp_path) -> None:
    assert language_problems({"DIRECTORY_LANGUAGES": ["en", "zh_Hans"]}) == []
    assert "did you mean 'zh_Hans'" in language_problems({"DIRECTORY_LANGUAGES": ["zh_hans"]})[0]
    assert language_problems({"DIRECTORY_LANGUAGES": []})
    assert language_problems({"DIRECTORY_LANGUAGES": ["en", "en"]})
    with pytest.raises(DirectoryConfigError, match="DIRECTORY_LANGUAGES names 'fr'"):
        make_app(
            DIRECTORY_LANGUAGES=["en", "fr"], DIRECTORY_DATABASE_URL=f"sqlite:///{tmp_path}/c.db"
        )


def test_a_host_with_flask_babel_keeps_its_selector_and_its_catalogue(
    tmp_path, test_engine, join_test_transaction, make_person
) -> None:
    make_person()
    # The host's own catalogue translates "Search" differently from the directory's.
    folder = tmp_path / "translations" / "zh_Hans_CN" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    catalog = Catalog(locale="zh_Hans_CN")
    catalog.add("Search", "站内搜索")
    catalog.add("Host only", "宿主的词")
    with (folder / "messages.mo").open("wb") as out:
        write_mo(out, catalog)
    host = Flask("babel_host")
    host.config.update(SECRET_KEY="x", DIRECTORY_ENGINE=test_engine,
                       BABEL_TRANSLATION_DIRECTORIES=str(tmp_path / "translations"))  # fmt: skip
    Babel(host, locale_selector=lambda: "zh_Hans_CN")

    @host.route("/")
    def home() -> str:
        return render_template_string("<p>{{ _('Search') }}</p><p>{{ _('Host only') }}</p>")

    Directory(host)
    client = join_test_transaction(host).test_client()
    # The host's selector decides (zh_Hans_CN: the directory's zh_Hans), whatever the browser.
    page = client.get("/directory/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "<h1>成员</h1>" in page and 'lang="zh-Hans"' in page
    assert "site-languages" not in page  # the host chooses: no switch of ours
    # The host's layout around a directory page keeps the host's own words.
    assert "宿主的词" not in page
    # The host's pages keep the host's catalogue; the directory's never leaks into them.
    assert client.get("/").get_data(as_text=True) == "<p>站内搜索</p><p>宿主的词</p>"


def test_a_host_that_initialises_flask_babel_after_the_directory_still_gets_its_pages(
    test_engine, join_test_transaction, make_person
) -> None:
    make_person()
    host = Flask("late_babel_host")
    host.config.update(SECRET_KEY="x", DIRECTORY_ENGINE=test_engine)
    Directory(host)
    Babel(host, locale_selector=lambda: "zh_Hans")  # replaces the templates' gettext
    client = join_test_transaction(host).test_client()
    assert "<h1>成员</h1>" in client.get("/directory/").get_data(as_text=True)


# ----------------------------------------------------------------------------- names


def test_a_native_name_comes_first_on_pages_in_its_language(client, make_person) -> None:
    make_person("Xingda Wei", native_name="魏星达", role="faculty")
    english = client.get("/directory/people/xingda-wei").get_data(as_text=True)
    native = '<span class="native-name" lang="zh">魏星达</span>'
    assert f'<h1 class="profile__name">Xingda Wei {native}</h1>' in english
    chinese = client.get("/directory/people/xingda-wei", headers=ZH).get_data(as_text=True)
    latin = '<span class="native-name" lang="en">Xingda Wei</span>'
    assert f'<h1 class="profile__name"><span lang="zh">魏星达</span> {latin}</h1>' in chinese
    listing = client.get("/directory/", headers=ZH).get_data(as_text=True)
    assert (
        '<span lang="zh">魏星达</span> <span class="native-name" lang="en">Xingda Wei</span>'
        in listing
    )


def test_sort_keys_follow_the_locale() -> None:
    # Chinese: by the pinyin of the Han name, family name first as written.
    assert name_sort_key("Wei, Xingda", "魏星达", "zh_Hans")[0] == "wei xing da"
    assert initial(name_sort_key("Du, Alexander", "杜", "zh_Hans")) == "D"
    # English (and a Chinese page for a name with no Han form): the Latin family name.
    assert name_sort_key("Wei, Xingda", "魏星达", "en")[0] == "wei xingda"
    assert initial(name_sort_key("Ödön, Ana", None, "zh_Hans")) == "O"
    assert initial(name_sort_key("Ödön, Ana", None, "en")) == "O"
    assert initial(name_sort_key("123", None, "en")) == ""


def test_the_listing_and_its_a_to_z_index_sort_by_the_locale(client, make_person) -> None:
    # Latin sort names that disagree with the Han names' pinyin.
    make_person("An Zhang", sort_name="Zhang, An", native_name="安张", role="faculty")
    make_person("Bo Li", sort_name="Li, Bo", native_name="周波", role="faculty")
    make_person("Carl Meyer", sort_name="Meyer, Carl", role="faculty")

    def order(headers: dict) -> list[str]:
        html = client.get("/directory/", headers=headers).get_data(as_text=True)
        return re.findall(r'class="card__name"><a href="/directory/people/([\w-]+)"', html)

    assert order({}) == ["bo-li", "carl-meyer", "an-zhang"]  # Li, Meyer, Zhang
    assert order(ZH) == ["an-zhang", "carl-meyer", "bo-li"]  # an, Meyer, zhou
    zh_index = client.get("/directory/", headers=ZH).get_data(as_text=True)
    assert 'aria-label="姓氏以 A 开头"' in zh_index and 'aria-label="姓氏以 L 开头"' not in zh_index
    by_letter = client.get("/directory/?letter=Z", headers=ZH).get_data(as_text=True)
    assert "bo-li" in by_letter and "an-zhang" not in by_letter


# ----------------------------------------------------------------------------- formats


def test_dates_and_numbers_follow_the_locale(app) -> None:
    with app.test_request_context("/directory/", headers=ZH):
        assert i18n.format_long_date(date(2026, 3, 7)) == "2026年3月7日"
        assert i18n.format_month_year(2024, 8) == "2024年8月"
    with app.test_request_context("/directory/"):
        assert i18n.format_long_date(date(2026, 3, 7)) == "March 7, 2026"
        assert i18n.format_month_year(2024, 8) == "Aug 2024"
        assert i18n.format_number(12345) == "12,345"


def test_feeds_are_in_the_readers_language(client, db, rich_world) -> None:
    feed = client.get("/directory/recruiting.atom?lang=zh_Hans").get_data(as_text=True)
    assert (
        'xml:lang="zh-Hans"' in feed
        and "<title>招生 · Department of Computer Science</title>" in feed
    )
    assert "申请截止日期：2099年1月1日。" in feed
    # The choice is remembered; ?lang=en goes back.
    assert "申请截止" in client.get("/directory/recruiting.atom").get_data(as_text=True)
    english = client.get("/directory/recruiting.atom?lang=en")
    assert "Apply by January 1, 2099." in english.get_data(as_text=True)


def test_the_page_cache_keeps_one_page_per_language(client, make_person, caching) -> None:  # noqa: F811
    make_person()
    first = client.get("/directory/", headers=ZH)
    assert "<h1>成员</h1>" in first.get_data(as_text=True)
    english = client.get("/directory/")
    assert "<h1>People</h1>" in english.get_data(as_text=True)
    again = client.get("/directory/", headers=ZH)
    assert again.headers["X-Directory-Cache"] == "hit"
    assert "Accept-Language" in again.headers["Vary"]
    assert "<h1>成员</h1>" in again.get_data(as_text=True)


def test_command_line_messages_follow_the_environments_language(app, db, make_person) -> None:
    make_person()
    runner = app.test_cli_runner()
    chinese = runner.invoke(args=["directory", "bind-user", "ada-lovelace", "ada"],
                            env={"LANGUAGE": "zh_CN"})  # fmt: skip
    assert chinese.exit_code == 0, chinese.output
    assert chinese.output.strip() == "今后以 'ada' 登录的用户即为 Ada Lovelace。"
    english = runner.invoke(args=["directory", "bind-user", "nobody", "x"], env={"LANGUAGE": "en"})
    assert "No person with slug 'nobody'." in english.output
    check = runner.invoke(args=["directory", "check"], env={"LANGUAGE": "zh_CN"})
    assert re.search(r"^ok  settings: \d+ 项设置均可识别且有效$", check.output, re.M), check.output


def test_force_locale_speaks_another_language_for_a_while(app) -> None:
    with app.test_request_context("/directory/", headers=ZH):
        template = app.jinja_env.from_string("{{ _('Recruiting') }}")
        template.name = "directory/mail/test.txt"  # one of the directory's templates
        assert i18n.gettext("Recruiting") == "招生"
        with i18n.force_locale("en"):
            assert i18n.gettext("Recruiting") == "Recruiting"
            assert template.render() == "Recruiting"
        assert i18n.gettext("Recruiting") == "招生"
        assert template.render() == "招生"
        # The same call in a template of the host is the host's (no catalogue here).
        assert render_template_string("{{ _('Recruiting') }}") == "Recruiting"


def test_e_mails_are_written_in_the_senders_language(app, make_person) -> None:
    person = make_person()
    with app.test_request_context("/directory/", headers=ZH):
        chinese = invitation_mail(person, "https://directory.test/claim/x", 14)
    assert chinese.subject == "您在Department of Computer Science师资名录中的主页"
    assert chinese.text.startswith("Ada Lovelace，您好：")
    assert "有效期 14 天" in chinese.text and "有效期 14 天" in chinese.html
    with app.test_request_context("/directory/"):
        english = invitation_mail(person, "https://directory.test/claim/x", 14)
    assert english.subject == "Your profile in the Department of Computer Science directory"
    assert english.text.startswith("Dear Ada Lovelace,")
