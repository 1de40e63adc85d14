"""Runtime hooks: a plugin can gate tool calls and drop stale notifications."""

from __future__ import annotations

import types

from stacks import call

from agentframe_core import Entry, EntryKind, hookimpl, tool
from agentframe_core.assembly.plugins import PluginHost
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
    from agentframe_core.cli.app import App
    from agentframe_core.cli.doctor import _plugin_checks
    from agentframe_core.contract.diagnosis import Diagnosis

    def good(config):
        return [Diagnosis("thing", True, f"adapter is {config.adapter.name}")]

    def bad(config):
        raise RuntimeError("probe crashed")

    app = App()
    app.host.add("good", plugin(agentframe_doctor=good))
    app.host.add("bad", plugin(agentframe_doctor=bad))
    (tmp_path / "c.yaml").write_text("adapter: scripted\nstore: memory\n")
    checks = _plugin_checks(app, load_config(app.host, tmp_path / "c.yaml"))
    assert Diagnosis("thing", True, "adapter is scripted") in checks
    [failed] = [c for c in checks if not c.ok]
    assert failed.name == "plugin bad" and "RuntimeError: probe crashed" in failed.detail
