"""LaTeX markup in BibTeX values decoded to plain Unicode (accents, escaped specials, dashes,
symbols, logos), and URL-like values cleaned of their LaTeX escapes.

One alternation of precompiled regular expressions does the work, one pass per value;
pylatexenc's far larger table is asked only for a command the tables here lack (it costs
about 1.6 ms a title, too much for every value).
"""

from __future__ import annotations

import html
import re
import unicodedata
from contextvars import ContextVar
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text, get_default_latex_context_db

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
NEEDS_LATEX_RE = re.compile(r"[\\{}$~]|--|``|''")


#: The LaTeX commands no table knows, met while decoding one entry (set by parse_bibtex).
UNKNOWN_COMMANDS: ContextVar[list[str] | None] = ContextVar("unknown_commands", default=None)


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
        unknown = UNKNOWN_COMMANDS.get()
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
    if NEEDS_LATEX_RE.search(value) is not None:
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


def clean_url(value: str) -> str:
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
