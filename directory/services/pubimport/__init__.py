"""Importing publications into a profile: a plan first (nothing written), then all or nothing.

:func:`.planning.plan_import` reads parsed entries (BibTeX or ORCID) against the database and
says, for each, what confirming would do:

========== ==============================================================================
new        a paper the department does not have yet; it will be created
on_profile already on this profile (same DOI / arXiv id); nothing to add, or only the
           missing details listed
department the same paper is on a colleague's profile; it will be linked, not copied
duplicate  a close title, a year within one and a shared author surname: the person decides
           (link to it, import as new, import as a separate version, or skip)
repeat     the same paper as an earlier entry of the same file; skipped
skipped    not a publication (``@preamble``, ``@comment``, ``@set``, an identical copy...);
           reported, never written
error      cannot be imported (malformed entry, no title, a value too long); confirming
           needs the person to say "import the rest" (``skip_invalid``), or a fixed file
========== ==============================================================================

:func:`.writing.apply_plan` writes a plan in the caller's transaction (it only flushes). New
papers are written with bulk INSERTs (:mod:`.bulk`), so that a file of thousands of entries
imports in seconds.

The text being imported is kept server-side between preview and confirm in an
:class:`~directory.models.ImportDraft` (:mod:`.drafts`); the confirm step re-plans from it and
refuses if the database changed what the person was shown (:attr:`.plan.ImportPlan.fingerprint`).

The modules, in the order an import passes them:

* :mod:`.drafts` — the text between preview and confirm;
* :mod:`.plan` — the plan's types (plain data);
* :mod:`.planning` — building the plan from the entries and the database;
* :mod:`.decisions` — the person's choices on possible duplicates;
* :mod:`.writing` — writing the plan;
* :mod:`.bulk` — the SQL writer for new papers, below the ORM.
"""
