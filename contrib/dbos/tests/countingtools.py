"""The tool of the durability test: it writes `start N` and `done N` lines to the file named
by AGENTFRAME_TEST_COUNTER, around a pause long enough to kill its worker mid-call."""

from __future__ import annotations

import os
import time


def step(n: int) -> str:
    """Do step n (slowly)."""
    with open(os.environ["AGENTFRAME_TEST_COUNTER"], "a") as out:
        out.write(f"start {n}\n")
    time.sleep(float(os.environ.get("AGENTFRAME_TEST_PAUSE", "1.5")))
    with open(os.environ["AGENTFRAME_TEST_COUNTER"], "a") as out:
        out.write(f"done {n}\n")
    return f"result of step {n}"
