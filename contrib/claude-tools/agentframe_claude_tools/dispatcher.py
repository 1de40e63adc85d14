"""`ClaudeTools`: the tool dispatcher of `use: claude-tools`.

Every refusal (a path out of the project, a missing file, an ambiguous edit, a fetch of a
`file://` URL) is an error *result* the model reads and can act on; none ends the run.
Blocking file work runs in a worker thread, bounded by the options, so the event loop and
the other tool calls of the turn go on meanwhile.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agentframe_core import RunContext, Tool, ToolCall, ToolResult, head_tail

from .editing import Replacement, edit_file, write_file
from .listing import glob_files, list_tree
from .options import ClaudeToolsOptions
from .project import Project, ToolError
from .reading import numbered, read_excerpt
from .search import grep
from .shell import run_command
from .specs import tool_specs
from .todos import write_todos
from .walking import Hidden, hidden_files
from .web import fetch_text

__all__ = ["ClaudeTools"]

#: The tools that walk folders: what the stack hides is asked for them (`walking.py`).
_WALKS = frozenset({"Glob", "Grep", "LS"})
_EMPTY = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"


class ClaudeTools:
    def __init__(self, options: ClaudeToolsOptions | None = None, *, root: Path | None = None):
        self.options = options or ClaudeToolsOptions()
        self.project = Project(root or self.options.root or Path.cwd())
        self._specs = tool_specs(self.options)

    async def tools(self, ctx: RunContext) -> list[Tool]:
        return list(self._specs.values())

    async def dispatch(self, call: ToolCall, ctx: RunContext) -> ToolResult:
        if call.name not in self._specs:
            return ToolResult(f"no tool named {call.name!r} in claude-tools", is_error=True)
        args = call.arguments
        try:
            if call.name == "Bash":
                return await self._bash(args)
            if call.name == "WebFetch":
                o = self.options
                text = await fetch_text(
                    args["url"],
                    args.get("prompt", ""),
                    o.webfetch_max_bytes,
                    o.webfetch_timeout,
                    o.output_chars,
                )
                return ToolResult(text)
            if call.name == "TodoWrite":
                text, meta = await write_todos(ctx, list(args["todos"]))
                return ToolResult(text, meta=meta)
            hidden = hidden_files(ctx, call.name, args) if call.name in _WALKS else None
            return ToolResult(await asyncio.to_thread(self._file_tool, call.name, args, hidden))
        except ToolError as err:
            return ToolResult(str(err), is_error=True)

    def _file_tool(self, name: str, args: dict[str, Any], hidden: Hidden | None) -> str:
        o, project = self.options, self.project
        if name == "Read":
            return self._read(args)
        if name == "Write":
            return write_file(project.path(args["file_path"]), args["content"], o.max_file_bytes)
        if name in ("Edit", "MultiEdit"):
            edits = (
                [Replacement.of(e) for e in args["edits"]]
                if name == "MultiEdit"
                else [Replacement.of(args)]
            )
            return edit_file(project.path(args["file_path"]), edits, o.max_file_bytes)
        if name == "Glob":
            return glob_files(
                project, args["pattern"], args.get("path"), o.max_entries, o.search_timeout, hidden
            )
        if name == "Grep":
            return grep(
                project,
                args,
                o.max_file_bytes,
                o.max_entries,
                o.search_timeout,
                o.output_chars,
                hidden,
            )
        if name == "LS":
            return head_tail(
                list_tree(
                    project,
                    args.get("path"),
                    list(args.get("ignore") or []),
                    o.max_entries,
                    o.search_timeout,
                    hidden,
                ),
                o.output_chars,
            )
        raise ToolError(f"no tool named {name!r}")  # unreachable: names come from _specs

    def _read(self, args: dict[str, Any]) -> str:
        o = self.options
        path = self.project.path(args["file_path"])
        offset = max(1, int(args.get("offset") or 1))
        limit = int(args.get("limit") or o.read_lines)
        excerpt = read_excerpt(path, offset, limit, o.line_chars, o.read_scan_bytes, o.output_chars)
        if not excerpt.lines:
            if excerpt.complete and excerpt.seen == 0:
                return _EMPTY
            if excerpt.complete:
                return (
                    "<system-reminder>Warning: the file exists but is shorter than the "
                    f"provided offset ({offset}). The file has {excerpt.seen} lines."
                    "</system-reminder>"
                )
        parts = [numbered(excerpt.lines, excerpt.first)] if excerpt.lines else []
        if excerpt.stopped:
            parts.append(f"(Read stopped: {excerpt.stopped}.)")
        return "\n\n".join(parts)

    async def _bash(self, args: dict[str, Any]) -> ToolResult:
        o = self.options
        if args.get("run_in_background"):
            raise ToolError(
                "run_in_background is not supported here: run the command in the foreground "
                "(it is killed at its timeout)"
            )
        given = args.get("timeout")
        timeout = min(float(given) / 1000 if given else o.bash_timeout, o.bash_max_timeout)
        return await run_command(
            args["command"], self.project.root, timeout, o.output_chars, o.sandbox
        )
