"""Which sessions a prune deletes: the one rule every `PrunableStore` and `--dry-run` share."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from ..contract.model import now_ns

__all__ = ["sessions_to_prune"]


def sessions_to_prune(
    newest_first: Sequence[tuple[str, int]],
    *,
    older_than: timedelta | None = None,
    keep_last: int | None = None,
) -> list[str]:
    """Ids of the sessions not updated within `older_than`, and of all but the `keep_last`
    most recently updated. `newest_first`: (id, updated_at ns), most recently updated first."""
    doomed: set[str] = set()
    if older_than is not None:
        cutoff = now_ns() - int(older_than.total_seconds() * 1e9)
        doomed |= {sid for sid, updated_at in newest_first if updated_at < cutoff}
    if keep_last is not None:
        doomed |= {sid for sid, _ in newest_first[keep_last:]}
    return sorted(doomed)
