"""Fresh venvs for tests that install distributions as a user does, and the CLI run in one.

`make_venv` sees this environment's packages (the kernel and its dependencies) without
copying them; `venv_pip` installs into a venv with this environment's pip; `venv_cli` runs the
CLI with the venv's python named by `env["PYTHON"]`.
"""

from __future__ import annotations

import site
import subprocess
import sys
import venv
from collections.abc import Collection
from pathlib import Path

__all__ = ["make_venv", "venv_cli", "venv_pip"]

#: What a venv that sees only some plugins does not see of this environment: setuptools, as
#: a fresh venv has none (the distributions it builds install the one they need).
_SETUPTOOLS = {"setuptools", "_distutils_hack", "pkg_resources", "distutils-precedence.pth"}


def make_venv(target: Path, *, plugins: Collection[str] | None = None) -> Path:
    """A fresh venv that sees this environment's packages; its python. `plugins`: the
    distributions of agentframe plugins it sees (None: every one); given, it sees no other
    plugin, and no setuptools, as a user's new venv."""
    venv.create(target, with_pip=False)
    python = target / "bin" / "python"
    if plugins is None:
        folders = site.getsitepackages()
    else:
        folders = [str(_linked_view(target / "shared", {_normal(p) for p in plugins}))]
    # addsitedir (not a bare path) so the outer .pth files, e.g. an editable kernel, apply too
    adds = "; ".join(f"site.addsitedir({folder!r})" for folder in folders)
    Path(_purelib(python), "outer.pth").write_text(f"import site; {adds}\n")
    return python


def _linked_view(shared: Path, plugins: set[str]) -> Path:
    """A folder of symbolic links to this environment's site-packages entries, less the
    plugins not named and setuptools."""
    shared.mkdir()
    for folder in site.getsitepackages():
        for entry in Path(folder).iterdir():
            if not _hidden(entry, plugins) and not (shared / entry.name).exists():
                (shared / entry.name).symlink_to(entry)
    return shared


def _hidden(entry: Path, plugins: set[str]) -> bool:
    if entry.name.split("-")[0] in _SETUPTOOLS or entry.name in _SETUPTOOLS:
        return True
    points = entry / "entry_points.txt"
    return (
        entry.name.endswith(".dist-info")
        and _normal(entry.name.split("-")[0]) not in plugins
        and points.is_file()
        and "[agentframe]" in points.read_text(encoding="utf-8")
    )


def _normal(distribution: str) -> str:
    """A distribution's name as its .dist-info folder spells it."""
    return distribution.lower().replace("-", "_").replace(".", "_")


def _purelib(python: Path) -> str:
    """The venv's site-packages folder."""
    return subprocess.check_output(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
    ).strip()


def venv_pip(python: Path, *args: str, timeout: float = 600) -> None:
    """`pip ARGS` for the venv of `python`, with this environment's pip; a failure raises
    AssertionError with pip's output."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "-q", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"pip {' '.join(args)}:\n{done.stdout}{done.stderr}"


def venv_cli(
    env: dict[str, str], *args: str, cwd: Path | str = "/", timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`agentframe ARGS` with the python `env["PYTHON"]`, in `cwd`, output captured as text."""
    return subprocess.run(
        [env["PYTHON"], "-m", "agentframe_core", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
