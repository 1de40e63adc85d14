"""An agent file's `tools: Bash(git:*)`-style entries, enforced at the tool gate.

The loader keeps the tool in the agent's allowlist (or out of its denylist) and records the
entry here, by the definition's file: a call of that tool must then match one of the file's
allowing entries, and must match none of its `disallowedTools` entries. The rule syntax is
the permission rules' (`permissions.py`), and so is the reading of a Bash command: with a
restricted `Bash(…)` entry, every command it runs must be allowed, none denied, it may
write no file (`> out.txt`), and one that cannot be read without running it is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentframe_core import AgentDefinition

from .names import claude_names
from .permissions import Rule, first_match, parse_rule, unreadable_command

__all__ = ["AgentRules", "agent_rules", "agent_rules_of", "record_agent_rules"]


@dataclass(frozen=True, slots=True)
class AgentRules:
    """The restricted entries of one agent file."""

    agent: str = ""
    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.allow or self.deny)

    def refusal(self, name: str, arguments: dict[str, Any], cwd: Path) -> str | None:
        """Why the agent may not make this call, or None."""
        denied = first_match(self.deny, name, arguments, cwd, every=False)
        if denied is not None:
            return f"agent {self.agent!r} does not allow {denied.text!r} (disallowedTools)"
        names = claude_names(name)
        unsure = unreadable_command(name, arguments)
        restricting = [r for r in (*self.allow, *self.deny) if r.spec and any(map(r.covers, names))]
        if unsure and restricting:
            return (
                f"agent {self.agent!r} cannot check this command against its Bash rules: {unsure}"
            )
        covering = [rule for rule in self.allow if any(map(rule.covers, names))]
        if covering and first_match(covering, name, arguments, cwd, every=True) is None:
            allowed = ", ".join(repr(rule.text) for rule in covering)
            return f"agent {self.agent!r} allows {names[0]} only as {allowed} (tools)"
        return None


_BY_FILE: dict[Path, AgentRules] = {}


def record_agent_rules(path: Path, rules: AgentRules) -> None:
    """Remember the restricted entries of the agent file at `path` (as the loader read it)."""
    key = path.resolve()
    if rules:
        _BY_FILE[key] = rules
    else:
        _BY_FILE.pop(key, None)


def recorded() -> int:
    """How many agent files have restricted entries."""
    return len(_BY_FILE)


def agent_rules(agent: AgentDefinition | None) -> AgentRules:
    """The restricted entries of `agent`'s file; empty when it has none."""
    if agent is None or agent.path is None:
        return AgentRules()
    return _BY_FILE.get(agent.path.resolve(), AgentRules())


def agent_rules_of(agent: str, allow: list[str], deny: list[str], path: Path) -> AgentRules:
    """The rules of an agent file's restricted `tools` (`allow`) and `disallowedTools`
    entries; `/paths` in them start from the project holding `.claude/agents`."""
    base = path.resolve().parent.parent.parent
    source = str(path)
    return AgentRules(
        agent,
        tuple(parse_rule(text, source, base) for text in allow),
        tuple(parse_rule(text, source, base) for text in deny),
    )
