"""`Grep`: a regular expression over the project's files, with ripgrep's options as Claude
Code passes them (output modes, context lines, a glob or a file type, offset and head_limit).

Patterns are compiled by the `regex` package, whose matching takes a timeout: a pattern that
backtracks without end (`(a|aa)+$`) stops at the call's deadline instead of holding a thread
for ever, which the standard `re` cannot do (on a loaded machine it ends a few times later
than the timeout: measured here, 3.6 s for 1 s). Binary files and files over `max_file_bytes`
are skipped (the result says how many); matching is line by line unless `multiline`.
"""

from __future__ import annotations

import bisect
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

from agentframe_core import head_tail

from .project import Project, ToolError
from .walking import Hidden, Walk, glob_regex, hidden_note

__all__ = ["FILE_TYPES", "grep"]

#: ripgrep's common `--type` names and the files they mean.
FILE_TYPES: dict[str, tuple[str, ...]] = {
    "py": ("*.py", "*.pyi"),
    "js": ("*.js", "*.jsx", "*.mjs", "*.cjs"),
    "ts": ("*.ts", "*.tsx", "*.mts", "*.cts"),
    "rust": ("*.rs",),
    "go": ("*.go",),
    "java": ("*.java",),
    "kotlin": ("*.kt", "*.kts"),
    "c": ("*.c", "*.h"),
    "cpp": ("*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.h"),
    "cs": ("*.cs",),
    "rb": ("*.rb",),
    "ruby": ("*.rb",),
    "php": ("*.php",),
    "swift": ("*.swift",),
    "sh": ("*.sh", "*.bash", "*.zsh"),
    "md": ("*.md", "*.markdown"),
    "markdown": ("*.md", "*.markdown"),
    "json": ("*.json",),
    "yaml": ("*.yaml", "*.yml"),
    "toml": ("*.toml",),
    "html": ("*.html", "*.htm"),
    "css": ("*.css", "*.scss", "*.sass", "*.less"),
    "sql": ("*.sql",),
    "txt": ("*.txt",),
}

#: ripgrep's `--max-columns 500`, as Claude Code runs it.
_MAX_COLUMNS = 500
_SNIFF = 8192


@dataclass(slots=True)
class _Search:
    compiled: Any
    multiline: bool
    deadline: float
    skipped_large: int = 0
    skipped_binary: int = 0
    timed_out: bool = False
    notes: list[str] = field(default_factory=list)


def grep(
    project: Project,
    args: dict[str, Any],
    max_file_bytes: int,
    max_entries: int,
    timeout: float,
    output_chars: int,
    hidden: Hidden | None = None,
) -> str:
    """`hidden`: files the walk leaves out, and a named file refused (`walking.py`)."""
    mode = args.get("output_mode") or "files_with_matches"
    flags = regex.MULTILINE | (regex.IGNORECASE if args.get("-i") else 0)
    multiline = bool(args.get("multiline"))
    if multiline:
        flags |= regex.DOTALL
    try:
        compiled = regex.compile(args["pattern"], flags)
    except regex.error as err:
        raise ToolError(f"pattern: not a valid regular expression: {err}") from None
    deadline = time.monotonic() + timeout
    search = _Search(compiled, multiline, deadline)
    target = project.path(args["path"], "path") if args.get("path") else project.root
    if not target.exists():
        raise ToolError(f"Path does not exist: {args.get('path')}")
    single = not target.is_dir()
    if single and not target.is_file():
        raise ToolError(f"{args.get('path')}: not a regular file (a device, FIFO or socket)")
    if hidden is not None and hidden(target):
        raise ToolError(f"{args.get('path')}: a permission rule denies reading it; refused")
    walk = Walk(target, max_entries, deadline, hidden)
    files = [target] if single else [Path(e.path) for _, e in _candidates(walk, args)]
    before, after = _context(args)
    numbers = args.get("-n", True)
    lines: list[str] = []
    matched: list[tuple[float, str]] = []
    counts: list[tuple[str, int]] = []
    for path in files:
        name = project.relative(path)
        found = _matches(path, search, max_file_bytes, stop_at_first=mode == "files_with_matches")
        if search.timed_out:
            break
        if found is None or not found[1]:
            continue
        text, spans = found
        if mode == "files_with_matches":
            matched.append((_mtime(path), name))
        elif mode == "count":
            counts.append((name, len(spans)))
        else:
            prefix = "" if single else name
            lines.extend(_content(text, spans, before, after, numbers, prefix, bool(lines)))
    if mode == "files_with_matches":
        matched.sort(key=lambda item: (-item[0], item[1]))
        shown = _page([name for _, name in matched], args)
        body = (
            f"Found {len(shown)} file{'s' if len(shown) != 1 else ''}\n" + "\n".join(shown)
            if shown
            else "No files found"
        )
    elif mode == "count":
        shown = _page([f"{name}:{n}" for name, n in counts], args)
        total = sum(int(line.rpartition(":")[2]) for line in shown)
        body = (
            "\n".join(shown)
            + f"\n\nFound {total} total occurrence{'s' if total != 1 else ''} across "
            f"{len(shown)} file{'s' if len(shown) != 1 else ''}."
            if shown
            else "No matches found"
        )
    else:
        shown = _page(lines, args)
        body = "\n".join(shown) if shown else "No matches found"
    return head_tail(body + _notes(search, walk), output_chars)


def _candidates(walk: Walk, args: dict[str, Any]) -> Any:
    include: list[Any] = []
    exclude: list[Any] = []
    for pattern in _globs(args.get("glob")):
        if pattern.startswith("!"):
            exclude.append(glob_regex(pattern[1:], anywhere=True))
        else:
            include.append(glob_regex(pattern, anywhere=True))
    kind = args.get("type")
    if kind:
        if kind not in FILE_TYPES:
            raise ToolError(f"type: unknown file type {kind!r}; known: {', '.join(FILE_TYPES)}")
        typed = [glob_regex(p, anywhere=True) for p in FILE_TYPES[kind]]
    else:
        typed = []
    for relative, entry in walk.entries():
        if include and not any(rule.match(relative) for rule in include):
            continue
        if any(rule.match(relative) for rule in exclude):
            continue
        if typed and not any(rule.match(relative) for rule in typed):
            continue
        if not entry.is_file(follow_symlinks=False):
            continue  # a link may lead out of the project; a FIFO would block the read
        yield relative, entry


def _globs(value: str | None) -> list[str]:
    """Claude Code's split of `glob`: on whitespace, then on commas outside braces."""
    patterns: list[str] = []
    for part in (value or "").split():
        patterns.extend([part] if "{" in part and "}" in part else filter(None, part.split(",")))
    return patterns


def _matches(
    path: Path, search: _Search, max_file_bytes: int, stop_at_first: bool
) -> tuple[str, list[tuple[int, int]]] | None:
    """The file's text and its match spans, or None for a file that is not searched."""
    try:
        if path.stat().st_size > max_file_bytes:
            search.skipped_large += 1
            return None
        with open(path, "rb", buffering=0) as handle:
            data = handle.read(max_file_bytes + 1)
    except OSError:
        return None
    if b"\0" in data[:_SNIFF]:
        search.skipped_binary += 1
        return None
    text = data.decode("utf-8", errors="replace")
    spans: list[tuple[int, int]] = []
    try:
        if search.multiline:
            for match in search.compiled.finditer(text, timeout=_left(search)):
                spans.append(match.span())
                if stop_at_first:
                    break
        else:
            start = 0
            for line in text.split("\n"):
                if search.compiled.search(line, timeout=_left(search)):
                    spans.append((start, start + len(line)))
                    if stop_at_first:
                        break
                start += len(line) + 1
    except TimeoutError:
        search.timed_out = True
    return text, spans


def _left(search: _Search) -> float:
    left = search.deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def _content(
    text: str,
    spans: list[tuple[int, int]],
    before: int,
    after: int,
    numbers: bool,
    prefix: str,
    separate: bool,
) -> list[str]:
    """ripgrep's content lines: `path:n:line` for a match, `path-n-line` for context, `--`
    between groups that do not touch."""
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    hit: set[int] = set()
    for start, end in spans:
        first = bisect.bisect_right(starts, start) - 1
        last = bisect.bisect_right(starts, max(start, end - 1)) - 1
        hit.update(range(first, last + 1))
    total = len(starts) - (1 if text.endswith("\n") else 0)
    wanted = sorted({n for h in hit for n in range(max(0, h - before), min(total, h + after + 1))})
    out: list[str] = []
    previous: int | None = None
    for n in wanted:
        apart = separate if previous is None else n != previous + 1
        if (before or after) and apart:
            out.append("--")
        end = starts[n + 1] - 1 if n + 1 < len(starts) else len(text)
        line = text[starts[n] : end]
        if len(line) > _MAX_COLUMNS:
            line = f"{line[:_MAX_COLUMNS]} [... line cut at {_MAX_COLUMNS} characters]"
        parts = [p for p in (prefix, str(n + 1) if numbers else "") if p]
        out.append((":" if n in hit else "-").join([*parts, line]))
        previous = n
    return out


def _context(args: dict[str, Any]) -> tuple[int, int]:
    if args.get("-C") is not None:
        return int(args["-C"]), int(args["-C"])
    return int(args.get("-B") or 0), int(args.get("-A") or 0)


def _page(items: list[str], args: dict[str, Any]) -> list[str]:
    offset = int(args.get("offset") or 0)
    limit = args.get("head_limit")
    return items[offset:] if limit is None else items[offset : offset + int(limit)]


def _mtime(path: Path) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def _notes(search: _Search, walk: Walk) -> str:
    notes = []
    if search.timed_out:
        notes.append("the search stopped at its time limit (search_timeout); results are partial")
    if walk.stopped:
        notes.append(f"the walk {walk.stopped}; results are partial")
    if search.skipped_large:
        notes.append(f"{search.skipped_large} file(s) over max_file_bytes were not searched")
    if search.skipped_binary:
        notes.append(f"{search.skipped_binary} binary file(s) were not searched")
    if walk.left_out:
        notes.append(f"{hidden_note(walk)} (not searched)")
    return "".join(f"\n({note})" for note in notes)
