"""The tools Claude Code agents name (`Read`, `Write`, `Edit`, `MultiEdit`, `Glob`, `Grep`,
`LS`, `Bash`, `WebFetch`, `TodoWrite`), in Claude Code's shapes and confined to the project
folder: `tools: [{use: claude-tools}]`."""

from .dispatcher import ClaudeTools
from .options import TOOL_NAMES, ClaudeToolsOptions

__all__ = ["TOOL_NAMES", "ClaudeTools", "ClaudeToolsOptions"]
