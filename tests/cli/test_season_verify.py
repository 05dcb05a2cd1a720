"""`brandeln season verify`: a real season (the embedded referee, four minimal bot processes,
a secret seed) played once for the module, then verified untouched and after each kind of
tampering, each on a copy of its data folder: a card in a match log, a rank in a log's footer,
a stored match row, a stored block result, a stored rating, a block's seed. Each tampered copy
fails verification, exit 1, naming what differs; the untouched one is verified.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from brandeln.cli.main import app
from brandeln.ladder.season.commitment import SeedState, matches_commitment
from brandeln.ladder.store.database import LadderStore
from tests.conftest import MINIMAL_BOT

runner = CliRunner()
SEASON = "audited"
BEHAVIOURS = ("first", "last", "first", "last")


def _season_file(path: Path) -> Path:
    bots = "".join(
        f'[[bots]]\nname = "bot-{n}"\n'
        f'command = ["python", "{MINIMAL_BOT}", "{{server}}", "{{token}}", "{behaviour}", '
        f'"bot-{n}"]\n'
        for n, behaviour in enumerate(BEHAVIOURS)
    )
    # No seed: the runner draws a secret one, commits it first and reveals it at the end.
    path.write_text(
        f'name = "{SEASON}"\nblocks = 2\ndeals_per_match = 4\n'
        # One session per bot (minimal_bot.py opens one); bot processes start slowly under load.
        f"concurrency = 1\nconnect_timeout_ms = 120000\n{bots}"
    )
    return path


@dataclass(frozen=True)
class Played:
    data: Path
    output: str


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    root = tmp_path_factory.mktemp("verify")
    data = root / "data"
    result = runner.invoke(
        app, ["season", "run", str(_season_file(root / "season.toml")), "--data", str(data)]
    )
    assert result.exit_code == 0, result.output
    return Played(data, result.output)


@dataclass(frozen=True)
class Copy:
    """A copy of the played season's data folder, the referee's index pointing at its logs."""

    data: Path

    def sql(self, statement: str, *args: object, db: str = "ladder.db") -> None:
        with sqlite3.connect(self.data / db) as connection:
            connection.execute(statement, args)
        connection.close()

    def match_ids(self) -> list[str]:
        with sqlite3.connect(self.data / "ladder.db") as connection:
            rows = connection.execute(
                "SELECT match_id FROM matches ORDER BY block_index, rotation"
            ).fetchall()
        connection.close()
        return [row[0] for row in rows]

    def edit_log(self, match_id: str, change: Callable[[list[dict[str, Any]]], None]) -> None:
        log = self.data / "embedded" / "logs" / f"{match_id}.jsonl"
        records = [json.loads(line) for line in log.read_text().splitlines()]
        change(records)
        log.write_text("".join(json.dumps(record) + "\n" for record in records))


@pytest.fixture
def copy(played: Played, tmp_path: Path) -> Copy:
    data = tmp_path / "data"
    shutil.copytree(played.data, data)
    copied = Copy(data)
    copied.sql(  # the season's embedded referee keeps each log's path
        "UPDATE matches SET log_path = ? || '/' || match_id || '.jsonl'",
        str(data / "embedded" / "logs"),
        db="embedded/referee.db",
    )
    return copied


def verify(data: Path, *more: str) -> Result:
    return runner.invoke(app, ["season", "verify", SEASON, "--data", str(data), *more])


def test_the_commitment_is_printed_before_the_first_block_and_the_seed_revealed_after(
    played: Played,
) -> None:
    with LadderStore.open(played.data / "ladder.db", create=False) as store:
        commitment = store.commitments.season_commitment(SEASON)
    assert commitment is not None
    assert commitment.state is SeedState.REVEALED
    assert commitment.seed is not None
    assert matches_commitment(commitment.digest, commitment.seed, commitment.schedule)
    # Printed before anything was played, while the seed was still secret.
    note = "seed not revealed yet: revealed once the last block is recorded"
    announced = f"commitment ({note}):\n  {commitment.digest}\n"
    assert announced in played.output, played.output
    printed = played.output.index(announced)
    assert printed < played.output.index("season audited (standard): 2 of 2 blocks"), played.output
    listed = runner.invoke(app, ["season", "list", "--data", str(played.data), "--json"])
    assert listed.exit_code == 0, listed.output
    [shown] = json.loads(listed.output)
    assert shown["commitment"]["digest"] == commitment.digest
    assert shown["commitment"]["seed"] == commitment.seed
    assert shown["commitment"]["state"] == "revealed"


def test_an_untouched_season_is_verified_bit_for_bit(played: Played) -> None:
    result = verify(played.data)
    assert result.exit_code == 0, result.output
    assert "verified: season audited: 2 blocks, 8 matches, 32 deals" in result.output
    for stage in ("commitment", "deals", "replays", "results", "ratings"):
        assert re.search(rf"^{stage}: ", result.output, re.MULTILINE), result.output
    as_json = verify(played.data, "--json")
    assert as_json.exit_code == 0, as_json.output
    report = json.loads(as_json.output)
    assert (report["verdict"], report["deals"], report["difference"]) == ("verified", 32, None)


def _failed(result: Result) -> str:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("error: ")]
    return line


def test_a_card_changed_in_a_log_is_caught_naming_the_deal_and_the_hand(copy: Copy) -> None:
    match_id = copy.match_ids()[5]

    def swap_a_card(records: list[dict[str, Any]]) -> None:
        deal = next(record for record in records if record["type"] == "deal")
        first, second = deal["hands"][0].split(), deal["hands"][1].split()
        first[0], second[0] = second[0], first[0]
        deal["hands"][0], deal["hands"][1] = " ".join(first), " ".join(second)

    copy.edit_log(match_id, swap_a_card)
    line = _failed(verify(copy.data))
    assert f"season audited block 1 match {match_id} deal 1: hand of seat 0" in line
    assert "the seed deals" in line


def test_a_rank_changed_in_a_logs_footer_is_caught(copy: Copy) -> None:
    match_id = copy.match_ids()[2]

    def promote(records: list[dict[str, Any]]) -> None:
        footer = records[-1]
        assert footer["type"] == "footer"
        footer["ranks"] = [1, *footer["ranks"][1:]] if footer["ranks"][0] != 1 else [2, 1, 1, 1]

    copy.edit_log(match_id, promote)
    line = _failed(verify(copy.data))
    assert f"block 0 match {match_id}" in line
    assert "rank" in line


def test_a_stored_match_row_is_caught_naming_the_field(copy: Copy) -> None:
    match_id = copy.match_ids()[3]
    copy.sql("UPDATE matches SET balances_json = '[1, 2, 3, -6]' WHERE match_id = ?", match_id)
    line = _failed(verify(copy.data))
    assert f"block 0 match {match_id}: balances: stored [1, 2, 3, -6], the log gives" in line


def test_a_stored_block_result_is_caught_naming_the_bot_and_the_field(copy: Copy) -> None:
    copy.sql("UPDATE results SET chips = chips + 1 WHERE block_index = 1 AND bot = 'bot-2'")
    line = _failed(verify(copy.data))
    assert "block 1 result of 'bot-2': chips: stored" in line
    assert "the logs give" in line


def test_a_stored_rating_is_caught_to_the_last_bit(copy: Copy) -> None:
    with sqlite3.connect(copy.data / "ladder.db") as connection:
        [(mu,)] = connection.execute("SELECT mu FROM ratings WHERE bot = 'bot-1'").fetchall()
    connection.close()
    copy.sql("UPDATE ratings SET mu = ? WHERE bot = 'bot-1'", float.fromhex(mu.hex()) * (1 + 2e-16))
    line = _failed(verify(copy.data))
    assert "bot 'bot-1': rating: stored mu" in line
    assert "the results give mu" in line


def test_a_blocks_seed_changed_is_caught(copy: Copy) -> None:
    with sqlite3.connect(copy.data / "ladder.db") as connection:
        [(seed,)] = connection.execute("SELECT seed FROM blocks WHERE block_index = 1").fetchall()
    connection.close()
    # Text: a block seed is up to 64 bits, past SQLite's integers.
    copy.sql("UPDATE blocks SET seed = ? WHERE block_index = 1", str(int(seed) + 1))
    line = _failed(verify(copy.data))
    assert "block 1: seed: stored" in line
    assert "the seed gives" in line


def test_a_changed_revealed_seed_fails_its_commitment(copy: Copy) -> None:
    copy.sql("UPDATE seasons SET secret_seed = ? WHERE name = ?", "0" * 64, SEASON)
    line = _failed(verify(copy.data))
    assert "commitment" in line
    assert "is not the SHA-256 of the revealed seed" in line


def test_a_season_still_being_played_is_not_revealed_and_not_verified(copy: Copy) -> None:
    # As the season looks while its third block is being played: the seed is still secret.
    copy.sql(
        "UPDATE seasons SET seed_revealed_at = NULL, blocks_planned = 3, status = 'running' "
        "WHERE name = ?",
        SEASON,
    )
    with LadderStore.open(copy.data / "ladder.db", create=False) as store:
        commitment = store.commitments.season_commitment(SEASON)
    assert commitment is not None
    assert (commitment.state, commitment.seed) == (SeedState.SECRET, None)
    result = verify(copy.data)
    assert result.exit_code == 1, result.output
    assert "verified:" not in result.output
    assert "commitment: " in result.output
    assert "the seed is not revealed yet" in result.output
    assert "not verified yet: season audited" in result.output
    report = json.loads(verify(copy.data, "--json").output)
    assert report["verdict"] == "incomplete"
    assert report["difference"] is None
    listed = runner.invoke(app, ["season", "list", "--data", str(copy.data), "--json"])
    assert json.loads(listed.output)[0]["commitment"]["seed"] is None


def test_verify_of_an_unknown_season_or_a_missing_database_is_one_line(
    played: Played, tmp_path: Path
) -> None:
    unknown = runner.invoke(app, ["season", "verify", "nope", "--data", str(played.data)])
    assert unknown.exit_code == 1
    assert "Traceback" not in unknown.output
    assert "nope" in unknown.output
    missing = runner.invoke(app, ["season", "verify", SEASON, "--data", str(tmp_path / "none")])
    assert missing.exit_code != 0
    assert "Traceback" not in missing.output
