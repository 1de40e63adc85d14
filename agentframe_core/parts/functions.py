"""The `functions` tool dispatcher (`use: functions`): Python functions as tools.

What a function tool is (its schema from the signature and docstring, the import by
reference, the call on a daemon thread) is the engine's `functions.py`; this part offers a
set of them to a session and runs their calls, in this process or, with `isolate`, each in a
child process (`engine/isolated.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from ..contract.model import ToolCall
from ..contract.protocols import RunContext
from ..contract.tools import Tool, ToolResult
from ..engine.functions import FunctionTool, outcome_text
from ..engine.validation import MAX_ERRORS, clip

__all__ = ["FunctionToolset"]


class FunctionToolset:
    """A ToolDispatcher over FunctionTools (`use: functions`)."""

    def __init__(
        self, functions: Iterable[FunctionTool | Callable[..., Any]], *, isolate: bool = False
    ) -> None:
        """`isolate`: run each call in a child process killed at its timeout (`engine/isolated.py`);
        every function must then be imported by reference and take no `RunContext`."""
        self._tools: dict[str, FunctionTool] = {}
        self._isolate = isolate
        for fn in functions:
            ft = fn if isinstance(fn, FunctionTool) else FunctionTool(fn)
            if ft.spec.name in self._tools:
                raise ValueError(f"two tools are named {ft.spec.name!r}")
            if isolate and (ft.reference is None or ft.takes_context):
                raise ValueError(
                    f"tool {ft.spec.name!r} cannot be isolated: only functions imported by "
                    "reference that take no RunContext can run in a child process"
                )
            self._tools[ft.spec.name] = ft

    async def tools(self, ctx: RunContext) -> list[Tool]:
        return [ft.spec for ft in self._tools.values()]

    async def dispatch(self, call: ToolCall, ctx: RunContext) -> ToolResult:
        ft = self._tools.get(call.name)
        if ft is None:
            return ToolResult(f"no tool named {call.name!r}", is_error=True)
        try:
            if self._isolate and ft.reference is not None:
                from ..engine.isolated import run_isolated

                ft.arguments.model_validate(call.arguments)  # checked here, not in a child
                return await run_isolated(ft.reference, call.arguments, ft.folder)
            value = await ft.run(call.arguments, ctx)
        except PydanticValidationError as err:
            return ToolResult(f"invalid arguments: {_brief(err)}", is_error=True)
        if isinstance(value, ToolResult):
            return value
        return ToolResult(outcome_text(value)[0])


def _brief(err: PydanticValidationError) -> str:
    """The errors, bounded as the schema validator bounds them (`validation.py`)."""
    errors = err.errors(include_url=False, include_input=False, include_context=False)
    problems = [
        clip(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}")
        for e in errors[:MAX_ERRORS]
    ]
    if len(errors) > MAX_ERRORS:
        problems.append("and more")
    return "; ".join(problems)
