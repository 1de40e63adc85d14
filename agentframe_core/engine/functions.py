"""Python functions as tools: the JSON schema comes from the signature and the docstring.

    @tool
    async def add(a: float, b: float) -> float:
        '''Add two numbers.

        Args:
            a: the first addend
            b: the second addend
        '''
        return a + b

A parameter annotated `RunContext` receives the session's context and is not shown to the
model. Sync functions run on a pooled daemon thread (`daemonpool.py`) so they never block the
event loop, and a timeout frees the run and the process at once; the thread itself cannot be
stopped and runs on until the function returns or the process exits (`isolated.py` runs
imported functions in a child process that is killed instead).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import inspect
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..contract.protocols import RunContext
from ..contract.tools import Tool, ToolResult
from .daemonpool import in_daemon_thread
from .validation import checked_by_dispatcher

__all__ = ["FunctionTool", "import_tool", "outcome_text", "tool"]


class FunctionTool:
    """A function plus the `Tool` that describes it."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
        terminal: bool = False,
        writes: bool = True,
        pinned: bool = False,
    ) -> None:
        self.fn = fn
        summary, param_docs = _parse_docstring(inspect.getdoc(fn) or "")
        self._ctx_param, self.arguments = _arguments_model(fn, param_docs)
        schema = self.arguments.model_json_schema()
        schema.pop("title", None)
        checked_by_dispatcher(schema)  # `run` checks the arguments against the model itself
        self.spec = Tool(
            name=name or fn.__name__,
            description=description if description is not None else summary,
            parameters=schema,
            timeout=timeout,
            terminal=terminal,
            writes=writes,
            pinned=pinned,
        )
        self._is_async = inspect.iscoroutinefunction(fn)
        #: "module:function", when imported by reference (what an isolated call imports).
        self.reference: str | None = None
        #: The folder its module was looked up in first (the config file's), for that import.
        self.folder: Path | None = None
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    async def run(self, arguments: dict[str, Any], ctx: RunContext | None = None) -> Any:
        """Validate (and coerce) `arguments`, then call the function."""
        # dict(iter(...)): dict(model) would first look up a `keys` attribute, which a
        # pydantic model answers with a costly AttributeError on every call
        values = dict(iter(self.arguments.model_validate(arguments)))
        if self._ctx_param:
            values[self._ctx_param] = ctx
        if self._is_async:
            return await self.fn(**values)
        return await in_daemon_thread(self.fn, values)

    @property
    def takes_context(self) -> bool:
        return self._ctx_param is not None


@overload
def tool(fn: Callable[..., Any]) -> FunctionTool: ...


@overload
def tool(
    fn: None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
    terminal: bool = False,
    writes: bool = True,
    pinned: bool = False,
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
    terminal: bool = False,
    writes: bool = True,
    pinned: bool = False,
) -> Any:
    """Make a function a tool; use bare (`@tool`) or with options (`@tool(timeout=5)`).
    `writes=False` declares it read-only, so plan mode lets it run; any other tool (and any
    plain function imported by `import_tool`) counts as writing or executing. `pinned=True`:
    always shown when a run shows only some tools (`limits.visible_tools`)."""

    def wrap(f: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(
            f,
            name=name,
            description=description,
            timeout=timeout,
            terminal=terminal,
            writes=writes,
            pinned=pinned,
        )

    return wrap(fn) if fn is not None else wrap


def outcome_text(value: Any) -> tuple[str, bool]:
    """A function's return value as (text for the model, is_error)."""
    if isinstance(value, ToolResult):
        return value.content, value.is_error
    return _to_text(value), False


def import_tool(reference: str, folder: Path | None = None) -> FunctionTool:
    """`"package.module:function"` -> a FunctionTool (raising ValueError with the reason). The
    module is looked for in `folder` first (the config file's folder), see `_import`."""
    module_name, sep, attr = reference.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"{reference!r} is not of the form 'package.module:function'")
    try:
        module = _import(module_name, folder)
    except ImportError as err:
        raise ValueError(f"cannot import {module_name!r}: {err}") from err
    try:
        obj = functools.reduce(getattr, attr.split("."), module)
    except AttributeError as err:
        raise ValueError(f"{module_name!r} has no attribute {attr!r}") from err
    if not isinstance(obj, FunctionTool) and not callable(obj):
        raise ValueError(f"{reference!r} is not callable")
    found = obj if isinstance(obj, FunctionTool) else FunctionTool(obj)
    found.reference = reference
    found.folder = folder
    return found


def _import(name: str, folder: Path | None) -> ModuleType:
    """Module `name`, from `folder` when its top-level module or package is there (a
    `mytools.py` beside the config). `folder` is on `sys.path` for that import only, so the
    modules it imports beside it resolve too, and no later import of another name finds
    files there. A file there that another module of the same name (installed, of the
    standard library, or already imported) would shadow is refused, never swapped in."""
    top = name.partition(".")[0]
    local = _beside(folder, top) if folder is not None and top.isidentifier() else None
    if local is None or folder is None:
        return importlib.import_module(name)
    origin = _origin(top)
    if origin is not None and origin != str(local):
        raise ImportError(
            f"{local} has the name of the module {top!r} of {origin}, which it would "
            "shadow: rename the file (and the `import:` entry)"
        )
    where = str(folder)
    sys.path.insert(0, where)
    try:
        return importlib.import_module(name)
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(where)


def _origin(top: str) -> str | None:
    """Where the module `top` is found without the config's folder (None: nowhere)."""
    loaded = sys.modules.get(top)
    if loaded is not None:
        file = getattr(loaded, "__file__", None)
        return str(Path(file).resolve()) if file else "the interpreter"
    spec = importlib.util.find_spec(top)
    if spec is None:
        return None
    if spec.origin is None or not spec.has_location:
        return spec.origin or "a namespace package"
    return str(Path(spec.origin).resolve())


def _beside(folder: Path, top: str) -> Path | None:
    """The file of module or package `top` in `folder` (symbolic links resolved), if any."""
    for candidate in (folder / f"{top}.py", folder / top / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


def _to_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return json.dumps(value, default=str, ensure_ascii=False)


def _arguments_model(
    fn: Callable[..., Any], param_docs: dict[str, str]
) -> tuple[str | None, type[BaseModel]]:
    hints = get_type_hints(fn)
    ctx_param = None
    fields: dict[str, Any] = {}
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"tool {fn.__name__}: *args and **kwargs cannot be described")
        annotation = hints.get(param.name, Any)
        if annotation is RunContext:
            ctx_param = param.name
            continue
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, Field(default, description=param_docs.get(param.name)))
    model = create_model(
        f"{fn.__name__}_arguments", __config__=ConfigDict(extra="forbid"), **fields
    )
    return ctx_param, model


_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The summary (text before the first section) and Google-style `Args:` descriptions."""
    summary_lines: list[str] = []
    params: dict[str, str] = {}
    section = None
    current = None
    arg_indent = None
    for line in doc.splitlines():
        stripped = line.strip()
        header = stripped.rstrip(":").lower()
        if stripped.endswith(":") and header in {
            "args",
            "arguments",
            "parameters",
            "returns",
            "raises",
            "yields",
            "examples",
            "example",
        }:
            section = header
            continue
        if section is None:
            summary_lines.append(line)
        elif section in {"args", "arguments", "parameters"}:
            match = _ARG_LINE.match(line)
            indent = len(line) - len(line.lstrip())
            if match and arg_indent in (None, indent):
                arg_indent = indent
                current = match.group(1).lstrip("*")
                params[current] = match.group(2).strip()
            elif current and stripped:
                params[current] = f"{params[current]} {stripped}".strip()
    return "\n".join(summary_lines).strip(), params
