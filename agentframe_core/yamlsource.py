"""YAML that remembers where each value came from, so errors can name the line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import ConfigError, ConfigIssue

__all__ = ["Located", "YamlPath", "format_path", "load_yaml_text"]

YamlPath = tuple[str | int, ...]


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


#: libyaml's loader when PyYAML was built with it (about 10x faster), else the pure one.
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml_text(text: str, file: Path | None) -> Located:
    """Parse one YAML document (once: the lines come from the same node tree as the data);
    a syntax error becomes a ConfigError with its line."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark else None
        problem = err.problem or err.context or "invalid YAML"
        raise ConfigError([ConfigIssue(file, "", f"invalid YAML: {problem}", line)]) from err
    except yaml.YAMLError as err:
        raise ConfigError([ConfigIssue(file, "", f"invalid YAML: {err}")]) from err
    except (ValueError, TypeError, OverflowError, RecursionError) as err:
        # Some scalars are built by Python constructors: `2024-13-45` is a ValueError.
        raise ConfigError([ConfigIssue(file, "", f"invalid YAML: {err}")]) from err
    finally:
        loader.dispose()
    lines: dict[YamlPath, int] = {}
    if node is not None:
        _collect_lines(node, (), lines)
    return Located(data, lines, file)


def _collect_lines(node: yaml.Node, path: YamlPath, lines: dict[YamlPath, int]) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                child = (*path, key_node.value)
                lines[child] = key_node.start_mark.line + 1
                _collect_lines(value_node, child, lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_lines(item, (*path, index), lines)
