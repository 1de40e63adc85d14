"""Free memory and disk, and the refusal to go below the configured reserves."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .errors import ReserveError

__all__ = ["MIB", "check_disk", "check_memory", "disk_free_mb", "memory_available_mb"]

MIB = 1024 * 1024


def memory_available_mb() -> int:
    """Memory the system can give a new process without swapping (`MemAvailable`)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // MIB


def disk_free_mb(path: Path) -> int:
    while not path.exists():
        path = path.parent
    return shutil.disk_usage(path).free // MIB


def check_memory(what: str, need_mb: int, reserve_mb: int) -> None:
    available = memory_available_mb()
    if available - need_mb < reserve_mb:
        raise ReserveError(
            f"not starting {what}: it needs about {need_mb} MiB of memory, {available} MiB are "
            f"available, and os_reserve_mb keeps {reserve_mb} MiB for the system "
            f"({available} - {need_mb} = {available - need_mb} < {reserve_mb}). Free some "
            "memory, choose a smaller model or ctx_size, or lower os_reserve_mb."
        )


def check_disk(what: str, path: Path, need_mb: int, reserve_mb: int) -> None:
    free = disk_free_mb(path)
    if free - need_mb < reserve_mb:
        raise ReserveError(
            f"not {what}: it needs {need_mb} MiB of disk in {path}, {free} MiB are free, and "
            f"disk_reserve_mb keeps {reserve_mb} MiB free ({free} - {need_mb} = "
            f"{free - need_mb} < {reserve_mb}). Free some disk, set AGENTFRAME_CACHE_DIR to a "
            "roomier place, or lower disk_reserve_mb."
        )
