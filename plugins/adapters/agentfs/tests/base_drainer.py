"""A drainer written only against the base agent-mode contract: standard library, no agentframe.

    python base_drainer.py DIR RULE

It reads `task_id`, `system` and `user` (never an optional field), and writes
`{task_id, answer}` then the `.done` sentinel, each as `<name>.tmp` renamed into place. It polls
the inbox every 20 ms, as a simple drainer would. Rules:

- `add`: an agent that adds with a tool: until the conversation holds the tool's result, it
  asks for the `add` tool (as fenced JSON, as an assistant might write it); then it answers
  "The sum is <result>."
- `malformed-once`: the first answer to each task is broken JSON; the next is "fixed".
- `die-mid-write`: writes half an answer (to the `.tmp` and even to the final name), then
  kills itself with SIGKILL before any sentinel.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from pathlib import Path


def write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.rename(tmp, path)


def add_rule(task: dict[str, str]) -> str:
    result = re.search(r"\[result of add\]\n(\S+)", task["user"])
    if result:
        return f"The sum is {result.group(1)}."
    return '```json\n{"tool": "add", "args": {"a": 2, "b": 3}}\n```'


def main() -> None:
    root, rule = Path(sys.argv[1]), sys.argv[2]
    inbox, outbox = root / "agent_inbox", root / "agent_outbox"
    seen: set[str] = set()
    while True:
        for task_file in sorted(inbox.glob("*.task.json")):
            task_id = task_file.name[: -len(".task.json")]
            if (outbox / f"{task_id}.done").exists():
                continue
            task = json.loads(task_file.read_text())
            answer_file = outbox / f"{task_id}.answer.json"
            if rule == "add":
                answer = {"task_id": task["task_id"], "answer": add_rule(task)}
            elif rule == "malformed-once":
                if task_id not in seen:
                    seen.add(task_id)
                    write(answer_file, b'{"task_id": "' + task_id.encode() + b'", "answer": "bro')
                    write(outbox / f"{task_id}.done", b"")
                    continue
                answer = {"task_id": task["task_id"], "answer": "fixed"}
            elif rule == "die-mid-write":
                half = json.dumps({"task_id": task_id, "answer": "half " * 50})[:40].encode()
                answer_file.with_name(answer_file.name + ".tmp").write_bytes(half)
                answer_file.write_bytes(half)
                os.kill(os.getpid(), signal.SIGKILL)
            else:
                raise SystemExit(f"unknown rule {rule!r}")
            write(answer_file, json.dumps(answer).encode())
            write(outbox / f"{task_id}.done", b"")
        time.sleep(0.02)


if __name__ == "__main__":
    main()
