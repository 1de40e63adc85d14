"""Typed output on the real model: llama.cpp turns the output's JSON schema into a grammar,
so even SmolLM2-135M gives a schema-valid value, through `Agent` as a user builds it."""

from __future__ import annotations

import pytest
from agentframe_llamacpp import LlamaCppAdapter, LlamaRuntime
from pydantic import BaseModel

from agentframe_core import Agent, Outcome


class Person(BaseModel):
    name: str
    age: int


@pytest.mark.parametrize(
    "prompt",
    [
        "Ada Lovelace was 36 years old. Extract the person.",
        "Extract the person: Bob is a 52-year-old carpenter.",
        "My neighbour Chen turned 7 last week. Who is it, and how old?",
    ],
)
async def test_the_grammar_gives_a_schema_valid_value(
    llama_runtime: LlamaRuntime, prompt: str
) -> None:
    adapter = LlamaCppAdapter(llama_runtime.options, llama_runtime)
    async with Agent(adapter, output=Person) as agent:
        result = await agent.run(prompt)
    assert result.outcome is Outcome.COMPLETED, (result.reply, result.output_errors)
    assert isinstance(result.output, Person)
    # constrained on the first try: no answer needed its errors sent back
    assert result.turns == 1, result.output_errors
