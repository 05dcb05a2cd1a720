"""The engine's exception hierarchy.

Every error the engine raises on bad input derives from :class:`EngineError` and from the
built-in class a caller would expect (``ValueError``, or ``KeyError`` for a lookup), so callers
may catch either the specific class, ``EngineError`` or the built-in one.

>>> from brandeln.engine.cards import parse_card
>>> try:
...     parse_card("X9")
... except EngineError as error:
...     print(type(error).__name__)
CardParseError
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error raised by the rules engine."""


class CardParseError(EngineError, ValueError):
    """Card notation that does not name a card (message names the token and the notation)."""


class ActionParseError(EngineError, ValueError):
    """Text that does not name an action."""


class UnknownRulesetError(EngineError, ValueError):
    """A ruleset id that is not registered (message lists the known ids)."""


class RulesetOptionError(EngineError, ValueError):
    """An unknown ruleset switch, or a value it does not allow (message lists the allowed)."""


class UnknownContractError(EngineError, KeyError):
    """A contract id the ruleset does not have (message lists the known ids)."""

    def __str__(self) -> str:
        # KeyError.__str__ would show the repr of the message, quotes and all.
        return str(self.args[0]) if self.args else ""


class InvalidDealError(EngineError, ValueError):
    """Hands that cannot form a deal of the ruleset (message says exactly what is wrong)."""


class IllegalActionError(EngineError, ValueError):
    """An action the rules forbid in the current state (message gives the reason)."""


class ReplayError(EngineError, ValueError):
    """An action list that cannot be replayed; ``index`` is the first illegal action."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"action {index} is illegal: {reason}")
        self.index = index
        self.reason = reason
