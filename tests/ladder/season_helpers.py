"""Building season configs and finished blocks for the ladder's tests."""

from __future__ import annotations

from pathlib import Path

from brandeln.ladder.season.config import SeasonConfig, parse_season
from brandeln.ladder.season.duplicate import (
    BlockPlan,
    BotBlockResult,
    MatchOutcome,
    SeatTally,
    block_results,
    plan_block,
)

FAKE_BOT = str(Path(__file__).resolve().parent / "fake_bot.py")


def season_text(
    names: tuple[str, ...] = ("a", "b", "c", "d"),
    *,
    name: str = "test-season",
    blocks: int = 3,
    seed: int = 7,
    concurrency: int = 2,
    deals: int = 4,
    extra: str = "",
    bot_args: dict[str, str] | None = None,
    connect_timeout_ms: int = 15000,
) -> str:
    """A season file of fake-bot command bots (``bot_args`` adds arguments per bot)."""
    bots = "".join(
        f'[[bots]]\nname = "{bot}"\n'
        f'command = ["python", "{FAKE_BOT}", "--tables", "{{tables}}"'
        + "".join(f', "{arg}"' for arg in (bot_args or {}).get(bot, "").split())
        + "]\n"
        for bot in names
    )
    return (
        f'name = "{name}"\nseed = {seed}\nblocks = {blocks}\ndeals_per_match = {deals}\n'
        f"concurrency = {concurrency}\nconnect_timeout_ms = {connect_timeout_ms}\n{extra}\n{bots}"
    )


def season_config(
    names: tuple[str, ...] = ("a", "b", "c", "d"),
    *,
    name: str = "test-season",
    blocks: int = 3,
    seed: int = 7,
    concurrency: int = 2,
    deals: int = 4,
    extra: str = "",
    bot_args: dict[str, str] | None = None,
    connect_timeout_ms: int = 15000,
) -> SeasonConfig:
    text = season_text(
        names,
        name=name,
        blocks=blocks,
        seed=seed,
        concurrency=concurrency,
        deals=deals,
        extra=extra,
        bot_args=bot_args,
        connect_timeout_ms=connect_timeout_ms,
    )
    return parse_season(text, "test.toml")


def finished_block(
    index: int,
    bots: tuple[str, ...],
    chips_by_seat: tuple[int, ...],
    *,
    seed: int = 7,
    deals: int = 8,
) -> tuple[BlockPlan, list[MatchOutcome], dict[str, BotBlockResult]]:
    """A block whose every rotation ends with ``chips_by_seat`` (so seat luck cancels out)
    plus a per-bot edge: the i-th bot of ``bots`` wins i chips less per rotation."""
    plan = plan_block(seed, index, bots)
    outcomes = []
    for match in plan.matches:
        edge = [len(bots) - 1 - bots.index(bot) for bot in match.bots]
        mean = sum(edge) / len(edge)
        balances = tuple(
            chips + round(len(bots) * (e - mean))
            for chips, e in zip(chips_by_seat, edge, strict=True)
        )
        outcomes.append(
            MatchOutcome(
                plan=match,
                match_id=f"b{index}r{match.rotation}",
                balances=balances,
                forfeited=frozenset(),
                deals_played=deals,
                tallies=tuple(SeatTally(contracts_bid=2, contracts_made=1) for _ in bots),
            )
        )
    return plan, outcomes, block_results(plan, outcomes)
