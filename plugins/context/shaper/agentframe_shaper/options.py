"""The `context: {use: shaper, ...}` block."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, PositiveInt, model_validator

__all__ = ["ShaperOptions"]


class ShaperOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    budget_tokens: PositiveInt | None = Field(
        default=None,
        description="Tokens the prompt may use; else context_window - reserve, where "
        "context_window defaults to the adapter's.",
    )
    context_window: PositiveInt | None = Field(
        default=None, description="The model's window (default: the adapter's capabilities)."
    )
    reserve: NonNegativeInt = Field(default=512, description="Tokens left for the reply.")
    headroom_tokens: PositiveInt | None = Field(
        default=None,
        description="The prefix is left alone until the prompt crosses budget - headroom; a "
        "reshape then goes down to budget - 2 * headroom (default: a quarter of the budget).",
    )
    pristine_messages: NonNegativeInt = Field(
        default=6, description="The last N messages are always sent verbatim."
    )
    pristine_tool_exchanges: NonNegativeInt = Field(
        default=2, description="The last M tool calls with their results are always verbatim."
    )
    lod_above_chars: PositiveInt = Field(
        default=1200, description="Older entries longer than this may be shown as a stub."
    )
    stub_head_chars: NonNegativeInt = Field(
        default=200, description="How much of a stubbed entry's head the stub shows."
    )
    summary_max_tokens: PositiveInt = Field(
        default=256, description="The longest summary a compaction asks the model for."
    )
    summary_model: str | None = Field(
        default=None, description="The model that writes summaries (default: the stack's)."
    )
    estimator: Literal["chars", "adapter", "tiktoken"] = Field(
        default="chars",
        description="chars: a conservative 4 characters a token; adapter: the adapter's own "
        "count_tokens (llamacpp: the server's /tokenize), chars where it has none; tiktoken: "
        "OpenAI's encodings for `tokenizer_model` (pip install 'agentframe-shaper[openai]').",
    )
    tokenizer_model: str = Field(
        default="gpt-4o", description="The OpenAI model whose encoding `tiktoken` counts with."
    )

    @model_validator(mode="after")
    def _consistent(self) -> ShaperOptions:
        if self.estimator == "tiktoken":
            from .tokens import TiktokenEstimator

            TiktokenEstimator(self.tokenizer_model)  # raises ValueError naming what is missing
        if self.budget_tokens is not None and self.context_window is not None:
            raise ValueError("give budget_tokens, or context_window (and reserve), not both")
        if self.context_window is not None and self.context_window <= self.reserve:
            raise ValueError(
                f"context_window ({self.context_window}) must be larger than reserve "
                f"({self.reserve})"
            )
        return self
