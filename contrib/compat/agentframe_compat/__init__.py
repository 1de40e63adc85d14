"""Other tools' files in agentframe: agent loaders for `.claude/agents`, `.pi/agents`,
`.kigi/agents` (ranked below agentframe's own definitions at the same level), Claude Code's
slash commands (`.claude/commands`) and Claude Code plugins (`agentframe cc-plugins`)."""

from .commands import ClaudeCommands, CommandLimits
from .loaders import ClaudeLoader, CompatLoader, CompatOptions, KigiLoader, PiLoader
from .plugins import InstalledPlugin, PluginError, PluginParts, installed_plugins, plugin_parts

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
