"""Every spelling of an address is one host for `WebFetch(domain:…)` rules, as the resolver
(glibc's `inet_aton`, which `getaddrinfo` uses for numeric hosts) reads it."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from agentframe_compat.hosts import normal_host, url_host
from hypothesis import given
from hypothesis import strategies as st


def _spellings(address: int) -> list[str]:
    """The forms a URL may give an IPv4 address in: integer, hex, octal, short."""
    a, b, c, d = ipaddress.IPv4Address(address).packed
    return [
        f"{a}.{b}.{c}.{d}",
        str(address),
        hex(address),
        f"0{address:o}",
        f"{a}.{(b << 16) | (c << 8) | d}",
        f"{a}.{b}.{(c << 8) | d}",
        f"{hex(a)}.{hex(b)}.{hex(c)}.{hex(d)}",
        f"0{a:o}.0{b:o}.0{c:o}.0{d:o}",
        f"{a}.{b}.{c}.{d}.",
        f"[::ffff:{a}.{b}.{c}.{d}]",
    ]


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_each_spelling_is_the_dotted_address_the_resolver_reads(address: int) -> None:
    dotted = str(ipaddress.IPv4Address(address))
    for spelling in _spellings(address):
        assert normal_host(spelling) == dotted, spelling
        assert url_host(f"http://{spelling}:8080/x") == dotted, spelling
        if not spelling.startswith("[") and not spelling.endswith("."):
            assert socket.inet_aton(spelling) == ipaddress.IPv4Address(address).packed


@pytest.mark.parametrize(
    ("host", "normal"),
    [
        ("Example.COM.", "example.com"),
        ("bücher.example", "xn--bcher-kva.example"),
        ("[::1]", "::1"),
        ("[0:0:0:0:0:0:0:1]", "::1"),
        ("256.1", "256.1"),  # no address: a name, as the resolver would try it
        ("1.2.3.4.5", "1.2.3.4.5"),
        ("localhost", "localhost"),  # a name is not its address
    ],
)
def test_names_and_other_forms(host: str, normal: str) -> None:
    assert normal_host(host) == normal


@pytest.mark.parametrize("url", ["http://[bad/", "not a url", "http://:80/"])
def test_an_unreadable_url_has_no_host(url: str) -> None:
    assert url_host(url) == ""
