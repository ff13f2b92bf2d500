"""A person's identifiers read from what people paste: the bare id or the source's URL, one
stored form, and an ORCID iD's ISO 7064 mod 11-2 check digit verified."""

from __future__ import annotations

import pytest

from directory.formats.person_ids import (
    IdentifierError,
    normalise_identifier,
    normalise_orcid,
    orcid_checksum,
)


@pytest.mark.parametrize(
    "text",
    ["0000-0002-1825-0097", "https://orcid.org/0000-0002-1825-0097", "orcid.org/0000000218250097",
     "  http://www.orcid.org/0000-0002-1825-0097/ "],
)  # fmt: skip
def test_an_orcid_id_in_any_written_form_is_stored_in_one(text) -> None:
    assert normalise_orcid(text) == "0000-0002-1825-0097"


def test_the_check_digit_can_be_x() -> None:
    # ORCID's own example of an iD whose check character is X.
    assert orcid_checksum("000000021694233") == "X"
    assert normalise_orcid("0000-0002-1694-233x") == "0000-0002-1694-233X"


@pytest.mark.parametrize(
    "text", ["0000-0002-1825-0098", "0000-0002-1852-0097", "0000-0002-1825", "Ada Lovelace"]
)
def test_a_mistyped_or_swapped_digit_and_a_non_id_are_refused(text) -> None:
    with pytest.raises(IdentifierError):
        normalise_orcid(text)


@pytest.mark.parametrize(
    ("key", "text", "stored"),
    [
        ("dblp", "https://dblp.org/pid/12/3456-1.html", "12/3456-1"),
        ("dblp", "w/XingdaWei", "w/XingdaWei"),
        ("openalex", "https://openalex.org/authors/a5023888391", "A5023888391"),
        ("openalex", "A5023888391", "A5023888391"),
        ("semantic_scholar", "https://www.semanticscholar.org/author/Ada-Lovelace/1741101",
         "1741101"),
        ("semantic_scholar", "1741101", "1741101"),
        ("orcid", "", None),
    ],
)  # fmt: skip
def test_each_source_id_from_its_url_or_bare(key, text, stored) -> None:
    assert normalise_identifier(key, text) == stored


@pytest.mark.parametrize(
    ("key", "text"),
    [("dblp", "Ada Lovelace"), ("openalex", "W123456"), ("semantic_scholar", "abc")],
)
def test_each_source_refuses_what_is_not_its_id(key, text) -> None:
    with pytest.raises(IdentifierError):
        normalise_identifier(key, text)
