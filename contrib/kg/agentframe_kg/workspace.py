"""The output folder: its files, written atomically, and the record of which step ran on
which inputs (`state.json`), so that a step whose inputs are unchanged is skipped."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentframe_core import atomic_write

__all__ = ["Workspace"]


@dataclass
class Workspace:
    root: Path

    def path(self, name: str) -> Path:
        return self.root / name

    def write_json(self, name: str, value: Any) -> None:
        self.write_text(name, json.dumps(value, indent=1, ensure_ascii=False, sort_keys=True))

    def write_text(self, name: str, text: str) -> None:
        target = self.path(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, text, durable=True)

    def read_json(self, name: str) -> Any:
        return json.loads(self.path(name).read_text(encoding="utf-8"))

    def hash_of(self, names: list[str], params: Any) -> str:
        """One digest of the named files' contents (a folder: every file in it) and params."""
        digest = hashlib.sha256(json.dumps(params, sort_keys=True).encode())
        for name in names:
            target = self.path(name)
            files = (
                sorted(p for p in target.rglob("*") if p.is_file()) if target.is_dir() else [target]
            )
            for file in files:
                if file.name.endswith(".tmp"):
                    continue
                digest.update(str(file.relative_to(self.root)).encode() + b"\0")
                digest.update(file.read_bytes() if file.is_file() else b"<missing>")
        return digest.hexdigest()

    def state(self) -> dict[str, Any]:
        try:
            value = self.read_json("state.json")
        except (OSError, ValueError):
            return {}
        return value if isinstance(value, dict) else {}

    def mark(self, step: str, digest: str | None, cut: str | None = None) -> None:
        """`cut`: what was done about replies cut at the token limit, kept in the record."""
        state = self.state()
        if digest is None:
            state.pop(step, None)
        else:
            state[step] = {"inputs": digest, **({"cut": cut} if cut else {})}
        self.write_json("state.json", state)

    def mark_failed(self, step: str, error: str) -> None:
        """The step's last run failed, and why (`kg status` shows it)."""
        self.write_json("state.json", {**self.state(), step: {"failed": error[:1000]}})
