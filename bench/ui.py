"""The web UI on a large store, measured in the browser: 10,000 sessions, one of them of
5,000 entries (a SQLite store, written through its `restore`), served by a real
`agentframe serve` process, opened in Debian's chromium through playwright.

For the session list (`#/sessions`), a search of what entries say (`#/sessions?q=9990`) and
the big session's page (`#/sessions/big`), from the navigation's start (`performance.now()`
in the page):
- first rows: the first animation frame with rows in the list;
- input-ready: when a task posted at that frame runs (the main thread is free to handle a
  key or a click);
- key handled: the longest a key typed then waited for its handler (ms, from the event's
  time stamp), while the session page draws the rest of its rows in background tasks;
- all rows: the list's first page, or every entry of the session.
Goal: first rows and input-ready within 1 s. Each page is loaded `--rounds` times; the
median and the worst are printed.

    python bench/ui.py [--sessions 10000] [--entries 5000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from agentframe_core import Entry, EntryKind, PluginHost, StoredEntry, build_stack, load_config

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "contrib" / "ui" / "tests"))

from uikit import start_serve, stop, write_project  # noqa: E402

from conftest import ARGS, CHROMIUM  # noqa: E402

#: At the first animation frame with rows: that time, and a task posted then, whose start
#: is when the page could handle input; a key listener notes how late each key is handled.
FIRST_ROWS = """() => {
  if (!document.querySelector(%r)) return false;
  const first = performance.now();
  setTimeout(() => (window.readyAt = performance.now()), 0);
  window.keyDelays = [];
  addEventListener("keydown", (e) => window.keyDelays.push(performance.now() - e.timeStamp));
  return first;
}"""


async def fill(root: Path, sessions: int, entries: int) -> None:
    plugins = PluginHost()
    stack = build_stack(load_config(plugins, root / "agentframe.yaml"), plugins)
    async with stack:
        store: Any = stack.store
        kinds = [EntryKind.USER, EntryKind.ASSISTANT]
        for n in range(sessions):
            size = entries if n == 0 else 4
            records = [
                StoredEntry(Entry(kind=kinds[i % 2], content=f"message {i} of session {n}"))
                for i in range(size)
            ]
            await store.restore("local.big" if n == 0 else f"local.s{n:05d}", records)


def measure(page: Any, url: str, route: str, row: str) -> dict[str, float]:
    page.goto("about:blank")
    page.goto(f"{url}/{route}")
    first = page.wait_for_function(FIRST_ROWS % row, polling="raf", timeout=60_000).json_value()
    ready = page.wait_for_function("() => window.readyAt", timeout=60_000).json_value()
    page.keyboard.type("abc")  # into the focused field, or the page: handled either way
    page.wait_for_function(
        f"() => document.querySelectorAll({row!r}).length >= window.expected",
        polling=100,
        timeout=60_000,
    )
    done = page.evaluate("performance.now()")
    delay = max(page.evaluate("window.keyDelays"), default=float("nan"))
    return {"first rows": first, "input-ready": ready, "key handled": delay, "all rows": done}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--entries", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-ui-") as tmp:
        root = write_project(Path(tmp), ["unused"])
        config = yaml.safe_load((root / "agentframe.yaml").read_text())
        config["store"]["synchronous"] = "normal"  # the fill only; the reads are the same
        (root / "agentframe.yaml").write_text(yaml.safe_dump(config))
        asyncio.run(fill(root, args.sessions, args.entries))
        process, url = start_serve(root)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                pages = {
                    "session list": ("#/sessions", "#sessions li", 100),
                    # a word in one recent session's entries only: the server searches
                    # the entries of the 500 newest sessions, for one row
                    "search of entries": ("#/sessions?q=9990", "#sessions li", 1),
                    f"session of {args.entries} entries": (
                        "#/sessions/big",
                        "#entries > li",
                        args.entries,
                    ),
                }
                print(f"{args.sessions} sessions; ms from navigation start, median / worst")
                for name, (route, row, expected) in pages.items():
                    page.add_init_script(f"window.expected = {expected}")
                    runs = [measure(page, url, route, row) for _ in range(args.rounds)]
                    for key in runs[0]:
                        values = [r[key] for r in runs]
                        print(
                            f"{name:28} {key:12} "
                            f"{statistics.median(values):7.0f} / {max(values):7.0f}"
                        )
                browser.close()
        finally:
            stop(process)


if __name__ == "__main__":
    main()
