"""Block claims (runners on several processes or machines take blocks in transactions),
each bot's totals over its rated blocks and each season's count of recorded blocks (the
leaderboard without reading every block)."""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"

_TOTALS = ("deals", "chips", "contracts_bid", "contracts_made", "timeouts", "illegal")


def upgrade() -> None:
    op.create_table(
        "bot_totals",
        sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.season_id"), primary_key=True),
        sa.Column("bot", sa.Text, primary_key=True),
        *(
            sa.Column(name, sa.Integer, nullable=False, server_default="0")
            for name in (*_TOTALS, "forfeits", "cpd_n")
        ),
        sa.Column("cpd_sum", sa.Float, nullable=False, server_default="0"),
        sa.Column("cpd_sum_sq", sa.Float, nullable=False, server_default="0"),
    )
    op.create_table(
        "block_claims",
        sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.season_id"), primary_key=True),
        sa.Column("block_index", sa.Integer, primary_key=True),
        sa.Column("state", sa.Text, nullable=False, server_default="open"),
        sa.Column("claimed_by", sa.Text),
        sa.Column("claimed_at", sa.BigInteger),
        sa.Column("heartbeat_at", sa.BigInteger),
    )
    op.create_index("block_claims_by_state", "block_claims", ["season_id", "state", "block_index"])
    # A season's recorded blocks, counted as they are recorded: `ratings` and `season list`
    # read it instead of counting the blocks of a long season.
    op.add_column(
        "seasons", sa.Column("blocks_recorded", sa.Integer, nullable=False, server_default="0")
    )
    op.execute(
        "UPDATE seasons SET blocks_recorded ="
        " (SELECT count(*) FROM blocks b WHERE b.season_id = seasons.season_id)"
    )
    connection = op.get_bind()
    # Existing seasons: totals of their rated blocks, in block order (as the store adds them).
    totals: dict[tuple[int, str], dict[str, float]] = {}
    for season_id, bot in connection.execute(sa.text("SELECT season_id, bot FROM season_bots")):
        totals[(season_id, bot)] = dict.fromkeys(
            (*_TOTALS, "forfeits", "cpd_n", "cpd_sum", "cpd_sum_sq"), 0
        )
    rows = connection.execute(
        sa.text(
            "SELECT r.season_id, r.bot, r.deals, r.chips, r.contracts_bid, r.contracts_made,"
            " r.timeouts, r.illegal, r.forfeited FROM results r JOIN seasons s"
            " ON s.season_id = r.season_id WHERE r.block_index < s.next_to_rate"
            " ORDER BY r.season_id, r.block_index, r.bot"
        )
    )
    for season_id, bot, deals, chips, bid, made, timeouts, illegal, forfeited in rows:
        total = totals.setdefault(
            (season_id, bot),
            dict.fromkeys((*_TOTALS, "forfeits", "cpd_n", "cpd_sum", "cpd_sum_sq"), 0),
        )
        for name, value in zip(_TOTALS, (deals, chips, bid, made, timeouts, illegal), strict=True):
            total[name] += value
        total["forfeits"] += 1 if forfeited else 0
        if deals:
            sample = chips / deals
            total["cpd_n"] += 1
            total["cpd_sum"] += sample
            total["cpd_sum_sq"] += sample * sample
    table = sa.table(
        "bot_totals",
        *(sa.column(name) for name in ("season_id", "bot", *_TOTALS, "forfeits", "cpd_n")),
        sa.column("cpd_sum"),
        sa.column("cpd_sum_sq"),
    )
    if totals:
        op.bulk_insert(
            table,
            [{"season_id": key[0], "bot": key[1], **values} for key, values in totals.items()],
        )
    # Every planned block of an existing season gets its claim row: done if recorded.
    seasons = connection.execute(sa.text("SELECT season_id, blocks_planned FROM seasons")).all()
    claims = sa.table(
        "block_claims", sa.column("season_id"), sa.column("block_index"), sa.column("state")
    )
    for season_id, planned in seasons:
        done = {
            index
            for (index,) in connection.execute(
                sa.text("SELECT block_index FROM blocks WHERE season_id = :s"), {"s": season_id}
            )
        }
        indexes = sorted(done | set(range(planned)))
        if indexes:
            op.bulk_insert(
                claims,
                [
                    {
                        "season_id": season_id,
                        "block_index": index,
                        "state": "done" if index in done else "open",
                    }
                    for index in indexes
                ],
            )
