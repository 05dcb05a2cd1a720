"""The referee database of schema version 1 (SQLite ``PRAGMA user_version`` 1).

A file of today's code is stamped with this revision (brandeln.arena.store.database checks its
tables first).

Revision ID: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bots",
        sa.Column("bot_id", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False, unique=True),
        sa.Column("token_hash", sa.Text, nullable=False, unique=True),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("revoked", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_table(
        "settings",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("session_id", sa.Text, primary_key=True),
        sa.Column("bot_id", sa.Text, sa.ForeignKey("bots.bot_id"), nullable=False),
        sa.Column("bot_version", sa.Text, nullable=False),
        sa.Column("peer", sa.Text, nullable=False),
        sa.Column("opened_at", sa.BigInteger, nullable=False),
        sa.Column("closed_at", sa.BigInteger),
    )
    op.create_table(
        "matches",
        sa.Column("match_id", sa.Text, primary_key=True),
        *(
            sa.Column(name, sa.Text, nullable=False)
            for name in (
                "ruleset",
                "bot_ids",
                "bot_names",
                "balances",
                "ranks",
                "forfeited",
                "strikes",
                "status",
            )
        ),
        sa.Column("deals_played", sa.Integer, nullable=False),
        sa.Column("started_at", sa.BigInteger, nullable=False),
        sa.Column("ended_at", sa.BigInteger, nullable=False),
        sa.Column("log_path", sa.Text, nullable=False),
    )
    op.create_index("matches_started", "matches", ["started_at"])
    op.create_index("sessions_bot", "sessions", ["bot_id"])
    op.create_table(
        "match_bots",
        sa.Column("match_id", sa.Text, sa.ForeignKey("matches.match_id"), nullable=False),
        sa.Column("bot_id", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("match_id", "bot_id"),
    )
