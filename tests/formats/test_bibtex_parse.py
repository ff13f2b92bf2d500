"""BibTeX import/export (directory.formats.bibtex, directory.formats.csl): one fixture per
real-world quirk, plus round trips."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from directory.formats.bibtex.authors import split_name
from directory.formats.bibtex.export import publication_to_bibtex, publications_to_bibtex
from directory.formats.bibtex.keys import make_citation_key
from directory.formats.bibtex.parse import parse_bibtex
from directory.formats.bibtex.results import (
    MAX_BIBTEX_BYTES,
    MAX_BIBTEX_ENTRIES,
    BibtexTooLarge,
    ParsedEntry,
    ParseResult,
)
from directory.formats.bibtex.values import MAX_VALUE_CHARS
from directory.formats.csl import publication_to_csl
from directory.formats.identifiers import normalise_arxiv, normalise_doi

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bibtex"

ROUND_TRIP_FIELDS = ("title", "authors", "venue", "year", "month", "type", "doi", "arxiv_id")


def load(name: str) -> ParseResult:
    return parse_bibtex((FIXTURES / name).read_bytes())


def by_key(result: ParseResult) -> dict[str, ParsedEntry]:
    return {entry.key: entry for entry in result.entries}


def names(entry: ParsedEntry) -> list[str]:
    return [author["name"] for author in entry.data["authors"]]


def paper_links(data: dict) -> list[dict]:
    return [link for link in data["links"] if link["kind"] == "paper"]


def author(name: str, co_first: bool = False, corresponding: bool = False) -> dict:
    """A parsed author, as the parser gives it (the parts by BibTeX's rules)."""
    return {
        **split_name(name), "person": None, "co_first": co_first,
        "corresponding": corresponding, "role": "author",
    }  # fmt: skip


# --- 1. free text before, between and after entries ----------------------------------------


def test_front_matter_and_free_text_are_skipped_and_reported() -> None:
    result = load("front_matter.bib")

    assert [(p.line, p.severity) for p in result.problems] == [(1, "skipped")]
    assert "Text outside any entry (lines 1, 15)" in result.problems[0].message
    assert [e.key for e in result.entries] == ["wei2023mitosis"]
    entry = result.entries[0]
    assert entry.line == 8
    assert entry.data["title"] == "Mitosis: Transparently Self-Replicating Page-Tables"
    assert names(entry) == ["Xingda Wei", "Rong Chen"]
    assert entry.data["venue"].startswith("Proceedings of the 17th USENIX Symposium")


# --- 2. @string macros and # concatenation --------------------------------------------------


def test_string_macros_resolve_inside_concatenations() -> None:
    entries = by_key(load("strings.bib"))

    concat = entries["concat2024"].data
    assert concat["venue"] == (
        "Proceedings of the USENIX Symposium on Operating Systems Design and Implementation 2024"
    )
    assert concat["publisher"] == "ACM"  # @string( ... ) with parentheses
    assert concat["year"] == 2024  # bare number
    # A macro defined from another macro, referenced in a different case.
    assert entries["nested2023"].data["venue"] == (
        "Proceedings of the 29th ACM Symposium on Operating Systems Principles"
    )
    assert entries["nested2023"].data["year"] == 2023  # quoted number
    assert entries["concat2024"].warnings == []


def test_undefined_macro_is_kept_and_warned_about() -> None:
    entry = by_key(load("strings.bib"))["undefined2022"]

    assert entry.data["venue"] == "tocs"
    assert any("tocs" in w and "undefined" in w for w in entry.warnings)


# --- 3. months ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "month", "year"),
    [
        ("macro", 7, 2020),
        ("upper", 12, 2020),
        ("number", 3, 2020),
        ("padded", 9, 2020),
        ("fullname", 2, 2020),
        ("abbrdot", 11, 2020),
        ("withday", 8, 2020),
        ("biblatex", 5, 2021),
    ],
)
def test_month_forms(key: str, month: int, year: int) -> None:
    entry = by_key(load("months.bib"))[key]

    assert entry.data["month"] == month
    assert entry.data["year"] == year
    assert entry.warnings == []


def test_impossible_month_is_dropped_with_warning() -> None:
    entry = by_key(load("months.bib"))["bogus"]

    assert entry.data["month"] is None
    assert any("'13'" in w for w in entry.warnings)


# --- 4. crossref ----------------------------------------------------------------------------


def test_crossref_child_inherits_missing_fields() -> None:
    entries = by_key(load("crossref.bib"))
    child = entries["child2024"].data

    assert child["venue"] == (
        "18th USENIX Symposium on Operating Systems Design and Implementation (OSDI 24)"
    )
    assert (child["year"], child["month"]) == (2024, 7)
    assert child["publisher"] == "USENIX Association"
    assert child["location"] == "Santa Clara, CA"
    assert child["pages"] == "1–15"  # its own field
    assert child["title"] == "A Paper in Proceedings"  # not the parent's title
    assert child["doi"] is None  # the volume's DOI is not the paper's
    assert child["type"] == "conference"


def test_crossref_child_fields_win_over_parent() -> None:
    override = by_key(load("crossref.bib"))["override2024"].data

    assert override["year"] == 2025
    assert override["month"] == 7


def test_crossref_parents_imported_only_when_they_are_publications() -> None:
    result = load("crossref.bib")
    entries = by_key(result)

    assert "osdi2024" not in entries  # a @proceedings container
    assert entries["handbook2022"].data["type"] == "book"  # a @book is a publication
    chapter = entries["chapter2022"].data
    assert chapter["type"] == "chapter"
    assert chapter["venue"] == "The Handbook of Systems"
    assert (chapter["publisher"], chapter["year"]) == ("Springer", 2022)
    # The container is said to be skipped, with its reason, not dropped unseen.
    assert [(p.line, p.key, p.severity) for p in result.problems] == [(15, "osdi2024", "skipped")]
    assert "cross-reference" in result.problems[0].message


def test_crossref_to_missing_parent_is_a_warning() -> None:
    orphan = by_key(load("crossref.bib"))["orphan2021"]

    assert orphan.data["year"] == 2021
    assert any("nowhere" in w for w in orphan.warnings)


# --- 5. LaTeX -------------------------------------------------------------------------------


def test_latex_markup_becomes_unicode() -> None:
    data = by_key(load("latex.bib"))["latex2024"].data

    assert data["title"] == (
        "BERT über Çaça: Étude of Nested Emphasis & Co. — α-Tests for GPUs, 10–20%"
    )
    assert names(by_key(load("latex.bib"))["latex2024"]) == [
        "Jörg Müller",
        "René François",
        "Paul Erdős",
        "Małgorzata Straßer",
        "Søren Østergaard",
    ]
    assert data["venue"] == "Journal of LaTeX Users"
    assert data["pages"] == "100–110"
    assert data["abstract"] == (
        "We use “quotes” and a tie here. The second line is joined to the first."
    )
    assert data["doi"] == "10.1000/abc_def"


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        (r"{\"u}ber", "über"),
        (r"Gon\c calves", "Gonçalves"),
        (r"\v{S}koda", "Škoda"),
        (r"Stra\ss e", "Straße"),
        (r"\'{\i}", "í"),
        (r"C\# \$5 \_x \{y\}", "C# $5 _x {y}"),
        (r"$O(n^{2})$ \ldots{} done", "O(n^2) … done"),
        (r"{\sc Small} \textbf{bold}", "Small bold"),
    ],
)
def test_latex_fragments_in_titles(latex: str, text: str) -> None:
    result = parse_bibtex("@misc{k, title = {" + latex + "}, author = {A, B}, year = 2020}")

    assert result.entries[0].data["title"] == text


# --- 6. comments and trailing commas --------------------------------------------------------


def test_comments_are_reported_as_skipped_and_trailing_commas_accepted() -> None:
    result = load("comments.bib")

    assert [(p.line, p.severity) for p in result.problems] == [
        (3, "skipped"),
        (6, "skipped"),
        (7, "skipped"),
    ]
    assert [p.message.split(" ")[0] for p in result.problems] == [
        "@comment",
        "@comment",
        "@preamble",
    ]
    assert [e.key for e in result.entries] == ["live2020", "trailing2021"]
    live = result.entries[0]
    assert live.data["title"] == "A Live Entry"
    assert names(live) == ["Xingda Wei"]  # the commented-out author line is gone
    assert live.warnings == []
    trailing = result.entries[1].data
    assert (trailing["title"], trailing["year"]) == ("Trailing Comma After the Last Field", 2021)


def test_raw_text_is_kept_exactly_even_where_comments_were_hidden() -> None:
    source = (FIXTURES / "comments.bib").read_text(encoding="utf-8")
    live = load("comments.bib").entries[0]

    assert live.raw in source
    assert "% a comment after a field" in live.raw
    assert "% author = {Nobody, Old}," in live.raw
    assert live.raw.startswith("@article{live2020,") and live.raw.endswith("}")
    assert live.line == source[: source.index(live.raw)].count("\n") + 1


def test_percent_inside_values_is_not_a_comment() -> None:
    text = (
        "@misc{k,\n"
        "  title = {Saves 50\\% of Cost},\n"
        "  url = {https://example.org/search?q=a,%20b},\n"
        "  year = 2020 % trailing comment\n"
        "}\n"
    )

    entry = parse_bibtex(text).entries[0]

    assert entry.data["title"] == "Saves 50% of Cost"
    assert entry.data["links"][0]["url"] == "https://example.org/search?q=a,%20b"
    assert entry.data["year"] == 2020
    assert entry.warnings == ["entry has no authors"]


# --- 7. malformed entries -------------------------------------------------------------------


def test_malformed_entries_become_problems_and_the_rest_still_parses() -> None:
    result = load("malformed.bib")

    # A missing key is made; a repeated key gets a letter: neither loses the entry.
    assert [e.key for e in result.entries] == [
        "good1", "good2", "anon2023no", "good1b", "Good2b", "good3",
    ]  # fmt: skip
    assert [e.line for e in result.entries] == [1, 13, 20, 25, 30, 35]
    assert [(p.line, p.key, p.severity) for p in result.problems] == [
        (8, "unclosed", "error"),
        (42, "lastunclosed", "error"),
    ]
    messages = [p.message for p in result.problems]
    assert "closing brace" in messages[0]
    assert "end" in messages[1] and "closing brace" in messages[1]
    warnings = {e.key: e.warnings for e in result.entries}
    assert "it was given the key 'anon2023no'" in " ".join(warnings["anon2023no"])
    assert "'good1' is already used on line 1" in " ".join(warnings["good1b"])
    assert "'Good2' is already used on line 13" in " ".join(warnings["Good2b"])
    # The entry with the repeated key did not replace the original.
    assert result.entries[0].data["title"] == "First Good Entry"
    # The raw text kept for the entry is the file's, without the made-up key.
    assert result.entries[2].raw.startswith("@article{\n  title")


def test_an_entry_without_a_key_gets_one() -> None:
    """Mendeley writes ``@article{,``; an entry needs a key only to be found again."""
    result = parse_bibtex(
        "@misc{ok, title = {Fine}}\n@misc{, title = {No key}, author = {Wei, Xingda},"
        " year = 2020}\n@misc{, title = {No key}, year = 2020}\n"
    )

    assert [e.key for e in result.entries] == ["ok", "wei2020no", "anon2020no"]
    assert result.problems == []


def test_identical_copies_under_one_key_are_skipped_with_the_line_of_the_first() -> None:
    """Google Scholar-style files repeat an entry verbatim: the copy is reported, not an
    error, and a different entry under the same key is kept under a new key."""
    entry = "@article{wei2020,\n  title = {Same},\n  author = {Wei, Xingda},\n  year = 2020\n}\n"
    other = "@article{wei2020, title = {Different}, author = {Wei, Xingda}, year = 2020}\n"
    result = parse_bibtex(entry + entry.replace("\n  ", "\n    ") + other)

    assert [(e.key, e.data["title"]) for e in result.entries] == [
        ("wei2020", "Same"),
        ("wei2020b", "Different"),
    ]
    assert [(p.line, p.key, p.severity) for p in result.problems] == [(6, "wei2020", "skipped")]
    assert "identical copy of the entry on line 1" in result.problems[0].message


@pytest.mark.parametrize(
    ("block", "words"),
    [
        ("@set{s, entryset = {a,b}}", "@set groups other entries"),
        ("@xdata{x, publisher = {P}}", "@xdata holds fields"),
        ('@IEEEtranBSTCTL{IEEEexample:BSTcontrol, CTLuse_forced_etal = "yes"}', "IEEEtran"),
        ('@preamble{"\\newcommand{\\noopsort}[1]{}"}', "@preamble"),
        ("@comment{jabref-meta: databaseType:bibtex;}", "@comment"),
    ],
)
def test_blocks_that_are_not_publications_are_reported_not_errors(block, words) -> None:
    result = parse_bibtex(block + "\n@misc{a, title = {Kept}, year = 2020}\n")

    assert [e.key for e in result.entries] == ["a"]
    assert [(p.line, p.severity) for p in result.problems] == [(1, "skipped")]
    assert words in result.problems[0].message and "skipped" in result.problems[0].message


def test_xdata_fields_are_inherited() -> None:
    result = parse_bibtex(
        "@xdata{acm, publisher = {ACM}, address = {New York}}\n"
        "@inproceedings{a, title = {T}, booktitle = {SOSP}, xdata = {acm}, year = 2023}\n"
    )

    data = result.entries[0].data
    assert (data["publisher"], data["location"], data["venue"]) == ("ACM", "New York", "SOSP")


def test_duplicate_field_keeps_first_value_with_warning() -> None:
    entry = parse_bibtex("@misc{k, title = {First}, title = {Second}}").entries[0]

    assert entry.data["title"] == "First"
    assert any("title" in w and "more than once" in w for w in entry.warnings)


# --- 8. size and encoding -------------------------------------------------------------------


def test_invalid_utf8_is_a_problem_not_an_exception() -> None:
    result = load("latin1.bib")

    assert result.entries == []
    assert len(result.problems) == 1
    assert result.problems[0].line == 2
    assert "UTF-8" in result.problems[0].message


def test_utf8_bom_is_accepted() -> None:
    data = "\ufeff@misc{k, title = {Caf\u00e9}, year = 2020}".encode()

    result = parse_bibtex(data)

    assert result.problems == []
    assert result.entries[0].data["title"] == "Café"
    assert result.entries[0].raw.startswith("@misc{k,")


@pytest.mark.parametrize("as_bytes", [True, False])
def test_input_over_the_limit_raises(as_bytes: bool) -> None:
    text = "@misc{k, title = {" + "x" * 2000 + "}}"

    with pytest.raises(BibtexTooLarge) as excinfo:
        parse_bibtex(text.encode() if as_bytes else text, max_bytes=1024)

    assert "1024 bytes" in str(excinfo.value)
    assert "1 KiB" in str(excinfo.value)


def test_limit_counts_utf8_bytes_not_characters() -> None:
    text = "@misc{k, title = {" + "魏" * 400 + "}}"  # ~1220 bytes, ~420 characters

    with pytest.raises(BibtexTooLarge):
        parse_bibtex(text, max_bytes=1024)
    assert parse_bibtex(text, max_bytes=2048).entries[0].data["title"] == "魏" * 400


def test_default_limit_is_five_mebibytes() -> None:
    assert MAX_BIBTEX_BYTES == 5 * 1024 * 1024
    with pytest.raises(BibtexTooLarge, match="5 MiB"):
        parse_bibtex(b" " * (MAX_BIBTEX_BYTES + 1))


# --- authors, links and al-folio fields -----------------------------------------------------


def test_author_markers_set_co_first_and_corresponding() -> None:
    entry = by_key(load("alfolio.bib"))["wei2023mitosis"]

    assert entry.data["authors"] == [
        author("Xingda Wei", co_first=True),
        author("Rong Chen", co_first=True),
        author("Jane Doe", co_first=True),
        author("Richard Roe", co_first=True),
        author("John Smith", corresponding=True),
    ]


def test_co_first_and_corresponding_fields() -> None:
    data = by_key(load("alfolio.bib"))["fields2022"].data

    assert data["authors"] == [
        author("Xingda Wei", co_first=True),
        author("Rong Chen", co_first=True),
        author("Jane Doe", corresponding=True),
    ]
    assert data["selected"] is False


def test_names_keep_braced_groups_and_unicode() -> None:
    entry = by_key(load("alfolio.bib"))["unicode2021"]

    # Unbraced "Simon and Schuster" is two people in BibTeX; the braced name is one.
    assert names(entry) == [
        "魏星达",
        "Jörg Müller",
        "World Health Organization",
        "Simon",
        "Schuster",
    ]


def test_alfolio_links_and_extras() -> None:
    data = by_key(load("alfolio.bib"))["wei2023mitosis"].data

    assert [(link["kind"], link["url"]) for link in data["links"]] == [
        ("paper", "mitosis.pdf"),
        ("publisher", "https://www.usenix.org/conference/osdi23/presentation/wei"),
        ("website", "https://mitosis.example.org"),
        ("code", "https://github.com/example/mitosis"),
        ("slides", "https://example.org/mitosis-slides.pdf"),
        ("video", "https://youtu.be/abc"),
        ("poster", "https://example.org/poster.pdf"),
        ("blog", "https://blog.example.org/mitosis"),
        ("website", "https://example.org/mitosis"),
        ("other", "https://example.org/supp.zip"),
    ]
    assert all(link["label"] is None for link in data["links"])
    assert data["venue_short"] == "OSDI"
    assert data["awards"] == ["Best Paper Award", "Distinguished Artifact Award", "Best Paper"]
    assert data["badges"] == [
        {"name": "Artifacts Available", "issuer": None},
        {"name": "Artifacts Functional", "issuer": None},
        {"name": "Results Reproduced", "issuer": "ACM"},
    ]
    assert data["labels"] == ["systems", "memory"]  # keywords stay out
    assert data["selected"] is True
    assert data["key"] == "wei2023mitosis"


def test_doi_url_becomes_publisher_link_and_doi() -> None:
    data = by_key(load("alfolio.bib"))["fields2022"].data

    assert data["doi"] == "10.1145/3600006"
    assert data["links"] == [
        {"kind": "publisher", "url": "https://doi.org/10.1145/3600006", "label": None}
    ]


def test_every_data_dict_has_the_full_shape() -> None:
    keys = {
        "title", "venue", "venue_short", "year", "month", "type", "status", "abstract", "doi",
        "arxiv_id", "volume", "number", "pages", "publisher", "location", "note", "authors",
        "links", "awards", "badges", "labels", "selected", "key", "authors_incomplete",
    }  # fmt: skip
    for name in ("types.bib", "alfolio.bib", "crossref.bib", "latex.bib"):
        for entry in load(name).entries:
            assert set(entry.data) == keys, entry.key


# --- types and status -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "pub_type", "status", "arxiv_id"),
    [
        ("conf", "conference", "published", None),
        ("conf2", "conference", "published", None),
        ("ws", "workshop", "published", None),
        ("jour", "journal", "published", None),
        ("gsarxiv", "preprint", "preprint", "2401.01234"),
        ("dblp", "preprint", "preprint", "2312.00001"),
        ("misc_arxiv", "preprint", "preprint", "2305.11111"),
        ("misc_url", "preprint", "preprint", "2306.22222"),
        ("misc_plain", "other", "published", None),
        ("phd", "thesis", "published", None),
        ("msc", "thesis", "published", None),
        ("book", "book", "published", None),
        ("incoll", "chapter", "published", None),
        ("inbook", "chapter", "published", None),
        ("tr", "report", "published", None),
        ("unpub", "other", "under_review", None),
        ("toappear", "conference", "accepted", None),
        ("statusfield", "conference", "under_review", None),
        ("pubstate", "journal", "accepted", None),
        ("odd", "other", "published", None),
    ],
)
def test_type_status_and_arxiv(key: str, pub_type: str, status: str, arxiv_id: str | None) -> None:
    data = by_key(load("types.bib"))[key].data

    assert (data["type"], data["status"], data["arxiv_id"]) == (pub_type, status, arxiv_id)


def test_arxiv_gets_one_preprint_link() -> None:
    entries = by_key(load("types.bib"))

    assert entries["misc_arxiv"].data["links"] == [
        {"kind": "preprint", "url": "https://arxiv.org/abs/2305.11111", "label": None}
    ]
    # An arXiv URL already in the entry is not duplicated by the normalised one.
    assert [link["url"] for link in entries["misc_url"].data["links"]] == [
        "https://arxiv.org/abs/2306.22222v1"
    ]


def test_venue_fields_by_entry_type() -> None:
    entries = by_key(load("types.bib"))

    assert entries["phd"].data["venue"] == "Shanghai Jiao Tong University"
    assert entries["tr"].data["venue"] == "MIT"
    assert entries["tr"].data["number"] == "TR-1"
    assert entries["jour"].data["volume"] == "41"
    assert entries["misc_plain"].data["venue"] == "Invited talk at Foo"
    assert entries["book"].data["publisher"] == "MIT Press"
    assert any("@weird" in w for w in entries["odd"].warnings)


# --- identifiers and keys -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("https://doi.org/10.1145/ABC", "10.1145/abc"),
        ("http://dx.doi.org/10.1145/3600006.3613157", "10.1145/3600006.3613157"),
        ("doi:10.1000/XYZ.", "10.1000/xyz"),
        ("10.1002/%28SICI%291097", "10.1002/(sici)1097"),
        ("not a doi", None),
        ("", None),
        (None, None),
    ],
)
def test_normalise_doi(value: str | None, expected: str | None) -> None:
    assert normalise_doi(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("arXiv:2401.01234v2", "2401.01234"),
        ("https://arxiv.org/abs/2401.01234v3", "2401.01234"),
        ("https://arxiv.org/pdf/1907.12345v1.pdf", "1907.12345"),
        ("arXiv preprint arXiv:2312.9999", "2312.9999"),
        ("hep-th/9901001v2", "hep-th/9901001"),
        ("https://arxiv.org/abs/math.GT/0309136", "math.GT/0309136"),
        ("10.1145/1234.56789", None),
        ("nothing here", None),
        (None, None),
    ],
)
def test_normalise_arxiv(value: str | None, expected: str | None) -> None:
    assert normalise_arxiv(value) == expected


@pytest.mark.parametrize(
    ("pub", "key"),
    [
        (
            {
                "authors": [{"name": "Xingda Wei"}],
                "year": 2023,
                "title": "Mitosis: Page Tables",
            },
            "wei2023mitosis",
        ),
        (
            {"authors": [{"name": "Jörg Müller"}], "year": 2020, "title": "The Über Paper"},
            "muller2020uber",
        ),
        ({"authors": [{"name": "Martin King Jr."}], "title": "On Dreams"}, "kingdreams"),
        ({"authors": [], "year": 2021, "title": "A 中文 Title"}, "anon2021title"),
    ],
)
def test_make_citation_key(pub: dict, key: str) -> None:
    assert make_citation_key(pub) == key
    assert key.isascii()


# --- export ---------------------------------------------------------------------------------


def sample_publication() -> dict:
    return {
        "title": "Fast & Furious: 100% _under_ Déjà vu {x} ~ ^ \\ # $ 中文 über BERT -- ok",
        "venue": "Proceedings of the ACM SIGOPS 29th Symposium on Operating Systems Principles",
        "venue_short": "SOSP",
        "year": 2023,
        "month": 10,
        "type": "conference",
        "status": "published",
        "abstract": "We cut 50% of the cost & more.",
        "doi": "10.1145/3600006.3613157",
        "arxiv_id": "2309.12345",
        "volume": None,
        "number": None,
        "pages": "1–15",
        "publisher": "ACM",
        "location": "Koblenz, Germany",
        "note": None,
        "authors": [
            author("Xingda Wei", co_first=True),
            author("Tianxia Wang", co_first=True),
            author("Rong Chen", corresponding=True),
            author("魏星达"),
            author("Ludwig van Beethoven"),
        ],
        "links": [
            {"kind": "paper", "url": "https://example.org/a_b%20c.pdf", "label": None},
            {"kind": "code", "url": "https://github.com/x/y", "label": None},
        ],
        "awards": ["Best Paper Award"],
        "badges": [{"name": "Artifacts Available", "issuer": "ACM"}],
        "labels": ["systems"],
        "selected": True,
        "key": "wei2023fast",
    }


def test_export_escapes_latex_specials() -> None:
    text = publication_to_bibtex(sample_publication())

    title_line = next(line for line in text.splitlines() if line.strip().startswith("title"))
    for escaped in (r"\&", r"\%", r"\_", r"\{", r"\}", r"\#", r"\$", r"\textasciitilde{}"):
        assert escaped in title_line
    assert r"\textasciicircum{}" in title_line and r"\textbackslash{}" in title_line
    assert "{BERT}" in title_line  # protected against lower-casing styles
    assert "-{}-" in title_line  # a literal double hyphen, not an en dash
    assert "  author = {Xingda Wei and Tianxia Wang and Rong Chen and 魏星达 and " in text
    assert "  month = oct,\n" in text
    assert "  pages = {1--15},\n" in text
    assert "  doi = {10.1145/3600006.3613157},\n" in text
    assert "  eprint = {2309.12345},\n  archiveprefix = {arXiv},\n" in text
    assert r"  url = {https://example.org/a_b\%20c.pdf}," in text
    assert "  abbr = {SOSP},\n" in text and "  award = {Best Paper Award},\n" in text
    assert "  selected = {true},\n" in text
    assert text.startswith("@inproceedings{wei2023fast,\n") and text.endswith("}\n")


def test_round_trip_keeps_the_publication() -> None:
    pub = sample_publication()

    result = parse_bibtex(publication_to_bibtex(pub))

    assert result.problems == []
    data = result.entries[0].data
    for name in ROUND_TRIP_FIELDS:
        assert data[name] == pub[name], name
    assert paper_links(data) == paper_links(pub)
    for name in ("venue_short", "status", "abstract", "pages", "publisher", "location"):
        assert data[name] == pub[name], name
    for name in ("awards", "badges", "labels", "selected", "key"):
        assert data[name] == pub[name], name
    assert [lk for lk in data["links"] if lk["kind"] == "code"] == pub["links"][1:]


@pytest.mark.parametrize(
    ("pub_type", "venue", "arxiv_id", "status"),
    [
        ("conference", "EuroSys", None, "published"),
        ("workshop", "HotOS", None, "published"),  # no "Workshop" in the venue
        ("conference", "Workshop Proceedings Track", None, "accepted"),
        ("journal", "ACM TOCS", None, "under_review"),
        ("journal", "arXiv Journal of Nothing", None, "published"),
        ("journal", None, "2401.00001", "published"),
        ("preprint", None, "2401.00002", "preprint"),
        ("preprint", "SSRN", None, "preprint"),
        ("thesis", "SJTU", None, "published"),
        ("book", "Lecture Notes in Computer Science", None, "published"),
        ("chapter", "Handbook", None, "published"),
        ("report", "MIT", None, "published"),
        ("talk", "Invited talk at Foo", None, "published"),
        ("other", None, None, "published"),
    ],
)
def test_round_trip_every_type(
    pub_type: str, venue: str | None, arxiv_id: str | None, status: str
) -> None:
    pub = {
        "title": "Title",
        "venue": venue,
        "year": 2024,
        "month": None,
        "type": pub_type,
        "status": status,
        "doi": None,
        "arxiv_id": arxiv_id,
        "authors": [author("Ann Author")],
        "links": [],
    }

    data = parse_bibtex(publication_to_bibtex(pub, key="k")).entries[0].data

    for name in (*ROUND_TRIP_FIELDS, "status"):
        assert data[name] == pub[name], name


@pytest.mark.parametrize("fixture", ["types.bib", "alfolio.bib", "latex.bib", "crossref.bib"])
def test_fixtures_round_trip_through_export(fixture: str) -> None:
    originals = [e.data for e in load(fixture).entries]

    again = parse_bibtex(publications_to_bibtex(originals))

    assert again.problems == []
    assert len(again.entries) == len(originals)
    for before, entry in zip(originals, again.entries, strict=True):
        after = entry.data
        for name in ROUND_TRIP_FIELDS:
            assert after[name] == before[name], (before["key"], name)
        assert paper_links(after) == paper_links(before)[:2], before["key"]


def test_export_does_not_modify_the_input() -> None:
    pub = sample_publication()
    before = copy.deepcopy(pub)

    publication_to_bibtex(pub)
    publication_to_csl(pub)

    assert pub == before


def test_publications_to_bibtex_makes_keys_unique() -> None:
    base = {"authors": [author("Xingda Wei")], "year": 2023, "title": "Mitosis", "type": "journal"}
    pubs = [dict(base), dict(base), dict(base), dict(base, key="wei2023mitosis")]

    result = parse_bibtex(publications_to_bibtex(pubs))

    assert result.problems == []
    assert [e.key for e in result.entries] == [
        "wei2023mitosis",
        "wei2023mitosisb",
        "wei2023mitosisc",
        "wei2023mitosisd",
    ]


def test_explicit_key_argument_wins() -> None:
    text = publication_to_bibtex({"title": "T", "key": "old"}, key="new key")

    assert text.startswith("@misc{newkey,\n")


# --- CSL-JSON -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pub_type", "csl_type"),
    [
        ("conference", "paper-conference"),
        ("workshop", "paper-conference"),
        ("journal", "article-journal"),
        ("preprint", "article"),
        ("thesis", "thesis"),
        ("book", "book"),
        ("chapter", "chapter"),
        ("report", "report"),
    ],
)
def test_csl_types(pub_type: str, csl_type: str) -> None:
    assert publication_to_csl({"title": "T", "type": pub_type})["type"] == csl_type


def test_csl_item() -> None:
    item = publication_to_csl(sample_publication())

    assert item["id"] == "wei2023fast"
    assert item["title"] == sample_publication()["title"]
    assert item["author"] == [
        {"given": "Xingda", "family": "Wei"},
        {"given": "Tianxia", "family": "Wang"},
        {"given": "Rong", "family": "Chen"},
        {"literal": "魏星达"},
        {"given": "Ludwig", "non-dropping-particle": "van", "family": "Beethoven"},
    ]
    assert item["issued"] == {"date-parts": [[2023, 10]]}
    assert item["container-title"].startswith("Proceedings of the ACM SIGOPS")
    assert item["container-title-short"] == "SOSP"
    assert item["DOI"] == "10.1145/3600006.3613157"
    assert item["URL"] == "https://example.org/a_b%20c.pdf"
    assert item["page"] == "1–15"
    assert item["publisher"] == "ACM"


def test_csl_with_explicit_id_and_sparse_publication() -> None:
    item = publication_to_csl(
        {"title": "Only a Title", "type": "preprint", "arxiv_id": "2401.01234", "year": 2024},
        id="custom",
    )

    assert item["id"] == "custom"
    assert item["issued"] == {"date-parts": [[2024]]}
    assert item["URL"] == "https://arxiv.org/abs/2401.01234"
    assert "author" not in item and "DOI" not in item and "container-title" not in item


# --- TeX to Unicode without loss ------------------------------------------------------------


def test_tex_heavy_titles_keep_every_word() -> None:
    """Logos, a title that is only a macro, \\noopsort and DBLP's math: no word vanishes."""
    result = load("tex_heavy.bib")
    entries = by_key(result)
    titles = {key: e.data["title"] for key, e in entries.items()}

    assert titles == {
        "tb1": "Update on Pascal Metafont",
        "tb2": "The status of Metafont at OCLC",
        "tb3": "LaTeX2ε for AMS authors, with METAFONT, ConTeXt and XeTeX",
        "tb4": "TUG",
        "tb5": "The TeXbook",  # as TeX prints it: the space after a control word is eaten
        "tb6": "Lower bounds for AC^0 circuits with Frobnicate mod gates",
    }
    assert entries["tb1"].data["venue"] == "TUGboat"
    assert entries["tb5"].data["year"] == 1984  # the sort key 1973b is not the year
    assert entries["tb6"].warnings == [
        "unknown LaTeX command \\Frobnicate was kept as the text 'Frobnicate'"
    ]
    assert all(e.warnings == [] for key, e in entries.items() if key != "tb6")


def test_journal_macros_keep_every_word() -> None:
    """What the TeX users' group journal bibliography and the BibTeX distribution's example
    file taught: {\\Dash}, \\thinspace and \\emdash between words, a \\kern with its dimension,
    a logo swallowing the space after it (as TeX does), accents on an empty group, \\switchargs
    in a year; an unknown command never runs two words together."""
    entries = by_key(load("tugboat_macros.bib"))

    assert {key: e.data["title"] for key, e in entries.items()} == {
        "tm1": "Glue setting—an example",
        "tm2": "TeX at Riverside A & M",
        "tm3": "DviviewVDU: a page previewer",
        "tm4": "Die TeXnische Komödie: contents of issue 2",
        "tm5": "Actes des Journées sur le Marāthī",
        "tm6": "Colophon— Typesetting News",
        "tm7": "Before Whatsit after and Gizmo tail",
        "tm8": "Review of Fonts at Home and fontinst's \\fontdimen (TUGboat 9(2))",
    }
    assert entries["tm5"].data["year"] == 1968  # "1968--90", not 9019
    assert entries["tm7"].warnings == [
        "unknown LaTeX command \\Whatsit was kept as the text 'Whatsit'",
        "unknown LaTeX command \\Gizmo was kept as the text 'Gizmo'",
    ]
    assert all(e.warnings == [] for key, e in entries.items() if key != "tm7")


def test_exports_html_references_and_a_suffix_written_last() -> None:
    """ACM's "\\&\\#38;" and "\\&\\#x2019;", JabRef's "&amp;" become the characters; "AT&T" stays;
    JabRef's "Vale, James E., Jr." and Google Scholar's "Moore, B, III" keep Jr. and III as
    suffixes (BibTeX's "Last, Jr, First" would make them first names)."""
    entries = by_key(load("exports.bib"))

    assert entries["Quill:2012:NWO:1111.2222"].data["title"] == (
        "Needs & Wishes of Older Travellers’ Companions"
    )
    lind = entries["Lind_2006"].data
    assert lind["venue"] == "Nutrition & Sleep"
    assert lind["title"] == "Cocoa at night: AT&T and R&D teams compared"
    assert [(a["name"], a["given"], a["family"], a["suffix"]) for a in lind["authors"]] == [
        ("Eva Lind", "Eva", "Lind", None),
        ("James E. Vale Jr.", "James E.", "Vale", "Jr."),
    ]
    reyes = entries["reyes2018model"].data
    assert [a["name"] for a in reyes["authors"]] == ["Ana Reyes", "B Moore III"]
    assert reyes["authors"][1]["suffix"] == "III"
    assert reyes["authors_incomplete"]
    # Math escaped as text is decoded as math; a dollar with no command in it stays.
    assert entries["DBLP:journals/x/QuillS21"].data["title"] == (
        "A Size Theorem for AC^0[⊕] Circuits"
    )
    assert entries["quillChromaticBounds2018"].data["title"] == (
        "Bounds on χ for Sparse Graphs, and $100 Prizes"
    )


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        ("\\BibTeX{} and \\LaTeX", "BibTeX and LaTeX"),
        ("{\\MP} and {\\LuaTeX}", "MetaPost and LuaTeX"),
        ("\\emph{Very} \\textbf{bold}", "Very bold"),
        ("\\url{https://example.org}", "https://example.org"),
        ("5\\textperthousand", "5‰"),  # not in the fast table: pylatexenc's
        ("$\\aleph_0$ sets", "ℵ_0 sets"),
        ("\\cs{relax} considered", "\\relax considered"),
        # biblatex
        (
            '\\mkbibquote{Intention} und \\mkbibquote{Intentionalit{\\"a}t}',
            "Intention und Intentionalität",
        ),
        ("methodology\\hyphen independent", "methodology-independent"),
    ],
)
def test_tex_commands_become_text(latex: str, text: str) -> None:
    entry = parse_bibtex("@misc{k, title = {" + latex + "}, author = {A, B}, year = 2020}")

    assert entry.entries[0].data["title"] == text
    assert entry.entries[0].warnings == []


# --- limits ---------------------------------------------------------------------------------


def _bomb(levels: int) -> str:
    """``@string`` macros that each double the one before: 2**levels copies of "ab"."""
    macros = "".join(f"@string{{s{i} = s{i - 1} # s{i - 1}}}\n" for i in range(1, levels + 1))
    return f'@string{{s0 = "ab"}}\n{macros}@misc{{x, title = s{levels}, year = 2020}}\n'


def test_a_macro_expansion_bomb_is_refused_with_the_macro_named() -> None:
    """40 doubling macros would be a 2 TB title; expansion stops at MAX_VALUE_CHARS."""
    text = _bomb(40) + "@misc{y, title = {Kept}, year = 2020}\n"
    result = parse_bibtex(text)

    assert [e.key for e in result.entries] == ["y"]
    assert [(p.line, p.key, p.severity) for p in result.problems] == [
        (17, "s16", "error"),  # 2 * 2**16 characters: the first macro over the limit
        (42, "x", "error"),
    ]
    assert f"longer than {MAX_VALUE_CHARS:,} characters" in result.problems[0].message
    assert "The field 'title'" in result.problems[1].message
    assert "not imported" in result.problems[1].message


def test_a_value_just_under_the_limit_is_kept() -> None:
    result = parse_bibtex(_bomb(15))  # 65,536 characters

    assert len(result.entries[0].data["title"]) == 2 * 2**15
    assert result.problems == []


def test_a_file_with_too_many_entries_is_refused_before_parsing() -> None:
    tiny = "".join(f"@misc{{k{i}, title = {{T{i}}}}}\n" for i in range(MAX_BIBTEX_ENTRIES + 1))
    with pytest.raises(BibtexTooLarge, match=f"holds {MAX_BIBTEX_ENTRIES + 1:,} entries"):
        parse_bibtex(tiny)
    # @string, @comment and @preamble are not counted as entries.
    at_limit = tiny.replace("@misc{k0, title = {T0}}", "@string{k0 = {T0}}", 1)
    assert len(parse_bibtex(at_limit).entries) == MAX_BIBTEX_ENTRIES


def test_a_biblatex_subtitle_is_part_of_the_title() -> None:
    entry = parse_bibtex(
        "@incollection{w, title = {The True Frontier}, subtitle = {Confronting the Realities},"
        " author = {Westfahl, Gary}, year = 1999}"
    ).entries[0]

    assert entry.data["title"] == "The True Frontier: Confronting the Realities"


def test_the_asterisk_operator_marks_a_co_first_author_too() -> None:
    """al-folio sites write U+2217 (∗) as often as *: it is a marker, not part of the name."""
    entry = parse_bibtex("@misc{k, title = {T}, author = {Qiu, Chenxi and ∗Yadav, Sourabh}}")

    assert names(entry.entries[0]) == ["Chenxi Qiu", "Sourabh Yadav"]
    assert [a["co_first"] for a in entry.entries[0].data["authors"]] == [False, True]


# --- names and roles (names.bib) -------------------------------------------------------------


def _parts(author: dict) -> tuple:
    return (author["given"], author["particle"], author["family"], author["suffix"])


def test_names_keep_their_parts() -> None:
    entries = by_key(load("names.bib"))

    for key in ("particle-in-family", "braced-particle"):
        # The words before the comma are the family name; only lower-case leading words are
        # a particle.
        assert _parts(entries[key].data["authors"][0]) == (
            "Luis", None, "Vázques de Parga", None), key  # fmt: skip
    authors = entries["von-and-jr"].data["authors"]
    assert [_parts(a) for a in authors] == [
        ("Ludwig", "van", "Beethoven", None),
        ("John", None, "Smith", "Jr."),
        ("Martin Luther", None, "King", "Jr."),
        ("Juan", "de la", "Cruz", None),
    ]
    assert names(entries["von-and-jr"]) == [
        "Ludwig van Beethoven", "John Smith Jr.", "Martin Luther King Jr.", "Juan de la Cruz",
    ]  # fmt: skip
    corporate = entries["corporate"].data["authors"][0]
    assert _parts(corporate) == (None, None, "LaTeX 3 Project Team", None)
    assert [_parts(a) for a in entries["dblp-forms"].data["authors"]] == [
        ("Barry W.", None, "Peddycord", "III"),
        ("Chong-U", None, "Lim", None),
        ("Wil M. P.", "van der", "Aalst", None),
        ("Jurriën", None, "Stutterheim", None),
    ]


def test_editors_are_editors_and_and_others_is_kept() -> None:
    entries = by_key(load("names.bib"))

    volume = entries["edited-volume"].data["authors"]
    assert [(a["name"], a["role"]) for a in volume] == [
        ("Hans Ulrich Gumbrecht", "editor"), ("K. Ludwig Pfeiffer", "editor"),
    ]  # fmt: skip
    chapter = entries["chapter-with-editors"].data["authors"]
    assert [(a["name"], a["role"]) for a in chapter] == [
        ("Jane Doe", "author"), ("Richard Roe", "editor"),
    ]  # fmt: skip
    many = entries["and-others"].data
    assert names(entries["and-others"]) == ["Xingda Wei", "Rong Chen"]
    assert many["authors_incomplete"] is True
    assert entries["edited-volume"].data["authors_incomplete"] is False


def test_a_part_of_a_book_inherits_the_books_author() -> None:
    entries = by_key(load("names.bib"))

    assert names(entries["part-of-book"]) == ["Donald E. Knuth"]
    assert entries["part-of-book"].data["publisher"] == "Addison-Wesley"


def test_an_entry_without_authors_is_imported_without_authors() -> None:
    entry = by_key(load("names.bib"))["no-authors"]

    assert entry.data["authors"] == [] and entry.data["title"] == "An Anonymous Report"
    assert "entry has no authors" in entry.warnings


def test_names_and_roles_survive_bibtex_export() -> None:
    originals = [e.data for e in load("names.bib").entries]

    text = publications_to_bibtex(originals)
    again = by_key(parse_bibtex(text))

    assert "author = {Wei, Xingda and Chen, Rong and others}" in text or (
        "author = {Xingda Wei and Rong Chen and others}" in text
    )
    assert "editor = {Hans Ulrich Gumbrecht and K. Ludwig Pfeiffer}" in text
    assert "{LaTeX 3 Project Team}" in text
    for before in originals:
        after = again[before["key"]].data
        assert after["authors"] == before["authors"], before["key"]
        assert after["authors_incomplete"] == before["authors_incomplete"], before["key"]


def test_names_and_roles_in_csl_json() -> None:
    entries = by_key(load("names.bib"))

    def csl(key: str) -> dict:
        return publication_to_csl(entries[key].data)

    assert csl("particle-in-family")["author"] == [{"family": "Vázques de Parga", "given": "Luis"}]
    assert csl("corporate")["author"] == [{"literal": "LaTeX 3 Project Team"}]
    assert csl("von-and-jr")["author"][:3] == [
        {"family": "Beethoven", "given": "Ludwig", "non-dropping-particle": "van"},
        {"family": "Smith", "given": "John", "suffix": "Jr."},
        {"family": "King", "given": "Martin Luther", "suffix": "Jr."},
    ]
    volume = csl("edited-volume")
    assert "author" not in volume
    assert volume["editor"] == [
        {"family": "Gumbrecht", "given": "Hans Ulrich"},
        {"family": "Pfeiffer", "given": "K. Ludwig"},
    ]
    assert csl("chapter-with-editors")["editor"] == [{"family": "Roe", "given": "Richard"}]


# --- ORCID: what a record holds beyond works ------------------------------------------------


def test_an_orcid_record_takes_each_works_own_doi_and_lists_what_it_leaves() -> None:
    from directory.formats.orcid import parse_orcid_record

    path = FIXTURES.parent / "orcid" / "record_person.json"
    record = parse_orcid_record(path.read_bytes(), "Rong Chen", max_bytes=1 << 20)

    works = {e.data["title"]: e.data for e in record.entries}
    assert works["A Journal Version of a Preprint"]["doi"] == "10.1145/9999.0001"
    # A chapter's only DOI is the book's ("part-of"): not the chapter's own.
    assert works["A Chapter Whose Only DOI Is the Book's"]["doi"] is None
    services = sorted((r.data["kind"], r.data["venue"], r.data["year"]) for r in record.records)
    assert services == [
        ("editorial", "ACM TOCS", 2022), ("other", "ACM", 2020), ("reviewer", "Nature", 2023),
    ]  # fmt: skip
    said = " ".join(p.message for p in record.problems)
    assert all(p.severity == "skipped" for p in record.problems)
    assert "research resources" in said
    # The person's biography, keywords and URLs are read for the profile (test_orcid_person).
    assert record.person.keywords == ["operating systems", "RDMA"]
    assert [(u.name, u.url) for u in record.person.urls] == [("Lab", "https://ipads.example.org")]


def test_orcid_works_and_activities_documents_are_read_too() -> None:
    import json

    from directory.formats.orcid import parse_orcid_record

    whole = json.loads((FIXTURES.parent / "orcid" / "record_person.json").read_text())
    activities = whole["activities-summary"]
    for document in (activities, activities["works"]):
        record = parse_orcid_record(json.dumps(document), "Rong Chen", max_bytes=1 << 20)
        assert record.problems == [] or all(p.severity == "skipped" for p in record.problems)
        assert len(record.entries) == 2
