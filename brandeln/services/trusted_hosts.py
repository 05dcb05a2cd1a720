"""Which ``Host`` a server of ours answers to, and which ``Origin`` a post may come from: the
defence against DNS rebinding, one definition for the web pages (:mod:`brandeln.web.guard`) and the
metrics endpoints (:mod:`brandeln.services.metrics.endpoint`).

A page on a hostile domain whose DNS the attacker points at 127.0.0.1 (or at a LAN address)
is, to the browser, of one origin with our server there: it could read every page and post
every form. What it cannot change is the name in ``Host``, its own domain's. So a server
answers only to the names it knows (:meth:`TrustedHosts.for_bind`):

- ``127.0.0.1``, ``localhost`` and ``[::1]``, always (a loopback address is reached by these);
- on a loopback address that is another one (``127.0.0.2``), that address too;
- on any other address (a LAN address, ``0.0.0.0``), every IP address: a ``Host`` that is an
  IP address is one the browser was given, never a name an attacker's DNS points here; and the
  address when it is a name;
- the names its operator lists (``--allowed-host``): ``NAME`` at the port the server listens
  on, ``NAME:PORT`` at that port (a proxy in front serves the pages on another port).

Each at the port the server listens on: ``Host`` names it, but for the scheme's default port
(80 for http, 443 for https), which browsers leave out and which is compared then. A post (any
method but GET, HEAD, OPTIONS, TRACE) must name in ``Origin`` exactly the origin the request
was sent to, ``scheme://Host``: a browser names the page that posts there.

Starlette's ``TrustedHostMiddleware`` is not used: it compares the name without the port, takes
``*.example.com`` wildcards, answers an ASGI app only (the metrics server is WSGI) and checks
no ``Origin``.

>>> trusted = TrustedHosts.for_bind("127.0.0.1")
>>> trusted.refusal(Arrival("GET", "http", 8000, hosts=["localhost:8000"]))
>>> trusted.refusal(Arrival("GET", "http", 8000, hosts=["rebind.example:8000"]))
<HostRefusal.FOREIGN_HOST: ...>
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from http import HTTPStatus
from typing import Final

__all__ = [
    "DEFAULT_PORTS",
    "LOOPBACK_NAMES",
    "LOOPBACK_ONLY",
    "Arrival",
    "Authority",
    "HostRefusal",
    "TrustedHosts",
    "is_loopback",
    "is_own_origin",
    "parse_authority",
]

DEFAULT_PORTS: Final = {"http": 80, "https": 443}
LOOPBACK_NAMES: Final = frozenset({"127.0.0.1", "localhost", "[::1]"})
# Methods that change nothing (RFC 9110's safe methods): the others must name their Origin.
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
MAX_PORT: Final = 65535
MAX_NAME_CHARS: Final = 253  # the longest DNS name
# A DNS name or an IPv4 address, lower case (underscores: Docker's service names have them).
_NAME: Final = re.compile(r"[a-z0-9_][a-z0-9._-]*")


class HostRefusal(Enum):
    """Why a request is refused for where it says it goes, or where it comes from."""

    NO_HOST = "the request names no Host (HTTP/1.1 requires one)"
    BAD_HOST = "the Host header is not one HOST[:PORT]"
    FOREIGN_HOST = (
        "this server does not answer to that Host name (another site's name, or one its "
        "operator did not allow)"
    )
    FOREIGN_ORIGIN = "a post is taken from this site's own pages only (its Origin header)"

    @property
    def status(self) -> HTTPStatus:
        if self is HostRefusal.FOREIGN_HOST:
            return HTTPStatus.MISDIRECTED_REQUEST
        if self is HostRefusal.FOREIGN_ORIGIN:
            return HTTPStatus.FORBIDDEN
        return HTTPStatus.BAD_REQUEST


@dataclass(frozen=True)
class Authority:
    """A server as a URL names it: its host (lower case; an IPv6 address in brackets, in its
    short form) and its port."""

    name: str
    port: int

    @property
    def is_ip(self) -> bool:
        return _ip(self.name) is not None


def _ip(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
    except ValueError:
        return None


def _split(text: str) -> tuple[str, int | None] | None:
    """``host``, ``host:port`` or ``[v6]:port`` as (host, port or None); None: not one.

    >>> _split("[0:0::1]:8000"), _split("LocalHost"), _split("a:b:c")
    (('[::1]', 8000), ('localhost', None), None)
    """
    text = text.lower()
    if text.startswith("["):
        inside, bracket, rest = text[1:].partition("]")
        try:
            address = ipaddress.IPv6Address(inside) if bracket else None
        except ValueError:
            return None
        if address is None or address.scope_id:  # a zone is never in a browser's Host
            return None
        name = f"[{address.compressed}]"
    else:
        name, colon, port_text = text.partition(":")
        rest = colon + port_text
        if len(name) > MAX_NAME_CHARS or not _NAME.fullmatch(name):
            return None
    if not rest:
        return name, None
    digits = rest.removeprefix(":")
    if not (digits.isascii() and digits.isdigit()) or str(int(digits)) != digits:
        return None  # also a port written with leading zeros: never a browser's
    port = int(digits)
    return (name, port) if 0 < port <= MAX_PORT else None


def parse_authority(text: str, default_port: int) -> Authority | None:
    """``Host``'s value (or an origin's after ``scheme://``) as an :class:`Authority`, its
    port ``default_port`` where it names none; None if it is not one.

    >>> parse_authority("127.0.0.1", 80)
    Authority(name='127.0.0.1', port=80)
    """
    split = _split(text)
    if split is None:
        return None
    name, port = split
    return Authority(name, default_port if port is None else port)


def _single_authority(hosts: Sequence[str], scheme: str) -> Authority | HostRefusal:
    if not hosts:
        return HostRefusal.NO_HOST
    default_port = DEFAULT_PORTS.get(scheme)
    found = None
    if len(hosts) == 1 and default_port is not None:
        found = parse_authority(hosts[0], default_port)
    return HostRefusal.BAD_HOST if found is None else found


def is_own_origin(origins: Sequence[str], scheme: str, hosts: Sequence[str]) -> bool:
    """Whether ``origins`` (the ``Origin`` headers) is exactly one, the request's own:
    ``scheme://Host``, the default port written or not.

    >>> is_own_origin(["http://localhost"], "http", ["localhost:80"])
    True
    >>> is_own_origin(["http://rebind.example:8000"], "http", ["localhost:8000"])
    False
    """
    host = _single_authority(hosts, scheme)
    if isinstance(host, HostRefusal) or len(origins) != 1:
        return False
    origin_scheme, separator, rest = origins[0].partition("://")
    if not separator or origin_scheme.lower() != scheme:
        return False  # "null" (a sandboxed page, a file), another scheme
    return parse_authority(rest, DEFAULT_PORTS[scheme]) == host


@dataclass(frozen=True)
class Arrival:
    """What a request says about where it goes and where it comes from.

    ``server_port``: the port the server took it on (the ASGI scope's ``server``, WSGI's
    ``SERVER_PORT``); None where the server does not say (a Unix socket): then no name is
    answered but those given with their port.
    """

    method: str
    scheme: str
    server_port: int | None
    hosts: Sequence[str] = ()
    origins: Sequence[str] = ()


@dataclass(frozen=True)
class TrustedHosts:
    """The names a server answers to (see the module's docstring): ``names`` at the port the
    server listens on, ``pinned`` each at its own port, and every IP address if ``any_ip``."""

    names: frozenset[str] = LOOPBACK_NAMES
    pinned: frozenset[Authority] = field(default_factory=frozenset)
    any_ip: bool = False

    @classmethod
    def for_bind(cls, bind_host: str, allowed: Iterable[str] = ()) -> TrustedHosts:
        """The names a server listening on ``bind_host`` answers to, with ``allowed`` (each
        ``NAME`` or ``NAME:PORT``). ValueError, one line, for an entry that is neither.

        >>> sorted(TrustedHosts.for_bind("127.0.0.2", ["arena.example:443"]).names)
        ['127.0.0.1', '127.0.0.2', '[::1]', 'localhost']
        """
        names = set(LOOPBACK_NAMES)
        pinned = set()
        for entry in allowed:
            split = _split(entry.strip())
            if split is None:
                raise ValueError(
                    f"an allowed host is NAME or NAME:PORT, a name a browser puts in the "
                    f"address (an IPv6 address in brackets), not {entry!r}"
                )
            name, port = split
            if port is None:
                names.add(name)
            else:
                pinned.add(Authority(name, port))
        bound = _split(bind_host) or _split(f"[{bind_host}]")  # ::1 given without brackets
        address = None if bound is None else _ip(bound[0])
        if bound is not None and not (address is not None and address.is_unspecified):
            names.add(bound[0])  # a wildcard (0.0.0.0) is no address a browser is sent to
        return cls(frozenset(names), frozenset(pinned), any_ip=not is_loopback(bind_host))

    def answers(self, host: Authority, server_port: int | None) -> bool:
        """Whether ``host`` is a name this server answers to, taken on ``server_port``."""
        if host in self.pinned:
            return True
        if host.port != server_port:
            return False
        if host.name in self.names:
            return True
        address = _ip(host.name)
        return self.any_ip and address is not None and not address.is_unspecified

    def refusal(self, arrival: Arrival) -> HostRefusal | None:
        """Why ``arrival`` is refused; None if it may be served."""
        host = _single_authority(arrival.hosts, arrival.scheme)
        if isinstance(host, HostRefusal):
            return host
        if not self.answers(host, arrival.server_port):
            return HostRefusal.FOREIGN_HOST
        if arrival.method.upper() not in SAFE_METHODS and not is_own_origin(
            arrival.origins, arrival.scheme, arrival.hosts
        ):
            return HostRefusal.FOREIGN_ORIGIN
        return None

    def describe(self, port: int) -> str:
        """The names it answers to, for the line a server prints at start.

        >>> TrustedHosts.for_bind("0.0.0.0", ["arena.example"]).describe(8000)
        'any IP address, arena.example, localhost at port 8000'
        """
        names = sorted(name for name in self.names if not (self.any_ip and _ip(name)))
        listed = ", ".join([*(["any IP address"] if self.any_ip else []), *names])
        ordered = sorted(self.pinned, key=lambda host: (host.name, host.port))
        pinned = "".join(f", {host.name}:{host.port}" for host in ordered)
        return f"{listed} at port {port}{pinned}"


LOOPBACK_ONLY: Final = TrustedHosts()


def is_loopback(host: str) -> bool:
    """Whether a server bound to ``host`` is reached from this machine only.

    >>> is_loopback("localhost"), is_loopback("[::1]"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host.lower() == "localhost":
        return True
    address = _ip(host)
    return address is not None and address.is_loopback
