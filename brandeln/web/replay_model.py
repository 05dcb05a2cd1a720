"""A match log as a JSON-able model of each deal, for the replay in the browser.

Every deal is replayed through the engine from its recorded hands and decisions (the log as
:func:`brandeln.arena.logreader.read_log` reads it), so nothing the replay shows is re-derived here:
bids, the contract, the trump, trick winners, trick counts and payments are the engine's
events. A step is described once, from the protocol's record of its event
(:func:`step_of_event`), whether the engine replayed it or a spectator's stream told it.

The model of a match::

    {"match_id", "ruleset", "players", "hand_size", "blind" (true in three-player),
     "deals_total", "status", "seats": [{"seat", "name", "version"}],
     "balances" (the footer's, or None), "deals": [DEAL, ...]}

(the live table adds ``"live": {"events": URL}``, brandeln/web/live.py). A page shows it with
``{% include "_replay.html" %}`` and ``replay=match_model(log)`` in the context.

and of a deal (``hands`` are the dealt hands in display order, ``None`` while a live deal
keeps them hidden)::

    {"number", "dealer", "forehand", "hands": [[card, ...], ...] | None, "blind": [card, ...],
     "auction": [{"seat", "bid"}], "soloist", "contract", "passed_out", "trump",
     "tricks": [{"number", "leader", "cards": [{"seat", "card"}], "winner"}],
     "settlement": {"tricks_won", "made", "payments", "balances", "pool"} | None,
     "complete", "steps": [STEP, ...]}

A step is one thing the viewer sees happen, in order: ``deal`` (the hands are dealt),
``bid``, ``contract`` (the auction's result), ``trump``, ``card``, ``trick`` (won, with the
running trick counts) and ``settlement``. The browser folds the steps up to the one shown
(``brandeln/web/static/replay.js``); every step names the seat it concerns, never a hidden card.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any, TypeAlias

from brandeln.arena.logreader import MatchLog
from brandeln.arena.logrecords import DecisionRecord, HeaderRecord
from brandeln.engine.actions import Action, Bid, NameTrump, PlayCard, parse_action
from brandeln.engine.cards import Card, Suit, parse_card, parse_cards
from brandeln.engine.dealing import fixed_deal
from brandeln.engine.errors import EngineError
from brandeln.engine.events import BidMade, CardPlayed, DealEnded, TrickTaken, TrumpNamed
from brandeln.engine.match import MatchState
from brandeln.engine.play_analysis import PlayAnalysis, SeatPlay, analyse_play
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.seats import forehand_of
from brandeln.engine.state import DealState
from brandeln.engine.trick_rules import canonical_cards
from brandeln.protocol.events import (
    BidMadeRecord,
    CardPlayedRecord,
    ContractSetRecord,
    EventBody,
    EventRecord,
    TrickTakenRecord,
    TrumpNamedRecord,
)
from brandeln.protocol.statuses import SeatOutcome

__all__ = [
    "Json",
    "LiveDeal",
    "deal_model",
    "match_model",
    "match_shell",
    "step_of_event",
]

Json = dict[str, Any]
# A decision to replay: its seat (None: whoever is to act), its action and how it was made.
Decided: TypeAlias = tuple[int | None, Action, SeatOutcome]


def display_order(cards: Iterable[Card], trump: Suit | None, ruleset: Ruleset) -> list[str]:
    """A hand as a player holds it: by suit C S H D, each suit high to low by this deal's
    order (the engine's canonical order, R12.3, turned round within each suit)."""
    by_suit: dict[Suit, list[str]] = {}
    for card in canonical_cards(cards, trump, ruleset.trump_order):
        by_suit.setdefault(card.suit, []).append(str(card))
    return [card for suit in by_suit.values() for card in reversed(suit)]


def step_of_event(event: EventBody, tricks_won: Sequence[int]) -> Json | None:
    """The step a public event shows (None for an event the viewer does not step through):
    the protocol's record of it, as a log or a spectator's stream gives it.

    ``tricks_won`` are the counts once the event happened (shown with a trick won).
    """
    if isinstance(event, BidMadeRecord):
        return {"kind": "bid", "seat": event.seat, "bid": event.bid}
    if isinstance(event, ContractSetRecord):
        return {
            "kind": "contract",
            "soloist": event.soloist,
            "contract": event.contract,
            "passed_out": event.passed_out,
        }
    if isinstance(event, TrumpNamedRecord):
        return {"kind": "trump", "suit": event.suit}
    if isinstance(event, CardPlayedRecord):
        return {"kind": "card", "seat": event.seat, "card": event.card}
    if isinstance(event, TrickTakenRecord):
        return {
            "kind": "trick",
            "number": event.trick,
            "leader": event.leader,
            "winner": event.winner,
            "tricks_won": list(tricks_won),
        }
    return None


def _trick_json(trick: TrickTaken, players: int) -> Json:
    return {
        "number": trick.trick_number,
        "leader": trick.leader,
        "cards": [
            {"seat": (trick.leader + n) % players, "card": str(card)}
            for n, card in enumerate(trick.cards)
        ],
        "winner": trick.winner,
    }


def _settlement(event: DealEnded, match: MatchState) -> Json:
    return {
        "tricks_won": list(event.tricks_won),
        "made": event.made,
        "payments": list(event.payments),
        "balances": list(match.balances),
        "pool": match.pool,
    }


def deal_model(
    match: MatchState,
    number: int,
    hands: Sequence[Sequence[Card]],
    blind: Sequence[Card],
    actions: Iterable[Decided],
) -> tuple[Json, MatchState]:
    """Replay one deal through the engine: its model, and the match after it.

    ``actions`` are ``(seat, action, outcome)`` in order (``outcome`` is the decision's: any
    but ``ok``, e.g. ``timeout``, is shown beside the step; ``seat`` None: whoever is to act,
    as for a trump named in a spectator's stream, which does not say by whom). The deal stops
    at the first action the engine refuses (a damaged log): its model then says
    ``complete: false``.
    """
    ruleset = match.ruleset
    players = ruleset.players
    dealer = match.dealer_of_next_deal
    dealt = fixed_deal(ruleset, dealer, hands, blind)
    state: DealState = match.start_deal(dealt)
    steps: list[Json] = [{"kind": "deal"}]
    settlement: Json | None = None
    applied: list[Action] = []
    for seat, action, status in actions:
        if state.is_over():
            break
        if seat is not None and state.to_act != seat:
            break
        try:
            state, events = state.step(action)
        except EngineError:
            break
        applied.append(action)
        for event in events:
            if isinstance(event, DealEnded):
                match = match.record(event)
                settlement = _settlement(event, match)
                steps.append({"kind": "settlement", **settlement})
                continue
            # The step as the log and the live stream record the event: one description.
            step = step_of_event(EventRecord.of(event, 0, number).body, state.tricks_won)
            if step is not None:
                acted = isinstance(event, BidMade | TrumpNamed | CardPlayed)
                if status is not SeatOutcome.OK and acted:
                    step["status"] = status.value
                steps.append(step)
    makes_at_start = None
    card_play: list[Json] | None = None
    if settlement is not None:  # a finished deal: every hand is shown, so judge its play
        analysis = analyse_play(ruleset, dealt, applied)
        makes_at_start = _mark_double_dummy(steps, analysis)
        if analysis.verdicts:
            card_play = _seat_play(analysis, players)
    trump = state.trump
    model: Json = {
        "number": number,
        "dealer": dealer,
        "forehand": forehand_of(dealer, players),
        "hands": [display_order(hand, trump, ruleset) for hand in hands],
        "blind": display_order(blind, trump, ruleset),
        "auction": [{"seat": bid.seat, "bid": bid.bid.contract} for bid in state.auction],
        "soloist": state.soloist,
        "contract": None if state.contract is None else state.contract.id,
        "passed_out": state.passed_out,
        "trump": None if trump is None else trump.letter,
        "tricks": [_trick_json(trick, players) for trick in state.tricks],
        "settlement": settlement,
        "complete": settlement is not None,
        # Whether the contract could be made when the play began, double dummy (None: not a
        # finished deal with a soloist); a card step that gave its side's goal away has "dd".
        "double_dummy": makes_at_start,
        # Each seat's cards that mattered and its slips among them (brandeln.engine.play_analysis),
        # as soloist and as defender; None where double_dummy is.
        "card_play": card_play,
        "steps": steps,
    }
    return model, match


def _seat_play(analysis: PlayAnalysis, players: int) -> list[Json]:
    tallies = [SeatPlay() for _ in range(players)]
    for verdict in analysis.verdicts:
        tallies[verdict.seat].add(verdict)
    return [asdict(tally) for tally in tallies]


def match_card_play(deals: Iterable[Json], players: int) -> list[Json] | None:
    """Each seat's card play over the match's judged deals (their ``card_play`` summed), as
    `brandeln matches show --double-dummy` tallies it; None where no deal was judged."""
    judged = [deal["card_play"] for deal in deals if deal.get("card_play")]
    if not judged:
        return None
    return [
        {field: sum(deal[seat][field] for deal in judged) for field in judged[0][seat]}
        for seat in range(players)
    ]


def _mark_double_dummy(steps: list[Json], analysis: PlayAnalysis) -> bool | None:
    """Give each card step that gave its side's goal away (double dummy) the cards that would
    have kept it; the value at the start of the play."""
    if analysis.verdicts:
        cards = [step for step in steps if step["kind"] == "card"]
        for step, verdict in zip(cards, analysis.verdicts, strict=True):
            if verdict.error:
                step["dd"] = {
                    "for_soloist": verdict.for_soloist,
                    "better": [str(card) for card in verdict.better],
                }
    return analysis.makes_at_start


def _decision_actions(decisions: Sequence[DecisionRecord]) -> list[Decided]:
    """The decisions to replay, up to the first whose action does not parse (a damaged log)."""
    actions: list[Decided] = []
    for decision in decisions:
        try:
            action = parse_action(decision.action)
        except EngineError:
            break
        actions.append((decision.seat, action, decision.outcome))
    return actions


def match_shell(header: HeaderRecord) -> Json:
    """The match's model without deals: what the log's header says (a live table starts so)."""
    ruleset = header.ruleset()
    return {
        "match_id": header.match_id,
        "ruleset": ruleset.id,
        "players": ruleset.players,
        "hand_size": ruleset.hand_size,
        "blind": ruleset.blind,
        "deals_total": header.deals,
        "status": "running",
        "seats": [
            {
                "seat": seat.seat,
                "name": seat.bot_name or seat.hello_name or "",
                "version": seat.bot_version or "",
            }
            for seat in header.seats
        ],
        "balances": None,
        "deals": [],
        "card_play": None,
    }


def new_match_state(header: HeaderRecord) -> MatchState:
    return MatchState.new(header.ruleset(), header.deals, header.first_dealer)


def match_model(log: MatchLog) -> Json:
    """The model of a whole match from its validated log (``brandeln.arena.logreader.read_log``)."""
    model = match_shell(log.header)
    match = new_match_state(log.header)
    for logged in log.deals():
        if match.is_over:
            break
        deal = logged.record
        try:
            hands = [parse_cards(text) for text in deal.hands]
            blind = parse_cards(deal.blind)
            built, match = deal_model(
                match, deal.deal_number, hands, blind, _decision_actions(logged.decisions)
            )
        except (EngineError, ValueError):
            break  # a deal the engine cannot deal or record: the replay stops before it
        model["deals"].append(built)
        if not built["complete"]:
            break
    model["card_play"] = match_card_play(model["deals"], model["players"])
    if log.footer is not None:
        model["status"] = log.footer.status.value
        model["balances"] = list(log.footer.balances)
    return model


class LiveDeal:
    """A deal being played, seen as a spectator sees it: public events only, no hand.

    Fed the public events in order (:meth:`add`: the protocol's records, as
    ``AdminClient.watch_match`` gives them); its :meth:`model` has ``hands: None`` and the
    steps so far. At ``DealEnded`` the caller replaces it with the full :func:`deal_model`
    built from the revealed hands and the actions collected here (:attr:`actions`).
    """

    def __init__(self, match: MatchState, number: int) -> None:
        self.match = match
        self.number = number
        self.dealer = match.dealer_of_next_deal
        self.steps: list[Json] = [{"kind": "deal"}]
        self.actions: list[Decided] = []
        self.tricks_won = [0] * match.ruleset.players

    def add(self, event: EventBody) -> Json | None:
        """Record a public event; returns the step it shows, if any (the records of a stream
        hold cards and suits the engine reads: ``brandeln.protocol.decode`` checked them)."""
        if isinstance(event, TrickTakenRecord):
            self.tricks_won[event.winner] += 1
        step = step_of_event(event, self.tricks_won)
        if step is not None:
            self.steps.append(step)
        ok = SeatOutcome.OK  # a spectator is told what was played, not how it was decided
        if isinstance(event, BidMadeRecord):
            self.actions.append((event.seat, Bid(event.bid), ok))
        elif isinstance(event, CardPlayedRecord):
            self.actions.append((event.seat, PlayCard(parse_card(event.card)), ok))
        elif isinstance(event, TrumpNamedRecord):
            # The soloist names it: the stream does not say whose turn it was.
            self.actions.append((None, NameTrump(Suit.parse(event.suit)), ok))
        return step

    def model(self) -> Json:
        players = self.match.ruleset.players
        return {
            "number": self.number,
            "dealer": self.dealer,
            "forehand": forehand_of(self.dealer, players),
            "hands": None,
            "blind": [],
            "settlement": None,
            "complete": False,
            "steps": list(self.steps),
        }
