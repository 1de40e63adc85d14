"""Errors a user can act on. Each says what is wrong, where, and what to do."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "AgentDefinitionError",
    "AgentParseError",
    "AgentTemplateError",
    "AgentframeError",
    "ConfigError",
    "ConfigIssue",
    "EventLoopRunningError",
    "InvalidFieldError",
    "MissingDelimiterError",
    "MissingFieldError",
    "UnknownAgentError",
    "UnknownPartError",
    "UnknownSkillError",
    "UnknownToolOverrideError",
]


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


class EventLoopRunningError(AgentframeError, RuntimeError):
    """The synchronous `agentframe_core.run()` was called where an event loop runs: it would
    need a loop of its own. Async code awaits `Session(stack).run(prompt)` instead."""


# -- agent definitions ---------------------------------------------------------------------------


class AgentDefinitionError(AgentframeError):
    """A definition file (or a file it names) cannot be used: `file:line: field: message`.

    `name` is the agent's name when it could be read; `others` holds further problems found in
    the same file, so one run of `agents check` shows them all.
    """

    def __init__(
        self,
        message: str,
        *,
        file: Path | None = None,
        line: int | None = None,
        field: str = "",
        name: str | None = None,
    ) -> None:
        self.message, self.file, self.line, self.field, self.name = message, file, line, field, name
        self.others: tuple[AgentDefinitionError, ...] = ()
        super().__init__(self.location() + message)

    def location(self) -> str:
        where = str(self.file) if self.file else "<definition>"
        if self.line is not None:
            where += f":{self.line}"
        return f"{where}: {self.field}: " if self.field else f"{where}: "

    def all(self) -> tuple[AgentDefinitionError, ...]:
        """This problem and the others found in the same file, in file order."""
        return (self, *self.others)


class AgentParseError(AgentDefinitionError):
    """The file is not a Markdown file with a YAML mapping as frontmatter."""


class MissingDelimiterError(AgentParseError):
    """The frontmatter does not start on line 1 with `---`, or is never closed by `---`."""


class InvalidFieldError(AgentParseError):
    """A key has a value of the wrong type, or a value outside what it accepts."""


class MissingFieldError(AgentDefinitionError):
    """A required key (`name`, `description`, ...) is absent or empty."""


class UnknownToolOverrideError(AgentDefinitionError):
    """`toolNameOverrides`/`paramNameOverrides` names a tool (or parameter) the agent cannot
    use."""


class AgentTemplateError(AgentDefinitionError):
    """The prompt template does not compile or render; `line` is the file's line and
    `template_line` the line within the template (the body)."""

    def __init__(
        self,
        message: str,
        *,
        file: Path | None = None,
        line: int | None = None,
        template_line: int | None = None,
        name: str | None = None,
    ) -> None:
        self.template_line = template_line
        super().__init__(message, file=file, line=line, field="template", name=name)


class UnknownSkillError(AgentDefinitionError):
    """`skills` names a skill that no skills folder holds."""


class UnknownAgentError(AgentframeError, LookupError):
    """No definition has this name; the message lists the names that exist."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name, self.known = name, known
        super().__init__(f"unknown agent {name!r}; known agents: {', '.join(known) or 'none'}")
