"""A season's leaderboard and its title, as `ratings` and `season run` print them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brandeln.cli.terminal_text import markup, plain, safe
from brandeln.cli.wrapped_text import Legend
from brandeln.engine.plurals import plural

if TYPE_CHECKING:  # imported in the command: `brandeln --help` must stay fast
    from rich.table import Table
    from rich.text import Text

    from brandeln.ladder.ratings.batch import BatchRatings
    from brandeln.ladder.ratings.leaderboard import LeaderboardRow
    from brandeln.ladder.ratings.versus import HeadToHead
    from brandeln.ladder.store.database import SeasonInfo

# What the leaderboard's "made" counts, said beside it and beside `ratings --roles`' bidding,
# which counts otherwise (brandeln.cli.role_tables.CHOSEN_COUNTS): the tallies of the rated
# blocks (brandeln.ladder.referee.tally) count a soloist that won the auction, not one a pass-out
# forced to play.
MADE_COUNTS = "contracts made/bid: the auctions it won as soloist, in rated blocks"


def leaderboard_table(rows: list[LeaderboardRow], title: str) -> Table:
    """The leaderboard as a rich table that fits 80 columns.

    The numbers never wrap (so they are never cut); a long bot name, and its forfeits, fold
    onto further lines of its cell. ``ill.`` is short for illegal actions: with the widest
    figures a long season gives (``-25.40±13.68``, ``140/210 67%``, 100 timeouts) the name
    keeps eight columns.
    """
    from brandeln.cli.layout import compact_table, fixed, folding  # noqa: PLC0415 - --help

    table = compact_table(title=title)
    table.caption = Legend(
        "ranked by μ-3σ (TrueSkill)",
        "chips/deal ± 95% CI over blocks",
        f"made = {MADE_COUNTS}",
        "t/o = timeouts",
        "ill. = illegal actions",
    )
    fixed(table, "#", right=True)
    folding(table, "bot", min_width=8)
    for header in ("μ-3σ", "μ", "σ", "blocks", "chips/deal", "made", "t/o", "ill."):
        fixed(table, header, right=True)
    for row in rows:
        interval = row.chips_per_deal
        if interval is None:
            chips = "-"
        elif interval.half_width is None:
            chips = f"{interval.mean:+.2f}"
        else:
            chips = f"{interval.mean:+.2f}±{interval.half_width:.2f}"
        percent = row.made_percent
        made = (
            "-" if percent is None else f"{row.contracts_made}/{row.contracts_bid} {percent:.0f}%"
        )
        name = safe(row.bot) + (f" ({row.forfeits} forfeited)" if row.forfeits else "")
        table.add_row(
            str(row.rank),
            plain(name),
            f"{row.conservative:.2f}",
            f"{row.mu:.2f}",
            f"{row.sigma:.2f}",
            str(row.blocks),
            chips,
            made,
            str(row.timeouts),
            str(row.illegal),
        )
    return table


def batch_table(ratings: BatchRatings, rows: list[LeaderboardRow]) -> Table:
    """The batch ratings (``brandeln.ladder.ratings.season_batch``) best first, each bot's TrueSkill
    rank beside (fits 80 columns): its log-strength with the 95% interval of the resampled blocks,
    its probability of rank 1, and the ranks it took in the middle 95% of the resamples."""
    from brandeln.cli.layout import compact_table, fixed, folding  # noqa: PLC0415 - --help
    from brandeln.ladder.ratings.season_batch import rank_interval_text  # noqa: PLC0415

    table = compact_table(
        title=f"batch ratings (Plackett-Luce, all {plural(ratings.blocks, 'rated block')} at once)"
    )
    table.caption = Legend(
        "strength: log-strength, mean 0 (1 more: 73% to finish ahead)",
        f"interval, P(#1), ranks 95%: over {plural(ratings.resamples, 'resample')} of the blocks",
        "TS #: rank by μ-3σ",
    )
    fixed(table, "#", right=True)
    folding(table, "bot", min_width=8)
    for header in ("strength", "95% interval", "P(#1)", "ranks 95%", "TS #"):
        fixed(table, header, right=True)
    trueskill = {row.bot: row.rank for row in rows}
    for rating in ratings.bots:
        table.add_row(
            str(rating.rank),
            plain(rating.bot),
            f"{rating.strength:+.2f}",
            "-" if rating.low is None else f"[{rating.low:+.2f}, {rating.high:+.2f}]",
            _percent(rating.p_first),
            rank_interval_text(rating),
            str(trueskill.get(rating.bot, "-")),
        )
    return table


def _percent(share: float | None) -> str:
    """A probability in whole percent; never 0% or 100% for what happened but rarely."""
    if share is None:
        return "-"
    if 0 < share < 0.005:  # what rounds to 0%
        return "<1%"
    if 0.995 <= share < 1:
        return ">99%"
    return f"{100 * share:.0f}%"


def batch_notes(ratings: BatchRatings) -> list[Text]:
    """What the batch table leaves unsaid: bots without a block against another, groups of bots
    that never met (their strengths do not compare across), no bootstrap."""
    from rich.text import Text  # noqa: PLC0415 - --help

    notes = []
    if ratings.unrated:
        notes.append(
            Text.assemble("not batch-rated (no block against another bot): ")
            + Text(", ").join(plain(bot) for bot in ratings.unrated)
        )
    if not ratings.connected:
        notes.append(
            Text(
                "the bots split into groups that never met: strengths compare only within a group",
                style="yellow",
            )
        )
    if ratings.bots and not ratings.resamples:
        notes.append(Text("one rated block: no interval without a second one to resample"))
    return notes


def decisions_table(rows: list[LeaderboardRow]) -> Table:
    """Each bot's decision time and strikes, in the leaderboard's order (fits 80 columns).

    Over a season, p50 and p95 are the decision-weighted means of the matches' percentiles
    (``brandeln.ladder.season.duplicate.DecisionLatency``); max is the slowest decision. ``-``: no
    decision time recorded (blocks stored before the ladder kept it, or a referee that does not
    say).
    """
    from brandeln.cli.layout import compact_table, fixed, folding  # noqa: PLC0415 - --help

    table = compact_table(title="decisions (ms)")
    table.caption = Legend("p50, p95: means over matches", "max: slowest")
    fixed(table, "#", right=True)
    folding(table, "bot", min_width=8)
    for header in ("decisions", "p50", "p95", "max", "strikes"):
        fixed(table, header, right=True)
    for row in rows:
        latency = row.latency
        known = latency.decisions > 0
        table.add_row(
            str(row.rank),
            plain(row.bot),
            str(latency.decisions) if known else "-",
            str(latency.p50_ms) if known else "-",
            str(latency.p95_ms) if known else "-",
            str(latency.max_ms) if known else "-",
            str(row.strikes),
        )
    return table


def season_title(info: SeasonInfo) -> str:
    """``season NAME (RULESET): F of P blocks``, and how its last run ended unless finished;
    as rich markup (its name and ruleset escaped)."""
    from brandeln.ladder.store.database import SeasonStatus  # noqa: PLC0415

    title = (
        f"season {markup(info.name)} ({markup(info.ruleset)}): {info.blocks_finished} of "
        f"{plural(info.blocks_planned, 'block')}"
    )
    return title if info.status == SeasonStatus.FINISHED else f"{title}, {info.status}"


def season_line(info: SeasonInfo) -> str:
    """A line of `season list`: the title, its status, and why it failed."""
    from brandeln.ladder.store.database import SeasonStatus  # noqa: PLC0415

    line = season_title(info)
    if info.status == SeasonStatus.FINISHED:
        line += ", finished"
    if info.status_detail:
        line += f": {markup(info.status_detail)}"
    return line


def leaderboard_document(info: SeasonInfo, rows: list[LeaderboardRow]) -> dict[str, Any]:
    """The leaderboard as JSON-ready data (``ratings --json``, ``season run --json``)."""
    return {
        "season": info.name,
        "ruleset": info.ruleset,
        "status": info.status,
        "blocks_finished": info.blocks_finished,
        "blocks_planned": info.blocks_planned,
        "leaderboard": [row.to_json() for row in rows],
    }


def head_to_head_line(gap: HeadToHead) -> str:
    """``A against B: +1.20 ± 0.45 chips per deal (95% CI over 30 blocks)``, as rich markup
    (the names escaped)."""
    a, b = (" + ".join(markup(bot) for bot in side) for side in (gap.a, gap.b))
    interval = gap.difference
    if interval is None:
        return f"{a} against {b}: no block where both played"
    spread = "" if interval.half_width is None else f" ± {interval.half_width:.2f}"
    return (
        f"{a} against {b}: {interval.mean:+.2f}{spread} chips per deal "
        f"(95% CI over {plural(gap.blocks, 'block')})"
    )


def head_to_head_json(gap: HeadToHead) -> dict[str, Any]:
    """The head to head as JSON-ready data (``ratings --versus ... --json``)."""
    from brandeln.ladder.ratings.stats import chips_per_deal_json  # noqa: PLC0415 - --help

    return {
        "a": list(gap.a),
        "b": list(gap.b),
        "blocks": gap.blocks,
        **chips_per_deal_json(gap.difference),
    }
