"""Agent loaders for other tools' definition files: `.claude/agents`, `.pi/agents`,
`.kigi/agents`. They rank below agentframe's own definitions at the same level."""

from .loaders import ClaudeLoader, CompatLoader, CompatOptions, KigiLoader, PiLoader

__all__ = ["ClaudeLoader", "CompatLoader", "CompatOptions", "KigiLoader", "PiLoader"]
