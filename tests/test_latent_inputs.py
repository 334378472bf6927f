"""The latent-truth model on the same data in other forms: the answers do not depend on a
column's dtype, and the options of the exact binary model's results are taken (or refused by
name) where the latent fits answer the same questions.

Numbers: shares counted here from the rows, and the exact binary model on the same data.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import binaryeval as be


def _two_systems(seed: int = 1) -> pd.DataFrame:
    """Two systems with low rates of adequate outputs and a metric that says 1 more often for
    inadequate outputs than adequate ones in absolute numbers (so no level of it is the
    majority class of adequate outputs)."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, alpha in (("A", 0.3), ("B", 0.15)):
        n = 400
        truth = rng.random(n) < alpha
        rows.append(pd.DataFrame({
            "system": system, "human": np.where(np.arange(n) < 100, truth, np.nan),
            "m1": np.where(truth, rng.random(n) < 0.8, rng.random(n) < 0.35).astype(int),
            "m2": np.where(truth, rng.random(n) < 0.7, rng.random(n) < 0.3).astype(int)}))
    return pd.concat(rows, ignore_index=True)


def _fit(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return be.fit(*args, **kw)


@pytest.mark.parametrize("dtype", ["float", "float with a missing value", "category of floats"])
def test_a_0_1_metric_stored_as_float_reads_as_the_integer_one(dtype):
    data = _two_systems()
    col = data["m1"].astype(float)
    if dtype == "float with a missing value":      # what a CSV with an empty cell gives
        col = col.mask(data.index == len(data) - 1)
    elif dtype == "category of floats":
        col = col.astype("category")
    as_int = _fit("human ~ m1 + m2 | system", data, seed=1, draws=100, chains=2)
    other = _fit("human ~ m1 + m2 | system", data.assign(m1=col), seed=1, draws=100, chains=2)
    assert other.metric_levels["m1"] == as_int.metric_levels["m1"] == ("0", "1")
    # naive: the share of the rows m1 rates 1, counted here (as the exact binary model says)
    rated = data.assign(m1=col).dropna(subset=["m1"])
    shares = rated.groupby("system")["m1"].apply(lambda s: float((s.astype(float) == 1).mean()))
    naive = other.to_frame()["naive"]
    assert naive.to_dict() == pytest.approx(shares.to_dict(), abs=1e-12)
    binary = _fit("human ~ m1 | system", data.assign(m1=col)).to_frame()["naive"]
    assert naive.to_dict() == pytest.approx(binary.to_dict(), abs=1e-12)
    # and the metric's levels are labelled alike in the rates table
    assert set(other.rates().index.get_level_values("metric_output")) == {
        "0/0", "0/1", "1/0", "1/1"}
