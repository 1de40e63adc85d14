"""A separate process that remembers `count` facts into a memory folder: for the
two-process test (run as a script)."""

from __future__ import annotations

import sys
from pathlib import Path

from agentframe_memory.bank import MemoryBank

if __name__ == "__main__":
    folder, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    bank = MemoryBank(folder)
    bank.open()
    if count < 0:  # remember until killed, saying each id once it is saved
        n = 0
        while True:
            memory, _ = bank.remember(f"{name} fact {n}", f"Fact {n}: zq{name}x{n}.", "facts")
            print(memory.id, flush=True)
            n += 1
    print("ready", flush=True)
    sys.stdin.readline()  # start together
    for n in range(count):
        bank.remember(
            f"{name} fact {n}", f"Worker {name} learned fact number {n}: zq{name}x{n}.", "facts"
        )
    # every fact is in this process's index too, its own and possibly the other's
    assert all(bank.search(f"zq{name}x{n}", 1)[0][0].endswith(f"-fact-{n}") for n in range(count))
    bank.close()
