"""`brandeln matches ...` and `brandeln bots ...` through Typer's runner, locally and remotely."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.logreader import read_log
from brandeln.arena.replay import logged_deal
from brandeln.cli.card_play import card_play_json, season_card_play
from brandeln.cli.main import app
from brandeln.cli.match_view import double_dummy_json
from brandeln.engine.play_analysis import SeatPlay, analyse_play
from brandeln.ladder.store.database import RecordedMatch
from brandeln.services.sources import LocalSource
from brandeln.v1 import admin_pb2
from tests.conftest import MINIMAL_BOT, AdminClient, BotProcesses

runner = CliRunner()


@dataclass
class Played:
    data: Path
    match_id: str
    referee: EmbeddedReferee


@pytest.fixture
async def played(tmp_path: Path, bot_processes: BotProcesses) -> AsyncIterator[Played]:
    """A referee (still running) whose data folder holds one finished 2-deal match."""
    data = tmp_path / "data"
    async with EmbeddedReferee(data) as referee:
        admin = AdminClient(referee.address, referee.admin_token)
        ids = []
        for n in range(4):
            reply = await admin.register(f"bot{n}")
            bot_processes.start([MINIMAL_BOT, referee.address, reply.token, "first"])
            ids.append(reply.bot_id)
        await admin.wait_for_sessions(ids)
        _, result = await admin.run_match(admin_pb2.RunMatchRequest(bot_ids=ids, deals=2, seed=8))
        await admin.close()
        yield Played(data, result.match_id, referee)


async def test_matches_list_shows_the_match_and_how_to_inspect_it(played: Played) -> None:
    result = runner.invoke(app, ["matches", "list", "--data", str(played.data)])
    assert result.exit_code == 0, result.output
    assert played.match_id in result.output
    assert f"brandeln matches show {played.match_id}" in result.output


async def test_matches_list_json_and_bot_filter(played: Played) -> None:
    result = runner.invoke(
        app, ["matches", "list", "--data", str(played.data), "--json", "--bot", "bot2"]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [r["match_id"] for r in rows] == [played.match_id]
    unknown = runner.invoke(app, ["matches", "list", "--data", str(played.data), "--bot", "zz"])
    assert unknown.exit_code == 1
    assert "no bot named" in unknown.output


async def test_matches_show_overview_and_one_deal_trick_by_trick(played: Played) -> None:
    overview = runner.invoke(app, ["matches", "show", played.match_id, "--data", str(played.data)])
    assert overview.exit_code == 0, overview.output
    assert "deals" in overview.output
    assert "status: finished" in overview.output
    deal = runner.invoke(
        app, ["matches", "show", played.match_id, "--deal", "1", "--data", str(played.data)]
    )
    assert deal.exit_code == 0, deal.output
    for heading in ("hands", "auction", "tricks", "settlement", "contract"):
        assert heading in deal.output
    missing = runner.invoke(
        app, ["matches", "show", played.match_id, "--deal", "9", "--data", str(played.data)]
    )
    assert missing.exit_code == 1
    assert "no deal 9" in missing.output


async def test_matches_show_double_dummy_judges_every_card_of_a_deal(played: Played) -> None:
    show = ["matches", "show", played.match_id, "--data", str(played.data)]
    result = runner.invoke(app, [*show, "--deal", "1", "--double-dummy", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    log = read_log((played.data / "logs" / f"{played.match_id}.jsonl").read_text())
    expected = double_dummy_json(analyse_play(*logged_deal(log, 1)))
    assert document["double_dummy"] == expected
    cards = [(c["seat"], c["card"]) for t in document["tricks"] for c in t["cards"]]
    if expected["makes_at_start"] is not None:
        assert [(c["seat"], c["card"]) for c in expected["cards"]] == cards
        last = expected["cards"][-1]
        assert (last["kept"] == last["for_soloist"]) == document["result"]["made"]
    text = runner.invoke(app, [*show, "--deal", "1", "--double-dummy"])
    assert text.exit_code == 0, text.output
    assert "double dummy" in text.output
    # Without --deal: each seat's tally over the match, every deal's cards added up.
    whole = runner.invoke(app, [*show, "--double-dummy", "--json"])
    assert whole.exit_code == 0, whole.output
    tallies = {row["bot"]: row for row in json.loads(whole.output)["double_dummy"]["bots"]}
    assert list(tallies) == [f"{seat}:bot{seat}" for seat in range(4)]
    every = [
        verdict
        for deal in (1, 2)
        for verdict in analyse_play(*logged_deal(log, deal)).verdicts
        if verdict.could
    ]
    assert sum(t["soloist_cards"] + t["defender_cards"] for t in tallies.values()) == len(every)
    assert sum(t["soloist_slips"] + t["defender_slips"] for t in tallies.values()) == sum(
        verdict.error for verdict in every
    )
    table = runner.invoke(app, [*show, "--double-dummy"])
    assert "card play, double dummy (2 deals, every hand known)" in table.output


def with_a_card_never_held(log: str) -> str:
    """The log with the first card decision of deal 1 naming a card its seat never held."""
    lines = [json.loads(line) for line in log.splitlines()]
    deal = next(r for r in lines if r["type"] == "deal" and r["deal_number"] == 1)
    first = next(
        n for n, r in enumerate(lines) if r["type"] == "decision" and len(r["action"]) == 2
    )
    held = deal["hands"][lines[first]["seat"]].split()
    lines[first]["action"] = next(
        card for hand in deal["hands"] for card in hand.split() if card not in held
    )
    return "".join(json.dumps(r) + "\n" for r in lines)


async def test_a_log_whose_play_does_not_replay_is_one_line_for_the_analysis(
    played: Played,
) -> None:
    log = played.data / "logs" / f"{played.match_id}.jsonl"
    log.write_text(with_a_card_never_held(log.read_text()))
    args = ["matches", "show", played.match_id, "--data", str(played.data), "--deal", "1"]
    result = runner.invoke(app, [*args, "--double-dummy"])
    assert result.exit_code == 1
    assert "deal 1 cannot be replayed for its analysis: action" in result.output
    assert "Traceback" not in result.output
    assert runner.invoke(app, args).exit_code == 0  # the deal itself still shows


async def test_a_season_s_card_play_tallies_each_bot_and_names_what_it_could_not_judge(
    played: Played,
) -> None:
    source = LocalSource(played.data)
    _, text = source.match(played.match_id)

    def read(match_id: str) -> tuple[str, str]:
        if match_id == "m_tampered":
            return with_a_card_never_held(text), "tampered.jsonl"
        record, log = source.match(match_id)
        return log, source.log_name(record)

    bots = ("w", "x", "y", "z")
    good = RecordedMatch(0, 0, played.match_id, "CSHD", bots, (0, 0, 0, 0), 2)
    missing, tampered = (replace(good, match_id=name) for name in ("m_missing", "m_tampered"))
    calls: list[int] = []
    found = season_card_play([good, missing, good, tampered], bots, read, lambda: calls.append(1))
    assert calls == [1, 1, 1, 1]
    assert found.deals == 2 + 2 + 1  # the tampered log's second deal is still judged
    assert [line.split(":")[0] for line in found.unread] == ["m_missing", "m_tampered deal 1"]
    # Each bot's tally: the good match twice, and deal 2 once more from the tampered log.
    log = read_log(text)
    expected = {bot: SeatPlay() for bot in bots}
    for number, times in ((1, 2), (2, 3)):
        for verdict in analyse_play(*logged_deal(log, number)).verdicts:
            for _ in range(times):
                expected[bots[verdict.seat]].add(verdict)
    assert any(tally.soloist_mattered + tally.defender_mattered for tally in expected.values())
    assert found.bots == expected
    document = card_play_json(found)
    assert [row["bot"] for row in document["bots"]] == list(bots)
    assert document["unread"] == found.unread


async def test_matches_export_prints_the_jsonl_log(played: Played) -> None:
    result = runner.invoke(app, ["matches", "export", played.match_id, "--data", str(played.data)])
    assert result.exit_code == 0
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert lines[0]["type"] == "header"
    assert lines[-1]["type"] == "footer"


async def test_matches_verify_reproduces_and_catches_a_tampered_log(played: Played) -> None:
    ok = runner.invoke(app, ["matches", "verify", played.match_id, "--data", str(played.data)])
    assert ok.exit_code == 0, ok.output
    assert "reproduced" in ok.output
    log = played.data / "logs" / f"{played.match_id}.jsonl"
    lines = log.read_text().splitlines()
    footer = json.loads(lines[-1])
    footer["balances"][0] += 3
    footer["balances"][1] -= 3
    log.write_text("\n".join([*lines[:-1], json.dumps(footer)]) + "\n")
    bad = runner.invoke(app, ["matches", "verify", played.match_id, "--data", str(played.data)])
    assert bad.exit_code == 1
    assert "not reproduced" in bad.output


async def test_matches_verify_json_reports_the_replay(played: Played) -> None:
    args = ["matches", "verify", played.match_id[:6], "--data", str(played.data), "--json"]
    ok = runner.invoke(app, args)
    assert ok.exit_code == 0, ok.output
    report = json.loads(ok.output)
    assert report["match_id"] == played.match_id  # the full id, though a prefix was given
    assert (report["reproduced"], report["deals_replayed"], report["problems"]) == (True, 2, [])
    assert report["replayed_balances"] == report["recorded_balances"]
    log = played.data / "logs" / f"{played.match_id}.jsonl"
    lines = log.read_text().splitlines()
    footer = json.loads(lines[-1])
    footer["balances"][0] += 3
    footer["balances"][1] -= 3
    log.write_text("\n".join([*lines[:-1], json.dumps(footer)]) + "\n")
    bad = runner.invoke(app, args)
    assert bad.exit_code == 1
    report = json.loads(bad.output)
    assert report["reproduced"] is False
    assert report["problems"]


async def test_unknown_match_and_missing_database_are_clear_errors(
    played: Played, tmp_path: Path
) -> None:
    unknown = runner.invoke(app, ["matches", "show", "m_nope", "--data", str(played.data)])
    assert unknown.exit_code == 1
    assert "no match with id 'm_nope'" in unknown.output
    empty = runner.invoke(app, ["matches", "list", "--data", str(tmp_path / "void")])
    assert empty.exit_code == 1
    assert "no referee database" in empty.output


async def test_a_corrupt_log_line_is_reported_not_a_traceback(played: Played) -> None:
    log = played.data / "logs" / f"{played.match_id}.jsonl"
    log.write_text(log.read_text() + "{not json\n")
    result = runner.invoke(app, ["matches", "show", played.match_id, "--data", str(played.data)])
    assert result.exit_code == 1
    assert "not JSON" in result.output


async def test_remote_inspection_through_admin(
    played: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRANDELN_ADMIN_TOKEN", played.referee.admin_token)
    address = played.referee.address
    # The CLI blocks on its calls, so it runs in a thread while this loop serves the referee.
    listed = await asyncio.to_thread(runner.invoke, app, ["matches", "list", "--referee", address])
    assert listed.exit_code == 0, listed.output
    assert played.match_id in listed.output
    verified = await asyncio.to_thread(
        runner.invoke, app, ["matches", "verify", played.match_id, "--referee", address]
    )
    assert verified.exit_code == 0, verified.output
    monkeypatch.setenv("BRANDELN_ADMIN_TOKEN", "wrong")
    denied = await asyncio.to_thread(runner.invoke, app, ["matches", "list", "--referee", address])
    assert denied.exit_code == 1
    assert "UNAUTHENTICATED" in denied.output


def test_bots_add_prints_the_token_once_and_list_shows_the_bot(tmp_path: Path) -> None:
    added = runner.invoke(app, ["bots", "add", "alice", "--data", str(tmp_path)])
    assert added.exit_code == 0, added.output
    assert "token (shown once)" in added.output
    again = runner.invoke(app, ["bots", "add", "alice", "--data", str(tmp_path)])
    assert again.exit_code == 1
    assert "already registered" in again.output
    listed = runner.invoke(app, ["bots", "list", "--data", str(tmp_path), "--json"])
    assert [b["name"] for b in json.loads(listed.output)] == ["alice"]
    db = (tmp_path / "referee.db").read_bytes()
    token = added.output.split("token (shown once):")[1].split()[0]
    assert token.encode() not in db  # only its hash is stored


def test_help_lists_the_command_groups() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for group in ("serve", "matches", "bots"):
        assert group in result.output
