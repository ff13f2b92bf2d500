"""BibTeX import and export for publication lists, free of any web framework.

``parse_bibtex`` turns a ``.bib`` file into publications in the interchange shape (a plain
dict, see ``ParsedEntry.data``); ``publication_to_bibtex`` / ``publications_to_bibtex`` and
``publication_to_csl`` go the other way.

bibtexparser 2.x only *splits* the file here (``parse_string`` with an empty parse stack).
Its middlewares are not used because, in 2.1.0:

* ``ResolveStringReferencesMiddleware`` only replaces whole-value references, so
  ``booktitle = conf # " 2024"`` stays unresolved;
* ``LatexDecodingMiddleware`` (pylatexenc) costs about 1.6 ms per title, which alone would
  make a few-thousand-entry import many times slower than the split itself;
* the name middlewares walk every name character by character.

Evaluating values, decoding LaTeX and splitting names is therefore done below with a handful
of precompiled regular expressions, one pass per field.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from bibtexparser import parse_string as _bibtexparser_split
from bibtexparser.exceptions import BlockAbortedException
from bibtexparser.middlewares.names import InvalidNameError, parse_single_name_into_parts
from bibtexparser.model import (
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    ExplicitComment,
    ImplicitComment,
    ParsingFailedBlock,
    Preamble,
    String,
)
from pylatexenc.latex2text import LatexNodes2Text, get_default_latex_context_db

from directory.formats.batch import collection_paused
from directory.formats.bibsplit import split_plain
from directory.i18n import gettext

__all__ = [
    "MAX_BIBTEX_BYTES",
    "MAX_BIBTEX_ENTRIES",
    "MAX_VALUE_CHARS",
    "BibtexProblem",
    "BibtexTooLarge",
    "ParseResult",
    "ParsedEntry",
    "make_citation_key",
    "normalise_arxiv",
    "normalise_doi",
    "parse_bibtex",
    "publication_to_bibtex",
    "publication_to_csl",
    "publications_to_bibtex",
]

MAX_BIBTEX_BYTES = 5 * 1024 * 1024
#: At most this many entries are read from one file (a larger file is refused at once).
MAX_BIBTEX_ENTRIES = 5000
#: No field value (nor @string macro) is longer than this once macros are expanded, so that
#: macros doubling each other (``@string{s1 = s0 # s0}`` ...) cannot fill the memory.
MAX_VALUE_CHARS = 100_000

PUBLICATION_TYPES = (
    "conference",
    "journal",
    "workshop",
    "preprint",
    "thesis",
    "book",
    "chapter",
    "report",
    "talk",
    "other",
)
STATUSES = ("published", "accepted", "under_review", "preprint")
LINK_KINDS = (
    "paper",
    "code",
    "slides",
    "talk",
    "video",
    "blog",
    "poster",
    "preprint",
    "publisher",
    "artifact",
    "dataset",
    "website",
    "other",
)


# --------------------------------------------------------------------------------------------
# Public result types
# --------------------------------------------------------------------------------------------


@dataclass
class ParsedEntry:
    """One imported entry: where it stood in the file and what it became."""

    key: str
    line: int
    raw: str
    data: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


@dataclass
class BibtexProblem:
    """Something in the file that is not imported: an ``"error"`` (a malformed entry, which
    the person may leave out explicitly) or ``"skipped"`` (a block that is not a publication,
    such as ``@preamble`` or ``@set``, reported so that nothing vanishes without a word)."""

    line: int | None
    key: str | None
    message: str
    severity: str = "error"


@dataclass
class ParseResult:
    """Everything ``parse_bibtex`` found; the caller decides whether problems are fatal."""

    entries: list[ParsedEntry]
    problems: list[BibtexProblem]


class BibtexTooLarge(ValueError):
    """The input exceeds the size limit; raised before any parsing work is done."""


# --------------------------------------------------------------------------------------------
# Identifiers
# --------------------------------------------------------------------------------------------

_DOI_RE = re.compile(r"10\.\d{4,9}/[^\s\"<>{}]+")
# New-style ids carry YYMM, so a month check keeps DOIs like 10.1145/1234.56789 out.
_ARXIV_NEW_RE = re.compile(r"(?<![\d.])(\d{2}(?:0[1-9]|1[0-2])\.\d{4,5})(?:v\d+)?(?!\d)")
_ARXIV_OLD_RE = re.compile(r"(?<![\w.-])([a-z][a-z-]*)((?:\.[a-z]{2})?/\d{7})(?:v\d+)?(?!\d)", re.I)
_ARXIV_BARE_RE = re.compile(r"\d{4}\.\d{4,5}(?:v\d+)?")


def normalise_doi(s: str | None) -> str | None:
    """Return the bare, lower-cased DOI found in ``s`` (a DOI, ``doi:`` string or URL).

    >>> normalise_doi("https://doi.org/10.1145/ABC")
    '10.1145/abc'

    Returns ``None`` when ``s`` holds no DOI. DOIs are case-insensitive, so lower case makes
    them comparable for duplicate detection.
    """
    if not s:
        return None
    if "%" in s:
        s = unquote(s)
    m = _DOI_RE.search(s.replace("\\_", "_"))
    if m is None:
        return None
    # A DOI at the end of a sentence or in a list drags the punctuation along.
    return m.group(0).rstrip(".,;:").lower()


def normalise_arxiv(s: str | None) -> str | None:
    """Return the version-less arXiv id in ``s`` (an id, ``arXiv:`` string or arxiv.org URL).

    >>> normalise_arxiv("arXiv:2401.01234v2")
    '2401.01234'

    Old-style ids keep their subject class (``math.GT/0309136``); ``None`` if there is none.
    """
    if not s:
        return None
    m = _ARXIV_NEW_RE.search(s)
    if m is not None:
        return m.group(1)
    m = _ARXIV_OLD_RE.search(s)
    if m is not None and not m.group(1).lower().startswith(("http", "www")):
        return m.group(1).lower() + m.group(2)
    return None


def _arxiv_url(arxiv_id: str) -> str:
    return f"https://arxiv.org/abs/{arxiv_id}"


# --------------------------------------------------------------------------------------------
# LaTeX -> Unicode
# --------------------------------------------------------------------------------------------

_ACCENTS = {
    '"': "\u0308",
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "r": "\u030a",
    "b": "\u0331",
    "d": "\u0323",
    "t": "\u0361",
}

_L2T_CONTEXT = get_default_latex_context_db()
_L2T = LatexNodes2Text(latex_context=_L2T_CONTEXT)

# Control words that are letters: like TeX, they swallow the following spaces ("Stra\ss e").
_LATEX_LETTERS = {
    "ss": "ß",
    "o": "ø",
    "O": "Ø",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
    "l": "ł",
    "L": "Ł",
    "i": "ı",
    "j": "ȷ",
    "dh": "ð",
    "DH": "Ð",
    "th": "þ",
    "TH": "Þ",
    "ng": "ŋ",
    "NG": "Ŋ",
    "hyphen": "-",  # biblatex: a hyphen that allows a break; "methodology\hyphen independent"
    # Zotero writes the backslash of escaped math so: "\$\textbackslash chi\$" is "$\chi$".
    "textbackslash": "\\",
}

# The logos of the TeX world (TUGboat's bibliography is full of them). Control words like
# the letters above: TeX swallows the spaces after them, so "\TeX book" prints "TeXbook" and
# "Die \TeX nische Kom\"odie" "Die TeXnische Komödie" (write "{\TeX} book" or "\TeX\ book"
# for two words, as the typeset bibliography needs too).
_LATEX_LOGOS = {
    "TeX": "TeX",
    "LaTeX": "LaTeX",
    "LaTeXe": "LaTeX2ε",
    "BibTeX": "BibTeX",
    "BibLaTeX": "BibLaTeX",
    "biblatex": "biblatex",
    "AmS": "AMS",
    "AMS": "AMS",
    "AmSTeX": "AMS-TeX",
    "AMSTeX": "AMS-TeX",
    "AmSLaTeX": "AMS-LaTeX",
    "AMSLaTeX": "AMS-LaTeX",
    "LAMSTeX": "LAMS-TeX",
    "MF": "Metafont",
    "METAFONT": "METAFONT",
    "MP": "MetaPost",
    "MetaPost": "MetaPost",
    "METAPOST": "METAPOST",
    "ConTeXt": "ConTeXt",
    "XeTeX": "XeTeX",
    "XeLaTeX": "XeLaTeX",
    "LuaTeX": "LuaTeX",
    "LuaLaTeX": "LuaLaTeX",
    "pdfTeX": "pdfTeX",
    "pdfLaTeX": "pdfLaTeX",
    "eTeX": "ε-TeX",
    "SliTeX": "SliTeX",
    "PiCTeX": "PiCTeX",
    "TeXXeT": "TeXXeT",
    "TUG": "TUG",
    "TUB": "TUGboat",
    "PS": "PostScript",
    "PDF": "PDF",
    "CTAN": "CTAN",
}

# Control words that stand for symbols; the space after them is kept ("\ldots and").
_LATEX_SYMBOLS = {
    # TUGboat's and texbook3.bib's dashes and spaces ("setting{\Dash}an example",
    # "Texas A\thinspace\&\thinspace M").
    "Dash": "—",
    "emdash": "—",
    "endash": "–",
    "thinspace": " ",
    "tubissue": "TUGboat",  # TUGboat's "(\tubissue 20(3))"
    "enspace": " ",
    "quad": " ",
    "qquad": " ",
    "ldots": "…",
    "dots": "…",
    "textellipsis": "…",
    "textendash": "–",
    "textemdash": "—",
    "textasciitilde": "~",
    "textasciicircum": "^",
    "textunderscore": "_",
    "textbar": "|",
    "textless": "<",
    "textgreater": ">",
    "textquoteleft": "‘",
    "textquoteright": "’",
    "textquotedblleft": "“",
    "textquotedblright": "”",
    "textquotesingle": "'",
    "guillemotleft": "«",
    "guillemotright": "»",
    "slash": "/",
    "copyright": "©",
    "textcopyright": "©",
    "textregistered": "®",
    "texttrademark": "™",
    "textdegree": "°",
    "degree": "°",
    "euro": "€",
    "texteuro": "€",
    "pounds": "£",
    "S": "§",
    "P": "¶",
    "dag": "†",
    "dagger": "†",
    "textdagger": "†",
    "ddag": "‡",
    "ddagger": "‡",
    "textdaggerdbl": "‡",
    "textbullet": "•",
    "textmu": "µ",
    "ast": "*",
    "star": "*",
    "times": "×",
    "cdot": "·",
    "cdots": "⋯",
    "pm": "±",
    "mp": "∓",
    "div": "÷",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "neq": "≠",
    "ne": "≠",
    "approx": "≈",
    "sim": "∼",
    "equiv": "≡",
    "infty": "∞",
    "to": "→",
    "rightarrow": "→",
    "leftarrow": "←",
    "Rightarrow": "⇒",
    "leftrightarrow": "↔",
    "in": "∈",
    "subset": "⊂",
    "subseteq": "⊆",
    "cup": "∪",
    "cap": "∩",
    "forall": "∀",
    "exists": "∃",
    "partial": "∂",
    "nabla": "∇",
    "sum": "∑",
    "prod": "∏",
    "sqrt": "√",
    "log": "log",
    "ell": "ℓ",
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "zeta": "ζ",
    "eta": "η",
    "theta": "θ",
    "vartheta": "ϑ",
    "iota": "ι",
    "kappa": "κ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "xi": "ξ",
    "pi": "π",
    "varpi": "ϖ",
    "rho": "ρ",
    "sigma": "σ",
    "tau": "τ",
    "upsilon": "υ",
    "phi": "φ",
    "varphi": "φ",
    "chi": "χ",
    "psi": "ψ",
    "omega": "ω",
    "Gamma": "Γ",
    "Delta": "Δ",
    "Theta": "Θ",
    "Lambda": "Λ",
    "Xi": "Ξ",
    "Pi": "Π",
    "Sigma": "Σ",
    "Upsilon": "Υ",
    "Phi": "Φ",
    "Psi": "Ψ",
    "Omega": "Ω",
}

# Control symbols (backslash + one non-letter). Missing ones decode to the character itself.
_LATEX_CONTROL_SYMBOLS = {
    " ": " ",
    "\n": " ",
    "\t": " ",
    "\r": " ",
    "\\": " ",
    ",": " ",
    ";": " ",
    ":": " ",
    ">": " ",
    "-": "",
    "/": "",
    "@": "",
    "!": "",
    # Inline and display math delimiters (DBLP writes AC\({}^{\mbox{0}}\)).
    "(": "",
    ")": "",
    "[": "",
    "]": "",
}

# Commands that only format their argument (which stays) or size math: they vanish quietly.
_LATEX_FORMATTING = frozenset(
    "textit textbf textsc textsl textup textmd textnormal textrm textsf texttt emph em it bf sc "  # noqa: SIM905
    "sl rm sf tt up mbox hbox makebox text textsuperscript textsubscript ensuremath mathrm "
    "mathbf mathit mathsf mathtt mathcal mathbb mathfrak mathscr mathnormal boldsymbol bm "
    "operatorname url nolinkurl path protect relax small footnotesize large Large LARGE "
    "normalsize scriptsize tiny huge Huge uppercase lowercase MakeUppercase MakeLowercase "
    "underline acro acronym pkg env cls prog file meta dtn bgroup egroup displaystyle "
    "textstyle scriptstyle left right big Big bigl bigr Bigl Bigr mkbibquote mkbibemph "
    "mkbibitalic mkbibbold mkbibparens mkbibbrackets enquote textquote autocap "
    # TUGboat's own: \booktitle{...} (its @preamble: {\em #1}), \pgm{...}, font switches.
    "booktitle pgm ssf smc slnine eightrm rlap unskip".split()
)
# ``\noopsort{1973b}`` only steers sorting: it and its argument print nothing.
_NOOP_COMMANDS = "noopsort|SortNoop|sortnoop|noop|nosort"

_DASHES = {"--": "–", "---": "—"}
_QUOTES = {"``": "“", "''": "”"}

# One alternation, tried left to right at each position: accents before control words, so
# that \c{c} is a cedilla while \cite{x} is a (dropped) command.
_LATEX_TOKEN_RE = re.compile(
    r"\\(?:" + _NOOP_COMMANDS + r")(?![A-Za-z])\s*(?P<noop>\{[^{}]*\})"
    # xampl.bib's \switchargs{--90}{1968} (its @preamble: \newcommand{\switchargs}[2]{#2#1})
    # prints "1968--90".
    r"|\\switchargs\s*\{(?P<swa>[^{}]*)\}\s*\{(?P<swb>[^{}]*)\}"
    # \kern-.15em (TUGboat's "DVIto\kern-.15em VDU") is spacing: it, its dimension and the
    # one optional space after the unit print nothing, as TeX reads them.
    r"|\\(?:kern|hskip|mkern)\s*(?P<kern>[-+]?\s*(?:\d+\.?\d*|\.\d+)\s*"
    r"(?:em|ex|pt|mm|cm|in|bp|sp|pc|dd|cc|mu|true\s*pt)) ?"
    r"""|\\(?P<sacc>["'`^~=.])\s*(?:\{\s*(?P<sarg>\\[ij](?![A-Za-z])|[A-Za-z])\s*\}"""
    # An accent on an empty group is the next letter's (texbook3.bib: "{Journ}{\'{}ees}",
    # "h{\={}\i}"): TeX would set it floating before the letter.
    r"""|\{\s*\}(?P<earg>\\[ij](?![A-Za-z])|[A-Za-z])"""
    r"""|(?P<sarg2>\\[ij](?![A-Za-z])|[A-Za-z]))"""
    r"""|\\(?P<lacc>[uvHckrbdt])(?:\s*\{\s*(?P<larg>\\[ij](?![A-Za-z])|[A-Za-z])\s*\}"""
    r"""|\s+(?P<larg2>[A-Za-z]))"""
    r"""|\\(?P<word>[A-Za-z]+)(?P<ws>\s*)"""
    r"""|\\(?P<sym>[\s\S])"""
    r"""|-{2,3}|``|''|[{}$~]"""
)
# Cheap pre-check: most values (years, plain titles) need no decoding at all.
_NEEDS_LATEX_RE = re.compile(r"[\\{}$~]|--|``|''")


#: The LaTeX commands no table knows, met while decoding one entry (set by parse_bibtex).
_UNKNOWN_COMMANDS: ContextVar[list[str] | None] = ContextVar("unknown_commands", default=None)


@lru_cache(maxsize=4096)
def _pylatexenc_symbol(word: str) -> str | None:
    """What pylatexenc's far larger table makes of ``\\word`` (None if it does not know it).

    Asked only for words the tables above lack, once per word: pylatexenc costs a fraction
    of a millisecond a call, too much for every title but nothing for the rare word.
    """
    if _L2T_CONTEXT.get_macro_spec(word) is None:
        return None
    text = _L2T.latex_to_text(f"\\{word}{{}}")
    # Placeholders for references and links (<cit.>, <>) say nothing to a reader.
    return "" if "<" in text or ">" in text else text


def _apart(text: str, start: int, end: int, word: str, ws: str) -> str:
    """``word`` (an unknown command's name, standing at ``text[start:end]``) with a space on
    each side where a letter or digit would otherwise touch it once the braces are gone."""
    before = start - 1
    while before >= 0 and text[before] in "{}":
        before -= 1
    after = end
    while after < len(text) and text[after] in "{}":
        after += 1
    left = " " if before >= 0 and text[before].isalnum() else ""
    if ws:
        return left + word + ws
    follows = text[end : end + 1]
    right = " " if follows == "{" or (after < len(text) and text[after].isalnum()) else ""
    return left + word + right


def _latex_token(m: re.Match[str]) -> str:
    text = m.group(0)
    first = text[0]
    if first == "{" or first == "}" or first == "$":
        return ""
    if first == "~":
        return " "  # a tie is a space for display, search and comparison
    if first == "-":
        return _DASHES[text]
    if first != "\\":
        return _QUOTES[text]
    if m.group("noop") is not None or m.group("kern") is not None:
        return ""
    if m.group("swa") is not None:
        return latex_to_text(m.group("swb") + m.group("swa"))
    word = m.group("word")
    if word is not None:
        letter = _LATEX_LETTERS.get(word) or _LATEX_LOGOS.get(word)
        if letter is not None:
            return letter
        symbol = _LATEX_SYMBOLS.get(word)
        if symbol is not None:
            return symbol + m.group("ws")
        # Formatting (\textit, \emph, \url, \sc, ...) vanishes; its braced argument stays
        # and loses its braces like any other group.
        if word in _LATEX_FORMATTING:
            return ""
        if word in ("cs", "macro"):  # \cs{foo}, \macro{foo} (TUGboat, ltxdoc) print \foo
            return "\\"
        symbol = _pylatexenc_symbol(word)
        if symbol is not None:
            return symbol + m.group("ws") if symbol else ""
        # Unknown: its name stays as text, so that no word of a title vanishes.
        unknown = _UNKNOWN_COMMANDS.get()
        if unknown is not None and word not in unknown:
            unknown.append(word)
        # A word of its own: never run together with the text around it, braces or not
        # ("setting{\\Whatever}an" -> "setting Whatever an", "\\foo{x}" -> "foo x").
        return _apart(m.string, m.start(), m.end(), word, m.group("ws"))
    accent = m.group("sacc") or m.group("lacc")
    if accent is not None:
        base = (
            m.group("sarg") or m.group("earg") or m.group("sarg2") or m.group("larg")
            or m.group("larg2")
        )  # fmt: skip
        if base[0] == "\\":
            base = base[1]  # \'{\i} is an accented plain i
        return unicodedata.normalize("NFC", base + _ACCENTS[accent])
    sym = m.group("sym")
    return _LATEX_CONTROL_SYMBOLS.get(sym, sym)


# HTML character references, as the ACM Digital Library ("Needs \\&\\#38; Motivations",
# "People\\&\\#x2019;s", "Alc\\&aacute;cer") and JabRef ("Nutrition &amp; Metabolism") write
# them: with their semicolon only, so that "AT&T" or "R&D" stay as they are.
_HTML_REFERENCE_RE = re.compile(
    r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"
)


def _html_reference(m: re.Match[str]) -> str:
    text = html.unescape(m.group(0))
    # An unknown name stays as written; a control character or an invalid code point (&#0;,
    # which html makes U+FFFD) is no text.
    if len(text) == 1 and (text == "\ufffd" or unicodedata.category(text) == "Cc"):
        return ""
    return text


def latex_to_text(value: str) -> str:
    """Decode LaTeX markup in a BibTeX value to plain Unicode, whitespace collapsed.

    Accents (``{\\"u}``, ``\\'e``, ``{\\c c}``), escaped specials (``\\&``), dashes, common
    symbols and Greek letters become Unicode; formatting commands and protective braces are
    removed; math keeps its content without the ``$`` delimiters.
    """
    if _NEEDS_LATEX_RE.search(value) is not None:
        value = _LATEX_TOKEN_RE.sub(_latex_token, value)
        if "$" in value and "\\" in value:
            value = _ESCAPED_MATH_RE.sub(_escaped_math, value)
    if "&" in value:
        value = _HTML_REFERENCE_RE.sub(_html_reference, value)
    return " ".join(value.split())


# DBLP and Zotero escape math as text ("{\\textdollar}{\\textbackslash}mathrm\\{AC\\}{\\^{}}0",
# "\\$\\textbackslash chi\\$"): decoded once it reads "$\\mathrm{AC}^0$", LaTeX again, which is
# decoded once more ("AC^0"). Only a $...$ holding a command: "$100" stays.
_ESCAPED_MATH_RE = re.compile(r"\$[^$]*\\[A-Za-z][^$]*\$")


def _escaped_math(m: re.Match[str]) -> str:
    return _LATEX_TOKEN_RE.sub(_latex_token, m.group(0))


_URL_ESCAPE_RE = re.compile(r"\\textasciitilde(?:\{\})?|\\~(?:\{\})?|\\([_%#&$~])|[{}]")


def _url_token(m: re.Match[str]) -> str:
    text = m.group(0)
    if text[0] in "{}":
        return ""
    if m.group(1):
        return m.group(1)
    return "~"


def _clean_url(value: str) -> str:
    """A URL-like value (url, pdf, doi, eprint ...) without LaTeX escapes or ``\\url{}``.

    Such values must not go through ``latex_to_text``: ``--`` and ``~`` are literal in URLs.
    """
    value = value.strip()
    if "\\" in value or "{" in value:
        if value.startswith("\\url{") and value.endswith("}"):
            value = value[5:-1]
        elif value.startswith("\\href{"):
            value = value[6 : value.find("}")]
        value = _URL_ESCAPE_RE.sub(_url_token, value)
    # URLs never contain whitespace; line-wrapped values do.
    return "".join(value.split())


# --------------------------------------------------------------------------------------------
# Value evaluation: braces, quotes, numbers, @string macros, # concatenation, % comments
# --------------------------------------------------------------------------------------------

# BibTeX predefines the month macros; their values are what the classic styles print.
_MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_MONTH_MACROS = tuple(name[:3].lower() for name in _MONTH_NAMES)
_PREDEFINED_MACROS = dict(zip(_MONTH_MACROS, _MONTH_NAMES, strict=True))
_MONTH_BY_PREFIX = {name[:3].lower(): i for i, name in enumerate(_MONTH_NAMES, start=1)}

_BRACE_RE = re.compile(r"(?<!\\)[{}]")
_QUOTE_OR_BRACE_RE = re.compile(r'(?<!\\)[{}"]')


def _closing_brace(raw: str, start: int) -> int:
    """Index of the ``}`` matching the ``{`` at ``start``, or -1."""
    depth = 0
    for m in _BRACE_RE.finditer(raw, start):
        if m.group(0) == "{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.start()
    return -1


def _closing_quote(raw: str, start: int) -> int:
    """Index of the ``"`` closing the string opened at ``start`` (quotes in braces don't)."""
    depth = 0
    for m in _QUOTE_OR_BRACE_RE.finditer(raw, start + 1):
        char = m.group(0)
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif depth == 0:
            return m.start()
    return -1


class _Evaluator:
    """Turns raw field values into strings, resolving ``@string`` macros as it goes."""

    __slots__ = ("macros", "too_long", "undefined")

    def __init__(self) -> None:
        # Macro names are case-insensitive in BibTeX.
        self.macros: dict[str, str] = dict(_PREDEFINED_MACROS)
        self.undefined: list[str] = []
        #: Whether the last value evaluated was cut at MAX_VALUE_CHARS.
        self.too_long = False

    def _atom(self, piece: str) -> str:
        if not piece:
            return ""
        if piece.isdigit():
            return piece
        value = self.macros.get(piece.lower())
        if value is None:
            self.undefined.append(piece)
            return piece
        return value

    def evaluate(self, raw: str) -> str:
        """The value of one field as BibTeX would compute it (LaTeX still undecoded).

        A value longer than MAX_VALUE_CHARS is cut one character past it and ``too_long``
        set, so that a caller can refuse it and nothing grows further from it."""
        self.too_long = False
        if not raw:
            return ""
        if len(raw) > MAX_VALUE_CHARS:
            self.too_long = True
            return raw[: MAX_VALUE_CHARS + 1]
        first = raw[0]
        # Fast paths: a single braced or quoted value, or a bare number / macro.
        if "#" not in raw and "%" not in raw:
            # Without "#", a value that starts and ends with a delimiter is enclosed by it:
            # the splitter only ends a value at balanced braces, so "{a} {b}" (invalid
            # BibTeX anyway) is the only case this misreads, and it does so harmlessly.
            if (first == "{" and raw[-1] == "}") or (first == '"' and raw[-1] == '"'):
                return raw[1:-1]
            if first not in '{"':
                value = self._atom(raw.strip())
                self.too_long = len(value) > MAX_VALUE_CHARS
                return value
        return self._evaluate_concatenation(raw)

    def _evaluate_concatenation(self, raw: str) -> str:
        parts: list[str] = []
        total = 0  # characters in parts, checked as each is added
        i, n = 0, len(raw)
        while i < n:
            char = raw[i]
            if char.isspace() or char == "#":
                i += 1
                continue
            if char == "%":
                # Outside braces and quotes a % starts a comment running to the end of line.
                end = raw.find("\n", i)
                i = n if end < 0 else end + 1
                continue
            if char == "{":
                end = _closing_brace(raw, i)
                if end < 0:
                    return raw  # unbalanced: keep the text rather than guess
                part = raw[i + 1 : end]
                i = end + 1
            elif char == '"':
                end = _closing_quote(raw, i)
                if end < 0:
                    return raw
                part = raw[i + 1 : end]
                i = end + 1
            else:
                j = i
                while j < n and not raw[j].isspace() and raw[j] not in '#%{"':
                    j += 1
                part = self._atom(raw[i:j])
                i = j
            parts.append(part)
            total += len(part)
            if total > MAX_VALUE_CHARS:
                self.too_long = True
                return "".join(parts)[: MAX_VALUE_CHARS + 1]
        return "".join(parts)


# --------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------

_AND_RE = re.compile(r"\s+and\s+", re.I)
_AND_OR_BRACE_RE = re.compile(r"\s+and\s+|[{}]", re.I)
_COMMA_OR_BRACE_RE = re.compile(r"[,{}]")
# Co-first markers after (or inside) a name: Wei*, Wei$^*$, Wei$^{\dagger}$,
# Wei\textsuperscript{*}, Wei\dag, Wei†.
_MARK = r"(?:\*|\\ast\b|\\star\b|\\dagger\b|\\dag\b|\\ddagger\b|\\ddag\b|\\textdagger\b|[∗†‡])"
_COFIRST_RE = re.compile(
    r"\s*(?:\$\s*\^\s*(?:\{\s*" + _MARK + r"+\s*\}|" + _MARK + r")\s*\$"
    r"|\\textsuperscript\s*\{\s*" + _MARK + r"+\s*\}"
    r"|\\textdagger(?:\{\})?|\\dag(?:ger)?(?:\{\})?|\\ddag(?:ger)?(?:\{\})?|[*∗†‡]+)"
)
_CORRESPONDING_RE = re.compile(
    r"\s*(?:\(\s*corresponding(?:\s+author)?\s*\)|\\textsuperscript\s*\{\s*\\(?:Letter|Envelope)"
    r"\s*\}|\\(?:Letter|Envelope)\b(?:\{\})?|✉)",
    re.I,
)
_MARKER_HINT_RE = re.compile(r"[*∗†‡$✉(]|\\(?:text|dag|ddag|ast|star|Letter|Envelope)")


def _split_top_level(value: str, pattern: re.Pattern[str]) -> list[str]:
    """Split at separators outside braces (``{Simon and Schuster}`` stays one name)."""
    parts: list[str] = []
    depth = 0
    start = 0
    for m in pattern.finditer(value):
        char = m.group(0)
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            parts.append(value[start : m.start()])
            start = m.end()
    parts.append(value[start:])
    return parts


def _balanced(parts: list[str]) -> bool:
    """Whether no part has an unclosed brace, i.e. no separator was inside braces."""
    return all(part.count("{") == part.count("}") for part in parts)


def _split_names(value: str) -> list[str]:
    value = value.strip()
    if not value:
        return []
    parts = _AND_RE.split(value)
    # Braced groups rarely contain " and "; check cheaply before scanning brace by brace.
    if "{" not in value or _balanced(parts):
        return parts
    return _split_top_level(value, _AND_OR_BRACE_RE)


def _reorder_name(name: str) -> str:
    """``von Last, First`` / ``von Last, Jr, First`` -> ``First von Last [Jr]`` (raw LaTeX)."""
    if "," not in name:
        return name
    parts = name.split(",")
    if "{" in name and not _balanced(parts):
        parts = _split_top_level(name, _COMMA_OR_BRACE_RE)
    parts = [p.strip() for p in parts]
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        last, first = parts
        return f"{first} {last}" if first else last
    last, jr, first = parts[0], parts[1], ", ".join(parts[2:])
    return " ".join(p for p in (first, last, jr) if p)


def _name_key(name: str) -> str:
    """Comparison form of a display name (for matching ``corresponding = {...}``)."""
    return " ".join(name.casefold().replace(".", " ").split())


_SUFFIX_WORDS = frozenset(["jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "v"])
_SIMPLE_NAME_RE = re.compile(r"^[^{}\\,~]+$")


def _decoded_part(words: list[str]) -> str | None:
    text = latex_to_text(" ".join(words)) if words else ""
    return text or None


_PART_KEYS = ("name", "given", "particle", "family", "suffix")


def split_name(raw_name: str) -> dict[str, str | None]:
    """The parts of one BibTeX name; see :func:`_split_name` (cached: a file names the same
    co-authors many times)."""
    return dict(zip(_PART_KEYS, _split_name(raw_name.strip()), strict=True))


@lru_cache(maxsize=1 << 14)
def _split_name(raw_name: str) -> tuple[str | None, ...]:
    """The parts of one BibTeX name (LaTeX still encoded): ``given``, ``particle`` (von),
    ``family``, ``suffix`` (Jr), decoded, and the display ``name`` ("First von Last Jr").

    bibtexparser's splitting (BibTeX's rules, braces respected) with two corrections real
    files need: in ``Last, First`` the words before the comma are the family name, only its
    leading lower-case words a particle ("Vázques de Parga, Luis" is family "Vázques de
    Parga", as the writer meant); and ``King, Jr.`` after a full name ("Martin Luther King,
    Jr.") is a suffix, not a first name. A braced name ("{LaTeX3 Project Team}") is one family
    name: an organisation.
    """
    tokens = raw_name.split()
    last, comma, first = raw_name.partition(",")
    if comma and last.strip().lower() in _SUFFIX_WORDS and "," not in first and first.strip():
        # DBLP writes "Barry W. Peddycord III" as "III, Barry W. Peddycord".
        name, given_, particle_, family_, _ = _split_name(first.strip())
        jr = last.strip()
        return (f"{name} {jr}", given_, particle_, family_, jr)
    if _SIMPLE_NAME_RE.match(raw_name) and all(t[:1].isupper() for t in tokens):
        # The common case, as BibTeX would split it: no von, the last word is the family.
        given, particle, family, suffix = tokens[:-1], [], tokens[-1:], []
    elif (
        comma
        and _SIMPLE_NAME_RE.match(last)
        and _SIMPLE_NAME_RE.match(first)
        and first.strip().lower() not in _SUFFIX_WORDS
        and all(t[:1].isupper() for t in raw_name.replace(",", " ").split())
    ):  # "Last, First" in capitalised words: no von, no Jr
        given, particle, family, suffix = first.split(), [], last.split(), []
    else:
        try:
            parts = parse_single_name_into_parts(raw_name, strict=False)
        except InvalidNameError:
            return (latex_to_text(raw_name), None, None, None, None)
        given, particle, family, suffix = parts.first, parts.von, parts.last, parts.jr
        top_commas = _split_top_level(raw_name, _COMMA_OR_BRACE_RE)
        if (
            len(top_commas) == 2
            and not suffix
            and len(given) == 1
            and given[0].lower() in _SUFFIX_WORDS
            and family
        ):
            # "Martin Luther King, Jr.": reparse the part before the comma.
            name, inner_given, inner_particle, inner_family, _ = _split_name(top_commas[0].strip())
            jr = latex_to_text(given[0])
            return (f"{name} {jr}", inner_given, inner_particle, inner_family, jr)
        if (
            len(top_commas) == 3
            and len(given) == 1
            and given[0].lower() in _SUFFIX_WORDS
            and suffix
            and not any(word.lower() in _SUFFIX_WORDS for word in suffix)
        ):
            # "Fulton, James E., Jr." (JabRef) and "Moore, B, III" (Google Scholar) put the
            # suffix last; BibTeX's "Last, Jr, First" would make "Jr." the first name.
            given, suffix = suffix, given
        if len(top_commas) >= 2 and particle:
            # "Vázques de Parga, Luis": only leading lower-case words are a particle.
            lead = 0
            while lead < len(particle) and _starts_lower(particle[lead]):
                lead += 1
            family = particle[lead:] + family
            particle = particle[:lead]
    shown = (
        _decoded_part(given), _decoded_part(particle), _decoded_part(family),
        _decoded_part(suffix),
    )  # fmt: skip
    return (" ".join(p for p in shown if p), *shown)


def _starts_lower(word: str) -> bool:
    text = latex_to_text(word) if ("{" in word or "\\" in word) else word
    first = next((c for c in text if c.isalpha()), "")
    return first.islower()


def _parse_names(raw: str, role: str, warnings: list[str]) -> tuple[list[dict[str, Any]], bool]:
    """The names of one name field, and whether the list ends in "and others"."""
    if not raw:
        return [], False
    names: list[dict[str, Any]] = []
    incomplete = False
    may_have_markers = _MARKER_HINT_RE.search(raw) is not None
    for raw_name in _split_names(raw):
        co_first = corresponding = False
        if may_have_markers:
            raw_name, hits = _CORRESPONDING_RE.subn("", raw_name)
            corresponding = hits > 0
            raw_name, hits = _COFIRST_RE.subn("", raw_name)
            co_first = hits > 0
        if raw_name.strip().lower() == "others":
            incomplete = True
            continue
        name, given, particle, family, suffix = _split_name(raw_name.strip())
        if not name:
            continue
        names.append(
            {"name": name, "given": given, "particle": particle, "family": family,
             "suffix": suffix, "role": role, "person": None, "co_first": co_first,
             "corresponding": corresponding}
        )  # fmt: skip
    return names, incomplete


def _parse_authors(
    fields: dict[str, str], warnings: list[str]
) -> tuple[list[dict[str, Any]], bool]:
    """Authors, then editors (role "editor"), and whether either list ends in "and others"."""
    authors, incomplete = _parse_names(fields.get("author") or "", "author", warnings)
    editors, editors_incomplete = _parse_names(fields.get("editor") or "", "editor", warnings)
    if editors_incomplete and not authors:
        incomplete = True
    people = authors + editors
    authors = people  # the side fields below count positions over authors first

    # al-folio style side fields: indices (1-based) or names.
    co_first_field = fields.get("co_first") or fields.get("equal_contribution")
    if co_first_field:
        for index in _indices(co_first_field, len(authors), "co_first", warnings):
            authors[index]["co_first"] = True
    corresponding_field = fields.get("corresponding")
    if corresponding_field:
        by_name = {_name_key(a["name"]): a for a in authors}
        for item in re.split(r"\s+and\s+|;", corresponding_field):
            item = item.strip()
            if not item:
                continue
            if item.isdigit():
                for index in _indices(item, len(authors), "corresponding", warnings):
                    authors[index]["corresponding"] = True
                continue
            author = by_name.get(_name_key(latex_to_text(_reorder_name(item))))
            if author is None:
                author = by_name.get(_name_key(latex_to_text(item)))
            if author is None:
                warnings.append(f"corresponding author '{item}' is not in the author list")
            else:
                author["corresponding"] = True
    return people, incomplete


def _indices(value: str, count: int, field_name: str, warnings: list[str]) -> list[int]:
    result = []
    for token in re.split(r"[\s,;]+", value.strip()):
        if not token:
            continue
        if token.isdigit() and 1 <= int(token) <= count:
            result.append(int(token) - 1)
        else:
            warnings.append(f"{field_name}: '{token}' is not an author position (1..{count})")
    return result


# --------------------------------------------------------------------------------------------
# Entry -> publication dict
# --------------------------------------------------------------------------------------------

_ENTRY_TYPES = {
    "inproceedings": "conference",
    "conference": "conference",
    "article": "journal",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "thesis": "thesis",
    "book": "book",
    # Edited volumes of their own (their editors' work; as a crossref parent they are skipped).
    "collection": "book",
    "mvbook": "book",
    "mvcollection": "book",
    "proceedings": "book",
    "mvproceedings": "book",
    "incollection": "chapter",
    "inbook": "chapter",
    "techreport": "report",
    "report": "report",
    "talk": "talk",
    "presentation": "talk",
}
_KNOWN_OTHER_TYPES = frozenset(
    ["misc", "unpublished", "online", "electronic", "www", "manual", "booklet", "proceedings"]
    + ["collection", "patent", "software", "dataset", "mvbook", "mvproceedings", "mvcollection"]
)
_PREPRINT_HOLDER_TYPES = frozenset(["misc", "unpublished", "online", "electronic", "www"])
# Containers referenced through crossref are not publications of their own.
_CONTAINER_TYPES = frozenset(["proceedings", "mvproceedings", "collection", "mvcollection"])
_WORKSHOP_RE = re.compile(r"\bworkshops?\b", re.I)
_ARXIV_JOURNAL_RE = re.compile(r"\barxiv\b|^\s*corr\s*$|\bcorr\s+abs\b", re.I)
_VENUE_FIELDS = (
    "journal",
    "journaltitle",
    "booktitle",
    "school",
    "institution",
    "howpublished",
    "series",
)
# Four digits standing alone: "{--90}{1968}" run together is no year 9019.
_FOUR_DIGITS_RE = re.compile(r"(?<!\d)\d{4}(?!\d)")
_LETTERS_RE = re.compile(r"[A-Za-z]{3,}")
_DATE_RE = re.compile(r"^\s*(\d{4})(?:-(\d{1,2}))?")
_LIST_SPLIT_RE = re.compile(r"\s*[;,]\s*")
_AWARD_SPLIT_RE = re.compile(r"\s*;\s*")
_BADGE_ISSUER_RE = re.compile(r"^(.*?)\s*\(([^()]+)\)$")
_TRUE_VALUES = frozenset(["true", "yes", "1", "y", "on"])

_STATUS_ALIASES = {
    "published": "published",
    "accepted": "accepted",
    "to appear": "accepted",
    "forthcoming": "accepted",
    "in press": "accepted",
    "inpress": "accepted",
    "under_review": "under_review",
    "under review": "under_review",
    "submitted": "under_review",
    "in review": "under_review",
    "preprint": "preprint",
    "prepublished": "preprint",
    "in preparation": "in_preparation",
    "inpreparation": "in_preparation",
    "in_preparation": "in_preparation",
    "in prep": "in_preparation",
}
_NOTE_STATUS_RE = re.compile(
    r"\b(?P<review>under\s+review|submitted|in\s+submission)\b"
    r"|\b(?P<accepted>to\s+appear|accepted|forthcoming|in\s+press)\b"
    r"|\b(?P<prep>in\s+preparation)\b",
    re.I,
)

# Fields a URL goes into, and the kind of link it becomes. ``url``/``html`` are refined
# by ``_url_kind``.
_LINK_FIELDS = {
    "url": "paper",
    "pdf": "paper",
    "html": "publisher",
    "code": "code",
    "slides": "slides",
    "talk": "talk",
    "video": "video",
    "poster": "poster",
    "blog": "blog",
    "website": "website",
    "preprint": "preprint",
    "artifact": "artifact",
    "dataset": "dataset",
    "supp": "other",
}
_PUBLISHER_HOSTS = (
    "doi.org",
    "dl.acm.org",
    "ieeexplore.ieee.org",
    "link.springer.com",
    "sciencedirect.com",
    "onlinelibrary.wiley.com",
    "nature.com",
    "science.org",
    "academic.oup.com",
    "tandfonline.com",
    "usenix.org",
    "pubs.acs.org",
    "journals.aps.org",
    "mdpi.com",
    "cambridge.org",
)
_HOST_RE = re.compile(r"^[a-z][a-z0-9+.-]*://([^/?#]+)", re.I)

# Entries whose author a crossref child inherits (BibTeX inherits every field; biblatex maps a
# book's author to its parts').
_BOOK_TYPES = frozenset(["book", "mvbook", "booklet"])

# Inherited through crossref: everything except what identifies the child itself.
_NOT_INHERITED = frozenset(
    ["crossref", "xref", "ids", "key", "title", "doi", "url", "eprint", "archiveprefix"]
    + ["eprinttype", "arxiv", "pdf", "html", "abstract", "selected", "award", "award_name"]
    + ["badges", "labels", "pages", "note", "status", "pubstate", "co_first", "corresponding"]
    + ["equal_contribution", "code", "slides", "video", "poster", "blog", "website", "supp"]
    + ["author", "pubtype"]
)


def _url_kind(url: str, default: str) -> str:
    low = url.lower()
    if "arxiv.org/" in low:
        return "preprint"
    if low.endswith(".pdf"):
        return "paper"
    m = _HOST_RE.match(low)
    if m is not None:
        host = m.group(1)
        for publisher in _PUBLISHER_HOSTS:
            if host == publisher or host.endswith("." + publisher):
                return "publisher"
    return default


def _parse_month(value: str) -> int | None:
    value = value.strip()
    if not value:
        return None
    if value.isdigit():
        month = int(value)
        return month if 1 <= month <= 12 else None
    m = _LETTERS_RE.search(value)
    if m is not None:
        return _MONTH_BY_PREFIX.get(m.group(0)[:3].lower())
    digits = re.match(r"\d{1,2}", value)
    if digits is not None and 1 <= int(digits.group(0)) <= 12:
        return int(digits.group(0))
    return None


def _arxiv_from_fields(fields: dict[str, str]) -> str | None:
    eprint = fields.get("eprint")
    if eprint:
        prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "").strip().lower()
        if prefix == "arxiv" or (not prefix and _ARXIV_BARE_RE.fullmatch(eprint.strip())):
            found = normalise_arxiv(eprint)
            if found:
                return found
    arxiv = fields.get("arxiv")
    if arxiv:
        found = normalise_arxiv(arxiv)
        if found:
            return found
    for name in ("journal", "journaltitle"):
        journal = fields.get(name)
        if journal and _ARXIV_JOURNAL_RE.search(journal):
            found = normalise_arxiv(journal + " " + fields.get("volume", ""))
            if found:
                return found
    for name in ("url", "pdf", "html", "howpublished", "preprint"):
        url = fields.get(name)
        if url and "arxiv.org/" in url.lower():
            found = normalise_arxiv(url)
            if found:
                return found
    return None


def _infer_type(entry_type: str, venue_field: str | None, has_arxiv: bool) -> str:
    """The publication type BibTeX fields imply (also used by the exporter to check itself).

    ``venue_field`` is the journal for articles and the booktitle for proceedings papers.
    """
    mapped = _ENTRY_TYPES.get(entry_type)
    if mapped == "conference":
        if venue_field and _WORKSHOP_RE.search(venue_field):
            return "workshop"
        return "conference"
    if mapped == "journal":
        # arXiv/CoRR "articles" (Google Scholar, DBLP) are preprints.
        if venue_field and _ARXIV_JOURNAL_RE.search(venue_field):
            return "preprint"
        if not venue_field and has_arxiv:
            return "preprint"
        return "journal"
    if mapped is not None:
        return mapped
    if has_arxiv and entry_type in _PREPRINT_HOLDER_TYPES:
        return "preprint"
    return "other"


def _decoded(fields: dict[str, str], name: str) -> str | None:
    value = fields.get(name)
    if value is None:
        return None
    return latex_to_text(value) or None


_PARAGRAPH_RE = re.compile(r"\n[ \t]*\n\s*|\\par\b\s*")


def _decoded_paragraphs(fields: dict[str, str], name: str) -> str | None:
    """A long text field (an abstract) decoded paragraph by paragraph (a blank line or
    ``\\par`` between them), paragraphs separated by a blank line."""
    value = fields.get(name)
    if value is None:
        return None
    if "\n" not in value and "\\par" not in value:
        return latex_to_text(value) or None
    paragraphs = [latex_to_text(p) for p in _PARAGRAPH_RE.split(value)]
    return "\n\n".join(p for p in paragraphs if p) or None


def _split_list(value: str | None, pattern: re.Pattern[str]) -> list[str]:
    if not value:
        return []
    return [item for item in (p.strip() for p in pattern.split(latex_to_text(value))) if item]


def _build_publication(
    key: str, entry_type: str, fields: dict[str, str], warnings: list[str]
) -> dict[str, Any]:
    """Map evaluated (LaTeX still encoded) fields of one entry to the interchange dict."""
    title = _decoded(fields, "title") or ""
    subtitle = _decoded(fields, "subtitle")
    if subtitle and title:  # biblatex keeps the subtitle apart
        title = f"{title}: {subtitle}"
    if not title:
        warnings.append("entry has no title")

    # Venue: the first container-like field present.
    venue = None
    howpublished_url = None
    for name in _VENUE_FIELDS:
        value = fields.get(name)
        if not value:
            continue
        if name == "howpublished" and ("\\url" in value or "://" in value):
            howpublished_url = _clean_url(value)  # a URL, not a venue
            continue
        venue = latex_to_text(value) or None
        if venue:
            break

    arxiv_id = _arxiv_from_fields(fields)
    type_field = fields.get("journal") or fields.get("journaltitle") or fields.get("booktitle")
    pub_type = _infer_type(
        entry_type, latex_to_text(type_field) if type_field else None, bool(arxiv_id)
    )
    if entry_type not in _ENTRY_TYPES and entry_type not in _KNOWN_OTHER_TYPES:
        warnings.append(f"unknown entry type @{entry_type}; imported as type 'other'")
    pubtype_override = fields.get("pubtype", "").strip().lower()
    if pubtype_override:
        if pubtype_override in PUBLICATION_TYPES:
            pub_type = pubtype_override
        else:
            warnings.append(f"pubtype '{pubtype_override}' is not a known publication type")

    # Year and month, from year/month or a biblatex date.
    year: int | None = None
    month: int | None = None
    year_text = fields.get("year", "").strip()
    if year_text and _NEEDS_LATEX_RE.search(year_text) is not None:
        year_text = latex_to_text(year_text)  # {\noopsort{1973b}}1981 is 1981
    if year_text:
        m = _FOUR_DIGITS_RE.search(year_text)
        if m is not None:
            year = int(m.group(0))
        elif not _NOTE_STATUS_RE.search(year_text):
            warnings.append(f"year '{year_text}' is not a year")
    month_text = fields.get("month", "").strip()
    if month_text:
        month = _parse_month(month_text)
        if month is None:
            warnings.append(f"month '{month_text}' is not a month")
    date = fields.get("date")
    if date and (year is None or month is None):
        m = _DATE_RE.match(date)
        if m is not None:
            year = year if year is not None else int(m.group(1))
            if month is None and m.group(2) and 1 <= int(m.group(2)) <= 12:
                month = int(m.group(2))

    # Status: explicit field, then the note (or a "to appear" year, or the venue), then the
    # type.
    note = _decoded(fields, "note")
    status = None
    explicit = (fields.get("status") or fields.get("pubstate") or "").strip().lower()
    if explicit:
        status = _STATUS_ALIASES.get(explicit.replace("-", " ")) or _STATUS_ALIASES.get(explicit)
        if status is None:
            warnings.append(f"status '{explicit}' is not one of {', '.join(STATUSES)}")
    if status is None:
        # al-folio sites write the status into the venue: "CVPR Under Review".
        for text in (note, year_text if year is None else None, venue):
            if text:
                m = _NOTE_STATUS_RE.search(text)
                if m is not None:
                    status = (
                        "under_review" if m.group("review")
                        else "in_preparation" if m.group("prep") else "accepted"
                    )  # fmt: skip
                    break
    if status is None:
        status = "preprint" if pub_type == "preprint" else "published"

    # DOI: the doi field, else a DOI URL.
    doi = None
    doi_text = fields.get("doi")
    if doi_text:
        doi = normalise_doi(_clean_url(doi_text))
        if doi is None:
            warnings.append(f"doi '{doi_text.strip()}' is not a DOI")

    links: list[dict[str, Any]] = []
    seen_urls: set[str] = set()

    def add_link(kind: str, url: str) -> None:
        if url and url not in seen_urls:
            seen_urls.add(url)
            links.append({"kind": kind, "url": url, "label": None})

    # Link fields in the order they stand in the entry, so exports read back identically.
    for name, value in fields.items():
        default_kind = _LINK_FIELDS.get(name)
        if default_kind is None or not value.strip():
            continue
        url = _clean_url(value)
        kind = default_kind
        if name == "url" or name == "html":
            kind = _url_kind(url, "paper" if name == "url" else "website")
            if doi is None and kind == "publisher":
                doi = normalise_doi(url)
        add_link(kind, url)
    if howpublished_url:
        add_link(_url_kind(howpublished_url, "paper"), howpublished_url)
    if arxiv_id and not any(
        "arxiv.org/" in link["url"] and normalise_arxiv(link["url"]) == arxiv_id for link in links
    ):
        add_link("preprint", _arxiv_url(arxiv_id))

    authors, authors_incomplete = _parse_authors(fields, warnings)
    if not authors:
        warnings.append("entry has no authors")

    awards = _split_list(fields.get("award"), _AWARD_SPLIT_RE)
    for extra in _split_list(fields.get("award_name"), _AWARD_SPLIT_RE):
        if extra not in awards:
            awards.append(extra)

    badges = []
    for name in _split_list(fields.get("badges"), _LIST_SPLIT_RE):
        m = _BADGE_ISSUER_RE.match(name)
        if m is not None:
            badges.append({"name": m.group(1), "issuer": m.group(2).strip()})
        else:
            badges.append({"name": name, "issuer": None})

    pages = _decoded(fields, "pages")
    return {
        "title": title,
        "venue": venue,
        "venue_short": _decoded(fields, "abbr"),
        "year": year,
        "month": month,
        "type": pub_type,
        "status": status,
        "abstract": _decoded_paragraphs(fields, "abstract"),
        "doi": doi,
        "arxiv_id": arxiv_id,
        "volume": _decoded(fields, "volume"),
        "number": _decoded(fields, "number") or _decoded(fields, "issue"),
        "pages": pages,
        "publisher": _decoded(fields, "publisher"),
        "location": _decoded(fields, "address") or _decoded(fields, "location"),
        "note": note,
        "authors": authors,
        "authors_incomplete": authors_incomplete,
        "links": links,
        "awards": awards,
        "badges": badges,
        "labels": _split_list(fields.get("labels"), _LIST_SPLIT_RE),
        "selected": fields.get("selected", "").strip().lower() in _TRUE_VALUES,
        "key": key,
    }


# --------------------------------------------------------------------------------------------
# parse_bibtex
# --------------------------------------------------------------------------------------------

_FAILED_KEY_RE = re.compile(r"@\s*(\w+)\s*[{(]\s*([^,\s{}()=\"#%]+)\s*,")


_AT_COMMENT_RE = re.compile(r"@comment\s*\{", re.I)


def _hide_percent_comments(text: str) -> str:
    """Blank out ``%`` comments that bibtexparser would misread.

    Whole-line comments and comments after the comma ending a field are read by the splitter
    as part of the next field key (or, for a commented-out entry, as a live entry). They are
    replaced by spaces so that lengths and line numbers stay put. The inline form needs a
    space after the comma, so that percent-encoded URLs (``?q=a,%20b``) and escaped ``\\%``
    are left alone. A loop over ``str.find`` beats a multi-line regex here: most files have
    few ``%`` but many lines.
    """
    pieces: list[str] = []
    last = 0
    pos = text.find("%")
    while pos >= 0:
        line_start = text.rfind("\n", 0, pos) + 1
        prefix = text[line_start:pos]
        before = prefix.rstrip(" \t")
        if not before or (before[-1] == "," and len(before) < len(prefix)):
            end = text.find("\n", pos)
            if end < 0:
                end = len(text)
            pieces.append(text[last:pos])
            pieces.append(" " * (end - pos))
            last = end
            pos = text.find("%", end)
        else:
            pos = text.find("%", pos + 1)
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def _disarm_comment_blocks(text: str) -> str:
    """Hide ``@`` inside ``@comment{...}`` blocks from the splitter.

    bibtexparser aborts a comment block at any line starting with ``@``, so a commented-out
    entry would come back to life. The ``@`` are replaced by spaces (lengths stay put).
    """
    pieces = []
    last = 0
    for m in _AT_COMMENT_RE.finditer(text):
        if m.start() < last:
            continue  # inside a comment block already handled
        end = _closing_brace(text, m.end() - 1)
        if end < 0:
            break
        pieces.append(text[last : m.end()])
        pieces.append(text[m.end() : end].replace("@", " "))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _too_long_message(what: str, consequence: str) -> str:
    return (
        f"{what} is longer than {MAX_VALUE_CHARS:,} characters once its @string macros are "
        f"expanded (macros that repeat each other?); {consequence}."
    )


_ENTRY_START_RE = re.compile(r"@\s*(?!(?:string|comment|preamble)\b)\w+\s*[{(]", re.I)


def _size_message(size: int, limit: int) -> str:
    def human(n: int) -> str:
        if n >= 1024 * 1024:
            return f"{n / (1024 * 1024):.1f} MiB".replace(".0 ", " ")
        if n >= 1024:
            return f"{n / 1024:.1f} KiB".replace(".0 ", " ")
        return f"{n} bytes"

    return f"BibTeX input is {human(size)}; the limit is {human(limit)} ({limit} bytes)"


def _failure_message(block: ParsingFailedBlock) -> tuple[str | None, str]:
    raw = block.raw or ""
    m = _FAILED_KEY_RE.match(raw)
    key = m.group(2) if m else None
    kind = raw[1 : raw.find("{")].strip().lower() if raw.startswith("@") and "{" in raw else ""
    what = f"@{kind} entry" if kind else "entry"
    if key:
        what += f" '{key}'"
    error = block.error
    reason = error.abort_reason if isinstance(error, BlockAbortedException) else str(error)
    if "Unexpected block start" in reason:
        if "field-value closing `}`" in reason or 'closing `"`' in reason:
            detail = 'a field value is not closed (missing } or ") before the next entry starts'
        else:
            detail = "missing closing brace: the next entry starts before this one ends"
    elif "after entry key, but found `@" in reason:
        # A last field ending in a comma, then the next entry: the brace was never closed.
        detail = "missing closing brace: the next entry starts before this one ends"
    elif "end of file" in reason:
        detail = "missing closing brace: the file ends before this entry does"
    elif "Expected comma after entry key" in reason:
        detail = "missing citation key (expected '@type{key, field = ...}')"
    elif "Expected equals sign" in reason:
        detail = "malformed @string definition (expected '@string{name = value}')"
    else:
        detail = reason.strip()
    if kind == "string":
        what = "@string definition"
    return key, f"Malformed {what}: {detail.rstrip('.')}."


#: Blocks written like entries that are not publications, and what the preview says of them.
_NOT_PUBLICATIONS = {
    "set": "@set groups other entries of the file (biblatex); those are imported, the set "
    "itself is not a publication; skipped.",
    "xdata": "@xdata holds fields other entries inherit (biblatex); it is not a publication; "
    "skipped.",
    "ieeetranbstctl": "@IEEEtranBSTCTL holds settings of the IEEEtran bibliography style, not "
    "a publication; skipped.",
}
# An entry opened without a key (``@article{ title = ...``): the splitter would refuse it, so
# a placeholder key is written in before splitting (and taken out of the entry's raw text).
_KEYLESS_RE = re.compile(
    r"^([ \t]*@[ \t]*(?!(?:string|comment|preamble)\b)\w+[ \t]*[{(])(?=\s*[A-Za-z][\w-]*\s*=)",
    re.M | re.I,
)
_PLACEHOLDER_KEY = "directory-keyless-entry,"


def _free_key(base: str, used: set[str]) -> str:
    """``base``, or ``base`` with the first letter suffix not in ``used`` (which it joins)."""
    key = base
    if key.lower() in used:
        for suffix in _key_suffixes():
            key = base + suffix
            if key.lower() not in used:
                break
    used.add(key.lower())
    return key


def parse_bibtex(
    text: str | bytes, *, max_bytes: int = MAX_BIBTEX_BYTES, max_entries: int = MAX_BIBTEX_ENTRIES
) -> ParseResult:
    """Parse a BibTeX file into publications plus a list of problems (see
    :func:`_parse_bibtex`), with the cyclic garbage collector paused meanwhile: a file's
    thousands of fields are small objects in no cycle (:mod:`directory.formats.batch`)."""
    with collection_paused():
        return _parse_bibtex(text, max_bytes=max_bytes, max_entries=max_entries)


def _parse_bibtex(
    text: str | bytes, *, max_bytes: int = MAX_BIBTEX_BYTES, max_entries: int = MAX_BIBTEX_ENTRIES
) -> ParseResult:
    """Parse a BibTeX file into publications plus a list of problems.

    Malformed entries (missing brace or key, duplicate key) become ``BibtexProblem`` s with
    their line number while every other entry is still returned; whether to import partially
    is the caller's decision. Free text, ``@comment``, ``@preamble`` and ``%`` comments are
    ignored; ``@string`` macros (also in ``#`` concatenations), month macros, ``crossref``
    inheritance and LaTeX markup are resolved.

    :param text: the file, as text or as UTF-8 bytes (a BOM is accepted).
    :param max_bytes: size limit in bytes.
    :param max_entries: how many entries one file may hold.
    :raises BibtexTooLarge: if the input is larger than ``max_bytes`` or holds more than
        ``max_entries`` entries (counted before any parsing work).
    """
    if isinstance(text, bytes | bytearray):
        if len(text) > max_bytes:
            raise BibtexTooLarge(_size_message(len(text), max_bytes))
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = text.count(b"\n", 0, e.start) + 1
            message = (
                f"The file is not valid UTF-8 (byte 0x{text[e.start]:02x} on line {line}); "
                "save it with UTF-8 encoding and upload it again."
            )
            return ParseResult(entries=[], problems=[BibtexProblem(line, None, message)])
    else:
        # Only encode (a copy) when the character count alone cannot settle the question.
        if len(text) * 4 > max_bytes:
            size = len(text.encode("utf-8", "surrogatepass"))
            if size > max_bytes:
                raise BibtexTooLarge(_size_message(size, max_bytes))
        if text.startswith("\ufeff"):
            text = text[1:]

    count = len(_ENTRY_START_RE.findall(text))
    if count > max_entries:
        raise BibtexTooLarge(
            f"The file holds {count:,} entries; at most {max_entries:,} are imported at a "
            "time: split it into smaller files."
        )
    if "@" in text:
        text = _KEYLESS_RE.sub(r"\1" + _PLACEHOLDER_KEY, text)
    original = text
    text = _hide_percent_comments(text)
    if _AT_COMMENT_RE.search(text) is not None:
        text = _disarm_comment_blocks(text)
    modified = text is not original and text != original
    # Entries are asked for their raw text in file order, so each search starts where the
    # previous entry ended. Hidden text cannot match: its "@" and "%" are gone.
    cursor = [0]

    def original_raw(block_raw: str | None) -> str:
        raw = block_raw or ""
        if not modified:
            return raw
        pos = text.find(raw, cursor[0])
        if pos < 0:
            return raw
        cursor[0] = pos + len(raw)
        return original[pos : pos + len(raw)]

    # Well-formed files by the quick way; anything else by bibtexparser's splitter, whose
    # recovery from errors the messages below are written for (formats/bibsplit.py).
    library = split_plain(text)
    if library is None:
        library = _bibtexparser_split(text, parse_stack=[])

    problems: list[BibtexProblem] = []
    evaluator = _Evaluator()
    # (entry, duplicate field keys) in file order.
    entries: list[tuple[Entry, set[str]]] = []
    free_text: list[int] = []
    too_long_macros = 0
    for block in library.blocks:
        if isinstance(block, DuplicateBlockKeyBlock | DuplicateFieldKeyBlock):
            inner = block.ignore_error_block
            duplicates = (
                block.duplicate_keys if isinstance(block, DuplicateFieldKeyBlock) else set()
            )
            block = inner
            if isinstance(inner, Entry):
                entries.append((inner, set(duplicates)))
                continue
        if isinstance(block, Entry):
            entries.append((block, set()))
        elif isinstance(block, String):
            # Strings are evaluated in file order; a redefinition replaces the earlier value.
            evaluator.undefined = []
            value = evaluator.evaluate(block.value.strip())
            evaluator.macros[block.key.strip().lower()] = value
            line = (block.start_line or 0) + 1
            # Only the first of a chain of growing macros is worth a message.
            if evaluator.too_long and not too_long_macros:
                problems.append(
                    BibtexProblem(
                        line,
                        block.key,
                        _too_long_message(
                            f"@string '{block.key}'", "entries using it are not imported"
                        ),
                    )
                )
            too_long_macros += evaluator.too_long
            for name in evaluator.undefined:
                problems.append(
                    BibtexProblem(
                        line, block.key, f"@string '{block.key}' uses undefined '{name}'."
                    )
                )
        elif isinstance(block, ParsingFailedBlock):
            key, message = _failure_message(block)
            start = block.start_line
            problems.append(BibtexProblem(None if start is None else start + 1, key, message))
        elif isinstance(block, Preamble | ExplicitComment):
            what = "@preamble (LaTeX definitions for the bibliography style)"
            if isinstance(block, ExplicitComment):
                what = "@comment"
            problems.append(
                BibtexProblem(
                    (block.start_line or 0) + 1, None,
                    f"{what} is not a publication; skipped.", "skipped",
                )
            )  # fmt: skip
        elif isinstance(block, ImplicitComment) and block.comment.strip():
            free_text.append((block.start_line or 0) + 1)
    if free_text:
        lines = ", ".join(str(n) for n in free_text[:10]) + (", ..." if len(free_text) > 10 else "")
        problems.append(
            BibtexProblem(
                free_text[0], None,
                f"Text outside any entry (line{'s' if len(free_text) > 1 else ''} {lines}) is "
                "not a publication; skipped.", "skipped",
            )
        )  # fmt: skip

    # Evaluate every entry's fields (crossref needs all of them before building any).
    parsed: list[tuple[Entry, str, str, dict[str, str], list[str]]] = []
    by_key: dict[str, tuple[str, dict[str, str], list[str]]] = {}
    first_line: dict[str, int] = {}
    #: The raw text of the first entry of each key, compared (spacing aside) only when a
    #: later entry has the same key.
    first_raw: dict[str, str] = {}
    used_keys = {entry.key.strip().lower() for entry, _ in entries}
    # Entries without a key get one once their fields are known (see below).
    keyless: set[str] = set()
    for entry, duplicate_fields in entries:
        line = (entry.start_line or 0) + 1
        key = entry.key.strip()
        warnings: list[str] = []
        if key == _PLACEHOLDER_KEY[:-1]:
            key = ""
        if not key:
            key = f"\x00{line}"
            keyless.add(key)
        folded = key.lower()
        if folded in first_line:
            earlier = first_line[folded]
            if (entry.raw or "").split() == first_raw[folded].split():
                problems.append(
                    BibtexProblem(
                        line, key,
                        f"An identical copy of the entry on line {earlier}; skipped.", "skipped",
                    )
                )  # fmt: skip
                continue
            new_key = _free_key(key, used_keys)
            warnings.append(
                f"citation key '{key}' is already used on line {earlier}; this entry was "
                f"given the key '{new_key}'"
            )
            key, folded = new_key, new_key.lower()
        first_line[folded] = line
        first_raw[folded] = entry.raw or ""
        fields: dict[str, str] = {}
        evaluator.undefined = []
        too_long = None
        for fld in entry.fields:
            # The splitter has stripped keys and values already.
            name = fld.key.lower()
            if "\n" in name or "%" in name:
                name = name.rsplit("\n", 1)[-1].strip()
                if name.startswith("%"):
                    continue
            if not name or name in fields:
                continue  # BibTeX keeps the first value; duplicates are reported below
            fields[name] = evaluator.evaluate(fld.value)
            if evaluator.too_long and too_long is None:
                too_long = name
        if too_long is not None:
            problems.append(
                BibtexProblem(
                    line,
                    key,
                    _too_long_message(f"The field '{too_long}'", "the entry is not imported"),
                )
            )
            continue
        for name in evaluator.undefined:
            warnings.append(f"undefined @string macro '{name}' was kept as text")
        for name in sorted(duplicate_fields):
            warnings.append(f"field '{name.lower()}' appears more than once; the first is used")
        entry_type = entry.entry_type.strip().lower()
        by_key[folded] = (entry_type, fields, warnings)
        parsed.append((entry, key, entry_type, fields, warnings))

    # crossref: children inherit what they lack from their parent (itself possibly a child).
    referenced: set[str] = set()
    resolved: set[str] = set()

    def resolve(folded_key: str, chain: tuple[str, ...]) -> None:
        if folded_key in resolved:
            return
        resolved.add(folded_key)
        _, fields, warnings = by_key[folded_key]
        # biblatex @xdata: every field the entry lacks, from each named xdata entry.
        for xdata_key in _LIST_SPLIT_RE.split(fields.get("xdata", "").strip()):
            xdata = by_key.get(xdata_key.lower()) if xdata_key else None
            if xdata_key and xdata is None:
                warnings.append(f"xdata '{xdata_key}' is not in the file")
            elif xdata is not None and xdata_key.lower() not in chain:
                resolve(xdata_key.lower(), (*chain, folded_key))
                for name, value in xdata[1].items():
                    fields.setdefault(name, value)
        parent_key = fields.get("crossref", "").strip()
        if not parent_key:
            return
        parent_folded = parent_key.lower()
        parent = by_key.get(parent_folded)
        if parent is None:
            warnings.append(f"crossref '{parent_key}' is not in the file")
            return
        if parent_folded in chain:
            warnings.append(f"crossref '{parent_key}' is circular")
            return
        referenced.add(parent_folded)
        resolve(parent_folded, (*chain, folded_key))
        parent_fields = parent[1]
        for name, value in parent_fields.items():
            if name not in fields and name not in _NOT_INHERITED:
                fields[name] = value
        # A part of a book (@inbook, @bookinbook...) is by the book's author, as in BibTeX.
        if "author" not in fields and parent[0] in _BOOK_TYPES and parent_fields.get("author"):
            fields["author"] = parent_fields["author"]
        # An entry of the parent's own kind without a title of its own (xampl.bib's
        # article-crossref) is, as BibTeX prints it, under the parent's title; a part of a
        # container (@inproceedings of @proceedings) takes it as its booktitle below.
        child_type = by_key[folded_key][0]
        if (
            "title" not in fields
            and parent_fields.get("title")
            and child_type == parent[0]
            and parent[0] not in _CONTAINER_TYPES
        ):
            fields["title"] = parent_fields["title"]
        # biblatex: a proceedings' title is its papers' booktitle.
        if "booktitle" not in fields and parent_fields.get("title"):
            fields["booktitle"] = parent_fields["title"]

    for folded_key, (_, fields, _) in by_key.items():
        if "crossref" in fields or "xdata" in fields:
            resolve(folded_key, ())

    result: list[ParsedEntry] = []
    for entry, key, entry_type, fields, warnings in parsed:
        line = (entry.start_line or 0) + 1
        if entry_type in _CONTAINER_TYPES and key.lower() in referenced:
            # A proceedings volume is context for its papers, not a publication: said, not
            # dropped unseen (texbook3.bib has 27 such volumes).
            problems.append(
                BibtexProblem(line, key, gettext(
                    "@%(type)s %(key)s is the volume other entries of the file cross-reference: "
                    "its details are theirs; it is not a publication of its own; skipped.",
                    type=entry_type, key=key,
                ), "skipped")
            )  # fmt: skip
            continue
        if entry_type in _NOT_PUBLICATIONS:
            problems.append(
                BibtexProblem(line, None if key in keyless else key, _NOT_PUBLICATIONS[entry_type],
                              "skipped")
            )  # fmt: skip
            continue
        unknown: list[str] = []
        reset = _UNKNOWN_COMMANDS.set(unknown)
        try:
            data = _build_publication(key, entry_type, fields, warnings)
        finally:
            _UNKNOWN_COMMANDS.reset(reset)
        for word in unknown:
            warnings.append(f"unknown LaTeX command \\{word} was kept as the text '{word}'")
        raw = original_raw(entry.raw)
        if key in keyless:
            raw = raw.replace(_PLACEHOLDER_KEY, "", 1)
            key = data["key"] = _free_key(make_citation_key(data), used_keys)
            warnings.append(f"the entry has no citation key; it was given the key '{key}'")
        result.append(
            ParsedEntry(
                key=key,
                line=line,
                raw=raw,
                data=data,
                warnings=warnings,
            )
        )
    problems.sort(key=lambda p: p.line or 0)
    return ParseResult(entries=result, problems=problems)


# --------------------------------------------------------------------------------------------
# Export: BibTeX
# --------------------------------------------------------------------------------------------

_LATEX_ESCAPES = str.maketrans(
    {
        "\\": r"\textbackslash{}",
        "{": r"\{",
        "}": r"\}",
        "&": r"\&",
        "%": r"\%",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}",
    }
)
# "--" would read back as an en dash; "-{}-" keeps the hyphens.
_DOUBLE_HYPHEN_RE = re.compile(r"-(?=-)")
# Words with a capital after their first letter (BERT, GPUs, iPhone) get braces, so that
# bibliography styles that lower-case titles keep them.
_PROTECT_RE = re.compile(r"(?<![\\\w])([^\W\d_]\w*?[A-Z]\w*)")
_URL_ESCAPES = str.maketrans({"%": r"\%", "#": r"\#", "{": "%7B", "}": "%7D", "\\": "%5C"})

_EXPORT_ENTRY_TYPES = {
    "conference": ("inproceedings", "booktitle"),
    "workshop": ("inproceedings", "booktitle"),
    "journal": ("article", "journal"),
    "preprint": ("misc", "howpublished"),
    "thesis": ("phdthesis", "school"),
    "book": ("book", "series"),
    "chapter": ("incollection", "booktitle"),
    "report": ("techreport", "institution"),
    "talk": ("misc", "howpublished"),
    "other": ("misc", "howpublished"),
}
_EXPORT_LINK_FIELDS = {
    "publisher": "html",
    "code": "code",
    "slides": "slides",
    "talk": "talk",
    "video": "video",
    "blog": "blog",
    "poster": "poster",
    "website": "website",
    "preprint": "preprint",
    "artifact": "artifact",
    "dataset": "dataset",
    "other": "supp",
}
_EXPORT_PUBSTATE = {
    "accepted": "forthcoming",
    "under_review": "submitted",
    "preprint": "prepublished",
    "in_preparation": "inpreparation",
}


def _escape(value: Any, *, keep_hyphens: bool = True) -> str:
    text = str(value).translate(_LATEX_ESCAPES)
    if keep_hyphens and "--" in text:
        text = _DOUBLE_HYPHEN_RE.sub("-{}", text)
    return text


def _escape_title(value: str) -> str:
    return _PROTECT_RE.sub(r"{\1}", _escape(value))


def _escape_name(name: str) -> str:
    text = _escape(name)
    # A name with a comma or a literal " and " (an organisation) is one brace-protected unit.
    if "," in name or _AND_RE.search(name) or name.lower() == "others":
        text = "{" + text + "}"
    return text


def _brace_if_needed(part: str) -> str:
    """A name part BibTeX would split or re-case otherwise, as one braced unit."""
    text = _escape(part)
    if "," in part or _AND_RE.search(part) or part.lower() == "others" or (part[:1].islower()):
        return "{" + text + "}"
    return text


def bibtex_name(author: dict[str, Any]) -> str:
    """One author as BibTeX reads it back into the same parts: ``von Last, Jr, First`` from
    the stored parts, ``{Name}`` for an organisation (a family name alone, several words),
    else the printed name as written."""
    family = author.get("family")
    if not family:
        return _escape_name(author.get("name") or "")
    given, particle, suffix = author.get("given"), author.get("particle"), author.get("suffix")
    if not (given or particle or suffix):
        return "{" + _escape(family) + "}" if " " in family or "," in family else _escape(family)
    words = family.split()
    given_words = (given or "").split()
    if (
        len(words) == 1
        and words[0][:1].isupper()
        and not suffix
        and "," not in (given or "")
        and all(w[:1].isupper() for w in given_words)
    ):  # "Given von Family" reads back into the same parts
        return " ".join(_escape(p) for p in (given, particle, family) if p)
    # The family name: braced when it has words BibTeX would take for a particle.
    last = _escape(family)
    if len(words) > 1 or any(w[:1].islower() for w in words) or "," in family:
        last = "{" + last + "}"
    head = f"{_escape(particle)} {last}" if particle else last
    pieces = [head]
    if suffix:
        pieces.append(_brace_if_needed(suffix))
    if given:
        pieces.append(_brace_if_needed(given) if "," in given else _escape(given))
    return ", ".join(pieces)


def _name_list(authors: list[dict[str, Any]], incomplete: bool) -> str:
    names = [bibtex_name(a) for a in authors]
    if incomplete:
        names.append("others")
    return " and ".join(names)


def _sanitise_key(key: Any) -> str:
    if not key:
        return ""
    # Characters that would end the key or break \cite.
    return re.sub(r"[\s,{}()=\"#%'\\~]+", "", str(key))


def publication_to_bibtex(pub: dict[str, Any], key: str | None = None) -> str:
    """Write one publication (interchange dict) as a BibTeX entry.

    Values are LaTeX-escaped (``& % $ # _ { } ~ ^ \\``), authors are written
    ``First Last and ...``, the month as a macro. Fields this module reads back
    (``abbr``, ``award``, ``badges``, ``labels``, ``selected``, ``co_first``,
    ``corresponding``, ``pubstate``) carry the rest; ``pubtype`` is added only when the
    entry type alone would read back as a different publication type. Only the first link
    of each kind is written (the first two for ``paper``: ``url`` and ``pdf``).
    """
    key = _sanitise_key(key) or _sanitise_key(pub.get("key")) or make_citation_key(pub)
    pub_type = pub.get("type") or "other"
    if pub_type not in _EXPORT_ENTRY_TYPES:
        pub_type = "other"
    entry_type, venue_field = _EXPORT_ENTRY_TYPES[pub_type]
    arxiv_id = normalise_arxiv(pub.get("arxiv_id"))
    venue = pub.get("venue")

    lines: list[tuple[str, str]] = []

    def add(name: str, value: Any, *, raw: bool = False) -> None:
        if value is None or value == "" or value == []:
            return
        lines.append((name, str(value) if raw else _escape(value)))

    everyone = pub.get("authors") or []
    authors = [a for a in everyone if (a.get("role") or "author") == "author"]
    editors = [a for a in everyone if a.get("role") == "editor"]
    incomplete = bool(pub.get("authors_incomplete"))
    if authors:
        lines.append(("author", _name_list(authors, incomplete)))
    if editors:
        lines.append(("editor", _name_list(editors, incomplete and not authors)))
    if pub.get("title"):
        lines.append(("title", _escape_title(pub["title"])))
    add(venue_field, venue)
    add("year", pub.get("year"))
    month = pub.get("month")
    if isinstance(month, int) and 1 <= month <= 12:
        lines.append(("month", _MONTH_MACROS[month - 1]))
    add("volume", pub.get("volume"))
    add("number", pub.get("number"))
    pages = pub.get("pages")
    if pages:
        # Page ranges are meant as en dashes, which BibTeX spells "--".
        pages_text = str(pages).replace("–", "--").replace("—", "--")
        lines.append(("pages", _escape(pages_text, keep_hyphens=False)))
    add("publisher", pub.get("publisher"))
    add("address", pub.get("location"))
    add("note", pub.get("note"))
    status = pub.get("status")
    if status in _EXPORT_PUBSTATE and not (status == "preprint" and pub_type == "preprint"):
        lines.append(("pubstate", _EXPORT_PUBSTATE[status]))
    doi = normalise_doi(pub.get("doi"))
    if doi:
        lines.append(("doi", doi.replace("{", "%7B").replace("}", "%7D")))
    if arxiv_id:
        lines.append(("eprint", arxiv_id))
        lines.append(("archiveprefix", "arXiv"))

    paper_fields = ["url", "pdf"]
    written: set[str] = set()
    for link in pub.get("links") or []:
        kind, url = link.get("kind"), link.get("url")
        if not url:
            continue
        if kind == "paper":
            if not paper_fields:
                continue
            name = paper_fields.pop(0)
        elif kind == "preprint" and arxiv_id and normalise_arxiv(url) == arxiv_id:
            continue  # already carried by eprint
        else:
            name = _EXPORT_LINK_FIELDS.get(kind or "other", "supp")
            if name in written:
                continue
        written.add(name)
        lines.append((name, str(url).translate(_URL_ESCAPES)))

    add("abbr", pub.get("venue_short"))
    add("award", "; ".join(pub.get("awards") or []))
    badges = [
        f"{b['name']} ({b['issuer']})" if b.get("issuer") else b["name"]
        for b in pub.get("badges") or []
        if b.get("name")
    ]
    add("badges", ", ".join(badges))
    add("labels", ", ".join(pub.get("labels") or []))
    if pub.get("selected"):
        lines.append(("selected", "true"))
    co_first = [str(i) for i, a in enumerate(authors, start=1) if a.get("co_first")]
    if co_first:
        lines.append(("co_first", ",".join(co_first)))
    corresponding = [_escape_name(a["name"]) for a in authors if a.get("corresponding")]
    if corresponding:
        lines.append(("corresponding", " and ".join(corresponding)))

    # Say the type explicitly only where the entry type and venue would be read otherwise.
    type_venue = venue if venue_field in ("journal", "booktitle") else None
    if _infer_type(entry_type, type_venue, bool(arxiv_id)) != pub_type:
        lines.append(("pubtype", pub_type))
    add("abstract", pub.get("abstract"))

    body = "".join(
        f"  {name} = {value},\n" if name == "month" else f"  {name} = {{{value}}},\n"
        for name, value in lines
    )
    return f"@{entry_type}{{{key},\n{body}}}\n"


def _key_suffixes() -> Iterator[str]:
    yield from "bcdefghijklmnopqrstuvwxyz"
    n = 27
    while True:
        yield f"-{n}"
        n += 1


def publications_to_bibtex(pubs: list[dict[str, Any]]) -> str:
    """Write many publications as one BibTeX file, making citation keys unique.

    A publication's own ``key`` is kept when free; otherwise a key is generated and clashes
    get a letter suffix (``wei2023mitosis``, ``wei2023mitosisb``, ...).
    """
    used: set[str] = set()
    chunks = []
    for pub in pubs:
        key = _free_key(_sanitise_key(pub.get("key")) or make_citation_key(pub), used)
        chunks.append(publication_to_bibtex(pub, key=key))
    return "\n".join(chunks)


# --------------------------------------------------------------------------------------------
# Citation keys
# --------------------------------------------------------------------------------------------

_ASCII_FOLD = str.maketrans(
    {"ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ł": "l"}
    | {"Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "þ": "th", "ı": "i"}
)
_NON_ALNUM_RE = re.compile(r"[^a-z0-9]+")
_KEY_STOPWORDS = frozenset(
    "a an the on of in for to and with towards toward via from at by is are do does how what "  # noqa: SIM905
    "when why can we our".split()
)
_NAME_SUFFIXES = frozenset(["jr", "sr", "ii", "iii", "iv"])


def _ascii(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.translate(_ASCII_FOLD))
    return _NON_ALNUM_RE.sub("", text.encode("ascii", "ignore").decode("ascii").lower())


def _surname(name: str) -> str:
    if "," in name:
        return name.split(",", 1)[0]
    tokens = name.split()
    while len(tokens) > 1 and tokens[-1].lower().rstrip(".") in _NAME_SUFFIXES:
        tokens.pop()
    return tokens[-1] if tokens else ""


def make_citation_key(pub: dict[str, Any]) -> str:
    """A conventional ASCII key: first author's surname, year, first significant title word.

    ``{"authors": [{"name": "Xingda Wei"}], "year": 2023, "title": "Mitosis: ..."}``
    gives ``wei2023mitosis``. Missing parts are left out (``anon`` stands in for no author).
    """
    authors = pub.get("authors") or []
    surname = _ascii(_surname(authors[0].get("name", ""))) if authors else ""
    year = pub.get("year")
    word = ""
    for token in str(pub.get("title") or "").split():
        folded = _ascii(token)
        if folded and folded not in _KEY_STOPWORDS:
            word = folded
            break
    return f"{surname or 'anon'}{year if isinstance(year, int) else ''}{word}"


# --------------------------------------------------------------------------------------------
# Export: CSL-JSON
# --------------------------------------------------------------------------------------------

_CSL_TYPES = {
    "conference": "paper-conference",
    "workshop": "paper-conference",
    "journal": "article-journal",
    "preprint": "article",
    "thesis": "thesis",
    "book": "book",
    "chapter": "chapter",
    "report": "report",
    "talk": "speech",
    "other": "document",
}
_PARTICLES = frozenset(
    "van von der den de del della da di du la le dos das do ter ten zu y bin al".split()  # noqa: SIM905
)
_CSL_STATUS = {
    "accepted": "forthcoming", "under_review": "submitted", "preprint": "preprint",
    "in_preparation": "in preparation",
}  # fmt: skip


def csl_name(author: dict[str, Any]) -> dict[str, str]:
    """One author as a CSL name: its stored parts (``non-dropping-particle`` for the von
    part, ``literal`` for an organisation), else parts guessed from the printed name."""
    family = author.get("family")
    if not family:
        return _csl_name(author.get("name") or "")
    given = author.get("given")
    if not (given or author.get("particle") or author.get("suffix")):
        return {"literal": family}
    result = {"family": family}
    if given:
        result["given"] = given
    if author.get("particle"):
        result["non-dropping-particle"] = author["particle"]
    if author.get("suffix"):
        result["suffix"] = author["suffix"]
    return result


def _csl_name(name: str) -> dict[str, str]:
    tokens = name.split()
    if len(tokens) < 2:
        return {"literal": name}
    suffix = None
    if len(tokens) > 2 and tokens[-1].lower().rstrip(".,") in _NAME_SUFFIXES:
        suffix = tokens.pop().rstrip(",")
        tokens[-1] = tokens[-1].rstrip(",")
    start = len(tokens) - 1
    while start > 1 and tokens[start - 1] in _PARTICLES:
        start -= 1
    result = {"family": " ".join(tokens[start:]), "given": " ".join(tokens[:start])}
    if suffix:
        result["suffix"] = suffix
    return result


def _csl_url(links: list[dict[str, Any]], arxiv_id: str | None) -> str | None:
    """The paper's web address: a paper link, else the publisher's or arXiv page.

    Absolute URLs win over site-relative ones (al-folio ``pdf = {paper.pdf}``), which mean
    nothing outside the site.
    """
    candidates = [lk.get("url") for lk in links if lk.get("kind") == "paper"]
    candidates += [lk.get("url") for lk in links if lk.get("kind") in ("publisher", "preprint")]
    if arxiv_id:
        candidates.append(_arxiv_url(arxiv_id))
    present = [url for url in candidates if url]
    absolute = next((url for url in present if "://" in url), None)
    return absolute or (present[0] if present else None)


def publication_to_csl(pub: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    """Convert a publication to a CSL-JSON item (for citeproc and reference managers).

    Names become ``{"given", "family"}`` (``{"literal"}`` for single-token names); the
    date goes to ``issued.date-parts``; ``URL`` is the first paper link, else the publisher
    or arXiv page. Empty values are left out.
    """
    pub_type = pub.get("type") or "other"
    item: dict[str, Any] = {
        "id": id or pub.get("key") or make_citation_key(pub),
        "type": _CSL_TYPES.get(pub_type, "document"),
    }

    def put(name: str, value: Any) -> None:
        if value not in (None, "", []):
            item[name] = value

    put("title", pub.get("title"))
    everyone = [a for a in pub.get("authors") or [] if a.get("name")]
    put("author", [csl_name(a) for a in everyone if (a.get("role") or "author") == "author"])
    put("editor", [csl_name(a) for a in everyone if a.get("role") == "editor"])
    year = pub.get("year")
    if isinstance(year, int):
        parts = [year]
        month = pub.get("month")
        if isinstance(month, int) and 1 <= month <= 12:
            parts.append(month)
        item["issued"] = {"date-parts": [parts]}
    if pub_type in ("thesis", "report"):
        put("publisher", pub.get("venue"))  # CSL puts school / institution there
    else:
        put("container-title", pub.get("venue"))
        put("container-title-short", pub.get("venue_short"))
        put("publisher", pub.get("publisher"))
    put("publisher-place", pub.get("location"))
    put("volume", pub.get("volume"))
    put("issue", pub.get("number"))
    put("page", pub.get("pages"))
    put("DOI", pub.get("doi"))
    arxiv_id = pub.get("arxiv_id")
    if arxiv_id:
        if pub_type == "preprint":
            item.setdefault("publisher", "arXiv")
            put("number", f"arXiv:{arxiv_id}")
        put("archive", "arXiv")
        put("archive_location", arxiv_id)
    put("URL", _csl_url(pub.get("links") or [], arxiv_id))
    put("abstract", pub.get("abstract"))
    put("note", pub.get("note"))
    put("status", _CSL_STATUS.get(pub.get("status") or ""))
    return item
