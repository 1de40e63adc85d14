"""`agentframe doctor`: what is installed, what the config resolves to, what to fix."""

from __future__ import annotations

import platform
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import click

from ..contract.diagnosis import Diagnosis
from .app import App, emit_json, pass_app

if TYPE_CHECKING:
    from ..contract.configtypes import Config


Check = Diagnosis


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@click.option("--quick", is_flag=True, help="Skip starting the model and asking it for one token.")
@pass_app
def doctor(app: App, as_json: bool, quick: bool) -> None:
    """Check the installation and the config in force, and ask the configured model for one
    token (unless --quick); exit 1 if anything is broken."""
    from ..support.redact import redact_data, redact_text

    checks = [
        Check("python", True, f"{platform.python_version()} ({platform.python_implementation()})")
    ]
    checks += _plugin_health(app)
    checks += _config_checks(app, quick)
    broken = [c for c in checks if not c.ok]
    if as_json:
        shown = [redact_data(asdict(c)) for c in checks]  # a plugin's detail may hold a URL
        emit_json({"ok": not broken, "checks": shown})
    else:
        for check in checks:
            mark = click.style("ok  ", fg="green") if check.ok else click.style("FAIL", fg="red")
            click.echo(f"{mark} {check.name}: {redact_text(check.detail)}")
            if check.fix:
                click.echo("     " + redact_text(check.fix).replace("\n", "\n     "))
        summary = "everything looks fine" if not broken else f"{len(broken)} problem(s)"
        click.secho(summary, fg="green" if not broken else "red", bold=True)
    if broken:
        raise SystemExit(1)


def _plugin_health(app: App) -> list[Check]:
    """Each installed plugin: what it registers, or why it failed to load."""
    checks = []
    for info in app.host.plugins():
        label = f"plugin {info.name}"
        if info.errors:
            detail = "; ".join(f"{e.stage}: {e.error}" for e in info.errors)
            fix = (
                f"reinstall or remove {info.distribution or info.module}; "
                "`agentframe plugins --traceback` shows the traceback"
            )
            checks.append(Check(label, False, detail, fix))
        else:
            provided = "; ".join(f"{k}: {', '.join(v)}" for k, v in info.registers.items())
            detail = f"{info.distribution or '?'} {info.version or ''} {provided}".strip()
            checks.append(Check(label, True, detail))
    return checks


def _config_checks(app: App, quick: bool) -> list[Check]:
    """The config in force, its agents, what each plugin it uses needs, and (unless `quick`)
    one token from its model."""
    from ..contract.errors import ConfigError

    path = app.config_path()
    source = str(path) if path else "embedded default"
    try:
        cfg = app.config()
    except ConfigError as err:
        detail = f"{source}: {len(err.issues)} problem(s)"
        return [Check("config", False, detail, "\n".join(str(issue) for issue in err.issues))]
    parts = [
        f"adapter={cfg.adapter.name}",
        f"store={cfg.store.name}",
        f"context={cfg.context.name}",
    ]
    parts += [f"tools={p.name}" for p in cfg.tools]
    parts += [f"retriever={p.name}" for p in cfg.retrievers]
    profile = f" (profile {cfg.profile})" if cfg.profile else ""
    checks = [Check("config", True, f"{source}{profile}: {' '.join(parts)}")]
    checks.append(_agents_check(app, cfg))
    checks.append(_tools_check(cfg))
    checks.extend(_plugin_checks(app, cfg))
    checks.append(_model_check(cfg, quick))
    return checks


def _agents_check(app: App, cfg: Config) -> Check:
    from pathlib import Path

    from ..assembly.catalog import find_agents

    catalog = find_agents(app.host, cfg, Path.cwd())
    names = ", ".join(catalog.names()) or "none"
    if not catalog.errors:
        return Check("agents", True, names)
    return Check(
        "agents",
        False,
        f"{len(catalog.errors)} definition file(s) cannot be used; usable: {names}",
        "\n".join(str(error) for error in catalog.errors)
        + "\n(`agentframe agents check` for more)",
    )


def _tools_check(cfg: Config) -> Check:
    """How many tools the dispatchers offer, and how many a run shows (tool selection)."""
    import asyncio

    from ..assembly.toolcheck import offered_tools
    from ..contract.protocols import Closeable
    from ..engine.toolselect import SEARCH_TOOL, reason, visible_limit

    try:
        total = len({tool.name for _, tool in asyncio.run(offered_tools(cfg))})
    except Exception as err:  # a dispatcher that cannot start: its own check says more
        return Check("tools", False, f"could not be listed: {type(err).__name__}: {err}")
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
        return Check("tools", True, f"{total} tool(s), all shown to the model")
    return Check(
        "tools",
        True,
        f"{total} tool(s); a run shows at most {limit} of them ({reason(setting, window)}) "
        f"and {SEARCH_TOOL} for the rest",
    )


def _plugin_checks(app: App, cfg: Config) -> list[Check]:
    """What each plugin says about the stack (`agentframe_doctor`), each isolated."""
    found: list[Check] = []
    for impl in app.host.pm.hook.agentframe_doctor.get_hookimpls():
        try:
            reported: Any = impl.function(config=cfg)  # a plugin's answer: check its shape
            found.extend(check for check in reported or [] if isinstance(check, Diagnosis))
        except Exception as err:
            found.append(
                Check(
                    f"plugin {impl.plugin_name}",
                    False,
                    f"its doctor check raised {type(err).__name__}: {err}",
                )
            )
    return found


#: Seconds the one-token probe may take, model start included (a cold llama-server loads).
PROBE_TIMEOUT = 300.0


def _model_check(cfg: Config, quick: bool) -> Check:
    """Build the configured adapter and ask it for one token: it fails wherever `run` would
    (a binary that crashes, a model that cannot load, an unreachable endpoint)."""
    import asyncio
    import time

    if quick:
        return Check("model", True, "not asked (--quick)")

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
        return Check("model", True, asyncio.run(ask()))
    except Exception as err:  # whatever stops the model is the finding
        return Check(
            "model",
            False,
            f"{cfg.adapter.name} failed a one-token request: {type(err).__name__}: {err}",
            "fix what the error says; `agentframe doctor --quick` skips this check",
        )
