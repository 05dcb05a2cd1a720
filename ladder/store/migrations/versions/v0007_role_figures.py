"""Role figures (``brandeln.services.roles.figures``): each match of a season judged once from its
log, bidding, soloist play and defence per seat, double dummy. Judging every card of a deal with the
exact solver takes 5 to 25 ms, a long season minutes: ``brandeln ratings --roles`` and the bot
pages keep each match's figures here and judge only the matches not kept yet.

- ``role_figures``: one row per (season, match): the figures as JSON (the format's
  ``version``: a row of another version is judged again, no migration needed when the figures
  change) and when they were judged. A cache: every row can be recomputed from the logs.
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    op.create_table(
        "role_figures",
        sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.season_id"), primary_key=True),
        sa.Column("match_id", sa.Text, primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("figures_json", sa.Text, nullable=False),
        sa.Column("judged_at", sa.BigInteger, nullable=False),
    )
