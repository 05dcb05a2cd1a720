"""Every match view at 80 columns (a pipe renders at 80 too): nothing cut, no line too long.

One referee plays two matches between bot processes with long names; the views are rendered
from its files, and through Admin for the `--referee` paths. Match ids are taken by any unique
prefix.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest
from typer.testing import CliRunner, Result

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.logreader import MatchLog, read_log
from brandeln.arena.replay import logged_deal
from brandeln.cli.main import app
from brandeln.engine.play_analysis import analyse_play
from brandeln.protocol.events import (
    BidMadeRecord,
    CardPlayedRecord,
    DealEndedRecord,
    EventRecord,
    TrickTakenRecord,
)
from brandeln.v1 import admin_pb2
from tests.conftest import ROOT, AdminClient, BotProcesses

LOGGING_BOT = str(ROOT / "tests" / "cli" / "logging_bot.py")
# As long as names get in practice: a season's `<bot>@<season>` and a descriptive one.
NAMES = (
    "heuristic-2@demo-node",
    "montecarlo@round-robin-2026",
    "random@demo",
    "a-rather-long-name-for-80-cols",
)
WIDTH = 80
runner = CliRunner(env={"COLUMNS": str(WIDTH)})
Body = TypeVar("Body")


@dataclass(frozen=True)
class Played:
    root: Path  # the data folder is root/data; the tests run in root and pass `--data data`
    match_ids: tuple[str, ...]

    def log(self, match_id: str) -> MatchLog:
        path = self.root / "data" / "logs" / f"{match_id}.jsonl"
        return read_log(path.read_text(), str(path))


def bodies(events: Iterable[EventRecord], kind: type[Body], deal: int | None = None) -> list[Body]:
    """What the events of one kind say, in order (of one deal, or of every deal)."""
    return [e.body for e in events if isinstance(e.body, kind) and (deal is None or e.deal == deal)]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    root = tmp_path_factory.mktemp("eighty")
    bots = BotProcesses(root)

    async def play() -> tuple[str, ...]:
        async with EmbeddedReferee(root / "data") as referee:
            admin = AdminClient(referee.address, referee.admin_token)
            ids = []
            for seat, name in enumerate(NAMES):
                reply = await admin.register(name)
                bots.start([LOGGING_BOT, referee.address, reply.token, name, str(seat)])
                ids.append(reply.bot_id)
            await admin.wait_for_sessions(ids)
            match_ids = []
            for seed in (3, 4):
                request = admin_pb2.RunMatchRequest(bot_ids=ids, deals=6, seed=seed)
                _, result = await admin.run_match(request)
                match_ids.append(result.match_id)
            await admin.close()
            return tuple(match_ids)

    try:
        yield Played(root, asyncio.run(play()))
    finally:
        bots.stop()


@pytest.fixture
def in_root(played: Played, monkeypatch: pytest.MonkeyPatch) -> Played:
    """Run in the played folder, so the hints' `--data data` stays short."""
    monkeypatch.chdir(played.root)
    return played


def cli(*args: str) -> Result:
    result = runner.invoke(app, [*args, "--data", "data"])
    assert result.exit_code == 0, result.output
    return result


def assert_fits(output: str) -> None:
    assert "…" not in output
    too_wide = [line for line in output.splitlines() if len(line) > WIDTH]
    assert not too_wide, too_wide


def flat(output: str) -> str:
    """The words of the output in order, without panel borders or line breaks."""
    return " ".join(" ".join(line.strip("│ ") for line in output.splitlines()).split())


def test_the_match_overview_fits_and_shows_every_contract(in_root: Played) -> None:
    for match_id in in_root.match_ids:
        output = cli("matches", "show", match_id).output
        assert_fits(output)
        assert f"match {match_id} (standard)" in output
        words = flat(output)
        for name in NAMES:
            assert name in words
        ended = bodies(in_root.log(match_id).public_events(), DealEndedRecord)
        assert len(ended) == 6
        for row in ended:
            contract = row.contract or "passed out"
            payments = " ".join(f"{p:+d}" for p in row.payments)
            assert f"{contract} " in words
            assert payments in words  # every seat's chips of the deal, none cropped


def test_the_deal_view_fits_and_shows_every_bid_and_every_trick_as_seat_card(
    in_root: Played,
) -> None:
    match_id = in_root.match_ids[0]
    events = in_root.log(match_id).public_events()
    seen_tricks = 0
    for deal in range(1, 7):
        output = cli("matches", "show", match_id, "--deal", str(deal)).output
        assert_fits(output)
        words = flat(output)
        bids = [f"{b.seat}:{NAMES[b.seat]} {b.bid}" for b in bodies(events, BidMadeRecord, deal)]
        assert bids
        assert "auction: " + ", ".join(bids) in words  # the last bids too
        for trick in bodies(events, TrickTakenRecord, deal):
            cards = trick.cards.split()
            played = " ".join(f"{(trick.leader + n) % 4}:{card}" for n, card in enumerate(cards))
            assert f"{trick.trick} {played} {trick.winner}:" in words
            seen_tricks += 1
    assert seen_tricks > 0


def test_the_double_dummy_view_fits_and_marks_every_card_that_gave_a_goal_away(
    in_root: Played,
) -> None:
    log = in_root.log(in_root.match_ids[0])
    judged = 0
    for deal in range(1, 7):
        output = cli(
            "matches", "show", in_root.match_ids[0], "--deal", str(deal), "--double-dummy"
        ).output
        assert_fits(output)
        analysis = analyse_play(*logged_deal(log, deal))
        marked = re.findall(r"\b([CSHD][AKQJT987])\?", output)
        assert marked == [str(verdict.card) for verdict in analysis.errors]
        judged += len(analysis.verdicts)
        if analysis.makes_at_start is not None:
            assert "double dummy (every hand known, best play by all)" in flat(output)
    assert judged > 0
    tallies = cli("matches", "show", in_root.match_ids[0], "--double-dummy").output
    assert_fits(tallies)
    assert "card play, double dummy (6 deals, every hand known)" in flat(tallies)


def test_the_match_list_and_the_bot_list_fit_with_full_ids(in_root: Played) -> None:
    listed = cli("matches", "list").output
    assert_fits(listed)
    for match_id in in_root.match_ids:
        assert match_id in listed
    assert f"matches show {in_root.match_ids[-1]} --data data" in listed
    bots = cli("bots", "list").output
    assert_fits(bots)
    for name in NAMES:
        assert name in bots


def test_a_seats_bot_log_is_shown_inert_line_by_line(in_root: Played) -> None:
    match_id = in_root.match_ids[0]
    output = cli("matches", "show", match_id, "--logs", "1").output
    assert_fits(output)
    assert "\x1b" not in output
    assert "\x07" not in output
    assert f"bot log of seat 1:{NAMES[1]}" in output
    assert "\\x1b]0;owned\\x07[bold]thinking[/bold] about deal 1" in output  # markup shown
    assert "thinking[/bold] about deal 6" in output
    assert "second line \\x1b[2J" in output
    one_deal = cli("matches", "show", match_id, "--deal", "2", "--logs", NAMES[1]).output
    assert "about deal 2" in one_deal
    assert "about deal 1" not in one_deal
    missing = runner.invoke(app, ["matches", "show", match_id, "--logs", "7", "--data", "data"])
    assert missing.exit_code == 1
    assert "no seat '7'" in missing.output


def test_show_json_gives_the_overview_the_deal_and_the_log(in_root: Played) -> None:
    match_id = in_root.match_ids[0]
    events = in_root.log(match_id).public_events()
    overview = json.loads(cli("matches", "show", match_id[:8], "--json").output)
    assert overview["match_id"] == match_id
    assert [s["bot_name"] for s in overview["seats"]] == list(NAMES)
    ended = bodies(events, DealEndedRecord)
    assert [d["payments"] for d in overview["deals"]] == [list(e.payments) for e in ended]
    deal = json.loads(cli("matches", "show", match_id, "--deal", "1", "--json").output)
    assert deal["auction"] == [
        {"seat": b.seat, "bid": b.bid} for b in bodies(events, BidMadeRecord, deal=1)
    ]
    played_cards = [
        {"seat": c.seat, "card": c.card} for c in bodies(events, CardPlayedRecord, deal=1)
    ]
    assert [card for trick in deal["tricks"] for card in trick["cards"]] == played_cards
    logged = json.loads(
        cli("matches", "show", match_id, "--deal", "1", "--logs", "0", "--json").output
    )
    assert logged["bot_log"]["seat"] == 0
    assert logged["bot_log"]["lines"][0]["text"].startswith("\x1b]0;owned")


def test_a_unique_prefix_names_a_match_and_an_ambiguous_one_lists_the_candidates(
    in_root: Played,
) -> None:
    first, second = in_root.match_ids
    prefix = next(first[:n] for n in range(3, len(first)) if not second.startswith(first[:n]))
    shown = cli("matches", "show", prefix)
    assert f"match {first} " in shown.output
    assert f"matches show {first} --deal 1" in shown.output  # the hint has the full id
    assert "reproduced" in cli("matches", "verify", prefix).output
    assert json.loads(cli("matches", "export", prefix).output.splitlines()[0])["match_id"] == first
    ambiguous = runner.invoke(app, ["matches", "show", "m_", "--data", "data"])
    assert ambiguous.exit_code == 1
    assert len(ambiguous.output.strip().splitlines()) == 1
    assert "match id prefix 'm_' is ambiguous" in ambiguous.output
    assert first in ambiguous.output
    assert second in ambiguous.output
    unknown = runner.invoke(app, ["matches", "show", "m_zz", "--data", "data"])
    assert unknown.exit_code == 1
    assert "no match with id 'm_zz'" in unknown.output


async def test_prefixes_and_hints_work_through_a_running_referee(
    in_root: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = in_root.match_ids
    prefix = next(first[:n] for n in range(3, len(first)) if not second.startswith(first[:n]))
    async with EmbeddedReferee(in_root.root / "data") as referee:
        monkeypatch.setenv("BRANDELN_ADMIN_TOKEN", referee.admin_token)
        address = referee.address

        def remote(*args: str) -> Result:
            return runner.invoke(app, [*args, "--referee", address])

        shown = await asyncio.to_thread(remote, "matches", "show", prefix)
        assert shown.exit_code == 0, shown.output
        assert_fits(shown.output.replace(address, "HOST:PORT"))
        assert f"matches show {first} --deal 1 --referee {address}" in shown.output
        ambiguous = await asyncio.to_thread(remote, "matches", "verify", "m_")
        assert ambiguous.exit_code == 1
        assert "is ambiguous" in ambiguous.output
        assert first in ambiguous.output
        assert second in ambiguous.output
        # $BRANDELN_REFEREE stands for --referee: the empty local folder is not read.
        monkeypatch.setenv("BRANDELN_REFEREE", address)
        listed = await asyncio.to_thread(
            runner.invoke, app, ["matches", "list", "--data", "nowhere"]
        )
        assert listed.exit_code == 0, listed.output
        assert f"--referee {address}" in listed.output


# --- lines that wrap, and legends -------------------------------------------------------------


def assert_hangs(output: str, start: str) -> list[str]:
    """The lines of the item that begins with ``start``: within the width, and every line after
    its first indented deeper than the first, so it reads as one item. Returns them."""
    lines = output.splitlines()
    first = next(n for n, line in enumerate(lines) if line.lstrip().startswith(start))
    margin = len(lines[first]) - len(lines[first].lstrip())
    item = [lines[first]]
    for line in lines[first + 1 :]:
        if len(line) - len(line.lstrip()) <= margin:
            break
        item.append(line)
    assert all(len(line) <= WIDTH for line in item), item
    return item


def test_the_last_line_of_ab_wraps_under_its_start_and_counts_its_deals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(
        app,
        ["ab", "--a", "random", "--b", "random", "--deals", "2", "--seed", "3", "--data", "d"],
    )
    assert result.exit_code == 0, result.output
    assert_fits(result.output)
    assert "seed 3; 2 deals, fixed length" in result.output
    last = assert_hangs(result.output, "B - A:")
    assert len(last) >= 2, last  # too long for one line: it wrapped, indented
    words = " ".join(" ".join(last).split())
    assert re.search(r"over 2 deals \(\d+ match(es)?, \d+ s\); fixed length", words), words


def test_ladder_status_wraps_a_periods_commitment_under_its_start(tmp_path: Path) -> None:
    from brandeln.ladder.living.config import LadderConfig  # noqa: PLC0415
    from brandeln.ladder.store.database import LadderStore  # noqa: PLC0415

    data = tmp_path / "data"
    config = LadderConfig()
    with LadderStore.open(data / "ladder.db") as store:
        store.ladders.ensure_ladder(config.name, config.settings(), 4, {})
    added = [cli_at(data, "bots", "version", "add", family, "1", "--json") for family in "abcd"]
    bots = tuple(json.loads(version)["name"] for version in added)
    with LadderStore.open(data / "ladder.db") as store:
        store.planned.plan_block(config.name, bots, config.seed, "r", deals=2, period_blocks=10)
    output = cli_at(data, "ladder", "status")
    assert_fits(output)
    period = assert_hangs(output, "period 0, blocks 0-9 (0 recorded): commitment")
    assert len(period) >= 2, period
    assert "seed not revealed yet: revealed once the last block is recorded" in flat(output)
    assert "queue: 0 challenges waiting" in output


def cli_at(data: Path, *args: str) -> str:
    result = runner.invoke(app, [*args, "--data", str(data)])
    assert result.exit_code == 0, result.output
    return result.output


def ratings_tables(name: str, resamples: int) -> str:
    """`ratings --roles`' tables for two bots, one named ``name``, as printed at 80 columns."""
    from collections import Counter  # noqa: PLC0415

    from rich.console import Console  # noqa: PLC0415

    from brandeln.cli.leaderboard_view import batch_table, decisions_table, leaderboard_table  # noqa: PLC0415
    from brandeln.cli.role_tables import bidding_table, defence_table, soloist_table  # noqa: PLC0415
    from brandeln.ladder.ratings.batch import BatchRating, BatchRatings  # noqa: PLC0415
    from brandeln.ladder.ratings.leaderboard import LeaderboardRow  # noqa: PLC0415
    from brandeln.ladder.ratings.stats import MeanInterval  # noqa: PLC0415
    from brandeln.services.roles.figures import Bidding, RoleFigures  # noqa: PLC0415
    from brandeln.services.roles.season import SeasonRoles  # noqa: PLC0415

    bots = (name, "random@demo")
    rows = [
        LeaderboardRow(
            n + 1, bot, 20.9 - n, 29.0, 2.7, 5, 40, 3, MeanInterval(8.4, 1.2, 5), 8, 8, 0, 0, 0
        )
        for n, bot in enumerate(bots)
    ]
    batch = BatchRatings(
        tuple(
            BatchRating(bot, 0.5 - n, 0.1 - n, 0.9 - n, n + 1, (0.9 - 0.8 * n, 0.1 + 0.8 * n), 5)
            for n, bot in enumerate(bots)
        ),
        resamples=resamples,
        blocks=5,
        seed=1,
    )
    bidding = Bidding(Counter(brand=10), Counter(brand=9), Counter(brand=10), Counter(brand=8))
    roles = SeasonRoles({bot: RoleFigures(bidding=bidding) for bot in bots}, matches=20, deals=80)
    console = Console(width=WIDTH, record=True)
    for table in (
        leaderboard_table(rows, "season s (standard): 5 of 5 blocks"),
        batch_table(batch, rows),
        decisions_table(rows),
        bidding_table(roles),
        soloist_table(roles),
        defence_table(roles),
    ):
        console.print(table, soft_wrap=False)
    return console.export_text()


TERMS = ("TS #:", "made =", "t/o =", "ill. =", "p50, p95:", "chosen =", "made % =", "let through:")


@pytest.mark.parametrize("resamples", [1, 500])
def test_the_ratings_legends_break_between_entries_never_inside_a_term(resamples: int) -> None:
    for length in range(4, 41):
        output = ratings_tables("b" * length, resamples)
        assert_fits(output)
        for term in TERMS:
            assert any(term in line for line in output.splitlines()), (term, output)
        lines = output.splitlines()
        # A legend entry too long for a line goes on indented: "chosen = ..." is one.
        assert len(assert_hangs(output, "chosen = the contracts it played as soloist")) > 1
        assert f"over {resamples} resample{'s' if resamples > 1 else ''} of the blocks" in flat(
            output
        )
        assert not any(line.rstrip().endswith((" TS", " made", " t/o")) for line in lines)


def test_the_leaderboards_made_and_the_biddings_chosen_each_say_what_they_count() -> None:
    # The same bot reads "made 8/8" on the leaderboard and "10 chosen, 9 made" in the bidding
    # table: the leaderboard counts the auctions it won, in rated blocks
    # (brandeln.ladder.referee.tally); the bidding every deal it played as soloist, a pass-out's
    # forced contract too, in every block (brandeln.services.roles.figures). Each legend says which,
    # and where the other differs.
    words = flat(ratings_tables("heuristic", resamples=500))
    assert "8/8 100%" in words
    assert "heuristic brand 10 9 90%" in words
    assert "made = contracts made/bid: the auctions it won as soloist, in rated blocks" in words
    assert (
        "chosen = the contracts it played as soloist: the auctions it won and the contract a "
        "pass-out forced on it, in every block, rated or not (the leaderboard's made/bid counts "
        "the auctions won in rated blocks only)"
    ) in words
    assert "bidding: the contracts each bot played as soloist (80 deals)" in words
