"""Every hostile input of issues 12 and 23, through the real CLI: wall time and peak memory
of each, beside `agentframe --version` (start-up alone) measured in the same run.

The tests (tests/hostile) prove each one ends with a named error under a 1.5 GB cap; this
prints the figures: each must end within 5 s and 1.5 GB.

    python bench/hostile_input.py
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STACK = "adapter: {use: scripted, replies: [hi]}\nstore: memory\n"


def bomb(levels: int = 9) -> str:
    lines = ['  a0: &a0 ["lol"]']
    for level in range(1, levels + 1):
        lines.append(f"  a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * 9)}]")
    return "x:\n" + "\n".join(lines) + "\n"


def definition(name: str, body: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: bench\npromptMode: full\n{extra}---\n{body}\n"


NESTED = "${% for i in range(100000) %}${% for j in range(100000) %}${% endfor %}${% endfor %}"


def cases(work: Path) -> dict[str, tuple[Path, list[str | bytes], bytes | None]]:
    """name -> (working directory, arguments, stdin)."""

    def folder(
        name: str, config: str | bytes = STACK, agents: dict[str, str] | None = None
    ) -> Path:
        where = work / name
        (where / ".agentframe" / "agents").mkdir(parents=True)
        data = config.encode() if isinstance(config, str) else config
        (where / "agentframe.yaml").write_bytes(data)
        for file, text in (agents or {}).items():
            (where / ".agentframe" / "agents" / file).write_text(text)
        return where

    fifo = work / "pipe.yaml"
    os.mkfifo(fifo)
    huge = work / "huge.yaml"
    with open(huge, "wb") as handle:
        handle.truncate(3 << 30)
    return {
        "startup (agentframe --version)": (folder("base"), ["--version"], None),
        "alias bomb in config": (folder("bomb", bomb()), ["config", "check"], None),
        "self-referencing anchor": (folder("self", "x: &a [*a]\n"), ["config", "show"], None),
        "alias bomb in an agent file": (
            folder("abomb", agents={"b.md": definition("b", "x", bomb().replace("x:", "y:"))}),
            ["agents", "list"],
            None,
        ),
        "agents check /dev/zero": (folder("zero"), ["agents", "check", "/dev/zero"], None),
        "-c /dev/zero": (folder("czero"), ["-c", "/dev/zero", "config", "check"], None),
        "-c FIFO": (folder("cfifo"), ["-c", str(fifo), "config", "check"], None),
        "-c 3 GB sparse file": (folder("chuge"), ["-c", str(huge), "config", "check"], None),
        "sessions import /dev/zero": (folder("imp"), ["sessions", "import", "/dev/zero"], None),
        "nested range loops (agents check)": (
            folder("loops", agents={"l.md": definition("l", NESTED)}),
            ["agents", "check"],
            None,
        ),
        '"x" * 100000000 (agents list)': (
            folder("fold", agents={"f.md": definition("f", '${{ "x" * 100000000 }}')}),
            ["agents", "list"],
            None,
        ),
        "config with \\xff": (folder("ff", b"store: \xff\n"), ["config", "check"], None),
        "run $'\\xff\\xfe'": (folder("arg"), ["run", b"\xff\xfe"], None),
        "chat with non-UTF-8 stdin": (folder("chat"), ["chat"], b"caf\xe9\nhello\n"),
        **confinement_cases(work),
        **mcp_cases(work),
        **kg_cases(work),
    }


def confinement_cases(work: Path) -> dict[str, tuple[Path, list[str | bytes], bytes | None]]:
    """Issue 23 #2, #3, #4, #15, #16: sub-agent tools, memory and skills links out of their
    folders, DBOS and PostgreSQL unreachable or misused. Each must end in a named error (or,
    for the sub-agent, a refused call) within the same bounds."""
    outside = work / "outside"
    (outside / "skill").mkdir(parents=True)
    (outside / "secret.md").write_text("---\ntitle: Secret\n---\n\nkeep\n")
    (outside / "skill" / "SKILL.md").write_text("---\nname: skill\ndescription: d\n---\nkey\n")

    def project(name: str, config: str, agents: dict[str, str] | None = None) -> Path:
        where = work / name
        (where / ".git").mkdir(parents=True)
        (where / ".agentframe" / "agents").mkdir(parents=True)
        (where / "agentframe.yaml").write_text(config)
        for file, text in (agents or {}).items():
            (where / ".agentframe" / "agents" / file).write_text(text)
        return where

    def memory(name: str, extra: str = "") -> Path:
        where = project(
            name, f"{STACK}retrievers: [{{use: memory-bm25, folder: {work / name / 'm'}{extra}}}]\n"
        )
        (where / "m" / "user").mkdir(parents=True)
        (where / "m" / "user" / "general").symlink_to(outside, target_is_directory=True)
        return where

    leaky = "---\nname: leaky\ndescription: d\nskills: [/etc/hostname, {}]\n---\nx\n"
    skills = project("skills", STACK)
    (skills / ".claude" / "skills").mkdir(parents=True)
    (skills / ".claude" / "skills" / "skill").symlink_to(outside / "skill")
    denied = {"agent": "general-purpose", "task": "add"}
    replies = [
        {"tool_calls": [{"name": "subagent", "arguments": denied}]},
        {"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 2}}]},  # the child tries
        "refused",
        "done",
    ]
    child = project(
        "child",
        f"adapter: {{use: scripted, replies: {json.dumps(replies)}}}\nstore: memory\ntools: "
        "[{use: subagents}, {use: functions, import: ['agentframe_core.examples:add']}]\n",
        {"boss.md": "---\nname: boss\ndescription: d\ntools: [subagent]\n---\nx\n"},
    )
    down = "postgresql://agentframe:secret@127.0.0.1:1/dbos"
    store = project("pgdown", f'adapter: scripted\nstore: {{use: postgres, dsn: "{down}"}}\n')
    return {
        "subagent: child calls a tool its parent lacks": (
            child,
            ["run", "--agent", "boss", "go"],
            None,
        ),
        "memory rm through a category linked out": (
            memory("mrm"),
            ["memory", "rm", "general/secret"],
            None,
        ),
        "memory add through a category linked out": (
            memory("madd"),
            ["memory", "add", "t", "x"],
            None,
        ),
        "memory add 100 kB over a 50 kB cap": (
            project(
                "mcap",
                f"{STACK}retrievers: [{{use: memory-bm25, folder: {work / 'mc'}, "
                "max_file_bytes: 50000}]\n",
            ),
            ["memory", "add", "big", "word " * 20_000],  # an argument is at most 128 kB
            None,
        ),
        "agents show: skills /etc/hostname, ../": (
            project("agskill", STACK, {"l.md": leaky.format("../../../outside/secret.md")}),
            ["agents", "show", "leaky"],
            None,
        ),
        "skills list: a skill linked out": (skills, ["skills", "list"], None),
        "doctor: unreachable PostgreSQL store": (store, ["doctor", "--quick"], None),
        "dbos status: unreachable PostgreSQL": (
            project("dstatus", STACK),
            ["status", "w", "--system-database-url", down],
            None,
        ),
        "dbos worker: unreachable PostgreSQL": (
            project("dworker", STACK),
            ["worker", "--system-database-url", down],
            None,
        ),
        "dbos submit -c /missing": (
            project("dsubmit", STACK),
            ["-c", "/missing", "submit", "-s", "S", "hi"],
            None,
        ),
    }


HOSTILE_MCP = Path(__file__).resolve().parents[1] / "contrib/mcp/tests/servers/hostile.py"


def mcp_cases(work: Path) -> dict[str, tuple[Path, list[str | bytes], bytes | None]]:
    """Issue 23's MCP inputs: hostile tool lists, a 2 GB HTTP reply, a header with a line
    break, a project serving its agents to itself (needs agentframe-mcp installed)."""
    import json
    import socket
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    def project(name: str, servers: dict[str, object], replies: str = "[hi]") -> Path:
        where = work / name
        (where / ".agentframe" / "agents").mkdir(parents=True)
        (where / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
        tools = "tools: [{use: mcp, startup_timeout: 60, call_timeout: 60}]\n"
        stack = f"adapter: {{use: scripted, cycle: true, replies: {replies}}}\nstore: memory\n"
        (where / "agentframe.yaml").write_text(stack + tools)
        return where

    def listing(name: str, tools: list[dict[str, object]]) -> dict[str, object]:
        path = work / f"{name}.tools.json"
        path.write_text(json.dumps(tools, separators=(",", ":")))
        return {"command": sys.executable, "args": [str(HOSTILE_MCP), "listing", str(path)]}

    def many(name: str, count: int) -> dict[str, object]:
        """`count` tools, written as text: as a list here it would swell every child (fork)."""
        one = '{{"name": "t{}", "inputSchema": {{"type": "object"}}}}'
        path = work / f"{name}.tools.json"
        path.write_text("[" + ",".join(one.format(i) for i in range(count)) + "]")
        return {"command": sys.executable, "args": [str(HOSTILE_MCP), "listing", str(path)]}

    def tool(name: str, schema: dict[str, object] | None = None) -> dict[str, object]:
        return {"name": name, "inputSchema": schema or {"type": "object"}}

    mute = socket.socket()  # a `$ref` fetched from here would hang: it never answers
    mute.bind(("127.0.0.1", 0))
    mute.listen(64)
    secret = work / "secret.json"
    secret.write_text('{"const": "sk-LOCAL-SECRET-123"}')
    refs = [
        tool("remote", {"type": "object", "$ref": f"http://127.0.0.1:{mute.getsockname()[1]}/"}),
        tool("local", {"type": "object", "$ref": secret.as_uri()}),
        tool("zero", {"type": "object", "$ref": "file:///dev/zero"}),
    ]
    calls = ", ".join(f"{{name: mcp_r_{t['name']}, arguments: {{x: 1}}}}" for t in refs)

    class Huge(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(2 << 30))
            self.end_headers()
            try:
                for _ in range(2 << 10):  # 2 GB, 1 MiB at a time, until the client hangs up
                    self.wfile.write(b" " * (1 << 20))
            except OSError:
                pass

        def log_message(self, *args: object) -> None:
            pass

    huge = ThreadingHTTPServer(("127.0.0.1", 0), Huge)
    threading.Thread(target=huge.serve_forever, daemon=True).start()
    huge_url = f"http://127.0.0.1:{huge.server_address[1]}/mcp"
    serve = ["-m", "agentframe_core", "mcp", "serve"]
    delegate = "[{tool_calls: [{name: mcp_self_helper, arguments: {task: again}}]}, done]"
    selfish = project("mcpself", {"self": {"command": sys.executable, "args": serve}}, delegate)
    (selfish / ".agentframe" / "agents" / "helper.md").write_text(definition("helper", "x"))
    return {
        "mcp: $ref http/file/dev/zero (run)": (
            project("mcpref", {"r": listing("r", refs)}, f"[{{tool_calls: [{calls}]}}, done]"),
            ["run", "go"],
            None,
        ),
        "mcp: 100k tools (mcp list)": (
            project("mcp100k", {"big": many("big", 100_000)}),
            ["mcp", "list"],
            None,
        ),
        "mcp: 600k tools, one 33 MB line": (
            project("mcp600k", {"big": many("line", 600_000)}),
            ["mcp", "list"],
            None,
        ),
        "mcp: 2 GB HTTP reply (mcp list)": (
            project("mcp2gb", {"huge": {"type": "http", "url": huge_url}}),
            ["mcp", "list"],
            None,
        ),
        "mcp: a.b and a_b on one server": (
            project("mcpnames", {"n": listing("n", [tool("a.b"), tool("a_b"), tool("c")])}),
            ["mcp", "list"],
            None,
        ),
        "mcp: header with a line break": (
            project("mcphdr", {"h": {"url": huge_url, "headers": {"X-Key": "s3cret\nX: y"}}}),
            ["mcp", "list"],
            None,
        ),
        "mcp: project serving itself (run)": (selfish, ["run", "go"], None),
    }


KG_PASS1 = [  # the schema: Person, Organization, Place (kinds of Agent); bornIn, worksFor
    '{"classes": ["Agent", "Person", "Organization", "Place"]}',
    '{"subclasses": [{"name": "Person", "parent": "Agent"}], "properties": [{"name": '
    '"worksFor", "domain": "Person", "range": "Organization"}, {"name": "bornIn", "domain": '
    '"Person", "range": "Place"}]}',
]


def kg_cases(work: Path) -> dict[str, tuple[Path, list[str | bytes], bytes | None]]:
    """Issue 23 #10, #11, #13, #14: `kg query` on a cross product, a count, a sort and a
    SERVICE; `kg build` with a reply of 1,500 entities, 1,500 names to normalise, names in
    four scripts and C/C#/C++, a reply of the wrong shape, and a/b.md beside a__b.md. Each must
    end (a named error where refused) within the same bounds."""

    def entities(names: list[tuple[str, str]], relations: list[list[str]] | None = None) -> str:
        return json.dumps(
            {
                "entities": [{"name": n, "type": t} for n, t in names],
                "relations": [
                    {"subject": s, "predicate": p, "object": o} for s, p, o in relations or []
                ],
            },
            ensure_ascii=False,
        )

    def build(name: str, replies: list[str], docs: dict[str, str]) -> Path:
        where = work / name
        for doc, text in docs.items():
            (where / "docs" / doc).parent.mkdir(parents=True, exist_ok=True)
            (where / "docs" / doc).write_text(text)
        config = {"adapter": {"use": "scripted", "replies": replies}, "store": "memory"}
        (where / "agentframe.yaml").write_text(json.dumps(config, ensure_ascii=False))
        return where

    built = ["kg", "build", "docs", "--out", "out", "--concurrency", "1"]
    graph = work / "kgq"
    (graph / "out").mkdir(parents=True)
    triples = [f'kg:e{i} kg:p "value {i}" .' for i in range(62)]
    (graph / "out" / "knowledge_graph.ttl").write_text(
        "@prefix kg: <https://agentframe.dev/kg/id/> .\n" + "\n".join(triples) + "\n"
    )
    cross = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"  # 62^4 rows
    count = cross.replace("SELECT *", "SELECT (COUNT(*) AS ?n)")
    many = [(f"Entity {i}", "Person") for i in range(1500)]
    chunks = {f"d{n:02}.txt": f"Document {n} names thirty entities." for n in range(50)}
    scripts = [("東京", "Place"), ("Москва", "Place"), ("Αθήνα", "Place"), ("C", "Person")]
    scripts += [("C#", "Place"), ("C++", "Place")]
    return {
        "kg build: a/b.md beside a__b.md": (
            build("kgdocs", [], {"a/b.md": "Alpha.", "a__b.md": "Beta."}),
            [*built, "--steps", "preprocess,ingest"],
            None,
        ),
        "kg build: pass2 reply of the wrong shape": (
            build(
                "kgshape",
                [*KG_PASS1, *['{"entities": ["Ada"], "relations": []}'] * 6],
                {"ada.txt": "Ada was born in Turin."},
            ),
            built,
            None,
        ),
        "kg build: pass2 reply of 1,500 entities": (
            build("kgmany", [*KG_PASS1, *[entities(many)] * 6], {"ada.txt": "Ada."}),
            built,
            None,
        ),
        "kg build: 1,500 names to normalise": (
            build(
                "kgnames",
                [
                    *KG_PASS1,
                    *(entities(many[n::50]) for n in range(50)),
                    json.dumps({"answers": []}),
                    json.dumps({"relations": [], "gaps": []}),
                ],
                chunks,
            ),
            built,
            None,
        ),
        "kg build: 東京, Москва, Αθήνα, C, C#, C++": (
            build(
                "kgscripts",
                [
                    *KG_PASS1,
                    entities(scripts, [["C", "bornIn", "C#"]]),
                    '{"relations": [], "gaps": []}',
                ],
                {"cities.txt": "C was born in C#."},
            ),
            built,
            None,
        ),
        "kg query: SERVICE <http://127.0.0.1:9/>": (
            graph,
            ["kg", "query", "out", "SELECT * WHERE { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }"],
            None,
        ),
        "kg query: COUNT of 14.8M rows, --timeout 3": (
            graph,
            ["kg", "query", "out", count, "--timeout", "3"],
            None,
        ),
        "kg query: 4 patterns on 62 triples (14.8M rows)": (
            graph,
            ["kg", "query", "out", cross],
            None,
        ),
        "kg query: ORDER BY of 14.8M rows, --max-memory 100": (
            graph,
            ["kg", "query", "out", cross + " ORDER BY ?c", "--max-memory", "100"],
            None,
        ),
    }


def measure(cwd: Path, args: list[str | bytes], stdin: bytes | None) -> tuple[float, int, int]:
    """(seconds, peak RSS in MB, exit code) of one run in a fresh child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    env = {**os.environ, "AGENTFRAME_CACHE_DIR": str(cwd / "cache"), "NO_COLOR": "1"}
    env.pop("AGENTFRAME_CONFIG", None)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "agentframe_core", *args],
        cwd=cwd,
        env=env,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=60,
        check=False,
    )
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert b"Traceback" not in done.stderr, done.stderr[-2000:]
    return seconds, max(peak, before) // 1024, done.returncode


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'hostile input':48} {'seconds':>8} {'peak MB':>8} {'exit':>5}")
        for name, (cwd, args, stdin) in cases(Path(tmp)).items():
            seconds, peak, code = measure(cwd, args, stdin)
            print(f"{name:48} {seconds:8.2f} {peak:8d} {code:5d}")
    print("(peak MB is the largest child so far: RUSAGE_CHILDREN keeps the maximum)")


if __name__ == "__main__":
    main()
