"""Seasons end to end: the real embedded referee, real sample-bot processes, the real CLI."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brandeln.arena.logreader import read_log
from brandeln.arena.replay import logged_deal
from brandeln.cli.main import app
from brandeln.engine.play_analysis import SeatPlay, analyse_play
from brandeln.engine.plurals import plural
from brandeln.ladder.bots.processes import find_bot_processes, find_orphans, stop_orphans
from brandeln.ladder.errors import StorageError
from brandeln.ladder.store.database import LadderStore, token_hash

runner = CliRunner()


def random_bots_season(name: str, *, blocks: int, deals: int, concurrency: int = 4) -> str:
    bots = "".join(
        f'[[bots]]\nname = "random-{n}"\n'
        f'command = ["python", "-m", "brandeln.cli", "bot", "run", "random", "--seed", "{n}"]\n'
        for n in range(1, 5)
    )
    return (
        f'name = "{name}"\nseed = 5\nblocks = {blocks}\ndeals_per_match = {deals}\n'
        f"concurrency = {concurrency}\nconnect_timeout_ms = 30000\n"
        "[time_control]\nmove_ms = 2000\nbank_ms = 20000\n" + bots
    )


def test_a_season_end_to_end_with_real_bot_processes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    file = tmp_path / "season.toml"
    file.write_text(random_bots_season("e2e", blocks=2, deals=4))

    result = runner.invoke(app, ["season", "run", str(file), "--data", str(data)])
    assert result.exit_code == 0, result.output
    assert "season e2e (standard): 2 of 2 blocks" in result.output

    with LadderStore.open(data / "ladder.db", create=False) as store:
        assert store.blocks.finished_blocks("e2e") == {0, 1}
        matches = store.reads.matches("e2e")
        assert len(matches) == 8
        assert len({m.match_id for m in matches}) == 8
        assert all(m.deals_played == 4 for m in matches)
        assert all(sum(m.balances) == 0 for m in matches)  # standard chips are zero-sum
        assert sum(row.blocks for row in store.reads.ratings("e2e")) == 8
        results = store.reads.results("e2e")
        # duplicate: a bot's block chips are the sum of its four matches
        for block in (0, 1):
            for bot in ("random-1", "random-2", "random-3", "random-4"):
                chips = sum(
                    m.balances[m.bots.index(bot)] for m in matches if m.block_index == block
                )
                assert next(r.chips for b, r in results if b == block and r.bot == bot) == chips
        # every rotation ran under a different suit permutation
        assert len({m.suit_permutation for m in matches if m.block_index == 0}) == 4
        last = matches[-1].match_id
        hashes = [i.token_hash for i in store.bots.bot_identities("e2e").values() if i.token_hash]
    # The whole output should it fail (pytest cuts it): a fresh-clone run once did, unseen.
    pointer = f"inspect a match:\n  brandeln matches show {last} --data {data}"
    assert pointer in result.output, result.output
    assert find_bot_processes(hashes) == []  # every bot process was stopped

    # the match the CLI points at can be inspected and replayed from the local files
    shown = runner.invoke(app, ["matches", "show", last, "--data", str(data)])
    assert shown.exit_code == 0, shown.output
    verified = runner.invoke(app, ["matches", "verify", last, "--data", str(data)])
    assert verified.exit_code == 0, verified.output
    assert "reproduced" in verified.output

    listed = runner.invoke(app, ["matches", "list", "--season", "e2e", "--data", str(data)])
    assert listed.exit_code == 0, listed.output
    assert f"brandeln matches show {last}" in listed.output
    as_json = runner.invoke(
        app,
        ["matches", "list", "--season", "e2e", "--json", "--bot", "random-2", "--data", str(data)],
    )
    assert {row["match_id"] for row in json.loads(as_json.output)} == {m.match_id for m in matches}
    unknown = runner.invoke(app, ["matches", "list", "--season", "nope", "--data", str(data)])
    assert unknown.exit_code == 1
    assert "nope" in unknown.output

    board = json.loads(runner.invoke(app, ["ratings", "--data", str(data), "--json"]).output)
    assert board["season"] == "e2e"
    assert [row["blocks"] for row in board["leaderboard"]] == [2, 2, 2, 2]

    # The card play judged double dummy from every log, bot by bot (as soloist, as defender).
    judged = runner.invoke(app, ["ratings", "--data", str(data), "--json", "--double-dummy"])
    assert judged.exit_code == 0, judged.output
    card_play = json.loads(judged.output)["double_dummy"]
    assert (card_play["deals"], card_play["unread"]) == (32, [])
    tallies = {bot: SeatPlay() for bot in ("random-1", "random-2", "random-3", "random-4")}
    for match in matches:
        log = next((data / "embedded" / "logs").rglob(f"{match.match_id}.jsonl"))
        match_log = read_log(log.read_text(), str(log))
        for deal in range(1, 5):
            for verdict in analyse_play(*logged_deal(match_log, deal)).verdicts:
                tallies[match.bots[verdict.seat]].add(verdict)
    assert {row["bot"]: row for row in card_play["bots"]} == {
        bot: {
            "bot": bot,
            "soloist_cards": tally.soloist_mattered,
            "soloist_slips": tally.soloist_errors,
            "defender_cards": tally.defender_mattered,
            "defender_slips": tally.defender_errors,
        }
        for bot, tally in tallies.items()
    }
    table = CliRunner(env={"COLUMNS": "80"}).invoke(
        app, ["ratings", "--data", str(data), "--double-dummy"]
    )
    assert table.exit_code == 0, table.output
    assert "card play, double dummy (32 deals, every hand known)" in table.output
    assert max(len(line) for line in table.output.splitlines()) <= 80


# `python -m brandeln.cli` with SIGINT turned into KeyboardInterrupt, as at a terminal. A suite
# started in the background by a non-interactive shell (`make test &`) ignores SIGINT, its
# children inherit that, and Python then leaves it ignored: the Ctrl-C a test sends would be
# lost and the season play to its end.
AS_AT_A_TERMINAL = (
    sys.executable,
    "-c",
    "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('brandeln.cli', run_name='__main__', alter_sys=True)",
)


def blocks_recorded(db: Path, season: str) -> int:
    try:
        with LadderStore.open(db, create=False) as store:
            return (
                len(store.blocks.finished_blocks(season))
                if season in store.seasons.season_names()
                else 0
            )
    except StorageError:
        return 0


def test_resume_after_the_runner_is_killed_with_sigkill_mid_block(tmp_path: Path) -> None:
    blocks = 6
    data = tmp_path / "data"
    file = tmp_path / "season.toml"
    # 16 deals a match: the five blocks after the first take seconds, the kill milliseconds.
    file.write_text(random_bots_season("killed", blocks=blocks, deals=16, concurrency=2))
    first_log = tmp_path / "first-run.log"
    with first_log.open("w") as log:
        first = subprocess.Popen(
            [sys.executable, "-m", "brandeln.cli", "season", "run", str(file), "--data", str(data)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 90
            while blocks_recorded(data / "ladder.db", "killed") < 1:
                assert first.poll() is None, first_log.read_text()
                assert time.monotonic() < deadline, "no block finished in time"
                time.sleep(0.02)
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=10)
        finally:
            if first.poll() is None:
                first.kill()

    with LadderStore.open(data / "ladder.db", create=False) as store:
        done = store.blocks.finished_blocks("killed")
        hashes = [
            i.token_hash for i in store.bots.bot_identities("killed").values() if i.token_hash
        ]
    assert 1 <= len(done) < blocks, f"the kill must land mid-season; done: {sorted(done)}"
    # SIGKILL gave the runner no chance to stop its bots; they keep trying to reconnect (for
    # 30 s in the sample bots' SDK), and the next run must stop them before starting anew.
    assert find_orphans(hashes)
    try:
        result = runner.invoke(app, ["season", "run", str(file), "--data", str(data)])
        assert result.exit_code == 0, result.output
        played = blocks - len(done)
        assert (
            f"{plural(played, 'block')} played now ({blocks} of {blocks} in all)" in result.output
        )
        assert find_bot_processes(hashes) == []
    finally:
        asyncio.run(stop_orphans(hashes, grace_s=1.0))

    with LadderStore.open(data / "ladder.db", create=False) as store:
        assert store.blocks.finished_blocks("killed") == set(range(blocks))
        matches = store.reads.matches("killed")
        assert len({m.match_id for m in matches}) == len(matches) == 4 * blocks
        assert [(m.block_index, m.rotation) for m in matches] == [
            (block, rotation) for block in range(blocks) for rotation in range(4)
        ]
        assert len(store.reads.results("killed")) == 4 * blocks
        assert sum(row.blocks for row in store.reads.ratings("killed")) == 4 * blocks
        assert len(store.reads.rating_history("killed")) == 4 * blocks


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="orphans are found through /proc")
def test_orphans_are_found_by_their_token_and_stopped(tmp_path: Path) -> None:
    sleeper = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env={**os.environ, "BRANDELN_TOKEN": "secret-orphan-token"},
        start_new_session=True,
    )
    other = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env={**os.environ, "BRANDELN_TOKEN": "someone-else"},
    )
    try:
        # The ladder keeps only the hash of a token it handed out.
        orphan = [token_hash("secret-orphan-token")]
        assert find_orphans(["secret-orphan-token"]) == []
        assert find_orphans(orphan) == [sleeper.pid]
        assert asyncio.run(stop_orphans(orphan, grace_s=2.0)) == [sleeper.pid]
        assert sleeper.wait(timeout=5) == -signal.SIGTERM
        assert other.poll() is None  # an unrelated process is left alone
        assert find_orphans([]) == []
    finally:
        for process in (sleeper, other):
            if process.poll() is None:
                process.kill()
                process.wait()


def test_ctrl_c_stops_the_bots_and_keeps_the_finished_blocks(tmp_path: Path) -> None:
    data = tmp_path / "data"
    file = tmp_path / "season.toml"
    file.write_text(random_bots_season("interrupted", blocks=4, deals=40, concurrency=2))
    first = subprocess.Popen(
        [*AS_AT_A_TERMINAL, "season", "run", str(file), "--data", str(data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 90
        while blocks_recorded(data / "ladder.db", "interrupted") < 1:
            assert first.poll() is None
            assert time.monotonic() < deadline, "no block finished in time"
            time.sleep(0.05)
        first.send_signal(signal.SIGINT)  # what Ctrl-C sends to the runner's process group
        output, _ = first.communicate(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
    with LadderStore.open(data / "ladder.db", create=False) as store:
        done = store.blocks.finished_blocks("interrupted")
        hashes = [
            i.token_hash for i in store.bots.bot_identities("interrupted").values() if i.token_hash
        ]
    assert first.returncode == 130, output
    assert f"interrupted: {len(done)} of 4 blocks recorded" in output
    assert "Traceback" not in output
    assert len(hashes) == 4
    assert find_bot_processes(hashes) == []  # the runner stopped its bots before exiting


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="orphans are found through /proc")
def test_a_bot_whose_starter_still_runs_is_no_orphan() -> None:
    # Two runners of one season on one host: the second must not stop the first one's bots,
    # which carry a token hash it also knows. A bot whose starter is gone is an orphan.
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    env = {**os.environ, "BRANDELN_TOKEN": "shared-season-token"}
    owned = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env={**env, "BRANDELN_STARTED_BY": str(parent.pid)},
    )
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    left = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env={**env, "BRANDELN_STARTED_BY": str(gone.pid)},
    )
    try:
        assert find_orphans([token_hash("shared-season-token")]) == [left.pid]
    finally:
        for process in (parent, owned, left):
            process.kill()
            process.wait()
