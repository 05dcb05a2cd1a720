"""The schema of a ``user_version`` 2 file: seasons got their status, and the plaintext
tokens gave way to their hashes (the runner asks the referee for a fresh token every run)."""

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.add_column("seasons", sa.Column("status", sa.Text, nullable=False, server_default="running"))
    op.add_column("seasons", sa.Column("status_detail", sa.Text, nullable=False, server_default=""))
    # A stored season with every planned block is finished; any other is taken as running
    # (its last run cannot be told apart any more).
    op.execute(
        "UPDATE seasons SET status = 'finished' WHERE blocks_planned <="
        " (SELECT count(*) FROM blocks b WHERE b.season_id = seasons.season_id)"
    )
    op.add_column("season_bots", sa.Column("token_hash", sa.Text))
    connection = op.get_bind()
    rows = connection.execute(
        sa.text("SELECT season_id, bot, token FROM season_bots WHERE token IS NOT NULL")
    ).all()
    for season_id, bot, token in rows:
        connection.execute(
            sa.text("UPDATE season_bots SET token_hash = :hash WHERE season_id = :s AND bot = :b"),
            {"hash": hashlib.sha256(token.encode()).hexdigest(), "s": season_id, "b": bot},
        )
    # The ladder then VACUUMs an SQLite file, so no copy is left in its free pages.
    op.execute("ALTER TABLE season_bots DROP COLUMN token")
