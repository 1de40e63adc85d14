"""Typed output on the embedded default: 20 extraction prompts through `Agent(output=...)` on
SmolLM2-135M, whose llama.cpp grammar is the output's JSON schema. Counts the schema-valid
values, the answers whose errors were sent back (retries), and the seconds per prompt.

    python bench/typed_output.py
"""

from __future__ import annotations

import asyncio
import time

from pydantic import BaseModel

from agentframe_core import Agent, Outcome


class Person(BaseModel):
    name: str
    age: int


PEOPLE = [
    ("Ada", 36), ("Bob", 52), ("Chen", 7), ("Dana", 41), ("Emil", 19),
    ("Fatima", 63), ("Goro", 28), ("Hana", 12), ("Ivan", 75), ("Jules", 33),
    ("Kofi", 45), ("Lena", 22), ("Mateo", 58), ("Nora", 9), ("Omar", 67),
    ("Priya", 30), ("Quinn", 16), ("Rosa", 84), ("Sven", 39), ("Tariq", 51),
]  # fmt: skip
FORMS = [
    "Extract the person: {name} is {age} years old.",
    "{name}, aged {age}, lives next door. Who is it?",
    "My friend {name} just turned {age}. Extract the person.",
    "Name and age, please: {name} ({age}).",
]


async def main() -> None:
    prompts = [FORMS[i % len(FORMS)].format(name=n, age=a) for i, (n, a) in enumerate(PEOPLE)]
    valid = retries = exact = 0
    started = time.perf_counter()
    async with Agent("llamacpp", output=Person) as agent:
        for prompt, (name, age) in zip(prompts, PEOPLE, strict=True):
            result = await agent.run(prompt)
            retries += result.turns - 1
            if result.outcome is Outcome.COMPLETED and isinstance(result.output, Person):
                valid += 1
                exact += result.output == Person(name=name, age=age)
            print(f"  {result.outcome:15} {result.output!r:40} {prompt}")
    seconds = (time.perf_counter() - started) / len(prompts)
    print(f"schema-valid values: {valid}/{len(prompts)} (goal: all)")
    print(f"answers sent back with their errors (retries): {retries}")
    print(f"exactly the name and age of the prompt: {exact}/{len(prompts)}")
    print(f"seconds per prompt (server start included): {seconds:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
