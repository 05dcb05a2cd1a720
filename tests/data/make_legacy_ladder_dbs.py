"""Make tests/data/ladder_v1.db and ladder_v2.db with the ladder code that wrote such files.

Run once from the repository root (``python tests/data/make_legacy_ladder_dbs.py``); the files
are checked in. Each is a real database of its version: ``ladder/store/database.py`` of the commit
that last had that schema is loaded from git and records a small season (4 bots, three blocks
of which two rated, command bots with their registration), so the upgrade tests read what an
older brandeln left on disk, not a schema retyped in a test.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from brandeln.ladder.ratings.trueskill_model import RatingModel  # noqa: E402
from brandeln.ladder.season.config import parse_season  # noqa: E402
from brandeln.ladder.season.duplicate import MatchOutcome, block_results, plan_season  # noqa: E402

# The last commit of each schema version (version 2 is main's before issue 13).
COMMITS = {1: "087681b^", 2: "c8d28d1"}
SEASON = """
name = "legacy"
seed = 5
blocks = 4
deals_per_match = 4
[[bots]]
name = "a"
command = ["a"]
[[bots]]
name = "b"
command = ["b"]
[[bots]]
name = "c"
command = ["c"]
[[bots]]
name = "e"
bot_id = "bot_e"
"""


def _balances(block: int, rotation: int) -> tuple[int, int, int, int]:
    """Some zero-sum chips by seat."""
    return (3 * rotation - 4, 2, block - 1, 3 - 3 * rotation - block)


def old_storage(version: int) -> ModuleType:
    source = subprocess.run(
        ["git", "show", f"{COMMITS[version]}:ladder/store/database.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    folder = Path(tempfile.mkdtemp())
    path = folder / f"storage_v{version}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"storage_v{version}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def make(version: int, path: Path) -> None:
    storage = old_storage(version)
    config = parse_season(SEASON, "legacy.toml")
    model = RatingModel(config.rating)
    path.unlink(missing_ok=True)
    store: Any = storage.LadderStore.open(path)
    try:
        store.seasons.ensure_season(config, model.initial())
        for bot in ("a", "b", "c"):
            secret = f"plaintext-token-of-{bot}-0123456789abcdef"
            if version == 1:
                store.bots.save_bot_identity(
                    "legacy", bot, bot_id=f"id-{bot}", token=secret, referee_name=f"{bot}@legacy"
                )
            else:
                store.bots.save_bot_identity(
                    "legacy",
                    bot,
                    bot_id=f"id-{bot}",
                    token_hash=storage.token_hash(secret),
                    referee_name=f"{bot}@legacy",
                )
        plans = plan_season(["a", "b", "c", "e"], 4, 4, 5)
        # Blocks 0, 1 and 3 finished: 3 waits, unrated, for block 2.
        for plan in (plans[0], plans[1], plans[3]):
            outcomes = [
                MatchOutcome(
                    match,
                    f"m-{plan.index}-{match.rotation}",
                    _balances(plan.index, match.rotation),
                    frozenset(),
                    2,
                )
                for match in plan.matches
            ]
            results = block_results(plan, outcomes)
            if version == 1:
                store.blocks.record_block("legacy", plan, outcomes, results, model.rate_block)
            else:
                from brandeln.ladder.ratings.order import blocks_to_rate  # noqa: PLC0415

                before = {row.bot: row.rating for row in store.reads.ratings("legacy")}
                rankings = dict(store.blocks.unrated_rankings("legacy"))
                rankings[plan.index] = {bot: r.rank for bot, r in results.items()}
                nxt = store.blocks.next_to_rate("legacy")
                rated = [
                    storage.RatedBlock(block.index, block.ratings)
                    for block in blocks_to_rate(nxt, rankings, before, model.rate_block)
                ]
                store.blocks.record_block(
                    "legacy", plan, outcomes, results, rated, next_to_rate=nxt
                )
    finally:
        store.close()
    # One self-contained file: the WAL folded in.
    import sqlite3  # noqa: PLC0415

    raw = sqlite3.connect(path)
    raw.execute("PRAGMA journal_mode=DELETE")
    raw.close()


if __name__ == "__main__":
    for number in COMMITS:
        make(number, ROOT / "tests" / "data" / f"ladder_v{number}.db")
        print(f"tests/data/ladder_v{number}.db")
