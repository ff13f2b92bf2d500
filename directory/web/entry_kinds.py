"""The registry that drives the generic entry-editing views: for each declared kind of
profile entry (:data:`directory.models.ENTRY_KINDS`), its model, its form and how the editing
pages name it. One set of views serves every kind; a kind without a form of its own here gets
one made from its declaration (:func:`directory.web.declared_forms.declared_entry_form`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from directory import models as m
from directory.i18n import gettext as _
from directory.i18n import lazy_gettext as _l
from directory.i18n import term_label, translate
from directory.services.access import advising_side_name
from directory.services.identity import current_viewer
from directory.services.snapshots import describe
from directory.web import forms
from directory.web.declared_forms import declared_entry_form


def _default_summary(kind: str) -> Callable[[Any], str]:
    def summary(entry: Any) -> str:
        return describe(kind, {"title": getattr(entry, "title", None),
                               "funder": getattr(entry, "funder", None)})  # fmt: skip

    return summary


def _advising(entry: Any) -> str:
    # The other side's name, unless their profile is hidden from whoever edits this one.
    if entry.advisor_id == entry.owner_id:
        return _("Student: %(name)s", name=advising_side_name(current_viewer(), entry, "student"))
    return _("Advisor: %(name)s", name=advising_side_name(current_viewer(), entry, "advisor"))


def _recruiting(entry: Any) -> str:
    level = translate(m.label(m.RECRUITING_LEVELS, entry.level))
    if entry.term_unreadable:
        term = " · " + _("“%(term)s”: names no term, choose one", term=entry.term)
    else:
        term = f" · {term_label(entry)}"
    return f"{entry.title or _('Recruiting %(level)s', level=level)}{term}"


def _service(entry: Any) -> str:
    year = f" {entry.year}" if entry.year else ""
    return f"{translate(m.label(m.SERVICE_KINDS, entry.kind))}: {entry.venue}{year}"


def _project(entry: Any) -> str:
    return f"↳ {entry.title}" if entry.parent_id else _default_summary("projects")(entry)


@dataclass(frozen=True)
class EntryKind:
    """One kind of profile entry as the editing pages see it: its model, its form, how the
    pages name it and how one entry is summarised in lists and messages."""

    name: str
    model: type[m.Base]
    form: type[forms.EntryForm]
    #: The section heading on the editing page ("News"), translated when shown.
    title: Any
    #: One entry ("news item"), translated when shown.
    singular: Any
    #: One line naming an entry (default: its title).
    summarise: Callable[[Any], str] | None = None

    def summary(self, entry: Any) -> str:
        """One line naming an entry in lists and messages."""
        return (self.summarise or _default_summary(self.name))(entry)


#: The kinds whose editing form is written by hand (web/forms.py); any other declared kind
#: gets a form made from its declaration.
FORMS: dict[str, type[forms.EntryForm]] = {
    "news": forms.NewsItemForm,
    "recruiting": forms.RecruitingNoticeForm,
    "projects": forms.ResearchProjectForm,
    "advising": forms.AdvisingRelationForm,
    "education": forms.EducationForm,
    "experience": forms.ExperienceForm,
    "teaching": forms.TeachingForm,
    "service": forms.ServiceForm,
    "awards": forms.AwardForm,
    "funding": forms.FundingForm,
    "custom_sections": forms.CustomSectionForm,
}

#: How the editing pages name one entry of a kind, where its title does not (by kind).
SUMMARIES: dict[str, Callable[[Any], str]] = {
    "news": lambda e: f"[{e.year}] {describe('news', {'body': e.body})}",
    "recruiting": _recruiting,
    "projects": _project,
    "advising": _advising,
    "education": lambda e: f"{e.degree}, {e.institution}",
    "experience": lambda e: f"{e.organisation} · {e.title}",
    "service": _service,
}

#: The editing kind made for each declared kind, once (a kind taken away again, such as a
#: test's throwaway kind, leaves with its declaration).
_MADE: WeakKeyDictionary[m.EntryKind, EntryKind] = WeakKeyDictionary()


def _editing_kind(declared: m.EntryKind) -> EntryKind:
    if declared not in _MADE:
        _MADE[declared] = _make(declared)
    return _MADE[declared]


def _make(declared: m.EntryKind) -> EntryKind:
    name = declared.name
    return EntryKind(
        name,
        declared.model,
        FORMS.get(name) or declared_entry_form(declared),
        _l(declared.title),
        _l(declared.singular),
        SUMMARIES.get(name),
    )


class _Kinds(Mapping[str, EntryKind]):
    """The editing pages' kinds, one for each declared kind, in the declaration's order."""

    def __getitem__(self, name: str) -> EntryKind:
        return _editing_kind(m.ENTRY_KINDS[name])

    def __iter__(self) -> Iterator[str]:
        return iter(m.ENTRY_KINDS)

    def __len__(self) -> int:
        return len(m.ENTRY_KINDS)


KINDS: Mapping[str, EntryKind] = _Kinds()
