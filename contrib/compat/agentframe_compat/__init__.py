"""Agent loaders for other tools' definition files: `.claude/agents`, `.pi/agents`,
`.kigi/agents` (they rank below agentframe's own definitions at the same level), and Claude
Code's hooks and permission rules from its settings files, on the kernel's runtime hooks."""

from .loaders import ClaudeLoader, CompatLoader, CompatOptions, KigiLoader, PiLoader

__all__ = ["ClaudeLoader", "CompatLoader", "CompatOptions", "KigiLoader", "PiLoader"]
