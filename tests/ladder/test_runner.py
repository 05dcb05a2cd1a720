"""The season runner against a fake referee, with real bot processes (tests/ladder/fake_bot.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from brandeln.ladder.bots.processes import BotProcess, start_bot, stop_bots
from brandeln.ladder.errors import (
    BlockFailedError,
    BotStartError,
    MatchUnavailableError,
    RefereeError,
)
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.season.config import CommandBot, ExternalBot, SeasonConfig
from brandeln.ladder.season.duplicate import BlockPlan, MatchOutcome, plan_season
from brandeln.ladder.season.runner import (
    BlockPlayer,
    SeasonProgress,
    SeasonSummary,
    run_blocks,
    run_season,
    while_bots_run,
)
from brandeln.ladder.store.database import LadderStore, SeasonStatus, token_hash
from brandeln.v1 import cards_pb2
from tests.ladder.fake_referee import ADMIN_TOKEN, FakeReferee, start_fake_referee
from tests.ladder.season_helpers import season_config

FIVE = ("a", "b", "c", "d", "e")


async def run(
    fake: FakeReferee,
    config: SeasonConfig,
    store: LadderStore,
    progress: list[SeasonProgress] | None = None,
    token: str = ADMIN_TOKEN,
) -> SeasonSummary:
    return await run_season(
        config,
        fake.address,
        token,
        store,
        progress=None if progress is None else progress.append,
    )


async def test_a_season_plays_every_block_in_duplicate_and_records_it(
    fake: FakeReferee, store: LadderStore, tmp_path: Path
) -> None:
    fake.skill = {"a": 3, "b": 1, "c": 0, "d": -1, "e": -3}
    config = season_config(FIVE, blocks=5, concurrency=3, deals=4)
    progress: list[SeasonProgress] = []
    summary = await run(fake, config, store, progress)

    assert store.blocks.finished_blocks("test-season") == set(range(5))
    assert len(fake.requests) == 20 == len(store.reads.matches("test-season"))
    assert fake.max_running <= 3
    # every command bot was registered once, as <bot>@<season>
    assert sorted(fake.registrations) == [f"{bot}@test-season" for bot in FIVE]
    # the blocks: 4 rotations of one seed, each rotation its own suit permutation
    by_seed: dict[int, list[tuple[int, ...]]] = {}
    for request in fake.requests:
        assert request.deals == 4
        assert request.ruleset == "standard"
        by_seed.setdefault(request.seed, []).append(tuple(int(s) for s in request.suit_permutation))
    assert len(by_seed) == 5
    for permutations in by_seed.values():
        assert len(set(permutations)) == 4
        identity = (
            cards_pb2.SUIT_CLUBS,
            cards_pb2.SUIT_SPADES,
            cards_pb2.SUIT_HEARTS,
            cards_pb2.SUIT_DIAMONDS,
        )
        assert identity in permutations
    # the skills show in the ratings: the strongest bot leads, the weakest trails
    ratings = {row.bot: row for row in store.reads.ratings("test-season")}
    best = max(ratings.values(), key=lambda row: row.rating.conservative)
    worst = min(ratings.values(), key=lambda row: row.rating.conservative)
    assert (best.bot, worst.bot) == ("a", "e")
    assert sum(row.blocks for row in ratings.values()) == 5 * 4
    # contracts: deals 1-3 of every 4 are bid (deal 4 is a pass-out), so 3 per match
    results = store.reads.results("test-season")
    assert sum(r.contracts_bid for _, r in results) == 20 * 3
    # progress: one report per block at least, ending with all blocks and a leader
    assert progress[-1].blocks_done == 5
    assert progress[-1].leader == "a"
    assert progress[-1].deals == 80
    assert progress[-1].deals_per_second > 0
    assert summary.blocks_played == 5
    assert summary.last_match_id in {m.match_id for m in store.reads.matches("test-season")}
    # bots were stopped: their sessions are gone
    await fake.wait_until(lambda: fake.session_count() == 0)
    # the bots got their environment and the expanded {tables} argument
    log = (tmp_path / "data" / "seasons" / "test-season" / "bots" / "a.log").read_text()
    assert f"env name=a server={fake.address} tables=3 arg=3" in log


async def test_running_a_finished_season_again_plays_nothing(
    fake: FakeReferee, store: LadderStore
) -> None:
    config = season_config(blocks=2)
    await run(fake, config, store)
    requests = len(fake.requests)
    ratings = store.reads.ratings("test-season")
    await run(fake, config, store)
    assert len(fake.requests) == requests
    assert store.reads.ratings("test-season") == ratings


async def test_more_blocks_extend_a_season_keeping_the_played_ones(
    fake: FakeReferee, store: LadderStore, tmp_path: Path
) -> None:
    await run(fake, season_config(FIVE, blocks=2), store)
    await run(fake, season_config(FIVE, blocks=4), store)
    with LadderStore.open(tmp_path / "straight.db") as straight:
        await run(fake, season_config(FIVE, blocks=4), straight)
        assert straight.reads.ratings("test-season") == store.reads.ratings("test-season")
    assert sorted(fake.registrations).count("a@test-season") == 1  # reused, not re-registered


async def test_every_run_gives_the_bots_fresh_tokens_and_stores_none(
    fake: FakeReferee, store: LadderStore
) -> None:
    await run(fake, season_config(blocks=1), store)
    first = {bot_id: token for bot_id, (_, token) in fake.bots.items()}
    assert fake.rotations == []  # just registered: their tokens are new already
    await run(fake, season_config(blocks=2), store)
    # The resumed run kept the identities and asked the referee for a new token for each;
    # the fake's Play accepts only the current tokens, so the bots connected with the new ones.
    assert len(fake.registrations) == 4
    assert sorted(fake.rotations) == sorted(first)
    assert store.blocks.finished_blocks("test-season") == {0, 1}
    identities = store.bots.bot_identities("test-season").values()
    for identity in identities:
        assert identity.bot_id is not None
        token = fake.bots[identity.bot_id][1]
        assert token != first[identity.bot_id]
        assert identity.token_hash == token_hash(token)


async def test_a_referee_that_cannot_rotate_tokens_gets_the_bots_registered_again(
    fake: FakeReferee, store: LadderStore
) -> None:
    await run(fake, season_config(blocks=1), store)
    fake.rotate_implemented = False
    await run(fake, season_config(blocks=2), store)
    assert sorted(fake.registrations) == sorted(
        [f"{bot}@test-season" for bot in "abcd"] + [f"{bot}@test-season-2" for bot in "abcd"]
    )
    assert store.blocks.finished_blocks("test-season") == {0, 1}


async def test_an_interrupted_season_resumes_without_losing_or_doubling_blocks(
    fake: FakeReferee, tmp_path: Path
) -> None:
    fake.skill = {"a": 2, "b": 1, "c": 0, "d": -1, "e": -2, "f": 0}
    config = season_config((*FIVE, "f"), blocks=6, concurrency=2, deals=4)
    fake.deal_delay_s = 0.01

    with LadderStore.open(tmp_path / "straight.db") as straight:
        await run(fake, config, straight)
        expected = (
            straight.reads.ratings("test-season"),
            straight.reads.rating_history("test-season"),
            straight.reads.results("test-season"),
        )

    fresh = await _restart_fake(fake)
    fresh.skill, fresh.deal_delay_s = fake.skill, 0.01
    try:
        with LadderStore.open(tmp_path / "resumed.db") as store:
            task = asyncio.ensure_future(run(fresh, config, store))
            # cancel in the middle of a block: two blocks are in and more matches are running
            await fresh.wait_until(lambda: finished_count(store) >= 2 and fresh.running >= 1)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            done_before = store.blocks.finished_blocks("test-season")
            assert 2 <= len(done_before) < 6
            await fresh.wait_until(lambda: fresh.session_count() == 0)  # bots stopped on cancel
            started_before = len(fresh.requests)

            await run(fresh, config, store)
            assert store.blocks.finished_blocks("test-season") == set(range(6))
            # the finished blocks were not played again; the interrupted ones were, from the start
            assert len(fresh.requests) - started_before == 4 * (6 - len(done_before))
            assert (
                store.reads.ratings("test-season"),
                store.reads.rating_history("test-season"),
                store.reads.results("test-season"),
            ) == expected
            assert len(store.reads.matches("test-season")) == 24
            # the resumed run reused the bot registrations
            assert len(fresh.registrations) == 6
    finally:
        await fresh.stop()


def finished_count(store: LadderStore) -> int:
    return len(store.blocks.finished_blocks("test-season")) if store.seasons.season_names() else 0


async def _restart_fake(old: FakeReferee) -> FakeReferee:
    await old.stop()
    return await start_fake_referee()


async def test_a_referee_that_forgot_the_bots_gets_them_registered_again(
    fake: FakeReferee, tmp_path: Path
) -> None:
    with LadderStore.open(tmp_path / "ladder.db") as store:
        await run(fake, season_config(blocks=1), store)
        first_ids = {i.bot_id for i in store.bots.bot_identities("test-season").values()}
        fresh = await _restart_fake(fake)
        fresh.add_bot("a@test-season")  # someone else holds that name: take a suffix
        try:
            await run(fresh, season_config(blocks=2), store)
        finally:
            await fresh.stop()
        identities = store.bots.bot_identities("test-season")
        assert identities["a"].referee_name == "a@test-season-2"
        assert identities["b"].referee_name == "b@test-season"
        assert first_ids.isdisjoint({i.bot_id for i in identities.values()})
        assert store.blocks.finished_blocks("test-season") == {0, 1}


async def test_without_list_bots_stored_identities_are_trusted(
    fake: FakeReferee, store: LadderStore
) -> None:
    fake.list_bots_implemented = False
    await run(fake, season_config(blocks=1), store)
    await run(fake, season_config(blocks=2), store)
    assert len(fake.registrations) == 4


async def test_a_bot_that_never_connects_is_named_after_the_timeout(
    fake: FakeReferee, store: LadderStore
) -> None:
    config = season_config(bot_args={"c": "--no-connect"}, connect_timeout_ms=1500)
    with pytest.raises(
        BotStartError,
        match=r"did not connect within 1500 ms: 'c' has 0 of 2 sessions \(log: .*c.log\)",
    ):
        await run(fake, config, store)
    await fake.wait_until(lambda: fake.session_count() == 0)
    assert fake.requests == []


async def test_a_bot_that_exits_early_is_named_with_its_log(
    fake: FakeReferee, store: LadderStore
) -> None:
    config = season_config(bot_args={"b": "--exit-code 7"})
    with pytest.raises(
        BotStartError, match=r"(?s)bot 'b' exited with code 7 before connecting.*failing on purpose"
    ):
        await run(fake, config, store)


async def test_a_bot_that_dies_during_the_season_stops_it_keeping_finished_blocks(
    fake: FakeReferee, store: LadderStore
) -> None:
    fake.deal_delay_s = 0.05
    config = season_config(blocks=20, bot_args={"d": "--exit-after 2.0"}, concurrency=4)
    with pytest.raises(
        BotStartError, match=r"(?s)bot 'd' exited with code 3 during the season.*exiting on purpose"
    ):
        await run(fake, config, store)
    finished = store.blocks.finished_blocks("test-season")
    assert len(finished) < 20
    assert len(store.reads.matches("test-season")) == 4 * len(finished)
    await fake.wait_until(lambda: fake.session_count() == 0)


async def test_a_command_that_does_not_exist_is_a_clear_error(
    fake: FakeReferee, store: LadderStore
) -> None:
    config = season_config()
    config = replace(config, bots=(CommandBot("a", ("no-such-program-xyz",), 2), *config.bots[1:]))
    with pytest.raises(BotStartError, match="bot 'a': cannot start 'no-such-program-xyz'"):
        await run(fake, config, store)
    await fake.wait_until(lambda: fake.session_count() == 0)


async def test_an_aborted_match_fails_its_block_and_keeps_the_others(
    fake: FakeReferee, store: LadderStore
) -> None:
    config = season_config(blocks=3, concurrency=1)
    # A match of the third block: the first two are in flight at once and either may take the
    # first match slot, but a run claims the third only once it has recorded one of them.
    store.seasons.ensure_season(config, RatingModel(config.rating).initial())
    seed = store.commitments.season_deal_seed(config.name)
    plans = plan_season([bot.name for bot in config.bots], config.players, config.blocks, seed)
    aborted = plans[2].matches[1]
    fake.abort_matches = {(aborted.seed, aborted.bots)}
    with pytest.raises(
        BlockFailedError, match=r"match match-\d+ of block 2 rotation 1 .* ended 'aborted'"
    ):
        await run(fake, config, store)
    kept = store.blocks.finished_blocks("test-season")
    assert kept  # the block recorded before the third was claimed
    assert kept <= {0, 1}
    fake.abort_matches = set()
    calls = len(fake.requests)
    await run(fake, config, store)
    assert store.blocks.finished_blocks("test-season") == {0, 1, 2}
    # The blocks kept are not played again: only the others' matches are.
    assert len(fake.requests) - calls == sum(len(plans[i].matches) for i in {0, 1, 2} - kept)


async def test_forfeits_and_penalties_reach_the_results(
    fake: FakeReferee, store: LadderStore
) -> None:
    fake.skill = {"a": 5}
    fake.forfeits = {"a"}
    fake.penalties = {"b": ["timeout", "illegal"], "c": ["malformed"]}
    await run(fake, season_config(blocks=1), store)
    results = {r.bot: r for _, r in store.reads.results("test-season")}
    assert results["a"].forfeited
    assert results["a"].rank == 4
    assert results["a"].chips > 0
    assert (results["b"].timeouts, results["b"].illegal, results["b"].strikes) == (4, 4, 8)
    assert (results["c"].timeouts, results["c"].illegal, results["c"].strikes) == (0, 4, 4)


async def test_external_bots_are_seated_by_bot_id(fake: FakeReferee, store: LadderStore) -> None:
    bot_id, _ = fake.add_bot("mine")
    fake.add_session(bot_id)
    config = season_config(blocks=1)
    config = replace(config, bots=(*config.bots[:3], ExternalBot("mine", bot_id)))
    await run(fake, config, store)
    assert all(bot_id in request.bot_ids for request in fake.requests)
    assert "mine" not in "".join(fake.registrations)


async def test_an_unknown_external_bot_id_is_refused(fake: FakeReferee, store: LadderStore) -> None:
    config = season_config()
    config = replace(config, bots=(*config.bots[:3], ExternalBot("ghost", "bot-404")))
    with pytest.raises(BotStartError, match="bot 'ghost': bot_id 'bot-404' is not registered"):
        await run(fake, config, store)


async def test_a_wrong_admin_token_is_a_clear_error(fake: FakeReferee, store: LadderStore) -> None:
    with pytest.raises(RefereeError, match="refused the admin token"):
        await run(fake, season_config(), store, token="wrong")


async def test_an_unreachable_referee_is_a_clear_error(store: LadderStore) -> None:
    config = season_config()
    with pytest.raises(RefereeError, match=r"unavailable at 127\.0\.0\.1:1"):
        await run_season(config, "127.0.0.1:1", ADMIN_TOKEN, store)


async def test_bot_processes_are_killed_when_they_ignore_sigterm(tmp_path: Path) -> None:
    bot = await start_bot(
        "stubborn",
        [
            "python",
            "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('RE' + 'ADY', flush=True); time.sleep(60)",
        ],
        server="x:1",
        token="t",
        tables=1,
        log_path=tmp_path / "stubborn.log",
    )
    for _ in range(200):
        if "READY" in (tmp_path / "stubborn.log").read_text():
            break
        await asyncio.sleep(0.02)
    await stop_bots([bot], grace_s=0.3)
    assert bot.process.returncode == -signal.SIGKILL
    with pytest.raises(ProcessLookupError):
        os.kill(bot.process.pid, 0)


async def test_a_season_that_fails_at_its_start_is_stored_as_failed_with_the_reason(
    fake: FakeReferee, store: LadderStore
) -> None:
    with pytest.raises(BotStartError):
        await run(fake, season_config(bot_args={"b": "--exit-code 7"}), store)
    failed = store.seasons.season("test-season")
    assert (failed.blocks_finished, failed.status) == (0, SeasonStatus.FAILED)
    assert "bot 'b' exited with code 7 before connecting" in failed.status_detail
    await run(fake, season_config(), store)  # fixed (a bot's command may change): resumed
    finished = store.seasons.season("test-season")
    assert (finished.status, finished.status_detail) == (SeasonStatus.FINISHED, "")


async def test_a_cancelled_season_is_stored_as_interrupted(
    fake: FakeReferee, store: LadderStore
) -> None:
    fake.deal_delay_s = 0.05
    task = asyncio.create_task(run(fake, season_config(blocks=20), store))
    await fake.wait_until(lambda: len(fake.requests) > 0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert store.seasons.season("test-season").status == SeasonStatus.INTERRUPTED


async def _bot_exiting_after(tmp_path: Path, seconds: float) -> BotProcess:
    # In a session of its own, as brandeln.ladder.bots.processes starts a bot: stop_bots signals its
    # group.
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        f"import time; time.sleep({seconds}); raise SystemExit(3)",
        start_new_session=True,
    )
    return BotProcess("d", process, tmp_path / "d.log")


async def test_a_match_failing_as_its_bot_dies_reports_the_death_not_the_match(
    tmp_path: Path,
) -> None:
    # The referee fails the match ("no session") before the bot's exit is reaped: the exit,
    # the cause, is what the season reports (seen as a flaky season test under load).
    bot = await _bot_exiting_after(tmp_path, 0.3)

    async def match_failing_at_once() -> None:
        raise MatchUnavailableError("match of block 9: bot bot-d has no session")

    with pytest.raises(BotStartError, match="bot 'd' exited with code 3 during the season"):
        await while_bots_run(match_failing_at_once(), [bot])


@pytest.mark.parametrize(
    ("error", "seconds"),
    [
        (MatchUnavailableError("match of block 9: the referee is gone"), 30.0),
        (BlockFailedError("match of block 9: the referee is gone"), 0.5),
    ],
)
async def test_a_match_failing_while_its_bots_live_reports_the_match(
    tmp_path: Path, error: BlockFailedError, seconds: float
) -> None:
    # Unavailable: the bots get their grace and live on. Any other failure is no bot's death:
    # it is reported at once, before the bot exits.
    bot = await _bot_exiting_after(tmp_path, seconds)

    async def match_failing_at_once() -> None:
        raise error

    try:
        with pytest.raises(BlockFailedError, match="the referee is gone"):
            await while_bots_run(match_failing_at_once(), [bot])
    finally:
        await stop_bots([bot])


class _BlockZeroLast:
    """Plays two blocks at once and finishes block 0 only after block 1 is recorded."""

    workers = 2

    def __init__(self, block_one_recorded: asyncio.Event) -> None:
        self.block_one_recorded = block_one_recorded

    async def play_block(self, plan: BlockPlan, on_deal: Callable[[], None]) -> list[MatchOutcome]:
        if plan.index == 0:
            await self.block_one_recorded.wait()
        return [
            MatchOutcome(
                plan=match,
                match_id=f"b{plan.index}r{match.rotation}",
                balances=(3, 1, -1, -3),
                forfeited=frozenset(),
                deals_played=4,
            )
            for match in plan.matches
        ]


async def test_the_pointer_names_the_highest_block_not_the_one_recorded_last(
    store: LadderStore,
) -> None:
    # With several blocks in flight the order they end in is a race; the match the summary
    # points at must not depend on it (a fresh-clone run once printed block 0's).
    config = season_config(blocks=2)
    block_one_recorded = asyncio.Event()

    def progress(_: SeasonProgress) -> None:
        # Reported on the loop after each recorded block.
        if 1 in store.blocks.finished_blocks(config.name):
            block_one_recorded.set()

    @asynccontextmanager
    async def open_player() -> AsyncIterator[BlockPlayer]:
        yield _BlockZeroLast(block_one_recorded)

    summary = await run_blocks(config, store, open_player, progress=progress)

    assert store.blocks.finished_blocks(config.name) == {0, 1}
    assert summary.last_match_id == "b1r3"
