"""The final rerun among a season's top K (brandeln.ladder.season.rerun): on the fake referee, whose
bots' ``skill`` makes their strengths known and every run the same, and on an in-process player."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.ladder.errors import SeasonConfigError, SeasonMismatchError
from brandeln.ladder.season.claims import new_runner_id, retire
from brandeln.ladder.season.commitment import SeedState
from brandeln.ladder.season.config import RerunSettings, SeasonConfig, load_season, parse_season
from brandeln.ladder.season.duplicate import BlockPlan, MatchOutcome
from brandeln.ladder.season.rerun import (
    BotInterval,
    RerunError,
    RerunStop,
    default_cap,
    overlapping,
)
from brandeln.ladder.season.runner import BlockPlayer, SeasonSummary, run_blocks, run_season
from brandeln.ladder.season.schedule import schedule
from brandeln.ladder.store.database import LadderStore, SeasonStatus
from tests.ladder.fake_referee import ADMIN_TOKEN, FakeReferee
from tests.ladder.season_helpers import season_config, season_text

SIX = ("a", "b", "c", "d", "e", "f")
SEASON = "test-season"


def with_rerun(config: SeasonConfig, top: int, cap: int | None = None) -> SeasonConfig:
    return replace(config, rerun=RerunSettings(top=top, max_blocks=cap))


async def on_fake(fake: FakeReferee, config: SeasonConfig, store: LadderStore) -> SeasonSummary:
    return await run_season(config, fake.address, ADMIN_TOKEN, store)


def rerun_tables(store: LadderStore, after: int) -> dict[int, set[str]]:
    """The bots of each recorded rerun block, from its recorded matches."""
    tables: dict[int, set[str]] = {}
    for match in store.reads.matches(SEASON):
        if match.block_index >= after:
            tables.setdefault(match.block_index, set()).update(match.bots)
    return tables


# -- the rule, pure --------------------------------------------------------------------------


def test_intervals_overlap_pairwise_and_a_bot_without_one_overlaps_all() -> None:
    a = BotInterval("a", 3.0, 2.5, 3.5)
    b = BotInterval("b", 2.0, 1.0, 2.5)  # touches a: closed intervals overlap
    c = BotInterval("c", 0.0, -0.5, 0.5)
    d = BotInterval("d", 1.8, 0.4, 3.0)  # wide: overlaps a and c, not only its neighbours
    assert overlapping([a, b, c]) == (("a", "b"),)
    assert overlapping([a, d, b, c]) == (("a", "d"), ("a", "b"), ("d", "b"), ("d", "c"))
    assert overlapping([a, BotInterval("x", 0.0, None, None), c]) == (("a", "x"), ("x", "c"))
    assert overlapping([a, c]) == ()


def test_the_default_cap_doubles_the_top_bots_seats_and_seats_each_once_at_least() -> None:
    assert default_cap([12, 12, 12, 12], seats=4) == 12
    assert default_cap([2, 2, 2, 2, 2], seats=4) == 3  # ceil(10 / 4)
    assert default_cap([0, 0, 0, 0, 0], seats=4) == 2  # ceil(5 / 4): each seated once


# -- the season file (the CLI's options: test_rerun_cli.py) ------------------------------------


def test_a_season_file_may_ask_for_a_rerun_and_a_bad_one_names_the_key() -> None:
    config = parse_season(season_text(SIX, extra="[rerun]\ntop = 5\nmax_blocks = 7\n"), "s.toml")
    assert config.rerun == RerunSettings(top=5, max_blocks=7)
    assert parse_season(season_text(SIX, extra="[rerun]\ntop = 4\n")).rerun == RerunSettings(4)
    assert parse_season(season_text(SIX)).rerun is None
    bad = {
        "top = 3": "s.toml: rerun.top: must be at least the 4 seats of a table",
        "top = 7": "s.toml: rerun.top: must be at most the season's 6 bots, got 7",
        "top = 4\nmax_blocks = 0": "s.toml: rerun.max_blocks: must be between 1 and",
        "top = 4\ncap = 3": "s.toml: rerun.cap: unknown key",
        "max_blocks = 3": "s.toml: rerun.top: missing (required)",
    }
    for table, message in bad.items():
        with pytest.raises(
            SeasonConfigError, match=message.replace("(", r"\(").replace(")", r"\)")
        ):
            parse_season(season_text(SIX, extra=f"[rerun]\n{table}\n"), "s.toml")


# -- on the fake referee -----------------------------------------------------------------------


async def test_well_separated_bots_stop_the_rerun_early_among_the_top_k_only(
    fake: FakeReferee, store: LadderStore
) -> None:
    fake.skill = {"a": 9, "b": 6, "c": 3, "d": 0, "e": -3, "f": -6}
    config = with_rerun(season_config(SIX, blocks=3, concurrency=4), top=4, cap=12)
    summary = await on_fake(fake, config, store)

    rerun = summary.rerun
    assert rerun is not None
    assert rerun.stopped is RerunStop.SEPARATED, rerun.message
    assert rerun.top == ("a", "b", "c", "d")
    assert 0 < rerun.blocks_played == rerun.blocks_done < 12
    assert rerun.overlapping == ()
    assert [interval.bot for interval in rerun.intervals] == ["a", "b", "c", "d"]
    assert overlapping(rerun.intervals) == ()
    blocks = "1 rerun block" if rerun.blocks_done == 1 else f"{rerun.blocks_done} rerun blocks"
    assert rerun.message.startswith(f"rerun stopped: the top 4 are separated after {blocks} (a +")
    # The rerun's blocks are blocks of the season after its own, among the top 4 only, and
    # rated in block order like the others.
    played = rerun.blocks_played
    record = store.rerun.rerun(SEASON)
    assert record is not None
    assert (record.after, record.top, record.planned) == (3, ("a", "b", "c", "d"), played)
    assert store.blocks.finished_blocks(SEASON) == set(range(3 + played))
    assert rerun_tables(store, 3) == {3 + j: {"a", "b", "c", "d"} for j in range(played)}
    assert len(fake.requests) == 4 * (3 + played)
    history_blocks = {block for block, _, _ in store.reads.rating_history(SEASON)}
    assert history_blocks == set(range(3 + played))
    info = store.seasons.season(SEASON)
    assert (info.blocks_planned, info.blocks_finished, info.status) == (
        3 + played,
        3 + played,
        SeasonStatus.FINISHED,
    )
    assert summary.blocks_played == 3 + played
    assert (summary.blocks_done, summary.blocks_total) == (3, 3)


async def test_two_equal_bots_run_to_the_cap_say_so_and_a_finished_rerun_plays_nothing(
    fake: FakeReferee, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.skill = {"a": 6, "b": 6, "c": -2, "d": -10}
    file = tmp_path / "season.toml"
    file.write_text(season_text(extra="[rerun]\ntop = 4\nmax_blocks = 3\n", concurrency=4))
    data = tmp_path / "data"
    with LadderStore.open(data / "ladder.db") as store:
        summary = await on_fake(fake, load_season(file), store)
        rerun = summary.rerun
        assert rerun is not None
        assert rerun.stopped is RerunStop.CAP, rerun.message
        assert (rerun.blocks_played, rerun.blocks_done, rerun.cap) == (3, 3, 3)
        assert {frozenset(pair) for pair in rerun.overlapping} == {frozenset("ab")}
        assert rerun.message.startswith("rerun stopped at its cap of 3 blocks: ")
        assert any(
            rerun.message.startswith(f"rerun stopped at its cap of 3 blocks: {pair} still overlap")
            for pair in ("a and b", "b and a")
        )
        assert store.blocks.finished_blocks(SEASON) == set(range(6))
        requests = len(fake.requests)

        # Again: the rerun has stopped, so nothing is played and no referee is contacted.
        again = await on_fake(fake, load_season(file), store)
        assert len(fake.requests) == requests
        assert again.rerun is not None
        assert (again.rerun.stopped, again.rerun.blocks_played, again.rerun.blocks_done) == (
            RerunStop.CAP,
            0,
            3,
        )
        assert not again.referee_contacted

    # The CLI says so, without reaching the referee (there is none at that address); in a
    # thread, as its asyncio.run needs one without a running loop.
    monkeypatch.setenv("BRANDELN_ADMIN_TOKEN", ADMIN_TOKEN)
    result = await asyncio.to_thread(
        CliRunner().invoke,
        app,
        ["season", "run", str(file), "--data", str(data), "--referee", "127.0.0.1:1"],
    )
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())  # as read, whatever the width it was wrapped at
    assert "4 deals, then a rerun among the top 4, on the referee" in said
    assert "rerun stopped at its cap of 3 blocks: " in said
    assert "rerun: 0 blocks played now (3 in all, cap 3)" in said
    assert "nothing to play: every block was already recorded and the rerun had stopped" in said
    # The progress shows the rerun's phase on a row of its own: its blocks of the cap.
    assert re.search(r"rerun, top 4 .* 3/3 blocks .*overlap (a~b|b~a)", said), said

    # A higher cap goes on where the rerun stopped.
    with LadderStore.open(data / "ladder.db") as store:
        more = await on_fake(fake, with_rerun(load_season(file), top=4, cap=4), store)
        assert more.rerun is not None
        assert (more.rerun.blocks_played, more.rerun.blocks_done) == (1, 4)
        assert store.blocks.finished_blocks(SEASON) == set(range(7))
        assert len(fake.requests) == requests + 4


def recorded(store: LadderStore) -> tuple[object, ...]:
    return (
        store.reads.ratings(SEASON),
        store.reads.rating_history(SEASON),
        store.reads.results(SEASON),
        store.rerun.rerun(SEASON),
    )


async def test_an_interrupted_rerun_resumes_without_counting_a_block_twice(
    fake: FakeReferee, tmp_path: Path
) -> None:
    fake.skill = {"a": 6, "b": 6, "c": -2, "d": -10}
    fake.deal_delay_s = 0.01
    config = with_rerun(season_config(blocks=2, concurrency=4), top=4, cap=3)
    with LadderStore.open(tmp_path / "straight.db") as straight:
        await on_fake(fake, config, straight)
        expected = recorded(straight)
    assert len(fake.requests) == 4 * 5

    with LadderStore.open(tmp_path / "resumed.db") as store:
        task = asyncio.ensure_future(on_fake(fake, config, store))

        def in_a_rerun_block() -> bool:
            # A rerun block recorded and the next one's matches running.
            return len(store.blocks.finished_blocks(SEASON)) >= 3 and fake.running >= 1

        # A generous hang guard: two blocks and a fit come first on a loaded machine.
        await fake.wait_until(
            lambda: SEASON in store.seasons.season_names() and in_a_rerun_block(), timeout_s=300
        )
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        done_before = store.blocks.finished_blocks(SEASON)
        assert 3 <= len(done_before) < 5
        assert store.seasons.season(SEASON).status is SeasonStatus.INTERRUPTED
        started_before = len(fake.requests)

        summary = await on_fake(fake, config, store)
        assert summary.rerun is not None
        assert summary.rerun.blocks_played == 5 - len(done_before)
        # Only the blocks not recorded were played: the interrupted one again from its start.
        assert len(fake.requests) - started_before == 4 * (5 - len(done_before))
        assert store.blocks.finished_blocks(SEASON) == set(range(5))
        assert recorded(store) == expected
        assert len(store.reads.matches(SEASON)) == 20


# -- on an in-process player -------------------------------------------------------------------


class SkillBlocks:
    """Plays blocks in this process, one at a time: in every match a bot wins its skill less
    the table's mean (no luck), so a block ranks bots by skill and equal skills tie."""

    workers = 1

    def __init__(self, skill: dict[str, int] | None = None) -> None:
        self.skill = skill or {}
        self.played: list[BlockPlan] = []
        self.opened = 0

    async def play_block(self, plan: BlockPlan, on_deal: Callable[[], None]) -> list[MatchOutcome]:
        self.played.append(plan)
        outcomes = []
        for match in plan.matches:
            raw = [self.skill.get(bot, 0) for bot in match.bots]
            outcomes.append(
                MatchOutcome(
                    plan=match,
                    match_id=f"b{plan.index}r{match.rotation}",
                    balances=tuple(len(raw) * value - sum(raw) for value in raw),
                    forfeited=frozenset(),
                    deals_played=4,
                )
            )
        return outcomes


async def in_process(
    config: SeasonConfig, store: LadderStore, player: SkillBlocks
) -> SeasonSummary:
    @asynccontextmanager
    async def open_player() -> AsyncIterator[BlockPlayer]:
        player.opened += 1
        yield player

    return await run_blocks(config, store, open_player)


async def test_with_more_top_bots_than_seats_the_rerun_follows_the_schedules_rule(
    store: LadderStore,
) -> None:
    # Six equal bots: every block a four-way tie, so no interval ever separates.
    player = SkillBlocks()
    config = with_rerun(season_config(SIX, blocks=3), top=5)
    summary = await in_process(config, store, player)
    rerun = summary.rerun
    assert rerun is not None
    record = store.rerun.rerun(SEASON)
    assert record is not None
    # Each bot played 2 blocks of the season: 10 seats for the top 5, over 4 seats a block.
    assert (rerun.stopped, rerun.cap, rerun.blocks_played) == (RerunStop.CAP, 3, 3)
    tables = [plan.bots for plan in player.played if plan.index >= 3]
    assert tables == schedule(record.top, 4, 3, config.seed or 0)
    assert all(set(table) <= set(record.top) for table in tables)
    seats = Counter(bot for table in tables for bot in table)
    assert max(seats.values()) - min(seats.values()) <= 1
    assert set(seats) == set(record.top)


async def test_a_killed_runs_rerun_block_is_played_once_by_the_next_run(
    store: LadderStore,
) -> None:
    player = SkillBlocks()
    config = with_rerun(season_config(blocks=2), top=4, cap=1)
    await in_process(config, store, player)
    assert [plan.index for plan in player.played] == [0, 1, 2]
    # A run that planned the next rerun block and was killed (SIGKILL) before recording it.
    dead = new_runner_id()
    assert store.rerun.plan_rerun_block(SEASON, dead, 2) == 3
    retire(dead)

    summary = await in_process(with_rerun(config, top=4, cap=2), store, player)
    assert [plan.index for plan in player.played] == [0, 1, 2, 3]
    assert store.blocks.finished_blocks(SEASON) == {0, 1, 2, 3}
    assert summary.rerun is not None
    assert (summary.rerun.stopped, summary.rerun.blocks_played) == (RerunStop.CAP, 1)
    assert sum(row.blocks for row in store.reads.ratings(SEASON)) == 4 * 4


async def test_a_season_separated_by_its_own_blocks_plays_no_rerun_block(
    store: LadderStore,
) -> None:
    player = SkillBlocks({"a": 3, "b": 2, "c": 1, "d": 0})
    summary = await in_process(with_rerun(season_config(blocks=2), top=4), store, player)
    assert summary.rerun is not None
    assert summary.rerun.stopped is RerunStop.SEPARATED
    assert summary.rerun.blocks_played == 0
    assert summary.rerun.message.startswith(
        "rerun stopped: the top 4 are separated by the season's own blocks (a +"
    )
    assert len(player.played) == 2


async def test_a_season_with_a_rerun_keeps_its_blocks_and_its_top_k(store: LadderStore) -> None:
    player = SkillBlocks()
    config = with_rerun(season_config(SIX, blocks=3), top=4, cap=2)
    await in_process(config, store, player)
    assert store.seasons.season(SEASON).blocks_planned == 5

    # Without a rerun asked for: nothing to play, and the rerun's blocks stay planned.
    plain = await in_process(replace(config, rerun=None), store, player)
    assert (plain.blocks_played, plain.referee_contacted, plain.rerun) == (0, False, None)
    assert store.seasons.season(SEASON).blocks_planned == 5
    # Another K than the rerun began with, or more blocks of the season: refused, one line.
    with pytest.raises(RerunError, match=r"has a rerun among its top 4 \(.*\): ask for the top 4"):
        await in_process(with_rerun(config, top=5), store, player)
    assert (
        store.seasons.season(SEASON).status is SeasonStatus.FINISHED
    )  # the mistake changed nothing
    with pytest.raises(SeasonMismatchError, match="had a final rerun after its 3 blocks"):
        await in_process(replace(config, blocks=4), store, player)
    assert store.blocks.finished_blocks(SEASON) == set(range(5))
    assert player.opened == 1


async def test_a_rerun_goes_no_further_once_the_seasons_secret_seed_is_revealed(
    store: LadderStore,
) -> None:
    # A season file without a seed: the runner draws a secret one and reveals it when the
    # season is finished, the rerun stopped at its cap included.
    player = SkillBlocks()
    config = with_rerun(replace(season_config(blocks=2), seed=None), top=4, cap=1)
    summary = await in_process(config, store, player)
    assert summary.rerun is not None
    assert (summary.rerun.stopped, summary.rerun.blocks_done) == (RerunStop.CAP, 1)
    commitment = store.commitments.season_commitment(SEASON)
    assert commitment is not None
    assert commitment.state is SeedState.REVEALED
    # Run again with the same cap: it has stopped there, and says so (the seed is no matter).
    again = await in_process(config, store, player)
    assert again.rerun is not None
    assert (again.rerun.stopped, again.rerun.blocks_played, again.rerun.blocks_done) == (
        RerunStop.CAP,
        0,
        1,
    )
    assert again.rerun.message.startswith("rerun stopped at its cap of 1 block: ")
    # A higher cap would deal from the seed everyone may now read: refused, nothing played.
    with pytest.raises(RerunError, match="its seed revealed: more rerun blocks would deal"):
        await in_process(with_rerun(config, top=4, cap=2), store, player)
    assert store.blocks.finished_blocks(SEASON) == {0, 1, 2}
    assert len(player.played) == 3
