"""The registry that drives the generic entry-editing views: for each kind of profile entry,
its model, its form and how the editing pages name it. One set of views serves every kind."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from directory import models as m
from directory.services.snapshots import describe
from directory.web import forms


@dataclass(frozen=True)
class EntryKind:
    name: str
    model: type[m.Base]
    form: type[forms.EntryForm]
    #: The section heading on the editing page ("News").
    title: str
    #: One entry ("news item").
    singular: str

    def summary(self, entry: Any) -> str:
        """One line naming an entry in lists and messages."""
        if self.name == "advising":
            other = entry.student_display if entry.advisor_id == entry.owner_id else None
            if other is not None:
                return f"Student: {other}"
            return f"Advisor: {entry.advisor_display}"
        if self.name == "recruiting":
            level = m.label(m.RECRUITING_LEVELS, entry.level)
            term = f" · {entry.term}" if entry.term else ""
            return f"{entry.title or 'Recruiting ' + level}{term}"
        if self.name == "service":
            return f"{m.label(m.SERVICE_KINDS, entry.kind)}: {entry.venue}" + (
                f" {entry.year}" if entry.year else ""
            )
        if self.name == "news":
            return f"[{entry.year}] {describe('news', {'body': entry.body})}"
        if self.name == "projects" and entry.parent_id:
            return f"↳ {entry.title}"
        if self.name == "education":
            return f"{entry.degree}, {entry.institution}"
        if self.name == "experience":
            return f"{entry.organisation} · {entry.title}"
        return describe(self.name, {"title": getattr(entry, "title", None),
                                    "funder": getattr(entry, "funder", None)})  # fmt: skip


KINDS: dict[str, EntryKind] = {
    k.name: k
    for k in (
        EntryKind("news", m.NewsItem, forms.NewsItemForm, "News", "news item"),
        EntryKind("recruiting", m.RecruitingNotice, forms.RecruitingNoticeForm,
                  "Recruiting notices", "recruiting notice"),
        EntryKind("projects", m.ResearchProject, forms.ResearchProjectForm, "Research projects",
                  "project"),
        EntryKind("advising", m.AdvisingRelation, forms.AdvisingRelationForm,
                  "Students and advisors", "advising relation"),
        EntryKind("education", m.Education, forms.EducationForm, "Education", "degree"),
        EntryKind("experience", m.Experience, forms.ExperienceForm, "Experience", "position"),
        EntryKind("teaching", m.Teaching, forms.TeachingForm, "Teaching", "course"),
        EntryKind("service", m.Service, forms.ServiceForm, "Service", "service entry"),
        EntryKind("awards", m.Award, forms.AwardForm, "Awards", "award"),
        EntryKind("funding", m.Funding, forms.FundingForm, "Funding", "funding source"),
        EntryKind("custom_sections", m.CustomSection, forms.CustomSectionForm,
                  "Other sections", "section"),
    )
}  # fmt: skip

assert set(KINDS) == set(m.ENTRY_MODELS), "every entry model needs an editing kind"  # noqa: S101
