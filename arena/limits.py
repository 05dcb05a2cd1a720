"""Every cap the referee puts on what a peer may send, hold or make it store, in one place.

A peer is hostile until its token says otherwise, and a bot with a token may still be buggy or
malicious: each thing it can make the referee keep (memory, a database row, a log line, a
reason sent to every seat, a file descriptor) has a bound here.

- :class:`ConnectionLimits`: the transport (connections, handshakes, streams, idle
  connections), applied by ``brandeln.arena.server.create_server``.
- :class:`ProtocolLimits`: the strings a bot sends (``Hello`` fields, contract strings) and the
  session history they leave behind.
- The flood limits (messages, sessions, resumes, debug text) are plain constants: they are read
  where no configuration reaches (a session's send queue, a seat's inbox) and tests patch them.

>>> clip("x" * 300, 10)
'xxxxxxx...'
>>> quote_prefix("a\\x1b[2Jb" * 10, 8)
"'a\\\\x1b[2Jba\\\\x1b'... (60 characters)"
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BOT_LOG_BYTES_PER_MATCH",
    "DRAIN_TIMEOUT_S",
    "HELLO_TIMEOUT_S",
    "LOBBY_MESSAGE_LIMIT",
    "MAX_BOT_MESSAGE_BYTES",
    "MAX_MESSAGES_PER_REQUEST",
    "MAX_RESUMES_PER_MATCH",
    "MAX_SESSIONS_PER_BOT",
    "MIN_ADMIN_TOKEN_CHARS",
    "OPEN_REQUEST_INBOX_LIMIT",
    "OUTBOX_LIMIT",
    "RESERVED_FILES",
    "SEAT_INBOX_LIMIT",
    "ConnectionLimits",
    "ProtocolLimits",
    "as_shown",
    "clip",
    "quote_prefix",
]

# --- flood limits ----------------------------------------------------------------------------
# The largest BotMessage the referee reads; a real one is well under 1 KiB.
MAX_BOT_MESSAGE_BYTES = 16 * 1024
# A stream must say hello within this time.
HELLO_TIMEOUT_S = 10.0
# Messages a session in the lobby may send before the stream is ended as a flood.
LOBBY_MESSAGE_LIMIT = 64
# How long a closing session may take to send what was queued before its close (the last
# events, MatchEnded) to a bot that reads slowly; a bot that does not read gets nothing more.
DRAIN_TIMEOUT_S = 5.0
# Messages a session may have queued and unread before it is dropped as a slow reader. A deal
# sends a seat about 50 messages, so this is several deals' worth.
OUTBOX_LIMIT = 512
# Seat sessions one bot may have open at once (a season opens one per table it plays).
MAX_SESSIONS_PER_BOT = 256
# Messages a seated session may have waiting for its seat's turn (a forfeited seat is never
# asked again, so it never reads them); past this the stream is ended as a flood. While the
# seat's request is open its table reads them as they come (and strikes a flood), so only a
# bot outpacing that reading meets the larger cap.
SEAT_INBOX_LIMIT = 64
OPEN_REQUEST_INBOX_LIMIT = 1024
# Times one seat may resume in one match. Each resume restarts the open decision's clock, so
# without a limit a bot that drops and resumes in a loop would hold its table forever.
MAX_RESUMES_PER_MATCH = 10
# Messages a seat may send while one request is open before each further one is a strike: a bot
# that floods the referee is penalized, not served.
MAX_MESSAGES_PER_REQUEST = 8
# Debug text a seat may store in one match's log.
BOT_LOG_BYTES_PER_MATCH = 16 * 1024

# Open files kept back from connections at the least: the database and its WAL, match logs,
# gRPC's own pipes and epoll set.
RESERVED_FILES = 128

# The shortest admin token `brandeln serve` accepts from the operator (generated ones are 43
# characters): the Admin service is reachable by anyone who can reach the port.
MIN_ADMIN_TOKEN_CHARS = 16


@dataclass(frozen=True)
class ConnectionLimits:
    """What one TCP peer may hold, before it has shown any token.

    gRPC's own defaults let a peer that connects and sends nothing keep its connection for
    120 s, and accept connections until the process runs out of file descriptors: then every
    new health check, Admin call and bot connection waits in the kernel's queue.
    """

    # A connection must finish its TLS and HTTP/2 handshake (send the HTTP/2 preface and
    # SETTINGS) within this time, or it is closed. A real client needs a round trip or two.
    handshake_timeout_ms: int = 5_000
    # Connections served at once, at most; the referee also keeps a quarter of its open-file
    # limit (at least RESERVED_FILES) for its database and match logs, whichever is lower.
    max_connections: int = 4096
    # Streams (calls) open at once on one connection: a season's Admin channel runs up to 1024
    # tables (the ladder's concurrency cap) plus a few unary calls; a bot process has at most
    # MAX_SESSIONS_PER_BOT sessions. A client past this waits for a free stream.
    max_streams_per_connection: int = 1280
    # A connection with no call open for this long is closed (GOAWAY; a client reconnects on
    # its next call). A bot in the lobby always has its Play stream open, so only peers that
    # completed the handshake and then sat idle meet it. There is deliberately no maximum
    # connection age: a bot's stream lives as long as its session, across many matches.
    max_connection_idle_ms: int = 30_000

    def connection_cap(self, open_file_limit: int) -> int:
        """The connections to accept at once under a soft RLIMIT_NOFILE of ``open_file_limit``.

        >>> ConnectionLimits().connection_cap(1024), ConnectionLimits().connection_cap(256)
        (768, 128)
        """
        reserved = max(RESERVED_FILES, open_file_limit // 4)
        return max(1, min(self.max_connections, open_file_limit - reserved))


@dataclass(frozen=True)
class ProtocolLimits:
    """Caps on the strings a bot sends, and on the history its sessions leave.

    A ``Hello`` with a field over its cap is refused (``INVALID_ARGUMENT`` naming the field and
    the cap) rather than truncated: a bot's name and version are how its author finds its
    matches, and a silently cut version would look like another build.
    """

    bot_name_chars: int = 64  # the same as a registered bot name
    bot_version_chars: int = 64
    ruleset_id_chars: int = 32  # each entry of Hello.rulesets
    rulesets_per_hello: int = 32
    match_id_chars: int = 64  # Hello.resume_match_id (ids are 18 characters)
    # A contract string in an action longer than this is malformed: the longest contract id of
    # any ruleset is 12 characters.
    contract_id_chars: int = 32
    # A rejection or penalty reason (sent to the bot, or to every seat, and written to the log).
    reason_chars: int = 200
    # How much of an over-long bot string a reason quotes.
    quoted_prefix_chars: int = 16
    # Closed session rows kept per bot in the referee database (the newest); a bot that
    # reconnects in a loop must not grow it without bound. Open sessions are always kept.
    closed_sessions_kept_per_bot: int = 50


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, marked with "..." when cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 3)] + "..."


def as_shown(text: str, limit: int) -> str:
    """``text`` as it is when it is short and printable, else :func:`quote_prefix`'s quotation:
    a message that names what a bot sent stays readable, and never carries its escapes."""
    if len(text) <= limit and text.isprintable():
        return text
    return quote_prefix(text, limit)


def quote_prefix(text: str, limit: int) -> str:
    """A short, escaped quotation of a bot-supplied string: ``repr`` of its first ``limit``
    characters (control and format characters come out as escapes), and its length if cut."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"
