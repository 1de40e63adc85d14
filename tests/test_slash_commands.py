"""The slash-command mechanism: what is an invocation, how plugins' commands rank, and a
command's run limited to its tools and model."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from agentframe_core import (
    AgentDefinition,
    CommandScan,
    PluginHost,
    Session,
    SlashCommand,
    UnknownCommandError,
    find_commands,
    hookimpl,
    tool,
)
from agentframe_core.assembly.commands import command_agent, parse_invocation


def test_what_is_an_invocation() -> None:
    assert parse_invocation("/review 42  high") == ("review", "42  high")
    assert parse_invocation("  /plugin:cmd") == ("plugin:cmd", "")
    assert parse_invocation("/vue.js-expert\nline two") == ("vue.js-expert", "line two")
    for text in ("/etc/hosts is what?", "review /x", "/", "/-x", "// not one"):
        assert parse_invocation(text) is None, text


def command(name: str, level: str, **fields: object) -> SlashCommand:
    async def expand(arguments: str) -> str:
        return f"{name} ({level}): {arguments}"

    return SlashCommand(name=name, expand=expand, level=level, **fields)  # type: ignore[arg-type]


def test_commands_rank_by_level_and_aliases_answer_only_when_unclaimed(tmp_path: Path) -> None:
    @hookimpl
    def agentframe_slash_commands(cwd: Path) -> CommandScan:
        assert cwd == tmp_path.absolute()
        return CommandScan(
            [
                command("p:review", "plugin", aliases=("review", "lint")),
                command("review", "user"),
                command("review", "project"),
                command("component", "project", aliases=("frontend:component", "lint")),
            ],
            ["bad.md:3: a broken file"],
        )

    @hookimpl
    def broken(cwd: Path) -> CommandScan:
        raise RuntimeError("boom")

    host = PluginHost()
    host.add("good", types.SimpleNamespace(agentframe_slash_commands=agentframe_slash_commands))
    host.add("bad", types.SimpleNamespace(agentframe_slash_commands=broken))
    catalog = find_commands(host, tmp_path)
    assert catalog.names() == ["component", "p:review", "review"]
    assert catalog.get("review").level == "project"
    assert [c.level for c in catalog.shadowed["review"]] == ["user"]
    assert catalog.get("frontend:component").name == "component"
    # `review` is a name, `lint` is claimed twice: neither alias answers.
    assert catalog.find("lint") is None
    assert "bad.md:3: a broken file" in catalog.errors
    assert any("plugin bad: RuntimeError: boom" in e for e in catalog.errors)
    with pytest.raises(UnknownCommandError, match="unknown command /nope; commands: /component"):
        catalog.get("nope")


@tool(writes=False)
async def read(path: str) -> str:
    """Read a file."""
    return path


@tool
async def write(path: str) -> str:
    """Write a file."""
    return path


async def test_a_commands_run_sees_only_its_tools_and_its_model(make_stack) -> None:
    stack = make_stack(["done", "done"], [read, write])
    limited = command("look", "project", allowed_tools=("read", "grep"), model="small")
    agent = command_agent(limited, None)
    assert agent is not None
    result = await Session(stack, agent=agent).run("look")
    assert result.reply == "done"
    request = stack.adapter.requests[0]
    assert [t.name for t in request.tools] == ["read"] and request.model == "small"
    # Never wider than the agent: an agent without `read` does not get it from a command.
    narrow = AgentDefinition(name="w", description="d", tools=["write"])
    assert command_agent(limited, narrow).tools == []  # type: ignore[union-attr]
    assert command_agent(command("plain", "user"), narrow) is narrow
