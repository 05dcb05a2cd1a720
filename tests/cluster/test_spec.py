"""`brandeln.cluster.spec.WorkerSpec`: what travels to each Ray actor, and what its repr leaves
out."""

from __future__ import annotations

from brandeln.cluster.spec import WorkerSpec
from brandeln.ladder.season.config import parse_season

SEASON = 'name = "s"\nseed = 1\nblocks = 1\n' + "".join(
    f'[[bots]]\nname = "b{n}"\nbot_id = "{n}"\n' for n in range(4)
)


def test_the_repr_shows_neither_the_tokens_nor_the_database_password() -> None:
    spec = WorkerSpec(
        config=parse_season(SEASON, "s.toml"),
        bot_ids={"b0": "bot_0"},
        tokens={"b0": "token-secret"},
        database="postgresql://ladder:pw-secret@db.local/arena",
        work_dir="/srv/brandeln",
    )
    shown = repr(spec)
    assert "token-secret" not in shown
    assert "pw-secret" not in shown
    assert "/srv/brandeln" in shown
