"""CLI start-up cost, as ratios to `python -c "import pydantic, yaml"` measured in the same run.

- `agentframe --help` must import no plugin (goal: under 2x the baseline);
- `agentframe plugins` imports every plugin (it has to: it reports them);
- `agentframe config check` on a stack of kernel parts only shows that discovery cost does not
  grow with installed plugins the stack does not use: it imports none of them.

    python bench/cli_startup.py [--rounds 15]
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

KERNEL_ONLY = "adapter: {use: scripted}\nstore: {use: memory}\ncontext: {use: verbatim}\n"

PROBE = """
import sys
from agentframe_core.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
plugins = sorted({m.split('.')[0] for m in sys.modules
                  if m.startswith('agentframe_') and m.split('.')[0] != 'agentframe_core'})
print('PLUGINS', ','.join(plugins), file=sys.stderr)
"""


def timed(command: list[str], env: dict[str, str], cwd: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    return time.perf_counter() - started


def plugins_imported(args: list[str], env: dict[str, str], cwd: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    line = next(x for x in done.stderr.splitlines() if x.startswith("PLUGINS"))
    return [p for p in line.removeprefix("PLUGINS").strip().split(",") if p]


def main(rounds: int) -> None:
    agentframe = str(Path(sys.executable).with_name("agentframe"))
    work = tempfile.mkdtemp()
    Path(work, "agentframe.yaml").write_text(KERNEL_ONLY)
    env = {**os.environ}
    env.pop("AGENTFRAME_CONFIG", None)
    commands = {
        "baseline: import pydantic, yaml": [sys.executable, "-c", "import pydantic, yaml"],
        "agentframe --help": [agentframe, "--help"],
        "agentframe plugins": [agentframe, "plugins"],
        "agentframe config check (kernel parts)": [agentframe, "config", "check"],
    }
    timed(commands["agentframe plugins"], env, work)  # writes the plugin manifest
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):  # interleaved, so machine noise hits every command alike
        for name, command in commands.items():
            samples[name].append(timed(command, env, work))
    base = statistics.median(samples["baseline: import pydantic, yaml"])
    print(f"median of {rounds} rounds, interleaved:")
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"  {name:42s} {median * 1000:7.1f} ms  {median / base:5.2f}x baseline")
    installed = plugins_imported(["plugins"], env, work)
    for_help = plugins_imported(["--help"], env, work)
    for_check = plugins_imported(["config", "check"], env, work)
    print(f"plugins installed: {len(installed)} ({', '.join(installed) or 'none'})")
    print(
        f"plugins imported by --help: {len(for_help)}; by a kernel-only config check: "
        f"{len(for_check)}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    main(parser.parse_args().rounds)
