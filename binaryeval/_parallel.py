"""Work dealt out to joblib's workers: how many there are, and batches of balanced cost."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

#: Batches per worker: enough that a worker slowed by other load leaves a short tail, few enough
#: that dispatch costs nothing next to the work in each (tens of milliseconds or more).
BATCHES_PER_WORKER = 16

#: The number of items below which a progress bar is not worth showing (``progress=None``).
BAR_FROM = 500


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(total: int, progress: bool | None, desc: str) -> Any:
    """A tqdm bar of ``total`` items, or a stand-in that shows nothing.

    ``progress``: True shows the bar, False never; None shows it for ``BAR_FROM`` items or
    more, and then only on a terminal (tqdm's ``disable=None``).  tqdm is imported only when
    a bar may show.

    Examples
    --------
    >>> from binaryeval._parallel import progress_bar
    >>> bar = progress_bar(10, None, "groups")   # too few items: nothing to show
    >>> bar.update(10); bar.close()
    """
    if progress is False or (progress is None and total < BAR_FROM):
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=None if progress is None else False)


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
        n_jobs: int | None, progress: bool | None = False, desc: str = "") -> list[Any]:
    """``fn`` over batches of ``items`` on joblib's workers; the results in the items' order.

    Sequential (``fn`` on every item, no joblib) when ``n_jobs`` means one worker or there
    are fewer than two items.  ``fn`` answers each item on its own, so the batching does not
    change the answers.  ``progress``, ``desc``: a bar of the items done
    (:func:`progress_bar`), moved on as each batch (here: each slice of some 1 % of the
    items) comes back.

    Examples
    --------
    >>> from binaryeval._parallel import run
    >>> run(lambda batch: [2 * x for x in batch], [1, 2, 3], cost=float, n_jobs=1)
    [2, 4, 6]
    """
    n_workers = workers(n_jobs) if len(items) >= 2 else 1
    bar = progress_bar(len(items), progress, desc)
    try:
        if n_workers == 1:
            if isinstance(bar, _NoBar):
                return list(fn(list(items)))
            out: list[Any] = []
            step = max(1, len(items) // 100)
            for i in range(0, len(items), step):
                out.extend(fn(list(items[i:i + step])))
                bar.update(min(step, len(items) - i))
            return out
        from joblib import Parallel, delayed

        index = list(range(len(items)))
        batches = deal(index, lambda i: cost(items[i]), n_workers)
        results = Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(fn)([items[i] for i in b]) for b in batches)
        out = [None] * len(items)
        for b, values in zip(batches, results, strict=True):
            for i, v in zip(b, values, strict=True):
                out[i] = v
            bar.update(len(b))
        return out
    finally:
        bar.close()
