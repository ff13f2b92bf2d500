"""The one rule about characters a piece of text may hold.

Control characters (C0 but tab, line feed and carriage return; DEL; C1), lone surrogates and
the non-characters U+FFFE/U+FFFF are refused by PostgreSQL (NUL), break XML 1.0 (most of them)
and mean nothing on a page. Forms refuse them with a message next to the field
(:class:`directory.web.csrf.DirectoryForm`), every flush strips those that other paths bring
(importers, the command line: ``write_gates.strip_unstorable_text``), and every XML
output passes its text through :func:`strip_control_characters` once more, for rows stored
before this rule existed.
"""

from __future__ import annotations

import re
from typing import Any

CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def has_control_characters(value: str) -> bool:
    return CONTROL_CHARACTERS.search(value) is not None


def strip_control_characters(value: str) -> str:
    """``value`` without the characters no text of the directory may hold."""
    return CONTROL_CHARACTERS.sub("", value)


def strip_control_characters_deep(value: Any) -> Any:
    """The same for a JSON value: every string in it, keys included."""
    if isinstance(value, str):
        return strip_control_characters(value)
    if isinstance(value, list):
        return [strip_control_characters_deep(v) for v in value]
    if isinstance(value, dict):
        return {
            strip_control_characters_deep(k): strip_control_characters_deep(v)
            for k, v in value.items()
        }
    return value
