# ruff: noqa
"""Alembic to head (STAND-IN for pg-ladder's datastore commit: same API, replaced on cherry-pick)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from datastore.errors import SchemaTooNew

__all__ = ["upgrade"]


def upgrade(engine: sqlalchemy.Engine, *, side: str, script_location: Path) -> None:
    config = Config()
    config.set_main_option("script_location", str(script_location))
    script = ScriptDirectory.from_config(config)
    schema = side if engine.dialect.name == "postgresql" else None
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"version_table_schema": schema} if schema else {}
        )
        current = context.get_current_revision()
    known = {rev.revision for rev in script.walk_revisions()}
    if current is not None and current not in known:
        raise SchemaTooNew(
            f"DB schema is version {current}, this brandeln knows up to "
            f"{script.get_current_head()}: upgrade brandeln"
        )
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        config.attributes["schema"] = schema
        command.upgrade(config, "head")
