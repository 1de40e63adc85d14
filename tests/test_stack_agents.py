"""A built stack knows the agent catalog of the plugins that built it, so a part that needs
it (the sub-agent tool) does not start a plugin host and import every plugin of its own."""

from __future__ import annotations

from pathlib import Path

from agentframe_core import PluginHost, build_stack, load_config


def test_a_built_stack_lists_the_agents_seen_from_a_folder(tmp_path: Path) -> None:
    (tmp_path / "agentframe.yaml").write_text("adapter: {use: scripted}\nstore: memory\n")
    agents = tmp_path / ".agentframe" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text("---\nname: helper\ndescription: Helps.\n---\nHelp.\n")
    host = PluginHost()
    stack = build_stack(load_config(host, tmp_path / "agentframe.yaml"), host)
    assert stack.agents is not None
    names = {definition.name for definition in stack.agents(tmp_path)}
    assert {"helper", "general-purpose", "planner"} <= names
