"""Every example of docs/python.md runs, each on a scripted model put in with
`Agent.override`, as a test of the reader's own would (`testing.py` is such a test)."""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentframe_core.testing import ScriptedAdapter

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples" / "python"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"python_example_{name}", EXAMPLES / name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_main(module: ModuleType, replies: list[Any]) -> ScriptedAdapter:
    model = ScriptedAdapter(replies)
    with module.agent.override(model=model):
        if inspect.iscoroutinefunction(module.main):
            asyncio.run(module.main())
        else:
            module.main()
    return model


@pytest.mark.parametrize(
    ("name", "replies", "printed"),
    [
        ("hello.py", ["From a 1972 C tutorial."], "From a 1972 C tutorial.\n"),
        (
            "tool.py",
            [
                {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
                {"content": "5", "usage": {"prompt_tokens": 9, "completion_tokens": 1}},
            ],
            "5\nUsage(prompt_tokens=9, completion_tokens=1, cached_tokens=0)\n",
        ),
        (
            "typed_output.py",
            ['{"city": "London", "country": "United Kingdom"}'],
            "city='London' country='United Kingdom'\n",
        ),
        ("conversation.py", ["A physicist.", "E = mc^2."], "A physicist.\nE = mc^2.\n"),
        ("streaming.py", ["From a C tutorial."], "From a C tutorial.\n(1 turn, completed)\n"),
    ],
)
def test_the_example_runs(
    name: str, replies: list[Any], printed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    model = run_main(load(name), replies)
    assert capsys.readouterr().out == printed
    assert len(model.requests) == len(replies)


def test_the_conversation_example_sends_the_first_exchange_with_the_second() -> None:
    model = run_main(load("conversation.py"), ["A physicist.", "E = mc^2."])
    second = [m.content for m in model.requests[1].messages if m.role != "system"]
    assert second == [
        "Who was Albert Einstein?",
        "A physicist.",
        "What was his most famous equation?",
    ]


def test_the_testing_example_is_a_passing_test() -> None:
    load("testing.py").test_forecast()
