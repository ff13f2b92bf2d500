"""Import a folder of real .bib files as a new user would, and say what happened to each.

    python -m tests.support.bib_survey FOLDER [--json]

For every ``*.bib`` file in FOLDER (not committed: public bibliographies are third-party data),
into a fresh SQLite database with one department member, it runs the import's preview
(``parse_bibtex`` + ``plan_import``), writes it (``apply_plan``, invalid entries skipped, every
possible duplicate kept as a new paper), previews the same file again, and prints per file:

* entries: the entries bibtexparser's own split finds (the file's own count, ``@string``,
  ``@preamble`` and ``@comment`` left out; entries it refuses for a repeated key or field
  counted too);
* imported: papers written (or found already there, e.g. the same paper twice in the file,
  counted apart as "the same paper as an earlier entry");
* skipped: entries that are no publication (``@set``, ``@IEEEtranBSTCTL``...), and refused:
  entries that cannot be imported (no title...), each with the reason the preview gives;
* titles that lost words: an imported title missing a word a reader of the typeset title
  sees. The reference is pylatexenc's ``latex2text`` of the raw field (HTML character
  references decoded), where a command neither it nor a short list of TeX-world logos and
  journal macros here knows prints its name as a word of its own; words are compared case-
  and accent-blind, and a word run together with its neighbour ("settingDashan") is lost;
* re-import adds: papers a second import of the same file would add (0 is right).

The last line sums the percentages over all files.
"""

from __future__ import annotations

import argparse
import html
import json
import logging
import re
import tempfile
import unicodedata
from pathlib import Path

import bibtexparser  # noqa: E402
from bibtexparser.model import Entry  # noqa: E402
from pylatexenc.latex2text import LatexNodes2Text  # noqa: E402
from sqlalchemy.orm import Session, sessionmaker  # noqa: E402

from directory import migrate  # noqa: E402
from directory import models as m  # noqa: E402
from directory.db import make_engine  # noqa: E402
from directory.formats.bibtex.parse import parse_bibtex  # noqa: E402
from directory.formats.bibtex.results import BibtexTooLarge  # noqa: E402
from directory.services import write_gates  # noqa: E402
from directory.services.pubimport.planning import plan_import  # noqa: E402
from directory.services.pubimport.writing import apply_plan  # noqa: E402

_WORD_RE = re.compile(r"\w+")

# Logos and commands whose meaning the reference needs and pylatexenc's table lacks (it
# drops them, which would make the reference lose the very words the check looks for). They
# are written here from what the commands print, not taken from the importer's own table.
_REFERENCE_MACROS = {
    "TeX": "TeX",
    "LaTeX": "LaTeX",
    "AmS": "AMS",
    "AMS": "AMS",
    "BibTeX": "BibTeX",
    "MF": "Metafont",
    "METAFONT": "METAFONT",
    "MP": "MetaPost",
    "MetaPost": "MetaPost",
    "ConTeXt": "ConTeXt",
    "XeTeX": "XeTeX",
    "LuaTeX": "LuaTeX",
    "eTeX": "\u03b5-TeX",
    "PiCTeX": "PiCTeX",
    "SliTeX": "SliTeX",
    "AmSTeX": "AMS-TeX",
    "AMSTeX": "AMS-TeX",
    "TUB": "TUGboat",
    "LaTeXe": "LaTeX2\u03b5",
    "PS": "PostScript",
    "AmSLaTeX": "AMS-LaTeX",
    "AMSLaTeX": "AMS-LaTeX",
    "LAMSTeX": "LAMS-TeX",
    "Bib": "Bib",
    "/": "",  # TUGboat's \PS and \Bib; \/ is an italic correction
    # TUGboat's dashes, and the formatting commands of TUGboat and biblatex (their
    # argument stays), \cs{x} printing the control sequence \x.
    "Dash": "\u2014",
    "emdash": "\u2014",
    "endash": "\u2013",
    "slash": "/",
    "thinspace": " ",
    "tt": "",
    "em": "",
    "bf": "",
    "it": "",
    "sl": "",
    "sc": "",
    "rm": "",
    "sf": "",
    "relax": "",
    "noindent": "",
    "acro": "",
    "pkg": "",
    "texttt": "",
    "mkbibquote": "",
    "mbox": "",
    # TUGboat's \booktitle (its @preamble: {\em #1}), \pgm, font switches, \tubissue.
    "booktitle": "",
    "pgm": "",
    "ssf": "",
    "smc": "",
    "slnine": "",
    "eightrm": "",
    "unskip": "",
    "rlap": "",
    "macro": "\\",
    "tubissue": "TUGboat",
    "file": "",
    "hyphen": "-",
    "cs": "\\",
}
_ESCAPED_MATH_RE = re.compile(r"\$[^$]*\\[A-Za-z][^$]*\$")
# \kern and its dimension are spacing (one optional space after the unit, as TeX reads it).
_KERN_RE = re.compile(r"\\kern\s*-?(?:\d+\.?\d*|\.\d+)\s*(?:em|ex|pt|mm|cm|in|bp|sp|pc|dd|cc|mu) ?")


class _Reference(LatexNodes2Text):
    """pylatexenc's latex2text, except that a command neither it nor the list above knows
    prints its name as a word of its own (pylatexenc would drop it, and with it the word
    the check must find)."""

    def macro_node_to_text(self, node):  # noqa: ANN001, ANN201 - pylatexenc's signature
        name = node.macroname
        if self.latex_context.get_macro_spec(name) is not None:
            return super().macro_node_to_text(node)
        return _REFERENCE_MACROS.get(name, f" {name} ")


# pylatexenc logs a macro it cannot expand (a \frac without its arguments) and goes on.
logging.getLogger("pylatexenc").setLevel(logging.ERROR)
_REFERENCE = _Reference(math_mode="text", strict_latex_spaces=False)


def _fold(text: str) -> list[str]:
    text = unicodedata.normalize("NFKD", text.replace("\u00ad", ""))  # soft hyphen: \\-
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    text = text.replace("\u0131", "i")  # dotless i: {\={}\i} and \=\i are both an i
    return _WORD_RE.findall(text)


def _reference_words(raw: str, macros: frozenset[str] = frozenset()) -> list[str]:
    """Every word a reader of the typeset title sees: the raw field decoded by pylatexenc's
    latex2text (unknown commands keeping their names), folded case- and accent-blind;
    ``@string`` macro names (``"Proc." # stoc``) are not words of the title."""
    try:
        text = html.unescape(_REFERENCE.latex_to_text(_KERN_RE.sub("", raw)))
        # Math escaped as text (DBLP's "{\\textdollar}{\\textbackslash}mathrm..."): the
        # decoded "$\\mathrm{AC}^0$" is LaTeX again, and the reader sees it typeset.
        text = _ESCAPED_MATH_RE.sub(lambda m: _REFERENCE.latex_to_text(m.group(0)), text)
    except Exception:  # noqa: BLE001 - a field pylatexenc cannot walk: fall back to plain words
        text = re.sub(r"\\([A-Za-z]+)", r" \1 ", raw)
    return [w for w in _fold(text) if w not in macros]


def lost_words(raw: str, stored: str, macros: frozenset[str] = frozenset()) -> list[str]:
    """Words of the raw title, as the reference decodes it, that the stored title lacks
    (a word run together with its neighbour, "settingDashan", is lost too)."""
    words = _fold(stored)
    kept = set(words)
    # A space more is no word less: "ΩTimes" kept as "Ω Times" (math spacing) is kept.
    kept |= {a + b for a, b in zip(words, words[1:], strict=False)}
    return sorted({w for w in _reference_words(raw, macros) if w not in kept})


def _file_entries(text: str) -> tuple[int, dict[int, str], frozenset[str]]:
    """How many entries bibtexparser's bare split finds (those it refuses for a repeated key
    or field counted too), each entry's raw title by its first line (1-based: keys may be
    missing or repeated), and the names of the file's ``@string`` macros."""
    library = bibtexparser.parse_string(text, parse_stack=[])
    strings = {s.key.casefold(): str(s.value) for s in library.strings}
    entries = list(library.entries)
    for block in library.failed_blocks:
        inner = getattr(block, "ignore_error_block", None)
        if isinstance(inner, Entry):
            entries.append(inner)
    titles = {}
    for entry in entries:
        field = entry.fields_dict.get("title")
        if field is not None:
            value = str(field.value).strip()
            # A title that is only a macro (a journal's own entry: title = j-TUGboat).
            titles[entry.start_line + 1] = strings.get(value.casefold(), value)
    return len(entries), titles, frozenset(strings)


def _session(folder: Path) -> tuple[Session, m.Person]:
    engine = make_engine(f"sqlite:///{folder / 'survey.sqlite3'}")
    migrate.upgrade(engine)
    # The write gates fill what every session's writes need (a person's name keys): a survey
    # run alone, before any app has installed them, needs them too.
    sessions = sessionmaker(engine)
    write_gates.install(sessions)
    session = sessions()
    person = m.Person(slug="new-user", full_name="New User", sort_name="User, New",
                      role="faculty")  # fmt: skip
    session.add(person)
    session.commit()
    return session, person


def survey(path: Path) -> dict:
    data = path.read_bytes()
    text = data.decode("utf-8", errors="replace")
    counted, raw, macros = _file_entries(text)
    report: dict = {"file": path.name, "entries": counted}
    try:
        result = parse_bibtex(data)
    except (BibtexTooLarge, ValueError) as exc:
        report.update(imported=0, repeats=0, skipped=[], refused=[("(whole file)", str(exc))],
                      lost_words=[], reimport_adds=0, folded=0)  # fmt: skip
        return report
    with tempfile.TemporaryDirectory() as folder:
        session, person = _session(Path(folder))
        plan = plan_import(session, person, result.entries, result.problems)
        decisions = {e.index: "new" for e in plan.entries if e.needs_decision}
        # Entries only: a @preamble, a @comment or free text between entries is reported by
        # the preview (with no key) but is no entry of the file.
        skipped = [(e.key, e.reason) for e in plan.entries if e.status == "skipped" and e.key]
        refused = [(e.key or f"line {e.line}", e.reason) for e in plan.entries
                   if e.status == "error"]  # fmt: skip
        summary = apply_plan(session, plan, person, decisions, skip_invalid=True)
        session.commit()
        again = parse_bibtex(data)
        second = plan_import(session, person, again.entries, again.problems)
        adds = sum(1 for e in second.entries if e.status in ("new", "duplicate"))
        session.close()
        session.get_bind().dispose()
    lost = []
    for entry in result.entries:
        before = raw.get(entry.line)
        if before is None:
            continue
        missing = lost_words(before, entry.data.get("title") or "", macros)
        if missing:
            lost.append((entry.key, missing))
    imported = sum(1 for e in plan.entries if e.status not in ("error", "skipped"))
    repeats = sum(1 for e in plan.entries if e.status == "repeat")
    # Entries neither imported, skipped nor refused: a proceedings volume its papers crossref
    # (its fields are theirs, it is not a paper of its own), or entries inside a @comment{...}
    # that bibtexparser's split counts.
    folded = max(counted - imported - len(skipped) - len(refused), 0)
    report.update(imported=imported, repeats=repeats, created=summary.created,
                  skipped=skipped, refused=refused, folded=folded, lost_words=lost,
                  reimport_adds=adds)  # fmt: skip
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--json", action="store_true", help="one JSON object per file")
    args = parser.parse_args()
    total = imported = lost = adds = 0
    for path in sorted(args.folder.glob("*.bib")):
        report = survey(path)
        if args.json:
            print(json.dumps(report, ensure_ascii=False))
        else:
            papers = report["entries"] - report["folded"]
            share = 100 * report["imported"] / papers if papers else 100
            print(f"{report['file']}: {report['entries']} entries, {report['imported']} "
                  f"imported ({share:.1f} %; {report['repeats']} of them the same paper as an "
                  f"earlier entry), {len(report['skipped'])} skipped, "
                  f"{len(report['refused'])} refused, {report['folded']} not entries of their "
                  f"own (crossref parents, inside @comment), {len(report['lost_words'])} "
                  f"titles lost words, re-import adds {report['reimport_adds']}")  # fmt: skip
            for key, reason in report["skipped"]:
                print(f"    skipped {key}: {reason}")
            for key, reason in report["refused"]:
                print(f"    refused {key}: {reason}")
            for key, words in report["lost_words"]:
                print(f"    title of {key} lost: {' '.join(words)}")
        total += report["entries"] - report["folded"]
        imported += report["imported"]
        lost += len(report["lost_words"])
        adds += report["reimport_adds"]
    if total:
        print(f"all files: {total} entries, {imported} imported ({100 * imported / total:.2f} "
              f"%), {lost} titles lost words, re-import adds {adds}")  # fmt: skip


if __name__ == "__main__":
    main()
