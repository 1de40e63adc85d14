"""The `agentframe` command line, and what a command plugin needs from it.

A plugin's `agentframe_commands` hook adds click commands that use `pass_app` (the plugin host
and the config in force), `handle_errors` (named errors, never a traceback), `emit_json` and
`warn`. These five names are the public surface for command plugins.

Commands are imported only when invoked, and plugin commands are listed from the plugin
manifest, so `agentframe --help` imports no plugin and almost nothing of the kernel.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from .app import App, emit_json, handle_errors, pass_app, warn

__all__ = ["App", "cli", "emit_json", "handle_errors", "main", "pass_app", "warn"]

#: Kernel commands: name -> (module:attribute, one-line help).
KERNEL_COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("agentframe_core.cli.run:run", "Answer one prompt to completion and exit."),
    "chat": ("agentframe_core.cli.run:chat", "Chat with an agent, one session, in a REPL."),
    "sessions": ("agentframe_core.cli.sessions:sessions", "List, show, export and prune sessions."),
    "agents": ("agentframe_core.cli.agents:agents", "List, show and check agent definitions."),
    "commands": ("agentframe_core.cli.slash:commands", "List and show slash commands (/name)."),
    "plugins": ("agentframe_core.cli.plugins:plugins", "List installed plugins and their parts."),
    "doctor": ("agentframe_core.cli.doctor:doctor", "Check the installation and the config."),
    "config": ("agentframe_core.cli.config:config", "Show, check or export the config schema."),
    "trust": ("agentframe_core.cli.trust:trust", "Trust a folder to run its own code (hooks...)."),
}

#: Commands that only show what there is: the code of an untrusted folder is left out, never
#: asked about (`assembly/trust.py`). The first word, or the first two for a group.
INSPECTION_COMMANDS = {
    ("doctor",),
    ("agents", "list"),
    ("agents", "show"),
    ("agents", "check"),
    ("commands", "list"),
    ("commands", "show"),
    ("config", "show"),
    ("config", "check"),
    ("mcp", "list"),
    ("skills", "list"),
    ("plugins",),
}


class AgentframeGroup(click.Group):
    """Resolves kernel commands lazily and plugin commands through the plugin host."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        words = [w for w in rest if not w.startswith("-")][:1]
        if name is not None and {(name,), (name, *words)} & INSPECTION_COMMANDS:
            from ..assembly.trust import inspect_only

            inspect_only()
        return name, command, rest

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*KERNEL_COMMANDS, *_manifest_commands()})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in KERNEL_COMMANDS:
            module, _, attr = KERNEL_COMMANDS[name][0].partition(":")
            command: click.Command | None = getattr(importlib.import_module(module), attr)
        else:
            command = _plugin_command(ctx, name)
        if command is not None:
            _accept_root_options(command)
        elif not ctx.resilient_parsing:
            _refuse_uninstalled(name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from ..assembly.plugins import installed_manifest

        kernel = [(name, help) for name, (_, help) in sorted(KERNEL_COMMANDS.items())]
        records, unseen = installed_manifest()
        plugins = sorted(_commands(records).items())
        with formatter.section("Commands"):
            formatter.write_dl(kernel)
        if not plugins and not unseen:
            return
        # --help imports no plugin, so it lists only the commands of plugins already seen
        with formatter.section("Plugin commands"):
            if plugins:
                formatter.write_dl(plugins)
            if unseen and not records:
                formatter.write_text("(listed here once `agentframe plugins` has looked)")
            elif unseen:
                formatter.write_text(
                    f"(and those of {', '.join(unseen)}, installed since this list was made: "
                    "listed once `agentframe plugins` has looked)"
                )


def _refuse_uninstalled(name: str) -> None:
    """A first-party plugin's command whose plugin is not installed: say what to install,
    rather than click's bare "No such command"."""
    from ..assembly.plugins import FIRST_PARTY_COMMANDS, install_hint

    hint = install_hint(name, FIRST_PARTY_COMMANDS)
    if hint is not None:
        distribution = FIRST_PARTY_COMMANDS[name][0]
        raise click.UsageError(f"no command {name!r}: {distribution} adds it. To get it: {hint}")


def _manifest_commands() -> dict[str, str]:
    from ..assembly.plugins import installed_manifest

    return _commands(installed_manifest()[0])


def _commands(records: dict[str, dict[str, Any]]) -> dict[str, str]:
    """{command: short help} of the plugins the manifest records."""
    found: dict[str, str] = {}
    for record in records.values():
        commands = record.get("commands", {})
        if isinstance(commands, dict):
            found.update({str(k): str(v) for k, v in commands.items() if k not in KERNEL_COMMANDS})
    return found


def _plugin_command(ctx: click.Context, name: str) -> click.Command | None:
    app = ctx.ensure_object(App)
    host = app.host
    owners = [p for p, r in host.manifest().items() if name in (r.get("commands") or {})]
    for attempt in (owners, None):  # the plugins the manifest names, then all of them
        if attempt == []:
            continue
        host.load(attempt)
        scratch = click.Group()
        host.add_commands(scratch)
        if name in scratch.commands:
            return scratch.commands[name]
    return None


def _set_root_option(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    """A root option given after a sub-command: it overrides the same option before it
    (`-v` adds to it)."""
    if value is None or value == 0:
        return
    app = ctx.ensure_object(App)
    if param.name == "config_file":
        app.configure(value, app.profile, app.verbose)
    elif param.name == "profile":
        app.configure(app.config_file, value, app.verbose)
    else:
        app.configure(app.config_file, app.profile, app.verbose + value)


def _root_options() -> list[click.Option]:
    """The root options as a sub-command accepts them (`run -v`, `sessions list -c FILE`)."""
    return [
        click.Option(
            ["--config", "-c", "config_file"],
            metavar="FILE",
            expose_value=False,
            callback=_set_root_option,
            help="Config file (as `agentframe --config`).",
        ),
        click.Option(
            ["--profile", "-p", "profile"],
            metavar="NAME",
            expose_value=False,
            callback=_set_root_option,
            help="Profile of the config file (as `agentframe --profile`).",
        ),
        click.Option(
            ["-v", "--verbose", "verbose"],
            count=True,
            expose_value=False,
            callback=_set_root_option,
            help="Log more (as `agentframe -v`).",
        ),
    ]


def _accept_root_options(command: click.Command) -> None:
    """Give `command`, and the sub-commands of a group, the root options it lacks. An option
    whose name or flags a command already uses is left out for it: its own wins (agent-mode
    serve's `--config`). A group that resolves sub-commands lazily has them on itself only."""
    if getattr(command, "_agentframe_root_options", False):
        return
    taken = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
    names = {param.name for param in command.params}
    for option in _root_options():
        if option.name not in names and not taken & set(option.opts):
            command.params.append(option)
    command._agentframe_root_options = True  # type: ignore[attr-defined]
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _accept_root_options(sub)


@click.group(cls=AgentframeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--config",
    "-c",
    "config_file",
    metavar="FILE",
    envvar="AGENTFRAME_CONFIG",
    help="Config file (default: ./agentframe.yaml, else the embedded default).",
)
@click.option(
    "--profile",
    "-p",
    metavar="NAME",
    envvar="AGENTFRAME_PROFILE",
    help="Profile of the config file to use.",
)
@click.option(
    "-v",
    "--verbose",
    count=True,
    help="Log more (-vv: debug, with what each model call is sent; -vvv: plugin discovery).",
)
@click.version_option(package_name="agentframe", prog_name="agentframe")
@click.pass_context
def cli(ctx: click.Context, config_file: str | None, profile: str | None, verbose: int) -> None:
    """agentframe: LLM agents built from plugins.

    With no config file, the embedded default stack runs: a local llama.cpp model, SQLite
    sessions and the default context builder. `agentframe config show` prints it.
    """
    ctx.ensure_object(App).configure(config_file, profile, verbose)


def main(argv: list[str] | None = None) -> Any:
    with handle_errors():
        return cli.main(args=argv, prog_name="agentframe", standalone_mode=True)
    return None  # pragma: no cover


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
