"""`brandeln season run|list` and `brandeln ratings` through Typer's runner.

`season run` calls asyncio.run, so these tests are synchronous and the fake referee runs in its
own thread with its own event loop.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from brandeln.cli.main import app
from brandeln.ladder.store.database import LadderStore
from tests.ladder.fake_referee import ADMIN_TOKEN, FakeReferee, start_fake_referee
from tests.ladder.season_helpers import season_text

runner = CliRunner()


class ThreadedFake:
    """A fake referee serving from a background thread's event loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.fake: FakeReferee = self.call(start_fake_referee())

    def call(self, coroutine: Coroutine[object, object, FakeReferee]) -> FakeReferee:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=30)

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.fake.stop(), self.loop).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


@pytest.fixture
def threaded_fake() -> Iterator[FakeReferee]:
    server = ThreadedFake()
    try:
        yield server.fake
    finally:
        server.close()


def write(tmp_path: Path, text: str, name: str = "season.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def run_season_cli(
    threaded_fake: FakeReferee, data: Path, file: Path, monkeypatch: pytest.MonkeyPatch
) -> Result:
    monkeypatch.setenv("BRANDELN_ADMIN_TOKEN", ADMIN_TOKEN)
    return runner.invoke(
        app, ["season", "run", str(file), "--data", str(data), "--referee", threaded_fake.address]
    )


def test_season_run_plays_the_season_and_prints_the_leaderboard(
    threaded_fake: FakeReferee, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threaded_fake.skill = {"a": 4, "d": -4}
    data = tmp_path / "data"
    result = run_season_cli(threaded_fake, data, write(tmp_path, season_text()), monkeypatch)
    assert result.exit_code == 0, result.output
    output = result.output
    assert "season test-season (standard): 3 of 3 blocks" in output
    assert "μ-3σ" in output
    assert "inspect a match:\n  brandeln matches show match-" in output
    assert f"--referee {threaded_fake.address}" in output
    # It ends by saying how to watch the season in the browser.
    assert output.rstrip().endswith(
        f"watch the season in the browser:\n  brandeln web --data {data}\n"
        "  then open http://127.0.0.1:8000/seasons/test-season"
    )
    assert (data / "ladder.db").is_file()

    table = runner.invoke(app, ["ratings", "--data", str(data)])
    assert table.exit_code == 0, table.output
    lines = [line.split() for line in table.output.splitlines()]
    ranked = [line[1] for line in lines if line and line[0] in {"1", "2", "3", "4"}]
    assert ranked[0] == "a"
    assert ranked[-1] == "d"

    as_json = runner.invoke(
        app, ["ratings", "--data", str(data), "--json", "--season", "test-season"]
    )
    assert as_json.exit_code == 0, as_json.output
    document = json.loads(as_json.output)
    assert document["season"] == "test-season"
    assert document["blocks_finished"] == 3
    board = document["leaderboard"]
    assert board[0]["bot"] == "a"
    assert {row["blocks"] for row in board} == {3}
    first = board[0]
    assert first["conservative"] == pytest.approx(first["mu"] - 3 * first["sigma"])
    low, high = first["chips_per_deal_ci95"]
    assert low < first["chips_per_deal"] < high
    assert first["contracts_bid"] > 0
    assert {"timeouts", "illegal_actions", "contracts_made_percent"} <= set(first)

    listed = runner.invoke(app, ["season", "list", "--data", str(data)])
    assert listed.exit_code == 0
    assert "season test-season (standard): 3 of 3 blocks" in listed.output


def test_season_run_again_resumes_and_plays_nothing_new(
    threaded_fake: FakeReferee, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, file = tmp_path / "data", write(tmp_path, season_text(blocks=2))
    assert run_season_cli(threaded_fake, data, file, monkeypatch).exit_code == 0
    played = len(threaded_fake.requests)
    again = run_season_cli(threaded_fake, data, file, monkeypatch)
    assert again.exit_code == 0
    assert "0 blocks played now (2 of 2 in all)" in again.output
    assert len(threaded_fake.requests) == played


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('name = "x\n', "TOML syntax error"),
        (
            season_text().replace("blocks = 3", "blocks = 3\nblcoks = 4"),
            "blcoks: unknown key; did you mean 'blocks'?",
        ),
        (
            season_text().replace("blocks = 3", 'blocks = "three"'),
            "blocks: expected an integer, got a string",
        ),
        (season_text().replace('name = "test-season"', "name = 1"), "name: expected a string"),
    ],
)
def test_a_bad_season_file_is_a_clear_usage_error(tmp_path: Path, text: str, message: str) -> None:
    file = write(tmp_path, text)
    result = runner.invoke(app, ["season", "run", str(file), "--data", str(tmp_path / "d")])
    assert result.exit_code == 2
    assert message in result.output
    assert str(file) in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_missing_season_file_is_a_usage_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["season", "run", str(tmp_path / "nope.toml")])
    assert result.exit_code == 2
    assert "no such season file" in result.output


def test_referee_without_admin_token_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BRANDELN_ADMIN_TOKEN", raising=False)
    file = write(tmp_path, season_text())
    result = runner.invoke(app, ["season", "run", str(file), "--referee", "127.0.0.1:1"])
    assert result.exit_code == 2
    assert "--referee needs the admin token in $BRANDELN_ADMIN_TOKEN" in result.output


def test_a_wrong_admin_token_is_reported_without_a_traceback(
    threaded_fake: FakeReferee, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRANDELN_ADMIN_TOKEN", "wrong")
    file = write(tmp_path, season_text())
    result = runner.invoke(
        app,
        ["season", "run", str(file), "--data", str(tmp_path), "--referee", threaded_fake.address],
    )
    assert result.exit_code == 1
    assert "refused the admin token" in result.output
    assert "Traceback" not in result.output


def test_changed_settings_of_a_stored_season_are_refused(
    threaded_fake: FakeReferee, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    assert (
        run_season_cli(
            threaded_fake, data, write(tmp_path, season_text(blocks=1)), monkeypatch
        ).exit_code
        == 0
    )
    changed = write(tmp_path, season_text(blocks=1, seed=99), "changed.toml")
    result = run_season_cli(threaded_fake, data, changed, monkeypatch)
    assert result.exit_code == 1
    assert "season 'test-season' was started with different settings" in result.output
    assert "seed" in result.output


def test_ratings_of_an_unknown_season_names_the_known_ones(
    threaded_fake: FakeReferee, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    run_season_cli(threaded_fake, data, write(tmp_path, season_text(blocks=1)), monkeypatch)
    result = runner.invoke(app, ["ratings", "--data", str(data), "--season", "nope"])
    assert result.exit_code == 1
    assert "no season named 'nope'; seasons: test-season" in result.output
    assert "Traceback" not in result.output


def test_ratings_without_a_database_says_how_to_get_one(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ratings", "--data", str(tmp_path / "empty")])
    assert result.exit_code == 1
    assert "no ladder database at" in result.output
    assert "brandeln season run FILE" in result.output


def test_ratings_reads_the_data_folder_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRANDELN_DATA", str(tmp_path / "from-env"))
    result = runner.invoke(app, ["ratings"])
    assert result.exit_code == 1
    assert str(tmp_path / "from-env" / "ladder.db") in result.output.replace("\n", "")


def test_ratings_on_a_corrupt_database_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "ladder.db").write_bytes(b"garbage" * 500)
    result = runner.invoke(app, ["ratings", "--data", str(tmp_path)])
    assert result.exit_code == 1
    assert "not a usable ladder database" in result.output
    assert "Traceback" not in result.output


def test_ratings_with_no_season_yet(tmp_path: Path) -> None:
    LadderStore.open(tmp_path / "ladder.db").close()
    result = runner.invoke(app, ["ratings", "--data", str(tmp_path)])
    assert result.exit_code == 1
    assert "no seasons in" in result.output
    listed = runner.invoke(app, ["season", "list", "--data", str(tmp_path), "--json"])
    assert listed.exit_code == 0
    assert json.loads(listed.output) == []


def last_match_of(data: Path, season: str) -> str:
    """The id of the season's last match as recorded: its highest block's last rotation."""
    with LadderStore.open(data / "ladder.db", create=False) as store:
        matches = store.reads.matches(season)
    return max(matches, key=lambda m: (m.block_index, m.rotation)).match_id


LONG_NAMES = (
    "heuristic-2.demo-node",
    "montecarlo.round-robin-2026",
    "random",
    "a-rather-long-name-for-80-columns-of-text",
)


def test_a_season_at_80_columns_cuts_nothing_and_keeps_every_column(
    threaded_fake: FakeReferee, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threaded_fake.skill = {LONG_NAMES[0]: 3, LONG_NAMES[3]: -3}
    threaded_fake.forfeits = {LONG_NAMES[1]}
    threaded_fake.penalties = {LONG_NAMES[2]: ["timeout"]}
    monkeypatch.chdir(tmp_path)  # the hints' --data stays short
    monkeypatch.setenv("BRANDELN_ADMIN_TOKEN", ADMIN_TOKEN)
    write(tmp_path, season_text(LONG_NAMES, name="a-season-with-a-long-name", blocks=2))
    narrow = CliRunner(env={"COLUMNS": "80"})
    result = narrow.invoke(
        app,
        ["season", "run", "season.toml", "--data", "data", "--referee", threaded_fake.address],
    )
    assert result.exit_code == 0, result.output
    shown = [
        narrow.invoke(app, ["ratings", "--data", "data"]).output,
        narrow.invoke(app, ["season", "list", "--data", "data"]).output,
        narrow.invoke(
            app, ["matches", "list", "--season", "a-season-with-a-long-name", "--data", "data"]
        ).output,
    ]
    for output in [result.output, *shown]:
        assert "…" not in output
        too_wide = [line for line in output.splitlines() if len(line) > 80]
        assert not too_wide, too_wide
    # The leaderboard, the batch ratings, then each bot's decision time and strikes (fitting
    # 80 columns too).
    rated, decisions = shown[0].split("decisions (ms)")
    board, batch = rated.split("batch ratings")
    batch_ranks = [line.split()[0] for line in batch.splitlines()[2:] if line[:2].strip().isdigit()]
    assert batch_ranks == ["1", "2", "3", "4"]
    assert [line.split()[0] for line in decisions.splitlines()[2:6]] == ["1", "2", "3", "4"]
    header = next(line for line in board.splitlines() if "μ-3σ" in line)
    assert header.split()[:2] == ["#", "bot"]
    assert header.split()[-3:] == ["made", "t/o", "ill."]
    words = " ".join(board.split())
    ranks = [line.split()[0] for line in board.splitlines()[2:] if line[:2].strip().isdigit()]
    assert ranks == ["1", "2", "3", "4"]
    # A long name folds inside its cell (column 3 on): its pieces join up again, in order.
    cells = "".join(re.split(r"\s{2,}", line[3:].strip())[0] for line in board.splitlines())
    for name in LONG_NAMES:
        assert name in cells
    assert "(2 forfeited)" in words
    # The pointer names the last match of the highest block: which RunMatch call played it
    # depends on which of the two blocks in flight took the first match slots.
    last = last_match_of(tmp_path / "data", "a-season-with-a-long-name")
    assert f"matches show {last} --referee {threaded_fake.address}" in result.output
    assert "ratings --season a-season-with-a-long-name --data data" in result.output


def test_season_run_json_prints_the_final_table_alone_on_stdout(
    threaded_fake: FakeReferee, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRANDELN_ADMIN_TOKEN", ADMIN_TOKEN)
    file = write(tmp_path, season_text(blocks=1))
    result = runner.invoke(
        app,
        [
            *("season", "run", str(file), "--data", str(tmp_path / "d"), "--json"),
            *("--referee", threaded_fake.address),
        ],
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["season"] == "test-season"
    assert document["status"] == "finished"
    assert [row["rank"] for row in document["leaderboard"]] == [1, 2, 3, 4]
    assert document["run"]["blocks_played"] == 1
    assert document["run"]["last_match_id"] == last_match_of(tmp_path / "d", "test-season")
    assert "test-season" in result.stderr  # the progress went to stderr


def test_a_rerun_with_nothing_to_play_says_the_referee_was_not_contacted(
    threaded_fake: FakeReferee, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, file = tmp_path / "data", write(tmp_path, season_text(blocks=1))
    assert run_season_cli(threaded_fake, data, file, monkeypatch).exit_code == 0
    nobody = "127.0.0.1:9"  # the discard port: nothing listens there
    again = runner.invoke(
        app, ["season", "run", str(file), "--data", str(data), "--referee", nobody]
    )
    assert again.exit_code == 0, again.output
    assert f"the referee at {nobody} was not contacted" in " ".join(again.output.split())


def test_a_season_that_failed_at_its_start_is_listed_as_failed(
    threaded_fake: FakeReferee, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    file = write(tmp_path, season_text(blocks=2, bot_args={"b": "--exit-code 7"}))
    failed = run_season_cli(threaded_fake, data, file, monkeypatch)
    assert failed.exit_code == 1
    listed = runner.invoke(app, ["season", "list", "--data", str(data)])
    words = " ".join(listed.output.split())
    assert "season test-season (standard): 0 of 2 blocks, failed: bot 'b' exited with code 7" in (
        words
    )
    as_json = json.loads(
        runner.invoke(app, ["season", "list", "--data", str(data), "--json"]).output
    )
    assert as_json[0]["status"] == "failed"
