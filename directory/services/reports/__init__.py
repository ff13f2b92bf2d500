"""Activity reports: a person's year (papers, students, teaching, service, funding, awards,
news, recruiting), the department's (totals, per-person rows, venues, alumni, funding, change
from the year before) and who works with whom (the co-authorship network).

One module per part: :mod:`periods` (what "2025" or "2025–26" means), :mod:`counting` (the
SQL clauses both reports count with, each on top of the read rules of
:mod:`directory.services.access`), :mod:`person`, :mod:`department`, :mod:`network` and
:mod:`quality` (what a report cannot count, with where to fix it)."""
