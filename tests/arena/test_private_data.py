"""What the referee keeps at rest, and who can read it: a live deal's hands are nowhere (not in
the log file, not through ``GetMatch``), and its files are private to the user.

Real referee over gRPC on loopback, real bot processes (tests/arena/minimal_bot.py).
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from brandeln.arena.codec import cards_to_pb
from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.logreader import read_log
from brandeln.arena.replay import replay_log
from brandeln.engine.cards import parse_cards
from brandeln.v1 import admin_pb2, cards_pb2
from tests.conftest import MINIMAL_BOT, AdminClient, BotProcesses

CARD = re.compile(r"\b[CSHD][789TJQKA]\b")
# Four fixed deals of the standard game (28 cards, 7 a seat), each a different split.
FIXED_HANDS = [
    ["CA CK CQ CJ CT C9 C7", "SA SK SQ SJ ST S9 S7", "HA HK HQ HJ HT H9 H7",
     "DA DK DQ DJ DT D9 D7"],
    ["CA CK SA SK HA HK DA", "CQ CJ SQ SJ HQ HJ DK", "CT C9 ST S9 HT H9 DQ",
     "C7 S7 H7 D7 DJ DT D9"],
    ["CA SK HQ DJ CT S9 H7", "SA HK DQ CJ ST H9 D7", "HA DK CQ SJ HT D9 C7",
     "DA CK SQ HJ DT C9 S7"],
    ["CA CQ CT C7 SA SQ ST", "CK CJ C9 SK SJ S9 S7", "HA HQ HT H7 DA DQ DT",
     "HK HJ H9 DK DJ D9 D7"],
]  # fmt: skip


def _fixed_deal(number: int) -> admin_pb2.FixedDeal:
    return admin_pb2.FixedDeal(
        dealer=number % 4,
        hands=[
            cards_pb2.Hand(seat=seat, cards=cards_to_pb(parse_cards(hand)))
            for seat, hand in enumerate(FIXED_HANDS[number])
        ],
    )


def _values_holding_a_hand(text: str, hands: list[str]) -> list[str]:
    """The values in a log's records (strings, or lists of cards) that hold every card of one
    of ``hands``: a hand as a set, in any order, whatever the notation around it."""
    found = []

    def visit(value: object) -> None:
        if isinstance(value, dict):
            for item in value.values():
                visit(item)
        elif isinstance(value, list):
            if value and all(isinstance(item, str) and CARD.fullmatch(item) for item in value):
                check(" ".join(value))  # a hand as a list of cards
            for item in value:
                visit(item)
        elif isinstance(value, str):
            check(value)

    def check(value: str) -> None:
        cards = set(CARD.findall(value))
        if any(set(hand.split()) <= cards for hand in hands):
            found.append(value[:200])

    for line in text.splitlines():
        visit(json.loads(line))
    return found


@pytest.mark.parametrize("dealt", ["seeded", "fixed"])
async def test_no_hand_of_a_live_deal_is_on_disk_or_in_get_match(
    referee: EmbeddedReferee,
    admin: AdminClient,
    bot_processes: BotProcesses,
    tmp_path: Path,
    dealt: str,
) -> None:
    # Seat 0 sends 15 KB of BotLog at its first request of deal 2 (more than a file buffer
    # holds), then one illegal choice, whose penalty tells the test the referee has read both;
    # it answers only once the test has looked.
    release = tmp_path / "release"
    ids = []
    for n, behaviour in enumerate(["blabber", "first", "first", "first"]):
        reply = await admin.register(f"{behaviour}-{n}")
        bot_processes.start(
            [MINIMAL_BOT, referee.address, reply.token, behaviour],
            name=behaviour,
            env={"MINIMAL_BOT_RELEASE": str(release)},
        )
        ids.append(reply.bot_id)
    await admin.wait_for_sessions(ids)
    request = admin_pb2.RunMatchRequest(
        bot_ids=ids, time_control=cards_pb2.TimeControl(move_ms=60_000, bank_ms=1)
    )
    if dealt == "seeded":
        request.deals, request.seed = 4, 12345
    else:
        request.fixed_deals.extend(_fixed_deal(n) for n in range(4))

    match_id = ""
    on_disk = live = ""
    async for update in admin.stub.RunMatch(request, metadata=admin.metadata):
        if update.WhichOneof("kind") == "started":
            match_id = update.started.match_id
        event = update.event
        if not live and event.WhichOneof("kind") == "seat_penalized" and event.deal_number == 2:
            on_disk = (referee.data_dir / "logs" / f"{match_id}.jsonl").read_text()
            running = await admin.stub.GetMatch(
                admin_pb2.GetMatchRequest(match_id=match_id), metadata=admin.metadata
            )
            assert running.summary.status == "running"
            live = running.log_jsonl
            release.touch()
    assert live, "the blabbering seat was never penalized in deal 2"

    final = await admin.stub.GetMatch(
        admin_pb2.GetMatchRequest(match_id=match_id), metadata=admin.metadata
    )
    assert final.summary.status == "finished"
    log = read_log(final.log_jsonl)
    assert replay_log(final.log_jsonl).reproduced
    hands_2 = list(log.deal(2).record.hands)
    if dealt == "fixed":
        assert [set(h.split()) for h in hands_2] == [set(h.split()) for h in FIXED_HANDS[1]]

    for text in (on_disk, live):
        assert _values_holding_a_hand(text, hands_2) == []
        assert "x" * 1000 not in text  # the live deal's bot log is not there either
        partial = read_log(text)  # whole lines only, each valid
        assert [deal.number for deal in partial.deals()] == [1]
        # Deal 1 is there in full: the log replays as incomplete but valid up to it.
        report = replay_log(text)
        assert report.deals_replayed == 1
        assert report.problems == ("the log has no footer (the match did not finish)",)
    # Neither the file nor GetMatch tells a running match's seed (every deal to come follows
    # from it): it is written only in the footer, once the match is over.
    for text in (on_disk, live):
        assert read_log(text).header.seed is None
    footer = log.footer
    assert footer is not None
    assert footer.seed == (None if dealt == "fixed" else request.seed)


def _modes(root: Path) -> Iterator[tuple[str, int]]:
    for path in [root, *sorted(root.rglob("*"))]:
        yield str(path.relative_to(root.parent)), stat.S_IMODE(path.stat().st_mode)


async def test_the_referees_files_are_private_to_the_user_whatever_the_umask(
    tmp_path: Path, bot_processes: BotProcesses
) -> None:
    old_umask = os.umask(0o022)
    try:
        data = tmp_path / "data"
        async with EmbeddedReferee(data) as referee:
            admin = AdminClient(referee.address, referee.admin_token)
            try:
                ids = []
                for n in range(4):
                    reply = await admin.register(f"first-{n}")
                    bot_processes.start([MINIMAL_BOT, referee.address, reply.token, "first"])
                    ids.append(reply.bot_id)
                await admin.wait_for_sessions(ids)
                _, result = await admin.run_match(
                    admin_pb2.RunMatchRequest(bot_ids=ids, deals=2, seed=3)
                )
                assert result.status == "finished"
                # While the referee runs: the database, its WAL and shared memory, the logs.
                names = {name for name, _ in _modes(data)}
                assert {"data/referee.db", "data/referee.db-wal", "data/referee.db-shm"} <= names
                assert f"data/logs/{result.match_id}.jsonl" in names
                wrong = {
                    name: oct(mode)
                    for name, mode in _modes(data)
                    if mode != (0o700 if (tmp_path / name).is_dir() else 0o600)
                }
                assert wrong == {}
            finally:
                await admin.close()
    finally:
        os.umask(old_umask)


async def test_files_left_readable_by_an_older_version_are_made_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "logs").mkdir(parents=True, mode=0o755)
    old_log = data / "logs" / "m_old.jsonl"
    old_log.write_text(json.dumps({"type": "header"}) + "\n")
    for name in ("referee.db", "referee.db-wal", "referee.db-shm"):
        (data / name).touch()
        os.chmod(data / name, 0o644)
    os.chmod(data / "logs", 0o755)
    async with EmbeddedReferee(data):
        assert stat.S_IMODE((data / "referee.db").stat().st_mode) == 0o600
        assert stat.S_IMODE((data / "referee.db-wal").stat().st_mode) == 0o600
        assert stat.S_IMODE((data / "logs").stat().st_mode) == 0o700
