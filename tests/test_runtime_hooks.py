"""Runtime hooks: a plugin can gate tool calls, drop stale notifications, and take part in a
run: its prompt, its calls' results, its stop, its session's start and end."""

from __future__ import annotations

import asyncio
import types

from stacks import call

from agentframe_core import Entry, EntryKind, HookVerdict, RunContext, hookimpl, tool
from agentframe_core.assembly.plugins import PluginHost
from agentframe_core.contract.hookspecs import MAX_STOP_CONTINUES
from agentframe_core.engine.session import Session


@tool
async def rm(path: str) -> str:
    """Delete a file."""
    raise AssertionError("the gate must stop this call")


def plugin(**hooks) -> types.ModuleType:
    module = types.ModuleType("test_plugin")
    for name, function in hooks.items():
        setattr(module, name, hookimpl(function))
    return module


async def test_gate_refuses_a_call(make_stack):
    def agentframe_gate_tool_call(ctx, name, arguments):
        return "deleting is not allowed here" if name == "rm" else None

    host = PluginHost()
    host.add("gate", plugin(agentframe_gate_tool_call=agentframe_gate_tool_call))
    stack = make_stack([call("rm", path="/"), "ok"], [rm])
    stack.hooks = host.pm.hook
    result = await Session(stack).run("clean up")
    assert result.tool_calls[0].result.content == "tool call refused: deleting is not allowed here"


async def test_prepare_drops_resolved_notifications(make_stack):
    def agentframe_prepare_context(ctx, entries):
        return [e.id for e in entries if e.tag == "build-failed"]

    host = PluginHost()
    host.add("prep", plugin(agentframe_prepare_context=agentframe_prepare_context))
    stack = make_stack(["noted"])
    stack.hooks = host.pm.hook
    session = Session(stack)
    stale = Entry(kind=EntryKind.NOTIFICATION, content="build failed", tag="build-failed")
    fresh = Entry(kind=EntryKind.NOTIFICATION, content="tests passed", tag="tests")
    await stack.store.enqueue(session.id, stale)
    await stack.store.enqueue(session.id, fresh)
    await session.run()
    sent = [m.content for m in stack.adapter.requests[0].messages]
    assert any("tests passed" in c for c in sent)
    assert not any("build failed" in c for c in sent)


def test_doctor_checks_of_plugins_are_isolated(tmp_path):
    from agentframe_core.assembly.config import load_config
    from agentframe_core.assembly.diagnose import _plugin_checks
    from agentframe_core.cli.app import App
    from agentframe_core.contract.diagnosis import Diagnosis

    def good(config):
        return [Diagnosis("thing", True, f"adapter is {config.adapter.name}")]

    def bad(config):
        raise RuntimeError("probe crashed")

    app = App()
    app.host.add("good", plugin(agentframe_doctor=good))
    app.host.add("bad", plugin(agentframe_doctor=bad))
    (tmp_path / "c.yaml").write_text("adapter: scripted\nstore: memory\n")
    checks = _plugin_checks(app.host, load_config(app.host, tmp_path / "c.yaml"))
    assert Diagnosis("thing", True, "adapter is scripted") in checks
    [failed] = [c for c in checks if not c.ok]
    assert failed.name == "plugin bad" and "RuntimeError: probe crashed" in failed.detail


# -- the hooks of a whole run: prompt, gate, result, stop, session ----------------------------


@tool
async def echo(text: str) -> str:
    """Say it back."""
    return f"echo: {text}"


def hooked(stack, **hooks):
    host = PluginHost()
    host.add("hooks", plugin(**hooks))
    stack.hooks = host.pm.hook
    return stack


def sent(stack, request: int = -1) -> str:
    return "\n".join(m.content for m in stack.adapter.requests[request].messages)


async def test_a_refused_prompt_is_not_stored_and_the_run_ends_blocked(make_stack):
    def agentframe_prompt_submitted(ctx, prompt):
        return "no secrets in prompts" if "password" in prompt else None

    stack = hooked(make_stack(["fine"]), agentframe_prompt_submitted=agentframe_prompt_submitted)
    session = Session(stack)
    result = await session.run("my password is hunter2")
    assert (result.outcome, result.reply, result.turns) == ("blocked", "no secrets in prompts", 0)
    assert await stack.store.context(session.id) == []
    assert (await session.run("hello")).reply == "fine"


async def test_prompt_and_session_start_context_reach_the_model_in_order(make_stack):
    starts = []

    async def agentframe_session_started(ctx, resumed):
        starts.append(resumed)
        await asyncio.sleep(0)  # an awaitable answer is awaited
        return "the branch is main"

    def agentframe_prompt_submitted(ctx, prompt):
        return HookVerdict(context=f"the prompt had {len(prompt)} characters")

    stack = hooked(
        make_stack(["one", "two"]),
        agentframe_session_started=agentframe_session_started,
        agentframe_prompt_submitted=agentframe_prompt_submitted,
    )
    session = Session(stack)
    await session.run("greetings")
    await session.run("again")
    assert starts == [False]  # once per Session object
    first = sent(stack, 0)
    assert first.index("the branch is main") < first.index("greetings") < first.index("9 char")
    assert "5 characters" in sent(stack, 1)


async def test_a_gate_rewrites_arguments_and_the_result_records_them(make_stack):
    async def agentframe_gate_tool_call(ctx, name, arguments):
        return HookVerdict(arguments={"text": arguments["text"].upper()})

    stack = hooked(
        make_stack([call("echo", text="quiet"), "done"], [echo]),
        agentframe_gate_tool_call=agentframe_gate_tool_call,
    )
    result = await Session(stack).run("say it")
    record = result.tool_calls[0]
    assert record.result.content == "echo: QUIET"
    assert record.result.meta["arguments"] == {"text": "QUIET"}


async def test_after_a_call_feedback_reaches_the_model_and_a_stop_ends_the_run(make_stack):
    def agentframe_tool_result(ctx, name, arguments, result):
        if arguments["text"] == "stop":
            return HookVerdict(stop="enough")
        return "lint: 2 warnings"

    stack = hooked(
        make_stack([call("echo", text="a"), call("echo", text="stop"), "never"], [echo]),
        agentframe_tool_result=agentframe_tool_result,
    )
    result = await Session(stack).run("go")
    assert "lint: 2 warnings" in sent(stack, 1)
    assert result.outcome == "blocked"
    assert "enough" in result.reply
    assert result.turns == 2


async def test_a_stop_hook_makes_the_run_go_on_and_is_bounded(make_stack):
    seen = []

    def agentframe_run_stopping(ctx, reply, continued):
        seen.append(continued)
        return "the tests still fail"

    stack = hooked(make_stack(["done?"] * 20), agentframe_run_stopping=agentframe_run_stopping)
    result = await Session(stack).run("fix it")
    assert result.outcome == "completed"
    assert seen == list(range(MAX_STOP_CONTINUES))
    assert result.turns == MAX_STOP_CONTINUES + 1
    assert "the tests still fail" in sent(stack)


async def test_session_end_compaction_and_the_parent_reach_their_hooks(make_stack):
    heard = []

    def agentframe_session_ended(ctx, reason):
        heard.append(("ended", reason, ctx.parent))

    def agentframe_compacting(ctx, trigger):
        heard.append(("compacting", trigger, ctx.parent))

    stack = hooked(
        make_stack(["ok"]),
        agentframe_session_ended=agentframe_session_ended,
        agentframe_compacting=agentframe_compacting,
    )
    session = Session(stack, parent="p1")
    await session.run("hi")
    ctx = RunContext(session.id, stack, parent="p1")
    await ctx.compacting("auto")
    await session.end("prompt_input_exit")
    assert heard == [("compacting", "auto", "p1"), ("ended", "prompt_input_exit", "p1")]


async def test_a_gate_stop_refuses_the_call_and_ends_the_run(make_stack):
    def agentframe_gate_tool_call(ctx, name, arguments):
        return HookVerdict(stop="the build is broken; stopping")

    stack = hooked(
        make_stack([call("echo", text="a"), "never"], [echo]),
        agentframe_gate_tool_call=agentframe_gate_tool_call,
    )
    result = await Session(stack).run("go")
    assert (result.outcome, result.turns) == ("blocked", 1)
    assert result.reply == "tool call refused: the build is broken; stopping"
