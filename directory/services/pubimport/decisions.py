"""The person's decisions on a plan's possible duplicates: the choices offered, a bulk choice
applied to the undecided ones, and whether the decisions given let the plan be written."""

from __future__ import annotations

from typing import Any

from directory.services.pubimport.plan import ImportPlan, PlannedEntry


class PlanRefused(Exception):
    """The plan cannot be written as it stands; ``messages`` say why."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__("; ".join(messages))
        self.messages = messages


def decision_choices(entry: PlannedEntry, plan: ImportPlan) -> list[tuple[str, str]]:
    """The choices offered for a possible duplicate, as (value, label)."""
    choices = []
    for c in entry.candidates:
        if c.publication_id < 0:
            line = plan.line_of(c.publication_id)
            where = f"the entry on line {line} of this file" if line else "an earlier entry"
        else:
            where = f"“{c.title}”" + (f" ({c.year})" if c.year else "")
        choices.append((f"link:{c.publication_id}", f"Same paper as {where}"))
        choices.append(
            (
                f"version:{c.publication_id}",
                f"A different version of {where} (preprint ↔ published)",
            )
        )
    choices.append(("new", "A different paper: import it as new"))
    choices.append(("skip", "Skip this entry"))
    return choices


def resolve_decisions(
    plan: ImportPlan, chosen: dict[int, str], bulk: str | None = None
) -> dict[int, str]:
    """The decision for every possible duplicate: its own choice, else the ``bulk`` choice
    (``"new"``, ``"skip"``, or ``"link"`` to the closest match); undecided ones are left out."""
    decisions = {}
    for entry in plan.entries:
        if not entry.needs_decision:
            continue
        decision = chosen.get(entry.index) or ""
        if not decision and bulk == "link" and entry.candidates:
            decision = f"link:{entry.candidates[0].publication_id}"
        elif not decision and bulk in ("new", "skip"):
            decision = bulk
        if decision:
            decisions[entry.index] = decision
    return decisions


def check_decisions(
    plan: ImportPlan, decisions: dict[int, str], *, skip_invalid: bool = False
) -> list[str]:
    """Problems with the decisions given for a plan (empty when it may be written).
    Entries that cannot be imported block it unless ``skip_invalid`` says to leave them out."""
    messages = []
    if plan.blocked and not skip_invalid:
        count = len(plan.errors)
        messages.append(
            f"{count} entr{'y' if count == 1 else 'ies'} cannot be imported; choose to import "
            "the rest without them, or fix the file and preview it again. Nothing was imported."
        )
    for entry in plan.entries:
        if not entry.needs_decision:
            continue
        decision = decisions.get(entry.index)
        allowed = {value for value, _ in decision_choices(entry, plan)}
        if decision not in allowed:
            where = f"line {entry.line}" if entry.line else f"“{entry.title}”"
            messages.append(f"Decide what to do with the possible duplicate on {where}.")
    return messages


def parsed_decisions(form: Any, plan: ImportPlan) -> dict[int, str]:
    """The decisions posted for ``plan`` (form fields ``decision-<index>``)."""
    return {
        entry.index: form.get(f"decision-{entry.index}", "")
        for entry in plan.entries
        if entry.needs_decision
    }
