"""The `bot check` report: a table that fits 80 columns with nothing cut, bot text made inert,
and a JSON document; and the fault policy's narrowed offers stay within the rules."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from brandeln.arena.faults import FaultPolicy, offered_choices
from brandeln.cli.check_cmd import report_document, report_table
from brandeln.engine.actions import PASS, Bid
from brandeln.engine.dealing import deal_cards
from brandeln.engine.rulesets import find_ruleset
from brandeln.engine.state import DealState
from brandeln.services.bot_check import CheckName, CheckReport, CheckResult, CheckStatus

LONG = (
    "match 4 of 10: could not seat the bot: no seat after 15 s: bot_0123456789ab needs 1 free "
    "session(s) for 'standard', has 0 free of 0 connected; its process exited with code 3"
)
REPORT = CheckReport(
    (
        CheckResult(CheckName.HANDSHAKE, CheckStatus.PASS, "welcomed: 3 session(s)"),
        CheckResult(CheckName.RULESET, CheckStatus.FAIL, "x \x1b[31mred\x1b[0m [bold]", "russian"),
        CheckResult(CheckName.HOLD, CheckStatus.SKIP, "no ruleset checked has holds"),
        CheckResult(CheckName.ENDURANCE, CheckStatus.FAIL, LONG),
    ),
    bot_name="evil\x1b]0;title\x07[red]bot",
    bot_version="1.0",
    rulesets=("standard", "russian"),
)


def render(width: int = 80) -> str:
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(report_table(REPORT))
    return out.getvalue()


def test_the_report_fits_80_columns_and_cuts_nothing() -> None:
    text = render()
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "…" not in text
    joined = " ".join(text.split())
    for word in ("bot_0123456789ab", "exited with code 3", "ruleset russian", "many matches"):
        assert word in joined


def test_bot_supplied_text_reaches_the_terminal_inert() -> None:
    text = render()
    assert "\x1b" not in text
    assert "\x07" not in text
    assert "[bold]" in text  # shown as written, not taken as markup


def test_the_json_document_has_one_entry_per_check() -> None:
    document = report_document(REPORT)
    assert document["passed"] is False
    checks = document["checks"]
    assert isinstance(checks, list)
    assert [c["status"] for c in checks] == ["pass", "fail", "skip", "fail"]
    assert checks[1]["subject"] == "russian"


def test_a_skipped_check_is_no_failure() -> None:
    skipped = CheckReport((CheckResult(CheckName.HOLD, CheckStatus.SKIP, "n/a"),))
    assert skipped.passed


class OfferOnly(FaultPolicy):
    def __init__(self, offer: list[Bid]) -> None:
        self.choices = offer

    def offer(self, match_id, seat, deal_number, state, legal):  # type: ignore[no-untyped-def]
        return self.choices


def state() -> DealState:
    ruleset = find_ruleset("standard")
    return DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=1))


def test_a_narrowed_offer_refuses_a_legal_answer_it_does_not_offer() -> None:
    deal = state()
    offered, reason = offered_choices(OfferOnly([PASS]), "m", 0, 1, deal, deal.legal_actions())
    assert offered == [PASS]
    assert reason(PASS) is None
    assert reason(Bid("brandle")) == "not among the choices offered in this request"
    assert reason(Bid("nonsense")) is not None  # the rules' own reason still comes first


def test_a_policy_cannot_offer_what_the_rules_forbid() -> None:
    deal = state()
    with pytest.raises(ValueError, match="not a part of"):
        offered_choices(OfferOnly([Bid("nonsense")]), "m", 0, 1, deal, deal.legal_actions())
    with pytest.raises(ValueError, match="not a part of"):
        offered_choices(OfferOnly([]), "m", 0, 1, deal, deal.legal_actions())
