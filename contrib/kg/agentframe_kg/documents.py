"""preprocess and ingest: documents to plain text, text to overlapping chunks.

Inputs are hostile: only regular files with a known suffix are read, each capped in size;
anything else is reported as skipped with the reason, never followed (symlinks included).
"""

from __future__ import annotations

import hashlib
import html.parser
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SUFFIXES", "Chunk", "chunk_text", "find_documents", "slug", "to_text"]

SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm", ".pdf")
_MAX_SKIPPED = 1000
_SKIP_TAGS = {"script", "style", "head", "noscript", "template"}


@dataclass(frozen=True, slots=True)
class Chunk:
    id: str
    doc: str
    index: int
    text: str


class _TextOfHtml(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._skipping += tag in _SKIP_TAGS
        if tag in {"p", "br", "div", "li", "h1", "h2", "h3", "tr"}:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        self._skipping -= tag in _SKIP_TAGS and self._skipping > 0

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def find_documents(root: Path, max_files: int) -> tuple[list[Path], list[str]]:
    """The documents under `root` (a file or a folder), sorted, and why others were skipped."""
    found: list[Path] = []
    skipped: list[str] = []
    for path in _walk(root):
        if len(skipped) >= _MAX_SKIPPED:
            skipped.append(f"{root}: more entries not looked at")
            break
        if not stat.S_ISREG(path.lstat().st_mode):
            skipped.append(f"{path}: not a regular file")
        elif path.suffix.lower() not in SUFFIXES:
            skipped.append(f"{path}: unsupported type {path.suffix or '(none)'}")
        elif len(found) >= max_files:
            skipped.append(f"{path}: more than {max_files} documents")
        else:
            found.append(path)
    return found, skipped


def _walk(root: Path) -> list[Path]:
    """Every entry under `root` but folders, sorted; symlinked folders are not followed."""
    if not root.is_dir() or root.is_symlink():
        return [root]
    entries: list[Path] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        entries += [Path(folder, d) for d in dirs if Path(folder, d).is_symlink()]
        entries += [Path(folder, f) for f in files]
        if len(entries) > 100 * _MAX_SKIPPED:
            break
    return sorted(entries)


def to_text(path: Path, data: bytes) -> str:
    """The text of one document; PDF needs the optional pure-Python `pypdf`."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return _pdf_text(path, data)
    text = data.decode("utf-8", errors="replace")
    if suffix in {".html", ".htm"}:
        parser = _TextOfHtml()
        parser.feed(text)
        parser.close()
        text = "".join(parser.parts)
    return re.sub(r"[ \t]+", " ", re.sub(r"\n{3,}", "\n\n", text)).strip()


def _pdf_text(path: Path, data: bytes) -> str:
    try:
        import io

        from pypdf import PdfReader  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise ValueError(f"{path}: PDF needs `pip install pypdf`") from None
    try:
        reader = PdfReader(io.BytesIO(data))
        return "\n".join(page.extract_text() or "" for page in reader.pages).strip()
    except Exception as err:  # a damaged PDF: say which, go on with the others
        raise ValueError(f"{path}: unreadable PDF ({type(err).__name__})") from None


def chunk_text(doc: str, text: str, size: int, overlap: int) -> list[Chunk]:
    """Chunks of about `size` characters, cut at whitespace, each repeating the last `overlap`
    characters of the one before; ids are stable for the same text."""
    chunks: list[Chunk] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = text.rfind(" ", start + size // 2, end)
            end = cut if cut > 0 else end
        body = text[start:end].strip()
        if body:
            digest = hashlib.sha256(f"{doc}\0{body}".encode()).hexdigest()[:12]
            chunks.append(Chunk(f"{slug(doc)}-{len(chunks)}-{digest}", doc, len(chunks), body))
        if end >= len(text):
            break
        start = max(end - overlap, start + 1)
    return chunks


def slug(name: str) -> str:
    """A short readable ASCII form of a document's name, for file names and chunk ids."""
    return re.sub(r"[^A-Za-z0-9]+", "_", Path(name).stem)[:40] or "doc"
