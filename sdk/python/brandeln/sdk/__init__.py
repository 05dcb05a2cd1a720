"""The Brandeln bot SDK: write one ``decide`` method, the SDK does the rest.

>>> from brandeln.sdk import Bot, SessionOptions, run
>>> class FirstLegal(Bot):
...     name = "first-legal"
...     def decide(self, request):
...         return 0  # index into request.legal
>>> # run(FirstLegal, SessionOptions(server="localhost:50051", token="..."), tables=2)

It needs only the generated stubs (``brandeln.v1``) and grpc; never the engine.
"""

from brandeln.sdk.bot import (
    Answer,
    Bot,
    FunctionBot,
    InvalidAnswerError,
    legal_texts,
    resolve_answer,
)
from brandeln.sdk.launch import run
from brandeln.sdk.notation import (
    PASS,
    NotationError,
    bid_choice,
    card_choice,
    card_text,
    cards_text,
    choice_text,
    parse_card,
    parse_choice,
    parse_suit,
    suit_letter,
    trump_choice,
)
from brandeln.sdk.session import (
    DEFAULT_CONNECT_TIMEOUT_S,
    PROTOCOL_VERSION,
    BadTokenError,
    BotKitError,
    ProtocolError,
    ProtocolVersionError,
    Session,
    SessionOptions,
    SessionStats,
    UnreachableError,
    play,
)
from brandeln.sdk.situation import Situation
from brandeln.sdk.trick import TrickRules, trick_winner

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT_S",
    "PASS",
    "PROTOCOL_VERSION",
    "Answer",
    "BadTokenError",
    "Bot",
    "BotKitError",
    "FunctionBot",
    "InvalidAnswerError",
    "NotationError",
    "ProtocolError",
    "ProtocolVersionError",
    "Session",
    "SessionOptions",
    "SessionStats",
    "Situation",
    "TrickRules",
    "UnreachableError",
    "bid_choice",
    "card_choice",
    "card_text",
    "cards_text",
    "choice_text",
    "legal_texts",
    "parse_card",
    "parse_choice",
    "parse_suit",
    "play",
    "resolve_answer",
    "run",
    "suit_letter",
    "trick_winner",
    "trump_choice",
]
