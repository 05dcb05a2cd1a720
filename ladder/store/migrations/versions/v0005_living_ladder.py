"""The always-on ladder (``brandeln ladder serve``): a ladder is a season whose blocks are
planned one at a time, among bot versions that come and go.

- ``season_bots`` gains a bot version's ``family`` (the bot), ``version``, ``status``
  (``active`` or ``retired``) and ``created_at``; a season file's bots keep them NULL.
- ``planned_blocks``: each block a ladder planned, with its players and seed, before it is
  played (a ladder restarted after a kill replays the same block: it never counts one twice,
  and its ratings keep their block order), and whether it is rated.
- ``challenges``: the blocks asked for (``brandeln challenge``), queued ahead of matchmaking.
- ``version_presence``: each version's presence at the referee as the ladder last saw it
  (playing, idle, away) and its last error, for its web page.
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.add_column("season_bots", sa.Column("family", sa.Text, nullable=True))
    op.add_column("season_bots", sa.Column("version", sa.Text, nullable=True))
    op.add_column("season_bots", sa.Column("status", sa.Text, nullable=True))
    op.add_column("season_bots", sa.Column("created_at", sa.BigInteger, nullable=True))
    op.create_table(
        "planned_blocks",
        sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.season_id"), primary_key=True),
        sa.Column("block_index", sa.Integer, primary_key=True),
        sa.Column("bots_json", sa.Text, nullable=False),
        sa.Column("seed", sa.Text, nullable=False),
        sa.Column("rated", sa.Integer, nullable=False, server_default="1"),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("challenge_id", sa.Integer, nullable=True),
        sa.Column("planned_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "challenges",
        sa.Column("challenge_id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.season_id"), nullable=False),
        sa.Column("bots_json", sa.Text, nullable=False),
        sa.Column("rated", sa.Integer, nullable=False, server_default="1"),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("requested_by", sa.Text, nullable=False, server_default=""),
        sa.Column("state", sa.Text, nullable=False, server_default="queued"),
        sa.Column("block_index", sa.Integer, nullable=True),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("detail", sa.Text, nullable=False, server_default=""),
    )
    op.create_index("challenges_by_state", "challenges", ["season_id", "state", "challenge_id"])
    op.create_table(
        "version_presence",
        sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.season_id"), primary_key=True),
        sa.Column("bot", sa.Text, primary_key=True),
        sa.Column("presence", sa.Text, nullable=False),
        sa.Column("sessions", sa.Integer, nullable=False, server_default="0"),
        sa.Column("seen_at", sa.BigInteger, nullable=False),
        sa.Column("last_error", sa.Text, nullable=False, server_default=""),
        sa.Column("last_error_at", sa.BigInteger, nullable=True),
    )
