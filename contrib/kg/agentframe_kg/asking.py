"""Every model call of the pipeline: through the stack's adapter, labelled with its step (the
`context_label` agent mode files prompts under), retried once on a timeout, its JSON reply
validated against the step's reply schema (bounds included: a model not constrained by the
schema, or a hostile one, may answer anything) and then checked, errors fed back a bounded
number of times. Each call is logged to `calls.jsonl`."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from agentframe_core import (
    AgentframeError,
    Completion,
    CompletionRequest,
    LLMAdapter,
    Message,
    strip_fence,
)

from .budget import fit_schema

__all__ = ["Asker", "ModelReplyError"]

Check = Callable[[dict[str, Any]], list[str]]
_MAX_REPLY = 200_000
_MAX_ERRORS = 10


class ModelReplyError(AgentframeError):
    """The model's replies stayed unusable after every feedback round."""


@dataclass
class Asker:
    adapter: LLMAdapter
    log: Path
    timeout: float = 300.0
    max_tokens: int = 1024
    feedback_rounds: int = 2
    #: Per step, the replies cut at the token limit and asked again (the step's record).
    cut: dict[str, int] = field(default_factory=dict)

    async def ask_json(
        self,
        step: str,
        system: str,
        prompt: str,
        schema: dict[str, Any],
        check: Check | None = None,
    ) -> dict[str, Any]:
        """The model's reply as a JSON object valid against `schema` that passes `check`; a
        wrong reply is answered with its errors, at most `feedback_rounds` times."""
        asked = [Message("system", system), Message("user", prompt)]
        messages = list(asked)
        validator = Draft202012Validator(schema)
        bounded, tightened = fit_schema(schema, self.max_tokens), False
        rounds = 0
        while True:
            completion = await self._call(step, messages, bounded)
            text = completion.content[:_MAX_REPLY]
            value, errors = _parse(text)
            if _was_cut(completion, text):
                if tightened:
                    raise ModelReplyError(
                        f"{step}: the reply was cut at its token limit ({self.max_tokens}) "
                        "twice, the second time with bounds for half the reply; "
                        "raise --max-tokens"
                    )
                bounded, tightened = fit_schema(schema, self.max_tokens, share=0.4), True
                self.cut[step] = self.cut.get(step, 0) + 1
                messages = list(asked)
                continue
            if value is not None:
                errors = [_describe(e) for e in islice(validator.iter_errors(value), _MAX_ERRORS)]
            if value is not None and not errors and check is not None:
                errors = check(value)
            if value is not None and not errors:
                return value
            if rounds == self.feedback_rounds:
                break
            rounds += 1
            messages += [
                Message("assistant", text[:4000]),
                Message("user", "Fix these errors and answer again:\n- " + "\n- ".join(errors)),
            ]
        raise ModelReplyError(f"{step}: the reply stayed invalid: {'; '.join(errors)[:500]}")

    def cut_note(self, step: str) -> str | None:
        """The step's record of its cut replies (taken: the next run starts afresh)."""
        count = self.cut.pop(step, 0)
        if not count:
            return None
        what = "a reply was" if count == 1 else f"{count} replies were"
        return f"{what} cut at {self.max_tokens} tokens: asked again with tighter bounds"

    async def _call(self, step: str, messages: list[Message], schema: dict[str, Any]) -> Completion:
        request = CompletionRequest(
            list(messages),
            response_schema=schema,
            max_tokens=self.max_tokens,
            temperature=0.0,
            metadata={"context_label": step},
        )
        for attempt in (1, 2):
            started = time.monotonic()
            try:
                completion = await asyncio.wait_for(self.adapter.complete(request), self.timeout)
            except TimeoutError:
                self._record(step, attempt, time.monotonic() - started, "timeout")
                if attempt == 2:
                    raise
                continue
            except BaseException:
                self._record(step, attempt, time.monotonic() - started, "error")
                raise
            self._record(step, attempt, time.monotonic() - started, completion.finish_reason)
            return completion
        raise AssertionError("unreachable")

    def _record(self, step: str, attempt: int, seconds: float, finish: str | None) -> None:
        line = json.dumps(
            {"step": step, "attempt": attempt, "seconds": round(seconds, 3), "finish": finish}
        )
        with open(self.log, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")


def _was_cut(completion: Completion, text: str) -> bool:
    """The reply stopped at the token limit: the adapter says so (`length`), or its JSON ends
    inside a value (an adapter that does not report why it stopped)."""
    if completion.finish_reason == "length":
        return True
    body = strip_fence(text).rstrip()
    try:
        json.loads(body)
    except json.JSONDecodeError as err:
        return err.msg.startswith("Unterminated string") or err.pos >= len(body)
    except RecursionError:
        return False
    return False


def _parse(text: str) -> tuple[dict[str, Any] | None, list[str]]:
    try:
        value = json.loads(strip_fence(text))
    except json.JSONDecodeError as err:
        return None, [f"the reply is not JSON ({err.msg} at line {err.lineno})"]
    except RecursionError:
        return None, ["the reply nests too deeply"]
    if not isinstance(value, dict):
        return None, ["the reply must be a JSON object"]
    return value, []


def _describe(error: ValidationError) -> str:
    """One schema error as a short sentence naming the field; the offending value is cut,
    never quoted whole."""
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    bound, value = error.validator_value, error.instance
    if error.validator in ("maxItems", "minItems") and isinstance(value, list):
        what = f"{len(value)} items, {'at most' if error.validator == 'maxItems' else 'at least'}"
        what += f" {bound}"
    elif error.validator in ("maxLength", "minLength") and isinstance(value, str):
        limit = "at most" if error.validator == "maxLength" else "at least"
        what = f"{len(value)} characters, {limit} {bound}"
    else:
        what = error.message if len(error.message) <= 200 else error.message[:200] + "..."
    return f"{where.lstrip('.') or 'the reply'}: {what}"
