"""Query parameters: what each one accepts, written once as a JSON Schema that three readers
share.

* The JSON API reads a parameter strictly: its value must be valid against the parameter's
  schema, exactly as written (no trimming, no case folding), or the answer is a 400 naming the
  parameter (:class:`BadFilter`). Given twice, it is refused too.
* The API's OpenAPI document (:mod:`directory.web.api.openapi`) publishes the same schemas, so
  the document says what the API does: a value the document allows is read, any other refused.
* The web pages first tidy a value (trim it; fold the case of a word) and check it against the
  same schema; a value still refused is dropped, so an old or hand-edited bookmark still opens.

A filter class (:class:`Filters`) declares its fields, each with its parameter
(``field(default=..., metadata=read_text())``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Self

import jsonschema

#: The longest text a filter takes (longer is a bad value, not a shorter one).
MAX_FILTER_TEXT = 200
#: The highest page number asked for by a page or the API.
MAX_PAGE = 1_000_000
#: The most items the API answers in one page.
MAX_PER_PAGE = 100

#: A whole number as a query string writes one: no sign but "-", no leading zeros, ASCII; a
#: zero fraction ("18.0") too, since JSON Schema counts 18.0 as an integer and a client built
#: from the published schema may write it so.
_WHOLE_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(?:\.0+)?")
#: Words read as true and as false (the pages accept them in any case).
TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")
LETTERS = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


class BadFilter(ValueError):
    """A query parameter whose value its filter cannot take. The pages drop the value; the
    API answers 400 with :attr:`message`, naming :attr:`name`."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name, self.message = name, message


def _same(value: Any) -> Any:
    return value


def _trim(text: str) -> str:
    return text.strip()


def _instance(schema: Mapping[str, Any], text: str) -> Any:
    """The JSON value ``text`` stands for under ``schema``: an integer parameter's digits are
    a number (any other text stays text, which the schema then refuses)."""
    if schema.get("type") == "integer" and (whole := _WHOLE_NUMBER.fullmatch(text)):
        return int(whole.group(1))
    return text


@dataclass(frozen=True, eq=False)
class Parameter:
    """One query parameter's rule: ``schema`` is what it accepts (JSON Schema of the value,
    published in the OpenAPI document and checked by :meth:`read`); ``message`` says so in
    words (``{name}`` is the parameter's name); ``value`` turns an accepted value into the
    filter's; ``tidy`` is what a page does to a value before checking it."""

    schema: Mapping[str, Any]
    message: str
    value: Callable[[Any], Any] = _same
    tidy: Callable[[str], str] = _trim
    _validator: Any = field(init=False, repr=False)

    def __post_init__(self) -> None:
        jsonschema.Draft202012Validator.check_schema(self.schema)
        object.__setattr__(self, "_validator", jsonschema.Draft202012Validator(self.schema))

    def accepts(self, text: str) -> bool:
        """Whether the API takes ``text`` as this parameter's value (as written)."""
        return self._validator.is_valid(_instance(self.schema, text))

    def read(self, name: str, text: str) -> Any:
        """The value of ``text`` (a non-empty value as written), or :class:`BadFilter`."""
        if not self.accepts(text):
            raise BadFilter(name, self.message.format(name=name))
        return self.value(_instance(self.schema, text))


def _metadata(parameter: Parameter) -> dict[str, Any]:
    return {"parameter": parameter}


def read_text(limit: int = MAX_FILTER_TEXT) -> dict[str, Any]:
    # A NUL byte can match nothing, and PostgreSQL refuses it in any text parameter.
    schema = {"type": "string", "maxLength": limit, "pattern": "^[^\\x00]*$"}
    return _metadata(Parameter(schema, f"{{name}} must be text of at most {limit} characters"))


def read_choice(allowed: tuple[str, ...]) -> dict[str, Any]:
    schema = {"type": "string", "enum": list(allowed)}
    return _metadata(Parameter(schema, f"{{name}} must be one of: {', '.join(allowed)}"))


def read_integer(low: int, high: int) -> dict[str, Any]:
    schema = {"type": "integer", "minimum": low, "maximum": high}
    return _metadata(Parameter(schema, f"{{name}} must be a whole number from {low} to {high}"))


def read_boolean() -> dict[str, Any]:
    schema = {"type": "string", "enum": [*TRUE_WORDS, *FALSE_WORDS]}
    others = zip(TRUE_WORDS[1:], FALSE_WORDS[1:], strict=True)
    pairs = ", ".join(f"{yes}/{no}" for yes, no in others)
    return _metadata(
        Parameter(
            schema,
            f"{{name}} must be true or false (or {pairs})",
            value=lambda word: word in TRUE_WORDS,
            tidy=lambda text: text.strip().lower(),
        )
    )


def read_letter() -> dict[str, Any]:
    schema = {"type": "string", "enum": [*LETTERS, *(letter.lower() for letter in LETTERS)]}
    return _metadata(
        Parameter(
            schema,
            "{name} must be a letter from A to Z (either case)",
            value=str.upper,
        )
    )


#: Every API list's paging, and the page number of the pages that have one.
PAGE = read_integer(1, MAX_PAGE)


def parameter_of(f: Any) -> Parameter:
    """The :class:`Parameter` of a filter field."""
    return f.metadata["parameter"]


@dataclass(frozen=True)
class Filters:
    """The query-parameter filters of a page or an API list. Subclasses declare the fields,
    each with its parameter (``field(default=..., metadata=read_text())``); ``to_args`` writes
    them back for links (empty ones left out, so URLs stay short and bookmarkable)."""

    @classmethod
    def parameters(cls) -> dict[str, Parameter]:
        """Each field's name and parameter, in declaration order."""
        return {f.name: parameter_of(f) for f in fields(cls)}

    @classmethod
    def from_args(cls, args: Mapping[str, str], *, strict: bool = False) -> Self:
        """The filters in ``args``. An empty value keeps the field's default. With ``strict``
        (the API) a value is read as written and a bad one, or one given twice, raises
        :class:`BadFilter`; otherwise (the pages) a value is tidied first, a bad one dropped
        and only the first of repeated ones read."""
        values = {}
        for name, parameter in cls.parameters().items():
            given = args.getlist(name) if hasattr(args, "getlist") else [args.get(name) or ""]
            if strict and len(given) > 1:
                raise BadFilter(name, f"{name} must be given once")
            text = given[0] if given else ""
            if not strict:
                text = parameter.tidy(text)
            if not text:
                continue
            try:
                values[name] = parameter.read(name, text)
            except BadFilter:
                if strict:
                    raise
        return cls(**values)

    def to_args(self) -> dict[str, str]:
        args = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or value == "" or (f.name == "page" and value == 1):
                continue
            if isinstance(value, bool):
                value = "1" if value else "0"
            args[f.name] = str(value)
        return args

    def without(self, *names: str) -> dict[str, str]:
        """The args with ``names`` (and the page number, which a new filter resets) removed."""
        return {k: v for k, v in self.to_args().items() if k not in names and k != "page"}

    def with_page(self, page: int) -> dict[str, str]:
        args = self.without()
        if page > 1:
            args["page"] = str(page)
        return args

    @property
    def active(self) -> bool:
        return bool(self.without())


@dataclass(frozen=True)
class Paging(Filters):
    """An API list's page: ``page`` from 1, ``per_page`` up to :data:`MAX_PER_PAGE`."""

    page: int = field(default=1, metadata=PAGE)
    per_page: int | None = field(default=None, metadata=read_integer(1, MAX_PER_PAGE))
