"""Committed seeds (``brandeln.ladder.season.commitment``): a season's seed is published as a hash
before its first block and revealed once its last block is recorded; an always-on ladder commits a
seed per period of blocks the same way.

- ``seasons`` gains ``commitment`` (SHA-256 hex), ``commitment_schedule`` (the canonical JSON
  committed with the seed), ``secret_seed`` (64 hex digits; read out only once
  ``seed_revealed_at`` is set, when the season finished, or when ``seed_public``: a season file
  that gives its seed) and ``committed_at``. Seasons from before stay NULL until their next
  run commits their (public) seed.
- ``seed_periods``: each period of an always-on ladder (its first block, how many, its seed,
  its commitment). A ladder's blocks from before this revision have no period: their deals
  follow from the ladder's public seed, as they did.
- ``season_bots`` gains ``start_mu`` and ``start_sigma``: the rating a ladder version started
  from (a family's later version starts from the one before, widened), so its ratings can be
  recomputed from the blocks alone. Filled here for the versions that have played no rated
  block yet (their rating is still the start); the others' start was not kept.
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.add_column("seasons", sa.Column("commitment", sa.Text, nullable=True))
    op.add_column("seasons", sa.Column("commitment_schedule", sa.Text, nullable=True))
    op.add_column("seasons", sa.Column("secret_seed", sa.Text, nullable=True))
    op.add_column(
        "seasons", sa.Column("seed_public", sa.Integer, nullable=False, server_default="0")
    )
    op.add_column("seasons", sa.Column("committed_at", sa.BigInteger, nullable=True))
    op.add_column("seasons", sa.Column("seed_revealed_at", sa.BigInteger, nullable=True))
    op.create_table(
        "seed_periods",
        sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.season_id"), primary_key=True),
        sa.Column("period", sa.Integer, primary_key=True),
        sa.Column("first_block", sa.Integer, nullable=False),
        sa.Column("blocks", sa.Integer, nullable=False),
        sa.Column("secret_seed", sa.Text, nullable=False),
        sa.Column("commitment", sa.Text, nullable=False),
        sa.Column("commitment_schedule", sa.Text, nullable=False),
        sa.Column("committed_at", sa.BigInteger, nullable=False),
    )
    op.add_column("season_bots", sa.Column("start_mu", sa.Float, nullable=True))
    op.add_column("season_bots", sa.Column("start_sigma", sa.Float, nullable=True))
    op.execute(
        "UPDATE season_bots SET"
        " start_mu = (SELECT r.mu FROM ratings r WHERE r.season_id = season_bots.season_id"
        " AND r.bot = season_bots.bot AND r.blocks = 0),"
        " start_sigma = (SELECT r.sigma FROM ratings r WHERE r.season_id = season_bots.season_id"
        " AND r.bot = season_bots.bot AND r.blocks = 0)"
        " WHERE family IS NOT NULL"
    )
