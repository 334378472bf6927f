"""Shortcuts on the way from a frame to a fit, each against the general computation it replaces.

- categorical grouping columns are coded from each category's first row: the same codes and
  labels as pandas' factorize of the rows' label text (order of first appearance);
- integer count columns are checked by their range at once: the same table, and the same
  errors, as the value-by-value check;
- the contradiction check's bounds are those of ``paired_rates`` at the check's level.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import binaryeval as be
from binaryeval._partition import _factorize, code_groups
from binaryeval.binary._describe import CONTRADICTION_LEVEL, contradictions
from binaryeval.data import check_counts, label_text


def _reference_codes(values: pd.Series):
    """pandas' factorize of every row's label text (missing rows -1)."""
    text = label_text(values.astype(object))
    codes, uniques = pd.factorize(text)
    return codes, list(uniques)


@pytest.mark.parametrize("values", [
    pd.Categorical(["b", "a", None, "b", "c"], categories=["a", "b", "c", "d"]),
    pd.Categorical([2, 1, None, 1, 2], categories=[1, 2, 3]),
    pd.Categorical([None, None], categories=["x"]),
    pd.Categorical([], categories=["x"]),
    pd.Categorical(["1", 1, None, 2, "1", 1], categories=[1, "1", 2]),   # two categories, one text
    pd.Categorical.from_codes(np.random.default_rng(0).integers(-1, 40, 5000),
                              categories=[f"c{i}" for i in range(40)]),
])
def test_categorical_groups_coded_as_their_text(values):
    codes, uniques = _factorize(pd.Series(values))
    ref_codes, ref_uniques = _reference_codes(pd.Series(values))
    np.testing.assert_array_equal(codes, ref_codes)
    assert list(uniques) == ref_uniques
    joined, labels = code_groups([pd.Series(values)])
    np.testing.assert_array_equal(joined, ref_codes)
    assert labels == [str(u) for u in ref_uniques]


def test_integer_counts_checked_at_once_as_one_by_one():
    frame = pd.DataFrame({"human_pos": [1, 2], "human_total": [3, 4], "metric_pos": [5, 0],
                          "metric_total": [9, 0], "tp": [1, 0], "fn": [0, 1], "tn": [2, 2],
                          "fp": [0, 1]}, index=["a", "b"])
    as_objects = frame.astype(object)
    pd.testing.assert_frame_equal(check_counts(frame), check_counts(as_objects))
    for dtype in ("int64", "int32", "uint16"):
        assert check_counts(frame.astype(dtype))["metric_total"].dtype == np.int64
    bad = frame.copy()
    bad.loc["b", "tp"] = -2
    with pytest.raises(be.errors.CountsError, match=r"counts\['tp'\] for group 'b'=-2"):
        check_counts(bad)
    big = frame.copy()
    big.loc["a", "metric_total"] = 10**11
    with pytest.raises(be.errors.CountsError, match="exceeds the largest supported count"):
        check_counts(big)


def _reference_contradictions(fit) -> pd.DataFrame:
    """The check as written on the paired-rates frame and scipy.stats (before the shortcut)."""
    r = fit.paired_rates(CONTRADICTION_LEVEL)
    tail = (1 - CONTRADICTION_LEVEL) / 2
    c = fit.counts.loc[fit.groups]
    k = c["metric_pos"].to_numpy(dtype=float)
    m = c["metric_total"].to_numpy(dtype=float)
    lo = np.minimum(r["rho_lower"].to_numpy(), 1.0 - r["eta_upper"].to_numpy())
    hi = np.maximum(r["rho_upper"].to_numpy(), 1.0 - r["eta_lower"].to_numpy())
    with np.errstate(invalid="ignore", divide="ignore"):
        q_lo = np.where(k > 0, stats.beta.ppf(tail, k + 0.5, m - k + 0.5), 0.0)
        q_hi = np.where(k < m, stats.beta.ppf(1 - tail, k + 0.5, m - k + 0.5), 1.0)
        share = k / m
    usable = ((m > 0) & np.isfinite(r["rho_lower"].to_numpy())
              & np.isfinite(r["eta_lower"].to_numpy()))
    bad = usable & ((q_hi < lo) | (q_lo > hi))
    return pd.DataFrame({"metric_rate": share[bad], "reachable_lower": lo[bad],
                         "reachable_upper": hi[bad]},
                        index=pd.Index([fit.groups[i] for i in np.flatnonzero(bad)]))


@pytest.mark.parametrize("rates, listed", [
    # s2 (12 % accepted) is out of reach once eta is known to be 0.8 or 0.6 (1 - eta >= 0.2)
    ("estimate", ["s1"]), ("pooled", ["s1"]), ({"rho": 0.9, "eta": 0.8}, ["s1", "s2"]),
    ({"s1": {"rho": 0.9}, "s2": {"eta": 0.6}, "s3": {}}, ["s1", "s2"])])
def test_contradiction_check_is_the_paired_rates_check(rates, listed):
    # s1: every metric-only output accepted, though its paired rows say the metric rejects
    # most inadequate outputs (tn 20 of 22) and some adequate ones (rho about 0.9)
    counts = pd.DataFrame({"human_pos": [3, 1, 0], "human_total": [5, 4, 0],
                           "metric_pos": [1000, 60, 0], "metric_total": [1000, 500, 0],
                           "tp": [20, 8, 4], "fn": [2, 3, 1], "tn": [20, 9, 5], "fp": [2, 2, 1]},
                          index=["s1", "s2", "s3"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = be.fit_counts(counts, rates=rates)
    got = contradictions(fit)
    ref = _reference_contradictions(fit)
    pd.testing.assert_frame_equal(got, ref, rtol=1e-14)
    assert sorted(got.index) == listed
