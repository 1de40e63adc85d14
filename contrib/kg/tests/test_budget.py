"""Replies fit their limit (issue 28): every step's reply schema, as sent to the model, is
bounded from the call's max_tokens, and a reply cut at the limit is asked again once with
tighter bounds, which the step's record says."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from agentframe_kg.asking import Asker, ModelReplyError
from agentframe_kg.budget import CHARS_PER_TOKEN, fit_schema, reply_tokens
from agentframe_kg.context import Options, RunContext
from agentframe_kg.pipeline import run_pipeline, step_names
from agentframe_kg.progress import Progress
from agentframe_kg.steps_extract import merge_schema
from agentframe_kg.tbox import CLASSES_REPLY_SCHEMA, abox_reply_schema, relations_reply_schema
from jsonschema import Draft202012Validator

from agentframe_core import Capabilities, Completion, CompletionRequest
from agentframe_core.testing import run_cli

CLASSES = ["Person", "Organization", "Place"]
TBOX = {
    "classes": [{"name": c, "parent": ""} for c in CLASSES],
    "properties": [{"name": "worksFor", "domain": "Person", "range": "Organization"}],
}
SCHEMAS = {
    "classes": CLASSES_REPLY_SCHEMA,
    "relations": relations_reply_schema(CLASSES),
    "pass2": abox_reply_schema(TBOX, 30),
    "normalize_names": merge_schema(30),
}


def _longest(schema: dict[str, Any]) -> Any:
    """The longest value `schema` allows: every list full, every string at its bound."""
    if "enum" in schema:
        return max(schema["enum"], key=lambda v: len(json.dumps(v)))
    if schema.get("type") == "object":
        return {k: _longest(v) for k, v in schema["properties"].items()}
    if schema.get("type") == "array":
        return [_longest(schema["items"])] * schema["maxItems"]
    if schema.get("type") == "string":
        if "pattern" in schema:
            tail = int(schema["pattern"].rsplit(",", 1)[1].split("}")[0])
            return ("A" if schema["pattern"].startswith("^[A-Z]") else "a") + "b" * tail
        return "x" * schema["maxLength"]
    if schema.get("type") == "integer":
        return schema.get("maximum", 0)
    return True


@pytest.mark.parametrize("name", sorted(SCHEMAS))
@pytest.mark.parametrize("max_tokens", [128, 256, 1024])
def test_every_reply_schema_is_bounded_to_fit_its_token_budget(name: str, max_tokens: int) -> None:
    schema = SCHEMAS[name]
    fitted = fit_schema(schema, max_tokens)
    assert reply_tokens(fitted) <= 0.8 * max_tokens
    longest = _longest(fitted)
    Draft202012Validator(fitted).validate(longest)  # the bounds are the schema's own
    # at the estimate's rate, the longest reply the schema allows (indented, as a model may
    # write it) fits the limit
    assert len(json.dumps(longest, indent=1)) <= max_tokens * CHARS_PER_TOKEN
    # and what the step itself accepts is unchanged: its schema, not the fitted one
    assert fitted is not schema and schema == SCHEMAS[name]


def test_a_list_past_the_fitted_bound_is_refused_by_it() -> None:
    fitted = fit_schema(SCHEMAS["pass2"], 256)
    bound = fitted["properties"]["entities"]["maxItems"]
    assert 1 <= bound < 30
    entity = {"name": "Marie Curie", "type": "Person"}
    over = {"entities": [entity] * (bound + 1), "relations": []}
    assert list(Draft202012Validator(fitted).iter_errors(over))
    assert not list(Draft202012Validator(SCHEMAS["pass2"]).iter_errors(over))


def test_a_schema_that_fits_keeps_its_bounds() -> None:
    schema = SCHEMAS["classes"]
    assert fit_schema(schema, 4096) == schema


class Replies:
    """A model whose replies are (content, finish_reason) pairs, in order."""

    def __init__(self, replies: list[tuple[str, str]]) -> None:
        self.replies = list(replies)
        self.requests: list[CompletionRequest] = []

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(json_schema=True)

    async def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        content, finish = self.replies.pop(0)
        return Completion(content, finish_reason=finish)

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
        yield await self.complete(request)


CUT = '{"entities": [{"name": "Marie Curie", "type": "Person"}, {"name": "Univer'
GOOD = '{"entities": [{"name": "Marie Curie", "type": "Person"}], "relations": []}'


@pytest.mark.parametrize(
    "first",
    [(CUT, "stop"), (GOOD[:-1] + ', "relations": [', "length"), (GOOD, "length")],
    ids=["unterminated", "open-list", "finish-length"],
)
async def test_a_cut_reply_is_asked_again_once_with_tighter_bounds(
    tmp_path: Path, first: tuple[str, str]
) -> None:
    model = Replies([first, (GOOD, "stop")])
    asker = Asker(model, tmp_path / "calls.jsonl", max_tokens=256)
    assert await asker.ask_json("pass2", "s", "p", SCHEMAS["pass2"]) == json.loads(GOOD)
    assert len(model.requests) == 2
    loose, tight = (r.response_schema for r in model.requests)
    assert loose is not None and tight is not None
    assert reply_tokens(tight) <= 0.4 * 256 < reply_tokens(loose) <= 0.8 * 256
    assert [m.content for m in model.requests[1].messages] == ["s", "p"]  # asked afresh
    assert asker.cut_note("pass2") == (
        "a reply was cut at 256 tokens: asked again with tighter bounds"
    )
    finishes = [json.loads(line)["finish"] for line in (tmp_path / "calls.jsonl").open()]
    assert finishes == [first[1], "stop"]


async def test_a_reply_cut_twice_is_a_named_failure(tmp_path: Path) -> None:
    model = Replies([(CUT, "length"), (CUT, "length"), (GOOD, "stop")])
    asker = Asker(model, tmp_path / "calls.jsonl", max_tokens=256)
    with pytest.raises(ModelReplyError, match=r"cut at its token limit \(256\) twice"):
        await asker.ask_json("pass2", "s", "p", SCHEMAS["pass2"])
    assert len(model.requests) == 2


async def test_the_cut_and_its_retry_are_in_the_steps_record(
    docs: Path, tmp_path: Path, scripted: Any
) -> None:
    adapter = scripted()
    replies = adapter.scripts["pass2"].replies
    replies.insert(0, replies[0][:70])  # the first chunk's reply, cut inside a string
    out = tmp_path / "out"
    ctx = RunContext.for_adapter(
        out, Options(docs=docs, concurrency=1), Progress(as_json=True), adapter
    )
    assert await run_pipeline(ctx, step_names(), set()) == "done"
    asked = adapter.scripts["pass2"].requests
    assert len(asked) == 4  # three chunks, the first twice
    assert asked[1].response_schema != asked[0].response_schema == asked[2].response_schema
    state = json.loads((out / "state.json").read_text())
    assert state["pass2"]["cut"] == (
        "a reply was cut at 1024 tokens: asked again with tighter bounds"
    )
    assert "cut" not in state["pass1"]
    status = run_cli(tmp_path, "kg", "status", str(out), "--json")
    assert status.returncode == 0, status.stderr
    steps = json.loads(status.stdout)["steps"]
    assert (
        steps["pass2"] == "done (a reply was cut at 1024 tokens: asked again with tighter bounds)"
    )
    assert steps["pass1"] == "done"
