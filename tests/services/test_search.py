"""Search: safe with any input, Unicode names, visibility, an index that follows every change,
and the search page (the demo-based comparison of the engines is in test_search_demo.py)."""

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest
from sqlalchemy import delete, event, select
from sqlalchemy.exc import StatementError

from directory import models as m
from directory.formats.names import _fold_unicode, fold_for_search
from directory.services import search as index
from directory.services.expertise import ranking
from directory.services.identity import ANONYMOUS, Viewer
from directory.services.search import _CJK_RANGES, _is_cjk, _runs
from tests.conftest import login


def found(results: index.SearchResults) -> set[tuple[str, str]]:
    return {(hit.kind, hit.ref) for hit in results.hits}


NASTY_INPUTS = (
    "",
    "   ",
    '"',
    "'",
    "''",
    '"unterminated',
    "*",
    "**",
    "xingda*",
    "-xingda",
    "^xingda",
    "NOT",
    "AND OR NOT",
    "wei AND",
    "NEAR(wei chen, 2)",
    "title_tokens:wei",
    "directory_search_fts:wei",
    "wei:* & !chen | (x",
    "'wei':*",
    "\\",
    "\x00",
    "wei\x00chen",
    "%_%",
    "' OR 1=1 --",
    "); DROP TABLE directory_people; --",
    "<script>alert(1)</script>",
    "😀 🎓",
    "é",
    "ß",
    "𠀋",
    "x" * 5000,
    " ".join(["wei"] * 500),
)


@pytest.mark.parametrize("query", NASTY_INPUTS, ids=range(len(NASTY_INPUTS)))
def test_any_input_is_safe(app, db, client, make_person, query) -> None:
    make_person("Wei Chen", interests="Operating systems")
    with app.test_request_context():
        results = index.search(db, query, ANONYMOUS)
    assert len(results.terms) <= index.MAX_QUERY_TERMS
    response = client.get("/directory/search", query_string={"q": query})
    assert response.status_code == 200
    assert "<script>alert(1)" not in response.get_data(as_text=True)
    paged = client.get("/directory/search", query_string={"q": query, "kind": "publication"})
    assert paged.status_code == 200


def test_operators_are_words_not_syntax(app, db, make_person) -> None:
    make_person("Wei Chen", interests="near and not or")
    make_person("Ada Lovelace")
    with app.test_request_context():
        # "OR" would widen an FTS5 query and "-" would exclude: here they are plain words.
        assert found(index.search(db, "wei OR ada", ANONYMOUS)) == set()
        assert found(index.search(db, "wei -chen", ANONYMOUS)) == {("person", "wei-chen")}
        assert found(index.search(db, "NEAR(not", ANONYMOUS)) == {("person", "wei-chen")}


def test_unicode_names_are_found_however_they_are_typed(app, db, make_person) -> None:
    make_person("Xingda Wei", native_name="魏星达", slug="xingda-wei")
    make_person("José Müller", slug="jose-muller")
    make_person("Søren Kierkegaard", slug="soren")
    make_person("Yuki Sato", native_name="佐藤ゆき", slug="yuki")
    with app.test_request_context():
        for query in ("魏星达", "星达", "魏", "魏星", "Wei 魏"):
            assert found(index.search(db, query, ANONYMOUS)) == {("person", "xingda-wei")}, query
        assert found(index.search(db, "星魏", ANONYMOUS)) == set()
        for query in ("jose", "JOSÉ", "muller", "Müller", "mul", "josé müll"):
            assert found(index.search(db, query, ANONYMOUS)) == {("person", "jose-muller")}, query
        assert found(index.search(db, "søren", ANONYMOUS)) == {("person", "soren")}
        assert found(index.search(db, "ゆき", ANONYMOUS)) == {("person", "yuki")}
        hit = index.search(db, "星达", ANONYMOUS).hits[0]
        assert str(hit.title) == "Xingda Wei 魏<mark>星达</mark>"


def test_visibility_levels_owner_and_admin(app, db, make_person, make_publication) -> None:
    make_person("Public Lantern", interests="lantern")
    private = make_person("Private Lantern", interests="lantern", visibility="private")
    make_person("Member Lantern", interests="lantern", visibility="members")
    make_person("Gone Lantern", interests="lantern", active=False)
    paper = make_publication("Lantern paper", authors=(private,), visibility="private")
    paper.created_by_id = private.id
    db.commit()
    member = Viewer(key="someone")
    owner = Viewer(key="private-key", person_id=private.id)
    admin = Viewer(key="admin", is_admin=True)
    with app.test_request_context():
        refs = {v: found(index.search(db, "lantern", v)) for v in (ANONYMOUS, member, owner)}
        admin_refs = found(index.search(db, "lantern", admin))
    assert refs[ANONYMOUS] == {("person", "public-lantern")}
    assert refs[member] == {("person", "public-lantern"), ("person", "member-lantern")}
    assert refs[owner] == refs[member] | {
        ("person", "private-lantern"),
        ("publication", paper.uid),
    }
    # Inactive people are listed nowhere, even for admins (as on the department listing).
    assert ("person", "gone-lantern") not in admin_refs
    assert ("person", "private-lantern") in admin_refs


def test_notices_follow_their_owner_and_expire(app, db, make_person) -> None:
    today = date.today()
    open_owner = make_person("Open Owner")
    hidden_owner = make_person("Hidden Owner", visibility="private")
    for owner, text, expires in (
        (open_owner, "lanternopen", None),
        (open_owner, "lanternlater", today + timedelta(days=1)),
        (open_owner, "lanternexpired", today),
        (hidden_owner, "lanternhidden", None),
    ):
        db.add(
            m.RecruitingNotice(owner_id=owner.id, level="phd", description=text, expires_on=expires)
        )
    db.commit()
    with app.test_request_context():

        def words(viewer: Viewer, when: date = today) -> set[str]:
            results = index.search(db, "lantern", viewer, today=when)
            return {hit.snippet.striptags() for hit in results.hits}

        assert words(ANONYMOUS) == {"lanternopen", "lanternlater"}
        assert words(ANONYMOUS, today + timedelta(days=1)) == {"lanternopen"}
        assert words(Viewer(key="x", person_id=hidden_owner.id)) == {
            "lanternopen",
            "lanternlater",
            "lanternhidden",
        }
        hidden_owner.visibility = "public"
        db.commit()
        assert "lanternhidden" in words(ANONYMOUS)


def test_the_index_follows_edits_deletes_and_imports(app, db, make_person, make_publication):
    ada = make_person(bio="Works on **engines**.")
    pub = make_publication("Analytical Engines", authors=(ada,), abstract="About looms.")
    area = m.ResearchArea(slug="computing", name="Computing History")
    ada.areas.append(area)
    db.commit()

    def refs(query: str) -> set[tuple[str, str]]:
        with app.test_request_context():
            return found(index.search(db, query, ANONYMOUS))

    assert refs("engines") == {("person", "ada-lovelace"), ("publication", pub.uid)}
    assert refs("looms") == {("publication", pub.uid)}
    assert refs("history") == {("person", "ada-lovelace")}

    ada.bio = "Works on poetry."
    pub.authorships[0].name = "Augusta Ada King"
    area.name = "Mathematics"
    db.commit()
    assert refs("engines") == {("publication", pub.uid)}
    assert refs("poetry") == {("person", "ada-lovelace")}
    assert refs("augusta") == {("publication", pub.uid)}
    assert refs("history") == set()
    assert refs("mathematics") == {("person", "ada-lovelace")}

    db.delete(pub)
    db.commit()
    assert refs("looms") == set()

    # Bulk statements bypass the session's bookkeeping: the affected kinds are rebuilt.
    db.add(m.RecruitingNotice(owner_id=ada.id, level="phd", description="lantern"))
    db.commit()
    assert refs("lantern") == {("notice", "ada-lovelace")}
    db.execute(delete(m.RecruitingNotice))
    db.commit()
    assert refs("lantern") == set()

    # A rolled-back change leaves the index as it was.
    ada.bio = "Temporary words."
    db.flush()
    db.rollback()
    assert refs("temporary") == set()
    assert refs("poetry") == {("person", "ada-lovelace")}

    db.delete(ada)
    db.commit()
    assert refs("poetry") == set()
    assert db.scalar(select(index.SearchDocument.id)) is None


def test_reindex_command_rebuilds_the_index(runner, db, make_person) -> None:
    make_person(interests="lantern")
    db.execute(delete(index.SearchDocument))
    db.commit()
    result = runner.invoke(args=["directory", "reindex"])
    assert result.exit_code == 0, result.output
    assert "Indexed 1 document(s)." in result.output


# ----------------------------------------------------------------------------- the page


def test_page_escapes_what_owners_wrote(client, make_person) -> None:
    make_person(
        "Mallory <img src=x onerror=alert(1)>",
        slug="mallory",
        interests='lantern <script>alert("x")</script> & more',
    )
    html = client.get("/directory/search?q=lantern").get_data(as_text=True)
    assert "<img src=x" not in html and "<script>alert" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<mark>lantern</mark> &lt;script&gt;" in html


def test_page_without_a_query_or_without_results(client, make_person) -> None:
    make_person()
    empty = client.get("/directory/search").get_data(as_text=True)
    assert 'id="search-q"' in empty and "results for" not in empty
    none = client.get("/directory/search?q=nothing+here").get_data(as_text=True)
    assert "No results for “nothing here”." in none


def test_header_search_box_on_other_pages(client, make_person) -> None:
    make_person()
    html = client.get("/directory/").get_data(as_text=True)
    assert 'action="/directory/search"' in html
    assert '<label class="visually-hidden" for="site-search-q">' in html


def test_signed_in_members_find_member_profiles_on_the_page(client, make_person) -> None:
    make_person("Member Lantern", interests="lantern", visibility="members")
    link = 'href="/directory/people/member-lantern"'
    assert link not in client.get("/directory/search?q=lantern").get_data(as_text=True)
    login(client, "someone")
    assert link in client.get("/directory/search?q=lantern").get_data(as_text=True)


def test_the_page_of_every_kind_counts_and_previews_in_one_statement(
    app, client, make_person, make_publication
) -> None:
    """The page of all kinds counts each kind (but People, which are ranked by their work)
    and reads its best few in one statement: it does not count again for each kind it
    previews, nor rank a kind's matches twice."""
    ada = make_person("Ada Lantern")
    make_publication("Lantern Engines", authors=(ada,))
    statements: list[str] = []
    engine = app.extensions["directory"].db.engine

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        html = client.get("/directory/search?q=lantern").get_data(as_text=True)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert "<mark>Lantern</mark> Engines" in html and "Ada <mark>Lantern</mark>" in html
    counting = [s for s in statements if "count(*)" in s]
    assert len(counting) == 1, counting
    # The matches are ranked once, and the counts and the previews are cut from them.
    assert counting[0].count("MATCH" if "sqlite" in engine.dialect.name else "@@") == 1
    assert "LIMIT" in counting[0] and "GROUP BY" not in counting[0]


def test_the_best_of_each_kind_is_what_each_kind_alone_finds(
    app, db, make_person, make_publication
) -> None:
    """``best_of_each`` (the page of all kinds) gives, for every kind, the hits and count that
    a search of that kind alone gives: with ties broken by title, papers a viewer may not
    see, an expired notice, and a question whose topic words alone find some kinds."""
    ada = make_person("Ada Lantern", interests="lantern optics")
    ben = make_person("Ben Lantern", interests="lanterns", visibility="members")
    make_person("Cy Private", interests="lantern", visibility="private")
    for i, title in enumerate(("Lantern B", "Lantern A", "Lantern lantern C", "Optics only")):
        make_publication(title, authors=(ada,), year=2020 + i)
    make_publication("Lantern for members", authors=(ben,))
    make_publication("Lantern private", authors=(ada,), visibility="private")
    today = date.today()
    for days, text in ((30, "lantern notice"), (-1, "lantern expired"), (60, "optics notice")):
        db.add(
            m.RecruitingNotice(
                owner_id=ada.id,
                level="phd",
                description=text,
                expires_on=today + timedelta(days=days),
            )
        )
    db.commit()
    viewers = (ANONYMOUS, Viewer(key="someone"), Viewer(key="admin", is_admin=True))
    queries = ("lantern", "lant", "optics", "who works on optics?", "who works on nothing?", "")
    with app.test_request_context():
        for viewer in viewers:
            for query in queries:
                each = index.best_of_each(db, query, viewer, index.KINDS, limit=2)
                for kind in index.KINDS:
                    alone = index.search(db, query, viewer, kinds=(kind,), limit=2)
                    assert [h for h in each.hits if h.kind == kind] == alone.hits, (query, kind)
                    assert each.counts.get(kind, 0) == alone.counts.get(kind, 0), (query, kind)
                    assert [h.kind for h in each.hits] == sorted(
                        (h.kind for h in each.hits), key=index.KINDS.index
                    )
        found_kinds = index.best_of_each(db, "lantern", ANONYMOUS, index.KINDS, limit=2)
    # Ada, her four public papers and her two open notices (her name is in each).
    assert found_kinds.counts == {"person": 1, "publication": 4, "notice": 2}


def test_the_cjk_character_class_is_its_ranges_and_a_latin_word_one_run() -> None:
    def in_ranges(char: str) -> bool:
        return any(low <= ord(char) <= high for low, high in _CJK_RANGES)

    every = (chr(c) for c in range(0x40000) if not 0xD800 <= c <= 0xDFFF)
    assert [c for c in every if _is_cjk(c) != in_ranges(c)] == []
    assert list(_runs("Ära")) == [(False, "Ära")]
    assert list(_runs("GPU加速x")) == [(False, "GPU"), (True, "加速"), (False, "x")]


def test_ascii_is_folded_as_any_text_is() -> None:
    """The short cut for ASCII text (its lower case) gives what the general folding gives,
    for every ASCII character alone and among others."""
    every = "".join(chr(c) for c in range(128))
    texts = [*every, every, "Wei Chen-Lovelace", "SIGCOMM'24", "x\x00y"]
    assert [fold_for_search(t) for t in texts] == [_fold_unicode(t) for t in texts]
    assert fold_for_search("Müller") == "muller"  # and the rest still folds accents


def test_ascii_text_is_highlighted_as_any_text_is() -> None:
    """The short cut for ASCII text (its words lower-cased, no span without a term in it)
    marks what the general path marks, for random texts and queries of words and prefixes."""
    rng = random.Random(30)
    alphabet = "abcAB c-_'.,0129 \t\nXYZxyz"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60)))
        query = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 8)))
        terms = index.parse_query(query)
        if not terms:
            continue
        assert index._ascii_spans(text, terms) == index._unicode_spans(text, terms), (text, query)
    long_word = "a" * 100
    terms = index.parse_query("a" * 70)
    assert index._ascii_spans(long_word, terms) == index._unicode_spans(long_word, terms)


def test_a_kept_statement_is_given_each_question(app, db, make_person) -> None:
    """The statements built once per viewer and kept (every kind's best, the people's keyword
    ranking) take the question as a parameter: each question gets its own answer, whichever
    was asked first, and a kept statement run without its question fails instead of
    answering an earlier one."""
    ada = make_person("Ada Lantern", interests="lantern optics")
    ben = make_person("Ben Quartz", interests="quartz clocks")
    with app.test_request_context():
        for query, who in (("lantern", ada), ("quartz", ben), ("lantern", ada)):
            assert [
                h.ref for h in index.best_of_each(db, query, ANONYMOUS, ("person",), 5).hits
            ] == [who.slug]
            assert ranking.rank_people(db, query, ANONYMOUS, use="keyword").people == [who.id]
        engine = index.engine_for(db)
        if engine.keeps:
            kept = index._kept_best_of_each(type(engine), ANONYMOUS, date.today(), ("person",), 5)
            with pytest.raises(StatementError, match="A value is required"):
                db.execute(kept)
            db.rollback()
