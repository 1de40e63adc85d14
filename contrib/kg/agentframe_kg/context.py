"""What every step sees: the workspace, the options, the progress reporter, and the model
(built on first use, so that a run whose steps are all done never starts a model)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from agentframe_core import AgentframeError, LLMAdapter

from .asking import Asker
from .progress import Progress
from .workspace import Workspace

__all__ = ["Options", "PreconditionError", "RunContext", "StepError", "asker_for"]


class StepError(AgentframeError):
    """A step could not finish; the message says why and what to do."""


class PreconditionError(StepError):
    """A step's input is missing: running it again would not help."""


@dataclass(frozen=True)
class Options:
    docs: Path | None = None
    chunk_size: int = 1200
    overlap: int = 150
    sample_chunks: int = 6
    concurrency: int = 4
    max_doc_bytes: int = 2_000_000
    max_files: int = 500
    max_items: int = 30
    max_pairs: int = 30
    max_orphans: int = 20
    max_tokens: int = 1024
    timeout: float = 300.0
    feedback_rounds: int = 2
    review: bool = False


@dataclass
class RunContext:
    ws: Workspace
    options: Options
    progress: Progress
    make_asker: Callable[[], Awaitable[Asker]]
    _asker: Asker | None = field(default=None, repr=False)

    async def asker(self) -> Asker:
        if self._asker is None:
            self._asker = await self.make_asker()
        return self._asker

    @classmethod
    def for_adapter(
        cls, out: Path, options: Options, progress: Progress, adapter: LLMAdapter
    ) -> RunContext:
        """A context whose model is `adapter` (the CLI builds it from the stack instead)."""
        ws = Workspace(out)

        async def make() -> Asker:
            return asker_for(adapter, ws, options)

        return cls(ws, options, progress, make)

    def cut_note(self, step: str) -> str | None:
        """What the step's model calls did about replies cut at the token limit (taken)."""
        return self._asker.cut_note(step) if self._asker is not None else None

    def need(self, *names: str) -> None:
        missing = [n for n in names if not self.ws.path(n).exists()]
        if missing:
            raise PreconditionError(
                f"missing {', '.join(missing)} in {self.ws.root}: run the steps before"
            )


def asker_for(adapter: LLMAdapter, ws: Workspace, options: Options) -> Asker:
    ws.root.mkdir(parents=True, exist_ok=True)
    return Asker(
        adapter,
        ws.path("calls.jsonl"),
        options.timeout,
        options.max_tokens,
        options.feedback_rounds,
    )
