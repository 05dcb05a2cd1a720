"""``python -m brandeln.bench.season_record LADDER_DB REFEREE_DB SEASON``: a season's record as
one JSON document on stdout, to compare a run on one machine with a run on a cluster.

Run where the databases are reachable (for the cluster tests: inside a namespace of the test
bed, where PostgreSQL listens). The record holds every block's results, the rating history,
the final ratings and every match's log, less what may differ between two runs of the same
season: timing (``ms``, ``*_at``, latencies), the ids a referee draws (match, bot and
session ids) and the season's name in the bots' names at the referee.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from typing import Any

from brandeln.arena.store.database import RefereeStore
from brandeln.ladder.store.database import LadderStore

# What two runs of one season may differ in: when things happened, how long they took, and
# the ids the referee drew.
VARYING_KEYS = frozenset({"ms", "match_id", "bot_id", "session_id", "latency", "started_at"})


def _normal(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: _bot_name(item) if key == "bot_name" else _normal(item)
            for key, item in value.items()
            if key not in VARYING_KEYS and not key.endswith("_at") and not key.startswith("lat")
        }
    if isinstance(value, list):
        return [_normal(item) for item in value]
    return value


def _bot_name(name: Any) -> Any:
    """A command bot's name at the referee less its season (``mine@spring`` is ``mine``), so
    two seasons of the same file under two names compare too."""
    return name.split("@", 1)[0] if isinstance(name, str) else name


def season_record(ladder_db: str, referee_db: str, season: str) -> dict[str, Any]:
    with LadderStore.open(ladder_db, create=False) as ladder:
        results = [
            {"block": index, **_normal(asdict(result))}
            for index, result in ladder.reads.results(season)
        ]
        history = [
            [index, bot, rating.mu, rating.sigma]
            for index, bot, rating in ladder.reads.rating_history(season)
        ]
        ratings = [
            [row.bot, row.rating.mu, row.rating.sigma] for row in ladder.reads.ratings(season)
        ]
        matches = ladder.reads.matches(season)
    referee = RefereeStore(referee_db)
    try:
        logs = {}
        for match in matches:
            data = referee.read_log(referee.match(match.match_id).log_path)
            records = [json.loads(line) for line in data.decode().splitlines() if line.strip()]
            logs[f"{match.block_index}/{match.rotation}"] = _normal(records)
    finally:
        referee.close()
    return {"results": results, "history": history, "ratings": ratings, "logs": logs}


def main(argv: list[str]) -> int:
    ladder_db, referee_db, season = argv
    print(json.dumps(season_record(ladder_db, referee_db, season), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
