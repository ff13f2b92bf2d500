"""The registry that drives the generic entry-editing views: for each kind of profile entry,
its model, its form and how the editing pages name it. One set of views serves every kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from directory import models as m
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
        return f"Student: {advising_side_name(current_viewer(), entry, 'student')}"
    return f"Advisor: {advising_side_name(current_viewer(), entry, 'advisor')}"


def _recruiting(entry: Any) -> str:
    level = m.label(m.RECRUITING_LEVELS, entry.level)
    if entry.term_unreadable:
        term = f" · “{entry.term}”: names no term, choose one"
    else:
        term = f" · {entry.term_label}"
    return f"{entry.title or 'Recruiting ' + level}{term}"


def _service(entry: Any) -> str:
    year = f" {entry.year}" if entry.year else ""
    return f"{m.label(m.SERVICE_KINDS, entry.kind)}: {entry.venue}{year}"


def _project(entry: Any) -> str:
    return f"↳ {entry.title}" if entry.parent_id else _default_summary("projects")(entry)


@dataclass(frozen=True)
class EntryKind:
    """One kind of profile entry: its model, its form, how the editing pages name it and how
    one entry is summarised in lists and messages."""

    name: str
    model: type[m.Base]
    form: type[forms.EntryForm]
    #: The section heading on the editing page ("News").
    title: str
    #: One entry ("news item").
    singular: str
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
        EntryKind("news", m.NewsItem, forms.NewsItemForm, "News", "news item",
                  lambda e: f"[{e.year}] {describe('news', {'body': e.body})}"),
        EntryKind("recruiting", m.RecruitingNotice, forms.RecruitingNoticeForm,
                  "Recruiting notices", "recruiting notice", _recruiting),
        EntryKind("projects", m.ResearchProject, forms.ResearchProjectForm, "Research projects",
                  "project", _project),
        EntryKind("advising", m.AdvisingRelation, forms.AdvisingRelationForm,
                  "Students and advisors", "advising relation", _advising,
                  load=("advisor", "student")),
        EntryKind("education", m.Education, forms.EducationForm, "Education", "degree",
                  lambda e: f"{e.degree}, {e.institution}"),
        EntryKind("experience", m.Experience, forms.ExperienceForm, "Experience", "position",
                  lambda e: f"{e.organisation} · {e.title}"),
        EntryKind("teaching", m.Teaching, forms.TeachingForm, "Teaching", "course"),
        EntryKind("service", m.Service, forms.ServiceForm, "Service", "service entry", _service),
        EntryKind("awards", m.Award, forms.AwardForm, "Awards", "award"),
        EntryKind("funding", m.Funding, forms.FundingForm, "Funding", "funding source"),
        EntryKind("custom_sections", m.CustomSection, forms.CustomSectionForm,
                  "Other sections", "section"),
    )
}  # fmt: skip

assert set(KINDS) == set(m.ENTRY_MODELS), "every entry model needs an editing kind"  # noqa: S101
