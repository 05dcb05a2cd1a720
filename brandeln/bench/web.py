"""`brandeln bench web`: page times of the web front at 1k and at 100k recorded matches.

One real short season is played first (an embedded referee, four ``random`` bot processes,
the ladder's runner), so the measured season, its logs and its index rows are what a user
has. Each size then gets a copy of that data folder, filled up to N recorded matches in all
with synthetic rows written straight into both stores' tables (other seasons of the ladder,
their blocks, results and rating history; the referee's match index and its bot links): far
faster than playing them, and the pages read them the same way.

The measured pages are those of the real season: its leaderboard and one of its matches
(the targets), plus its rating history, the index and a bot page as context. Each is asked
``requests`` times in-process (Starlette's TestClient, stores opened per request as in
production), the sizes taking turns request by request (the machine's load weighs on all
alike); the figures are the median times, and the ratio is the median of each round's time at
the largest size over that at the smallest. Target: at 100k matches each target page takes
at most 2x its time at 1k, which holds when their queries go through indexes (by season id,
by match id) rather than scanning every match.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.ladder.season.config import parse_season
from brandeln.ladder.season.runner import run_season
from brandeln.ladder.store.database import LadderStore
from brandeln.services import data_folder

__all__ = ["WEB_TARGET", "WebBenchSettings", "fill_stores", "run_web_bench"]

WEB_TARGET: Final = 2.0  # page time at the largest size over that at the smallest, at most
TARGET_PAGES: Final = ("leaderboard", "match")
SEASON: Final = "web-bench"
FILLER_BOTS: Final = ("f1", "f2", "f3", "f4")
FILLER_BLOCKS_PER_SEASON: Final = 250  # x 4 rotations: 1,000 matches a filler season

Say = Callable[[str], None]


@dataclass(frozen=True)
class WebBenchSettings:
    sizes: tuple[int, ...] = (1_000, 100_000)
    requests: int = 40
    blocks: int = 4  # of the real season
    deals: int = 4

    @classmethod
    def quick(cls) -> WebBenchSettings:
        return cls(sizes=(1_000, 10_000), requests=10, blocks=2)


def _season_text(settings: WebBenchSettings) -> str:
    bots = "".join(
        f'[[bots]]\nname = "random-{n}"\n'
        f'command = ["python", "-m", "brandeln.cli", "bot", "run", "random", "--seed", "{n}"]\n'
        for n in range(1, 5)
    )
    return (
        f'name = "{SEASON}"\nseed = 3\nblocks = {settings.blocks}\n'
        f"deals_per_match = {settings.deals}\nconcurrency = 4\n{bots}"
    )


async def _play_season(data: Path, settings: WebBenchSettings) -> None:
    config = parse_season(_season_text(settings), "web bench")
    with LadderStore.open(data_folder.ladder_db(data)) as store:
        async with EmbeddedReferee(data_folder.embedded_dir(data)) as referee:
            await run_season(config, referee.address, referee.admin_token, store)


def fill_stores(data: Path, total_matches: int) -> int:
    """Add synthetic matches to the data folder's stores until they hold ``total_matches``
    (returns how many were added): filler seasons in the ladder database, their matches in
    the embedded referee's index, all older than the real ones."""
    ladder_db = data_folder.ladder_db(data)
    referee_db = data_folder.referee_db(data_folder.embedded_dir(data))
    with LadderStore.open(ladder_db, create=False) as store:
        have = len(store.reads.matches(SEASON))
        a_log = store.reads.matches(SEASON)[0].match_id
    missing = max(0, total_matches - have)
    embedded_logs = data_folder.logs_dir(data_folder.embedded_dir(data))
    log_path = str(next(embedded_logs.rglob(f"{a_log}.jsonl")))
    ladder = sqlite3.connect(ladder_db)
    referee = sqlite3.connect(referee_db)
    try:
        with ladder, referee:
            _fill(ladder, referee, missing, log_path)
    finally:
        ladder.close()
        referee.close()
    return missing


def _fill(ladder: sqlite3.Connection, referee: sqlite3.Connection, count: int, log: str) -> None:
    per_season = FILLER_BLOCKS_PER_SEASON * len(FILLER_BOTS)
    seasons = -(-count // per_season)
    bots_json = json.dumps(list(FILLER_BOTS))
    referee.executemany(
        "INSERT OR IGNORE INTO bots(bot_id, name, token_hash, created_at) VALUES(?,?,?,1)",
        [(f"fill_{bot}", f"{bot}@filler", f"hash-{bot}") for bot in FILLER_BOTS],
    )
    made = 0
    for season in range(seasons):
        (season_id,) = ladder.execute(
            "INSERT INTO seasons (name, settings_json, ruleset, players, blocks_planned,"
            " next_to_rate, created_at, updated_at, status) VALUES (?, '{}', 'standard', 4,"
            " ?, ?, 1, 1, 'finished') RETURNING season_id",
            (f"filler-{season}", FILLER_BLOCKS_PER_SEASON, FILLER_BLOCKS_PER_SEASON),
        ).fetchone()
        ladder.executemany(
            "INSERT INTO season_bots (season_id, bot, kind, bot_id, referee_name)"
            " VALUES (?, ?, 'command', ?, ?)",
            [(season_id, bot, f"fill_{bot}", f"{bot}@filler") for bot in FILLER_BOTS],
        )
        ladder.executemany(
            "INSERT INTO ratings (season_id, bot, mu, sigma, blocks) VALUES (?, ?, 25, 3, ?)",
            [(season_id, bot, FILLER_BLOCKS_PER_SEASON) for bot in FILLER_BOTS],
        )
        blocks, matches, results, history, index, links = [], [], [], [], [], []
        for block in range(FILLER_BLOCKS_PER_SEASON):
            if made >= count:
                break
            blocks.append((season_id, block, "1", bots_json, 1))
            for bot in FILLER_BOTS:
                results.append((season_id, block, bot, 1, 0, 4, 0, 0, 0, 0, 1, 1))
                history.append((season_id, block, bot, 25.0, 3.0))
            for rotation in range(len(FILLER_BOTS)):
                match_id = f"m_fill{season:04d}{block:04d}{rotation}"
                matches.append(
                    (season_id, block, rotation, match_id, "CSHD", bots_json, "[0,0,0,0]",
                     "[]", 4)
                )  # fmt: skip
                started = 1_000 + made
                index.append(
                    (match_id, "standard", json.dumps([f"fill_{b}" for b in FILLER_BOTS]),
                     json.dumps([f"{b}@filler" for b in FILLER_BOTS]), "[0,0,0,0]",
                     "[1,1,1,1]", "[]", "[0,0,0,0]", "finished", 4, started, started, log)
                )  # fmt: skip
                links += [(match_id, f"fill_{bot}", started) for bot in FILLER_BOTS]
                made += 1
        # Columns named: later schema revisions add columns (with defaults) to these tables.
        ladder.executemany(
            "INSERT INTO blocks (season_id, block_index, seed, bots_json, finished_at)"
            " VALUES (?, ?, ?, ?, ?)",
            blocks,
        )
        ladder.executemany(
            "INSERT INTO matches (season_id, block_index, rotation, match_id, suit_permutation,"
            " bots_json, balances_json, forfeited_json, deals_played)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            matches,
        )
        ladder.executemany(
            "INSERT INTO results (season_id, block_index, bot, rank, chips, deals, forfeited,"
            " timeouts, illegal, strikes, contracts_bid, contracts_made)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            results,
        )
        ladder.executemany(
            "INSERT INTO rating_history (season_id, block_index, bot, mu, sigma)"
            " VALUES (?, ?, ?, ?, ?)",
            history,
        )
        referee.executemany(
            "INSERT INTO matches (match_id, ruleset, bot_ids, bot_names, balances, ranks,"
            " forfeited, strikes, status, deals_played, started_at, ended_at, log_path)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            index,
        )
        referee.executemany(
            "INSERT INTO match_bots (match_id, bot_id, started_at) VALUES (?, ?, ?)", links
        )


def _pages(data: Path) -> dict[str, str]:
    with LadderStore.open(data_folder.ladder_db(data), create=False) as store:
        match_id = store.reads.matches(SEASON)[-1].match_id
        bot_id = store.bots.bot_identities(SEASON)["random-1"].bot_id
    return {
        "leaderboard": f"/seasons/{SEASON}/leaderboard",
        "match": f"/matches/{match_id}",
        "ratings": f"/seasons/{SEASON}/ratings",
        "index": "/",
        "bot": f"/bots/{bot_id}",
    }


def _time_pages(folders: Sequence[Path], requests: int) -> list[dict[str, list[float]]]:
    """Milliseconds per request of each page, per folder. The folders take turns request by
    request, so a load that comes and goes on the machine weighs on every size alike."""
    from starlette.testclient import TestClient  # noqa: PLC0415 - httpx: a dev dependency

    from brandeln.web.app import StorageLocation, create_app  # noqa: PLC0415

    # A name the app answers to (brandeln.services.trusted_hosts), not the TestClient's
    # "testserver".
    base = "http://127.0.0.1"
    clients = [
        TestClient(create_app(StorageLocation(data=data)), base_url=base) for data in folders
    ]
    pages = [_pages(data) for data in folders]
    times: list[dict[str, list[float]]] = [{name: [] for name in pages[0]} for _ in folders]
    with ExitStack() as stack:
        for client in clients:
            stack.enter_context(client)
        for client, paths in zip(clients, pages, strict=True):
            for path in paths.values():
                reply = client.get(path)  # warm: template compiling, the OS's file pages
                if reply.status_code != 200:
                    raise RuntimeError(f"{path} answered {reply.status_code}")
        for _ in range(requests):
            for name in pages[0]:
                for client, paths, spent in zip(clients, pages, times, strict=True):
                    started = time.perf_counter()
                    client.get(paths[name])
                    spent[name].append((time.perf_counter() - started) * 1000)
    return times


def _spread(values: Sequence[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def run_web_bench(settings: WebBenchSettings, say: Say) -> dict[str, Any]:
    """Play the real season, then time the pages at each size; the figures as a dict."""
    import asyncio  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="brandeln-web-bench-") as tmp:
        base = Path(tmp) / "base"
        say(f"playing the measured season ({settings.blocks} blocks of 4 matches)")
        asyncio.run(_play_season(base, settings))
        sizes: list[dict[str, Any]] = []
        folders = []
        for number, total in enumerate(settings.sizes):
            data = Path(tmp) / f"size-{number}-{total}"
            shutil.copytree(base, data)
            # The copy's index must name the copy's logs.
            with sqlite3.connect(data_folder.referee_db(data_folder.embedded_dir(data))) as db:
                db.execute(
                    "UPDATE matches SET log_path = replace(log_path, ?, ?)", (str(base), str(data))
                )
            db.close()
            say(f"{total:,} recorded matches: filling the stores")
            started = time.perf_counter()
            added = fill_stores(data, total)
            sizes.append(
                {"matches": total, "synthetic": added, "fill_s": time.perf_counter() - started}
            )
            folders.append(data)
        say(f"timing the pages, {settings.requests} requests each, the sizes taking turns")
        times = _time_pages(folders, settings.requests)
    for size, spent in zip(sizes, times, strict=True):
        size["pages"] = {page: _spread(values) for page, values in spent.items()}
    # Each round's largest-size time over its smallest-size time, then the median of those.
    ratios = {
        page: statistics.median(
            large / small for large, small in zip(times[-1][page], times[0][page], strict=True)
        )
        for page in times[0]
    }
    return {
        "benchmark": "web",
        "settings": asdict(settings),
        "sizes": sizes,
        "ratios": ratios,
        "target": {
            "pages": list(TARGET_PAGES),
            "limit": WEB_TARGET,
            "met": all(ratios[page] <= WEB_TARGET for page in TARGET_PAGES),
        },
    }
