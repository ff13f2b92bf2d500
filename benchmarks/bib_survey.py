"""Import a folder of real .bib files as a new user would, and say what happened to each.

    python benchmarks/bib_survey.py FOLDER [--json]

For every ``*.bib`` file in FOLDER (not committed: public bibliographies are third-party data),
into a fresh SQLite database with one department member, it runs the import's preview
(``parse_bibtex`` + ``plan_import``), writes it (``apply_plan``, invalid entries skipped, every
possible duplicate kept as a new paper), previews the same file again, and prints per file:

* entries: the entries bibtexparser's own split finds (the file's own count, ``@string``,
  ``@preamble`` and ``@comment`` left out);
* imported: papers written (or found already there, e.g. the same paper twice in the file);
* skipped: entries not imported, each with the reason the preview gives;
* titles that lost words: an imported title missing a word of the entry's title field (the
  field with its LaTeX commands and braces taken out, compared case- and accent-blind);
* re-import adds: papers a second import of the same file would add (0 is right).

The last line sums the percentages over all files.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bibtexparser  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from directory import migrate  # noqa: E402
from directory import models as m  # noqa: E402
from directory.db import make_engine  # noqa: E402
from directory.formats.bibtex import BibtexTooLarge, parse_bibtex  # noqa: E402
from directory.services.pubimport import apply_plan, plan_import  # noqa: E402

_COMMAND_RE = re.compile(r"\\[a-zA-Z]+\*?|\\.")
_WORD_RE = re.compile(r"\w+")


def _words(text: str, macros: frozenset[str] = frozenset()) -> set[str]:
    """Words of ``text`` (LaTeX commands and braces dropped), folded case- and accent-blind;
    ``@string`` macro names (``"Proc." # stoc``) are not words of the title."""
    text = text.replace("{", "").replace("}", "")
    text = unicodedata.normalize("NFKD", _COMMAND_RE.sub(" ", text))
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    return set(_WORD_RE.findall(text)) - macros


def _raw_titles(text: str) -> tuple[dict[str, str], frozenset[str]]:
    """Each entry's raw title field by its key, from bibtexparser's bare split, and the names
    of the file's ``@string`` macros."""
    library = bibtexparser.parse_string(text, parse_stack=[])
    titles = {}
    for entry in library.entries:
        field = entry.fields_dict.get("title")
        if field is not None:
            titles[entry.key] = str(field.value)
    return titles, frozenset(s.key.casefold() for s in library.strings)


def _session(folder: Path) -> tuple[Session, m.Person]:
    engine = make_engine(f"sqlite:///{folder / 'survey.sqlite3'}")
    migrate.upgrade(engine)
    session = Session(engine)
    person = m.Person(slug="new-user", full_name="New User", sort_name="User, New",
                      role="faculty")  # fmt: skip
    session.add(person)
    session.commit()
    return session, person


def survey(path: Path) -> dict:
    data = path.read_bytes()
    text = data.decode("utf-8", errors="replace")
    counted = len(bibtexparser.parse_string(text, parse_stack=[]).entries)
    report: dict = {"file": path.name, "entries": counted}
    try:
        result = parse_bibtex(data)
    except (BibtexTooLarge, ValueError) as exc:
        report.update(imported=0, skipped=[("(whole file)", str(exc))], lost_words=[],
                      reimport_adds=0)  # fmt: skip
        return report
    with tempfile.TemporaryDirectory() as folder:
        session, person = _session(Path(folder))
        plan = plan_import(session, person, result.entries, result.problems)
        decisions = {e.index: "new" for e in plan.entries if e.needs_decision}
        # Entries only: a @preamble or free text between entries is reported by the preview
        # but is no entry of the file.
        skipped = [
            (e.key, e.reason) for e in plan.entries if e.status in ("error", "skipped") and e.key
        ]
        summary = apply_plan(session, plan, person, decisions, skip_invalid=True)
        session.commit()
        again = parse_bibtex(data)
        second = plan_import(session, person, again.entries, again.problems)
        adds = sum(1 for e in second.entries if e.status in ("new", "duplicate"))
        session.close()
        session.get_bind().dispose()
    raw, macros = _raw_titles(text)
    lost = []
    for entry in result.entries:
        before = raw.get(entry.key)
        if before is None:
            continue
        missing = _words(before, macros) - _words(entry.data.get("title") or "")
        if missing:
            lost.append((entry.key, sorted(missing)))
    imported = sum(1 for e in plan.entries if e.status not in ("error", "skipped"))
    # Entries neither imported nor skipped: a proceedings volume its papers crossref (its
    # fields are theirs, it is not a paper of its own), or entries inside a @comment{...}
    # that bibtexparser's split counts.
    folded = max(counted - imported - len(skipped), 0)
    report.update(imported=imported, created=summary.created, skipped=skipped,
                  folded=folded, lost_words=lost, reimport_adds=adds)  # fmt: skip
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
            papers = report["entries"] - report.get("folded", 0)
            share = 100 * report["imported"] / papers if papers else 100
            print(f"{report['file']}: {report['entries']} entries, {report['imported']} "
                  f"imported ({share:.1f} %), {len(report['skipped'])} skipped, "
                  f"{report.get('folded', 0)} not entries of their own (crossref parents, "
                  "inside @comment), "
                  f"{len(report['lost_words'])} titles lost words, re-import adds "
                  f"{report['reimport_adds']}")  # fmt: skip
            for key, reason in report["skipped"]:
                print(f"    skipped {key}: {reason}")
            for key, words in report["lost_words"]:
                print(f"    title of {key} lost: {' '.join(words)}")
        total += report["entries"] - report.get("folded", 0)
        imported += report["imported"]
        lost += len(report["lost_words"])
        adds += report["reimport_adds"]
    if total:
        print(f"all files: {total} entries, {100 * imported / total:.1f} % imported, "
              f"{lost} titles lost words, re-import adds {adds}")  # fmt: skip


if __name__ == "__main__":
    main()
