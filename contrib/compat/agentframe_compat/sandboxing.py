"""The sandbox a project's `!` lines and hooks run in: the one the stack's `Bash` runs in.

One setting, `sandbox:` of `use: claude-tools`, so a user who turns it on for `Bash` does not
leave the other shell commands a project brings outside it: when a `use: claude-tools` of the
config in force has its sandbox on, slash commands' `` !`cmd` `` programs and command hooks
run in the same bubblewrap sandbox (its `network` and `writable`), the first such block's when
there are several. With none on they run as before, unsandboxed (Claude Code sandboxes only
its Bash tool). Claude Code's own `sandbox` block of `settings.json` is not read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from agentframe_core import PartConfig

if TYPE_CHECKING:  # claude-tools is imported once something runs: this module is light
    from agentframe_claude_tools import SandboxOptions

__all__ = ["stack_sandbox"]


def stack_sandbox(parts: Iterable[PartConfig]) -> SandboxOptions | None:
    """The first enabled `sandbox:` of the `use: claude-tools` blocks among `parts`; None
    when no block sandboxes (then nothing is)."""
    from agentframe_claude_tools import ClaudeToolsOptions

    for part in parts:
        options = part.options
        if isinstance(options, ClaudeToolsOptions) and options.sandbox.enabled:
            return options.sandbox
    return None
