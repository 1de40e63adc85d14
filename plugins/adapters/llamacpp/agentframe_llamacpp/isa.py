"""Which instruction sets a built llama.cpp CPU backend uses, read from its disassembly.

A build made with GGML_NATIVE=ON on a CPU with AVX-512 or AMX runs there and dies with SIGILL
elsewhere (or on the same CPU under a hypervisor that hides them), so running it proves
nothing: only reading its code does. The portable baseline is AVX2 (with FMA, F16C, BMI2);
code for more belongs only in runtime-dispatched backend variants
(`libggml-cpu-<variant>.so`, chosen at start by what the CPU offers), each checked against
what its variant may use.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Finding", "backend_files", "inspect", "scan_disassembly"]

#: Instruction families above the baseline, each with the pattern that betrays it in
#: objdump's AT&T syntax.
FAMILIES: dict[str, re.Pattern[str]] = {
    # zmm registers, mask registers, the upper 16 xmm/ymm registers, embedded broadcasts
    "AVX-512": re.compile(r"%zmm\d|%k[1-7]\b|%[xy]mm(?:1[6-9]|2\d|3[01])\b|\{1to\d+\}"),
    "AMX": re.compile(r"^\s*(?:tile\w+|ldtilecfg|sttilecfg|tdp\w+|tcmmr\w+|tcmmi\w+)\b"),
    # VEX-encoded dot products (AVX-VNNI); the EVEX ones are caught as AVX-512
    "AVX-VNNI": re.compile(r"\{vex\}\s*vpdp(?:bu|ws)sds?\b"),
}

#: What a runtime-dispatched variant of llama.cpp's CPU backend may use beyond the baseline.
_AVX512_VARIANTS = {"skylakex", "cannonlake", "cascadelake", "icelake", "cooperlake", "zen4"}
VARIANT_ALLOWS: dict[str, frozenset[str]] = {
    **{name: frozenset() for name in ("x64", "sse42", "sandybridge", "ivybridge", "piledriver")},
    "haswell": frozenset(),
    "alderlake": frozenset({"AVX-VNNI"}),
    **{name: frozenset({"AVX-512"}) for name in _AVX512_VARIANTS},
    "sapphirerapids": frozenset({"AVX-512", "AMX", "AVX-VNNI"}),
}

_FUNCTION = re.compile(r"^[0-9a-f]+ <(?P<name>[^>]+)>:$")
_VARIANT = re.compile(r"^libggml-cpu-(?P<variant>[a-z0-9_]+)\.so")


@dataclass(frozen=True, slots=True)
class Finding:
    """Instructions of one family where the file may not use them."""

    file: Path
    family: str
    count: int
    functions: tuple[str, ...] = field(default=())

    def __str__(self) -> str:
        where = ", ".join(self.functions[:3]) + (", ..." if len(self.functions) > 3 else "")
        return f"{self.file.name}: {self.count} {self.family} instruction(s) in {where}"


def backend_files(binary: Path) -> list[Path]:
    """The CPU backend(s) of a llama-server: `libggml-cpu*.so` beside it, else the binary
    itself (a static build carries its backend inside)."""
    folder = binary.resolve().parent
    found = {path.resolve() for path in folder.glob("libggml-cpu*.so*") if path.is_file()}
    return sorted(found) or [binary.resolve()]


def allowed_families(path: Path) -> frozenset[str]:
    """What `path` may use: a known variant its instruction sets, anything else the baseline."""
    match = _VARIANT.match(path.name)
    if match is None:
        return frozenset()
    return VARIANT_ALLOWS.get(match["variant"], frozenset())


def scan_disassembly(lines: Iterable[str]) -> dict[str, Counter[str]]:
    """Per family above the baseline, how many instructions each function has."""
    found: dict[str, Counter[str]] = {family: Counter() for family in FAMILIES}
    function = "?"
    for line in lines:
        head = _FUNCTION.match(line)
        if head:
            function = head["name"]
            continue
        _, tab, instruction = line.partition(":\t")
        if not tab:
            continue
        for family, pattern in FAMILIES.items():
            if pattern.search(instruction):
                found[family][function] += 1
    return found


def inspect(path: Path, objdump: str | None = None) -> list[Finding]:
    """What `path` uses beyond what it may (nothing, for a portable build). Raises
    `FileNotFoundError` without objdump, `OSError` when objdump cannot read the file."""
    tool = objdump or shutil.which("objdump")
    if tool is None:
        raise FileNotFoundError("objdump (GNU binutils) is not installed")
    with subprocess.Popen(
        [tool, "-d", "--no-show-raw-insn", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        counts = scan_disassembly(process.stdout)
        error = process.stderr.read()
    if process.returncode != 0:
        raise OSError(f"objdump could not read {path}: {error.strip()[:300]}")
    allowed = allowed_families(path)
    return [
        Finding(path, family, sum(per.values()), tuple(name for name, _ in per.most_common()))
        for family, per in counts.items()
        if per and family not in allowed
    ]
