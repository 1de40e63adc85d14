"""A definition file drives a real session: its prompt, tools and names reach the model."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from stacks import call

from agentframe_core import EntryKind
from agentframe_core.assembly.catalog import find_agents
from agentframe_core.assembly.plugins import PluginHost
from agentframe_core.cli import cli
from agentframe_core.engine.prompt import assemble_system_prompt
from agentframe_core.engine.session import Session
from agentframe_core.examples import add, current_time

AGENTS = ".agentframe/agents"


async def test_a_definition_file_shapes_the_request(
    cwd: Path, project: Path, write_agent: Any, make_stack: Any
) -> None:
    (project / "AGENTS.md").write_text("Answer in French.\n")
    write_agent(
        cwd / AGENTS,
        "calculator",
        tools="[add]",
        toolNameOverrides="{add: plus}",
        paramNameOverrides="{add: {a: x}}",
        body="You add numbers.",
    )
    agent = find_agents(PluginHost(), None, cwd).get("calculator")
    stack = make_stack([call("plus", x=2, b=3), "5"], [add, current_time])

    result = await Session(stack, agent=agent, cwd=cwd).run("2+3?")

    request = stack.adapter.requests[0]
    assert [t.name for t in request.tools] == ["plus"]
    assert set(request.tools[0].parameters["properties"]) == {"x", "b"}
    system = request.messages[0].content
    expected = assemble_system_prompt(agent, {"add": "plus"}, cwd=cwd, today=date.today())
    assert system.startswith(expected.rstrip())
    assert "You add numbers." in system and "Answer in French." in system
    assert result.reply == "5"
    # the call was mapped back: the store keeps canonical names and arguments
    entries = await stack.store.context(result.session_id)
    [called] = [e for e in entries if e.kind is EntryKind.TOOL_CALL]
    assert called.tool_name == "add"


def test_run_with_an_agent_from_the_project(cwd: Path, project: Path, write_agent: Any) -> None:
    config = project / "agentframe.yaml"
    config.write_text(
        "adapter:\n  use: scripted\n  replies:\n"
        "    - tool_calls: [{name: plus, arguments: {a: 2, b: 3}}]\n"
        "    - The sum is 5.\n"
        "store: memory\ncontext: verbatim\n"
        "tools:\n  - use: functions\n    import: [agentframe_core.examples:add]\n"
    )
    write_agent(cwd / AGENTS, "calculator", tools="add", toolNameOverrides="{add: plus}")

    result = CliRunner().invoke(
        cli, ["-c", str(config), "run", "--agent", "calculator", "--json", "2+3?"]
    )

    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["reply"] == "The sum is 5."
    [tool_call] = data["tool_calls"]
    # the model called `plus`; the run reports the canonical tool, which really ran
    assert (tool_call["name"], tool_call["arguments"]) == ("add", {"a": 2, "b": 3})
    assert (tool_call["result"], tool_call["is_error"]) == ("5.0", False)
