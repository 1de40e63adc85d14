"""Secrets never reach the screen or a log: one masking helper for everything printed.

A secret can sit under a key whose name says so (`api_key`, `token`), in any HTTP header
value (`Authorization`, `X-Api-Key`, a custom one), inside a URL or DSN (`user:pass@`, the
password may hold `@` or spaces; `?token=`, `&api_key=`; `password='p w'`), or anywhere in a
library's error message, where only the caller knows it (`known`), in a command line's
arguments (`--token X`, `--api-key=X`), or bare, recognisable by its shape alone (`sk-proj-…`,
`ghp_…`, `AKIA…`, `xoxb-…`, a JWT). `redact_data` masks a config before `config show` or
`/v1/stack` prints it; `redact_text` masks free text (error messages, log lines, captured
trace content) by pattern; `RedactingFormatter` applies it to every log record, traceback
included.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

__all__ = ["MASK", "RedactingFormatter", "redact_data", "redact_text", "redact_url"]

MASK = "***"

_SECRET_WORD = (
    r"(?:(?:api|secret|private|access)[-_]?key|token|secret|password|passwd|pwd"
    r"|authorization|auth|cookie|credentials?|signature|sig)"
)
#: A name that is, or ends with, a secret word: `api_key`, `X-Api-Key`, `access_token`.
_SECRET_NAME = re.compile(rf"^(?:[a-z0-9]+[-_])*(?:{_SECRET_WORD}|key)$", re.I)

#: `user:password@` up to the last `@` before the host (a password may hold `@` and spaces).
_USERINFO = re.compile(
    r"(?P<scheme>\b[a-z][a-z0-9+.-]*://)(?:[^/\s@?#:]*:[^/?#\n]*|[^/\s?#]+)@", re.I
)
_QUERY = re.compile(rf"(?P<name>[?&;](?:[a-z0-9]+[-_])*(?:{_SECRET_WORD}|key)=)[^&#\s\"'<>]*", re.I)
_SCHEME_TOKEN = re.compile(r"\b(?P<name>Bearer|Basic|Token|Digest)\s+[A-Za-z0-9._~+/=-]+")
#: `<secret name>: <value>`; a quoted value is masked to its closing quote (`password='p w'`).
_NAMED_VALUE = re.compile(
    rf"(?P<name>(?<![\w.-])(?:[a-z0-9]+[-_])*{_SECRET_WORD}[\"']?\s*[:=]\s*)"
    r"(?:(?P<quote>[\"'])(?:\\.|(?!(?P=quote))[^\\\n])+(?P=quote)"
    r"|(?P<open>[\"']?)(?!\*\*\*)(?:Bearer\s+|Basic\s+)?[^\s\"',;&}\]]+)",
    re.I,
)

#: A command-line flag naming a secret: `--token`, `--api-key`, `-password`.
_SECRET_FLAG = re.compile(rf"^--?(?:[a-z0-9]+[-_])*(?:{_SECRET_WORD}|key)$", re.I)
#: The same flag in text, with its value after `=` or a space: `--api-key=X`, `--token X`.
_FLAG_VALUE = re.compile(
    rf"(?P<name>(?<![\w-])--?(?:[a-z0-9]+[-_])*(?:{_SECRET_WORD}|key)(?:=|\s+))"
    r"(?:(?P<quote>[\"'])(?:\\.|(?!(?P=quote))[^\\\n])+(?P=quote)"
    r"|(?P<open>)(?!\*\*\*|-)[^\s\"',;&]+)",
    re.I,
)
#: Tokens recognisable by their shape alone, wherever they stand: OpenAI and Anthropic
#: (`sk-…`, `sk-proj-…`, `sk-ant-…`), GitHub (`ghp_…`, `gho_…`, `github_pat_…`), GitLab
#: (`glpat-…`), AWS access key ids (`AKIA…`, `ASIA…`), Slack (`xoxb-…`, `xapp-…`), Stripe
#: (`sk_live_…`, `rk_test_…`), Google API keys (`AIza…`), Hugging Face (`hf_…`), JWTs,
#: and PEM private key blocks. An `sk-` token has 32 characters or more, a digit among them
#: (`sk-learn-pipeline-tutorial-for-beginners` is a word).
_TOKEN_SHAPES = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    r"sk-(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{32,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"
    r"|glpat-[A-Za-z0-9_-]{20,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|xox[abeprs]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}"
    r"|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|AIza[0-9A-Za-z_-]{35}"
    r"|hf_[A-Za-z0-9]{30,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"
    r")(?![A-Za-z0-9])"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----(?:.|\n)*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)"
)


def _masked_value(match: re.Match[str]) -> str:
    quote = match.group("quote")
    if quote:
        return f"{match.group('name')}{quote}{MASK}{quote}"
    return f"{match.group('name')}{match.group('open')}{MASK}"


def redact_url(url: str) -> str:
    """`url` without its credentials: `user:pass@` and secret query values masked."""
    return _QUERY.sub(rf"\g<name>{MASK}", _USERINFO.sub(rf"\g<scheme>{MASK}@", url))


def redact_text(text: str, known: Iterable[str] = ()) -> str:
    """Free text (an error message, a log line) with every secret it shows masked: URL
    credentials, `Bearer <token>`, `<secret name>: <value>` / `<secret name>=<value>`,
    `--secret-flag <value>`, tokens of a well-known shape, and each `known` value wherever
    it appears (a password or header value a library quoted)."""
    for secret in sorted((k for k in known if k), key=len, reverse=True):
        text = text.replace(secret, MASK)
    text = _TOKEN_SHAPES.sub(MASK, text)
    text = redact_url(text)
    text = _SCHEME_TOKEN.sub(rf"\g<name> {MASK}", text)
    text = _FLAG_VALUE.sub(_masked_value, text)
    return _NAMED_VALUE.sub(_masked_value, text)


def _redact_arguments(values: list[Any], key: str) -> list[Any]:
    """A list (a command's arguments) with each item masked, and the value after a flag
    naming a secret (`["--token", "X"]`) masked entirely."""
    shown: list[Any] = []
    for index, value in enumerate(values):
        previous = values[index - 1] if index else None
        if isinstance(previous, str) and _SECRET_FLAG.match(previous) and value not in (None, ""):
            shown.append(MASK)
        else:
            shown.append(redact_data(value, key))
    return shown


def redact_data(value: Any, key: str = "") -> Any:
    """A copy of parsed config data with secrets masked: values under secret-named keys,
    every header value (under any `headers` key), the value after a secret-named flag in a
    list (`args: [--token, X]`), and credentials in any string."""
    if isinstance(value, dict):
        if key.lower() == "headers":
            return {k: MASK if v not in (None, "") else v for k, v in value.items()}
        return {k: redact_data(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return _redact_arguments(value, key)
    if _SECRET_NAME.match(key) and value not in (None, "") and not isinstance(value, bool):
        return MASK
    if isinstance(value, str):
        return redact_text(value)
    return value


class RedactingFormatter(logging.Formatter):
    """A log formatter whose output (message, arguments, traceback) is `redact_text`ed."""

    def format(self, record: logging.LogRecord) -> str:
        return redact_text(super().format(record))
