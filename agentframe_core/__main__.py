"""`python -m agentframe_core` is the `agentframe` command."""

from .cli import main

main()
