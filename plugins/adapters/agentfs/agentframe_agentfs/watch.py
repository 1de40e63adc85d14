"""Knowing when to look at a folder again: inotify where Linux has it, else adaptive polling.

Waiters always check the file system themselves; a `Watch` only says when to look again, so
a missed or spurious wake-up costs a stat, never correctness. With inotify (through ctypes:
no dependency), a waiter wakes as soon as a file it cares about is created, renamed into place
or deleted, and sleeps otherwise; it still looks every `poll_interval`, which covers folders
whose writes inotify cannot see (NFS and other network file systems, another machine's writes).
Without inotify, the wait between looks starts at 1 ms and grows by half each time up to
`poll_interval`: an answer that comes quickly is seen quickly, and a long wait costs a few
stats a second.

One inotify instance serves every waiter of one folder on one event loop, so a hundred
concurrent tasks cost one file descriptor, not a hundred (the default per-user limit is 128).
It outlives its last waiter by `IDLE_CLOSE` seconds, and is closed on a helper thread: closing
an inotify descriptor waits for an RCU grace period, which measured 10-20 ms here, and a waiter
that paid it on its way out would lose most of what inotify saves.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import logging
import os
import struct
import sys
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

__all__ = ["MIN_DELAY", "Watch", "inotify_available", "watch"]

log = logging.getLogger(__name__)

MIN_DELAY = 0.001
GROWTH = 1.5
IDLE_CLOSE = 2.0

_IN_ARRIVED = 0x080 | 0x100  # IN_MOVED_TO, IN_CREATE
_IN_REMOVED = 0x040 | 0x200  # IN_MOVED_FROM, IN_DELETE
_IN_MASK = _IN_ARRIVED | _IN_REMOVED
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000  # the watch is gone (folder deleted or unmounted)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then `len` bytes of NUL-padded name


class _Libc:
    def __init__(self) -> None:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        self.init1 = libc.inotify_init1
        self.init1.argtypes = [ctypes.c_int]
        self.init1.restype = ctypes.c_int
        self.add_watch = libc.inotify_add_watch
        self.add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        self.add_watch.restype = ctypes.c_int


_libc: _Libc | None = None


def inotify_available() -> bool:
    global _libc
    if not sys.platform.startswith("linux"):
        return False
    if _libc is None:
        try:
            _libc = _Libc()
        except (OSError, AttributeError):
            return False
    return True


class _Hub:
    """One inotify instance on one folder, read by one event loop, fanned out to its waiters."""

    def __init__(self, loop: asyncio.AbstractEventLoop, folder: str) -> None:
        assert _libc is not None
        fd = _libc.init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), f"inotify_init1: {os.strerror(ctypes.get_errno())}")
        if _libc.add_watch(fd, os.fsencode(folder), _IN_MASK) < 0:
            errno = ctypes.get_errno()
            os.close(fd)
            raise OSError(errno, f"inotify_add_watch {folder}: {os.strerror(errno)}")
        self.fd = fd
        self.loop = loop
        self.watches: set[Watch] = set()
        self.idle: asyncio.TimerHandle | None = None
        loop.add_reader(fd, self._readable)

    def _readable(self) -> None:
        names: list[tuple[str, bool]] = []
        everyone = False
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                break
            if not data:
                break
            offset = 0
            while offset + _EVENT.size <= len(data):
                _, mask, _, length = _EVENT.unpack_from(data, offset)
                start = offset + _EVENT.size
                name = data[start : start + length].split(b"\0", 1)[0]
                offset = start + length
                if mask & (_IN_Q_OVERFLOW | _IN_IGNORED):
                    everyone = True
                elif name:
                    names.append((os.fsdecode(name), bool(mask & _IN_REMOVED)))
        for waiter in list(self.watches):
            if everyone:
                waiter.changed(None)
                continue
            matched = [name for name, gone in names if waiter.match(name, gone)]
            if matched:
                waiter.changed(matched)

    def close(self) -> None:
        if self.idle is not None:
            self.idle.cancel()
        self.loop.remove_reader(self.fd)  # a no-op once the loop is closed
        threading.Thread(target=os.close, args=(self.fd,), daemon=True).start()


_hubs: dict[tuple[asyncio.AbstractEventLoop, str], _Hub] = {}

#: `match(name, removed)`: does this change concern the waiter?
Match = Callable[[str, bool], bool]


def _hub(loop: asyncio.AbstractEventLoop, folder: str) -> _Hub:
    """The folder's hub on this loop, made if needed; hubs of closed loops are closed here."""
    for key, old in list(_hubs.items()):
        if old.loop.is_closed():
            del _hubs[key]
            old.close()
    hub = _hubs.get((loop, folder))
    if hub is None:
        hub = _hubs[(loop, folder)] = _Hub(loop, folder)
    elif hub.idle is not None:
        hub.idle.cancel()
        hub.idle = None
    return hub


def _close_if_idle(key: tuple[asyncio.AbstractEventLoop, str], hub: _Hub) -> None:
    if not hub.watches and _hubs.get(key) is hub:
        del _hubs[key]
        hub.close()


class Watch:
    """One waiter's view of a folder: `await wait(timeout)` between looks."""

    def __init__(self, match: Match, poll_interval: float, hub: _Hub | None) -> None:
        self.match = match
        self.poll_interval = poll_interval
        self._hub = hub
        self._event = asyncio.Event()
        self._delay = MIN_DELAY
        self._names: set[str] | None = set()

    @property
    def inotify(self) -> bool:
        return self._hub is not None

    def poke(self) -> None:
        """Make the current or next `wait` return at once (a change, or a reason to look)."""
        self._event.set()

    def changed(self, names: list[str] | None) -> None:
        """Matching names changed (None: some unknown ones did); wakes the waiter."""
        if names is None or self._names is None:
            self._names = None
        else:
            self._names.update(names)
        self._event.set()

    def take(self) -> set[str] | None:
        """The names that changed since the last call, or None when they are not known
        (polling; or the kernel dropped events): then look at the whole folder."""
        if self._hub is None:
            return None
        names, self._names = self._names, set()
        return names

    def reset(self) -> None:
        """Something happened: poll fast again (polling mode only)."""
        self._delay = MIN_DELAY

    async def wait(self, timeout: float) -> bool:
        """Return when a matching change or a poke came since the last call (True), or when
        it is time to look anyway (False); never later than `timeout` seconds."""
        if self._hub is not None:
            delay = min(self.poll_interval, timeout)
        else:
            delay = min(self._delay, timeout)
            self._delay = min(self._delay * GROWTH, self.poll_interval)
        if not self._event.is_set() and delay > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._event.wait(), delay)
        woken = self._event.is_set()
        self._event.clear()
        return woken


@contextlib.asynccontextmanager
async def watch(
    folder: Path,
    match: Match,
    poll_interval: float,
    *,
    inotify: bool | None = None,
) -> AsyncIterator[Watch]:
    """Watch `folder` for changes that satisfy `match(name, removed)`: `removed` is false when
    `name` was created or renamed into the folder, true when it was deleted or renamed away.

    `inotify`: None uses it when available, False never, True insists (raising OSError when it
    cannot be set up). The folder must exist.
    """
    loop = asyncio.get_running_loop()
    key = (loop, os.path.abspath(folder))
    hub = None
    if inotify is not False and inotify_available():
        try:
            hub = _hub(*key)
        except OSError as err:
            if inotify:
                raise
            log.debug("inotify unavailable for %s (%s): polling", folder, err)
    waiter = Watch(match, poll_interval, hub)
    if hub is not None:
        hub.watches.add(waiter)
    try:
        yield waiter
    finally:
        if hub is not None:
            hub.watches.discard(waiter)
            if not hub.watches and not loop.is_closed():
                hub.idle = loop.call_later(IDLE_CLOSE, _close_if_idle, key, hub)
