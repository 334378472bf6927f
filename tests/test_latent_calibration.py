"""Simulation-based calibration of the latent-truth model (studies/latent_calibration.py).

The full study's results ship in ``vignettes/data/latent_calibration.csv``; these tests check
that every coverage there lies in its binomial 99.9 % region, and re-run one batch of each
model to check that the saved numbers are what the script computes (the same seeds; the chains'
counts within Monte Carlo error on another machine, see ``tests/reruns.py``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import study_module
from reruns import assert_chain_counts_agree, assert_chain_sums_agree

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "vignettes" / "data" / "latent_calibration.csv"


def _study():
    return study_module("latent_calibration")


@pytest.fixture(scope="module")
def study():
    return _study()


@pytest.fixture(scope="module")
def saved():
    return pd.read_csv(CSV)


def test_every_coverage_lies_in_its_binomial_region(study, saved):
    table = study.summarise(saved)
    ours = table[table.method == "latent model"]
    # at least 4 settings per model, at least 500 replicates per setting
    assert ours.groupby("model").setting.nunique().min() >= 4
    assert ours.n.min() >= 500
    assert set(ours.level) == {0.5, 0.8, 0.95}
    bad = ours[~ours.inside]
    assert bad.empty, bad[["model", "setting", "quantity", "level", "coverage"]].to_string()
    # the peer was run on the same replicates
    peer = table[table.method == "PPI++ (one metric)"]
    assert len(peer) == len(ours[ours.quantity != "diff"])


def test_binomial_region(study):
    from scipy import stats

    low, high = study.coverage_region(500, 0.95)
    assert stats.binom.cdf(low - 1, 500, 0.95) <= 0.0005 < stats.binom.cdf(low, 500, 0.95)
    assert stats.binom.sf(high, 500, 0.95) <= 0.0005 < stats.binom.sf(high - 1, 500, 0.95)


@pytest.mark.parametrize("model,setting", [("preferences", 3), ("joint", 0)])
def test_a_saved_batch_is_reproduced(study, saved, model, setting):
    s = study.SETTINGS[model][setting]
    again = study.run_batch(model, s, 0)
    rows = saved[(saved.model == model) & (saved.setting == s.name) & (saved.batch == 0)]
    key = ["quantity", "method", "level"]
    merged = again.merge(rows, on=key, suffixes=("", "_saved"))
    assert len(merged) == len(again) == len(rows)
    # the simulated data and the peer's closed-form intervals: the same on any machine
    for col in ("n_paired", "n_human", "n_metric", "n"):
        np.testing.assert_array_equal(merged[col], merged[f"{col}_saved"])
    peer = merged[merged.method != "latent model"]
    np.testing.assert_array_equal(peer.covered, peer.covered_saved)
    np.testing.assert_allclose(peer.width_sum, peer.width_sum_saved, rtol=1e-8)
    # the sampler's: the same on the machine that wrote the file, within Monte Carlo error on
    # another (tests/reruns.py)
    ours = merged[merged.method == "latent model"]
    assert_chain_counts_agree(ours[["covered", "n_flagged"]], ours[["covered_saved",
                              "n_flagged_saved"]], ["covered", "n_flagged"])
    assert_chain_sums_agree(ours.width_sum, ours.width_sum_saved)
