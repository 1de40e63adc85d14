"""What a `Read(…)` deny rule hides from the tools that walk folders (`Grep`, `Glob`, `LS`).

The gate matches a call's own path argument; a search of the whole project names no file,
so claude-tools asks the kernel hook `agentframe_hidden_files` for a test of each file it
walks into, and this is compat's answer: the settings' and the agent file's `Read(…)` deny
rules, tried on each real path (`permissions.path_rule`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agentframe_core import RunContext

from .agentrules import agent_rules
from .names import claude_names
from .permissions import READ_TOOLS, path_rule
from .project import ClaudeProject

__all__ = ["read_denied"]


def read_denied(
    project: ClaudeProject, ctx: RunContext, name: str
) -> Callable[[Path], bool] | None:
    """A test of a real path, True for what a Read deny rule matches; None when no rule
    could hide anything from tool `name`."""
    if project.error is not None or not any(n in READ_TOOLS for n in claude_names(name)):
        return None  # a settings error refuses the call at the gate already
    given = [*(project.rules.deny if project.rules else []), *agent_rules(ctx.agent).deny]
    rules = [rule for rule in given if rule.tool in READ_TOOLS and rule.spec]
    if not rules:
        return None
    folder = project.folder
    return lambda path: path_rule(rules, path, folder) is not None
