"""The placement parser reads what a person reads in a placement text, on many real-looking
texts, and says so when it cannot: an organisation and a kind, or "not understood"."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from directory import models as m
from directory.formats.placements import Placement, parse_placement, structure_placement

#: (text, organisation, kind, year): what a reader would take from each.
READABLE = [
    ("Assistant Professor, CMU (2024)", "CMU", "faculty", 2024),
    ("Postdoc at MIT", "MIT", "postdoc", None),
    ("Research Scientist, Google DeepMind", "Google DeepMind", "industry_research", None),
    ("Software Engineer @ ByteDance", "ByteDance", "industry", None),
    ("Software Engineer@ByteDance", "ByteDance", "industry", None),
    ("Postdoc at UC Berkeley", "UC Berkeley", "postdoc", None),
    ("Uber", "Uber", "industry", None),
    ("NVIDIA", "NVIDIA", "industry", None),
    ("Databricks", "Databricks", "industry", None),
    ("Assistant Professor at the University of Washington", "University of Washington",
     "faculty", None),
    ("Tenure-track Assistant Professor, ETH Zurich (Fall 2025)", "ETH Zurich", "faculty", 2025),
    ("Associate Professor, Department of Computer Science, Tsinghua University (2021-2023)",
     "Department of Computer Science, Tsinghua University", "faculty", 2021),
    ("Lecturer - University of Edinburgh, 2022", "University of Edinburgh", "faculty", 2022),
    ("Professor in Computer Science at MIT", "MIT", "faculty", None),
    ("Postdoctoral Researcher at EPFL (since 2023)", "EPFL", "postdoc", 2023),
    ("Post-doc, KAIST", "KAIST", "postdoc", None),
    ("Ph.D. student, Stanford", "Stanford", "other", None),
    ("PhD student at University of Toronto", "University of Toronto", "other", None),
    ("Research Scientist at Lawrence Livermore National Laboratory",
     "Lawrence Livermore National Laboratory", "government", None),
    ("NIST", "NIST", "government", None),
    ("Member of Technical Staff, OpenAI", "OpenAI", "industry_research", None),
    ("Senior Researcher, Microsoft Research Asia, since 2021", "Microsoft Research Asia",
     "industry_research", 2021),
    ("Researcher at Huawei", "Huawei", "industry_research", None),
    ("Google (Software Engineer)", "Google", "industry", None),
    ("Quant at Jane Street", "Jane Street", "industry", None),
    ("Co-founder & CTO, Acme Inc.", "Acme Inc.", "industry", None),
    ("Data Scientist | Airbnb", "Airbnb", "industry", None),
    ("SDE @ Amazon (2020)", "Amazon", "industry", 2020),
    ("Research Scientist, Carnegie Mellon University", "Carnegie Mellon University", "other",
     None),
    ("清华大学助理教授", "清华大学", "faculty", None),
    ("上海交通大学 博士后", "上海交通大学", "postdoc", None),
    ("阿里巴巴集团", "阿里巴巴集团", "industry", None),
    ("Engineer at 字节跳动", "字节跳动", "industry", None),
    ("  Assistant   Professor,\tCMU  ", "CMU", "faculty", None),
]  # fmt: skip

#: Texts a reader could not file under a kind: the organisation (if any) is suggested, and
#: the text is not understood (flagged).
UNREADABLE = [
    ("Stanford University", "Stanford University", None),
    ("travelling the world", "travelling the world", None),
    ("Postdoc", None, "postdoc"),
    ("2024", None, None),
    ('=HYPERLINK("http://x")', '=HYPERLINK("http://x")', None),
]


@pytest.mark.parametrize(("text", "organisation", "kind", "year"), READABLE)
def test_a_readable_placement_gives_its_organisation_kind_and_year(
    text, organisation, kind, year
) -> None:
    found = parse_placement(text)
    assert found == Placement(organisation, kind, year)
    assert found.understood
    assert kind in m.values(m.PLACEMENT_KINDS)


@pytest.mark.parametrize(("text", "organisation", "kind"), UNREADABLE)
def test_an_unreadable_placement_is_not_understood(text, organisation, kind) -> None:
    found = parse_placement(text)
    assert (found.organisation, found.kind) == (organisation, kind)
    assert not found.understood


@pytest.mark.parametrize("text", ["", "   ", None])
def test_no_text_is_an_empty_placement(text) -> None:
    assert parse_placement(text) == Placement()


def test_a_long_organisation_is_cut_to_the_column_s_length() -> None:
    found = parse_placement("Postdoc at " + "Very " * 100 + "Long University")
    assert found.kind == "postdoc" and len(found.organisation) == 200


def _record(**values):
    base = dict(placement=None, placement_organisation=None, placement_kind=None,
                placement_year=None, placement_unparsed=False)  # fmt: skip
    return SimpleNamespace(**(base | values))


def test_structure_is_read_from_the_text_only_when_none_is_given() -> None:
    record = _record(placement="Postdoc at MIT (2025)")
    structure_placement(record)
    assert (record.placement_organisation, record.placement_kind, record.placement_year) == (
        "MIT", "postdoc", 2025)  # fmt: skip
    assert record.placement_unparsed is False

    given = _record(placement="Postdoc at MIT", placement_organisation="Harvard",
                    placement_kind="faculty")  # fmt: skip
    structure_placement(given)
    assert (given.placement_organisation, given.placement_kind) == ("Harvard", "faculty")
    assert given.placement_year is None and given.placement_unparsed is False


def test_a_text_that_cannot_be_read_is_flagged_and_kept() -> None:
    record = _record(placement="Stanford University")
    structure_placement(record)
    assert record.placement == "Stanford University"
    assert record.placement_unparsed is True
    assert record.placement_organisation == "Stanford University"
    assert record.placement_kind is None
    # No text at all is no flag; the structure alone is complete.
    empty = _record(placement_organisation="CMU", placement_kind="faculty")
    structure_placement(empty)
    assert empty.placement_unparsed is False
