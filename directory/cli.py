"""``flask directory ...``: migrations, import and export of profiles, demo content."""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from datetime import UTC, date, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import click
from flask import current_app, url_for
from flask.cli import AppGroup

from directory import migrate
from directory import models as m
from directory.db import get_session
from directory.formats.bibtex.results import BibtexTooLarge
from directory.formats.pdf import pdf_available
from directory.harvest_command import harvest
from directory.i18n import (
    command_request_context,
    current_locale,
    force_locale,
    format_number,
    ngettext,
)
from directory.i18n import gettext as _
from directory.models.accounts import password_problem
from directory.services import health, mail, profiles, reminders, search_index
from directory.services.accounts import account_exists, new_password, person_bound_to
from directory.services.expertise import model as expertise_model
from directory.services.expertise import vectors as expertise_vectors
from directory.services.identity import COMMAND_LINE, is_admin_key
from directory.services.importing import plan_source
from directory.services.interchange import (
    ImportRefused,
    export_person,
    read_document,
    validate_document,
)
from directory.services.operations import people
from directory.services.operations import publications as paper_operations
from directory.services.photos import placeholder_portrait
from directory.services.profile_import import import_profiles
from directory.services.pubimport.decisions import PlanRefused, resolve_decisions
from directory.services.pubimport.plan import PersonPlan
from directory.services.unit_of_work import command_unit_of_work
from directory.web.mails import reminder_mail
from directory.web.views.cv import NO_SIZE_LIMIT

#: Who the history names for changes made with these commands (an operator of the server).

directory_cli = AppGroup("directory", help="Manage the faculty directory.")
db_cli = AppGroup("db", help="The directory's own database migrations.")
directory_cli.add_command(harvest)
directory_cli.add_command(db_cli)


def _engine():
    return current_app.extensions["directory"].db.engine


def _move(step, engine, revision: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Run ``step`` (:func:`migrate.upgrade` or ``downgrade``) and return the revisions
    before and after; a revision it cannot go to is an error listing the migrations."""
    before = migrate.current_revisions(engine)
    try:
        step(engine, revision)
    except migrate.BadRevision as refused:
        raise click.ClickException(refused.message) from refused
    return before, migrate.current_revisions(engine)


def _say_moved(engine, upgraded: bool, before: tuple[str, ...], after: tuple[str, ...]) -> None:
    if before == after:
        at = migrate.describe(engine, after)
        click.echo(_("The directory's tables are already at %(revision)s.", revision=at))
        return
    moved = (
        _("Upgraded the directory's tables from %(before)s to %(after)s.")
        if upgraded
        else _("Downgraded the directory's tables from %(before)s to %(after)s.")
    )
    click.echo(
        moved
        % {"before": migrate.describe(engine, before), "after": migrate.describe(engine, after)}
    )


@db_cli.command("upgrade")
@click.argument("revision", default="heads")
def db_upgrade(revision: str) -> None:
    """Upgrade the directory's tables to REVISION (default: the newest), and say what it did.
    REVISION is a revision id or a migration's number (see `history`)."""
    engine = _engine()
    before, after = _move(migrate.upgrade, engine, revision)
    _say_moved(engine, True, before, after)
    # The index follows: built if there is none, else the kinds of documents the migrations
    # (or the old code's writes) left out of step rewritten, so `check` is clean right away.
    with command_unit_of_work(get_session(), COMMAND_LINE) as uow:
        built = search_index.rebuild_if_empty(uow.session)
        moved_to_head = after != before and migrate.at_head(engine)
        caught_up = search_index.catch_up(uow.session) if moved_to_head and not built else []
        embedded = expertise_vectors.catch_up(uow.session) if moved_to_head or built else 0
    if embedded:
        click.echo(_("Embedded %(count)s paper(s) and profile(s).", count=embedded))
    if built:
        click.echo(_("Built the search index."))
    elif caught_up:
        click.echo(
            _("Brought the search index up to date (%(kinds)s).", kinds=", ".join(caught_up))
        )


@db_cli.command("downgrade", context_settings={"ignore_unknown_options": True})
@click.argument("revision", default="-1")
def db_downgrade(revision: str) -> None:
    """Downgrade the directory's tables to REVISION ("base" removes them all; default: one
    step), and say what it did. REVISION is a revision id or a migration's number (see
    `history`): `downgrade 0006` leaves the tables as migration 0006 made them."""
    engine = _engine()
    before, after = _move(migrate.downgrade, engine, revision)
    _say_moved(engine, False, before, after)


@db_cli.command("revision")
@click.option("-m", "--message", required=True)
@click.option("--autogenerate/--empty", default=True)
def db_revision(message: str, autogenerate: bool) -> None:
    """Write a new migration (developers of the plugin only)."""
    migrate.revision(_engine(), message, autogenerate)


@db_cli.command("history")
def db_history() -> None:
    """List the migrations, oldest first: number, revision id, what it does, and the one the
    database is at."""
    for line in migrate.history(_engine()):
        click.echo(line)


@db_cli.command("current")
def db_current() -> None:
    """Show the migration the directory's tables are at (number and revision id)."""
    engine = _engine()
    click.echo(migrate.describe(engine, migrate.current_revisions(engine)))


def _import(documents: list[tuple[str, object]], *, list_named: bool = False) -> None:
    try:
        with command_unit_of_work(get_session(), COMMAND_LINE) as uow:
            result = import_profiles(uow, documents, list_named=list_named)
    except ImportRefused as refused:
        click.echo(_nothing_imported(len(refused.problems)), err=True)
        for problem in refused.problems:
            click.echo(f"  {problem}", err=True)
        sys.exit(1)
    for note in result.notes:
        click.echo(_("note: %(note)s", note=note))
    click.echo(
        _(
            "Imported %(people)s profile(s): %(created)s new, %(updated)s updated; "
            "%(papers)s new publication(s), %(matched)s matched existing ones.",
            people=len(result.people),
            created=result.created,
            updated=result.updated,
            papers=result.publications_created,
            matched=result.publications_matched,
        )
    )


def _person_or_fail(session: Any, slug: str) -> m.Person:
    """The person at ``slug``, or the command stops saying there is none."""
    person = profiles.person_by_slug(session, slug)
    if person is None:
        raise click.ClickException(_("No person with slug %(slug)r.", slug=slug))
    return person


def _nothing_imported(problems: int) -> str:
    return ngettext(
        "Nothing was imported: %(num)s problem.",
        "Nothing was imported: %(num)s problems.",
        problems,
    )


@directory_cli.command("import-profile")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
def import_profile(files: tuple[str, ...]) -> None:
    """Import profile documents (all or nothing; every problem is listed)."""
    limit = current_app.config["DIRECTORY_IMPORT_MAX_BYTES"]
    documents, problems = [], []
    for name in files:
        doc, found = read_document(Path(name).read_bytes(), name, limit)
        problems.extend(found)
        if not found:
            documents.append((name, doc))
    if problems:
        # Report the readable files' problems too, so one run lists everything.
        for name, doc in documents:
            problems.extend(validate_document(doc, name))
        click.echo(_nothing_imported(len(problems)), err=True)
        for problem in problems:
            click.echo(f"  {problem}", err=True)
        sys.exit(1)
    _import(documents)


@directory_cli.command("export-profile")
@click.argument("slug")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="File (default: stdout).")
def export_profile(slug: str, output: str | None) -> None:
    """Export one profile as an interchange document."""
    session = get_session()
    person = _person_or_fail(session, slug)
    text = json.dumps(export_person(session, person), ensure_ascii=False, indent=2)
    if output:
        Path(output).write_text(text + "\n", encoding="utf-8")
    else:
        click.echo(text)


@directory_cli.command("export")
@click.option("--all", "export_all", is_flag=True, required=True, help="Export every profile.")
@click.argument("directory", type=click.Path(file_okay=False))
def export_all_profiles(export_all: bool, directory: str) -> None:
    """Export every profile into DIRECTORY, one <slug>.json each (the backup)."""
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    session = get_session()
    people = profiles.people_by_slug(session)
    for person in people:
        text = json.dumps(export_person(session, person), ensure_ascii=False, indent=2)
        (target / f"{person.slug}.json").write_text(text + "\n", encoding="utf-8")
    click.echo(_("Exported %(count)s profile(s) to %(target)s.", count=len(people), target=target))


@directory_cli.command("reindex")
def reindex() -> None:
    """Rebuild the search index and the expertise vectors from the directory's content."""
    with command_unit_of_work(get_session(), COMMAND_LINE) as uow:
        count = search_index.rebuild(uow.session)
        vectors = expertise_vectors.rebuild(uow.session)
    click.echo(_("Indexed %(count)s document(s).", count=count))
    if expertise_model.available():
        click.echo(_("Embedded %(count)s paper(s) and profile(s).", count=vectors))
    else:
        click.echo(_("Keyword mode: no vectors (the extra `expertise` is not installed)."))


def demo_documents() -> list[tuple[str, object]]:
    """The demo department's documents, shipped in the package."""
    folder = resources.files("directory").joinpath("demo")
    return [
        (entry.name, json.loads(entry.read_text("utf-8")))
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".json")
    ]


@directory_cli.command("load-demo")
@click.option("--if-empty", is_flag=True, help="Only when the directory has nobody yet.")
def load_demo(if_empty: bool) -> None:
    """Load the demo department (idempotent: loading again changes nothing)."""
    if if_empty and profiles.has_people(get_session()):
        click.echo(_("The directory already has people; demo not loaded."))
        return
    documents = demo_documents()
    _import(documents, list_named=True)
    _demo_portraits([doc["person"]["slug"] for _, doc in documents])


#: Who in the demo gets a placeholder portrait: the people a department shows first; the
#: students keep the initials a profile without a photo shows, so the demo has both.
DEMO_PORTRAIT_ROLES = ("faculty", "research_staff")


def _demo_portraits(slugs: list[str]) -> None:
    """Clearly synthetic placeholder portraits (:func:`placeholder_portrait`) for the demo's
    faculty and research staff who have no photo yet: the demo shows the pages as they look
    with photos, and their focal point at work, without a picture of any real person."""
    session = get_session()
    with command_unit_of_work(session, COMMAND_LINE) as uow:
        for person in profiles.people_with_roles(session, slugs, DEMO_PORTRAIT_ROLES):
            if person.photo is None:
                people.set_photo(uow, person, placeholder_portrait(person.full_name))


@directory_cli.command("bind-user")
@click.argument("slug")
@click.argument("key", required=False)
@click.option("--unbind", is_flag=True, help="Remove the person's identity key.")
def bind_user(slug: str, key: str | None, unbind: bool) -> None:
    """Bind the host's identity KEY (username, eppn or email) to the person SLUG, so that who
    signs in with KEY is that person in the directory."""
    if bool(key) == unbind:
        raise click.UsageError(_("Give a KEY, or --unbind."))
    session = get_session()
    person = _person_or_fail(session, slug)
    key = key.strip() if key else None
    holder = person_bound_to(session, key) if key else None
    if holder is not None and holder is not person:
        raise click.ClickException(
            _("The key %(key)r is already bound to %(name)s.", key=key, name=holder.full_name)
        )
    with command_unit_of_work(session, COMMAND_LINE) as uow:
        people.bind_identity(uow, person, key)
    if key:
        click.echo(
            _("%(name)s is now whoever signs in as %(key)r.", name=person.full_name, key=key)
        )
    else:
        click.echo(_("%(name)s has no identity key now.", name=person.full_name))


# ----------------------------------------------------------------------------- reminders


@directory_cli.command("remind-stale")
@click.option(
    "--days",
    type=click.IntRange(min=1),
    default=None,
    help="Remind nobody reminded within this many days "
    "(default: DIRECTORY_REMINDER_INTERVAL_DAYS).",
)
@click.option("--dry-run", is_flag=True, help="Say whom it would remind; send and record nothing.")
@click.option(
    "--url",
    "base_url",
    default=None,
    help="The site's address for the e-mails' links, e.g. https://www.cs.example.edu "
    "(default: from SERVER_NAME).",
)
def remind_stale(days: int | None, dry_run: bool, base_url: str | None) -> None:
    """E-mail a reminder to everyone whose profile is stale (see the admin's stale report),
    with a one-click "still current" link. Safe to run daily from cron: a person reminded
    within --days days is not reminded again, and a failed message is tried again next run."""
    config = current_app.config
    days = days or config["DIRECTORY_REMINDER_INTERVAL_DAYS"]
    session = get_session()
    stale = reminders.stale_profiles(session, config["DIRECTORY_STALE_AFTER_MONTHS"], date.today())
    due = reminders.due_for_reminder(stale, days, datetime.now(UTC))
    for c in stale:
        if not c.person.email:
            click.echo(
                _(
                    "skipped %(name)s (%(slug)s): no e-mail address",
                    name=c.person.full_name,
                    slug=c.person.slug,
                )
            )
    if not due:
        click.echo(
            _(
                "Nobody to remind: %(count)s stale profile(s), none due (reminded within "
                "%(days)s days, or no e-mail address).",
                count=len(stale),
                days=days,
            )
        )
        return
    if dry_run:
        for c in due:
            click.echo(
                _(
                    "would remind %(name)s <%(email)s>",
                    name=c.person.full_name,
                    email=c.person.email,
                )
            )
        click.echo(
            _("Dry run: %(count)s reminder(s) would be sent; nothing was sent.", count=len(due))
        )
        return
    _require_mail_and_address(config, base_url)
    context = command_request_context(current_app, base_url=base_url) if base_url else nullcontext()
    # The e-mails in the command's language (LANGUAGE, LC_ALL, LANG), with or without --url.
    language = current_locale()
    # The messages go out once the reminders their links name are committed.
    with context, force_locale(language), command_unit_of_work(session, COMMAND_LINE) as uow:
        run = reminders.send_reminders(uow, config, [c.person for c in due], reminder_mail)
    if run.failure is not None:
        raise click.ClickException(_("%(problem)s Nothing was recorded.", problem=run.failure))
    _echo_reminders_sent(run.results)


def _require_mail_and_address(config: Any, base_url: str | None) -> None:
    """Stop unless mail can be sent and the e-mails' links can name the site."""
    if not mail.is_configured(config):
        raise click.ClickException(
            _(
                "%(problem)s: set DIRECTORY_MAIL_SERVER and DIRECTORY_MAIL_SENDER.",
                problem=mail.NOT_CONFIGURED.split(",")[0],
            )
        )
    if base_url is None and not config.get("SERVER_NAME"):
        raise click.ClickException(
            _(
                "The e-mails' links need the site's address: set SERVER_NAME (and "
                "PREFERRED_URL_SCHEME), or pass --url https://your.site."
            )
        )


def _echo_reminders_sent(sent: list[Any]) -> None:
    """One line per reminder (sent, or why not), the totals; exit 1 when one was not sent."""
    for result in sent:
        person = result.person
        if result.problem is None:
            click.echo(
                _("reminded %(name)s <%(email)s>", name=person.full_name, email=person.email)
            )
        else:
            message = _(
                "not sent to %(name)s <%(email)s>: %(problem)s",
                name=person.full_name,
                email=person.email,
                problem=result.problem,
            )
            click.echo(message, err=True)
    ok = sum(1 for r in sent if r.problem is None)
    click.echo(_("Sent %(ok)s reminder(s); %(failed)s not sent.", ok=ok, failed=len(sent) - ok))
    if ok < len(sent):
        sys.exit(1)


# ----------------------------------------------------------------------------- built-in login
#: The demo people who get accounts: the three transcribed home pages and one of the students.
DEMO_ACCOUNT_SLUGS = ("xingda-wei", "danyang-zhuo", "jiangfei-duan", "alexander-du")
DEMO_ADMIN = "admin"


def _require_builtin_login() -> None:
    if not current_app.config["DIRECTORY_BUILTIN_LOGIN"]:
        raise click.ClickException(
            "The built-in login is off (DIRECTORY_BUILTIN_LOGIN); accounts would not be used. "
            "A host site signs people in itself (see docs/embedding.md)."
        )


def _prompt_password() -> str:
    while True:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
        problem = password_problem(password)
        if not problem:
            return password
        click.echo(problem, err=True)


@directory_cli.command("create-account")
@click.argument("username")
@click.option("--person", "slug", help="Bind this person (by slug) to the account.")
@click.option("--reset", is_flag=True, help="Give an existing account a new password; unlock it.")
def create_account(username: str, slug: str | None, reset: bool) -> None:
    """Create a built-in login account USERNAME (standalone site only); the password is asked
    for (twice, not echoed)."""
    _require_builtin_login()
    session = get_session()
    person = None
    if slug:
        person = _person_or_fail(session, slug)
    if account_exists(session, username) and not reset:
        raise click.ClickException(
            f"The account {username!r} exists; add --reset to give it a new password."
        )
    password = _prompt_password()
    try:
        with command_unit_of_work(session, COMMAND_LINE) as uow:
            account, created = people.save_login(uow, username, password, person)
    except ValueError as problem:
        raise click.ClickException(str(problem)) from None
    what = "Created" if created else "Reset"
    bound = f", bound to {person.full_name}" if person else ""
    admin = " (a department admin)" if is_admin_key(account.username) else ""
    click.echo(f"{what} the account {account.username!r}{bound}{admin}.")


@directory_cli.command("create-demo-accounts")
def create_demo_accounts() -> None:
    """Give the demo department's people and an admin built-in logins with fresh passwords,
    and print them (running it again prints new ones)."""
    _require_builtin_login()
    rows = []
    with command_unit_of_work(get_session(), COMMAND_LINE) as uow:
        for slug in DEMO_ACCOUNT_SLUGS:
            person = profiles.person_by_slug(uow.session, slug)
            if person is None:
                click.echo(
                    _(
                        "note: %(slug)s is not in the directory (load-demo first); skipped.",
                        slug=slug,
                    )
                )
                continue
            password = new_password()
            account, _created = people.save_login(uow, person.user_key or slug, password, person)
            rows.append((account.username, password, person.full_name))
        password = new_password()
        people.save_login(uow, DEMO_ADMIN, password, None)
    role = (
        "department admin"
        if is_admin_key(DEMO_ADMIN)
        else "not an admin until DIRECTORY_ADMINS names it"
    )
    rows.append((DEMO_ADMIN, password, role))
    width = max(len(row[0]) for row in rows)
    click.echo(_("Demo sign-ins (passwords are new on every run):"))
    for username, password, who in rows:
        click.echo(f"  {username.ljust(width)}  {password}  {who}")


# --------------------------------------------------------------------------------------------
# Publications: BibTeX and ORCID import with the same preview as the web page
# --------------------------------------------------------------------------------------------


def _import_publications(
    slug: str, kind: str, raw: bytes, yes: bool, duplicates: str | None, skip_invalid: bool,
    base_url: str | None = None, replace: tuple[str, ...] = (),
) -> None:  # fmt: skip
    """Preview an import as the web page does, then write it when nothing stops it and the
    user agrees (``yes``: without asking)."""
    session = get_session()
    person = _person_or_fail(session, slug)
    limit = current_app.config["DIRECTORY_IMPORT_MAX_BYTES"]
    try:
        plan = plan_source(session, person, kind, raw, limit, base_url)
    except BibtexTooLarge as exc:
        raise click.ClickException(_("%(problem)s Nothing was imported.", problem=exc)) from exc
    _echo_import_preview(person, plan, replace)
    _stop_unless_decided(plan, duplicates, skip_invalid)
    decisions = resolve_decisions(plan, {}, duplicates)
    if not plan.writes(replace):
        click.echo(_("Everything is already on the profile; nothing to import."))
        return
    if not yes and not click.confirm(_("Write all of it?"), default=False):
        click.echo(_("Nothing was imported."))
        return
    work = sum(
        1
        for e in plan.entries
        if e.status in ("new", "department", "duplicate") or (e.status == "on_profile" and e.fill)
    )
    try:
        with (
            command_unit_of_work(session, COMMAND_LINE) as uow,
            click.progressbar(length=work, label=_("Importing"), file=sys.stderr) as bar,
        ):
            _outcome, summary = paper_operations.import_planned(
                uow, person, plan, kind=kind, source=raw.decode("utf-8", errors="replace"),
                filename=None, decisions=decisions, skip_invalid=skip_invalid,
                base_url=base_url, progress=bar.update, replace=replace,
            )  # fmt: skip
    except PlanRefused as refused:
        raise click.ClickException(
            _("Nothing was imported: %(reasons)s", reasons=" ".join(refused.messages))
        ) from None
    click.echo(_("Imported for %(name)s: %(summary)s.", name=person.full_name, summary=summary))


def _echo_import_preview(person: m.Person, plan: Any, replace: tuple[str, ...]) -> None:
    """The preview's counts, then each entry that is not simply imported and why."""
    counts = plan.counts
    click.echo(
        f"Preview for {person.full_name}: {counts['new']} new, "
        f"{counts['department']} matching department papers (linked), "
        f"{counts['on_profile']} already on the profile, {counts['duplicate']} possible "
        f"duplicates, {counts['repeat']} repeated, {counts['skipped']} not publications, "
        f"{counts['error']} errors"
        + (f"; {len(plan.new_records)} new profile entries" if plan.records else "")
        + "."
    )
    for entry in plan.entries:
        where = f"line {entry.line}" if entry.line else "record"
        key = f" {entry.key}" if entry.key else ""
        if entry.status in ("error", "duplicate", "skipped", "repeat"):
            line = f"  {entry.status}: {where}{key}: {entry.title or ''} {entry.reason}"
            click.echo(" ".join(line.split()) if not entry.title else line.rstrip())
            for candidate in entry.candidates:
                click.echo(f"      like “{candidate.title}” ({candidate.reason})")
        for warning in entry.warnings:  # what of the entry is not taken as it was written
            click.echo(f"  warning: {where}{key}: {warning}")
    _echo_person_plan(plan.person, replace)


def _stop_unless_decided(plan: Any, duplicates: str | None, skip_invalid: bool) -> None:
    """Exit (status 1, nothing imported) when the plan has errors and --skip-invalid was not
    given, or possible duplicates and no --duplicates answer."""
    if plan.blocked and not skip_invalid:
        click.echo(
            _(
                "Nothing was imported: fix the errors above and run again, or run again with "
                "--skip-invalid to import the rest without them."
            ),
            err=True,
        )
        sys.exit(1)
    pending = [e for e in plan.entries if e.needs_decision]
    if pending and duplicates is None:
        click.echo(
            _(
                "Nothing was imported: %(count)s possible duplicate(s) need a decision; "
                "run again with --duplicates=link (same paper as the closest match), "
                "--duplicates=new or --duplicates=skip.",
                count=len(pending),
            ),
            err=True,
        )
        sys.exit(1)


def _echo_person_plan(person: PersonPlan, replace: tuple[str, ...]) -> None:
    """The preview's lines for what an ORCID record's person data does to the profile."""
    if person.bio_status == "new":
        click.echo(_("  profile: biography: added (the profile has none)."))
    elif person.bio_status == "same":
        click.echo(_("  profile: biography: already on the profile."))
    elif person.bio_status == "replace":
        if "bio" in replace:
            click.echo(_("  profile: biography: the profile's is replaced by the record's."))
        else:
            click.echo(_("  not taken: biography: the profile has its own; --replace-bio "
                         "replaces it with the record's."))  # fmt: skip
    if person.interests_status:
        keywords = ", ".join(person.keywords_added)
        if person.interests_status == "new" or "interests" in replace:
            click.echo(_("  profile: research interests: %(after)s", after=person.interests_after))
        else:
            click.echo(_("  not taken: keywords %(keywords)s: the profile has research interests "
                         "of its own; --replace-interests adds them to those.",
                         keywords=keywords))  # fmt: skip
    for _id, name in person.areas:
        click.echo(_("  profile: research area added: %(name)s", name=name))
    if person.keywords_on_profile:
        click.echo(_("  profile: keywords already on the profile: %(keywords)s",
                     keywords=", ".join(person.keywords_on_profile)))  # fmt: skip
    for link in person.links:
        shown = f"{link.label}: {link.url}" if link.label else str(link.url)
        if link.status == "new":
            click.echo(_("  profile: link added: %(link)s", link=shown))
        elif link.status == "on_profile":
            click.echo(_("  profile: link already on the profile: %(link)s", link=shown))
    for message in person.not_taken:
        click.echo(_("  not taken: %(what)s", what=message))


_DUPLICATE_CHOICE = click.Choice(["link", "new", "skip"])
_SKIP_INVALID_HELP = "Import the rest when some entries cannot be imported (they are listed)."


@directory_cli.command("import-bibtex")
@click.option("--person", "slug", required=True, help="Slug of the profile to import into.")
@click.option("--yes", is_flag=True, help="Write without asking after the preview.")
@click.option("--duplicates", type=_DUPLICATE_CHOICE, help="What to do with possible duplicates.")
@click.option("--skip-invalid", is_flag=True, help=_SKIP_INVALID_HELP)
@click.option(
    "--base-url",
    help="The web site the file belongs to: relative links (al-folio's pdf = {p24.pdf}) are "
    "resolved against it instead of being left out.",
)
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def import_bibtex(
    slug: str, yes: bool, duplicates: str | None, skip_invalid: bool, base_url: str | None,
    file: str,
) -> None:  # fmt: skip
    """Import a BibTeX FILE into a profile: preview, then everything chosen at once."""
    _import_publications(
        slug, "bibtex", Path(file).read_bytes(), yes, duplicates, skip_invalid, base_url
    )


@directory_cli.command("import-orcid")
@click.option("--person", "slug", required=True, help="Slug of the profile to import into.")
@click.option("--yes", is_flag=True, help="Write without asking after the preview.")
@click.option("--duplicates", type=_DUPLICATE_CHOICE, help="What to do with possible duplicates.")
@click.option("--skip-invalid", is_flag=True, help=_SKIP_INVALID_HELP)
@click.option("--replace-bio", is_flag=True,
              help="Replace the profile's biography with the record's (else only an empty one "
              "is filled).")  # fmt: skip
@click.option("--replace-interests", is_flag=True,
              help="Add the record's keywords to research interests the profile has already "
              "(else only empty ones are filled).")  # fmt: skip
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def import_orcid(
    slug: str, yes: bool, duplicates: str | None, skip_invalid: bool, replace_bio: bool,
    replace_interests: bool, file: str,
) -> None:  # fmt: skip
    """Import an ORCID public record (JSON FILE) into a profile: preview, then write. The
    record's biography, keywords and researcher URLs go to the profile's biography, research
    interests or areas, and links."""
    chosen = (("bio", replace_bio), ("interests", replace_interests))
    replace = tuple(name for name, wanted in chosen if wanted)
    _import_publications(slug, "orcid", Path(file).read_bytes(), yes, duplicates, skip_invalid,
                         replace=replace)  # fmt: skip


# --------------------------------------------------------------------------------------------
# Self-check after installing or upgrading
# --------------------------------------------------------------------------------------------


def _session_value(text: str) -> tuple[str, object]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise click.BadParameter(f"{text!r} is not NAME=VALUE")
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


@directory_cli.command("check")
@click.option(
    "--session",
    "entries",
    multiple=True,
    metavar="NAME=VALUE",
    help="What the host's session holds for a signed-in user, to try the identity source "
    "with (Flask-Login: _user_id=1; the Flask tutorial: user_id=1). Repeatable.",
)
def check(entries: tuple[str, ...]) -> None:
    """Check the directory's set-up: database, migrations, settings, identity, routes,
    security headers, search index. Each line is ok or the fix; exit status 1 on a problem."""
    signed_in = dict(_session_value(entry) for entry in entries)
    findings = health.run_checks(current_app._get_current_object(), signed_in or None)
    for finding in findings:
        click.echo(finding.line())
    problems = sum(not finding.ok for finding in findings)
    if problems:
        click.echo(ngettext("%(num)s problem.", "%(num)s problems.", problems), err=True)
        sys.exit(1)
    click.echo(_("All checks passed."))


@directory_cli.command("cv")
@click.argument("slug")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, writable=True),
              help="The PDF file to write.")  # fmt: skip
@click.option("--section", "sections", multiple=True,
              type=click.Choice([name for name, _ in m.CV_SECTIONS]),
              help="A section to include (repeatable, in the order given); the owner's choice "
                   "when none is given.")  # fmt: skip
def cv_pdf_command(slug: str, output: str, sections: tuple[str, ...]) -> None:
    """Write the CV of the profile SLUG as a PDF: what anyone may see on the public profile,
    made by the same page as <prefix>/people/SLUG/cv.pdf."""
    if not pdf_available():
        raise click.ClickException(_("PDFs need WeasyPrint: pip install 'faculty-directory[pdf]'"))
    with command_request_context(current_app):
        # The CV in the command's language (LANGUAGE, LC_ALL, LANG), as its messages are.
        url = url_for("directory.cv_pdf", slug=slug, section=list(sections), lang=current_locale())
    response = current_app.test_client().get(url, environ_base={NO_SIZE_LIMIT: True})
    if response.status_code == 404:
        raise click.ClickException(_("No public profile %(slug)r.", slug=slug))
    if response.status_code != 200 or response.mimetype != "application/pdf":
        raise click.ClickException(
            _("The CV could not be made (%(status)s).", status=response.status)
        )
    Path(output).write_bytes(response.data)
    size = format_number(len(response.data) // 1024)
    click.echo(_("Wrote %(file)s (%(size)s KiB).", file=output, size=size))
