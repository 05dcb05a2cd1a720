"""What a bot may be called: registered names, and the names and versions a Hello carries.

Every one of them ends up on an operator's terminal, in other bots' ``MatchStarted`` and in match
logs, so the referee refuses text that could act instead of being read: control characters
(ESC, NUL, BEL, DEL, the C1 range), bidi overrides and other invisible format characters, line
and paragraph separators, surrogates and unassigned code points. The CLI escapes such characters
anyway (``brandeln.cli.terminal_text``); refusing them here keeps them out of the records too.

>>> check_name("mallory")
'mallory'
>>> check_name("bell\\x07")
Traceback (most recent call last):
...
ValueError: a bot name may not contain control or format characters: 'bell\\x07' has U+0007 ...
"""

from __future__ import annotations

import unicodedata

from brandeln.arena.errors import BotProtocolError
from brandeln.arena.limits import ProtocolLimits
from brandeln.arena.orders import HelloRequest

__all__ = [
    "MAX_NAME_LENGTH",
    "check_hello_fields",
    "check_hello_text",
    "check_name",
    "unsafe_character",
]

# Long enough for "<bot>@<season>-2", short enough for a table column.
MAX_NAME_LENGTH = ProtocolLimits.bot_name_chars

# The Unicode categories that are not text to read: control (Cc: C0, DEL, C1), format (Cf: bidi
# embeddings, overrides and isolates, zero-width marks), surrogate, private use, unassigned, and
# the line/paragraph separators. The same set the CLI escapes.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def unsafe_character(text: str) -> tuple[int, str] | None:
    """The first character of ``text`` that is not plain text, with its 1-based position."""
    if text.isprintable():  # one C-level scan for the common case
        return None
    for position, char in enumerate(text, start=1):
        if unicodedata.category(char) in _UNSAFE_CATEGORIES:
            return position, char
    return None  # only spaces other than U+0020 made isprintable() false; they are text


def _refuse_unsafe(text: str, what: str) -> None:
    found = unsafe_character(text)
    if found is not None:
        position, char = found
        # repr() shows every such character escaped, so the message is safe to print.
        raise ValueError(
            f"{what} may not contain control or format characters: {text!r} has "
            f"U+{ord(char):04X} at position {position}"
        )


def check_name(name: str, what: str = "a bot name") -> str:
    """A registered bot name, stripped; ``ValueError`` saying why it is refused.

    A name is 1 to 64 characters of plain text (no control or format characters).
    """
    name = name.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        raise ValueError(
            f"{what} is 1 to {MAX_NAME_LENGTH} characters, not {len(name)}: {name[:80]!r}"
        )
    _refuse_unsafe(name, what)
    return name


def check_hello_text(text: str, what: str) -> str:
    """A ``Hello.bot_name`` or ``Hello.bot_version``: may be empty, and holds no control or
    format characters. (Its length is capped by :class:`brandeln.arena.limits.ProtocolLimits`,
    checked with the Hello's other strings by the referee.)"""
    _refuse_unsafe(text, what)
    return text


def check_hello_fields(hello: HelloRequest, limits: ProtocolLimits) -> None:
    """Refuse a Hello whose strings are over their caps: each is kept for the session's
    life, written to the database or echoed in a reply."""
    fields = [
        ("bot_name", hello.bot_name, limits.bot_name_chars),
        ("bot_version", hello.bot_version, limits.bot_version_chars),
        ("resume_match_id", hello.resume_match_id, limits.match_id_chars),
    ]
    fields += [("rulesets entry", r, limits.ruleset_id_chars) for r in hello.rulesets]
    for name, value, cap in fields:
        if len(value) > cap:
            raise BotProtocolError(f"hello.{name} has {len(value)} characters; the cap is {cap}")
    if len(hello.rulesets) > limits.rulesets_per_hello:
        raise BotProtocolError(
            f"hello.rulesets has {len(hello.rulesets)} entries; the cap is "
            f"{limits.rulesets_per_hello}"
        )
