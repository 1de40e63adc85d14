"""The tools Claude Code agents name (`Read`, `Write`, `Edit`, `MultiEdit`, `Glob`, `Grep`,
`LS`, `Bash`, `WebFetch`, `TodoWrite`), in Claude Code's shapes and confined to the project
folder: `tools: [{use: claude-tools}]`."""

from .dispatcher import ClaudeTools
from .options import TOOL_NAMES, ClaudeToolsOptions
from .sandbox import UNSANDBOXED, SandboxOptions, SandboxUnavailableError, find_bwrap, sandbox_argv
from .shell import run_command

__all__ = [
    "TOOL_NAMES",
    "UNSANDBOXED",
    "ClaudeTools",
    "ClaudeToolsOptions",
    "SandboxOptions",
    "SandboxUnavailableError",
    "find_bwrap",
    "run_command",
    "sandbox_argv",
]
