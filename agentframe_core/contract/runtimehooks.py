"""What a runtime hook answers, and how the loop reads the answers of every implementation.

A runtime hook (`hookspecs.RUNTIME_HOOKS`) may answer None (no opinion), a plain string (the
hook's main field, named in its spec), a `HookVerdict`, or an awaitable of one of these: a
hook that runs a subprocess or asks a server awaits it instead of blocking the event loop.
The awaitables of one call run concurrently; their answers keep the plugins' order.
"""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["HookVerdict", "runtime_verdicts"]

#: The field a plain string answer fills, per hook (see each hook's spec).
Primary = Literal["block", "context"]


@dataclass(frozen=True, slots=True)
class HookVerdict:
    """One implementation's answer to a runtime hook; each hook reads the fields its spec
    names and ignores the others."""

    #: Refuse: the prompt (the run ends `blocked`), the tool call (the reason is its error
    #: result), or, from `agentframe_run_stopping`, the stop (the reason goes to the model
    #: and the run goes on).
    block: str | None = None
    #: Text for the model: beside the prompt, the session start, or the tool's result.
    context: str = ""
    #: The gate only: run the call with these arguments instead.
    arguments: dict[str, Any] | None = None
    #: The gate only: ask the person (`RunContext.ask`) with this message; the call runs if
    #: they accept, and is refused otherwise (or when nobody can be asked), saying so.
    ask: str | None = None
    #: End the run after this step, whatever else is pending, with this reason.
    stop: str | None = None


async def runtime_verdicts(
    hooks: Any, hook: str, primary: Primary = "block", /, **kwargs: Any
) -> list[HookVerdict]:
    """Every implementation's answer to the runtime hook `hook` called with `kwargs`, in
    plugin order (None answers left out); [] when `hooks` is None or nothing implements it."""
    caller = getattr(hooks, hook, None) if hooks is not None else None
    if caller is None or not caller.get_hookimpls():
        return []
    answers = list(caller(**kwargs))
    pending = [answer for answer in answers if inspect.isawaitable(answer)]
    if pending:
        settled = iter(await asyncio.gather(*pending))
        answers = [next(settled) if inspect.isawaitable(a) else a for a in answers]
    verdicts = []
    for answer in answers:
        if isinstance(answer, str) and answer:
            verdicts.append(
                HookVerdict(block=answer) if primary == "block" else HookVerdict(context=answer)
            )
        elif isinstance(answer, HookVerdict):
            verdicts.append(answer)
    return verdicts
