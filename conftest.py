"""Docstring examples run as a reader runs them: pasted into a fresh Python session.

pytest's ``--doctest-modules`` runs each example inside a copy of its module's namespace, so an
example that uses ``fit`` or ``np`` without importing them passes here and fails for the reader.
Every collected example starts instead from an empty namespace, named like a script's
(``__main__``): what it needs, it imports itself.

An example runs as a reader would want to copy it: without a warning.  The package's own warnings
and pandas' performance warnings are errors in every doctest, so an example whose draws have not
converged, or whose grid is too coarse for its posterior, fails instead of teaching its reader to
look past a warning.  An example that shows a warning catches it and prints it.
"""

from __future__ import annotations

import pytest


def _public(item: pytest.Item) -> bool:
    """Whether a doctest documents the public API.

    Not a private module's or name's (a part starting with ``_``), not a test helper's; private
    examples run in their module.
    """
    from pathlib import Path

    if "tests" in Path(str(item.path)).parts:
        return False
    return not any(p.startswith("_") for p in item.dtest.name.split("."))


def fresh_namespace(items: list[pytest.Item]) -> int:
    """Replace the namespace of every public doctest among ``items`` by an empty one; how many."""
    from _pytest.doctest import DoctestItem

    count = 0
    for item in items:
        if isinstance(item, DoctestItem) and _public(item):
            item.dtest.globs = {"__name__": "__main__"}
            count += 1
    return count


#: warnings that fail a doctest (``filterwarnings`` entries)
DOCTEST_WARNINGS_ARE_ERRORS = ("error::binaryeval.errors.BinaryEvalWarning",
                               "error::pandas.errors.PerformanceWarning")


def warnings_are_errors(items: list[pytest.Item]) -> int:
    """Mark every doctest among ``items`` to fail on :data:`DOCTEST_WARNINGS_ARE_ERRORS`; how many."""
    from _pytest.doctest import DoctestItem

    count = 0
    for item in items:
        if isinstance(item, DoctestItem):
            for entry in DOCTEST_WARNINGS_ARE_ERRORS:
                item.add_marker(pytest.mark.filterwarnings(entry))
            count += 1
    return count


def pytest_collection_modifyitems(session, config, items):
    """Run the doctests among the collected items from an empty namespace, warnings as errors."""
    fresh_namespace(items)
    warnings_are_errors(items)
