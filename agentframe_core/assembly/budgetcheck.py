"""`config check`: a context builder's budget that no prompt can meet, because the system
prompt and the tools alone are over it (a warning: the config is valid, every run will be
over its budget). Only a budget the options fix is checked: no model is asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..contract.configtypes import Config
from ..contract.protocols import BudgetedBuilder, Closeable
from ..contract.tools import Tool
from ..engine.budget import estimated_tokens, over_budget_message
from ..engine.prompt import assemble_system_prompt

__all__ = ["unmet_budget"]


async def unmet_budget(config: Config, tools: list[Tool], cwd: Path) -> dict[str, Any] | None:
    """The warning (message, prompt_tokens, budget_tokens) when the default agent's system
    prompt and `tools` are estimated over the context builder's fixed budget, else None."""
    builder = config.context.build()
    try:
        if not isinstance(builder, BudgetedBuilder):
            return None
        budget = builder.fixed_budget()
        if budget is None:
            return None
        system = assemble_system_prompt(None, {t.name: t.name for t in tools}, cwd=cwd)
        floor = estimated_tokens([system], tools)
        if floor <= budget:
            return None
        what = "before any message, the system prompt and the tools alone take about"
        return {
            "message": over_budget_message(floor, budget, repr(config.context.name), what),
            "prompt_tokens": floor,
            "budget_tokens": budget,
        }
    finally:
        if isinstance(builder, Closeable):
            await builder.aclose()
