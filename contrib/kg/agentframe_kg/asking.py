"""Every model call of the pipeline: through the stack's adapter, labelled with its step (the
`context_label` agent mode files prompts under), retried once on a timeout, its JSON reply
checked, and errors fed back a bounded number of times. Each call is logged to `calls.jsonl`."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentframe_core import AgentframeError, CompletionRequest, LLMAdapter, Message, strip_fence

__all__ = ["Asker", "ModelReplyError"]

Check = Callable[[dict[str, Any]], list[str]]
_MAX_REPLY = 200_000


class ModelReplyError(AgentframeError):
    """The model's replies stayed unusable after every feedback round."""


@dataclass
class Asker:
    adapter: LLMAdapter
    log: Path
    timeout: float = 300.0
    max_tokens: int = 1024
    feedback_rounds: int = 2

    async def ask_json(
        self,
        step: str,
        system: str,
        prompt: str,
        schema: dict[str, Any],
        check: Check | None = None,
    ) -> dict[str, Any]:
        """The model's reply as a JSON object that passes `check`; a wrong reply is answered
        with its errors, at most `feedback_rounds` times."""
        messages = [Message("system", system), Message("user", prompt)]
        for _ in range(self.feedback_rounds + 1):
            text = await self._call(step, messages, schema)
            value, errors = _parse(text)
            if value is not None and check is not None:
                errors = check(value)
            if value is not None and not errors:
                return value
            messages += [
                Message("assistant", text[:4000]),
                Message("user", "Fix these errors and answer again:\n- " + "\n- ".join(errors)),
            ]
        raise ModelReplyError(f"{step}: the reply stayed invalid: {'; '.join(errors)[:500]}")

    async def _call(self, step: str, messages: list[Message], schema: dict[str, Any]) -> str:
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
                if attempt == 2:
                    raise
                continue
            finally:
                self._record(step, attempt, time.monotonic() - started)
            return completion.content[:_MAX_REPLY]
        raise AssertionError("unreachable")

    def _record(self, step: str, attempt: int, seconds: float) -> None:
        line = json.dumps({"step": step, "attempt": attempt, "seconds": round(seconds, 3)})
        with open(self.log, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")


def _parse(text: str) -> tuple[dict[str, Any] | None, list[str]]:
    try:
        value = json.loads(strip_fence(text))
    except json.JSONDecodeError as err:
        return None, [f"the reply is not JSON ({err.msg} at line {err.lineno})"]
    if not isinstance(value, dict):
        return None, ["the reply must be a JSON object"]
    return value, []
