"""The first schema (a ``user_version`` 1 file): seasons, bots with plaintext tokens, blocks,
matches, results and ratings."""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "seasons",
        sa.Column("season_id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.Text, nullable=False, unique=True),
        sa.Column("settings_json", sa.Text, nullable=False),
        sa.Column("ruleset", sa.Text, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("blocks_planned", sa.Integer, nullable=False),
        sa.Column("next_to_rate", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "season_bots",
        sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.season_id"), primary_key=True),
        sa.Column("bot", sa.Text, primary_key=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("bot_id", sa.Text),
        sa.Column("token", sa.Text),
        sa.Column("referee_name", sa.Text),
        sa.CheckConstraint("kind IN ('command', 'external')", name="season_bots_kind"),
    )
    op.create_table(
        "blocks",
        sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.season_id"), primary_key=True),
        sa.Column("block_index", sa.Integer, primary_key=True),
        sa.Column("seed", sa.Text, nullable=False),
        sa.Column("bots_json", sa.Text, nullable=False),
        sa.Column("finished_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "matches",
        sa.Column("season_id", sa.Integer, primary_key=True),
        sa.Column("block_index", sa.Integer, primary_key=True),
        sa.Column("rotation", sa.Integer, primary_key=True),
        sa.Column("match_id", sa.Text, nullable=False),
        sa.Column("suit_permutation", sa.Text, nullable=False),
        sa.Column("bots_json", sa.Text, nullable=False),
        sa.Column("balances_json", sa.Text, nullable=False),
        sa.Column("forfeited_json", sa.Text, nullable=False),
        sa.Column("deals_played", sa.Integer, nullable=False),
        sa.ForeignKeyConstraint(
            ["season_id", "block_index"], ["blocks.season_id", "blocks.block_index"]
        ),
    )
    op.create_index("matches_by_match_id", "matches", ["match_id"])
    op.create_table(
        "results",
        sa.Column("season_id", sa.Integer, primary_key=True),
        sa.Column("block_index", sa.Integer, primary_key=True),
        sa.Column("bot", sa.Text, primary_key=True),
        *(
            sa.Column(name, sa.Integer, nullable=False)
            for name in (
                "rank",
                "chips",
                "deals",
                "forfeited",
                "timeouts",
                "illegal",
                "strikes",
                "contracts_bid",
                "contracts_made",
            )
        ),
        sa.ForeignKeyConstraint(
            ["season_id", "block_index"], ["blocks.season_id", "blocks.block_index"]
        ),
    )
    op.create_table(
        "ratings",
        sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.season_id"), primary_key=True),
        sa.Column("bot", sa.Text, primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("blocks", sa.Integer, nullable=False),
    )
    op.create_table(
        "rating_history",
        sa.Column("season_id", sa.Integer, primary_key=True),
        sa.Column("block_index", sa.Integer, primary_key=True),
        sa.Column("bot", sa.Text, primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
    )
