"""`brandeln matches verify` recomputes every result a log shows from its hands and decisions.

A real match is recorded once (tests/cli/conftest.py); each test edits one displayed result in a
copy of its log and checks that verify fails, naming the field and the deal first.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest
from typer.testing import CliRunner

from brandeln.cli.main import app
from tests.cli.conftest import MatchCopy

runner = CliRunner()

Records = list[dict[str, Any]]


def _events(records: Records, kind: str, deal: int) -> list[dict[str, Any]]:
    return [r for r in records if r.get("kind") == kind and r["deal"] == deal]


def _footer(records: Records) -> dict[str, Any]:
    assert records[-1]["type"] == "footer"
    return records[-1]


def edit_ranks(records: Records) -> None:
    footer = _footer(records)
    footer["ranks"] = [rank % 4 + 1 for rank in footer["ranks"]]


def reverse_ranks(records: Records) -> None:
    footer = _footer(records)
    footer["ranks"] = footer["ranks"][::-1]


def edit_strikes(records: Records) -> None:
    footer = _footer(records)
    footer["strikes"] = [0] * len(footer["strikes"])


def edit_forfeits(records: Records) -> None:
    footer = _footer(records)
    footer["forfeited"] = []


def edit_payments(records: Records) -> None:
    (ended,) = _events(records, "deal_ended", 2)
    ended["payments"][1] += 1  # still zero-sum: only the replay can tell
    ended["payments"][2] -= 1


def edit_trick_winner(records: Records) -> None:
    trick = _events(records, "trick_taken", 1)[0]
    trick["winner"] = (trick["winner"] + 1) % 4


def _other_contract(contract: str | None) -> str:
    return "brand" if contract == "mord" else "mord"


def edit_contract(records: Records) -> None:
    (auction,) = _events(records, "contract_set", 3)
    auction["contract"] = _other_contract(auction["contract"])


def edit_result_contract(records: Records) -> None:
    (ended,) = _events(records, "deal_ended", 3)
    ended["contract"] = _other_contract(ended["contract"])


def edit_forfeited_seats_card(records: Records) -> None:
    """Seat 0 forfeited in deal 1: give one of its fallback card plays another card."""
    deal = next(r for r in records if r["type"] == "deal" and r["deal_number"] == 2)
    hand = deal["hands"][0].split()
    decision = next(
        r
        for r in records[records.index(deal) :]
        if r["type"] == "decision" and r["seat"] == 0 and r["action"] in hand
    )
    decision["action"] = next(card for card in hand if card != decision["action"])


EDITS: list[tuple[Callable[[Records], None], str]] = [
    (edit_ranks, "footer: ranks:"),
    (reverse_ranks, "footer: ranks:"),
    (edit_strikes, "footer: strikes:"),
    (edit_forfeits, "footer: forfeited:"),
    (edit_payments, "deal 2, result: payments:"),
    (edit_trick_winner, "deal 1, trick 1: winner:"),
    (edit_contract, "deal 3, auction: contract:"),
    (edit_result_contract, "deal 3, result: contract:"),
    (edit_forfeited_seats_card, "deal 2, decision"),
]


def _verify(copy: MatchCopy) -> tuple[int, list[str]]:
    result = runner.invoke(app, ["matches", "verify", copy.match_id, "--data", str(copy.data)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output.splitlines()


def test_an_untouched_log_is_reproduced(match_copy: MatchCopy) -> None:
    code, lines = _verify(match_copy)
    assert code == 0, lines
    assert lines[0].startswith("reproduced: 4 deals replayed")


@pytest.mark.parametrize(("edit", "first_problem"), EDITS, ids=[e.__name__ for e, _ in EDITS])
def test_an_edited_result_is_not_reproduced_and_named_with_its_deal(
    match_copy: MatchCopy, edit: Callable[[Records], None], first_problem: str
) -> None:
    match_copy.edit(edit)
    code, lines = _verify(match_copy)
    assert code == 1, lines
    assert lines[0].startswith("not reproduced:"), lines
    assert str(match_copy.log) in lines[0]
    assert lines[1].startswith(f"- {first_problem}"), lines


def test_the_problem_says_what_the_log_shows_and_what_the_replay_gives(
    match_copy: MatchCopy,
) -> None:
    recorded = _events(match_copy.records(), "trick_taken", 1)[0]["winner"]
    match_copy.edit(edit_trick_winner)
    _, lines = _verify(match_copy)
    assert lines[1] == (
        f"- deal 1, trick 1: winner: the log says {(recorded + 1) % 4}, the replay gives {recorded}"
    )


def _index_ranks(copy: MatchCopy, ranks: list[int]) -> None:
    with sqlite3.connect(copy.data / "referee.db") as db:
        db.execute("UPDATE matches SET ranks=?", (json.dumps(ranks),))
    db.close()


def test_an_index_row_with_edited_ranks_is_not_reproduced(match_copy: MatchCopy) -> None:
    """The match index's row is what lists, ratings and leaderboards show: it is checked
    against the replay like the footer. Once a row with reversed ranks verified as
    reproduced, since only the log was read."""
    ranks = _footer(match_copy.records())["ranks"]
    _index_ranks(match_copy, ranks[::-1])
    code, lines = _verify(match_copy)
    assert code == 1, lines
    assert lines[1] == (
        f"- the match index: ranks: the database says {ranks[::-1]}, the replay gives {ranks}"
    )


def _show(copy: MatchCopy, *extra: str) -> tuple[int, str]:
    result = runner.invoke(
        app, ["matches", "show", copy.match_id, "--data", str(copy.data), *extra]
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def _shown_ranks(output: str) -> list[int]:
    """The rank column of the overview's result table (seat rows start with a seat number)."""
    header = next(line for line in output.splitlines() if line.startswith("seat  bot"))
    at = header.index("rank") + len("rank")
    lines = output.splitlines()
    rows = lines[lines.index(header) + 1 : lines.index(header) + 5]
    return [int(row[:at].split()[-1]) for row in rows]


def test_show_prints_the_replayed_result_and_says_an_edited_log_does_not_reproduce(
    match_copy: MatchCopy,
) -> None:
    """Once `matches show` printed a footer's reversed ranks as the match's result."""
    ranks = _footer(match_copy.records())["ranks"]
    code, output = _show(match_copy)
    assert code == 0
    assert "not reproduced" not in output
    assert _shown_ranks(output) == ranks
    match_copy.edit(reverse_ranks)
    code, output = _show(match_copy)
    assert code == 0, output
    first = output.splitlines()[0]
    assert first.startswith("not reproduced: footer: ranks: the log says"), output
    assert f"brandeln matches verify {match_copy.match_id}" in output
    assert _shown_ranks(output) == ranks  # the replay's, not the edited ones


def test_show_as_json_carries_the_replayed_result_and_the_problems(
    match_copy: MatchCopy,
) -> None:
    ranks = _footer(match_copy.records())["ranks"]
    match_copy.edit(reverse_ranks)
    code, output = _show(match_copy, "--json")
    assert code == 0
    document = json.loads(output)
    assert document["reproduced"] is False
    assert document["problems"][0].startswith("footer: ranks:")
    assert [seat["rank"] for seat in document["seats"]] == ranks
