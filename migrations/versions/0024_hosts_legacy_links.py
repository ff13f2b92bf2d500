"""links that are no web address (release 0.1.0 kept an al-folio ``pdf = {mitosis.pdf}`` as it
was) taken out, each with a history note saying what to complete

Today's import, and the interchange schema an ``export --all`` is read back with, take only
``http(s)://`` and ``mailto:`` links (a relative one meant a file of the person's old site,
which the directory cannot serve). A department upgraded from 0.1.0 kept such values, so its
backup could not be restored: the import is all or nothing. Each one is removed here (a link
row deleted, an entry's link emptied) and recorded in the history of every profile it was on:
the value, and that its full address is to be added. Downgrading puts nothing back (the
values are in the history).

Revision ID: hosts_2
Revises: hosts_1
"""

import re
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "hosts_2"
down_revision = "hosts_1"
branch_labels = None
depends_on = None

#: What the interchange schema takes as a link (its "url" pattern).
WEB_ADDRESS = re.compile(r"^(https?://|mailto:)")
#: (table, link column, the owner column, the history's kind) of every stored link: the link
#: rows (deleted) and the entries' optional links (emptied).
LINK_ROWS = (
    ("directory_person_links", "url", "person_id", "person"),
)
ENTRY_LINKS = (
    ("directory_news", "url", "news"),
    ("directory_education", "thesis_url", "education"),
    ("directory_experience", "url", "experience"),
    ("directory_projects", "url", "projects"),
    ("directory_teaching", "url", "teaching"),
    ("directory_awards", "url", "awards"),
    ("directory_funding", "url", "funding"),
)

SUMMARY = (
    "Upgrade: the link {url!r} ({what}) was no web address (kept as written by an older "
    "release) and was removed; add its full address (https://…) to complete it"
)


def _legacy(value):
    return bool(value) and not WEB_ADDRESS.match(value)


def _note(conn, changes, person_id, kind, entity_id, what, url, field):
    conn.execute(
        changes.insert().values(
            created_at=datetime.now(UTC), actor_key=None, actor_person_id=None,
            person_id=person_id, entity_kind=kind, entity_id=entity_id, action="update",
            entity_version=None, before={field: url}, after={field: None},
            summary=SUMMARY.format(url=url[:120], what=what)[:300], source_id=None,
        )
    )  # fmt: skip


def upgrade() -> None:
    conn = op.get_bind()
    meta = sa.MetaData()
    changes = sa.Table("directory_changes", meta, autoload_with=conn)
    for name, column, owner, kind in LINK_ROWS:
        links = sa.Table(name, meta, autoload_with=conn)
        for row in conn.execute(sa.select(links.c.id, links.c[owner], links.c.kind, links.c[column])):
            if _legacy(row[3]):
                _note(conn, changes, row[1], kind, row[1], f"{row[2]} link", row[3], "links")
                conn.execute(links.delete().where(links.c.id == row[0]))
    for name, column, kind in ENTRY_LINKS:
        entries = sa.Table(name, meta, autoload_with=conn)
        for row in conn.execute(sa.select(entries.c.id, entries.c.owner_id, entries.c[column])):
            if _legacy(row[2]):
                _note(conn, changes, row[1], kind, row[0], f"{kind} link", row[2], column)
                conn.execute(entries.update().where(entries.c.id == row[0]).values({column: None}))
    links = sa.Table("directory_publication_links", meta, autoload_with=conn)
    owners = sa.Table("directory_profile_publications", meta, autoload_with=conn)
    rows = conn.execute(
        sa.select(links.c.id, links.c.publication_id, links.c.kind, links.c.url)
    ).all()
    for link_id, publication_id, link_kind, url in rows:
        if not _legacy(url):
            continue
        people = conn.scalars(
            sa.select(owners.c.person_id).where(owners.c.publication_id == publication_id)
        ).all()
        for person_id in people or [None]:
            what = f"{link_kind} link of a paper"
            _note(conn, changes, person_id, "publication", publication_id, what, url, "links")
        conn.execute(links.delete().where(links.c.id == link_id))


def downgrade() -> None:
    pass  # the removed values are in the history
