"""Other tools' files in agentframe: agent loaders for `.claude/agents`, `.pi/agents`,
`.kigi/agents` (ranked below agentframe's own definitions at the same level), Claude Code's
slash commands (`.claude/commands`), Claude Code plugins (`agentframe cc-plugins`), and Claude
Code's hooks and permission rules from its settings files, on the kernel's runtime hooks."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .commands import ClaudeCommands, CommandLimits
    from .loaders import ClaudeLoader, CompatLoader, CompatOptions, KigiLoader, PiLoader
    from .plugins import InstalledPlugin, PluginError, PluginParts, installed_plugins, plugin_parts

#: Each name's module, imported on first use: the plugin module loads with every stack.
_MODULES = {
    "ClaudeCommands": "commands",
    "CommandLimits": "commands",
    "ClaudeLoader": "loaders",
    "CompatLoader": "loaders",
    "CompatOptions": "loaders",
    "KigiLoader": "loaders",
    "PiLoader": "loaders",
    "InstalledPlugin": "plugins",
    "PluginError": "plugins",
    "PluginParts": "plugins",
    "installed_plugins": "plugins",
    "plugin_parts": "plugins",
}

__all__ = [
    "ClaudeCommands",
    "ClaudeLoader",
    "CommandLimits",
    "CompatLoader",
    "CompatOptions",
    "InstalledPlugin",
    "KigiLoader",
    "PiLoader",
    "PluginError",
    "PluginParts",
    "installed_plugins",
    "plugin_parts",
]


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)
