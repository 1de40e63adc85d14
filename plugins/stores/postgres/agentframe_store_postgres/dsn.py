"""Connection strings without their secrets: what errors and `repr` may show.

The kernel has no masking helper on its public surface, so this one masks the password of a
libpq key/value string or URI, and scrubs it from any text (a driver error may quote it)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

__all__ = ["masked", "scrub"]

MASK = "***"
_URI_PASSWORD = re.compile(r"^(\w+://[^:/@]*:)([^@]*)(@)")
_KV_PASSWORD = re.compile(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)


def _password(dsn: str) -> str | None:
    if "://" in dsn:
        try:
            return urlsplit(dsn).password
        except ValueError:
            return None
    found = _KV_PASSWORD.search(dsn)
    return found.group(2).strip("'") if found else None


def masked(dsn: str) -> str:
    """`dsn` with its password (URI or key=value form) replaced by ***."""
    text = _URI_PASSWORD.sub(lambda m: m.group(1) + MASK + m.group(3), dsn)
    text = _KV_PASSWORD.sub(lambda m: m.group(1) + MASK, text)
    return scrub(text, dsn)


def scrub(text: str, dsn: str) -> str:
    """`text` (an error message, say) with every occurrence of the password masked."""
    password = _password(dsn)
    if password and len(password) >= 1:
        text = text.replace(password, MASK)
    return text
