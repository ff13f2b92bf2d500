"""Alembic environment of the directory plugin: an independent lineage (own version table,
only directory_* tables, batch mode for SQLite). Run through ``flask directory db ...``."""

from alembic import context

from directory.migrate import VERSION_TABLE, include_object
from directory.models import Base

config = context.config
engine = config.attributes["engine"]

with engine.connect() as connection:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        version_table=VERSION_TABLE,
        include_object=include_object,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()
    connection.commit()
