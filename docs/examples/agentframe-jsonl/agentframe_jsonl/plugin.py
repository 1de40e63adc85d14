"""The plugin module named by the entry point: one hookimpl per extension point it fills."""

from agentframe_core import Register, hookimpl

from .store import JsonlStore, JsonlStoreOptions


@hookimpl
def agentframe_stores(register: Register) -> None:
    register("jsonl", JsonlStore, options=JsonlStoreOptions)
