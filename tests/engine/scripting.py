"""Scripted deals for the engine tests: a sample deal and actions written in notation."""

from __future__ import annotations

from brandeln.engine.actions import Action, parse_action
from brandeln.engine.cards import CardSet, parse_cards
from brandeln.engine.dealing import Deal, fixed_deal
from brandeln.engine.rulesets import Ruleset, find_ruleset
from brandeln.engine.state import DealState

# A standard deal used across the tests (dealer 3, so forehand is seat 0 and r = seat).
SEAT_HANDS = (
    "HJ H7 HA HK CA SA DA",
    "HQ HT H9 CK CQ SK DK",
    "CJ CT C9 C7 SQ SJ DQ",
    "ST S9 S7 DJ DT D9 D7",
)


def sample_deal(ruleset: Ruleset | None = None, dealer: int = 3) -> Deal:
    """The deal of ``SEAT_HANDS`` (four players, 28 cards)."""
    return fixed_deal(
        ruleset or find_ruleset("standard"), dealer, [parse_cards(h) for h in SEAT_HANDS]
    )


def run(state: DealState, script: str) -> DealState:
    """Apply the actions written in ``script`` (comma-separated) in order."""
    for text in script.split(","):
        if text.strip():
            state = state.apply(parse_action(text.strip(), state.phase))
    return state


def actions_of(state: DealState, script: str) -> list[Action]:
    """The actions of ``script`` as ``run`` would apply them, starting from ``state``."""
    actions: list[Action] = []
    for text in script.split(","):
        if text.strip():
            action = parse_action(text.strip(), state.phase)
            actions.append(action)
            state = state.apply(action)
    return actions


def names(cards: object) -> str:
    """Card notation of an iterable of cards or of PlayCard actions, in the given order."""
    out = []
    for item in cards:  # type: ignore[attr-defined]
        out.append(str(item))
    return " ".join(out)


def cardset(text: str) -> CardSet:
    """A CardSet from notation."""
    return CardSet(parse_cards(text))
