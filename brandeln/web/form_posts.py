"""What every post the web front takes must pass before its fields are read: the ladder's
challenge form (:mod:`brandeln.web.challenge_form`) and the tables where people play
(:mod:`brandeln.web.table_routes`) share these checks.

- :func:`own_origin`: the post comes from a page of this very site. A browser names the
  page's origin in ``Origin`` on every POST (a form's and a script's ``fetch`` alike); none, or
  another site's, cannot be told from a forged post, so it is refused: a page elsewhere cannot
  act with a visitor's browser. :mod:`brandeln.web.guard` refuses such a post already, before
  routing, by the same rule (:func:`brandeln.services.trusted_hosts.is_own_origin`), and the
  ``Host`` it is compared with is one the server answers to (a rebound name is refused there).
- :func:`read_form`: a form body (``application/x-www-form-urlencoded``, else 415) of at most
  ``max_bytes`` (else 413), read no further than that.
- :func:`parse_fields`: at most ``max_fields`` fields of UTF-8 text (else 400).

Each refusal is raised as the caller's own error type (``refused(status, reason)``), so its
page answers it as its other refusals.

>>> parse_fields(b"a=1&a=2&b=", max_fields=4, refused=ValueError)
{'a': ['1', '2'], 'b': ['']}
"""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus
from typing import Final
from urllib.parse import parse_qs

from starlette.requests import Request

from brandeln.services.trusted_hosts import is_own_origin

__all__ = ["FORM_TYPE", "Refused", "own_origin", "parse_fields", "read_form"]

FORM_TYPE: Final = "application/x-www-form-urlencoded"

Refused = Callable[[HTTPStatus, str], Exception]


def own_origin(request: Request) -> bool:
    """Whether the request names exactly one origin, the request's own."""
    headers = request.headers
    return is_own_origin(headers.getlist("origin"), request.url.scheme, headers.getlist("host"))


async def read_form(request: Request, *, max_bytes: int, what: str, refused: Refused) -> bytes:
    """The body of a form post (``what`` names it in the refusals)."""
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind != FORM_TYPE:
        raise refused(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, f"{what} is sent as {FORM_TYPE}")
    too_big = refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"{what} is at most {max_bytes} bytes")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise too_big
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > max_bytes:
            raise too_big
    return bytes(body)


def parse_fields(body: bytes, *, max_fields: int, refused: Refused) -> dict[str, list[str]]:
    """The fields of a form body, blank ones kept."""
    try:
        return parse_qs(
            body.decode("utf-8"),
            keep_blank_values=True,
            errors="strict",
            max_num_fields=max_fields,
        )
    except ValueError:  # not UTF-8 (UnicodeDecodeError is one), or too many fields
        raise refused(
            HTTPStatus.BAD_REQUEST, f"the form is not {max_fields} fields of UTF-8 text at most"
        ) from None
