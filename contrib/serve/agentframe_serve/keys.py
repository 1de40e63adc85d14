"""API keys: who is calling. Keys are kept only as SHA-256 digests and compared in constant
time; the name of the matching key owns the sessions it creates."""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from dataclasses import dataclass

from .settings import ServeSettings

__all__ = ["LOCAL", "Keys"]

#: The owner of every session when no key is configured (loopback only).
LOCAL = "local"
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).digest()


@dataclass(frozen=True, slots=True)
class Keys:
    """name -> SHA-256 of the key. Empty: no key is asked for (loopback only)."""

    digests: tuple[tuple[str, bytes], ...] = ()

    @classmethod
    def load(cls, settings: ServeSettings, environ: dict[str, str] | None = None) -> Keys:
        """The keys of the config (hashed) and of the environment variable it names. Raises
        ValueError naming the variable (never its value) on a malformed item."""
        env = os.environ if environ is None else environ
        found = [(k.name, bytes.fromhex(k.sha256)) for k in settings.api_keys]
        raw = env.get(settings.api_keys_env, "")
        for position, item in enumerate(i.strip() for i in raw.split(",")):
            if not item:
                continue
            name, sep, key = item.partition("=")
            if not sep:
                name, key = "key-" + hashlib.sha256(item.encode()).hexdigest()[:8], item
            if not _NAME.match(name) or len(key) < 16:
                raise ValueError(
                    f"${settings.api_keys_env}: item {position + 1} must be `name=key` or `key`, "
                    "a name of letters, digits, _ or - and a key of 16 characters or more"
                )
            found.append((name, _digest(key)))
        names = [name for name, _ in found]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"API key names must be unique; given twice: {', '.join(twice)}")
        return cls(tuple(found))

    @property
    def required(self) -> bool:
        return bool(self.digests)

    def owner(self, presented: str | None) -> str | None:
        """The name of the key presented, LOCAL when no key is required, None if refused.
        Every configured key is compared, in constant time each."""
        if not self.digests:
            return LOCAL
        if not presented:
            return None
        digest = _digest(presented)
        match: str | None = None
        for name, known in self.digests:
            if hmac.compare_digest(digest, known) and match is None:
                match = name
        return match
