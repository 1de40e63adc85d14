"""One bench script run from two checkouts, interleaved, to compare a branch with a baseline.

Each checkout runs its own copy of the script, with the checkout first on `PYTHONPATH` (so its
`agentframe_core` is the one imported; the interpreter is `<checkout>/.venv/bin/python` when
there is one, else this one) and its own cache folder, alternately, `--rounds` times. Every
figure the script prints (the first number on a line, keyed by the text before it) is reported
as the median of each side and their ratio (candidate / baseline: above 1 is slower where the
figure is a time).

    git archive BASE | tar -x -C /tmp/base     # the baseline, e.g. main before a change
    python bench/side_by_side.py /tmp/base . bench/loop_overhead.py --rounds 5 -- --runs 500
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

#: A figure: a number with its unit (microseconds, milliseconds, seconds, or a ratio).
FIGURE = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:µs|ms|s|x)(?=\s|$)")


def figures(output: str) -> dict[str, float]:
    """{label: figure} for every line with one: its first figure, labelled by the text before."""
    found: dict[str, float] = {}
    for line in output.splitlines():
        match = FIGURE.search(line)
        label = " ".join(line[: match.start()].split()).strip(" :") if match else ""
        if match and label and label not in found:
            found[label] = float(match.group(1))
    return found


def run_once(checkout: Path, script: str, args: list[str], cache: str) -> dict[str, float]:
    env = {**os.environ, "AGENTFRAME_CACHE_DIR": cache, "PYTHONPATH": str(checkout)}
    env.pop("AGENTFRAME_CONFIG", None)
    venv = checkout / ".venv/bin/python"
    python = str(venv) if venv.exists() else sys.executable
    done = subprocess.run(
        [python, script, *args],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=True,
    )
    return figures(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", type=Path)
    parser.add_argument("candidate", type=Path)
    parser.add_argument("script")
    parser.add_argument("--rounds", type=int, default=3)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    options, args = parser.parse_args(argv[:cut]), argv[cut + 1 :]
    sides = {"baseline": options.baseline.resolve(), "candidate": options.candidate.resolve()}
    caches = {name: tempfile.mkdtemp(prefix=f"bench-{name}-") for name in sides}
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in sides}
    for _ in range(options.rounds):
        for name, checkout in sides.items():
            for label, value in run_once(checkout, options.script, args, caches[name]).items():
                samples[name].setdefault(label, []).append(value)
    print(f"{options.script}: median of {options.rounds} interleaved rounds")
    print(f"  {'figure':52s} {'baseline':>10s} {'candidate':>10s} {'ratio':>7s}")
    for label, values in samples["baseline"].items():
        other = samples["candidate"].get(label)
        if not other:
            continue
        base, cand = statistics.median(values), statistics.median(other)
        ratio = f"{cand / base:7.3f}" if base else "      -"
        print(f"  {label[:52]:52s} {base:10.2f} {cand:10.2f} {ratio}")


if __name__ == "__main__":
    main()
