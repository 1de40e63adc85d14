"""`tools: [{use: mcp, ...}]`: which MCP servers, read from the `mcp.json` format other tools
already use, and how long to wait for them.

    {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"], "env": {...}},
                    "docs": {"type": "http", "url": "https://...", "headers": {...}}}}

Servers come from the project's `.mcp.json` (the nearest from the working folder up to the
repository root; ours, writable by us alone; its folder trusted and each server approved by
name, `projectservers.py`; read only when the config in force is the working folder's own
unless `project: true`), then the file
named by `config`, then `servers` inline; a later source replaces a server of the same name
(`servers.py` gathers them).
`${VAR}` (and `${VAR:-default}`) in `env` and `headers` is taken from the environment.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import stat
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PositiveFloat,
    PositiveInt,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from agentframe_core import AgentframeError, Backoff, project_dirs

from .auth import OAuthSettings
from .elicitation import ElicitationPolicy
from .sampling import SamplingOptions

__all__ = [
    "HttpServer",
    "McpConfigError",
    "McpOptions",
    "ServerConfig",
    "StdioServer",
    "check_owner",
    "find_project_file",
    "mask",
    "parse_servers",
]

#: An mcp.json larger than this is refused (it is a short list of servers).
MAX_FILE_BYTES = 1024 * 1024
PROJECT_FILE = ".mcp.json"
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class McpConfigError(AgentframeError):
    """An mcp.json or a server entry that cannot be used; says which and why."""


class _Server(BaseModel):
    # Other tools add their own keys (`disabled`, `autoApprove`, ...): they are ignored.
    model_config = ConfigDict(extra="ignore", frozen=True)

    #: The protocol revision: `legacy`, the `initialize` handshake (2025-11-25 and before);
    #: `auto`, 2026-07-28 through `server/discover` where the server speaks it, else
    #: `initialize` (the SDK's `Client(mode="auto")`). Not `auto` by default: an SDK server
    #: that asks its client the 2025 way (`ctx.elicit`, sampling, roots) cannot on a
    #: 2026-07-28 connection (the SDK gives it no channel back); see the README.
    protocol: Literal["legacy", "auto"] = "legacy"


class StdioServer(_Server):
    type: Literal["stdio"] = "stdio"
    command: Annotated[str, Field(min_length=1)]
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: Path | None = None


class HttpServer(_Server):
    type: Literal["http", "sse", "streamable-http"]
    url: Annotated[str, Field(pattern=r"^https?://")]
    headers: dict[str, str] = Field(default_factory=dict)
    auth: OAuthSettings | None = None

    @field_validator("headers")
    @classmethod
    def _check_headers(cls, headers: dict[str, str]) -> dict[str, str]:
        problem = header_problem(headers)
        if problem is not None:
            raise ValueError(problem)
        return headers


#: An HTTP header name (RFC 9110 token), and what a value may not hold (h11 refuses it and
#: quotes the whole value in its error: a secret on the screen).
_HEADER_NAME = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_HEADER_BAD = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def header_problem(headers: dict[str, str]) -> str | None:
    """What is wrong with a header, naming it, never its value (it is likely a secret)."""
    for name, value in headers.items():
        if not _HEADER_NAME.match(name):
            return f"header {name[:80]!r} is not a valid header name"
        if _HEADER_BAD.search(value):
            return (
                f"header {name!r} has a line break or another control character in its value "
                "(not shown)"
            )
    return None


ServerConfig = Annotated[StdioServer | HttpServer, Field(discriminator="type")]
_SERVER = TypeAdapter(ServerConfig)


def _entry(raw: Any) -> Any:
    """`type` defaults to stdio when a `command` is given (as in Claude Code's files)."""
    if isinstance(raw, dict) and "type" not in raw:
        return {**raw, "type": "stdio" if "command" in raw else "http"}
    return raw


class McpOptions(BaseModel):
    """`tools: [{use: mcp, config: mcp.json, servers: {...}, deny_tools: [...]}]`"""

    model_config = ConfigDict(extra="forbid")

    config: Path | None = Field(default=None, description="An mcp.json file to read.")
    project: bool | None = Field(
        default=None,
        description="Also read the project's .mcp.json (nearest to the cwd): true, false, or "
        "unset: only when the config file is the working folder's own (not a --config from "
        "elsewhere).",
    )
    claude_plugins: bool = Field(
        default=True,
        description="Also the installed Claude Code plugins' MCP servers, as PLUGIN:SERVER "
        "(read by agentframe-compat; none when it is not installed).",
    )
    servers: dict[str, Any] = Field(
        default_factory=dict, description="Servers inline, in the mcp.json `mcpServers` shape."
    )
    allow_servers: list[str] | None = Field(default=None, description="Only these (globs).")
    deny_servers: list[str] = Field(default_factory=list, description="Never these (globs).")
    allow_tools: list[str] | None = Field(
        default=None, description="Only tools whose exposed name (mcp_server_tool) matches."
    )
    deny_tools: list[str] = Field(default_factory=list, description="Never these tools (globs).")
    startup_timeout: PositiveFloat = Field(default=15.0, description="Seconds to initialize.")
    list_timeout: PositiveFloat = Field(default=10.0, description="Seconds for tools/list.")
    call_timeout: PositiveFloat = Field(default=60.0, description="Seconds per tool call.")
    max_tools: PositiveInt = Field(
        default=1000, description="A server listing more tools than this is left out."
    )
    close_timeout: Annotated[float, Field(gt=0, le=2.0)] = Field(
        default=1.5, description="Seconds a server is given to stop before it is killed (<= 2)."
    )
    restart: Backoff = Field(
        default_factory=lambda: Backoff(max_retries=5, base_delay_ms=250, max_delay_ms=10_000),
        description="Restarts of a server that died: delay before each, and how many in a row.",
    )
    elicitation: ElicitationPolicy = Field(
        default="ask", description="A server's questions: ask the person, or decline/cancel."
    )
    sampling: SamplingOptions = Field(
        default_factory=SamplingOptions, description="A server's requests for the model."
    )
    roots: bool = Field(default=True, description="Offer the project folder as a root.")
    max_resource_bytes: PositiveInt = Field(
        default=1024 * 1024, description="A resource read is cut to this many bytes."
    )

    @model_validator(mode="after")
    def _check_inline(self) -> McpOptions:
        for name, raw in self.servers.items():
            try:
                _parse_server(name, raw, "servers")
            except McpConfigError as err:  # pydantic reports ValueErrors with the config's line
                raise ValueError(str(err)) from None
        return self

    def server_allowed(self, name: str) -> bool:
        return _allowed(name, self.allow_servers, self.deny_servers)

    def tool_allowed(self, exposed: str) -> bool:
        return _allowed(exposed, self.allow_tools, self.deny_tools)


def _allowed(name: str, allow: list[str] | None, deny: list[str]) -> bool:
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in deny):
        return False
    return allow is None or any(fnmatch.fnmatchcase(name, pattern) for pattern in allow)


def _parse_server(name: str, raw: Any, where: str) -> StdioServer | HttpServer:
    try:
        server: StdioServer | HttpServer = _SERVER.validate_python(_entry(raw))
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(map(str, _field(e['loc']))) or 'entry'}: {e['msg']}"
            for e in err.errors(include_url=False)
        )
        raise McpConfigError(f"{where}: server {name!r}: {problems}") from None
    return server


def _field(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """The field's path without the union's tag (`stdio.command` -> `command`)."""
    return loc[1:] if loc and loc[0] in _TAGS else loc


_TAGS = {"stdio", "http", "sse", "streamable-http"}


def find_project_file(cwd: Path) -> Path | None:
    """The nearest `.mcp.json` from `cwd` up to the repository root, as agent definitions are
    found: one further up belongs to someone else's folders, and its commands would run."""
    for folder in project_dirs(cwd):
        candidate = folder / PROJECT_FILE
        if candidate.exists():
            return candidate
    return None


def check_owner(path: Path, info: os.stat_result) -> None:
    """A file whose commands we run must be ours and writable by us alone."""
    uid = os.geteuid()
    if info.st_uid != uid:
        raise McpConfigError(
            f"{path}: owned by another user (uid {info.st_uid}, not {uid}); its commands are "
            "not run (chown it, or use a file of your own with `config`)"
        )
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise McpConfigError(
            f"{path}: writable by group or others (mode {stat.S_IMODE(info.st_mode):o}); its "
            "commands are not run (chmod go-w it)"
        )


_SCRIPT_SUFFIXES = {".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".rb", ".pl", ".jar"}


def with_base(server: StdioServer | HttpServer, base: Path) -> StdioServer | HttpServer:
    """A stdio server's relative paths, resolved against `base`, the folder of the file that
    configures it (as the kernel resolves paths in options), so it starts the same from any
    working folder: `cwd`; a `command` starting with `./` or `../`; an argument starting with
    `./` or `../`, or naming a file or folder that exists under `base` when it holds a `/` or
    ends like a script (`server.py`). Other arguments (`-m pkg`, `--port`, URLs) are left alone,
    and so is the server's working folder when it has no `cwd`: the shell's, as before."""
    if not isinstance(server, StdioServer):
        return server

    def path(value: str) -> bool:
        return value.startswith(("./", "../"))

    def argument(value: str) -> str:
        candidate = base / value
        if path(value) or (
            not value.startswith("-")
            and not Path(value).is_absolute()
            and ("/" in value or Path(value).suffix in _SCRIPT_SUFFIXES)
            and "://" not in value
            and candidate.exists()
        ):
            return str(candidate.resolve())
        return value

    cwd = server.cwd
    if cwd is not None:
        cwd = cwd.expanduser()
        cwd = cwd if cwd.is_absolute() else (base / cwd).resolve()
    command = str((base / server.command).resolve()) if path(server.command) else server.command
    return server.model_copy(
        update={"cwd": cwd, "command": command, "args": [argument(a) for a in server.args]}
    )


def read_file(path: Path) -> dict[str, StdioServer | HttpServer]:
    """The servers of one mcp.json, or McpConfigError naming the file, line or field."""
    try:
        info = path.stat()
    except OSError as err:
        raise McpConfigError(f"{path}: cannot be read: {err.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise McpConfigError(f"{path}: not a regular file")
    check_owner(path, info)
    if info.st_size > MAX_FILE_BYTES:
        raise McpConfigError(f"{path}: {info.st_size} bytes; an mcp.json is at most 1 MiB")
    try:
        data = json.loads(path.read_bytes())
    except json.JSONDecodeError as err:
        raise McpConfigError(f"{path}:{err.lineno}: not JSON: {err.msg}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise McpConfigError(f"{path}: cannot be read: {err}") from None
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise McpConfigError(f'{path}: expected an object {{"mcpServers": {{name: server}}}}')
    return parse_servers(servers, str(path), path.resolve().parent)


def parse_servers(
    servers: dict[str, Any], where: str, base: Path
) -> dict[str, StdioServer | HttpServer]:
    """Raw `{name: server}` entries read in `where`, relative paths meaning `base`."""
    return {name: with_base(_parse_server(name, raw, where), base) for name, raw in servers.items()}


def expand(values: dict[str, str], where: str) -> dict[str, str]:
    """`${VAR}` and `${VAR:-default}` from the environment; an unset VAR without a default
    is an error naming the field (never silently an empty secret)."""

    def one(key: str, value: str) -> str:
        def sub(match: re.Match[str]) -> str:
            var, default = match.group(1), match.group(2)
            found = os.environ.get(var)
            if found is None:
                if default is None:
                    raise McpConfigError(f"{where}.{key}: ${{{var}}} is not set")
                return default
            return found

        return _VAR.sub(sub, value)

    return {key: one(key, value) for key, value in values.items()}


def expand_headers(headers: dict[str, str], where: str) -> dict[str, str]:
    """`expand` for headers, checked again once expanded (a variable may hold a newline)."""
    expanded = expand(headers, where)
    problem = header_problem(expanded)
    if problem is not None:
        raise McpConfigError(f"{where}: {problem}")
    return expanded


def mask(values: dict[str, str]) -> dict[str, str]:
    """What output may show of env values and headers: the names only."""
    return dict.fromkeys(values, "***")
