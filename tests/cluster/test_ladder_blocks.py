"""A cluster ladder's presence (brandeln.cluster.ladder_blocks), without Ray: every active command
version is free unless seated; a version that connects by itself, or opens too few sessions,
is away and said once (log and last error); what the actors run follows the active command
versions."""

from __future__ import annotations

import asyncio
from typing import cast

from brandeln.cluster.ladder_blocks import ClusterLadder
from brandeln.ladder.bots.version_commands import VersionCommand
from brandeln.ladder.living.config import LadderConfig
from brandeln.ladder.ratings.trueskill_model import Rating
from brandeln.ladder.store.database import LadderStore, LadderVersion
from brandeln.ladder.store.schema import Presence, VersionStatus


class _Presence:
    def __init__(self) -> None:
        self.errors: list[tuple[str, str, str]] = []

    def version_error(self, ladder: str, name: str, detail: str) -> None:
        self.errors.append((ladder, name, detail))


class _Store:
    """What ClusterLadder uses of the store: the errors it says to the presence topic."""

    def __init__(self) -> None:
        self.presence = _Presence()


def _version(
    name: str, tables: int | None, status: VersionStatus = VersionStatus.ACTIVE
) -> LadderVersion:
    command = None if tables is None else VersionCommand(("bot", "{token}"), tables)
    family, _, version = name.partition("@")
    return LadderVersion(
        name, family, version, f"id-{name}", status, 0, Rating(25.0, 8.3), 0, command
    )


def _ladder(store: _Store) -> ClusterLadder:
    return ClusterLadder(LadderConfig(), cast(LadderStore, store), "postgresql://x", 2, "/tmp/w")


def test_command_versions_are_free_and_self_connecting_ones_are_said_once() -> None:
    store = _Store()
    ladder = _ladder(store)
    versions = [
        _version("a@1", 1),
        _version("b@1", 2),
        _version("c@1", 1),
        _version("self@1", None),
        _version("old@1", 1, VersionStatus.RETIRED),
    ]
    for _ in range(3):
        seen = asyncio.run(ladder.presence(versions, {"c@1"}, need=1))
    assert seen == {
        "a@1": (Presence.IDLE, 1),
        "b@1": (Presence.IDLE, 2),
        "c@1": (Presence.PLAYING, 1),
        "self@1": (Presence.AWAY, 0),
    }
    assert [
        (name, "connects by itself" in detail) for _, name, detail in store.presence.errors
    ] == [("self@1", True)]


def test_a_version_with_too_few_sessions_is_away() -> None:
    store = _Store()
    seen = asyncio.run(_ladder(store).presence([_version("a@1", 1)], set(), need=2))
    assert seen == {"a@1": (Presence.AWAY, 1)}
    assert "--matches-at-once" in store.presence.errors[0][2]


def test_the_actors_run_the_active_command_versions() -> None:
    ladder = _ladder(_Store())
    versions = [
        _version("b@1", 1),
        _version("a@1", 2),
        _version("self@1", None),
        _version("old@1", 1, VersionStatus.RETIRED),
    ]
    wanted = ladder._wanted(versions)
    assert [name for name, *_ in wanted] == ["a@1", "b@1"]
    # Published or retired: another set, so the actors are rebuilt before the next block.
    assert ladder._wanted(versions[1:]) != wanted
