"""YAML that remembers where each value came from, so errors can name the line.

Every YAML text is hostile until loaded: a few hundred bytes of anchors and aliases (a
"billion laughs" bomb) expand to billions of values, an alias inside its own anchor makes a
cycle, and a deep nest exhausts the stack. The composer here counts every value as it builds
the tree, aliases at their expanded size, and refuses past a limit, naming the line; it also
refuses a key given twice in one mapping, where YAML would silently keep the last.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer, ComposerError
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent
from yaml.resolver import Resolver

from ..contract.errors import ConfigError, ConfigIssue

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "Located",
    "YamlPath",
    "format_path",
    "load_yaml_text",
    "yaml_problem",
]

YamlPath = tuple[str | int, ...]

#: Values in one document, aliases counted at their full size (a config has hundreds).
MAX_NODES = 50_000
#: Nesting of lists and mappings in one document.
MAX_DEPTH = 64


class Located:
    """Parsed YAML data plus the 1-based line of every value, by path."""

    def __init__(self, data: Any, lines: dict[YamlPath, int], file: Path | None) -> None:
        self.data = data
        self.lines = lines
        self.file = file

    def line_of(self, path: YamlPath) -> int | None:
        """The line of `path`, or of its nearest ancestor that exists."""
        while True:
            if path in self.lines:
                return self.lines[path]
            if not path:
                return None
            path = path[:-1]

    def issue(self, path: YamlPath, message: str) -> ConfigIssue:
        return ConfigIssue(self.file, format_path(path), message, self.line_of(path))


def format_path(path: YamlPath) -> str:
    """`("tools", 0, "import")` -> `tools[0].import`."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


class _Refused(ComposerError):
    """The document is too big, too deep, cyclic or repeats a key."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(None, None, problem, mark)


class _BoundedComposer(Composer):
    """PyYAML's composer, counting values (aliases at their expanded size) and depth."""

    max_nodes = MAX_NODES
    peek_event: Callable[[], Any]  # the parser's, beside this class in the loader
    #: The file's line number of the text's first line (a frontmatter starts on line 2).
    first_line = 1

    def __init__(self) -> None:
        super().__init__()
        self._count = 0
        self._depth = 0
        self._sizes: dict[str, int] = {}  # anchor -> expanded size of its node
        self._open: set[str] = set()  # anchors whose node is being composed

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            anchor = event.anchor or ""
            if anchor in self._open:
                raise _Refused(
                    f"alias *{anchor} refers to itself (it is inside &{anchor})", event.start_mark
                )
            self._charge(self._sizes.get(anchor, 1), event.start_mark, f"alias *{anchor}")
            return super().compose_node(parent, index)
        if self._depth >= MAX_DEPTH:
            raise _Refused(f"nested more than {MAX_DEPTH} levels deep", event.start_mark)
        anchor = event.anchor
        start = self._count
        self._charge(1, event.start_mark, "this value")
        self._depth += 1
        if anchor is not None:
            self._open.add(anchor)
        node = super().compose_node(parent, index)
        self._depth -= 1
        if anchor is not None:
            self._open.discard(anchor)
            self._sizes[anchor] = self._count - start
        return node

    def compose_mapping_node(self, anchor: Any) -> Any:
        node = super().compose_mapping_node(anchor)
        seen: dict[tuple[str, Any], Any] = {}
        for key, _ in node.value:
            if isinstance(key, yaml.ScalarNode):
                first = seen.setdefault((key.tag, key.value), key)
                if first is not key:
                    line = first.start_mark.line + self.first_line
                    raise _Refused(
                        f"duplicate key {key.value!r} (first given on line {line})",
                        key.start_mark,
                    )
        return node

    def _charge(self, size: int, mark: Any, what: str) -> None:
        self._count += size
        if self._count > self.max_nodes:
            raise _Refused(
                f"{what} takes the document past the limit of {self.max_nodes} values "
                "(aliases count at their expanded size: is this an alias bomb?)",
                mark,
            )


try:  # libyaml's parser when PyYAML was built with it (about 10x faster), else the pure one
    from yaml._yaml import CParser

    class _Loader(_BoundedComposer, CParser, SafeConstructor, Resolver):
        def __init__(self, text: str) -> None:
            CParser.__init__(self, text)
            _BoundedComposer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Loader(Reader, Scanner, Parser, _BoundedComposer, SafeConstructor, Resolver):  # type: ignore[no-redef]
        def __init__(self, text: str) -> None:
            Reader.__init__(self, text)
            Scanner.__init__(self)
            Parser.__init__(self)
            _BoundedComposer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)


def load_yaml_text(text: str, file: Path | None, *, first_line: int = 1) -> Located:
    """Parse one YAML document (once: the lines come from the same node tree as the data);
    a syntax error, an alias bomb, a cycle or a repeated key becomes a ConfigError with its
    line. `first_line` is the file's line of the text's first line."""
    loader = _Loader(text)
    loader.first_line = first_line
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as err:
        message, line = yaml_problem(err, first_line)
        raise ConfigError([ConfigIssue(file, "", message, line)]) from err
    except yaml.YAMLError as err:
        raise ConfigError([ConfigIssue(file, "", f"invalid YAML: {err}")]) from err
    except (ValueError, TypeError, OverflowError, RecursionError) as err:
        # Some scalars are built by Python constructors: `2024-13-45` is a ValueError.
        raise ConfigError([ConfigIssue(file, "", f"invalid YAML: {err}")]) from err
    finally:
        loader.dispose()
    lines: dict[YamlPath, int] = {}
    if node is not None:
        _collect_lines(node, (), lines, first_line - 1)
    return Located(data, lines, file)


def yaml_problem(err: yaml.MarkedYAMLError, first_line: int = 1) -> tuple[str, int | None]:
    """The message and the file line to show: where the broken construct starts (an unclosed
    `[` or quote), which is where the mistake usually is, with where the parser gave up."""
    problem = err.problem or err.context or "invalid YAML"
    if isinstance(err, _Refused):
        mark = err.problem_mark
        return problem, mark.line + first_line if mark else None
    if err.context and err.context_mark is not None and err.problem:
        start = err.context_mark.line + first_line
        if err.problem_mark is not None and err.problem_mark.line + first_line != start:
            problem += f" (on line {err.problem_mark.line + first_line})"
        return f"invalid YAML: {err.context}: {problem}", start
    mark = err.problem_mark or err.context_mark
    return f"invalid YAML: {problem}", mark.line + first_line if mark else None


def _collect_lines(node: yaml.Node, path: YamlPath, lines: dict[YamlPath, int], shift: int) -> None:
    lines.setdefault(path, node.start_mark.line + 1 + shift)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                child = (*path, key_node.value)
                lines[child] = key_node.start_mark.line + 1 + shift
                _collect_lines(value_node, child, lines, shift)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_lines(item, (*path, index), lines, shift)
