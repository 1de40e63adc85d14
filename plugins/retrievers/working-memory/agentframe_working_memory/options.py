"""The options of `working-memory`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, PositiveInt

__all__ = ["WorkingMemoryOptions"]


class WorkingMemoryOptions(BaseModel):
    """`retrievers: [{use: working-memory, max_tokens: 256}]`"""

    model_config = ConfigDict(extra="forbid")

    max_tokens: PositiveInt = Field(
        default=256, le=4096, description="Cap on the tokens of one summary (the model's reply)."
    )
    max_input_chars: PositiveInt = Field(
        default=12_000,
        description="Of the conversation since the last summary, at most this many of the "
        "latest characters are given to the model.",
    )
