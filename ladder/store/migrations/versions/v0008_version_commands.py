"""Command versions (``brandeln bots version add ... --command``): a version of an always-on
ladder that the ladder launches itself, as a season launches its command bots, instead of one
that connects by itself.

- ``season_bots`` gains ``command_json``: the version's command and its tables as JSON
  (``{"command": [...], "tables": N}``, :mod:`brandeln.ladder.bots.version_commands`); NULL for a
  version that connects by itself and for a season file's bots (their commands stay in the file).
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    op.add_column("season_bots", sa.Column("command_json", sa.Text, nullable=True))
