"""Bounds on one template render: a prompt template is written by whoever wrote the agent
file, so its loops, calls and strings must not run for minutes or fill the memory.

The sandbox counts work (every loop iteration, call, filter and intercepted operator) against
a budget, refuses arguments that would build a huge value in one step (`"x" * 10**9`,
`center(10**9)`, `replace("", big)`, `"%999999999s"`), checks the size of every value a step
produced, and caps the rendered text. Constant folding at load time is off, so nothing is
computed before a session renders the template.
"""

from __future__ import annotations

import contextvars
import functools
import operator
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sized
from typing import Any

from jinja2 import nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

__all__ = [
    "MAX_ARGUMENT",
    "MAX_OUTPUT",
    "MAX_SECONDS",
    "MAX_TAGS",
    "MAX_TEMPLATE_NODES",
    "MAX_VALUE",
    "MAX_WORK",
    "BoundedSandbox",
    "RenderBudget",
    "TemplateLimitError",
    "bound_tree",
    "check_source",
    "check_tree",
]

#: Loop iterations, calls, filters and operators in one render.
MAX_WORK = 200_000
#: Characters (or items) of any one value a step produces.
MAX_VALUE = 1_000_000
#: Characters of the rendered text.
MAX_OUTPUT = 1_000_000
#: An integer argument (a width, a count, a range).
MAX_ARGUMENT = 100_000
#: Bits of an integer result.
MAX_BITS = 100_000
#: Wall-clock seconds of one render.
MAX_SECONDS = 2.0
#: `${{` and `${%` tags in one template (compiling costs ~0.2 ms per node).
MAX_TAGS = 2_000
#: Nodes of one parsed template.
MAX_TEMPLATE_NODES = 20_000

ITER_FILTER = "_agentframe_counted"
SIZE_FILTER = "_agentframe_sized"


class TemplateLimitError(Exception):
    """The render went past one of the bounds above; the message says which."""


class RenderBudget:
    """The work one render may still do."""

    def __init__(self) -> None:
        self.work = 0
        self.deadline = time.monotonic() + MAX_SECONDS

    def charge(self, steps: int = 1) -> None:
        self.work += steps
        if self.work > MAX_WORK:
            raise TemplateLimitError(
                f"the template did more than {MAX_WORK} steps (loop iterations and calls); "
                "is a loop nested too deep?"
            )
        if self.work % 1024 == 0 and time.monotonic() > self.deadline:
            raise TemplateLimitError(f"the template ran longer than {MAX_SECONDS:g} s")


_budget: contextvars.ContextVar[RenderBudget | None] = contextvars.ContextVar(
    "agentframe_render_budget", default=None
)


def start_render() -> contextvars.Token[RenderBudget | None]:
    return _budget.set(RenderBudget())


def end_render(token: contextvars.Token[RenderBudget | None]) -> None:
    _budget.reset(token)


def _charge() -> None:
    budget = _budget.get()
    if budget is not None:
        budget.charge()


def collect_output(chunks: Iterable[str]) -> str:
    """The rendered text, refused once it passes `MAX_OUTPUT` characters."""
    parts: list[str] = []
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if size > MAX_OUTPUT:
            raise TemplateLimitError(f"the template renders more than {MAX_OUTPUT} characters")
        parts.append(chunk)
    return "".join(parts)


# -- checks on arguments and results --------------------------------------------------------------

_WIDTH = re.compile(r"\d+")


def _check_arguments(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    values = [*args, *kwargs.values()]
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_ARGUMENT:
            raise TemplateLimitError(f"{name}: argument {value} is over {MAX_ARGUMENT}")
    texts = [v for v in values if isinstance(v, str)]
    if name in ("replace",) and len(texts) >= 3:
        text, old, new = texts[:3]
        times = text.count(old) if old else len(text) + 1
        _check_size(name, len(text) + times * len(new))
    if name in ("format", "format_map", "%") and texts:
        _check_size(name, sum(int(n) for n in _WIDTH.findall(texts[0])) + len(texts[0]))
    widths = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    if name in ("indent", "expandtabs", "tojson") and texts and widths:
        lines = texts[0].count("\n") + texts[0].count("\t") + 1
        _check_size(name, len(texts[0]) + max(widths) * lines)


def _check_size(name: str, size: int) -> None:
    if size > MAX_VALUE:
        raise TemplateLimitError(f"{name} would build a value of {size} characters or items")


def check_result(name: str, value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > MAX_BITS:
            raise TemplateLimitError(f"{name} built an integer of more than {MAX_BITS} bits")
    elif isinstance(value, str | bytes | list | tuple | dict | set) and isinstance(value, Sized):
        _check_size(name, len(value))
    return value


def guarded(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` (a filter or test), charged and checked; Jinja's pass-arg marks are kept."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        _charge()
        _check_arguments(name, args, kwargs)
        return check_result(name, fn(*args, **kwargs))

    return run


def _counted(iterable: Any) -> Iterator[Any]:
    for item in iterable:
        _charge()
        yield item


def _sized(value: Any) -> Any:
    return check_result("concatenation", value)


# -- the environment ------------------------------------------------------------------------------

_BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "*": operator.mul,
    "**": operator.pow,
    "+": operator.add,
    "%": operator.mod,
}


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox, with every call, filter, operator and loop charged and checked."""

    intercepted_binops = frozenset(_BINOPS)

    def __init__(self, **options: Any) -> None:
        super().__init__(optimized=False, **options)
        self.globals.pop("lipsum", None)
        self.filters = {name: guarded(name, fn) for name, fn in self.filters.items()}
        self.tests = {name: guarded(name, test) for name, test in self.tests.items()}  # type: ignore[arg-type]
        self.filters[ITER_FILTER] = _counted
        self.filters[SIZE_FILTER] = _sized

    def call_binop(self, context: Any, operator_: str, left: Any, right: Any) -> Any:
        _charge()
        if operator_ == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, str | list | tuple) and isinstance(times, int):
                    _check_size("*", len(seq) * times)
        if (
            operator_ == "**"
            and isinstance(right, int)
            and isinstance(left, int)
            and abs(left) > 1
            and right * left.bit_length() > MAX_BITS
        ):
            raise TemplateLimitError(f"** would build an integer of more than {MAX_BITS} bits")
        if operator_ == "%" and isinstance(left, str):
            _check_arguments("%", (left,), {})
        return check_result(operator_, _BINOPS[operator_](left, right))

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        _charge()
        name = getattr(__obj, "__name__", "call")
        bound = getattr(__obj, "__self__", None)
        if isinstance(bound, str):
            args = (bound, *args)
            _check_arguments(name, args, kwargs)
            args = args[1:]
        else:
            _check_arguments(name, args, kwargs)
        return check_result(name, super().call(__context, __obj, *args, **kwargs))


def check_source(source: str) -> None:
    """Refuse before parsing a template too big to compile quickly."""
    tags = source.count("${{") + source.count("${%")
    if tags > MAX_TAGS:
        raise TemplateLimitError(f"the template has {tags} tags; the limit is {MAX_TAGS}")


def check_tree(tree: nodes.Template) -> None:
    """Refuse before compiling a template of too many parts."""
    for count, _ in enumerate(tree.find_all(nodes.Node), start=1):
        if count > MAX_TEMPLATE_NODES:
            raise TemplateLimitError(
                f"the template has more than {MAX_TEMPLATE_NODES} parts (expressions, tags)"
            )


def bound_tree(tree: nodes.Template) -> nodes.Template:
    """Every `for` loop's iterable counted item by item, every `~` concatenation checked."""
    for loop in tree.find_all(nodes.For):
        loop.iter = _filter(loop.iter, ITER_FILTER)  # type: ignore[arg-type]
    for parent in list(tree.find_all(nodes.Node)):
        for field, value in parent.iter_fields():
            if isinstance(value, nodes.Concat):
                setattr(parent, field, _filter(value, SIZE_FILTER))
            elif isinstance(value, list):
                setattr(
                    parent,
                    field,
                    [_filter(v, SIZE_FILTER) if isinstance(v, nodes.Concat) else v for v in value],
                )
    return tree


def _filter(node: nodes.Expr, name: str) -> nodes.Filter:
    wrapped = nodes.Filter(node, name, [], [], None, None)
    wrapped.set_lineno(node.lineno)
    return wrapped
