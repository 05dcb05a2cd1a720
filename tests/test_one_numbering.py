"""One number for one block everywhere: an always-on ladder plays three blocks on the fake
referee (tests/ladder/fake_referee.py), a fourth is planned for a challenge, and every place
that names a block (the ladder's JSON log events and its printed lines, `ladder status`,
`matches list --season`, text and ``--json``, the season page, the ladder page and its
state.json) gives the same block the number the store keeps: blocks and rotations from 0.

The blocks are told apart by what each surface shows beside the number (the match ids of a
block, its bots), never by position, so a number shifted anywhere fails here.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from brandeln.cli.ladder_view import printer
from brandeln.cli.main import app
from brandeln.ladder.living.config import LadderConfig, new_version_rating
from brandeln.ladder.living.ladder import LivingLadder
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.store.database import LadderStore
from brandeln.services.logs.formatters import JsonFormatter
from brandeln.web.app import StorageLocation, create_app
from tests.ladder.fake_referee import ADMIN_TOKEN, start_fake_referee

LADDER = "numbered"
CONFIG = LadderConfig(name=LADDER, deals_per_match=1, seed=5, interval_s=0.05)
FAMILIES = "abcd"
BLOCKS_PLAYED = 3
runner = CliRunner()


@dataclass(frozen=True)
class Played:
    """The ladder's data folder and what it told while it played."""

    data: Path
    logged: dict[int, tuple[tuple[str, ...], tuple[str, ...]]]  # block: bots, match ids
    printed: list[str]  # `ladder serve`'s lines
    planned: int  # the block planned for a challenge, not played
    planned_bots: tuple[str, ...]


class _JsonLines(logging.Handler):
    """The records as `ladder serve --log-json` writes them, one JSON line each."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.setFormatter(JsonFormatter())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


async def _play(data: Path, log: _JsonLines) -> int:
    """Three blocks played by the ladder (its log into ``log``), a fourth planned for a
    challenge (its index)."""
    fake = await start_fake_referee()
    logger = logging.getLogger("brandeln.ladder.living")
    level = logger.level
    logger.addHandler(log)
    logger.setLevel(logging.INFO)
    try:
        with LadderStore.open(data / "ladder.db") as store:
            store.ladders.ensure_ladder(LADDER, CONFIG.settings(), 4, {"challenges_per_hour": 5})
            start, widen = new_version_rating(CONFIG)
            for family in FAMILIES:
                bot_id, _ = fake.add_bot(f"{family}@1")
                store.ladders.add_version(LADDER, family, "1", bot_id, start, widen)
                fake.add_session(bot_id)
            async with AdminClient(fake.address, ADMIN_TOKEN) as admin:
                ladder = LivingLadder(CONFIG, store, admin, listener=printer(CONFIG))
                for _ in range(BLOCKS_PLAYED):
                    assert await ladder.play_next()
            bots = tuple(f"{family}@1" for family in FAMILIES)
            challenge = store.challenges.queue_challenge(
                LADDER, bots[:2], deals=1, rated=False, requested_by="t", per_hour=5
            )
            planned = store.planned.plan_block(
                LADDER, bots, CONFIG.seed, "t", deals=1, rated=False, challenge_id=challenge
            )
    finally:
        logger.removeHandler(log)
        logger.setLevel(level)
        await fake.stop()
    return planned


@pytest.fixture
async def played(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Played:
    data = tmp_path / "data"
    log = _JsonLines()
    planned = await _play(data, log)
    logged = {}
    for entry in map(json.loads, log.lines):
        if entry["event"] == "ladder_recorded":
            logged[entry["block"]] = (tuple(entry["bots"]), tuple(entry["match_ids"]))
    printed = [line for line in capsys.readouterr().out.splitlines() if "recorded" in line]
    return Played(data, logged, printed, planned, tuple(f"{f}@1" for f in FAMILIES))


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


class _Tables(HTMLParser):
    """A page's table rows: each with the ``<h3>`` heading above it, its ``data-block`` and
    its cells' words."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[tuple[str, str | None, list[str]]] = []
        self.heading = ""
        self._in_heading = False
        self._cells: list[str] | None = None
        self._block: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "h3":
            self._in_heading, self.heading = True, ""
        elif tag == "tr":
            self._cells, self._block = [], dict(attrs).get("data-block")
        elif tag == "td" and self._cells is not None:
            self._cells.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "h3":
            self._in_heading = False
        elif tag == "tr" and self._cells is not None:
            words = [" ".join(cell.split()) for cell in self._cells]
            self.rows.append((" ".join(self.heading.split()), self._block, words))
            self._cells = None

    def handle_data(self, data: str) -> None:
        if self._in_heading:
            self.heading += data
        elif self._cells:
            self._cells[-1] += f" {data} "  # a cell's spans (its bots) are words apart


def _rows(page: str) -> list[tuple[str, str | None, list[str]]]:
    parsed = _Tables()
    parsed.feed(page)
    parsed.close()
    return parsed.rows


@pytest.fixture
def client(played: Played) -> Iterator[TestClient]:
    app = create_app(StorageLocation(data=played.data))
    with TestClient(app, base_url="http://127.0.0.1") as opened:  # a name the app answers to
        yield opened


def test_the_logs_count_blocks_from_0(played: Played) -> None:
    assert sorted(played.logged) == list(range(BLOCKS_PLAYED))
    for index, (bots, _) in played.logged.items():
        assert f"block {index} recorded: {', '.join(bots)}" in played.printed


def test_ladder_status_numbers_each_block_as_the_log(played: Played) -> None:
    status = json.loads(
        _cli("ladder", "status", "--name", LADDER, "--data", str(played.data), "--json")
    )
    shown = {block["block"]: tuple(block["bots"]) for block in status["recent_blocks"]}
    expected = {index: bots for index, (bots, _) in played.logged.items()}
    assert shown == expected | {played.planned: played.planned_bots}
    text = _cli("ladder", "status", "--name", LADDER, "--data", str(played.data))
    for index, bots in shown.items():
        assert f"block {index}: {', '.join(bots)}" in text


def test_matches_list_numbers_each_match_by_its_logged_block_and_rotation(played: Played) -> None:
    args = ("matches", "list", "--season", LADDER, "--data", str(played.data))
    listed = json.loads(_cli(*args, "--json"))
    by_match = {m["match_id"]: (m["block_index"], m["rotation"]) for m in listed}
    expected = {
        match_id: (index, rotation)
        for index, (_, match_ids) in played.logged.items()
        for rotation, match_id in enumerate(match_ids)
    }
    assert by_match == expected
    lines = _cli(*args).splitlines()
    for match_id, (index, rotation) in expected.items():
        [row] = [line.split() for line in lines if line.split()[:1] == [match_id]]
        assert row[1:3] == [str(index), str(rotation)], row


def test_the_season_page_heads_each_block_with_its_logged_number(
    played: Played, client: TestClient
) -> None:
    page = client.get(f"/seasons/{LADDER}")
    assert page.status_code == 200
    shown = {}
    for heading, _, cells in _rows(page.text):
        if len(cells) > 1 and cells[1].startswith("match-"):
            shown[cells[1]] = (heading, cells[0])
    expected = {
        match_id: (f"Block {index}", str(rotation))
        for index, (_, match_ids) in played.logged.items()
        for rotation, match_id in enumerate(match_ids)
    }
    assert shown == expected


def test_the_ladder_page_and_its_state_number_each_block_as_the_log(
    played: Played, client: TestClient
) -> None:
    expected = {index: bots for index, (bots, _) in played.logged.items()}
    expected[played.planned] = played.planned_bots
    page = client.get(f"/ladders/{LADDER}")
    assert page.status_code == 200
    rows = [(block, cells) for _, block, cells in _rows(page.text) if block is not None]
    assert {int(block) for block, _ in rows} == set(expected)
    for block, cells in rows:
        assert cells[0] == block  # the number shown is the row's
        assert cells[1].split() == list(expected[int(block)])
    queued = [cells for _, block, cells in _rows(page.text) if cells and cells[0].startswith("#")]
    assert any(f"(block {played.planned})" in cells[1] for cells in queued)
    state = client.get(f"/ladders/{LADDER}/state.json").json()
    assert {b["number"]: tuple(b["bots"]) for b in state["blocks"]} == expected
    assert [c["block"] for c in state["queue"]] == [played.planned]
