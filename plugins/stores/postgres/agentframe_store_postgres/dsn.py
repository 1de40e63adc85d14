"""Connection strings without their secrets: what errors and `repr` may show.

The masking is the kernel's (`redact_text`, the one path for everything printed); this module
only tells it the password (of a URI: all between the user's `:` and the last `@`, as typed
and percent-decoded, and its pieces between `@`s, since libpq splits at the first `@` and may
quote the rest as a host name; of `key=value` pairs: as libpq reads it), so a driver error
that quotes the password, or a piece of it, is masked too."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from psycopg import ProgrammingError
from psycopg.conninfo import conninfo_to_dict

from agentframe_core import redact_text

__all__ = ["masked", "scrub"]

_PIECE = 4  # shorter pieces of a password are not masked alone (they would garble the text)


def _password(dsn: str) -> list[str]:
    try:
        if "://" in dsn:
            password = urlsplit(dsn).password or ""
            pieces = [p for p in password.split("@") if len(p) >= _PIECE]
            return [password, unquote(password), *pieces] if password else []
        found = conninfo_to_dict(dsn).get("password")
    except (ValueError, ProgrammingError):  # not a valid DSN: the patterns still mask it
        return []
    return [str(found)] if found else []


def masked(dsn: str) -> str:
    """`dsn` with its password (URI or key=value form) replaced by ***."""
    return scrub(dsn, dsn)


def scrub(text: str, dsn: str) -> str:
    """`text` (an error message, say) with the password and any other secret masked."""
    return redact_text(text, known=_password(dsn))
