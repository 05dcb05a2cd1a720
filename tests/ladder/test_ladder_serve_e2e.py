"""`brandeln ladder serve` end to end: the real command, its own referee over gRPC, real bot
processes, versions and challenges from the real CLI, on SQLite and on PostgreSQL.

One ladder's life per backend, in the order an operator lives it: versions connect and the
ladder plays unattended; a challenge jumps the queue; a new version is placed first; the
ladder is SIGKILLed mid-block and started again, and the block in flight is played once, with
nothing recorded before lost. Every wait is for a state, with a hang guard far above a healthy
run (tests/ladder/ladder_process.py): no verdict depends on the machine's speed.
"""

from __future__ import annotations

import json
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families
from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.ladder.living.matchmaking import PLACEMENT_BLOCKS
from brandeln.ladder.store.database import LadderStore
from brandeln.ladder.store.schema import ChallengeState, ClaimState
from tests.conftest import BotProcesses
from tests.ladder.ladder_process import data_args, ladder_process, ladder_serve_args, wait_until
from tests.pg_server import free_port

runner = CliRunner()
LADDER = "ladder"  # the default name
MINIMAL_BOT = str(Path(__file__).resolve().parent.parent / "arena" / "minimal_bot.py")


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _version(data: Path, db: str | None, bot: str, version: str = "1") -> str:
    """``bots version add`` through the CLI; the version's token."""
    out = _cli("bots", "version", "add", bot, version, *data_args(data, db), "--json")
    return str(json.loads(out.splitlines()[-1])["token"])


def _store(data: Path, db: str) -> LadderStore:
    return LadderStore.open(db, create=False)


def _scrape(output: str) -> dict[tuple[str, tuple[str, ...]], float]:
    """The samples at the metrics address the ladder printed, by name and label pair."""
    url = next(  # its line is a JSON record: the ladder serves with --log-json
        entry["message"].split("metrics on ", 1)[1].split()[0]
        for entry in _events(output)
        if entry["message"].startswith("metrics on ")
    )
    with urllib.request.urlopen(url, timeout=60) as reply:
        text = reply.read().decode()
    return {
        (sample.name, tuple(item for pair in sorted(sample.labels.items()) for item in pair)): (
            sample.value
        )
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _events(output: str) -> list[dict[str, Any]]:
    """The JSON log lines of the ladder's output (with --log-json, all of them)."""
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def _blocks_of(store: LadderStore, version: str) -> int:
    return next(v.blocks for v in store.ladders.versions(LADDER) if v.name == version)


def test_a_ladder_plays_unattended_places_versions_serves_challenges_and_survives_sigkill(
    tmp_path: Path, db_url: str, bot_processes: BotProcesses
) -> None:
    data = tmp_path / "data"
    ladder_db = db_url  # an SQLite file or a PostgreSQL database, for the ladder and versions
    port = free_port()
    address = f"127.0.0.1:{port}"
    more = ["--metrics-port", "0", "--log-json", "--log-level", "info"]
    serve_args = ladder_serve_args(data, ladder_db, port, move_ms=20000, more=more)

    def sample_bot(token: str, name: str) -> None:
        bot_processes.start(
            ["-m", "brandeln.sample_bots", "random", "--server", address, "--token", token],
            name=name,
        )

    with ladder_process(serve_args) as ladder, _store(data, ladder_db) as store:
        # Four versions connect; nobody types a season command, and blocks are played.
        for family in "abcd":
            sample_bot(_version(data, ladder_db, family), family)
        wait_until(
            "four versions past placement",
            lambda: all(v.blocks >= PLACEMENT_BLOCKS for v in store.ladders.versions(LADDER)),
        )

        # Its metrics (the ladder's and its own referee's) are scraped over HTTP and parse; its
        # log is JSON lines, one per event, with the block's bots and matches.
        scraped = _scrape(ladder.output())
        assert scraped["brandeln_ladder_blocks_total", ("rating", "rated")] >= PLACEMENT_BLOCKS
        assert scraped["brandeln_ladder_versions_connected", ()] == 4
        assert scraped["brandeln_referee_decisions_total", ("outcome", "ok")] > 0
        assert scraped["brandeln_referee_bots_connected", ()] == 4
        assert scraped["brandeln_ladder_block_seconds_count", ()] == sum(
            value
            for (name, labels), value in scraped.items()
            if name == "brandeln_ladder_blocks_total"
        )
        recorded = [e for e in _events(ladder.output()) if e["event"] == "ladder_recorded"]
        assert recorded, ladder.output()
        assert len(recorded[0]["match_ids"]) == 4
        assert len(set(recorded[0]["bot_ids"])) == 4
        assert {"block", "bots", "rated", "ts", "level"} <= set(recorded[0])

        # A challenge jumps the queue: it is played as the next block planned, or the one
        # after if a block was being planned as it was queued. "As it was queued" is once the
        # command has returned: while it starts (seconds on a loaded machine) blocks go on.
        before = store.planned.recent_blocks(LADDER, limit=1)[0].index
        out = _cli("challenge", "a", "b", "--deals", "1", "--unrated", *data_args(data, ladder_db))
        assert "queued (unrated, 1 deal a match): a@1, b@1" in out
        queued_at = store.planned.recent_blocks(LADDER, limit=1)[0].index
        played = wait_until(
            "the challenge played",
            lambda: store.challenges.challenges(LADDER, ChallengeState.PLAYED),
        )
        assert played[0].block_index is not None
        assert before < played[0].block_index <= queued_at + 2
        assert {"a@1", "b@1"} <= set(
            store.planned.planned_block(LADDER, played[0].block_index).bots
        )

        # A new version is placed: its first PLACEMENT_BLOCKS blocks follow one another.
        sample_bot(_version(data, ladder_db, "e"), "e")
        wait_until("e@1 placed", lambda: _blocks_of(store, "e@1") >= PLACEMENT_BLOCKS)
        with_e = sorted(
            block.index
            for block in store.planned.recent_blocks(LADDER, limit=1000)
            if "e@1" in block.bots
        )
        first = with_e[:PLACEMENT_BLOCKS]
        assert first == list(range(first[0], first[0] + PLACEMENT_BLOCKS)), with_e

        # A version that never answers holds its first block mid-play: SIGKILL the ladder then.
        silent = _version(data, ladder_db, "f")
        bot_processes.start([MINIMAL_BOT, address, silent, "silent"], name="silent")
        stuck = wait_until(
            "a block of f@1 in play",
            lambda: next(
                (b.index for b in store.planned.recent_blocks(LADDER, limit=5) if "f@1" in b.bots),
                None,
            ),
        )
        assert store.blocks.claims(LADDER)[stuck][0] is ClaimState.CLAIMED
        assert stuck not in store.blocks.finished_blocks(LADDER)
        recorded_before = store.blocks.finished_blocks(LADDER)
        history_before = store.reads.rating_history(LADDER)
        ladder.kill()

    bot_processes.procs[-1].kill()  # the silent bot goes; so does its version
    _cli("bots", "version", "retire", "f@1", *data_args(data, ladder_db))
    with ladder_process(serve_args) as ladder, _store(data, ladder_db) as store:
        # The same block is played again, its empty seat given to a connected version.
        wait_until(
            "the stuck block recorded", lambda: stuck in store.blocks.finished_blocks(LADDER)
        )
        replayed = store.planned.planned_block(LADDER, stuck)
        assert "f@1" not in replayed.bots
        assert store.blocks.finished_blocks(LADDER) >= recorded_before | {stuck}
        assert store.reads.rating_history(LADDER)[: len(history_before)] == history_before
        per_block = Counter(match.block_index for match in store.reads.matches(LADDER))
        assert set(per_block.values()) == {4}  # each block's four rotations, once
        assert ladder.stop() == 0
        assert "stopped after" in ladder.output()
