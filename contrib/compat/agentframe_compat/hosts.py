"""One spelling per host, for `WebFetch(domain:…)` rules.

A URL names one machine in many ways: `127.1`, `2130706433`, `0x7f.0.0.1` and `0177.0.0.1`
are all 127.0.0.1 to the resolver (the WHATWG URL rules and glibc's `inet_aton` agree), as
are `[::ffff:127.0.0.1]`, `127.0.0.1.` and `LOCALHOST` in capitals for names. Rules and URLs
are both brought to one form before they are compared: lower case, no trailing dot,
IDNA (`bücher.example` is `xn--bcher-kva.example`), an IPv4 address as four decimal numbers,
an IPv6 address compressed, and an IPv4-mapped IPv6 address as the IPv4 one. A name that
resolves to a denied address (`localtest.me`) is a different host: rules match names.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

__all__ = ["normal_host", "url_host"]


def url_host(url: str) -> str:
    """The normal form of `url`'s host; "" when it has none or cannot be read."""
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:  # an unclosed `[`, a bad port
        return ""
    return normal_host(host or "")


def normal_host(host: str) -> str:
    """`host` (a name, an IPv4 address in any form, an IPv6 address, with or without
    brackets) in its one form."""
    host = host.strip().strip("[]").rstrip(".").lower()
    if not host:
        return ""
    if ":" in host:
        try:
            address = ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            return host
        mapped = address.ipv4_mapped
        return str(mapped) if mapped is not None else address.compressed
    number = _ipv4_number(host)
    if number is not None:
        return str(ipaddress.IPv4Address(number))
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def _ipv4_number(host: str) -> int | None:
    """The address a numeric host means (WHATWG's IPv4 parser: one to four parts, each
    decimal, `0x` hex or `0`-led octal, the last filling the bytes left); None for a name."""
    parts = host.split(".")
    if len(parts) > 4:
        return None
    numbers: list[int] = []
    for part in parts:
        value = _number(part)
        if value is None:
            return None
        numbers.append(value)
    *leading, last = numbers
    if any(n > 255 for n in leading) or last >= 256 ** (5 - len(numbers)):
        return None
    address = last
    for at, n in enumerate(leading):
        address += n << (8 * (3 - at))
    return address


def _number(part: str) -> int | None:
    try:
        if part[:2] in ("0x", "0X"):
            return int(part[2:] or "0", 16)
        if len(part) > 1 and part.startswith("0"):
            return int(part, 8)
        return int(part, 10) if part.isdigit() else None
    except ValueError:
        return None
