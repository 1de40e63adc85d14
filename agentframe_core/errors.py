"""Errors a user can act on. Each says what is wrong, where, and what to do."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["AgentframeError", "ConfigError", "ConfigIssue", "UnknownPartError"]


class AgentframeError(Exception):
    """Base of every error agentframe raises on purpose."""


@dataclass(frozen=True, slots=True)
class ConfigIssue:
    """One problem in a config file: `file:line: path: message`."""

    file: Path | None
    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = str(self.file) if self.file else "<embedded default config>"
        if self.line is not None:
            where += f":{self.line}"
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class ConfigError(AgentframeError):
    def __init__(self, issues: list[ConfigIssue]) -> None:
        self.issues = issues
        super().__init__("\n".join(str(issue) for issue in issues))


class UnknownPartError(AgentframeError):
    """A config names a part that no installed plugin registered."""

    def __init__(self, kind: str, name: str, installed: list[str], hint: str | None) -> None:
        self.kind, self.name, self.installed, self.hint = kind, name, installed, hint
        import difflib

        message = f"unknown {kind} {name!r}"
        close = difflib.get_close_matches(name, installed, n=1)
        if close:
            message += f" (did you mean {close[0]!r}?)"
        message += f"; installed: {', '.join(installed) or 'none'}"
        if hint:
            message += f". To get {name!r}: {hint}"
        super().__init__(message)
