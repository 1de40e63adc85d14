"""remember/forget/recall through the loop's tool path: the retriever finds what the tool
wrote, plan mode refuses the writes, a deny list hides them."""

from __future__ import annotations

from pathlib import Path

from agentframe_memory.options import MemoryOptions
from agentframe_memory.retriever import MemoryRetriever
from agentframe_memory.tools import MemoryTools

from agentframe_core import AgentDefinition, MemoryStore, Session, Stack, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter

REMEMBER = {
    "name": "remember",
    "arguments": {
        "title": "Door code",
        "content": "The office door code is 4711.",
        "tags": ["office"],
    },
}


def stack(options: MemoryOptions, replies: list) -> Stack:
    return Stack(
        adapter=ScriptedAdapter(replies),
        store=MemoryStore(),
        context=VerbatimBuilder(),
        retrievers=[MemoryRetriever(options)],
        tools=[MemoryTools(options)],
    )


async def test_remembered_in_one_session_retrieved_in_the_next(tmp_path: Path) -> None:
    options = MemoryOptions(folder=tmp_path)
    first = stack(options, [{"tool_calls": [REMEMBER]}, "Saved."])
    result = await Session(first).run("Remember that the office door code is 4711.")
    assert result.tool_calls[0].result.content == "saved: general/door-code"
    assert (tmp_path / "user" / "general" / "door-code.md").is_file()
    await first.aclose()

    second = stack(options, ["It is 4711."])
    await Session(second).run("What is the office door code?")
    (request,) = second.adapter.requests  # type: ignore[attr-defined]
    assert request.messages[0].content.count("4711") == 0  # not in the system prompt
    assert "The office door code is 4711." in request.messages[-1].content
    await second.aclose()


async def test_recall_and_forget(tmp_path: Path) -> None:
    options = MemoryOptions(folder=tmp_path)
    s = stack(
        options,
        [
            {"tool_calls": [REMEMBER]},
            {"tool_calls": [{"name": "recall", "arguments": {"query": "door code"}}]},
            {"tool_calls": [{"name": "forget", "arguments": {"id": "general/door-code"}}]},
            {"tool_calls": [{"name": "forget", "arguments": {"id": "../../etc/passwd"}}]},
            "done",
        ],
    )
    result = await Session(s).run("go")
    _remember, recall, forget, bad = (r.result for r in result.tool_calls)
    assert '"id": "general/door-code"' in recall.content and "4711" in recall.content
    assert forget.content.startswith("forgotten: general/door-code") and not forget.is_error
    assert bad.is_error and "not a memory id" in bad.content
    assert not (tmp_path / "user" / "general" / "door-code.md").exists()
    await s.aclose()


async def test_plan_mode_refuses_remember_and_a_deny_list_hides_it(tmp_path: Path) -> None:
    options = MemoryOptions(folder=tmp_path)
    planner = AgentDefinition(name="planner", description="plans", permission_mode="plan")
    s = stack(options, [{"tool_calls": [REMEMBER]}, "ok"])
    result = await Session(s, agent=planner).run("remember it")
    assert result.tool_calls[0].result.is_error
    assert "plan mode" in result.tool_calls[0].result.content
    assert not (tmp_path / "user").exists() or not list((tmp_path / "user").rglob("*.md"))
    await s.aclose()

    denied = AgentDefinition(name="reader", description="reads", disallowed_tools=["remember"])
    s = stack(options, [{"tool_calls": [REMEMBER]}, "ok"])
    result = await Session(s, agent=denied).run("remember it")
    assert "not allowed" in result.tool_calls[0].result.content
    offered = {t.name for t in s.adapter.requests[0].tools}  # type: ignore[attr-defined]
    assert offered == {"forget", "recall"}
    await s.aclose()


async def test_the_tools_do_not_follow_a_category_linked_out_of_the_folder(
    tmp_path: Path,
) -> None:
    """issue 23 #3 through the tools: `forget` deleted, `remember` wrote outside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("---\ntitle: Secret\n---\n\nkeep me\n")
    (tmp_path / "mem" / "user").mkdir(parents=True)
    (tmp_path / "mem" / "user" / "general").symlink_to(outside, target_is_directory=True)
    options = MemoryOptions(folder=tmp_path / "mem")
    forget = {"name": "forget", "arguments": {"id": "general/secret"}}
    run = stack(options, [{"tool_calls": [forget]}, {"tool_calls": [REMEMBER]}, "done"])
    result = await Session(run).run("tidy up")
    forgot, remembered = (record.result for record in result.tool_calls)
    assert forgot.is_error and remembered.is_error, (forgot.content, remembered.content)
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]


async def test_forget_takes_one_of_the_saved_ids(tmp_path: Path) -> None:
    options = MemoryOptions(folder=tmp_path)
    saver = MemoryTools(options)
    saver.bank.remember("Door code", "It is 4711.", "office", ())
    await saver.aclose()
    s = stack(options, [{"tool_calls": [{"name": "forget", "arguments": {"id": "door"}}]}, "ok"])
    result = await Session(s).run("forget the door code")
    (request,) = s.adapter.requests[:1]  # type: ignore[attr-defined]
    forget = next(spec for spec in request.tools if spec.name == "forget")
    assert forget.parameters["properties"]["id"]["enum"] == ["office/door-code"]
    refused = result.tool_calls[0].result
    assert refused.is_error and "office/door-code" in refused.content
    assert (tmp_path / "user" / "office" / "door-code.md").is_file()
    await s.aclose()
