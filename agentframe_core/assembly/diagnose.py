"""The checks of `agentframe doctor` as a library function: what is installed, what the
config resolves to, what to fix. The CLI prints them; `agentframe serve` calls it in its
own process (a subprocess per request would cost an interpreter each)."""

from __future__ import annotations

import platform
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contract.diagnosis import Diagnosis

if TYPE_CHECKING:
    from ..contract.configtypes import Config
    from .plugins import PluginHost

__all__ = ["PROBE_TIMEOUT", "diagnose"]


def diagnose(
    config_file: Path | None = None,
    profile: str | None = None,
    *,
    cwd: Path | None = None,
    quick: bool = False,
    host: PluginHost | None = None,
) -> list[Diagnosis]:
    """Every check: Python, each installed plugin, the config `config_file` (`None`: the
    embedded default) with `profile` applied, its agents as seen from `cwd` (default: the
    working folder), its tools, each plugin's own checks, and (unless `quick`) one token from
    its model. A failed check is a `Diagnosis` with `ok` false, never an exception.

    Not for a running event loop's thread: it runs loops of its own (call it in a worker
    thread, as `asyncio.to_thread` does)."""
    if host is None:
        from .plugins import PluginHost

        host = PluginHost()
    where = cwd if cwd is not None else Path.cwd()
    found = [
        Diagnosis(
            "python", True, f"{platform.python_version()} ({platform.python_implementation()})"
        )
    ]
    found += _plugin_health(host)
    found += _config_checks(host, config_file, profile, where, quick)
    return found


def _plugin_health(host: PluginHost) -> list[Diagnosis]:
    """Each installed plugin: what it registers, or why it failed to load."""
    checks = []
    for info in host.plugins():
        label = f"plugin {info.name}"
        if info.errors:
            detail = "; ".join(f"{e.stage}: {e.error}" for e in info.errors)
            fix = (
                f"reinstall or remove {info.distribution or info.module}; "
                "`agentframe plugins --traceback` shows the traceback"
            )
            checks.append(Diagnosis(label, False, detail, fix))
        else:
            provided = "; ".join(f"{k}: {', '.join(v)}" for k, v in info.registers.items())
            detail = f"{info.distribution or '?'} {info.version or ''} {provided}".strip()
            checks.append(Diagnosis(label, True, detail))
    return checks


def _config_checks(
    host: PluginHost, path: Path | None, profile: str | None, cwd: Path, quick: bool
) -> list[Diagnosis]:
    """The config in force, its agents, what each plugin it uses needs, and (unless `quick`)
    one token from its model."""
    from ..contract.errors import ConfigError
    from .config import load_config

    source = str(path) if path else "embedded default"
    try:
        cfg = load_config(host, path, profile)
    except ConfigError as err:
        detail = f"{source}: {len(err.issues)} problem(s)"
        return [Diagnosis("config", False, detail, "\n".join(str(issue) for issue in err.issues))]
    parts = [
        f"adapter={cfg.adapter.name}",
        f"store={cfg.store.name}",
        f"context={cfg.context.name}",
    ]
    parts += [f"tools={p.name}" for p in cfg.tools]
    parts += [f"retriever={p.name}" for p in cfg.retrievers]
    profile = f" (profile {cfg.profile})" if cfg.profile else ""
    checks = [Diagnosis("config", True, f"{source}{profile}: {' '.join(parts)}")]
    checks.append(_agents_check(host, cfg, cwd))
    checks.append(_tools_check(cfg))
    checks.extend(_plugin_checks(host, cfg))
    checks.append(_model_check(cfg, quick))
    return checks


def _agents_check(host: PluginHost, cfg: Config, cwd: Path) -> Diagnosis:
    from .catalog import find_agents

    catalog = find_agents(host, cfg, cwd)
    names = ", ".join(catalog.names()) or "none"
    if not catalog.errors:
        return Diagnosis("agents", True, names)
    return Diagnosis(
        "agents",
        False,
        f"{len(catalog.errors)} definition file(s) cannot be used; usable: {names}",
        "\n".join(str(error) for error in catalog.errors)
        + "\n(`agentframe agents check` for more)",
    )


def _tools_check(cfg: Config) -> Diagnosis:
    """How many tools the dispatchers offer, and how many a run shows (tool selection)."""
    import asyncio

    from ..contract.protocols import Closeable
    from ..engine.toolselect import SEARCH_TOOL, reason, visible_limit
    from .toolcheck import offered_tools

    try:
        total = len({tool.name for _, tool in asyncio.run(offered_tools(cfg))})
    except Exception as err:  # a dispatcher that cannot start: its own check says more
        return Diagnosis("tools", False, f"could not be listed: {type(err).__name__}: {err}")
    try:
        adapter = cfg.adapter.build()
        window = adapter.capabilities.context_window
        if isinstance(adapter, Closeable):
            asyncio.run(adapter.aclose())
    except Exception:  # the model check says why; without a window, `auto` shows every tool
        window = None
    setting = cfg.limits.visible_tools
    limit = visible_limit(setting, window)
    if limit is None or total <= limit:
        return Diagnosis("tools", True, f"{total} tool(s), all shown to the model")
    return Diagnosis(
        "tools",
        True,
        f"{total} tool(s); a run shows at most {limit} of them ({reason(setting, window)}) "
        f"and {SEARCH_TOOL} for the rest",
    )


def _plugin_checks(host: PluginHost, cfg: Config) -> list[Diagnosis]:
    """What each plugin says about the stack (`agentframe_doctor`), each isolated."""
    found: list[Diagnosis] = []
    for impl in host.pm.hook.agentframe_doctor.get_hookimpls():
        try:
            reported: Any = impl.function(config=cfg)  # a plugin's answer: check its shape
            found.extend(check for check in reported or [] if isinstance(check, Diagnosis))
        except Exception as err:
            found.append(
                Diagnosis(
                    f"plugin {impl.plugin_name}",
                    False,
                    f"its doctor check raised {type(err).__name__}: {err}",
                )
            )
    return found


#: Seconds the one-token probe may take, model start included (a cold llama-server loads).
PROBE_TIMEOUT = 300.0


def _model_check(cfg: Config, quick: bool) -> Diagnosis:
    """Build the configured adapter and ask it for one token: it fails wherever `run` would
    (a binary that crashes, a model that cannot load, an unreachable endpoint)."""
    import asyncio
    import time

    if quick:
        return Diagnosis("model", True, "not asked (--quick)")

    async def ask() -> str:
        from ..contract.llm import CompletionRequest
        from ..contract.model import Message
        from ..contract.protocols import Closeable

        adapter = cfg.adapter.build()
        try:
            started = time.monotonic()
            async with asyncio.timeout(PROBE_TIMEOUT):
                request = CompletionRequest([Message("user", "Say OK.")], max_tokens=1)
                completion = await adapter.complete(request)
            took = time.monotonic() - started
            return f"{cfg.adapter.name} answered {completion.content[:40]!r} in {took:.1f}s"
        finally:
            if isinstance(adapter, Closeable):
                await adapter.aclose()

    try:
        return Diagnosis("model", True, asyncio.run(ask()))
    except Exception as err:  # whatever stops the model is the finding
        return Diagnosis(
            "model",
            False,
            f"{cfg.adapter.name} failed a one-token request: {type(err).__name__}: {err}",
            "fix what the error says; `agentframe doctor --quick` skips this check",
        )
