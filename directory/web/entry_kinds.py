"""The registry that drives the generic entry-editing views: for each kind of profile entry,
its model, its form and how the editing pages name it. One set of views serves every kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from directory import models as m
from directory.i18n import gettext as _
from directory.i18n import lazy_gettext as _l
from directory.i18n import term_label, translate
from directory.services.access import advising_side_name
from directory.services.identity import current_viewer
from directory.services.snapshots import describe
from directory.web import forms


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
    """One kind of profile entry: its model, its form, how the editing pages name it and how
    one entry is summarised in lists and messages."""

    name: str
    model: type[m.Base]
    form: type[forms.EntryForm]
    #: The section heading on the editing page ("News"), translated when shown.
    title: Any
    #: One entry ("news item"), translated when shown.
    singular: Any
    #: One line naming an entry (default: its title).
    summarise: Callable[[Any], str] | None = None
    #: Relationships that summary reads, loaded for all of a profile's entries at once.
    load: tuple[str, ...] = ()

    def summary(self, entry: Any) -> str:
        """One line naming an entry in lists and messages."""
        return (self.summarise or _default_summary(self.name))(entry)


KINDS: dict[str, EntryKind] = {
    k.name: k
    for k in (
        EntryKind("news", m.NewsItem, forms.NewsItemForm, _l("News"), _l("news item"),
                  lambda e: f"[{e.year}] {describe('news', {'body': e.body})}"),
        EntryKind("recruiting", m.RecruitingNotice, forms.RecruitingNoticeForm,
                  _l("Recruiting notices"), _l("recruiting notice"), _recruiting),
        EntryKind("projects", m.ResearchProject, forms.ResearchProjectForm,
                  _l("Research projects"), _l("project"), _project),
        EntryKind("advising", m.AdvisingRelation, forms.AdvisingRelationForm,
                  _l("Students and advisors"), _l("advising relation"), _advising,
                  load=("advisor", "student")),
        EntryKind("education", m.Education, forms.EducationForm, _l("Education"), _l("degree"),
                  lambda e: f"{e.degree}, {e.institution}"),
        EntryKind("experience", m.Experience, forms.ExperienceForm, _l("Experience"),
                  _l("position"), lambda e: f"{e.organisation} · {e.title}"),
        EntryKind("teaching", m.Teaching, forms.TeachingForm, _l("Teaching"), _l("course")),
        EntryKind("service", m.Service, forms.ServiceForm, _l("Service"), _l("service entry"),
                  _service),
        EntryKind("awards", m.Award, forms.AwardForm, _l("Awards"), _l("award")),
        EntryKind("funding", m.Funding, forms.FundingForm, _l("Funding"), _l("funding source")),
        EntryKind("custom_sections", m.CustomSection, forms.CustomSectionForm,
                  _l("Other sections"), _l("section")),
    )
}  # fmt: skip

assert set(KINDS) == set(m.ENTRY_MODELS), "every entry model needs an editing kind"  # noqa: S101
