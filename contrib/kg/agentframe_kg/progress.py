"""Progress: one line per step (done/total and an ETA, redrawn in place on a terminal), or a
JSON-lines event stream on stdout with `--json`."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

__all__ = ["Progress"]


@dataclass
class Progress:
    as_json: bool = False
    out: TextIO = field(default_factory=lambda: sys.stderr)
    _started: dict[str, float] = field(default_factory=dict)

    def event(self, step: str, status: str, **fields: Any) -> None:
        if status == "start":
            self._started[step] = time.monotonic()
        if self.as_json:
            print(json.dumps({"step": step, "status": status, **fields}), flush=True)
            return
        extra = " ".join(f"{k}={v}" for k, v in fields.items())
        prefix = "\r" if self.out.isatty() else ""
        self._line(f"{prefix}[{step}] {status} {extra}".rstrip(), "\n")

    def advance(self, step: str, done: int, total: int) -> None:
        elapsed = time.monotonic() - self._started.get(step, time.monotonic())
        eta = round(elapsed / done * (total - done), 1) if done else None
        if self.as_json:
            print(
                json.dumps(
                    {"step": step, "status": "progress", "done": done, "total": total, "eta_s": eta}
                ),
                flush=True,
            )
        elif self.out.isatty():
            self._line(f"\r[{step}] {done}/{total} ETA {eta if eta is not None else '?'}s ", "")
        elif done == total:
            self._line(f"[{step}] {done}/{total}", "\n")

    def _line(self, text: str, end: str) -> None:
        print(text, end=end, file=self.out, flush=True)
