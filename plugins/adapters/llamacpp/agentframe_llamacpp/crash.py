"""Why a llama-server exited: the signal that killed it named, its likely cause, and what fixes
it (SIGILL: a binary built for another CPU, rebuilt with the portable flags)."""

from __future__ import annotations

import signal

from .portable import rebuild_command

__all__ = ["describe_exit"]

_CAUSES: dict[int, str] = {
    signal.SIGILL: (
        "an illegal instruction: this llama-server uses CPU instructions this machine does not "
        "allow (a build for another CPU, or GGML_NATIVE=ON on a CPU whose hypervisor hides "
        "AVX-512 or AMX)"
    ),
    signal.SIGKILL: (
        "killed from outside: most often the kernel's out-of-memory killer (see `dmesg`); a "
        "smaller ctx_size or a smaller model needs less memory"
    ),
    signal.SIGSEGV: "a crash inside llama.cpp (a bug, or a model file it cannot handle)",
    signal.SIGBUS: "a bus error: the model file changed or shrank while it was mapped",
    signal.SIGABRT: "llama.cpp aborted on a failed check: the log above says which",
}


def describe_exit(code: int | None) -> str:
    """`exited (code 1)`, or `was killed by SIGILL (an illegal instruction: ...). Fix: ...`."""
    if code is None or code >= 0:
        return f"exited (code {code if code is not None else '?'})"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        return f"was killed by signal {-code}"
    cause = _CAUSES.get(-code)
    text = f"was killed by {name}" + (f" ({cause})" if cause else "")
    if -code == signal.SIGILL:
        text += (
            f". Rebuild it with the portable flags: {rebuild_command()} "
            "(or set `binary_path` to a portable llama-server)"
        )
    return text
