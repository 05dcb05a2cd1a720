"""The data of the page tests: two real short seasons, played once per test session.

An embedded referee over loopback gRPC, real sample-bot processes (the season runner starts
them), the ladder's runner recording every block. The second season seats a bot that connects
by itself under the registered name ``<script>alert(1)</script>`` (its season name and its
Hello name are that too), so every page has hostile text to escape.

:func:`hostile_data` goes further: seasons named, and bots registered, named in their season,
greeting and versioned with nothing but the hostile strings of ``tests/web/hostile.py``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Dialog, Page

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.season.config import ExternalBot, SeasonConfig, parse_season
from brandeln.ladder.season.runner import run_season
from brandeln.ladder.store.database import LadderStore
from brandeln.sdk.session import SessionOptions, SessionStats, play
from tests.conftest import BotProcesses, copy_data_folder, made_once
from tests.web.hostile import HOSTILE_TEXTS
from tests.web.matches import PATIENT, PatientBot

HOSTILE = "<script>alert(1)</script>"
SEASON = "web-season"
HOSTILE_SEASON = "hostile-season"
BLOCKS = 4  # 16 matches, 8 more in the hostile season: one page of the index (25)


def _season_text(name: str, bots: dict[str, str], *, blocks: int, concurrency: int) -> str:
    listed = "".join(
        f'[[bots]]\nname = "{bot}"\n'
        f'command = ["python", "-m", "brandeln.cli", "bot", "run", {kind}]\n'
        for bot, kind in bots.items()
    )
    return (
        f'name = "{name}"\nseed = 11\nblocks = {blocks}\ndeals_per_match = 4\n'
        f"concurrency = {concurrency}\nconnect_timeout_ms = 60000\n"
        "[time_control]\nmove_ms = 200\nbank_ms = 60000\n" + listed
    )


@dataclass(frozen=True)
class SeasonData:
    """A data folder as `season run` leaves it (DATA/ladder.db, DATA/embedded/...)."""

    data: Path
    season: str
    hostile_season: str
    hostile_bot_id: str

    def bot_ids(self, season: str) -> dict[str, str]:
        with LadderStore.open(self.data / "ladder.db", create=False) as store:
            return {
                name: identity.bot_id
                for name, identity in store.bots.bot_identities(season).items()
                if identity.bot_id
            }

    def match_ids(self, season: str) -> list[str]:
        with LadderStore.open(self.data / "ladder.db", create=False) as store:
            return [match.match_id for match in store.reads.matches(season)]


async def _play(data: Path, bots: BotProcesses) -> str:
    sample = {
        "random": '"random", "--seed", "1"',
        "heuristic": '"heuristic"',
        "random-2": '"random", "--seed", "2"',
        "montecarlo": '"montecarlo", "--seed", "1"',
    }
    async with EmbeddedReferee(data / "embedded") as referee:
        with LadderStore.open(data / "ladder.db") as store:
            config = parse_season(_season_text(SEASON, sample, blocks=BLOCKS, concurrency=4))
            await run_season(config, referee.address, referee.admin_token, store)

            async with AdminClient(referee.address, referee.admin_token) as admin:
                hostile_id, token = await admin.register_bot(HOSTILE)
            bots.start(
                ["-m", "brandeln.cli", "bot", "run", "random", "--seed", "3", "--tables", "1"],
                name="hostile",
                env={
                    "BRANDELN_SERVER": referee.address,
                    "BRANDELN_TOKEN": token,
                    "BRANDELN_BOT_NAME": HOSTILE,
                },
            )
            three = {name: kind for name, kind in sample.items() if name != "montecarlo"}
            parsed = parse_season(
                _season_text(HOSTILE_SEASON, three, blocks=2, concurrency=1)
                + f'[[bots]]\nname = "placeholder"\nbot_id = "{hostile_id}"\n'
            )
            # A season file cannot name a bot so (names are letters, digits, . _ -), a
            # program's season can: the config is built around the parser's check.
            hostile = ExternalBot(name=HOSTILE, bot_id=hostile_id)
            config = dataclasses.replace(parsed, bots=(*parsed.bots[:3], hostile))
            await run_season(config, referee.address, referee.admin_token, store)
    return hostile_id


def _play_season(root: Path) -> dict[str, str]:
    bots = BotProcesses(root)
    try:
        # In a thread of its own: Playwright's sync API may already run a loop in this one.
        with ThreadPoolExecutor(max_workers=1) as worker:
            hostile_id = worker.submit(asyncio.run, _play(root / "data", bots)).result()
    finally:
        bots.stop()
    return {"hostile_id": hostile_id}


@pytest.fixture(scope="session")
def season_data(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> SeasonData:
    root, facts = made_once(tmp_path_factory, worker_id, "web-season", _play_season)
    return SeasonData(root / "data", SEASON, HOSTILE_SEASON, facts["hostile_id"])


def copy_data(source: Path, data: Path) -> Path:
    """A copy of a data folder, the referee's index pointing at the copied logs."""
    copy_data_folder(source, data)
    old, new = str(source), str(data)
    with sqlite3.connect(data / "embedded" / "referee.db") as db:
        db.execute("UPDATE matches SET log_path = replace(log_path, ?, ?)", (old, new))
    db.close()
    return data


@pytest.fixture
def data_copy(season_data: SeasonData, tmp_path: Path) -> SeasonData:
    """A copy of the season data folder to damage, the referee's index pointing at its logs."""
    return dataclasses.replace(season_data, data=copy_data(season_data.data, tmp_path / "data"))


# Seasons named with hostile text (the last cannot be routed to: its name holds a "/").
HOSTILE_SEASONS = (HOSTILE_TEXTS[1], HOSTILE_TEXTS[5], HOSTILE_TEXTS[3], HOSTILE_TEXTS[2])


def _hostile(index: int) -> str:
    return HOSTILE_TEXTS[index % len(HOSTILE_TEXTS)]


@dataclass(frozen=True)
class HostileBot:
    """One bot's names: registered at the referee, in its seasons, in its Hello, its version."""

    registered: str
    in_season: str
    hello: str
    version: str
    bot_id: str = ""


def hostile_bots() -> list[HostileBot]:
    return [
        HostileBot(_hostile(n), _hostile(n + 1), _hostile(n + 2), _hostile(n + 4)) for n in range(4)
    ]


@dataclass(frozen=True)
class HostileData:
    """A data folder where every name a page can show is hostile text."""

    data: Path
    seasons: tuple[str, ...]
    bots: tuple[HostileBot, ...]

    def match_ids(self, season: str) -> list[str]:
        with LadderStore.open(self.data / "ladder.db", create=False) as store:
            return [match.match_id for match in store.reads.matches(season)]


class _NamedBot(PatientBot):
    def __init__(self, hello: str, version: str) -> None:
        super().__init__(0.0)
        self.name = hello
        self.version = version


def _hostile_season(season: str, bots: list[HostileBot]) -> SeasonConfig:
    listed = "".join(
        f'[[bots]]\nname = "p{n}"\nbot_id = "{bot.bot_id}"\n' for n, bot in enumerate(bots)
    )
    parsed = parse_season(
        'name = "placeholder"\nseed = 5\nblocks = 1\ndeals_per_match = 4\n'
        "concurrency = 1\nconnect_timeout_ms = 60000\n[time_control]\n"
        f"move_ms = {PATIENT.move_ms}\nbank_ms = {PATIENT.bank_ms}\n" + listed
    )
    # A season file allows neither name; a program's season may hold any.
    named = tuple(ExternalBot(bot.in_season, bot.bot_id) for bot in bots)
    return dataclasses.replace(parsed, name=season, bots=named)


async def _play_hostile(data: Path) -> list[HostileBot]:
    async with EmbeddedReferee(data / "embedded") as referee:
        bots: list[HostileBot] = []
        sessions: list[asyncio.Task[list[SessionStats]]] = []
        async with AdminClient(referee.address, referee.admin_token) as admin:
            for bot in hostile_bots():
                bot_id, token = await admin.register_bot(bot.registered)
                bots.append(dataclasses.replace(bot, bot_id=bot_id))
                named = _NamedBot(bot.hello, bot.version)
                # One session per bot, for every match of every season (cancelled after).
                options = SessionOptions(referee.address, token)
                sessions.append(asyncio.create_task(play(functools.partial(_same, named), options)))
        try:
            with LadderStore.open(data / "ladder.db") as store:
                for season in HOSTILE_SEASONS:
                    config = _hostile_season(season, bots)
                    address, token = referee.address, referee.admin_token
                    await run_season(config, address, token, store, logs_dir=data / "bot-logs")
        finally:
            for session in sessions:
                session.cancel()
            await asyncio.gather(*sessions, return_exceptions=True)
    return bots


def _same(bot: PatientBot) -> PatientBot:
    return bot


def _play_hostile_seasons(root: Path) -> dict[str, list[dict[str, str]]]:
    # In a thread of its own: Playwright's sync API may already run a loop in this one.
    with ThreadPoolExecutor(max_workers=1) as worker:
        bots = worker.submit(asyncio.run, _play_hostile(root / "data")).result()
    return {"bots": [dataclasses.asdict(bot) for bot in bots]}


@pytest.fixture(scope="session")
def hostile_data(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> HostileData:
    root, facts = made_once(tmp_path_factory, worker_id, "web-hostile", _play_hostile_seasons)
    bots = tuple(HostileBot(**bot) for bot in facts["bots"])
    return HostileData(root / "data", HOSTILE_SEASONS, bots)


@pytest.fixture
def hostile_copy(hostile_data: HostileData, tmp_path: Path) -> HostileData:
    """A copy of the hostile data folder to damage."""
    return dataclasses.replace(hostile_data, data=copy_data(hostile_data.data, tmp_path / "data"))


@pytest.fixture
def dialogs(page: Page) -> list[str]:
    """Every alert/confirm the page opens (a script that ran from bot text would), dismissed.
    ``page`` is the browser tests' own (tests/web/browser.py)."""
    opened: list[str] = []

    def refuse(dialog: Dialog) -> None:
        opened.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", refuse)
    return opened
