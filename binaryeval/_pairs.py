"""How a pair of systems is oriented: one rule for every table of pairs.

Every result that reports pairs of systems (:func:`binaryeval.favi`,
:func:`binaryeval.fit_preferences`, :meth:`FaviResult.confusion
<binaryeval.favoritism.result.FaviResult.confusion>`) names them ``group_1`` and ``group_2`` and
puts first the system that comes first in *natural order*: runs of digits compare as numbers, the
rest as lower-case text, ties broken by the original spelling (``sys2`` before ``sys10``, ``ref-A``
before ``Sys1``).  A positive difference, Favi-Score or preference then always favours the same
system of a pair, whichever table it is read from.

Comparisons of the groups' own estimates (``compare()`` and ``plan()`` of a fit of ``alpha`` per
group) follow the fit's order of its groups instead (``order=``, by default the highest estimate
first): ``group_1`` is the group ranked higher, and a positive ``diff`` says the ranking holds.
``PreferenceFit.compare(order=...)``, asked for an order, does the same with the systems: its
pairs are turned by :func:`orient_codes` on their positions in that order (and
:func:`binaryeval._comparison.turn_pairs` turns their numbers with them).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .data import natural_order

__all__ = ["orient_codes", "orient_pair", "pair_indices", "system_order"]


def system_order(values: Iterable[Any]) -> tuple[str, ...]:
    """The distinct system names as text, in natural order (the order every pair follows).

    Examples
    --------
    >>> from binaryeval._pairs import system_order
    >>> system_order(["sys10", "b", "sys2", "A", "b"])
    ('A', 'b', 'sys2', 'sys10')
    """
    return tuple(natural_order({str(v) for v in values}))


def orient_pair(a: Any, b: Any) -> tuple[str, str, bool]:
    """The pair ``(a, b)`` in the package's orientation, and whether it was swapped.

    Returns ``(group_1, group_2, swapped)``: ``group_1`` comes first in natural order.  A rating
    of ``a`` against ``b`` (``+`` when ``a`` is better) is read for the oriented pair by reversing
    its sign when ``swapped``.

    Examples
    --------
    >>> from binaryeval._pairs import orient_pair
    >>> orient_pair("sys10", "sys2")
    ('sys2', 'sys10', True)
    >>> orient_pair("Online-B", "metricsys")   # case-insensitive: not ASCII order
    ('metricsys', 'Online-B', True)
    """
    a, b = str(a), str(b)
    if a == b:
        raise ValueError(f"a pair needs two different systems, got {a!r} twice")
    first = natural_order([a, b])[0]
    return (a, b, False) if first == a else (b, a, True)


def pair_indices(n_systems: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, j)``, ``i < j``, of every pair of ``n_systems`` systems in :func:`system_order`.

    With the systems in :func:`system_order`, ``i < j`` is the orientation of
    :func:`orient_pair`, pairs listed row by row.

    Examples
    --------
    >>> from binaryeval._pairs import pair_indices
    >>> [tuple(map(int, x)) for x in pair_indices(3)]
    [(0, 0, 1), (1, 2, 2)]
    """
    ia, ib = np.triu_indices(n_systems, k=1)
    return ia.astype(np.intp), ib.astype(np.intp)


def orient_codes(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`orient_pair` for many rows at once, on indices into :func:`system_order`.

    Returns ``(group_1, group_2, swapped)`` index arrays: the smaller index first.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval._pairs import orient_codes
    >>> lo, hi, swapped = orient_codes(np.array([2, 0]), np.array([1, 1]))
    >>> lo.tolist(), hi.tolist(), swapped.tolist()
    ([1, 0], [2, 1], [True, False])
    """
    a, b = np.asarray(a), np.asarray(b)
    return np.minimum(a, b), np.maximum(a, b), a > b
