"""Split a Markdown file into its YAML frontmatter and its body, remembering lines.

The frontmatter opens with a `---` line as the file's first line and closes with the next
`---` line. Every error names the file and the line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...contract.errors import AgentParseError, ConfigError, MissingDelimiterError
from ...support.files import AGENT_FILE_LIMIT, FileReadError, read_text_file
from ...support.yamlsource import load_yaml_text

__all__ = ["Frontmatter", "read_frontmatter", "split_frontmatter"]

_DELIMITER = "---"


@dataclass(frozen=True, slots=True)
class Frontmatter:
    """The parsed frontmatter (`data`), the file line of every key (dotted: `toolConfig.bash`),
    and the body with the file line it starts on."""

    data: dict[Any, Any]
    body: str
    body_line: int
    file: Path | None = None
    lines: dict[str, int] = field(default_factory=dict)

    def line_of(self, key: str) -> int | None:
        """The line of `key`, or of its nearest parent key that has one."""
        parts = key.split(".")
        while parts:
            line = self.lines.get(".".join(parts))
            if line is not None:
                return line
            parts.pop()
        return None


def read_frontmatter(path: Path, *, required: bool = True) -> Frontmatter:
    """Read and split one file; unreadable, oversized, non-regular or non-UTF-8 files are
    parse errors too."""
    try:
        text = read_text_file(path, AGENT_FILE_LIMIT)
    except FileReadError as err:
        raise AgentParseError(f"cannot read: {err.reason}", file=path) from None
    return split_frontmatter(text, path, required=required)


def split_frontmatter(text: str, file: Path | None = None, *, required: bool = True) -> Frontmatter:
    """Parse `text`. Without a leading `---` line: an error, or (`required=False`) no
    frontmatter and the whole text as the body."""
    # Only \n, \r\n and \r end lines (str.splitlines would also split on form feeds).
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or lines[0].strip() != _DELIMITER:
        if not required:
            return _body(lines, 0, {}, file, {})
        raise MissingDelimiterError(
            "no frontmatter: the first line must be `---`, then the YAML keys, then `---`",
            file=file,
            line=1,
        )
    close = next((i for i in range(1, len(lines)) if lines[i].strip() == _DELIMITER), None)
    if close is None:
        raise MissingDelimiterError(
            "the frontmatter opened on line 1 is never closed by a `---` line", file=file, line=1
        )
    data, key_lines = _parse_yaml("\n".join(lines[1:close]), file)
    return _body(lines, close + 1, data, file, key_lines)


def _parse_yaml(text: str, file: Path | None) -> tuple[dict[Any, Any], dict[str, int]]:
    first_line = 2  # the YAML starts on the file's line 2
    try:
        located = load_yaml_text(text, file, first_line=first_line)
    except ConfigError as err:
        issue = err.issues[0]
        raise AgentParseError(issue.message, file=file, line=issue.line) from err
    data = located.data
    if data is None:
        data = {}
    if not isinstance(data, dict):
        kind = type(data).__name__
        raise AgentParseError(
            f"the frontmatter must be a mapping of keys to values, not a {kind}",
            file=file,
            line=first_line,
        )
    key_lines = {
        ".".join(str(part) for part in path): line for path, line in located.lines.items() if path
    }
    return data, key_lines


def _body(
    lines: list[str], start: int, data: dict[Any, Any], file: Path | None, key_lines: dict[str, int]
) -> Frontmatter:
    while start < len(lines) and not lines[start].strip():
        start += 1
    body = "\n".join(lines[start:]).rstrip()
    return Frontmatter(data=data, body=body, body_line=start + 1, file=file, lines=key_lines)
