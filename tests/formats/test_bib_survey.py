"""tests/support/bib_survey.py, the import of real .bib files as a new user would: its check that
no title loses a word is a real one (pylatexenc's decoding of the raw field against what is
stored), and its per-file report counts what the preview says."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.bib_survey import lost_words, survey

BIB = Path(__file__).resolve().parents[1] / "fixtures" / "bibtex"


def test_a_word_dropped_or_run_together_is_lost() -> None:
    raw = r"{Glue setting{\Dash}an example of {\tt WEB}}"
    assert lost_words(raw, "Glue setting—an example of WEB") == []
    assert lost_words(raw, "Glue settingDashan example of WEB") == ["an", "setting"]
    assert lost_words(r"Update on Pascal \MF", "Update on Pascal") == ["metafont"]
    # An unknown command keeps its name, so the reference expects it.
    assert lost_words(r"Before{\Whatsit}after", "Before after") == ["whatsit"]


def test_what_tex_prints_is_what_the_reference_reads() -> None:
    assert (
        lost_words(r"{\TeX}82 and Die \TeX nische Kom{\"o}die", "TeX82 and Die TeXnische Komödie")
        == []
    )
    assert lost_words(r"{DVIto\kern-.15em VDU}", "DVItoVDU") == []
    assert (
        lost_words(
            r"Needs \&\#38; Motivations of Older People\&\#x2019;s",
            "Needs & Motivations of Older People’s",
        )
        == []
    )
    assert lost_words(r"{\={}\i}-English", "ī-English") == []
    # A space more is no word less (math spacing: "$\Omega$Times" kept as "Ω Times").
    assert lost_words(r"$ \Omega $Times", "Ω Times") == []
    # A title that is only an @string macro's name is not compared with the name.
    assert lost_words("Proc. of stoc", "Proc. of the Symposium", frozenset({"stoc"})) == []


def test_the_report_counts_imported_skipped_refused_and_a_second_import(tmp_path) -> None:
    for name in ("generic_titles.bib", "malformed.bib"):
        shutil.copy(BIB / name, tmp_path / name)

    generic = survey(tmp_path / "generic_titles.bib")
    assert (generic["entries"], generic["imported"], generic["skipped"], generic["refused"]) == (
        5,
        5,
        [],
        [],
    )
    assert generic["lost_words"] == []
    assert generic["reimport_adds"] == 0

    malformed = survey(tmp_path / "malformed.bib")
    assert malformed["refused"]
    assert malformed["reimport_adds"] == 0
