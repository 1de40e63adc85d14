"""The thin synchronous facade, for scripts: one call answers one prompt.

    import agentframe_core
    result = agentframe_core.run("What is 2+3? Use the add tool.")
    print(result.reply)

It loads the config in force (as the CLI does), builds the stack, runs the session and closes
everything. Async code uses `Session` directly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from ..contract.definition import AgentDefinition
from ..contract.errors import EventLoopRunningError
from ..contract.protocols import Stack
from ..contract.questions import QuestionCallback
from ..engine.output import OutputSpec
from ..engine.session import (
    CompactionCallback,
    EventCallback,
    RunResult,
    Session,
    TokenCallback,
    ToolCallback,
)

__all__ = ["run"]


def run(
    prompt: str,
    *,
    config: str | Path | None = None,
    profile: str | None = None,
    agent: str | AgentDefinition | None = None,
    session_id: str | None = None,
    cwd: Path | None = None,
    on_token: TokenCallback | None = None,
    on_tool: ToolCallback | None = None,
    on_compaction: CompactionCallback | None = None,
    on_event: EventCallback | None = None,
    on_new_session: Callable[[str], object] | None = None,
    on_question: QuestionCallback | None = None,
    output: OutputSpec | None = None,
) -> RunResult:
    """Answer `prompt` to completion with the configured stack (`config`: a file, else
    `$AGENTFRAME_CONFIG`, `./agentframe.yaml` or the embedded default). `on_new_session` is
    called with `session_id` when the store has no such session yet (a typo, or a new one);
    `on_question` answers the questions parts ask (none: they are declined). `agent` is an
    agent's name, or a definition already found (a slash command's); `output` the typed
    answer asked for (`RunResult.output`). Raises
    EventLoopRunningError where an event loop runs (async code awaits `Session.run`)."""
    refuse_running_loop()
    from .catalog import find_agents
    from .config import find_config_file, load_config
    from .plugins import PluginHost
    from .stack import build_stack

    where = cwd or Path.cwd()
    host = PluginHost()
    loaded = load_config(host, find_config_file(config, where), profile)
    definition = agent if not isinstance(agent, str) else None
    if isinstance(agent, str) and agent:
        definition = find_agents(host, loaded, where).get(agent)
    stack = build_stack(loaded, host)

    async def go() -> RunResult:
        async with stack:
            if session_id is not None and on_new_session is not None:
                await _tell_if_new(stack, session_id, on_new_session)
            session = Session(stack, session_id, agent=definition, cwd=where)
            result = await session.run(
                prompt,
                on_token=on_token,
                on_tool=on_tool,
                on_compaction=on_compaction,
                on_event=on_event,
                on_question=on_question,
                output=output,
            )
            await session.end()
            return result

    return asyncio.run(go())


def refuse_running_loop(
    call: str = "agentframe_core.run()",
    instead: str = "build the stack and `await Session(stack).run(prompt)` instead "
    "(docs/api.md: Session)",
) -> None:
    """Fail before any work (no stack built, no coroutine left never awaited) when `call` is
    made from async code: `asyncio.run` cannot start a loop inside a running one."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise EventLoopRunningError(
        f"{call} is synchronous and was called inside a running event loop; "
        f"from async code, {instead}"
    )


async def _tell_if_new(stack: Stack, session_id: str, tell: Callable[[str], object]) -> None:
    if all(info.id != session_id for info in await stack.store.sessions()):
        tell(session_id)
