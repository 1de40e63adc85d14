"""A tool's schema is untrusted (an MCP server sends it): validating a call's arguments never
fetches a `$ref`, never quotes a whole value, and a `$ref` cycle is a named error
(issue 23, items 1 and 12)."""

from __future__ import annotations

import http.server
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stacks import call

from agentframe_core import RunContext, Stack, Tool, ToolCall, ToolResult
from agentframe_core.engine.session import Session


class SchemaTools:
    """One tool, `probe`, with the schema a test gives it; records the calls it receives."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.received: list[dict[str, Any]] = []

    async def tools(self, ctx: RunContext) -> list[Tool]:
        return [Tool(name="probe", parameters=self.schema)]

    async def dispatch(self, call: ToolCall, ctx: RunContext) -> ToolResult:
        self.received.append(call.arguments)
        return ToolResult("probed")


async def probe(make_stack: Any, schema: dict[str, Any], **arguments: Any) -> tuple[str, list]:
    """Run one call of `probe` with `arguments`: (its result as the model read it, the
    arguments the tool received)."""
    stack: Stack = make_stack([call("probe", **arguments), "done"])
    tools = SchemaTools(schema)
    stack.tools = [tools]
    result = await Session(stack, system="test").run("go")
    assert result.reply == "done"
    return result.tool_calls[0].result.content, tools.received


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server serving a schema, and the paths it was asked for."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            body = b'{"const": "sk-REMOTE-SECRET-456"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", hits
    finally:
        httpd.shutdown()
        httpd.server_close()


async def test_a_remote_ref_is_not_fetched(make_stack, server, caplog) -> None:
    url, hits = server
    schema = {"type": "object", "properties": {"x": {"$ref": f"{url}/schema.json"}}}
    content, received = await probe(make_stack, schema, x="anything")
    assert hits == []  # the old validator fetched it
    assert "$ref" in content and "not inside the schema" in content
    assert "sk-REMOTE-SECRET-456" not in content + caplog.text
    assert received == []  # unchecked arguments never reach the tool


async def test_a_file_ref_does_not_put_a_files_content_in_the_result(
    make_stack, tmp_path: Path, caplog
) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"const": "sk-LOCAL-SECRET-123"}')
    schema = {"type": "object", "properties": {"x": {"$ref": secret.as_uri()}}}
    content, received = await probe(make_stack, schema, x="guess")
    assert "sk-LOCAL-SECRET-123" not in content + caplog.text
    assert "not inside the schema" in content and received == []


async def test_an_id_does_not_turn_a_relative_ref_into_a_fetch(make_stack, server) -> None:
    url, hits = server
    schema = {"$id": f"{url}/root.json", "properties": {"x": {"$ref": "other.json"}}}
    content, received = await probe(make_stack, schema, x=1)
    assert hits == [] and "not inside the schema" in content and received == []


async def test_refs_inside_the_schema_are_followed(make_stack) -> None:
    schema = {
        "type": "object",
        "$defs": {"count": {"type": "integer", "minimum": 0}},
        "properties": {"x": {"$ref": "#/$defs/count"}},
        "required": ["x"],
    }
    content, received = await probe(make_stack, schema, x=-1)
    assert "x: -1 is less than the minimum of 0" in content and received == []
    content, received = await probe(make_stack, schema, x=3)
    assert content == "probed" and received == [{"x": 3}]


async def test_a_ref_cycle_is_a_named_error_not_a_traceback(make_stack, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    content, received = await probe(make_stack, {"$ref": "#"}, x=1)
    assert "refers to itself without end" in content and received == []
    assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text
    assert len(caplog.text) < 2_000


async def test_an_invalid_schema_is_named(make_stack) -> None:
    content, received = await probe(make_stack, {"type": "no such type"}, x=1)
    assert "not valid JSON Schema" in content and received == []


async def test_a_huge_value_is_not_quoted_whole(make_stack) -> None:
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}}
    content, _ = await probe(make_stack, schema, x="A" * 2_000_000)
    assert "x: 'AAAA" in content and "is not of type 'integer'" not in content
    assert len(content) < 1_000  # jsonschema quotes all 2 MB


async def test_a_huge_enum_is_not_quoted_whole(make_stack) -> None:
    schema = {"type": "object", "properties": {"x": {"enum": [f"v{i}" for i in range(100_000)]}}}
    content, _ = await probe(make_stack, schema, x="none of them")
    assert "is not one of" in content and len(content) < 1_000


async def test_many_errors_are_listed_up_to_a_bound(make_stack) -> None:
    schema = {"type": "object", "additionalProperties": {"type": "integer"}}
    content, _ = await probe(make_stack, schema, **{f"k{i}": "no" for i in range(10_000)})
    assert content.count("is not of type 'integer'") == 5 and content.endswith("and more")


def test_a_schema_is_compiled_once_while_its_tool_keeps_it(monkeypatch) -> None:
    from agentframe_core.engine import validation

    compiled = []
    real = validation._compile
    monkeypatch.setattr(validation, "_compile", lambda s: compiled.append(s) or real(s))
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}}
    for x in (1, "two", 3):
        validation.argument_problems(schema, {"x": x})
    assert compiled == [schema]
    validation.argument_problems(dict(schema), {"x": 1})  # another object: compiled anew
    assert len(compiled) == 2


async def test_a_function_tools_arguments_are_checked_once_by_its_model(
    make_stack, monkeypatch
) -> None:
    from agentframe_core import tool
    from agentframe_core.engine import validation

    compiled: list[dict[str, Any]] = []
    real = validation._compile
    monkeypatch.setattr(validation, "_compile", lambda s: compiled.append(s) or real(s))

    @tool
    def count(n: int) -> str:
        """Counts."""
        return f"counted {n}"

    extra = {f"k{i}": "x" * 10_000 for i in range(1_000)}
    replies = [call("count", n="many"), call("count", n=2, **extra), call("count", n=3), "ok"]
    result = await Session(make_stack(replies, [count]), system="test").run("go")
    first, second, third = (record.result.content for record in result.tool_calls)
    assert first.startswith("invalid arguments: n: Input should be a valid integer")
    assert second.count("Extra inputs are not permitted") == 5 and second.endswith("and more")
    assert len(second) < 1_000 and third == "counted 3"
    assert compiled == []  # its signature's model checked them, not a second validator
