"""agentframe sub-agents: `use: subagents` offers a `subagent` tool that runs other agents in
their own durable sessions and returns their answers."""

from .dispatcher import SubagentTool
from .options import SubagentOptions

__all__ = ["SubagentOptions", "SubagentTool"]
