"""Which sessions a prune deletes: the one rule every `PrunableStore` and `--dry-run` share."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from ..contract.model import RECORD_PREFIX, now_ns

__all__ = ["sessions_to_prune"]


def sessions_to_prune(
    newest_first: Sequence[tuple[str, int]],
    *,
    older_than: timedelta | None = None,
    keep_last: int | None = None,
) -> list[str]:
    """Ids of the sessions not updated within `older_than`, and of all but the `keep_last`
    most recently updated. `newest_first`: (id, updated_at ns), most recently updated first.

    `keep_last` counts conversations: a plugin's record (an id starting with `~`) never takes
    a conversation's place, and goes once it is older than every conversation kept."""
    doomed: set[str] = set()
    if older_than is not None:
        cutoff = now_ns() - int(older_than.total_seconds() * 1e9)
        doomed |= {sid for sid, updated_at in newest_first if updated_at < cutoff}
    if keep_last is not None:
        doomed |= _beyond(newest_first, keep_last)
    return sorted(doomed)


def _beyond(newest_first: Sequence[tuple[str, int]], keep_last: int) -> set[str]:
    """What `keep_last` deletes: nothing while at most that many conversations exist."""
    conversations = [(sid, t) for sid, t in newest_first if not sid.startswith(RECORD_PREFIX)]
    if len(conversations) <= keep_last:
        return set()
    oldest_kept = conversations[keep_last - 1][1] if keep_last else None
    records = {
        sid
        for sid, t in newest_first
        if sid.startswith(RECORD_PREFIX) and (oldest_kept is None or t < oldest_kept)
    }
    return records | {sid for sid, _ in conversations[keep_last:]}
