"""The options of `use: subagents`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Mode", "SubagentOptions"]

Mode = Literal["single", "parallel", "chain"]


def _all_modes() -> list[Mode]:
    return ["single", "parallel", "chain"]


class SubagentOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    #: The modes offered (a small model does better with `[single]` alone).
    modes: Annotated[list[Mode], Field(min_length=1)] = Field(default_factory=_all_modes)
    #: The agents that may be delegated to (None: every agent the loaders find).
    agents: list[Annotated[str, Field(min_length=1)]] | None = None
    #: At most this many tasks in one `parallel` call (and steps in one `chain`).
    max_tasks: Annotated[int, Field(ge=1, le=64)] = 8
    #: How many children of one `parallel` call run at once.
    max_concurrency: Annotated[int, Field(ge=1, le=32)] = 4
    #: A task longer than this many characters is refused (the schema says so too).
    max_task_chars: Annotated[int, Field(ge=100, le=1_000_000)] = 32_000
    #: A child's answer longer than this is cut (head and tail kept) in the tool result.
    max_answer_chars: Annotated[int, Field(ge=100, le=1_000_000)] = 16_000
    #: Seconds one `subagent` call may take in all (the tool's timeout).
    timeout: Annotated[float, Field(gt=0, le=86_400)] = 900.0
