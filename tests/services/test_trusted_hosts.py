"""The names a server answers to (brandeln.services.trusted_hosts), against DNS rebinding: a hostile
site's name pointed at this machine is refused, the loopback names and the operator's own are
answered at the server's port, and a post names the request's own origin."""

from __future__ import annotations

import pytest

from brandeln.services.trusted_hosts import (
    Arrival,
    Authority,
    HostRefusal,
    TrustedHosts,
    is_loopback,
    is_own_origin,
)

PORT = 8000


def get(
    trusted: TrustedHosts, *hosts: str, port: int | None = PORT, scheme: str = "http"
) -> HostRefusal | None:
    return trusted.refusal(Arrival("GET", scheme, port, hosts=hosts))


def post(trusted: TrustedHosts, host: str, *origins: str) -> HostRefusal | None:
    return trusted.refusal(Arrival("POST", "http", PORT, hosts=[host], origins=origins))


@pytest.mark.parametrize("bind", ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"])
@pytest.mark.parametrize(
    "host", ["127.0.0.1:8000", "localhost:8000", "LocalHost:8000", "[::1]:8000", "[0::1]:8000"]
)
def test_a_loopback_server_answers_the_loopback_names_at_its_port(bind: str, host: str) -> None:
    assert get(TrustedHosts.for_bind(bind), host) is None


@pytest.mark.parametrize(
    "host",
    [
        "rebind.example:8000",  # the issue's: a hostile name whose DNS says 127.0.0.1
        "localhost.rebind.example:8000",
        "127.0.0.1.rebind.example:8000",
        "localhost.:8000",  # another name, for a browser
        "10.0.0.5:8000",  # an address a loopback server is not reached at
        "0.0.0.0:8000",
    ],
)
def test_a_loopback_server_refuses_any_other_name(host: str) -> None:
    refusal = get(TrustedHosts.for_bind("127.0.0.1"), host)
    assert refusal is HostRefusal.FOREIGN_HOST
    assert refusal.status == 421
    assert "\n" not in refusal.value


@pytest.mark.parametrize("host", ["localhost:8001", "localhost", "localhost:80"])
def test_a_loopback_name_at_another_port_is_refused(host: str) -> None:
    assert get(TrustedHosts.for_bind("127.0.0.1"), host) is HostRefusal.FOREIGN_HOST


def test_a_host_without_its_port_is_the_schemes_default_port() -> None:
    # What browsers send for http://localhost/ and https://localhost/.
    trusted = TrustedHosts.for_bind("127.0.0.1")
    assert get(trusted, "localhost", port=80) is None
    assert get(trusted, "localhost:80", port=80) is None
    assert get(trusted, "localhost", port=443, scheme="https") is None
    assert get(trusted, "localhost", port=443) is HostRefusal.FOREIGN_HOST


@pytest.mark.parametrize(
    ("hosts", "refusal"),
    [
        ((), HostRefusal.NO_HOST),
        (("",), HostRefusal.BAD_HOST),
        (("localhost:8000", "localhost:8000"), HostRefusal.BAD_HOST),
        (("localhost:8000,localhost:8000",), HostRefusal.BAD_HOST),  # as wsgiref joins two
        (("localhost:",), HostRefusal.BAD_HOST),
        (("localhost:08000",), HostRefusal.BAD_HOST),
        (("localhost:99999",), HostRefusal.BAD_HOST),
        (("localhost:0",), HostRefusal.BAD_HOST),
        (("::1:8000",), HostRefusal.BAD_HOST),
        (("[::1%25lo]:8000",), HostRefusal.BAD_HOST),
        (("[::1",), HostRefusal.BAD_HOST),
        (("local host:8000",), HostRefusal.BAD_HOST),
        (("localhost/x:8000",), HostRefusal.BAD_HOST),
        (("user@localhost:8000",), HostRefusal.BAD_HOST),
        (("*.example:8000",), HostRefusal.BAD_HOST),
        (("x" * 254,), HostRefusal.BAD_HOST),
    ],
)
def test_no_host_or_a_malformed_one_is_a_bad_request(
    hosts: tuple[str, ...], refusal: HostRefusal
) -> None:
    assert get(TrustedHosts.for_bind("127.0.0.1"), *hosts) is refusal
    assert refusal.status == 400


def test_the_operators_names_are_answered_at_the_port_or_at_the_one_given() -> None:
    trusted = TrustedHosts.for_bind("127.0.0.1", ["Arena.Example", "proxy.example:443"])
    assert get(trusted, "arena.example:8000") is None
    assert get(trusted, "arena.example:9000") is HostRefusal.FOREIGN_HOST
    # A proxy in front serves https://proxy.example/ and passes the browser's Host on.
    assert get(trusted, "proxy.example", scheme="https") is None
    assert get(trusted, "proxy.example:443") is None
    assert get(trusted, "proxy.example:8000") is HostRefusal.FOREIGN_HOST
    assert get(trusted, "rebind.example:8000") is HostRefusal.FOREIGN_HOST


@pytest.mark.parametrize("bind", ["0.0.0.0", "::", "10.0.0.5"])
def test_off_loopback_an_ip_address_is_answered_and_a_name_only_if_allowed(bind: str) -> None:
    trusted = TrustedHosts.for_bind(bind, ["arena.example"])
    for host in ("10.0.0.5:8000", "192.168.1.7:8000", "[fe80::1]:8000", "localhost:8000"):
        assert get(trusted, host) is None, host
    assert get(trusted, "arena.example:8000") is None
    assert get(trusted, "rebind.example:8000") is HostRefusal.FOREIGN_HOST
    assert get(trusted, "10.0.0.5:9000") is HostRefusal.FOREIGN_HOST
    for wildcard in ("0.0.0.0:8000", "[::]:8000"):  # no page is ever at a wildcard address
        assert get(trusted, wildcard) is HostRefusal.FOREIGN_HOST, wildcard


def test_a_server_bound_to_a_name_answers_that_name() -> None:
    trusted = TrustedHosts.for_bind("arena.lan")
    assert get(trusted, "arena.lan:8000") is None
    assert get(trusted, "rebind.example:8000") is HostRefusal.FOREIGN_HOST


@pytest.mark.parametrize(
    "entry", ["http://arena.example", "arena.example/", "*.example", "", "a b", "[::1", "x:0"]
)
def test_an_allowed_host_that_is_no_name_is_refused_with_one_line(entry: str) -> None:
    with pytest.raises(ValueError, match="NAME or NAME:PORT") as refused:
        TrustedHosts.for_bind("127.0.0.1", [entry])
    assert "\n" not in str(refused.value)


def test_a_server_that_does_not_say_its_port_answers_only_names_given_with_one() -> None:
    trusted = TrustedHosts.for_bind("127.0.0.1", ["proxy.example:443"])
    assert get(trusted, "localhost:8000", port=None) is HostRefusal.FOREIGN_HOST
    assert get(trusted, "proxy.example:443", port=None) is None


def test_a_post_names_exactly_its_own_origin() -> None:
    trusted = TrustedHosts.for_bind("127.0.0.1")
    assert post(trusted, "localhost:8000", "http://localhost:8000") is None
    assert post(trusted, "[::1]:8000", "http://[0::1]:8000") is None
    for origins in [
        (),
        ("null",),
        ("http://rebind.example:8000",),
        ("http://127.0.0.1:8000",),  # another of its names: another origin for the browser
        ("https://localhost:8000",),
        ("http://localhost:8000/",),
        ("http://localhost:8000", "http://localhost:8000"),
    ]:
        refusal = post(trusted, "localhost:8000", *origins)
        assert refusal is HostRefusal.FOREIGN_ORIGIN, origins
        assert refusal.status == 403
    # The issue's: Host and Origin both the hostile name; the Host is refused first.
    both = post(trusted, "rebind.example:8000", "http://rebind.example:8000")
    assert both is HostRefusal.FOREIGN_HOST


def test_a_read_needs_no_origin_and_the_default_port_may_be_written_or_not() -> None:
    trusted = TrustedHosts.for_bind("127.0.0.1")
    assert trusted.refusal(Arrival("HEAD", "http", PORT, hosts=["localhost:8000"])) is None
    assert is_own_origin(["http://localhost"], "http", ["localhost:80"])
    assert is_own_origin(["http://localhost:80"], "http", ["localhost"])
    assert not is_own_origin(["http://localhost"], "http", ["localhost:8000"])


def test_what_the_start_line_says_it_answers_to() -> None:
    trusted = TrustedHosts.for_bind("127.0.0.1", ["proxy.example:443"])
    assert trusted.describe(PORT) == "127.0.0.1, [::1], localhost at port 8000, proxy.example:443"
    assert Authority("localhost", 1) in TrustedHosts.for_bind("::1", ["localhost:1"]).pinned


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        *[("127.0.0.1", True), ("127.8.8.8", True), ("::1", True), ("LOCALHOST", True)],
        *[("0.0.0.0", False), ("::", False), ("10.0.0.5", False), ("arena.lan", False)],
    ],
)
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
