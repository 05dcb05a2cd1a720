"""`brandeln season verify` on a real always-on ladder: the real `brandeln ladder serve`, its
own referee over gRPC, real bot processes, seed periods of two blocks, on SQLite.

The ladder plays until its first period is complete (its seed revealed); then a version that
never answers joins and its first block holds the ladder mid-period, so the ladder is stopped
by SIGTERM with a period open for certain (the block in flight is given back, unrecorded: its
period's seed stays secret). Verify checks the revealed period against the real logs, notes the
open one and says INCOMPLETE; on copies of the data folder, a card changed in a log of the
revealed period and a block seed changed in it each fail verification, exit 1, naming it.
Every wait is for a state with a hang guard (tests/ladder/ladder_process.py), never a sleep.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from brandeln.cli.main import app
from brandeln.ladder.living.periods import SeedPeriod
from brandeln.ladder.season.commitment import deal_seed, matches_commitment
from brandeln.ladder.season.duplicate import block_seed
from brandeln.ladder.store.database import LadderStore
from tests.conftest import MINIMAL_BOT, BotProcesses
from tests.ladder.ladder_process import data_args, ladder_process, ladder_serve_args, wait_until
from tests.pg_server import free_port

runner = CliRunner()
LADDER = "ladder"  # the default name
PERIOD_BLOCKS = 2


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _version(data: Path, bot: str) -> str:
    """``bots version add`` through the CLI; the version's token."""
    out = _cli("bots", "version", "add", bot, "1", *data_args(data, None), "--json")
    return str(json.loads(out.splitlines()[-1])["token"])


def _verify(data: Path, *more: str) -> Result:
    return runner.invoke(app, ["season", "verify", LADDER, "--data", str(data), *more])


def _periods(data: Path) -> list[SeedPeriod]:
    """The ladder's periods, oldest first."""
    with LadderStore.open(data / "ladder.db", create=False) as store:
        return list(reversed(store.commitments.seed_periods(LADDER)))


def _sql(db: Path, statement: str, *args: object) -> list[Any]:
    with sqlite3.connect(db) as connection:
        rows = connection.execute(statement, args).fetchall()
    connection.close()
    return rows


@pytest.fixture
def stopped_ladder(tmp_path: Path, bot_processes: BotProcesses) -> Path:
    """The data folder of a ladder stopped by SIGTERM with period 0 revealed and a later
    period open (a block of the silent version given back)."""
    data = tmp_path / "data"
    port = free_port()
    address = f"127.0.0.1:{port}"
    # The silent version's first wait (two minutes a move) holds its block in flight until the
    # ladder is stopped.
    more = ["--period-blocks", str(PERIOD_BLOCKS)]
    serve_args = ladder_serve_args(data, None, port, move_ms=120000, more=more)
    with ladder_process(serve_args) as ladder, LadderStore.open(data / "ladder.db") as store:
        for family in "abcd":
            token = _version(data, family)
            bot_processes.start(
                ["-m", "brandeln.sample_bots", "random", "--server", address, "--token", token],
                name=family,
            )
        wait_until(
            "period 0 revealed",
            lambda: any(
                p.period == 0 and p.complete for p in store.commitments.seed_periods(LADDER)
            ),
        )
        # A new version is placed first: its block is the next planned after the one in play.
        silent = _version(data, "f")
        bot_processes.start([MINIMAL_BOT, address, silent, "silent"], name="silent")
        wait_until(
            "a block of f@1 in play",
            lambda: any(
                "f@1" in block.bots for block in store.planned.recent_blocks(LADDER, limit=5)
            ),
        )
        assert ladder.stop() == 0
        assert "stopped after" in ladder.output()
    return data


def test_a_stopped_ladder_verifies_its_revealed_period_against_real_logs_and_notes_the_open_one(
    stopped_ladder: Path, tmp_path: Path
) -> None:
    data = stopped_ladder
    periods = _periods(data)
    revealed = [p for p in periods if p.complete]
    secret = [p for p in periods if not p.complete]
    assert revealed[0].period == 0
    assert secret, periods  # the silent version's block was given back, unrecorded
    assert all(p.commitment.seed is None for p in secret)
    for period in revealed:
        seed = period.commitment.seed
        assert seed is not None
        assert matches_commitment(period.commitment.digest, seed, period.commitment.schedule)
    recorded = _sql(data / "ladder.db", "SELECT count(*) FROM blocks")[0][0]
    assert recorded >= PERIOD_BLOCKS

    result = _verify(data)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert (
        f"commitment: {len(periods)} period(s): {len(revealed)} revealed seed(s) match their "
        "commitments"
    ) in result.output
    in_secret = sum(p.recorded for p in secret)
    # The revealed periods' blocks are checked against their seeds; an open period's recorded
    # blocks (if any) only against their stored seeds.
    if in_secret:
        assert f"the revealed seeds give ({in_secret} of {recorded} blocks" in result.output
    else:
        assert "matches dealt as the seeds give" in result.output, result.output
    open_ones = ", ".join(str(p.period) for p in secret)
    assert (
        f"not verified yet: ladder {LADDER}: {recorded} blocks, {4 * recorded} matches, "
        f"{4 * recorded} deals checked; the seed of period {open_ones} is revealed once its "
        "blocks are all recorded"
    ) in result.output, result.output
    for stage in ("deals", "replays", "results", "ratings"):
        assert f"\n{stage}: " in result.output, result.output
    report = json.loads(_verify(data, "--json").output)
    assert (report["kind"], report["verdict"], report["difference"]) == (
        "ladder",
        "incomplete",
        None,
    )
    assert (report["blocks"], report["matches"], report["deals"]) == (
        recorded,
        4 * recorded,
        4 * recorded,
    )

    # A card changed in a log of the revealed period: the hand the revealed seed deals differs.
    cards = _copy(data, tmp_path / "cards")
    [(match_id, log_path)] = _sql(
        cards / "referee.db",
        "SELECT match_id, log_path FROM matches WHERE match_id = ?",
        _sql(
            cards / "ladder.db",
            "SELECT match_id FROM matches WHERE block_index = 1 AND rotation = 2",
        )[0][0],
    )
    _swap_a_card(Path(log_path))
    line = _failed(_verify(cards))
    assert f"ladder {LADDER} block 1 match {match_id} deal 1: hand of seat 0" in line, line
    assert "the seed deals" in line

    # A block seed of the revealed period changed: the revealed seed gives another.
    seeds = _copy(data, tmp_path / "seeds")
    [(seed,)] = _sql(seeds / "ladder.db", "SELECT seed FROM blocks WHERE block_index = 0")
    period_seed = revealed[0].commitment.seed
    assert period_seed is not None
    # Text: a block seed is up to 64 bits, past SQLite's integers.
    changed = int(seed) + 1
    _sql(seeds / "ladder.db", "UPDATE blocks SET seed = ? WHERE block_index = 0", str(changed))
    line = _failed(_verify(seeds))
    wanted = block_seed(deal_seed(period_seed), 0)
    assert line.endswith(
        f"ladder {LADDER} block 0: seed: stored {changed}, the seed gives {wanted}"
    )


def _copy(data: Path, to: Path) -> Path:
    """A copy of the data folder, its referee's index pointing at the copy's logs."""
    shutil.copytree(data, to)
    _sql(
        to / "referee.db",
        "UPDATE matches SET log_path = replace(log_path, ?, ?)",
        str(data),
        str(to),
    )
    return to


def _swap_a_card(log: Path) -> None:
    records = [json.loads(line) for line in log.read_text().splitlines()]
    deal = next(record for record in records if record["type"] == "deal")
    first, second = deal["hands"][0].split(), deal["hands"][1].split()
    first[0], second[0] = second[0], first[0]
    deal["hands"][0], deal["hands"][1] = " ".join(first), " ".join(second)
    log.write_text("".join(json.dumps(record) + "\n" for record in records))


def _failed(result: Result) -> str:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("error: ")]
    return line
