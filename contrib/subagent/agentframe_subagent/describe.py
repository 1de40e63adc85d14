"""What the model is told: the tool's schema, the agents it may use, and when to delegate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentframe_core import AgentDefinition

from .modes import PREVIOUS

__all__ = ["GUIDANCE", "describe", "parameters"]

GUIDANCE = (
    "Delegate a task to a specialised agent, which works in its own session and returns its "
    "answer. Delegate self-contained work that one of the agents below is made for, or "
    "independent pieces of work that can run side by side; do simple things yourself. The "
    "agent does NOT see this conversation: the task must carry everything it needs (facts, "
    "file names, what to return). Modes: single {agent, task}; parallel {tasks: [{agent, "
    f"task}}, ...]}} for independent tasks; chain {{chain: [{{agent, task}}, ...]}} where "
    f"{PREVIOUS} in a step's task is replaced by the previous step's answer."
)


def describe(agents: Sequence[AgentDefinition], max_description: int = 200) -> str:
    """The tool's description: the guidance and each agent with its description, by name."""
    lines = [GUIDANCE, "", "Agents:"]
    for agent in sorted(agents, key=lambda a: a.name):
        text = " ".join(agent.description.split())[:max_description]
        lines.append(f"- {agent.name}: {text}")
    if not agents:
        lines.append("- (none available)")
    return "\n".join(lines)


def parameters(max_tasks: int, max_task_chars: int) -> dict[str, Any]:
    """One object schema the model can fill for every mode (the mode is checked in code)."""
    agent: dict[str, Any] = {"type": "string", "minLength": 1, "description": "the agent's name"}
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
    return {
        "type": "object",
        "properties": {
            "agent": agent,
            "task": task,
            "tasks": {**steps, "description": "parallel: independent tasks, run side by side"},
            "chain": {**steps, "description": f"chain: steps in order; {PREVIOUS} = last answer"},
        },
        "additionalProperties": False,
    }
