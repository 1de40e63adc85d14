"""The tools as the model sees them: Claude Code's names and argument names and types.

`writes=False` marks the read-only ones (Read, Glob, Grep, LS, WebFetch), which plan mode
lets run; the others change files, run commands or change state and are refused there.
Descriptions are short (a small model reads them on every turn) and say the bounds.
"""

from __future__ import annotations

from typing import Any

from agentframe_core import Tool

from .options import ClaudeToolsOptions, ToolName
from .search import FILE_TYPES

__all__ = ["tool_specs"]

_PATH = {"type": "string", "minLength": 1, "maxLength": 4096}
_TEXT = {"type": "string", "maxLength": 10_000_000}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _edit_fields() -> dict[str, Any]:
    return {
        "old_string": {**_TEXT, "description": "The exact text to replace"},
        "new_string": {**_TEXT, "description": "The text to replace it with"},
        "replace_all": {
            "type": "boolean",
            "default": False,
            "description": "Replace every occurrence (default false: old_string must be unique)",
        },
    }


def tool_specs(options: ClaudeToolsOptions) -> dict[ToolName, Tool]:
    """Every tool this configuration offers, by name."""
    max_ms = int(options.bash_max_timeout * 1000)
    edit = _edit_fields()
    specs: dict[ToolName, Tool] = {
        "Read": Tool(
            name="Read",
            description=(
                "Read a text file of the project. Lines are numbered (`     1→text`); "
                f"at most {options.read_lines} lines from `offset` unless `limit` says "
                f"otherwise; lines over {options.line_chars} characters are cut."
            ),
            parameters=_object(
                {
                    "file_path": {
                        **_PATH,
                        "description": "The file (absolute, or relative to the project folder)",
                    },
                    "offset": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "The line number to start at (1 is the first)",
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "How many lines to read",
                    },
                },
                ["file_path"],
            ),
            writes=False,
        ),
        "Write": Tool(
            name="Write",
            description="Write a file of the project (created, or replaced whole).",
            parameters=_object(
                {
                    "file_path": {**_PATH, "description": "The file to write"},
                    "content": {**_TEXT, "description": "The whole content of the file"},
                },
                ["file_path", "content"],
            ),
        ),
        "Edit": Tool(
            name="Edit",
            description=(
                "Replace exact text in a file. old_string must occur exactly once, unless "
                "replace_all is true; copy it from Read without the line number prefix."
            ),
            parameters=_object(
                {"file_path": {**_PATH, "description": "The file to edit"}, **edit},
                ["file_path", "old_string", "new_string"],
            ),
        ),
        "MultiEdit": Tool(
            name="MultiEdit",
            description=(
                "Several Edits of one file, applied in order; if any fails, none is applied."
            ),
            parameters=_object(
                {
                    "file_path": {**_PATH, "description": "The file to edit"},
                    "edits": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 1000,
                        "items": _object(edit, ["old_string", "new_string"]),
                    },
                },
                ["file_path", "edits"],
            ),
        ),
        "Glob": Tool(
            name="Glob",
            description=(
                "Find files by glob pattern (`**/*.py`, `src/**/*.ts`); paths relative to the "
                "project folder, most recently modified first, at most 100."
            ),
            parameters=_object(
                {
                    "pattern": {**_PATH, "description": "The glob pattern"},
                    "path": {
                        **_PATH,
                        "description": "The folder to search (default: the project folder)",
                    },
                },
                ["pattern"],
            ),
            writes=False,
        ),
        "Grep": Tool(
            name="Grep",
            description=(
                "Search file contents with a regular expression. output_mode: "
                "files_with_matches (default), content (matching lines) or count."
            ),
            parameters=_object(
                {
                    "pattern": {**_PATH, "description": "The regular expression"},
                    "path": {**_PATH, "description": "A file or folder (default: the project)"},
                    "glob": {
                        "type": "string",
                        "maxLength": 1000,
                        "description": "Only files matching this glob (`*.js`)",
                    },
                    "type": {
                        "type": "string",
                        "enum": sorted(FILE_TYPES),
                        "description": "Only files of this type",
                    },
                    "output_mode": {
                        "type": "string",
                        "enum": ["content", "files_with_matches", "count"],
                    },
                    "-B": {"type": "integer", "minimum": 0, "maximum": 1000},
                    "-A": {"type": "integer", "minimum": 0, "maximum": 1000},
                    "-C": {"type": "integer", "minimum": 0, "maximum": 1000},
                    "-n": {"type": "boolean", "description": "Line numbers (content mode)"},
                    "-i": {"type": "boolean", "description": "Ignore case"},
                    "head_limit": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "Only the first N lines or files",
                    },
                    "offset": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "Skip the first N lines or files",
                    },
                    "multiline": {
                        "type": "boolean",
                        "description": "Let the pattern span lines (. matches newline)",
                    },
                },
                ["pattern"],
            ),
            writes=False,
        ),
        "LS": Tool(
            name="LS",
            description="List a folder of the project as a tree (hidden entries left out).",
            parameters=_object(
                {
                    "path": {**_PATH, "description": "The folder (default: the project)"},
                    "ignore": {
                        "type": "array",
                        "maxItems": 100,
                        "items": {"type": "string", "maxLength": 1000},
                        "description": "Glob patterns to leave out",
                    },
                },
                [],
            ),
            writes=False,
        ),
        "Bash": Tool(
            name="Bash",
            description=(
                "Run a bash command in the project folder. `timeout` in milliseconds (at most "
                f"{max_ms}; default {int(options.bash_timeout * 1000)}); output over "
                f"{options.output_chars} characters keeps its head and tail."
            ),
            parameters=_object(
                {
                    "command": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 100_000,
                        "description": "The command to run",
                    },
                    "timeout": {
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "maximum": max_ms,
                        "description": "Milliseconds before it is killed",
                    },
                    "description": {
                        "type": "string",
                        "maxLength": 1000,
                        "description": "What the command does, in a few words",
                    },
                    "run_in_background": {
                        "type": "boolean",
                        "description": "Not supported: must be false",
                    },
                },
                ["command"],
            ),
            # the loop's own timeout must not fire before the command's
            timeout=options.bash_max_timeout + 10,
        ),
        "WebFetch": Tool(
            name="WebFetch",
            description=(
                "Fetch an http(s) URL and return its text (HTML as plain text, at most "
                f"{options.webfetch_max_bytes} bytes); then answer `prompt` from it."
            ),
            parameters=_object(
                {
                    "url": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 8192,
                        "description": "The URL (http or https)",
                    },
                    "prompt": {
                        "type": "string",
                        "maxLength": 10_000,
                        "description": "What you want to learn from the page",
                    },
                },
                ["url", "prompt"],
            ),
            timeout=options.webfetch_timeout + 10,
            writes=False,
        ),
        "TodoWrite": Tool(
            name="TodoWrite",
            description=(
                "Replace this session's todo list (the whole list each time); one task "
                "in_progress at a time."
            ),
            parameters=_object(
                {
                    "todos": {
                        "type": "array",
                        "maxItems": 500,
                        "items": {
                            "type": "object",
                            "properties": {
                                "content": {"type": "string", "minLength": 1, "maxLength": 2000},
                                "status": {
                                    "type": "string",
                                    "enum": ["pending", "in_progress", "completed"],
                                },
                                "activeForm": {"type": "string", "maxLength": 2000},
                                # older Claude Code versions sent these
                                "id": {"type": "string", "maxLength": 200},
                                "priority": {"type": "string", "enum": ["high", "medium", "low"]},
                            },
                            "required": ["content", "status"],
                            "additionalProperties": False,
                        },
                    }
                },
                ["todos"],
            ),
        ),
    }
    return {name: specs[name] for name in options.offered()}
