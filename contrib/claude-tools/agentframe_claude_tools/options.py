"""The options of `use: claude-tools`: where the project is, which tools to offer, and the
bounds of each (every cap is an option so a user can widen it, none can be switched off)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from .sandbox import UNSANDBOXED, SandboxOptions

__all__ = ["TOOL_NAMES", "ClaudeToolsOptions", "ToolName"]

ToolName = Literal[
    "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "LS", "Bash", "WebFetch", "TodoWrite"
]
TOOL_NAMES: tuple[ToolName, ...] = (
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "Glob",
    "Grep",
    "LS",
    "Bash",
    "WebFetch",
    "TodoWrite",
)

_MiB = 1 << 20


class ClaudeToolsOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    #: The project folder every path must stay in (relative: next to the config file);
    #: None: the working directory of the run.
    root: Path | None = None
    #: The tools offered (None: all of them, less those switched off below).
    allow: list[ToolName] | None = None
    #: Offer `Bash` (it runs any command in the project folder).
    bash: bool = True
    #: Seconds a `Bash` command runs when the call gives no `timeout`.
    bash_timeout: Annotated[float, Field(gt=0, le=86_400)] = 120.0
    #: The most seconds a call may ask for (Claude Code: 600).
    bash_max_timeout: Annotated[float, Field(gt=0, le=86_400)] = 600.0
    #: Run `Bash` in bubblewrap: `on`, `{network: true, writable: [...]}`, or `off`, the
    #: default as in Claude Code (the command then has the rights of agentframe itself).
    sandbox: SandboxOptions = UNSANDBOXED
    #: Offer `WebFetch` (http and https URLs only).
    webfetch: bool = True
    #: Bytes of a fetched body kept; the rest is not downloaded.
    webfetch_max_bytes: Annotated[int, Field(ge=1024, le=1024 * _MiB)] = 2 * _MiB
    #: Seconds one fetch may take in all (connect, redirects, body).
    webfetch_timeout: Annotated[float, Field(gt=0, le=3600)] = 30.0
    #: Characters of any one tool result (longer: head and tail, with a note of what was cut;
    #: Claude Code cuts Bash output at 30000).
    output_chars: Annotated[int, Field(ge=1000, le=10_000_000)] = 30_000
    #: Lines `Read` returns when the call gives no `limit`, and characters kept of a line.
    read_lines: Annotated[int, Field(ge=1, le=1_000_000)] = 2000
    line_chars: Annotated[int, Field(ge=80, le=1_000_000)] = 2000
    #: Bytes one `Read` call scans at most (a read deep into a huge file stops here and says so).
    read_scan_bytes: Annotated[int, Field(ge=_MiB)] = 4096 * _MiB
    #: Files larger than this are not searched by `Grep`, nor edited by `Edit`/`MultiEdit`.
    max_file_bytes: Annotated[int, Field(ge=1024, le=1024 * _MiB)] = 16 * _MiB
    #: Entries `Glob`, `Grep` and `LS` visit at most in one call, and the seconds they may take.
    max_entries: Annotated[int, Field(ge=100, le=10_000_000)] = 200_000
    search_timeout: Annotated[float, Field(gt=0, le=3600)] = 20.0

    def offered(self) -> list[ToolName]:
        """The tool names this configuration offers, in Claude Code's order."""
        chosen = set(self.allow) if self.allow is not None else set(TOOL_NAMES)
        if not self.bash:
            chosen.discard("Bash")
        if not self.webfetch:
            chosen.discard("WebFetch")
        return [name for name in TOOL_NAMES if name in chosen]
