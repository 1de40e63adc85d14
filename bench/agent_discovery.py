"""Cost of finding agent definitions and assembling a system prompt.

`agentframe run --agent NAME` finds agents once per run: every registered loader walks the
project folders (cwd up to the repository root), the user folder and the built-ins, and
parses every file. Measured against a baseline doing the irreducible part in the same
process: listing the same files, reading them, splitting off the frontmatter and parsing it
with the same YAML loader. Also: assembling the system prompt, `extend` and `full`.

    python bench/agent_discovery.py [--files 20] [--repeat 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

import yaml

from agentframe_core.assembly.catalog import catalog_from_loaders
from agentframe_core.engine.definitions.loader import BUILTIN_FOLDER
from agentframe_core.engine.prompt import assemble_system_prompt
from agentframe_core.parts.agentloader import AgentframeLoader

#: The loader agentframe uses (libyaml's when available), so the baseline is like for like.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

DEFINITION = """\
---
name: {name}
description: Agent number {index}, for the benchmark.
tools: [read_file, grep, bash]
disallowedTools: bash
maxTurns: 12
toolNameOverrides:
  read_file: Read
completionRequirement:
  tool: grep
  reminder: Search first.
---
You are agent {index}. Work carefully and report what you did.
"""

FULL_BODY = """\
You work in ${{ working_directory }} on ${{ os_name }}; today is ${{ current_date }}.
${% if tools.read_file %}
Read files with ${{ tools.read_file }}.
${% endif %}
${% if tools.bash %}
Run commands with ${{ tools.bash }}.
${% endif %}
Literal braces like {{ this }} stay.
"""


def build_tree(root: Path, files: int) -> tuple[Path, list[Path]]:
    """A repository with definitions at 3 project levels and in the user folder."""
    (root / ".git").mkdir(parents=True)
    cwd = root / "a" / "b"
    written = []
    for level, base in enumerate([cwd, cwd.parent, root, root / "home"]):
        folder = base / ".agentframe" / "agents"
        folder.mkdir(parents=True)
        for index in range(files):
            path = folder / f"agent-{level}-{index}.md"
            path.write_text(DEFINITION.format(name=f"agent-{index}", index=index))
            written.append(path)
    return cwd, written


def baseline(folders: list[Path]) -> int:
    """List, read, split and parse every file: what any discovery must do."""
    count = 0
    for folder in folders:
        for path in sorted(folder.glob("*.md")):
            text = path.read_text()
            _, front, _ = text.split("---\n", 2)
            yaml.load(front, Loader=LOADER)
            count += 1
    return count


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds per call."""
    fn()  # warm up caches (imports, compiled templates)
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20, help="definition files per folder")
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "repo"
        cwd, written = build_tree(root, args.files)
        os.environ["HOME"] = str(root / "home")
        folders = [*sorted({p.parent for p in written}), BUILTIN_FOLDER]
        loader = AgentframeLoader()

        def discover() -> object:
            return catalog_from_loaders([("agentframe", loader)], cwd)

        total = len(written) + len(list(BUILTIN_FOLDER.glob("*.md")))
        ours = timed(discover, args.repeat)
        base = timed(lambda: baseline(folders), args.repeat)
        catalog = catalog_from_loaders([("agentframe", loader)], cwd)
        print(f"discovery: {total} files, {len(catalog.entries)} names")
        for label, seconds in (
            ("find (agentframe loader)", ours),
            ("baseline (list+read+yaml)", base),
        ):
            print(f"  {label:26} {seconds * 1e3:8.2f} ms  ({seconds / total * 1e6:.0f} µs/file)")
        print(f"  ratio: {ours / base:.2f}x")

        agent = catalog.get("agent-0")
        names = agent.tool_names(["read_file", "grep", "bash"])
        full = agent.model_copy(update={"prompt_mode": "full", "prompt": FULL_BODY})
        today = date(2025, 1, 1)
        extend_s = timed(lambda: assemble_system_prompt(agent, names, cwd=cwd, today=today), 200)
        full_s = timed(lambda: assemble_system_prompt(full, names, cwd=cwd, today=today), 200)
        print("prompt assembly per call (a session assembles once and caches the prompt):")
        print(f"  extend: {extend_s * 1e6:8.0f} µs")
        print(f"  full:   {full_s * 1e6:8.0f} µs")


if __name__ == "__main__":
    main()
