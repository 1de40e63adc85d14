"""What the model is told: the tool's schema, the agents it may use, and when to delegate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentframe_core import AgentDefinition

from .modes import PREVIOUS

__all__ = ["GUIDANCE", "MODES", "describe", "parameters"]

GUIDANCE = (
    "Delegate a task to a specialised agent, which works in its own session and returns its "
    "answer. Delegate self-contained work that one of the agents below is made for, or "
    "independent pieces of work that can run side by side; do simple things yourself. The "
    "agent does NOT see this conversation: the task must carry everything it needs (facts, "
    "file names, what to return)."
)

#: Each mode as the description explains it.
MODES = {
    "single": "single {agent, task}",
    "parallel": "parallel {tasks: [{agent, task}, ...]} for independent tasks",
    "chain": (
        "chain {chain: [{agent, task}, ...]} where "
        f"{PREVIOUS} in a step's task is replaced by the previous step's answer"
    ),
}


def describe(
    agents: Sequence[AgentDefinition], modes: Sequence[str], max_description: int = 200
) -> str:
    """The tool's description: the guidance, the modes offered, and each agent with its
    description, by name."""
    lines = [f"{GUIDANCE} Modes: {'; '.join(MODES[m] for m in modes)}.", "", "Agents:"]
    for agent in sorted(agents, key=lambda a: a.name):
        text = " ".join(agent.description.split())[:max_description]
        lines.append(f"- {agent.name}: {text}")
    return "\n".join(lines)


def parameters(
    modes: Sequence[str], max_tasks: int, max_task_chars: int, agents: Sequence[str]
) -> dict[str, Any]:
    """One object schema the model can fill for the modes offered (which one a call asks
    for is checked in code); with `single` alone, `agent` and `task` are required. `agent`
    is an enum of the agents offered: a small model given a free string invents names."""
    agent: dict[str, Any] = {
        "type": "string",
        "enum": sorted(agents),
        "description": "the agent's name",
    }
    task = {
        "type": "string",
        "minLength": 1,
        "maxLength": max_task_chars,
        "description": "everything the agent needs to know; it cannot see this conversation",
    }
    item = {
        "type": "object",
        "properties": {"agent": agent, "task": task},
        "required": ["agent", "task"],
        "additionalProperties": False,
    }
    steps = {"type": "array", "items": item, "minItems": 1, "maxItems": max_tasks}
    properties: dict[str, Any] = {}
    if "single" in modes:
        properties.update(agent=agent, task=task)
    if "parallel" in modes:
        properties["tasks"] = {**steps, "description": "independent tasks, run side by side"}
    if "chain" in modes:
        properties["chain"] = {**steps, "description": f"steps in order; {PREVIOUS} = last answer"}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if list(modes) == ["single"]:
        schema["required"] = ["agent", "task"]
    return schema
