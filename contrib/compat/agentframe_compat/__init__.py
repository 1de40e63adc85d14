"""Agent loaders for other tools' definition files: `.claude/agents`, `.pi/agents`,
`.kigi/agents` (they rank below agentframe's own definitions at the same level), and Claude
Code's hooks and permission rules from its settings files, on the kernel's runtime hooks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .loaders import ClaudeLoader, CompatLoader, CompatOptions, KigiLoader, PiLoader

__all__ = ["ClaudeLoader", "CompatLoader", "CompatOptions", "KigiLoader", "PiLoader"]


def __getattr__(name: str) -> Any:
    """The loaders, imported on first use: the plugin module loads with every stack."""
    if name in __all__:
        from . import loaders

        return getattr(loaders, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
