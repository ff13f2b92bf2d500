"""What the translation tests read: the templates' text outside any gettext call, the views'
messages outside one, the messages ``pybabel extract`` finds (babel.cfg), and the shipped
catalogue."""

from __future__ import annotations

import ast
import re
from html.parser import HTMLParser
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from jinja2 import Environment, nodes

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"
CATALOGUES = ROOT / "directory" / "translations"
#: The keywords babel.cfg's users pass to ``pybabel extract`` (docs/translating.md).
KEYWORDS = {
    "_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
    "lazy_gettext": None, "_l": None, "N_": None,
}  # fmt: skip

#: Attributes whose values people read (or hear).
READ_ATTRIBUTES = ("aria-label", "placeholder", "title", "alt", "data-label", "data-confirm")
#: Text with letters that is no message: entities, punctuation and the like.
NOT_MESSAGES = re.compile(r"&[a-zA-Z]+;|&#\d+;")
_NOT_PROSE = ("script", "style", "code", "pre", "kbd", "samp")
_LETTER = re.compile(r"[A-Za-z]")
_MARK = "\x00"


def _masked(template: nodes.Template) -> str:
    """The template's literal text in source order, every expression, tag and translated
    message replaced by a marker: what a reader would see untranslated."""
    out: list[str] = []

    def walk(node: nodes.Node) -> None:
        if isinstance(node, nodes.TemplateData):
            out.append(node.data)
            return
        if isinstance(node, nodes.Output):
            for child in node.nodes:
                if isinstance(child, nodes.TemplateData):
                    out.append(child.data)
                else:
                    out.append(_MARK)
                    # A {% set x %}...{% endset %} or a macro body inside an expression has
                    # no literal text of its own here.
            return
        for child in node.iter_child_nodes():
            walk(child)
        if isinstance(node, nodes.Stmt):
            out.append(_MARK)

    walk(template)
    return "".join(out)


class _Reader(HTMLParser):
    """Text nodes and read attributes of an HTML string; scripts, styles and code (file and
    field names such as ``papers.bib``) left out."""

    def __init__(self, entities: bool) -> None:
        super().__init__(convert_charrefs=not entities)
        self.found: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in _NOT_PROSE:
            self._skip += 1
        for name, value in attrs:
            if value and (
                name in READ_ATTRIBUTES or (name == "content" and ("name", "description") in attrs)
            ):
                self.found.append(value)
        if tag == "input" and ("type", "submit") in attrs:
            self.found.extend(v for n, v in attrs if n == "value" and v)

    def handle_endtag(self, tag: str) -> None:
        if tag in _NOT_PROSE and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.found.append(data)

    def handle_entityref(self, name: str) -> None:
        self.found.append(_MARK)

    def handle_charref(self, name: str) -> None:
        self.found.append(_MARK)


def read_text(html: str, entities: bool = True) -> list[str]:
    """What a reader of ``html`` reads: its text nodes and read attributes, each stripped
    (``entities``: each character reference a marker, as in a template's literal text)."""
    reader = _Reader(entities)
    reader.feed(html)
    return [" ".join(text.split()) for text in reader.found if text.strip()]


def unmarked_text(path: Path, env: Environment) -> list[str]:
    """Pieces of literal text with letters in a template that no gettext call wraps."""
    return unmarked_in_source(path.read_text(encoding="utf-8"), env)


def unmarked_in_source(source: str, env: Environment) -> list[str]:
    """:func:`unmarked_text` of a template's source: its literal text, then the English
    literals of its expressions (:func:`_unmarked_literals`)."""
    template = env.parse(source)
    # "<h{{ level }}": the marker stands in a tag name, where the HTML parser wants a digit.
    masked = re.sub(f"(</?h){_MARK}", r"\g<1>9", _masked(template))
    pieces = []
    for text in read_text(masked):
        for piece in text.split(_MARK):
            piece = NOT_MESSAGES.sub("", piece).strip()
            if _LETTER.search(piece):
                pieces.append(piece)
    return pieces + _unmarked_literals(template)


#: The template callables that translate their string arguments.
_GETTEXT_CALLS = {name for name in KEYWORDS if name != "N_"} | {"directory_translate"}
#: A literal that reads as English: words with a space between them ("Current master's
#: students"), or one capitalised word ("Publications"); CSS classes ("button--small") and
#: identifiers ("BooleanField", "publications") do not.
_ENGLISH_LITERAL = re.compile(r"[A-Za-z]\s+\S*[A-Za-z]|^[A-Z][a-z]+$")
_CSS_CLASS = re.compile(r"--|__")


def _unmarked_literals(template: nodes.Template) -> list[str]:
    """String literals of the template's expressions that read as English and that no
    gettext call wraps (``{% for label in ["A heading"] %}``, ``{{ x or 'none' }}``): the
    text the literal-text check cannot see. A literal compared with something
    (``f.type == 'BooleanField'``) or used as a key (``d['Key']``) is data, not text."""
    found: list[str] = []

    def walk(node: nodes.Node) -> None:
        if isinstance(node, nodes.Call) and getattr(node.node, "name", None) in _GETTEXT_CALLS:
            return
        if isinstance(node, nodes.Compare):
            return
        if isinstance(node, nodes.Getitem):
            walk(node.node)
            return
        if isinstance(node, nodes.Pair):
            walk(node.value)
            return
        if isinstance(node, nodes.Const) and isinstance(node.value, str):
            text = node.value.strip()
            if _ENGLISH_LITERAL.search(text) and not _CSS_CLASS.search(text):
                found.append(text)
            return
        for child in node.iter_child_nodes():
            walk(child)

    walk(template)
    return found


def template_env() -> Environment:
    return Environment(extensions=["jinja2.ext.i18n"], autoescape=True)


def extracted() -> dict[str | tuple[str, str], list[str]]:
    """Every message ``pybabel extract -F babel.cfg`` finds, with where it was found."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as config:
        method_map, options_map = parse_mapping_cfg(config)
    found: dict[str | tuple[str, str], list[str]] = {}
    for filename, lineno, message, _comments, context in extract_from_dir(
        ROOT, method_map, options_map, keywords=KEYWORDS
    ):
        key = message if isinstance(message, str) else message[0]
        found.setdefault(key, []).append(f"{filename}:{lineno}")
        del context
    return found


def shipped_catalogues() -> dict[str, Catalog]:
    """Each shipped locale's catalogue source (the .po beside the .mo)."""
    catalogues = {}
    for po in sorted(CATALOGUES.glob("*/LC_MESSAGES/directory.po")):
        with po.open("rb") as handle:
            catalogues[po.parent.parent.name] = read_po(handle, locale=po.parent.parent.name)
    return catalogues


def _is_text(node: ast.AST) -> bool:
    """A literal an English reader would read: a string or f-string with a letter in it."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return bool(_LETTER.search(node.value))
    if isinstance(node, ast.JoinedStr):
        return any(_is_text(part) for part in node.values)
    if isinstance(node, ast.IfExp):
        return _is_text(node.body) or _is_text(node.orelse)
    return False


def unmarked_in_python(source: str) -> list[str]:
    """English left unmarked where the views speak to the reader: a ``flash()`` message, an
    item put into a form field's ``errors``, and a page ``title``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        said: list[ast.AST] = []
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "flash" and node.args:
            said.append(node.args[0])
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                name = getattr(target, "attr", None) or getattr(target, "id", None)
                if name == "errors" and isinstance(node.value, ast.List | ast.Tuple):
                    said.extend(node.value.elts)
                elif name == "title":
                    said.append(node.value)
        found.extend((item.lineno, ast.unparse(item)) for item in said if _is_text(item))
    return [text for _line, text in sorted(found)]
