"""Conformance kits: one module per extension point, each a pytest base class.

Every module of this package is registered for pytest's assertion rewriting before it is
imported (found by listing the package, so a new module cannot be left out), so a failing check
shows the values it compared beside the words that say which rule broke.
"""

import pkgutil

import pytest

pytest.register_assert_rewrite(*(f"{__name__}.{m.name}" for m in pkgutil.iter_modules(__path__)))
