"""An engine position as the encoding's facts (:class:`brandeln.sdk.encoding.Observation`).

The SDK builds the same facts from a ``DecisionRequest``
(:func:`brandeln.sdk.observation.observation_from_request`); this is the engine's side,
for the research environments, which hold engine states. It imports the engine, so it is not
in the SDK; and neither pyspiel nor PettingZoo, so each environment needs only its own library.

>>> from brandeln.engine.dealing import deal_cards
>>> from brandeln.engine.rulesets import find_ruleset
>>> from brandeln.engine.state import DealState
>>> ruleset = find_ruleset("standard")
>>> state = DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=5))
>>> facts = observation_of_state(state, seat=1)
>>> facts.phase, facts.position, len(facts.hand), facts.tricks_won
('auction', 1, 7, (0, 0, 0, 0))
"""

from __future__ import annotations

from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.state import DealState
from brandeln.engine.view import PlayerView
from brandeln.sdk.encoding import Observation, Trick, action_index

__all__ = ["encoding_from_engine", "observation_of_state", "phase_of_view"]


def phase_of_view(view: PlayerView) -> Phase:
    """The phase a view was taken in, read off what it holds: settled (payments), the play
    (a trick leader, engine Ruling 14), the naming of trump (a contract, no play yet), or
    else the auction."""
    if view.deal_payments:
        return Phase.DONE
    if view.current_trick_leader is not None:
        return Phase.PLAY
    return Phase.TRUMP if view.contract is not None else Phase.AUCTION


def encoding_from_engine(
    view: PlayerView, ruleset: Ruleset, phase: Phase | None = None
) -> Observation:
    """The facts of ``view``, a view of a deal of ``ruleset``; ``phase`` defaults to
    :func:`phase_of_view`."""
    players = ruleset.players
    me = view.seat

    def relative(seat: int) -> int:
        return (seat - me) % players

    won = view.tricks_won
    return Observation(
        ruleset=ruleset.id,
        players=players,
        phase=(phase or phase_of_view(view)).value,
        position=(me - view.forehand) % players,
        hand=tuple(card.index for card in view.hand),  # a CardSet iterates by index
        auction=tuple((relative(bid.seat), action_index(bid.bid.contract)) for bid in view.auction),
        contract=action_index(view.contract) if view.contract is not None else None,
        soloist=relative(view.soloist) if view.soloist is not None else None,
        trump=int(view.trump) if view.trump is not None else None,
        tricks=tuple(
            Trick(
                relative(trick.leader),
                tuple(card.index for card in trick.cards),
                relative(trick.winner),
            )
            for trick in view.tricks
        ),
        trick_leader=(
            relative(view.current_trick_leader) if view.current_trick_leader is not None else None
        ),
        current_trick=tuple(card.index for card in view.current_trick),
        tricks_won=tuple(won[(me + step) % players] for step in range(players)),
    )


def observation_of_state(state: DealState, seat: int) -> Observation:
    """The facts ``seat`` knows in ``state`` (its view, with the state's phase)."""
    return encoding_from_engine(state.view(seat), state.ruleset, state.phase)
