"""The model frame of :func:`~binaryeval.fit`, one partition at a time.

A partition (a pandas frame, or one partition of a Dask frame) is *coded*: the formula's terms
evaluated, human and metric ratings as 0.0/1.0/NaN (or the metric's scores, when a threshold
turns them into ratings), the group of each row as a code.  A coded partition is *summarised*:
rows per group and cell (the eight counts of the model and "neither rating"), the row account,
and, for a threshold rule, the paired rows and the range of the scores.  Summaries merge (the
labels in order of first appearance), so a Dask frame gives the summary a pandas frame gives.

Checks that need every row (a column missing everywhere, a group without ratings) are made on
the merged summary; a partition's own problem (a string among the ratings, an unknown name) is
kept in its summary and raised in the order a pandas frame would raise it: the formula, the
grouping columns, the human ratings, the metric.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from .. import _dask
from .._directions import read_lower_is_better
from .._partition import (
    code_groups,
    evaluate_terms,
    merge_kinds,
    merge_labels,
    referenced_names,
    say_merged_labels,
)
from ..binary.model import SINGLE
from ..binary.roc import Cuts, choose_cuts
from ..data import (
    LeftOutRows,
    RowAccount,
    _numeric,
    _show,
    all_missing,
    as_binary,
    cell_codes,
    cells_frame,
    count_cells,
    scores,
)
from ..errors import BinaryEvalError, DataError, FormulaError, InputTypeError, ParameterError
from ..formula import ParsedFormula

# where a partition's problem arose, in the order a single frame's checks meet them: the
# formula; the human ratings (not numbers, infinite, not 0/1); the metric (not numbers or not
# 0/1, infinite)
_FORMULA = (0, 0)
_HUMAN_TYPE, _HUMAN_INF, _HUMAN_VALUE = (1, 0), (1, 1), (1, 2)
_METRIC_VALUE, _METRIC_INF = (2, 0), (2, 1)


def terms(parsed: ParsedFormula) -> tuple[str, str | None]:
    """The human term and the metric term (None for ``human ~ 1``)."""
    if len(parsed.lhs) != 1:
        raise FormulaError("the left side must be one human-rating term", parsed.text)
    return parsed.lhs_names[0], (parsed.rhs_names[0] if parsed.rhs else None)


def metric_directions(value: Any, parsed: ParsedFormula, *, thresholded: bool) -> tuple[str, ...]:
    """``lower_is_better`` of a binary human rating and one metric (``fit`` and ``roc``).

    Only a scalar metric that a threshold turns into ratings has a direction: the human rating is
    binary (a penalty becomes a rating in the formula), and so is an unthresholded metric.
    """
    lower = read_lower_is_better(value, parsed.lhs_names + parsed.rhs_names,
                                 example=(parsed.rhs_names or [None])[0])
    for name in lower:
        if name in parsed.lhs_names:
            raise ParameterError(f"lower_is_better={name!r}: the human rating is binary (1 = "
                                 "adequate); turn penalties into a rating in the formula, e.g. "
                                 f"I({name} == 0)")
        if not thresholded:
            raise ParameterError(f"lower_is_better={name!r} turns a scalar score around before "
                                 "threshold= makes ratings of it, and no threshold= is given: "
                                 f"if {name!r} is a score, add threshold= (a number, 'balanced' "
                                 "or 'youden'); if it is a binary metric whose 1 means "
                                 f"inadequate, flip it in the formula instead, e.g. I(1 - {name})")
    return lower


@dataclass
class Coded:
    """One partition coded: the rows that have a group, and what the others were."""

    human: np.ndarray
    metric: np.ndarray          # 0/1/NaN, or scores before a threshold
    group: np.ndarray           # codes into labels
    labels: list[str]
    n_rows: int
    n_missing_group: int = 0
    present: np.ndarray | None = None   # rows with a value: each grouping term, human, metric
    problem: tuple[tuple[int, int], BinaryEvalError] | None = None
    kinds: list | None = None           # each grouping column's values by their text
    index: pd.Index | None = None       # the partition's row labels (None: not asked for)
    kept: np.ndarray | None = None      # positions of the rows that have a group (None: all)
    dropped: np.ndarray | None = None   # positions of the rows without a group


def _binary_metric(raw: pd.Series, name: str) -> np.ndarray:
    arr, missing = _numeric(raw)
    if arr is None:
        # text (or other objects): the one check of ratings says what it holds and the fix
        as_binary(raw, name, "metric rating")
    bad = ~missing & (arr != 0.0) & (arr != 1.0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"metric column {name!r} is scalar (e.g. {_show(raw.iloc[i])} in row "
                        f"{_show(raw.index[i])}); give threshold= a number, 'balanced' or "
                        f"'youden', or binarise it in the formula, e.g. I({name} > 0.5)")
    return arr


def _scores(raw: pd.Series, name: str) -> np.ndarray:
    """A scalar metric's scores (a threshold turns them into ratings)."""
    return scores(raw, name, "metric column")


def code(parsed: ParsedFormula, data: pd.DataFrame, env: dict, scalar_metric: bool, *,
         rows: bool = False) -> Coded:
    """Evaluate the formula on one partition and code it; a problem is kept, not raised.

    With ``rows``, the coded partition keeps what it takes to say which rows were left out.
    """
    hname, mname = terms(parsed)
    n = len(data)
    coded = Coded(np.empty(0), np.empty(0), np.empty(0, dtype=np.intp), [], n,
                  index=data.index if rows else None)
    try:
        lhs, rhs, groups = evaluate_terms(parsed, data, env)
    except BinaryEvalError as exc:
        return replace(coded, problem=(_FORMULA, exc))
    h_raw = lhs[0]
    m_raw = rhs[0] if rhs else None
    coded.present = np.array([int(c.notna().sum()) for c in [*groups, h_raw]]
                             + [0 if m_raw is None else int(m_raw.notna().sum())], dtype=np.int64)
    # a column missing in every row is refused once all partitions are in (see check)
    try:
        human = (as_binary(h_raw, hname, "human rating").to_numpy() if coded.present[-2]
                 else np.full(n, np.nan))
    except InputTypeError as exc:
        return replace(coded, problem=(_HUMAN_TYPE, exc))
    except DataError as exc:
        infinite = np.isinf(_numeric(h_raw)[0]).any()
        return replace(coded, problem=(_HUMAN_INF if infinite else _HUMAN_VALUE, exc))
    try:
        if m_raw is None or not coded.present[-1]:
            metric = np.full(n, np.nan)
        else:
            metric = _scores(m_raw, mname) if scalar_metric else _binary_metric(m_raw, mname)
    except (DataError, InputTypeError) as exc:
        # a thresholded metric's text is reported before its infinities
        infinite = scalar_metric and not (m_raw.notna()
                                          & pd.to_numeric(m_raw, errors="coerce").isna()).any()
        return replace(coded, problem=(_METRIC_INF if infinite else _METRIC_VALUE, exc))
    if groups:
        coded.kinds = []
        codes, labels = code_groups(groups, coded.kinds)
        missing = codes < 0
        if missing.any():
            keep = np.flatnonzero(~missing)
            coded.n_missing_group = n - keep.size
            if rows:
                coded.kept, coded.dropped = keep, np.flatnonzero(missing)
            human, metric, codes = human[keep], metric[keep], codes[keep]
    else:
        codes, labels = np.zeros(n, dtype=np.intp), ([SINGLE] if n else [])
    coded.human, coded.metric, coded.group, coded.labels = human, metric, codes, labels
    return coded


@dataclass
class Summary:
    """What the fit needs from some partitions.

    Counts per group and cell, the row account, and (for a threshold rule) the paired rows and
    the range of the scores.
    """

    labels: list[str]
    n_rows: int = 0
    n_missing_group: int = 0
    present: np.ndarray | None = None
    cells: np.ndarray | None = None                  # (groups, 9): the eight counts, neither
    paired: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None   # human, score, group
    score_range: tuple[float, float] = (np.nan, np.nan)
    problem: tuple[tuple[int, int], BinaryEvalError] | None = field(default=None)
    kinds: list | None = None    # each grouping column's values by their text (said once)
    left_out: LeftOutRows | None = None   # which rows were left out (a pandas frame only)

    def merge(self, other: Summary) -> Summary:
        """The summary of these rows followed by ``other``'s."""
        labels, where = merge_labels(self.labels, other.labels)
        cells = None
        if self.cells is not None or other.cells is not None:
            cells = np.zeros((len(labels), 9), dtype=np.int64)
            if self.cells is not None:
                cells[:len(self.labels)] += self.cells
            if other.cells is not None:
                cells[where] += other.cells
        paired = self.paired
        if other.paired is not None:
            h, s, g = other.paired
            paired = ((h, s, where[g]) if self.paired is None else
                      tuple(np.concatenate(p) for p in zip(self.paired, (h, s, where[g]),
                                                           strict=True)))
        present = (other.present if self.present is None else self.present
                   if other.present is None else self.present + other.present)
        problem = self.problem
        if other.problem is not None and (problem is None or other.problem[0] < problem[0]):
            problem = other.problem
        lo = np.fmin(self.score_range[0], other.score_range[0])
        hi = np.fmax(self.score_range[1], other.score_range[1])
        return Summary(labels, self.n_rows + other.n_rows,
                       self.n_missing_group + other.n_missing_group, present, cells, paired,
                       (float(lo), float(hi)), problem, merge_kinds(self.kinds, other.kinds))


def _left_out(coded: Coded, cells: np.ndarray | None) -> LeftOutRows:
    """The rows of a coded partition left out: no group, or no rating (cell 8).

    ``cells`` is None when the counts say no row is unrated.
    """
    account = RowAccount(coded.n_rows)
    if coded.dropped is not None:
        account.exclude("missing group", rows=coded.dropped)
    unrated = np.flatnonzero(cells == 8) if cells is not None else np.empty(0, dtype=np.intp)
    if unrated.size:
        account.exclude("no rating (human and metric missing)",
                        rows=unrated if coded.kept is None else coded.kept[unrated])
    return account.left_out(coded.index)


def summarise(coded: Coded, *, paired: bool = False) -> Summary:
    """The counts (or, with ``paired``, the paired rows and the score range) of a partition."""
    out = Summary(coded.labels, coded.n_rows, coded.n_missing_group, coded.present,
                  problem=coded.problem, kinds=coded.kinds)
    if coded.problem is not None:
        return out
    if paired:
        both = ~np.isnan(coded.human) & ~np.isnan(coded.metric)
        out.paired = (coded.human[both], coded.metric[both], coded.group[both])
        if np.isfinite(coded.metric).any():
            out.score_range = (float(np.nanmin(coded.metric)), float(np.nanmax(coded.metric)))
    else:
        cells = cell_codes(coded.human, coded.metric)
        out.cells = count_cells(cells, coded.group, len(coded.labels))
        if coded.index is not None:
            # the unrated rows are looked for only when the counts say there are some
            out.left_out = _left_out(coded, cells if out.cells[:, 8].any() else None)
    return out


def summarise_partition(data: pd.DataFrame, parsed: ParsedFormula, env: dict, scalar: bool,
                        cuts: Cuts | None) -> Summary:
    """One partition of a Dask frame: coded, thresholded with ``cuts``, summarised."""
    coded = code(parsed, data, env, scalar)
    if scalar and cuts is None:
        return summarise(coded, paired=True)
    if cuts is not None and coded.problem is None:
        coded.metric = cuts.apply(coded.metric, coded.group, coded.labels)
    return summarise(coded)


def check(summary: Summary, parsed: ParsedFormula, binary_metric: bool) -> None:
    """Raise the first problem of the data, in the order a single pandas frame meets them."""
    if summary.n_rows == 0:
        raise DataError("data has no rows: nothing to fit")
    stage, problem = summary.problem if summary.problem is not None else (None, None)
    if stage == _FORMULA:
        raise problem
    hname, mname = terms(parsed)
    for i, term in enumerate(parsed.groups):
        if summary.present[i] == 0:
            raise DataError(f"grouping column {term.code!r} is missing (NaN) in every row; "
                            "fill it or drop it from the formula")
    if summary.present[-2] == 0:
        raise all_missing(hname, "human rating")
    if problem is not None:
        raise problem
    if mname is not None and summary.present[-1] == 0:
        # a scalar metric too: thresholded, it would leave a fit of the human ratings alone
        raise all_missing(mname, "metric rating" if binary_metric else "metric score")


def _say_merged(summary: Summary, parsed: ParsedFormula) -> None:
    """Say values of a grouping column read as one group, once for all partitions."""
    if summary.problem is None:
        say_merged_labels(parsed.group_names, summary.kinds)


def choose(summary: Summary, threshold: Any, *, lower_is_better: bool, column: str) -> Cuts:
    """The thresholds, from the paired rows of every partition."""
    human, score, group = summary.paired
    labels = np.asarray(summary.labels, dtype=object)
    return choose_cuts(human, score, labels[group], summary.labels, threshold,
                       lower_is_better=lower_is_better, column=column,
                       score_range=summary.score_range)


def summarise_data(parsed: ParsedFormula, data: Any, env: dict, *, threshold: Any,
                   lower_is_better: bool) -> tuple[Summary, Cuts | None]:
    """The summary of a pandas or Dask frame, checked, and the thresholds (if any).

    A Dask frame is read once, or twice with a threshold: first for the paired rows (from
    which the thresholds are chosen), then to count with the thresholds applied.
    """
    _, mname = terms(parsed)
    scalar = threshold is not None
    cuts = None
    if _dask.is_dask_frame(data):
        columns = _dask.needed_columns(data.columns, referenced_names(parsed), env)
        if scalar:
            first = _dask.map_reduce(data, summarise_partition, parsed, env, True, None,
                                     columns=columns)
            _say_merged(first, parsed)
            check(first, parsed, False)
            cuts = choose(first, threshold, lower_is_better=lower_is_better, column=mname)
        summary = _dask.map_reduce(data, summarise_partition, parsed, env, scalar, cuts,
                                   columns=columns)
        if not scalar:
            _say_merged(summary, parsed)
    else:
        coded = code(parsed, data, env, scalar, rows=True)
        if scalar:
            first = summarise(coded, paired=True)
            _say_merged(first, parsed)
            check(first, parsed, False)
            cuts = choose(first, threshold, lower_is_better=lower_is_better, column=mname)
            coded.metric = cuts.apply(coded.metric, coded.group, coded.labels)
        summary = summarise(coded)
        if not scalar:
            _say_merged(summary, parsed)
    check(summary, parsed, not scalar)
    return summary, cuts


def model_counts(summary: Summary, group_name: str) -> tuple[pd.DataFrame, RowAccount]:
    """The counts per group (groups in order of first appearance) and the row account.

    The account's counts; which rows they are is the summary's ``left_out``.
    """
    account = RowAccount(summary.n_rows)
    account.exclude("missing group", summary.n_missing_group)
    cells = summary.cells
    account.exclude("no rating (human and metric missing)", int(cells[:, 8].sum()))
    rated = cells[:, :8].sum(axis=1)
    if not rated.any():
        raise DataError("no row has a rating; check the columns in the formula")
    empty = np.flatnonzero(rated == 0)
    if empty.size:
        raise DataError(f"group {summary.labels[empty[0]]!r} has no rated rows (every human and "
                        "metric rating missing); drop it from the data")
    counts = cells_frame(cells, summary.labels)
    counts.index.name = group_name
    return counts, account
