"""Protobuf's wire encoding, the primitives (see :mod:`brandeln.arena.codec.wire`, which writes the
referee's hottest messages with them).

A field is its tag (``number << 3 | wire type``, a varint) and its value; a varint is 7 bits a
byte, low first; a length-delimited value (a message, a string, a packed list) is its length as
a varint, then its bytes; an ``int64`` below zero is its two's complement on 64 bits (ten
bytes). proto3 leaves a scalar at its default out.

>>> varint(300), tag(2, WIRE_LENGTH), packed(tag(5, WIRE_LENGTH), [1, 2])
(b'\\xac\\x02', b'\\x12', b'*\\x02\\x01\\x02')
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

__all__ = [
    "ENUM_OFFSET",
    "WIRE_LENGTH",
    "WIRE_VARINT",
    "length_delimited",
    "packed",
    "string",
    "tag",
    "uint",
    "varint",
]

ENUM_OFFSET: Final = 1  # a proto enum value is the engine's + 1 (0 is *_UNSPECIFIED)
WIRE_VARINT: Final = 0
WIRE_LENGTH: Final = 2


def _encode_varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64  # int64: two's complement
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL = tuple(_encode_varint(n) for n in range(1 << 14))  # every one- and two-byte varint
# Larger values recur too: a request's bank (20 s by default) is a three-byte varint that changes
# only when a move takes more than the move time.
_larger_varint = functools.lru_cache(maxsize=1024)(_encode_varint)


def varint(value: int) -> bytes:
    """``value`` as a varint (an ``int64`` below zero on ten bytes)."""
    if 0 <= value < 16384:
        return _SMALL[value]
    return _larger_varint(value)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def length_delimited(field: bytes, payload: bytes) -> bytes:
    n = len(payload)
    return field + (_SMALL[n] if n < 16384 else _encode_varint(n)) + payload


def packed(field: bytes, values: Sequence[int]) -> bytes:
    """A packed repeated scalar field (nothing when empty)."""
    if not values:
        return b""
    small = _SMALL
    payload = b"".join([small[v] if 0 <= v < 16384 else _encode_varint(v) for v in values])
    return length_delimited(field, payload)


def uint(field: bytes, value: int) -> bytes:
    """A proto3 scalar field: left out at zero."""
    return field + varint(value) if value else b""


def string(field: bytes, text: str) -> bytes:
    """A proto3 string field: left out when empty."""
    return length_delimited(field, text.encode()) if text else b""
