"""Several referees on one database, and the match logs in it.

- ``referee_id`` on sessions and matches: a referee's start-up recovery closes and aborts only
  what referees that are gone left open;
- ``match_logs``: the logs of a PostgreSQL referee (an SQLite one keeps files);
- the session number sequence (PostgreSQL) and what ``matches list`` needs at 100k matches:
  ``match_bots.started_at`` with an index (bot, start), so a bot's newest matches are a range;
- ``sessions_bot`` for a file of version 1 made before that index existed.

(On SQLite ``brandeln.datastore.migrations.upgrade`` sets ``user_version`` 2, so the code of schema
version 1 refuses a migrated file instead of running on a schema it does not know.)

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sessions", sa.Column("referee_id", sa.Text))
    op.add_column("matches", sa.Column("referee_id", sa.Text))
    op.create_index("sessions_bot", "sessions", ["bot_id"], if_not_exists=True)
    op.create_index("matches_status", "matches", ["status"])
    op.add_column(
        "match_bots", sa.Column("started_at", sa.BigInteger, nullable=False, server_default="0")
    )
    op.execute(
        "UPDATE match_bots SET started_at = (SELECT started_at FROM matches "
        "WHERE matches.match_id = match_bots.match_id)"
    )
    op.create_index("match_bots_newest", "match_bots", ["bot_id", "started_at", "match_id"])
    op.create_table(
        "match_logs",
        sa.Column("match_id", sa.Text, nullable=False),
        sa.Column("chunk", sa.Integer, nullable=False),
        sa.Column("body", sa.LargeBinary, nullable=False),
        sa.PrimaryKeyConstraint("match_id", "chunk"),
    )
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute(sa.schema.CreateSequence(sa.Sequence("session_numbers")))
