"""The official MCP conformance suite's client scenarios, with agentframe's client
(`conformance_client.py`): the 2025-11-25 ones with a server entry as it is by default
(`protocol: legacy`, the `initialize` handshake), then those that set leaves out with
`protocol: auto` (the suite's `draft` scenarios, of the 2026-07-28 revision; its
`extensions`; its `backcompat` ones, of 2025-03-26). Every scenario passes but those in
`conformance-client-baseline.yml`, each there with the reason (the suite fails a run whose
baseline names a scenario that passes, so the list stays true).

The suite runs its scenarios at once; on a loaded machine a scenario with real-time waits
(sse-retry's reconnection delay) or a long flow can miss its tolerance. Such a failure is
run again alone, as the SDK's own CI does: a real failure fails again.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from conformance_suite import suite_command  # noqa: E402  (a helper beside the tests)

CLIENT = f"{sys.executable} {HERE / 'conformance_client.py'}"
BASELINE = HERE / "conformance-client-baseline.yml"
#: The `protocol` of the server entry, and the scenario sets run with it.
RUNS = {
    "2025-11-25, legacy": ("legacy", [("all", "--spec-version", "2025-11-25")]),
    "later, auto": ("auto", [("draft",), ("extensions",), ("backcompat",)]),
}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def suite(protocol: str, *args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    command = ["client", "--command", f"{CLIENT} {protocol}", "--timeout", "120000"]
    return subprocess.run(
        [*suite_command(), *command, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.parametrize("run", list(RUNS))
def test_every_client_scenario_passes_but_the_listed_ones(run: str, tmp_path: Path) -> None:
    protocol, selections = RUNS[run]
    for number, (name, *filters) in enumerate(selections):
        out_dir = tmp_path / str(number)
        whole = suite(
            protocol,
            *("--suite", name, *filters, "--expected-failures", str(BASELINE)),
            *("-o", str(out_dir)),
            timeout=900,
        )
        out = _ANSI.sub("", whole.stdout + whole.stderr)
        assert "Stale baseline" not in out, out[-3000:]
        if whole.returncode == 0:
            continue
        unexpected = re.findall(
            r"^  ✗ (\S+)$", out.partition("Unexpected failures (not in baseline):")[2], re.M
        )
        assert unexpected, out[-3000:]
        for scenario in unexpected:
            again = ("--scenario", scenario, "-o", str(out_dir / "alone"))
            alone = suite(protocol, *again, timeout=300)
            assert alone.returncode == 0, f"{scenario} fails alone too:\n{alone.stdout[-3000:]}"
