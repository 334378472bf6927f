"""Hybrid super-sampling (Graham & Liu 2016): many artificial systems from a few real ones."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate
from ..data import LeftOutRows, _show
from ..errors import DataError, ParameterError
from ._args import seed_arg
from .frame import _numeric

__all__ = ["hybrid_supersample"]


def hybrid_supersample(data: pd.DataFrame, *, system: str, item: str, human: str,
                       metrics: Sequence[str], n_systems: int = 10000, seed: int | None = None,
                       rater: str | None = None, chunk_size: int = 500) -> pd.DataFrame:
    """Hybrid super-sampling of systems (Graham & Liu 2016).

    Each hybrid system takes a random pair of distinct real systems ``(a, b)`` and, for every
    segment, the output of ``a`` or of ``b`` with probability 1/2.  Its human and metric scores
    are the means over segments of the chosen outputs' segment scores (for corpus-level metrics
    such as BLEU, supply segment-level scores: the hybrid's score is their mean).

    Parameters
    ----------
    data : DataFrame
        Segment-level scores, one row per (system, item) (or per rating when ``rater`` is given).
    system, item : str
        Columns naming the system and the segment.
    human : str
        Column of the human score.
    metrics : sequence of str
        Metric columns.
    n_systems : int
        Number of hybrid systems.
    seed : int, optional
        Seed of :func:`numpy.random.default_rng` (or a numpy Generator); the output does not
        depend on ``chunk_size`` nor on the order of the rows (systems and items are sorted
        before drawing).  ``None`` draws fresh entropy and reports it in ``attrs["seed"]``:
        passing that value back rebuilds the same hybrids.
    rater : str, optional
        Column naming the rater: human scores are then standardised (z-scores) per rater and the
        ratings of one (system, item) averaged.  Without it the human scores are used as given.
    chunk_size : int
        Hybrids built per block (working memory about ``chunk_size x items`` floats).

    Returns
    -------
    DataFrame
        One row per hybrid: ``system`` ("hybrid_00001", ...), ``system_a``, ``system_b``, the human
        column and the metric columns, ready for :func:`~binaryeval.correlation.correlate`.
        attrs: ``seed``, ``n_items``, ``items_dropped`` (items with a missing value for some
        system), ``n_real_systems``, and the row account of ``data``: ``n_rows``, ``n_used``,
        ``n_excluded`` and ``excluded`` (by reason: ``"incomplete item"``, the rows of the
        dropped items; with ``rater``, ``"missing score"`` for ratings with a NaN score whose
        item the other ratings kept), and ``excluded_rows``: which rows, a
        :class:`~binaryeval.data.LeftOutRows` whose ``series()`` is the ``excluded_rows`` of
        every result (a Series named ``reason``: the reason of each left-out row indexed by the
        row's label in ``data``, its index name kept, in data order, whose ``value_counts()``
        are ``excluded``; empty when no row was left out).  Not the Series itself, which would
        stop pandas from joining the frame (it compares the ``attrs`` of the frames it
        concatenates or merges, and two Series have no single truth value).

    Raises
    ------
    DataError
        Missing or duplicated columns, duplicated (system, item) rows without ``rater``, fewer
        than 2 systems, or systems that do not share the same items ("mismatched systems"); a
        row without a system, item or rater (NaN there), and scores that are text, dates or
        infinite (the column and the row are named).  A NaN score is a missing score: its item
        is dropped for every system and counted in ``items_dropped``.
    ParameterError
        ``human``, ``metrics``, ``system``, ``item`` or ``rater`` not naming columns, or one
        column named for two of them; ``n_systems`` whose table would not fit in memory.

    Examples
    --------
    >>> from binaryeval import hybrid_supersample
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> d = pd.DataFrame({"sys": np.repeat(list("ABCD"), 50), "seg": np.tile(range(50), 4)})
    >>> d["mqm"] = rng.normal(size=200); d["comet"] = d["mqm"] + rng.normal(size=200)
    >>> h = hybrid_supersample(d, system="sys", item="seg", human="mqm", metrics=["comet"],
    ...                        n_systems=100, seed=1)
    >>> h.shape
    (100, 5)

    Which rows were left out: an item without a score for one system is dropped for all:

    >>> d.loc[[3, 53], "comet"] = np.nan     # item 3 of systems A and B
    >>> h = hybrid_supersample(d, system="sys", item="seg", human="mqm", metrics=["comet"],
    ...                        n_systems=100, seed=1)
    >>> h.attrs["excluded"]
    {'incomplete item': 4}
    >>> h.attrs["excluded_rows"].series()
    3      incomplete item
    53     incomplete item
    103    incomplete item
    153    incomplete item
    Name: reason, dtype: object
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    elif isinstance(metrics, Sequence | pd.Index | np.ndarray):
        metrics = list(metrics)
    else:
        raise ParameterError(f"metrics={metrics!r}: name the metric columns, a str or a list of "
                             "str, e.g. metrics=['bleu', 'chrf']")
    n_systems = _validate.size(n_systems, "n_systems")
    chunk_size = _validate.size(chunk_size, "chunk_size")
    seed = seed_arg(seed)
    values = [human, *metrics]
    # the parents' indices, the scores, and the names ("hybrid_00001" and two systems' labels)
    _validate.memory(n_systems * (16.0 + 8.0 * len(values) + 3 * 8 + 70),
                     f"hybrid_supersample(n_systems={n_systems:,})",
                     "build fewer hybrids (Graham & Liu 2016 use 10,000), or several sets with "
                     "different seeds")
    cube, systems, complete, kept = _segment_cube(data, system, item, values, rater)
    in_kept = data[item].isin(kept).to_numpy()
    # with rater, a rating without a score whose item the other ratings kept
    missing = (in_kept & data[values].isna().any(axis=1).to_numpy() if rater
               else np.zeros(len(data), dtype=bool))
    n_rows, n_incomplete, n_missing = len(data), int((~in_kept).sum()), int(missing.sum())
    excluded = {k: v for k, v in (("incomplete item", n_incomplete), ("missing score", n_missing))
                if v}
    left_out = ~in_kept | missing   # the rows in data order, each with its reason
    rows = LeftOutRows(data.index[left_out], np.where(missing[left_out], 1, 0).astype(np.int16),
                       ("incomplete item", "missing score"))
    out, a, b = _draw_hybrids(cube, n_systems, seed, chunk_size)
    width = len(str(n_systems))
    result = pd.DataFrame(out, columns=values)
    result.insert(0, "system_b", np.asarray(systems)[b])
    result.insert(0, "system_a", np.asarray(systems)[a])
    result.insert(0, "system", [f"hybrid_{i + 1:0{width}d}" for i in range(n_systems)])
    result.attrs.update(seed=seed, n_items=cube.shape[1], items_dropped=int((~complete).sum()),
                        n_real_systems=len(systems), n_rows=n_rows,
                        n_used=n_rows - n_incomplete - n_missing,
                        n_excluded=n_incomplete + n_missing, excluded=excluded,
                        excluded_rows=rows,
                        method="hybrid super-sampling (Graham & Liu 2016)")
    return result


def _column_names(system: Any, item: Any, values: list[Any], rater: Any) -> None:
    """Each argument names one column, and no column plays two parts."""
    roles = [("system", system), ("item", item), ("human", values[0])]
    roles += [("metrics", m) for m in values[1:]] + [("rater", rater)] * (rater is not None)
    for role, name in roles:
        if not isinstance(name, Hashable):
            raise ParameterError(f"{role} holds {name!r}, not a column name; name the columns of "
                                 "data, e.g. human='mqm', metrics=['bleu', 'chrf']")
    if len(values) < 2:
        raise ParameterError("metrics must name at least one metric column")
    keys = [("system", system), ("item", item)] + [("rater", rater)] * (rater is not None)
    for a, (role, name) in enumerate(keys):
        for other, name2 in keys[a + 1:] + [("a score column", v) for v in values]:
            if name == name2:
                raise ParameterError(f"{role}={name!r} is also {other}: the system, item and "
                                     "rater columns and the score columns must be different "
                                     "columns")


def _segment_scores(data: pd.DataFrame, system: str, item: str, values: list[str],
                    rater: str | None) -> pd.DataFrame:
    """Checked numeric scores, one row per (system, item) (ratings averaged with ``rater``).

    Scores must be numbers (text, dates and infinities are refused naming the column and the
    row; NaN is a missing score, whose item is then dropped); a row without a system, item or
    rater is refused, since it cannot be placed.
    """
    if not isinstance(data, pd.DataFrame):
        raise DataError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    dup = data.columns[data.columns.duplicated()].unique().tolist()
    if dup:
        raise DataError(f"data has duplicated column names {dup}; rename or drop the copies")
    _column_names(system, item, values, rater)
    cols = [system, item, *values] + ([rater] if rater is not None else [])
    missing = [c for c in cols if c not in data.columns]
    if missing:
        raise DataError(f"columns {missing} are not in data; the columns are {list(data.columns)[:12]}")
    if len(set(values)) != len(values):
        raise DataError(f"human and metric columns must be distinct, got {values[0]!r} and "
                        f"{values[1:]}")
    frame = data[cols].copy()
    for role, key in (("system", system), ("item", item), ("rater", rater)):
        if key is None:
            continue
        missing = frame[key].isna().to_numpy()
        if missing.any():
            row = frame.index[int(np.argmax(missing))]
            raise DataError(f"{role} column {key!r} is missing (NaN) in row {_show(row)} "
                            f"({int(missing.sum())} row(s) in all): such a row belongs to no "
                            f"{role}; fill the value or drop those rows, e.g. "
                            f"data.dropna(subset=[{key!r}])")
    frame[values] = _numeric(frame[values].copy())
    human = values[0]
    if rater is not None:
        g = frame.groupby(rater)[human]
        sd = g.transform("std")
        if (sd.fillna(0) == 0).any():
            bad = frame.loc[sd.fillna(0) == 0, rater].unique()[:5].tolist()
            raise DataError(f"raters {bad} give a single or constant score: they cannot be "
                            "standardised; drop them or pass rater=None")
        frame[human] = (frame[human] - g.transform("mean")) / sd
        frame = frame.groupby([system, item], sort=True)[values].mean().reset_index()
    elif frame.duplicated([system, item]).any():
        dup = frame.loc[frame.duplicated([system, item]), [system, item]].iloc[0].tolist()
        raise DataError(f"(system, item) = ({', '.join(_show(v) for v in dup)}) occurs more than "
                        "once; pass rater=... to average several ratings, or remove duplicates")
    return frame


def _segment_cube(data: pd.DataFrame, system: str, item: str, values: list[str],
                  rater: str | None) -> tuple[np.ndarray, pd.Index, np.ndarray, pd.Index]:
    """Scores as a (systems, complete items, values) array; the systems, complete mask, items."""
    frame = _segment_scores(data, system, item, values, rater)
    # sorted, so that the same seed gives the same hybrids whatever the order of the rows
    systems = _sorted_keys(frame[system])
    items = _sorted_keys(frame[item])
    if len(systems) < 2:
        raise DataError(f"hybrids need at least 2 systems, got {len(systems)}")
    counts = frame.groupby(system)[item].nunique()
    if counts.nunique() != 1 or len(frame) != len(systems) * len(items):
        short = counts[counts < len(items)].index[:5].tolist()
        raise DataError(f"mismatched systems: systems {short} lack rows for some of the {len(items)} "
                        "items; every system must be scored on the same items (give missing scores "
                        "as NaN rows, which are dropped per item)")
    frame = frame.set_index([system, item])
    cube = np.stack([frame[v].unstack(item).reindex(index=systems, columns=items).to_numpy(float)
                     for v in values], axis=-1)  # (systems, items, vars)
    complete = np.isfinite(cube).all(axis=(0, 2))
    if not complete.any():
        raise DataError("no item has complete scores for every system and column")
    return np.ascontiguousarray(cube[:, complete, :]), systems, complete, items[complete]


def _sorted_keys(column: pd.Series) -> pd.Index:
    """The distinct values of ``column``, sorted (by type name and text when they do not compare)."""
    keys = pd.Index(pd.unique(column))
    try:
        return keys.sort_values()
    except TypeError:
        return pd.Index(sorted(keys, key=lambda v: (type(v).__name__, str(v))), dtype=object)


def _draw_hybrids(cube: np.ndarray, n_systems: int, seed, chunk_size: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean scores of ``n_systems`` hybrids and the indices of their two parent systems."""
    s, n_items, n_values = cube.shape
    rng = np.random.default_rng(seed)
    a = rng.integers(0, s, size=n_systems)
    b = rng.integers(0, s - 1, size=n_systems)
    b = b + (b >= a)  # distinct second system, uniform over the others
    words = -(-n_items // 64)  # 64 coin flips per raw draw of the bit generator
    bitgen = rng.bit_generator
    out = np.empty((n_systems, n_values))
    for start in range(0, n_systems, chunk_size):
        stop = min(start + chunk_size, n_systems)
        # raw 64-bit draws are consumed row by row, so the result does not depend on chunk_size
        raw = bitgen.random_raw((stop - start) * words).astype("<u8", copy=False)
        bits = np.unpackbits(raw.view(np.uint8).reshape(stop - start, words * 8), axis=1,
                             bitorder="little")[:, :n_items]
        take_a = bits.astype(float)
        acc = np.zeros((stop - start, n_values))
        ca, cb = a[start:stop], b[start:stop]
        for k in range(s):
            rows = np.flatnonzero(ca == k)
            if rows.size:
                acc[rows] += take_a[rows] @ cube[k]
            rows = np.flatnonzero(cb == k)
            if rows.size:
                acc[rows] += (1.0 - take_a[rows]) @ cube[k]
        out[start:stop] = acc / n_items
    return out, a, b
