"""The wire contract: ids, envelope fields, answers, paths. Exact, since it is shared
with drainers written elsewhere."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from agentframe_agentfs import AgentFSAdapter, AgentFSOptions, InvalidTaskIdError, TaskTimeoutError
from agentframe_agentfs.contract import (
    Folder,
    build_task,
    parse_answer,
    parse_task,
    render_conversation,
    step_of,
    task_id,
)
from agentframe_agentfs.errors import MalformedAnswerError, MalformedTaskError
from hypothesis import given
from hypothesis import strategies as st

from agentframe_core import CompletionRequest, Message, ToolCall, ToolSpec

SYSTEM = "You extract entities.\nAnswer in JSON."
USER = 'Document: "Ada Lovelace wrote the first program."'
LABEL = "pass2:doc.md:chunk5"


def reference_id(system: str, user: str, label: str) -> str:
    """The formula of the contract, written out independently of the plugin."""
    h = hashlib.sha256()
    h.update(system.encode("utf-8"))
    h.update(b"\n--user--\n")
    h.update(user.encode("utf-8"))
    h.update(b"\n--ctx--\n")
    h.update(label.encode("utf-8"))
    return h.hexdigest()


@given(st.text(), st.text(), st.text())
def test_task_id_is_the_contract_formula(system: str, user: str, label: str) -> None:
    assert task_id(system, user, label) == reference_id(system, user, label)


@pytest.mark.parametrize(
    ("label", "step"),
    [
        ("pass2:doc.md:chunk5", "pass2"),
        ("pass1 batch 0/1", "pass1"),
        ("schema_harmonize", "schema_harmonize"),
        ("orphan stage2: x", "orphan"),
        ("", ""),
        ("  : lead", "lead"),
    ],
)
def test_step_is_the_first_token_of_the_label(label: str, step: str) -> None:
    assert step_of(label) == step


async def test_envelope_on_disk_is_exactly_the_contract(tmp_path: Path) -> None:
    adapter = AgentFSAdapter(
        AgentFSOptions(dir=tmp_path, timeout_seconds=0.05, max_tokens=10000, heartbeat="off")
    )
    request = CompletionRequest(
        [Message("system", SYSTEM), Message("user", USER)], metadata={"context_label": LABEL}
    )
    before = datetime.now(UTC)
    with pytest.raises(TaskTimeoutError):
        await adapter.complete(request)
    expected_id = reference_id(SYSTEM, USER, LABEL)
    path = tmp_path / "agent_inbox" / f"{expected_id}.task.json"
    envelope = json.loads(path.read_text())
    base = {
        "task_id": expected_id,
        "step": "pass2",
        "context_label": LABEL,
        "system": SYSTEM,
        "user": USER,
        "max_tokens": 10000,
        "timeout_seconds": 0.05,
    }
    assert {k: envelope[k] for k in base} == base
    created = datetime.fromisoformat(envelope["created_at"])
    assert envelope["created_at"].endswith("Z") and created.utcoffset() == timedelta(0)
    assert before - timedelta(seconds=1) <= created <= datetime.now(UTC)
    assert envelope["envelope_version"] == 2
    assert envelope["messages"] == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": USER},
    ]
    assert "tools" not in envelope and "response_schema" not in envelope
    assert sorted(p.name for p in (tmp_path / "agent_inbox").iterdir()) == [path.name]


def test_a_whole_second_timeout_is_written_as_an_integer() -> None:
    envelope = build_task(
        [Message("user", "hi")], context_label="", max_tokens=None, timeout_seconds=1800.0
    )
    assert envelope["timeout_seconds"] == 1800 and isinstance(envelope["timeout_seconds"], int)
    assert envelope["max_tokens"] is None and envelope["step"] == ""


def test_conversation_is_rendered_into_user_and_id_covers_it() -> None:
    call = ToolCall("call_1", "add", {"a": 2, "b": 3})
    messages = [
        Message("system", "Be brief."),
        Message("user", "What is 2+3?"),
        Message("assistant", "Let me add.", (call,)),
        Message("tool", "5", tool_call_id="call_1", name="add"),
    ]
    tool = ToolSpec("add", "Add two numbers.", {"type": "object", "properties": {}})
    envelope = build_task(
        messages, context_label="agent:s1:1", max_tokens=64, timeout_seconds=5, tools=[tool]
    )
    assert envelope["system"] == "Be brief."
    # tool history as the kernel's text tools render it (`textualize`), one block per speaker
    assert envelope["user"] == (
        "[user]\nWhat is 2+3?\n\n"
        '[assistant]\nLet me add.\n{"tool": "add", "args": {"a": 2, "b": 3}}\n\n'
        "[user]\n[result of add]\n5\nIf this answers the question, reply with the answer.\n\n"
        '[tools you may call]\n- add: Add two numbers.\n  parameters: {"properties": {}, '
        '"type": "object"}'
    )
    assert envelope["task_id"] == reference_id("Be brief.", envelope["user"], "agent:s1:1")
    assert envelope["tools"] == [
        {"name": "add", "description": "Add two numbers.", "parameters": tool.parameters}
    ]
    assert envelope["messages"][2]["tool_calls"] == [
        {"id": "call_1", "name": "add", "arguments": {"a": 2, "b": 3}}
    ]
    # ... and a drainer gets the same messages back
    path = Path(f"/x/agent_inbox/{envelope['task_id']}.task.json")
    task = parse_task(json.dumps(envelope), path)
    assert task.messages == messages and task.tools == [tool] and task.step == "agent"


def test_a_base_envelope_gives_system_and_user() -> None:
    tid = reference_id("sys", "hello", "x")
    raw = json.dumps({"task_id": tid, "system": "sys", "user": "hello"})
    task = parse_task(raw, Path(f"/q/agent_inbox/{tid}.task.json"))
    assert task.conversation() == [Message("system", "sys"), Message("user", "hello")]
    assert task.timeout_seconds == 1800 and task.tools == []


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("{", "not JSON"),
        ("[]", "expected a JSON object"),
        ('{"task_id": "00", "system": "", "user": ""}', "does not match the name"),
    ],
)
def test_a_malformed_envelope_names_its_file(raw: str, reason: str) -> None:
    path = Path(f"/q/agent_inbox/{'a' * 64}.task.json")
    with pytest.raises(MalformedTaskError, match=reason) as err:
        parse_task(raw, path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("bad", ["", "../../etc/passwd", "A" * 64, "a" * 63, "a" * 65, "g" * 64])
def test_invalid_task_ids_never_become_paths(bad: str) -> None:
    with pytest.raises(InvalidTaskIdError):
        Folder(Path("/srv/agent")).paths(bad)


# -- answers ------------------------------------------------------------------------------------

TID = "b" * 64
PATH = Path(f"/q/agent_outbox/{TID}.answer.json")


def answer_text(**fields: object) -> str:
    return json.dumps({"task_id": TID, **fields})


@pytest.mark.parametrize(
    "text",
    [
        "plain prose",
        '```json\n{"entities": ["Ada"]}\n```',  # unfenced by the adapter, for JSON requests only
        "Here it is:\n```json\n{}\n```",
        "```python\nprint(1)\n```",
        "  spaced\n",
    ],
)
def test_the_answer_text_is_read_as_written(text: str) -> None:
    assert parse_answer(answer_text(answer=text), TID, PATH).text == text


def test_answer_extras_are_read() -> None:
    raw = answer_text(
        answer="",
        tool_calls=[{"id": "c1", "name": "add", "arguments": '{"a": 1}'}],
        usage={"prompt_tokens": 7, "completion_tokens": 3},
        model="llama",
    )
    answer = parse_answer(raw, TID, PATH)
    assert answer.tool_calls == (ToolCall("c1", "add", {"a": 1}),)
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (7, 3)
    assert answer.model == "llama" and answer.error is None


def test_an_answer_given_as_an_object_is_taken_as_its_json() -> None:
    answer = parse_answer(answer_text(answer={"a": 1}), TID, PATH)
    assert json.loads(answer.text) == {"a": 1}


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ('{"task_id": "' + TID + '", "answer": "bro', "not JSON"),
        (json.dumps({"task_id": "c" * 64, "answer": "x"}), "is not " + TID),
        (json.dumps({"task_id": TID}), "no `answer`"),
        (json.dumps({"task_id": TID, "answer": 3}), "must be a string"),
        (json.dumps({"task_id": TID, "answer": "", "tool_calls": [{}]}), "tool_calls"),
    ],
)
def test_a_malformed_answer_names_its_file(raw: str, reason: str) -> None:
    with pytest.raises(MalformedAnswerError, match=reason) as err:
        parse_answer(raw, TID, PATH)
    assert str(PATH) in str(err.value)


def test_a_lone_user_message_is_its_own_rendering() -> None:
    assert render_conversation([Message("user", "just this")]) == "just this"
