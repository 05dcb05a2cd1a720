"""The bot an author writes: one method from a ``DecisionRequest`` to a choice.

Subclass :class:`Bot` and implement :meth:`Bot.decide`; it receives the request (its ``legal``
choices in canonical order and a full ``view`` snapshot) and returns one of the legal
``Choice`` messages or an index into ``request.legal``. The optional hooks (``on_match_start``,
``on_deal_start``, ``on_event``, ``on_match_end``, ...) see everything else the referee sends.
One bot object serves one seat session, so it may keep per-match state in attributes.

>>> from brandeln.sdk.notation import choice_text
>>> class FirstLegal(Bot):
...     name = "first-legal"
...     def decide(self, request: bot_pb2.DecisionRequest) -> Answer:
...         return 0  # the first legal choice
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeAlias

from brandeln.sdk.notation import choice_text
from brandeln.v1 import bot_pb2, cards_pb2

Answer: TypeAlias = cards_pb2.Choice | int
"""What :meth:`Bot.decide` returns: a legal ``Choice`` or its index in ``request.legal``."""


class InvalidAnswerError(ValueError):
    """A bot answered with something that is not one of the request's legal choices."""


class Bot:
    """Base class of a bot; one instance per seat session (see :func:`~brandeln.sdk.run`).

    Attributes (on the class or the instance) set what the SDK says in its ``Hello``: ``name``
    and ``version`` (recorded in match logs), ``wants_events`` (``False`` asks for
    ``snapshot_only``: no public events but ``DealEnded``, since every request carries a full
    snapshot anyway) and ``rulesets`` (ids the bot can play; empty means all).

    While a session runs, ``match`` holds the current ``MatchStarted`` (``None`` in the lobby)
    and ``deal`` the current ``DealStarted``; the SDK sets them before calling the hooks.
    """

    name: str = "bot"
    version: str = "0.1.0"
    wants_events: bool = False
    rulesets: tuple[str, ...] = ()
    decide_in_thread: bool = True
    """Run :meth:`decide` in a worker thread so a slow search never stalls the connection."""

    def __init__(self) -> None:
        self.match: bot_pb2.MatchStarted | None = None
        self.deal: bot_pb2.DealStarted | None = None
        self._log_sink: Callable[[str], None] | None = None

    # --- the one method to write -------------------------------------------------------
    def decide(self, request: bot_pb2.DecisionRequest) -> Answer:
        """Return a choice from ``request.legal`` (or its index). Must be overridden."""
        raise NotImplementedError(f"{type(self).__name__} must implement decide(request)")

    async def decide_async(self, request: bot_pb2.DecisionRequest) -> Answer:
        """How the SDK calls :meth:`decide`; override for bots that are async by nature."""
        if self.decide_in_thread:
            return await asyncio.to_thread(self.decide, request)
        return self.decide(request)

    # --- optional hooks ----------------------------------------------------------------
    def on_welcome(self, welcome: bot_pb2.Welcome) -> None:
        """The referee accepted the Hello (once per stream, so again after a resume)."""

    def on_match_start(self, match: bot_pb2.MatchStarted) -> None:
        """The session was seated at a table."""

    def on_deal_start(self, deal: bot_pb2.DealStarted) -> None:
        """A new deal: ``deal.hand`` holds this seat's cards."""

    def on_event(self, event: cards_pb2.GameEvent) -> None:
        """A public event (only ``DealEnded`` unless ``wants_events`` is set)."""

    def on_rejected(self, rejected: bot_pb2.ActionRejected) -> None:
        """The referee rejected an answer (the SDK then answers the first legal choice)."""

    def on_match_end(self, ended: bot_pb2.MatchEnded) -> None:
        """The match is over; the session goes back to the lobby."""

    async def close(self) -> None:
        """The session is over; release what the bot holds (processes, files)."""

    # --- services for the bot ----------------------------------------------------------
    def log(self, text: str) -> None:
        """Send debug text to the match log (``BotLog``); safe to call from :meth:`decide`."""
        if self._log_sink is not None:
            self._log_sink(text)


class FunctionBot(Bot):
    """A bot made of a plain function ``request -> Answer``.

    >>> bot = FunctionBot(lambda request: 0, name="first-legal")
    >>> bot.name
    'first-legal'
    """

    def __init__(
        self, decide: Callable[[bot_pb2.DecisionRequest], Answer], name: str = "function-bot"
    ) -> None:
        super().__init__()
        self._decide = decide
        self.name = name

    def decide(self, request: bot_pb2.DecisionRequest) -> Answer:
        return self._decide(request)


def resolve_answer(request: bot_pb2.DecisionRequest, answer: Answer) -> cards_pb2.Choice:
    """The legal ``Choice`` an answer stands for; raises :class:`InvalidAnswerError` otherwise."""
    legal = request.legal
    if isinstance(answer, bool) or not isinstance(answer, int | cards_pb2.Choice):
        raise InvalidAnswerError(
            f"decide() returned {answer!r}; return a Choice from request.legal or an index"
        )
    if isinstance(answer, int):
        if not 0 <= answer < len(legal):
            raise InvalidAnswerError(
                f"decide() returned index {answer}, but there are {len(legal)} legal choices"
            )
        return legal[answer]
    for choice in legal:
        if choice == answer:
            return choice
    shown = choice_text(answer) if answer.WhichOneof("kind") else "an empty Choice"
    raise InvalidAnswerError(
        f"decide() returned {shown}, which is not legal here; "
        f"legal: {' '.join(choice_text(c) for c in legal)}"
    )


def legal_texts(request: bot_pb2.DecisionRequest) -> list[str]:
    """The request's legal choices in notation (``["pass", "brandle"]``, ``["HJ", "CA"]``)."""
    return [choice_text(choice) for choice in request.legal]
