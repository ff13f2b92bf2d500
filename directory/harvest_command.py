"""``flask directory harvest``: new papers from the configured sources into the people's claim
queues, then the weekly digests (directory.services.claims). For cron or a systemd timer."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import click
from flask import current_app
from flask.cli import with_appcontext

from directory.db import get_session
from directory.i18n import command_request_context, current_locale, force_locale
from directory.services import mail
from directory.services.claims.digest import send_digests
from directory.services.claims.harvest import run_harvest
from directory.services.identity import COMMAND_LINE
from directory.services.unit_of_work import command_unit_of_work
from directory.web.mails import digest_mail


@click.command("harvest")
@with_appcontext
@click.option("--person", "slugs", multiple=True, metavar="SLUG", help="Only this person.")
@click.option("--source", "sources", multiple=True, metavar="NAME", help="Only this source.")
@click.option("--dry-run", is_flag=True, help="Fetch and match, write nothing.")
@click.option("--url", "base_url", default=None, help="The site's address for the digest's link.")
def harvest(
    slugs: tuple[str, ...], sources: tuple[str, ...], dry_run: bool, base_url: str | None
) -> None:
    """Find new papers at the configured sources for everyone with an identifier (or the
    people named) and put them in their claim queues; then e-mail the weekly digests (when
    mail is set up). For cron: one run at a time."""

    def progress(line: Any, done: int, total: int, eta: float | None) -> None:
        errors = f", {len(line.errors)} error(s): {'; '.join(line.errors)}" if line.errors else ""
        left = f", about {eta:.0f} s left" if eta and total > 1 else ""
        what = (
            "skipped (no identifier there)"
            if line.skipped
            else (f"fetched {line.fetched}, new {line.new}, known {line.known}{errors}")
        )
        click.echo(f"[{done}/{total}{left}] {line.slug} {line.source}: {what}")

    report = run_harvest(get_session(), COMMAND_LINE, current_app.config, slugs=slugs,
                         sources=sources, dry_run=dry_run, progress=progress)  # fmt: skip
    if report.refused:
        click.echo(f"Harvest skipped: {report.refused}.")
        return
    new = sum(line.new for line in report.lines)
    note = " (dry run: nothing written)" if dry_run else ""
    click.echo(f"{report.people} people, {new} new candidate(s), "
               f"{report.accepted} accepted by policy{note}.")  # fmt: skip
    config = current_app.config
    if not dry_run and mail.is_configured(config) and (base_url or config.get("SERVER_NAME")):
        context = (
            command_request_context(current_app, base_url=base_url) if base_url else nullcontext()
        )
        with (
            context,
            force_locale(current_locale()),
            command_unit_of_work(get_session(), COMMAND_LINE) as uow,
        ):
            run = send_digests(uow, config, digest_mail)
        if run.failure:
            click.echo(f"Digest e-mails: not sent: {run.failure}")
            return
        failed = [f"{t.person.slug}: {t.problem}" for t in run.told if t.problem]
        click.echo(f"Digest e-mails: {len(run.told) - len(failed)} sent" +
                   (f"; not sent: {'; '.join(failed)}" if failed else "") + ".")  # fmt: skip
