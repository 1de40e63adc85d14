"""Fresh venvs for tests that install distributions as a user would, and the CLI run in one.

`make_venv` sees this environment's packages (the kernel and its dependencies) through a
.pth file; `pip` installs into a venv with this environment's pip; `agentframe` runs the CLI
with the venv's python named by `env["PYTHON"]`.
"""

from __future__ import annotations

import site
import subprocess
import sys
import venv
from pathlib import Path


def make_venv(target: Path) -> Path:
    """A fresh venv that sees this environment's packages through a .pth file; its python."""
    venv.create(target, with_pip=False)
    python = target / "bin" / "python"
    # addsitedir (not a bare path) so the outer .pth files, e.g. an editable kernel, apply too
    adds = "; ".join(f"site.addsitedir({d!r})" for d in site.getsitepackages())
    Path(purelib(python), "outer.pth").write_text(f"import site; {adds}\n")
    return python


def purelib(python: Path) -> str:
    """The venv's site-packages folder."""
    return subprocess.check_output(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
    ).strip()


def pip(python: Path, *args: str) -> None:
    """`pip ARGS` for the venv of `python`, with this environment's pip."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "-q", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr


def agentframe(
    env: dict[str, str], *args: str, cwd: Path | str = "/"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [env["PYTHON"], "-m", "agentframe_core", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
