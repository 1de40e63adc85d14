"""The sandbox a project's `!` lines and hooks run in: the one the stack's `Bash` runs in.

One setting, `sandbox:` of `use: claude-tools`, so a user who turns it on for `Bash` does not
leave the other shell commands a project brings outside it: when a `use: claude-tools` of the
config in force has its sandbox on, slash commands' `` !`cmd` `` programs and command hooks
run in the same bubblewrap sandbox (its `network` and `writable`), the first such block's when
there are several. With none on they run as before, unsandboxed (Claude Code sandboxes only
its Bash tool). Claude Code's own `sandbox` block of `settings.json` is not read; a file
whose `sandbox.enabled` is true while the stack has no sandbox is warned about, once a
process (`note_unheeded`), so a Claude Code user's sandbox is not silently off.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from agentframe_core import PartConfig

if TYPE_CHECKING:  # claude-tools is imported once something runs: this module is light
    from agentframe_claude_tools import SandboxOptions

__all__ = ["note_unheeded", "stack_sandbox"]

log = logging.getLogger("agentframe.claude-hooks")
_noted: set[Path] = set()


def stack_sandbox(parts: Iterable[PartConfig]) -> SandboxOptions | None:
    """The first enabled `sandbox:` of the `use: claude-tools` blocks among `parts`; None
    when no block sandboxes (then nothing is)."""
    from agentframe_claude_tools import ClaudeToolsOptions

    for part in parts:
        options = part.options
        if isinstance(options, ClaudeToolsOptions) and options.sandbox.enabled:
            return options.sandbox
    return None


def note_unheeded(asked: Iterable[Path], parts: Iterable[PartConfig]) -> None:
    """Warn, once per file, that Claude Code settings files `asked` for a sandbox that the
    stack (`parts`) does not have."""
    new = [path for path in asked if path not in _noted]
    if not new or stack_sandbox(parts) is not None:
        return
    _noted.update(new)
    for path in new:
        log.warning(
            "%s: sandbox.enabled: agentframe does not read Claude Code's sandbox settings; "
            "Bash, hooks and !`cmd` programs run unsandboxed. `sandbox: on` in the config's "
            "`use: claude-tools` block sandboxes all three",
            path,
        )
