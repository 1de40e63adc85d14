"""The drainer: answers the tasks of a folder with another adapter, N at a time.

A loop scans the inbox for tasks without a `.done` sentinel, oldest first, claims each one it
has room for (see `claims`), and hands it to a worker. A worker builds a request from the
envelope (the full `messages` when present, else `system` + `user`), asks its adapter, writes
the answer then the sentinel (each atomically), and drops the claim. When its adapter fails, it
writes an answer whose `error` says why, so that the waiting adapter fails at once rather than
at its timeout. A task envelope it cannot read gets such an answer too, and so does a task on
which anything else goes wrong (an unreadable file, an adapter misbehaving): the failure is
logged with the task's path, the claim given up, and the worker goes on. A task whose answer
cannot be written at all (a full disk) is given back and left to other drainers for a while.

The loop wakes when a task arrives or a claim is given up (inotify), when a worker finishes
with tasks left waiting, and every `poll_interval` regardless. With inotify it looks only at
the tasks it was told about; it lists the whole inbox when it polls, when the kernel dropped
events, after `poll_interval` without news (network file systems), and about every second to
take over the tasks of dead drainers. Stopping (`stop` set, e.g. on SIGTERM) cancels the
workers, gives their tasks back, and removes the heartbeat.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from dataclasses import dataclass
from typing import Any

from agentframe_core import CompletionRequest, LLMAdapter

from . import claims
from .contract import (
    CLAIM_SUFFIX,
    DONE_SUFFIX,
    TASK_SUFFIX,
    TMP_SUFFIX,
    Answer,
    Folder,
    TaskPaths,
    is_drainer_id,
    is_task_id,
    parse_task,
    read_envelope,
    write_answer,
)
from .errors import MalformedTaskError
from .liveness import Heartbeat, read_beats
from .watch import watch

__all__ = ["Drainer", "DrainerSettings"]

log = logging.getLogger(__name__)

#: A `.tmp` file older than this was left by a writer that died: removed.
TMP_MAX_AGE = 60.0
#: Heartbeat files of drainers dead for longer than this are removed.
DEAD_BEAT_MAX_AGE = 3600.0
#: A task this drainer could neither answer nor answer with an error is left alone this long.
RETRY_FAILED_AFTER = 30.0


@dataclass(frozen=True, slots=True)
class DrainerSettings:
    workers: int = 1
    poll_interval: float = 1.0
    heartbeat_interval: float = 1.0
    #: A claim whose owner has not beaten for this long is taken over.
    stale_after: float = 10.0
    inotify: bool | None = None


def _ids(names: set[str]) -> set[str]:
    return {name.removesuffix(TASK_SUFFIX).removesuffix(CLAIM_SUFFIX) for name in names}


def _new_work(name: str, removed: bool) -> bool:
    """A task arrived (or came back for a retry), or a claim was given up."""
    return name.endswith(CLAIM_SUFFIX) if removed else name.endswith(TASK_SUFFIX)


class Drainer:
    def __init__(
        self,
        folder: Folder,
        adapter: LLMAdapter,
        settings: DrainerSettings | None = None,
        *,
        adapter_name: str = "?",
        drainer_id: str | None = None,
    ) -> None:
        self.folder = folder
        self.adapter = adapter
        self.settings = settings or DrainerSettings()
        self.id = drainer_id or f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(2)}"
        if not is_drainer_id(self.id):
            raise ValueError(f"drainer id {self.id!r}: use letters, digits, '_', '.' and '-'")
        self.adapter_name = adapter_name
        self.answered = 0
        self.failed = 0
        self._active: dict[str, asyncio.Task[None]] = {}
        self._unreadable: set[str] = set()
        #: Tasks that failed with no answer written, and when this drainer may try them again.
        self._resting: dict[str, float] = {}
        #: Tasks seen waiting and not yet claimed for want of a free worker.
        self._backlog: set[str] = set()
        self._warned_tools = False

    async def run(self, stop: asyncio.Event) -> None:
        """Drain until `stop` is set."""
        self.folder.ensure()
        self._clean()
        heartbeat = Heartbeat(
            self.folder,
            self.id,
            {"adapter": self.adapter_name, "workers": self.settings.workers},
        )
        heartbeat.beat(in_flight=0, answered=0, failed=0)
        beating = asyncio.create_task(self._beat(heartbeat, stop))
        try:
            await self._loop(stop)
        finally:
            for task in self._active.values():
                task.cancel()
            await asyncio.gather(*self._active.values(), return_exceptions=True)
            beating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beating
            heartbeat.remove()

    async def _loop(self, stop: asyncio.Event) -> None:
        async with watch(
            self.folder.inbox, _new_work, self.settings.poll_interval, inotify=self.settings.inotify
        ) as changes:
            stopping = asyncio.create_task(stop.wait())
            stopping.add_done_callback(lambda _: changes.poke())
            next_clean = time.monotonic() + TMP_MAX_AGE
            next_takeover = 0.0
            look_at_all = True
            try:
                while not stop.is_set():
                    names = changes.take()
                    if names is None:
                        look_at_all = True
                    else:  # what inotify reported: a look costs what changed, not the folder
                        self._backlog.update(_ids(names))
                    now = time.monotonic()
                    takeover = now >= next_takeover
                    if takeover:
                        next_takeover = now + min(1.0, self.settings.stale_after / 4)
                    room = self.settings.workers - len(self._active)
                    if room > 0 and (look_at_all or takeover or self._backlog):
                        if look_at_all or takeover:
                            waiting = self._scan(takeover)
                            look_at_all = False
                        else:
                            waiting = self._check(self._backlog)
                        for paths in self._claim(waiting, room, takeover):
                            self._start(paths, changes.poke)
                            changes.reset()
                    if now >= next_clean:
                        self._clean()
                        next_clean = now + TMP_MAX_AGE
                    if not await changes.wait(self.settings.poll_interval):
                        look_at_all = True  # nothing said anything for a while: look anyway
            finally:
                stopping.cancel()

    def _scan(self, takeover: bool) -> list[tuple[float, str]]:
        """Every unanswered task of the inbox (claimed ones too, for a take-over)."""
        try:
            done = {n.removesuffix(DONE_SUFFIX) for n in os.listdir(self.folder.outbox)}
            entries = list(os.scandir(self.folder.inbox))
        except FileNotFoundError:
            self.folder.ensure()
            return []
        names = {entry.name for entry in entries}
        waiting: list[tuple[float, str]] = []
        for entry in entries:
            if not entry.name.endswith(TASK_SUFFIX):
                continue
            task_id = entry.name.removesuffix(TASK_SUFFIX)
            if task_id in done or not self._answerable(task_id, entry.path):
                continue
            if not takeover and f"{task_id}{CLAIM_SUFFIX}" in names:
                continue
            with contextlib.suppress(FileNotFoundError):
                waiting.append((entry.stat().st_mtime, task_id))
        return waiting

    def _check(self, ids: set[str]) -> list[tuple[float, str]]:
        """The unanswered tasks among `ids`."""
        waiting: list[tuple[float, str]] = []
        for task_id in ids:
            if not self._answerable(task_id, self.folder.inbox / f"{task_id}{TASK_SUFFIX}"):
                continue
            paths = self.folder.paths(task_id)
            try:
                mtime = paths.task.stat().st_mtime
            except FileNotFoundError:
                continue
            if not paths.done.exists():
                waiting.append((mtime, task_id))
        return waiting

    def _answerable(self, task_id: str, path: str | os.PathLike[str]) -> bool:
        if task_id in self._active or task_id in self._unreadable:
            return False
        if task_id in self._resting:
            if time.monotonic() < self._resting[task_id]:
                return False
            del self._resting[task_id]
        if not is_task_id(task_id):
            self._unreadable.add(task_id)
            log.error("%s: not a task id (64 hex characters): ignored", path)
            return False
        return True

    def _claim(
        self, waiting: list[tuple[float, str]], room: int, takeover: bool
    ) -> list[TaskPaths]:
        """Claim up to `room` of the `waiting` tasks, oldest first; the rest are the backlog,
        looked at again when a worker is free."""
        claimed: list[TaskPaths] = []
        ordered = [task_id for _, task_id in sorted(waiting)]
        for n, task_id in enumerate(ordered):
            if len(claimed) >= room:
                self._backlog = set(ordered[n:])
                return claimed
            paths = self.folder.paths(task_id)
            won = claims.try_claim(paths, self.id) or (
                takeover
                and claims.take_over_if_stale(
                    self.folder, paths, self.id, self.settings.stale_after
                )
            )
            if not won:
                continue
            if paths.done.exists():  # answered between the look and the claim
                claims.release(paths, self.id)
                continue
            claimed.append(paths)
        self._backlog = set()
        return claimed

    def _start(self, paths: TaskPaths, on_done: Any) -> None:
        log.info("claimed %s", paths.id)
        task = asyncio.create_task(self._answer(paths))
        self._active[paths.id] = task

        def finished(_: asyncio.Task[None]) -> None:
            self._active.pop(paths.id, None)
            if self._backlog:  # tasks were left for want of a free worker: look again now
                on_done()

        task.add_done_callback(finished)

    async def _answer(self, paths: TaskPaths) -> None:
        """Answer one task. Whatever goes wrong, the worker lives on and the claim is not left
        held by a drainer that is alive but no longer working on it."""
        try:
            await self._work(paths)
        except asyncio.CancelledError:
            claims.release(paths, self.id)
            raise
        except Exception as err:  # unreadable task, full disk, an adapter misbehaving...
            self._fail(paths, err)

    async def _work(self, paths: TaskPaths) -> None:
        started = time.monotonic()
        try:
            answer = await self._ask(paths)
        except FileNotFoundError:  # the task was deleted: nothing to answer
            claims.release(paths, self.id)
            return
        if not claims.owns(paths, self.id):
            log.warning("lost the claim on %s (taken over): answer discarded", paths.id)
            return
        write_answer(paths, answer)
        paths.claim.unlink(missing_ok=True)
        if answer.error is None:
            self.answered += 1
        else:
            self.failed += 1
        log.info(
            "answered %s in %.0f ms%s",
            paths.id,
            (time.monotonic() - started) * 1000,
            f" with an error: {answer.error}" if answer.error else "",
        )

    def _fail(self, paths: TaskPaths, err: Exception) -> None:
        """Answer with an `error` if the claim is still ours and no answer is in place, so the
        waiting adapter fails at once; then give the claim up. When even that cannot be
        written, leave the task to other drainers for a while rather than loop on it."""
        self.failed += 1
        reason = f"{type(err).__name__}: {err}"
        log.error("%s: could not answer: %s", paths.task, reason, exc_info=err)
        try:
            if claims.owns(paths, self.id) and not paths.done.exists():
                write_answer(paths, Answer("", error=reason))
                log.info("answered %s with an error: %s", paths.id, reason)
        except OSError as again:
            self._resting[paths.id] = time.monotonic() + RETRY_FAILED_AFTER
            log.error(
                "%s: could not write an error answer either (%s: %s); given back, not taken "
                "again by this drainer for %gs",
                paths.task,
                type(again).__name__,
                again,
                RETRY_FAILED_AFTER,
            )
        finally:
            with contextlib.suppress(OSError):
                claims.release(paths, self.id)

    async def _ask(self, paths: TaskPaths) -> Answer:
        try:
            task = parse_task(read_envelope(paths.task, MalformedTaskError), paths.task)
        except MalformedTaskError as err:
            log.error("%s", err)
            return Answer("", error=str(err))
        if task.tools and not self.adapter.capabilities.native_tools and not self._warned_tools:
            self._warned_tools = True
            log.warning(
                "tasks carry tools but this drainer's adapter has no native tool calling: "
                "set `native_tools: false` on the agentfs adapter so the loop puts them in "
                "the prompt"
            )
        request = CompletionRequest(
            messages=task.conversation(),
            tools=task.tools,
            response_schema=task.response_schema,
            max_tokens=task.max_tokens,
            metadata={"context_label": task.context_label, "task_id": task.task_id},
        )
        try:
            completion = await asyncio.wait_for(
                self.adapter.complete(request), task.timeout_seconds
            )
        except asyncio.CancelledError:
            raise
        except Exception as err:
            log.warning("task %s failed: %s: %s", paths.id, type(err).__name__, err)
            return Answer("", error=f"{type(err).__name__}: {err}")
        return Answer(
            completion.content,
            completion.tool_calls,
            completion.usage,
            completion.model,
            completion.finish_reason,
        )

    async def _beat(self, heartbeat: Heartbeat, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await asyncio.sleep(self.settings.heartbeat_interval)
            heartbeat.beat(in_flight=len(self._active), answered=self.answered, failed=self.failed)

    def _clean(self) -> None:
        """Remove `.tmp` files left by dead writers and heartbeats of long-dead drainers."""
        now = time.time()
        for folder in (self.folder.inbox, self.folder.outbox, self.folder.heartbeats):
            with contextlib.suppress(FileNotFoundError):
                for entry in os.scandir(folder):
                    if entry.name.endswith(TMP_SUFFIX):
                        with contextlib.suppress(FileNotFoundError):
                            if now - entry.stat().st_mtime > TMP_MAX_AGE:
                                os.unlink(entry.path)
                                log.info("removed leftover %s", entry.path)
        for beat in read_beats(self.folder):
            if beat.age > DEAD_BEAT_MAX_AGE:
                beat.path.unlink(missing_ok=True)
