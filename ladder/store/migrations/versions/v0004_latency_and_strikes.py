"""Decision latency per bot per block (p50/p95/max of MatchSummary.latency) in the results,
and each bot's strikes and latency sums in its totals (the leaderboard's "decisions" table).

Blocks recorded before this revision reported no latency: their rows keep 0 decisions (shown as
unknown, not as 0 ms). Strikes were recorded all along: the totals get them from the results.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"

_RESULT_COLUMNS = ("lat_decisions", "lat_p50_ms", "lat_p95_ms", "lat_max_ms")
_TOTAL_COLUMNS = ("strikes", "lat_decisions", "lat_p50_sum", "lat_p95_sum", "lat_max_ms")


def upgrade() -> None:
    for name in _RESULT_COLUMNS:
        op.add_column("results", sa.Column(name, sa.Integer, nullable=False, server_default="0"))
    for name in _TOTAL_COLUMNS:
        op.add_column("bot_totals", sa.Column(name, sa.Integer, nullable=False, server_default="0"))
    # The totals cover the rated blocks (those below next_to_rate), as the store adds them.
    op.execute(
        "UPDATE bot_totals SET strikes = (SELECT coalesce(sum(r.strikes), 0) FROM results r"
        " JOIN seasons s ON s.season_id = r.season_id"
        " WHERE r.season_id = bot_totals.season_id AND r.bot = bot_totals.bot"
        " AND r.block_index < s.next_to_rate)"
    )
