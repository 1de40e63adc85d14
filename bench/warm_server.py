"""A second `agentframe run` on a warm llama-server against a cold one, side by side.

The embedded default (SmolLM2-135M, no config file) answers the add question in a real
`agentframe run` process, timed from its start to its exit: cold (no server: it starts
llama-server, loads the model, and with `keep_alive: 0` stops it on exit, as every run did
before warm servers), then warm (the server the previous run left, adopted through its state
file). Repeated `--rounds` times; the medians and their ratio are printed.

    python bench/warm_server.py [--rounds 3]

Uses the user's cache (the model is fetched once) and stops the servers it left at the end.
Measured on the shared 2-core machine at a load of 12-26 (2 rounds):

    | server | s/run (median) | runs |
    |---|---|---|
    | cold (started and stopped by the run) | 95.60 | 92.5, 98.7 |
    | warm (left by the previous run) | 36.30 | 39.6, 33.0 |
    warm/cold: 0.38   (an earlier single round: 57.0 against 27.1 s, 0.48)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROMPT = "What is 2+3? Use the add tool."


def agentframe(cwd: Path, keep_alive: str, *args: str) -> float:
    """Seconds one `agentframe ARGS` process takes; fails loudly if it fails."""
    env = {**os.environ, "AGENTFRAME_LLAMA_KEEP_ALIVE": keep_alive, "XDG_DATA_HOME": str(cwd)}
    env.pop("AGENTFRAME_CONFIG", None)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "agentframe_core", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.perf_counter() - started
    if done.returncode != 0 and args[0] != "llama":
        sys.exit(f"agentframe {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return took


def main(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        cold, warm = [], []
        try:
            agentframe(cwd, "0", "llama", "stop")
            for _ in range(rounds):
                cold.append(agentframe(cwd, "0", "run", PROMPT))  # starts and stops its server
                agentframe(cwd, "60", "run", PROMPT)  # leaves a warm server
                warm.append(agentframe(cwd, "60", "run", PROMPT))
                agentframe(cwd, "0", "llama", "stop")
        finally:
            agentframe(cwd, "0", "llama", "stop")
    print(f"`agentframe run {PROMPT!r}`, embedded default (SmolLM2-135M), {rounds} rounds")
    print("| server | s/run (median) | runs |")
    print("|---|---|---|")
    for label, times in (
        ("cold (started and stopped by the run)", cold),
        ("warm (left by the previous run)", warm),
    ):
        each = ", ".join(f"{t:.1f}" for t in times)
        print(f"| {label} | {statistics.median(times):.2f} | {each} |")
    print(f"warm/cold: {statistics.median(warm) / statistics.median(cold):.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    main(parser.parse_args().rounds)
