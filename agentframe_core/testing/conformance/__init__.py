"""Conformance kits: one module per extension point, each a pytest base class.

The kits' modules are registered for pytest's assertion rewriting before they are imported,
so a failing check shows the values it compared, not a bare AssertionError.
"""

import pytest

pytest.register_assert_rewrite(
    *(
        f"{__name__}.{kit}"
        for kit in (
            "adapter",
            "agents",
            "context",
            "retriever",
            "store",
            "store_processes",
            "tools",
        )
    )
)
