"""Tool selection on the default model with a realistic stack: selection off against on.

The stack of issue 28, built from a config as a user would: two MCP servers (mcp-server-time
from PyPI and the reference `@modelcontextprotocol/server-everything` from npm), the BM25
memory tools, skills (two), the sub-agent tool (one agent), the demo function tools and the
kernel's meta tools: 25 tools. Each task is one `Session.run` that a right tool answers;
counted: runs that call one of the task's right tools *and* finish (`completed`, or a terminal
tool), and seconds per run. `visible_tools: 0` shows all 25 tools; `auto` shows SmolLM2's
8k window 8 of them (pinned included) plus `search_tools`. Both modes run on one warm
llama-server (the second stack adopts the first's), one after the other, in one process.

    python bench/tool_selection.py [--tasks 3]   # up to 8; a run with every tool may take minutes

Measured on the shared 2-core machine at a load of 12-25 (SmolLM2-135M, max_turns 3,
max_tokens 128, 120 s per model call, 3 tasks):

    | tools shown | right tool called and run finished | s/run |
    |---|---|---|
    | all 25 (visible_tools: 0) | 0/3 | 123.2 |
    | 8 of 25 + search_tools (auto) | 1/3 | 139.5 |

With every tool, one model call passed the timeout and the other runs called wrong tools;
with selection two runs called a right tool and one finished. The seconds are the load's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# This folder holds bench/mcp.py, which would shadow the `mcp` package the MCP plugin imports.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from agentframe_core import PluginHost, RunContext, Session, build_stack, load_config  # noqa: E402

EVERYTHING = "@modelcontextprotocol/server-everything"

#: (prompt, the tools that answer it)
TASKS: list[tuple[str, set[str]]] = [
    ("What is the current time in Tokyo?", {"mcp_time_get_current_time", "current_time"}),
    ("Convert 9:00 in New York to the time in London.", {"mcp_time_convert_time"}),
    ("Echo back the message 'hello there'.", {"mcp_everything_echo"}),
    ("Add 17 and 25.", {"add", "mcp_everything_get-sum"}),
    ("Remember that my favourite editor is vim.", {"remember"}),
    ("Search my saved memories for the office door code.", {"recall"}),
    ("Ask the researcher agent what a quokka is.", {"subagent"}),
    ("Load the release notes skill and draft notes for version 2.0.", {"load_skill"}),
]

SKILLS = {
    "release-notes": "Write release notes for a new version from the list of changes.",
    "code-review": "Review a code change for bugs, style and missing tests.",
}


def everything_server(folder: Path) -> list[str]:
    """server-everything installed with npm into `folder`: its node command line."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        sys.exit("this bench needs node and npm (for the everything MCP server)")
    subprocess.run(
        [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", EVERYTHING],
        check=True,
        capture_output=True,
    )
    package = folder / "node_modules" / "@modelcontextprotocol" / "server-everything"
    entry = json.loads((package / "package.json").read_text())["bin"]
    entry = entry if isinstance(entry, str) else next(iter(entry.values()))
    return [node, str(package / entry), "stdio"]


def write_project(root: Path, everything: list[str], visible: str) -> Path:
    """The project folder of one mode: config, skills, an agent; its config file."""
    for name, description in SKILLS.items():
        skill = root / "skills" / name
        skill.mkdir(parents=True, exist_ok=True)
        (skill / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\nSteps: gather, write, check.\n"
        )
    agents = root / "agents"
    agents.mkdir(exist_ok=True)
    (agents / "researcher.md").write_text(
        "---\nname: researcher\ndescription: Looks up what a thing is and explains it briefly."
        "\nmaxTurns: 2\n---\nAnswer in one sentence.\n"
    )
    config = {
        "adapter": {"use": "llamacpp", "max_tokens": 128, "keep_alive": 60, "timeout": 120},
        "store": "memory",
        "limits": {"max_turns": 3, "visible_tools": visible},
        "agents": ["agents"],
        "tools": [
            {
                "use": "functions",
                "import": [
                    "agentframe_core.examples:add",
                    "agentframe_core.examples:current_time",
                    "agentframe_core.metatools:report_inability",
                    "agentframe_core.metatools:load_tool_result",
                    "agentframe_core.metatools:search_tool_results",
                ],
            },
            {
                "use": "mcp",
                "project": False,
                "servers": {
                    "time": {
                        "command": sys.executable,
                        "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
                    },
                    "everything": {"command": everything[0], "args": everything[1:]},
                },
            },
            {"use": "memory-bm25", "folder": "memories"},
            {"use": "skills", "folders": ["skills"]},
            {"use": "subagents"},
        ],
    }
    path = root / "agentframe.yaml"
    path.write_text(json.dumps(config, indent=1))  # JSON is YAML
    return path


async def run_mode(config: Path, tasks: int) -> tuple[int, int, float]:
    """(right-and-finished runs, tools offered, seconds per run)."""
    host = PluginHost()
    stack = build_stack(load_config(host, config), host)
    good = 0
    async with stack:
        ctx = RunContext("bench-count", stack)
        offered = sum([len(await dispatcher.tools(ctx)) for dispatcher in stack.tools])
        started = time.perf_counter()
        for prompt, right in TASKS[:tasks]:
            began = time.perf_counter()
            try:
                result = await Session(stack, cwd=config.parent).run(prompt)
            except Exception as err:  # a model call past the adapter's timeout: a failed run
                print(f"  {prompt[:50]!r}: {type(err).__name__}: {str(err)[:120]}", flush=True)
                continue
            called = {record.call.name for record in result.tool_calls}
            finished = result.outcome.value in ("completed", "terminal_tool")
            good += bool(called & right) and finished
            took = time.perf_counter() - began
            print(
                f"  {prompt[:50]!r}: {sorted(called)} -> {result.outcome.value}, {took:.0f}s",
                flush=True,
            )
        seconds = (time.perf_counter() - started) / tasks
    return good, offered, seconds


async def main(tasks: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        everything = everything_server(root / "npm")
        rows = []
        for label, visible in (("all", "0"), ("selected", "auto")):
            project = root / visible
            project.mkdir()
            print(f"visible_tools: {visible}", flush=True)
            config = write_project(project, everything, visible)
            good, offered, seconds = await run_mode(config, tasks)
            rows.append((f"{label} of {offered} (visible_tools: {visible})", good, seconds))
        print(f"{tasks} tasks, SmolLM2-135M, max_turns 3, max_tokens 128, 120 s per model call")
        print("| tools shown | right tool and finished | s/run |")
        print("|---|---|---|")
        for label, good, seconds in rows:
            print(f"| {label} | {good}/{tasks} | {seconds:.1f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(min(args.tasks, len(TASKS))))
