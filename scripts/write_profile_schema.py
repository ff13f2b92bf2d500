"""Write the interchange document's JSON Schema, ``directory/schema/profile.schema.json``.

    .venv/bin/python scripts/write_profile_schema.py

The file is published as it is (docs/interchange.md); its entry definitions are made from
the entry kinds' declarations (``directory/models/entry_kinds.py``) and their columns, so
after adding or changing a kind, run this and commit the file. ``tests/test_entry_kinds.py``
fails while the file and the declarations disagree.
"""

from __future__ import annotations

from importlib import resources

from directory.services.interchange import schema_text


def main() -> None:
    path = resources.files("directory").joinpath("schema/profile.schema.json")
    with resources.as_file(path) as file:
        file.write_text(schema_text(), encoding="utf-8")
        print(f"wrote {file}")


if __name__ == "__main__":
    main()
