"""Reading a placement written as free text ("Assistant Professor, CMU (2024)", "Postdoc at
MIT", "Research Scientist, Google DeepMind", "Software Engineer @ ByteDance") into its
structure: the organisation, the kind of position (:data:`directory.models.PLACEMENT_KINDS`)
and the year.

One function, :func:`parse_placement`, used by the migration that gave placements their
structure, by the editor (which suggests the structure from the text) and by the interchange
import. It reads what a person would read and guesses nothing it cannot see: a text it cannot
read is answered with what it did find, and :attr:`Placement.understood` false, so that the
text is flagged for a person to complete (the text itself is always kept).

This module imports nothing of the plugin (the migration imports it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The longest organisation stored (the column's length).
MAX_ORGANISATION = 200


@dataclass(frozen=True)
class Placement:
    """What a placement text says: each part None when the text does not say it."""

    organisation: str | None = None
    kind: str | None = None
    year: int | None = None

    @property
    def understood(self) -> bool:
        """Both the organisation and the kind were read (the year is often not written)."""
        return bool(self.organisation and self.kind)


def _words(*patterns: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w])(?:" + "|".join(patterns) + r")(?![\w])", re.IGNORECASE)


_POSTDOC = _words(r"post-?docs?", r"postdoctoral(?: \w+)?", r"post-doctoral(?: \w+)?")
_FACULTY = _words(
    r"(?:assistant |associate |full |adjunct |research |visiting |teaching |clinical )?"
    r"professor(?:ship)?",
    r"prof\.?",
    r"lecturer",
    r"senior lecturer",
    r"reader",
    r"faculty(?: member)?",
    r"tenure[- ]track",
    r"instructor",
)
_RESEARCH_TITLE = _words(
    r"research(?:er| scientist| engineer| staff(?: member)?| fellow| associate| lead)?",
    r"(?:senior |staff |principal )?researcher",
    r"(?:senior |staff |principal )?research scientist",
    r"applied scientist",
    r"scientist",
    r"rsde",
)
_INDUSTRY_TITLE = _words(
    r"(?:senior |staff |principal |lead )?(?:software|hardware|systems?|machine learning|ml|"
    r"data|infrastructure|backend|frontend|site reliability|performance|kernel|compiler)?"
    r" ?engineer(?:ing manager)?",
    r"swe",
    r"sde",
    r"developer",
    r"data scientist",
    r"(?:product|program|engineering) manager",
    r"(?:co-?)?founder",
    r"ceo",
    r"cto",
    r"consultant",
    r"analyst",
    r"quant(?:itative \w+)?",
    r"architect",
    r"member of (?:the )?technical staff",
    r"mts",
    r"trader",
)
#: Further study at a university: a kind of its own is not asked for, so "other".
_STUDY = _words(r"ph\.?d\.?(?: student| candidate| program)?", r"doctoral student", r"student")
_ACADEMIC = _words(
    r"universit(?:y|ät|at|é|e|à|ad|eit|i)",
    r"univ\.?",
    r"college",
    r"institute of technology",
    r"polytechnic",
    r"politecnico",
    r"école",
    r"ecole",
    r"school of",
    r"academy of sciences",
    r"mit",
    r"cmu",
    r"eth(?: zurich| zürich)?",
    r"epfl",
    r"kaist",
    r"caltech",
    r"ucla",
    r"ucsd",
    r"uiuc",
    r"nus",
    r"ntu",
    r"hkust",
    r"sjtu",
    r"ustc",
    r"uc \w+",
    r"u\. ?of \w+",
)
_GOVERNMENT = _words(
    r"national (?:laborator(?:y|ies)|lab|institutes? of \w+)",
    r"government",
    r"ministry",
    r"agency",
    r"federal",
    r"bureau",
    r"department of (?:energy|defen[cs]e|commerce|state)",
    r"nist",
    r"nasa",
    r"nih",
    r"darpa",
    r"iarpa",
    r"doe",
    r"army",
    r"navy",
    r"air force",
    r"lawrence livermore",
    r"los alamos",
    r"sandia",
    r"argonne",
    r"oak ridge",
    r"public service",
    r"civil service",
)
#: Research laboratories of companies: a placement there is industry research.
_INDUSTRY_LAB = _words(
    r"(?:google )?deepmind",
    r"google (?:research|brain)",
    r"microsoft research(?: \w+)?",
    r"msr(?:a)?",
    r"meta (?:ai|fair|research)",
    r"fair",
    r"ibm research",
    r"nvidia research",
    r"intel labs",
    r"bell labs",
    r"adobe research",
    r"(?:alibaba )?damo(?: academy)?",
    r"openai",
    r"anthropic",
    r"[\w&.-]+ (?:ai )?research(?: lab(?:s)?)?",
    r"[\w&.-]+ labs?",
)
#: Well-known companies, read as industry when the text names no position.
_COMPANY = _words(
    r"google", r"alphabet", r"meta", r"facebook", r"microsoft", r"amazon", r"aws", r"apple",
    r"nvidia", r"intel", r"amd", r"ibm", r"oracle", r"uber", r"lyft", r"airbnb", r"databricks",
    r"snowflake", r"bytedance", r"tiktok", r"alibaba", r"ant group", r"tencent", r"baidu",
    r"huawei", r"xiaomi", r"jd\.com", r"meituan", r"netease", r"samsung", r"netflix",
    r"twitter", r"linkedin", r"salesforce", r"vmware", r"cisco", r"qualcomm", r"arm", r"stripe",
    r"jane street", r"two sigma", r"citadel", r"d\. ?e\. shaw", r"hudson river trading",
    r"tesla", r"spacex", r"adobe", r"sap", r"siemens", r"bosch", r"palantir", r"pinterest",
    r"dropbox", r"cloudflare", r"confluent", r"mongodb", r"redis", r"anyscale", r"openai",
    r"anthropic", r"mistral", r"cohere", r"hugging ?face", r"startup", r"start-up",
    r"inc\.?", r"ltd\.?", r"llc", r"gmbh", r"corp(?:oration|\.)?", r"co\., ltd\.?",
    r"technologies", r"technology co\.?",
)  # fmt: skip

# Writing systems without spaces: the position is written after the organisation
# ("清华大学助理教授": Tsinghua University, assistant professor).
_CJK_TITLES = (
    ("博士后", "postdoc"),
    ("助理教授", "faculty"),
    ("副教授", "faculty"),
    ("准教授", "faculty"),
    ("教授", "faculty"),
    ("讲师", "faculty"),
    ("研究员", "research"),
    ("工程师", "industry"),
)
_CJK_ACADEMIC = ("大学", "学院", "大學", "研究院", "研究所", "科学院")
_CJK_COMPANY = ("公司", "集团", "科技", "株式会社")

_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|2[01]\d\d)(?!\d)")
# A year with what introduces or encloses it: "(2024)", ", 2024", "since 2024", "2021–2023".
_SEASON = r"(?:(?:since|from|in|starting|spring|summer|fall|autumn|winter|jan\w*|sep\w*) )*"
_YEAR_CHUNK = re.compile(
    r"\s*[\(\[]\s*" + _SEASON + r"(?:19|2[01])\d\d"
    r"(?:\s*[-–—]\s*(?:(?:19|2[01])\d\d|present|now))?\s*[\)\]]"
    r"|[\s,;:–—-]*\b" + _SEASON + r"(?:19|2[01])\d\d"
    r"(?:\s*[-–—]\s*(?:(?:19|2[01])\d\d|present|now))?\b",
    re.IGNORECASE,
)
_AT = re.compile(r"\s+at\s+|\s*@\s*", re.IGNORECASE)
_DASH = re.compile(r"\s+[-–—|]\s+")


def _clean(organisation: str) -> str | None:
    organisation = re.sub(r"^\s*(?:the)\s+", "", organisation, flags=re.IGNORECASE)
    organisation = organisation.strip(" \t,;:–—-")
    if organisation.count("(") != organisation.count(")"):
        organisation = organisation.strip("()").strip()
    return organisation[:MAX_ORGANISATION] or None


def _is_title(part: str) -> bool:
    return any(
        p.search(part) for p in (_POSTDOC, _FACULTY, _RESEARCH_TITLE, _INDUSTRY_TITLE, _STUDY)
    ) and not (_ACADEMIC.search(part) or _INDUSTRY_LAB.search(part))


def _split(text: str) -> tuple[str, str]:
    """(position, organisation) as written; either may be empty."""
    enclosed = re.fullmatch(r"(.*?)\s*\(([^()]*)\)", text)
    if enclosed and _is_title(enclosed.group(2)) and not _is_title(enclosed.group(1)):
        return enclosed.group(2), enclosed.group(1)  # "Google (Software Engineer)"
    for separator in (_AT, _DASH):
        parts = separator.split(text, maxsplit=1)
        if len(parts) == 2 and parts[0].strip() and parts[1].strip():
            if _is_title(parts[1]) and not _is_title(parts[0]):
                return parts[1], parts[0]
            return parts[0], parts[1]
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) > 1:
        if _is_title(parts[0]):
            return parts[0], ", ".join(parts[1:])
        if _is_title(parts[-1]):
            return parts[-1], ", ".join(parts[:-1])
        return "", text
    return (text, "") if _is_title(text) else ("", text)


def _kind(position: str, organisation: str) -> str | None:
    academic = bool(_ACADEMIC.search(organisation))
    government = bool(_GOVERNMENT.search(organisation))
    lab = bool(_INDUSTRY_LAB.search(organisation)) and not academic and not government
    company = bool(_COMPANY.search(organisation)) and not academic
    if _POSTDOC.search(position):
        return "postdoc"
    if _FACULTY.search(position) and not lab:
        return "faculty"
    if government:
        return "government"
    if _STUDY.search(position) and not _INDUSTRY_TITLE.search(position):
        return "other"
    if lab:
        return "industry_research"
    if _RESEARCH_TITLE.search(position) and not _INDUSTRY_TITLE.search(position):
        # A research scientist at a university is neither faculty nor a company's researcher.
        return "other" if academic else "industry_research"
    if _INDUSTRY_TITLE.search(position):
        return "other" if academic else "industry"
    if company and not position:
        return "industry"
    return None


def _parse_cjk(text: str) -> Placement | None:
    if re.search(r"[A-Za-z]", text) or not re.search(r"[\u3040-\u30ff\u3400-\u9fff]", text):
        return None
    kind = None
    organisation = text
    for title, title_kind in _CJK_TITLES:
        if text.endswith(title):
            organisation, kind = text[: -len(title)], title_kind
            break
    academic = any(word in organisation for word in _CJK_ACADEMIC)
    company = any(word in organisation for word in _CJK_COMPANY)
    if kind == "research":
        kind = "other" if academic else "industry_research"
    elif kind == "industry" and academic:
        kind = "other"
    elif kind is None and company:
        kind = "industry"
    return Placement(_clean(organisation), kind)


def parse_placement(text: str | None) -> Placement:
    """The organisation, kind and year a placement text states (see the module's docstring);
    an empty text gives an empty :class:`Placement`."""
    text = " ".join((text or "").split())
    if not text:
        return Placement()
    years = _YEAR.findall(text)
    year = int(years[0]) if years else None
    rest = _YEAR_CHUNK.sub("", text).strip(" ,;:–—-") if year else text
    cjk = _parse_cjk(rest)
    if cjk is not None:
        return Placement(cjk.organisation, cjk.kind, year)
    position, organisation = _split(rest)
    return Placement(_clean(organisation), _kind(position, organisation), year)


def structure_placement(record: object) -> None:
    """Give a record with a placement (an advising relation, or anything with its
    ``placement``, ``placement_organisation``, ``placement_kind``, ``placement_year`` and
    ``placement_unparsed``) its structure: when none of the three parts is given, they are read
    from the text; the record is flagged ``placement_unparsed`` when it has a text but still
    lacks an organisation or a kind. Parts someone gave are never replaced."""
    text = getattr(record, "placement", None)
    parts = ("placement_organisation", "placement_kind", "placement_year")
    if text and not any(getattr(record, name, None) for name in parts):
        found = parse_placement(text)
        record.placement_organisation = found.organisation  # type: ignore[attr-defined]
        record.placement_kind = found.kind  # type: ignore[attr-defined]
        record.placement_year = found.year  # type: ignore[attr-defined]
    record.placement_unparsed = bool(text) and not (  # type: ignore[attr-defined]
        getattr(record, "placement_organisation", None) and getattr(record, "placement_kind", None)
    )
