"""Calibration of alpha with noisy raters (``studies/raters_calibration.py``).

The study's rows ship in ``vignettes/data/raters_calibration.csv``.  These tests re-run one batch
from its seed and compare it with the saved rows, and check the saved verdicts: the rater
model's central intervals cover the drawn ``alpha`` within two binomial standard errors of
their level, its ranks are not far from uniform, and the two shortcuts (one rater's labels, or
the majority vote, as the truth) cover it far less often.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import study_module
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "vignettes" / "data" / "raters_calibration.csv"


@pytest.fixture(scope="module")
def study():
    return study_module("raters_calibration")


@pytest.fixture(scope="module")
def saved():
    return pd.read_csv(CSV)


def test_one_batch_reproduces_the_saved_rows(study, saved):
    batch = 1
    again = study.run_batch(batch)
    want = saved[saved["batch"] == batch].reset_index(drop=True)
    assert len(again) == len(want) == study.BATCH * 2 * 3
    pd.testing.assert_frame_equal(again.drop(columns=["estimate", "alpha"]),
                                  want.drop(columns=["estimate", "alpha"]), check_dtype=False)
    np.testing.assert_allclose(again["estimate"], want["estimate"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(again["alpha"], want["alpha"], rtol=0, atol=1e-12)


def test_the_rater_model_covers_alpha_at_its_level(study, saved):
    table = study.summarise(saved)
    model = table.loc["rater model"]
    assert model["n"] >= 200
    for c, level in ((50, 0.5), (90, 0.9), (95, 0.95)):
        assert abs(model[f"coverage_{c}"] - level) <= 2 * model[f"se_{c}"], (c, model)
    # ranks of alpha among 99 thinned draws: uniform over 0..99 (10 bins, chi-square)
    ranks = saved.loc[saved["analysis"] == "rater model", "rank"].to_numpy()
    counts = np.bincount(ranks // 10, minlength=10)
    counts[9] += counts[10:].sum() if counts.size > 10 else 0
    assert stats.chisquare(counts[:10]).pvalue > 0.001


def test_the_shortcuts_cover_alpha_far_less_often(study, saved):
    table = study.summarise(saved)
    for shortcut in ("one rater as truth", "majority as truth"):
        row = table.loc[shortcut]
        assert row["coverage_95"] < 0.95 - 4 * row["se_95"], shortcut
        assert row["rmse"] > table.loc["rater model", "rmse"], shortcut
