"""Work dealt out to joblib's workers: how many there are, and batches of balanced cost."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

#: Batches per worker: enough that a worker slowed by other load leaves a short tail, few enough
#: that dispatch costs nothing next to the work in each (tens of milliseconds or more).
BATCHES_PER_WORKER = 16


def workers(n_jobs: int | None) -> int:
    """How many workers joblib would use for ``n_jobs`` (1: compute here, without joblib).

    ``None`` is joblib's default: one worker, unless a ``joblib.parallel_config`` in force
    says otherwise.

    Examples
    --------
    >>> from binaryeval._parallel import workers
    >>> workers(1), workers(3)
    (1, 3)
    """
    if n_jobs == 1:
        return 1
    if n_jobs is None and "joblib" not in sys.modules:
        return 1   # nothing has imported joblib, so no joblib.parallel_config is in force
    from joblib import effective_n_jobs

    return max(int(effective_n_jobs(n_jobs)), 1)


def deal(items: Sequence[T], cost: Callable[[T], float], n_workers: int) -> list[list[T]]:
    """Batches of balanced cost: the items dealt out round-robin from the costliest down.

    Examples
    --------
    >>> from binaryeval._parallel import deal
    >>> deal([1, 5, 3, 4], cost=float, n_workers=1)
    [[5], [4], [3], [1]]
    """
    n = min(len(items), BATCHES_PER_WORKER * n_workers)
    order = sorted(items, key=lambda item: -cost(item))
    return [order[i::n] for i in range(n)]


def run(fn: Callable[[list[T]], list[Any]], items: Sequence[T], cost: Callable[[T], float],
        n_jobs: int | None) -> list[Any]:
    """``fn`` over batches of ``items`` on joblib's workers; the results in the items' order.

    Sequential (one call of ``fn`` on every item, no joblib) when ``n_jobs`` means one worker
    or there are fewer than two items.

    Examples
    --------
    >>> from binaryeval._parallel import run
    >>> run(lambda batch: [2 * x for x in batch], [1, 2, 3], cost=float, n_jobs=1)
    [2, 4, 6]
    """
    n_workers = workers(n_jobs) if len(items) >= 2 else 1
    if n_workers == 1:
        return list(fn(list(items)))
    from joblib import Parallel, delayed

    index = list(range(len(items)))
    batches = deal(index, lambda i: cost(items[i]), n_workers)
    results = Parallel(n_jobs=n_jobs)(delayed(fn)([items[i] for i in b]) for b in batches)
    out: list[Any] = [None] * len(items)
    for b, values in zip(batches, results, strict=True):
        for i, v in zip(b, values, strict=True):
            out[i] = v
    return out
