"""The Brandeln rules engine: pure rules, standard library only (docs/RULES.md, ARCHITECTURE.md).

No I/O, no clocks, no global randomness: a deal is a pure function of ruleset, dealer and seed
(or of explicit hands), and a deal's state is an immutable value.

What a first program needs comes from this one import (a whole random deal):

>>> import random
>>> from brandeln.engine import DealState, deal_cards, find_ruleset
>>> ruleset = find_ruleset("standard")
>>> state = DealState.new(ruleset, deal_cards(ruleset, dealer=0, seed=1))
>>> rng = random.Random(1)
>>> while not state.is_over():
...     actions = state.legal_actions()
...     state = state.apply(actions[rng.randrange(len(actions))])
>>> sum(state.outcome().payments)
0

The rest of the front door: ``Ruleset``, the actions (``Bid``, ``PASS``, ``NameTrump``,
``PlayCard``, ``Action``, ``parse_action``), ``IllegalActionError`` (what ``apply`` raises, with
the reason), ``DealOutcome``, ``MatchState`` (a match of many deals), ``Card``, ``CardSet`` and
``Suit``.

Modules: ``cards`` (cards, notation, card sets), ``seats`` (seat arithmetic), ``rulesets``
(variants as data), ``actions``, ``dealing``, ``auction`` and ``trick_rules`` (the rules core of
R5 and R8), ``settlement`` (R9, R10), ``state`` (``DealState``), ``view``, ``events``,
``outcome``, ``match`` (``MatchState``), ``replay``, ``permutation``, ``playout`` (fast random
playouts), ``errors``.

Rulings
-------
Where docs/RULES.md is silent or ambiguous, the engine decides as follows.

1. Auction turns (R5.4): after every action the turn goes clockwise to the next seat that has
   neither passed nor holds the contract; a player who was outbid speaks again in turn.
2. Muss-Spiel (R6.1): ``ContractSet(soloist=forehand, contract=<lowest>, passed_out=True)``,
   then forehand names trump like any soloist and leads.
3. Naming trump (R7.1): all four suits are always legal.
4. Sudden death (R9.2) follows the goal: every *zero* contract (``bettel``, russian ``null``)
   ends when the soloist takes a trick, every *all* contract (``mord``, ``herrenmord``, russian
   ``all``/``all-no-trump``) when a defender takes one. At-least and exact contracts and the
   russian free play are played to the last trick (R9.3).
5. ``early_stop = when_decided`` reads "no play can change the result" from the trick counts:
   the deal ends after a trick once every way of sharing out the remaining tricks settles the
   same (for the free play: the same scores for everyone). ``early_stop = never`` plays even
   the sudden-death contracts to the last trick (settlement is unchanged).
6. ``undertrump = free`` applies wherever a void player must trump: one who cannot beat a
   trump already in the trick may play any card (also under classic-1860's any-trump duty and
   russian's).
7. ``head_rule = suit`` names the highest card of the led suit; when trumps are led that card
   is the winning card, so both head rules agree there.
8. Haferl: the pool taken by a soloist who makes a contract is part of that deal's payments
   (``pool_delta = -pool``); a deal learns the pool from ``DealState.new(..., pool=)``, which
   ``MatchState.start_deal`` passes. A passed-out deal counts as one of the match's deals and
   the deal passes left as usual (R1.2).
9. The pool left at match end always divides evenly (each pass-out adds one chip per seat and
   the pool is only taken whole); a remainder, were there one, would go one chip per seat
   clockwise from the first deal's forehand.
10. Match length (R11.1): default 8 deals, 9 in ``three-player`` (a multiple of N); the
    russian rulesets play until a seat has at least the target (21), at most 120 deals, and
    rank by score.
11. Ranks: forfeited seats share the rank after every other seat, whatever their chips.
12. Russian free play (pass-out): ``made`` is ``None``; every seat tied for most tricks scores
    +1; a seat taking every trick scores -3 and nobody else scores.
13. ``three-player`` keeps the standard contract values; the soloist moves (N-1)V = 2V.
14. ``PlayerView.current_trick_leader`` is set during the play only; ``MatchState.deal_number``
    counts the deals recorded so far (the next deal is number ``deal_number + 1``).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

from brandeln.compiled.extensions import PURE_PYTHON_ENV, CompiledModules

if TYPE_CHECKING:
    from brandeln.engine.actions import PASS, Action, Bid, NameTrump, PlayCard, parse_action
    from brandeln.engine.cards import Card, CardSet, Suit
    from brandeln.engine.dealing import deal_cards
    from brandeln.engine.errors import IllegalActionError
    from brandeln.engine.match import MatchState
    from brandeln.engine.outcome import DealOutcome
    from brandeln.engine.rulesets import Ruleset, find_ruleset
    from brandeln.engine.state import DealState

# The front door: each name and the module it comes from. They load on first use (PEP 562), not
# here: the compiled modules must be chosen before anything imports them, and every start of the
# CLI imports this package, which must stay cheap (importing them all eagerly costs ~0.5 s).
_FRONT_DOOR: Final[dict[str, str]] = {
    "Action": "actions",
    "Bid": "actions",
    "NameTrump": "actions",
    "PASS": "actions",
    "PlayCard": "actions",
    "parse_action": "actions",
    "Card": "cards",
    "CardSet": "cards",
    "Suit": "cards",
    "deal_cards": "dealing",
    "IllegalActionError": "errors",
    "MatchState": "match",
    "DealOutcome": "outcome",
    "Ruleset": "rulesets",
    "find_ruleset": "rulesets",
    "DealState": "state",
}

__all__ = [
    "PASS",
    "PURE_PYTHON_ENV",
    "Action",
    "Bid",
    "Card",
    "CardSet",
    "DealOutcome",
    "DealState",
    "IllegalActionError",
    "MatchState",
    "NameTrump",
    "PlayCard",
    "Ruleset",
    "Suit",
    "compiled_modules",
    "deal_cards",
    "find_ruleset",
    "parse_action",
    "pure_module",
]

# What the install compiles (brandeln.compiled.modules), in its own mypyc group.
_MODULES = CompiledModules.listed(__name__, __path__[0])

# The core runs compiled as a whole or not at all (brandeln.compiled.extensions): with
# BRANDELN_PURE_PYTHON=1, or one stale extension, every module is imported from its source
# until the next install (`make install`) builds them again.
_MODULES.choose()


def __getattr__(name: str) -> Any:
    """A front-door name, imported from its module on first use (after the choice above)."""
    module = _FRONT_DOOR.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # the next lookup is a plain one
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_FRONT_DOOR})


def compiled_modules() -> tuple[str, ...]:
    """The engine modules imported so far from a compiled extension rather than a source file:
    empty in a pure-Python install or with ``BRANDELN_PURE_PYTHON=1``.

    >>> import brandeln.engine.state
    >>> set(compiled_modules()) <= {"brandeln.engine." + name for name in _MODULES.compilable}
    True
    """
    return _MODULES.compiled_modules()


def pure_module(name: str) -> ModuleType:
    """A fresh copy of engine module ``name`` (``"state"``, ``"brandeln.engine.state"``) run from
    its Python source, the reference, whether or not the installed one is compiled: for doctests
    and for comparing the two. The copy is not registered in ``sys.modules``; it imports the
    other engine modules as installed.

    >>> pure_module("seats").left_of(3, 4)
    0
    """
    return _MODULES.pure_module(name)
