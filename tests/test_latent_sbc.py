"""Simulation-based calibration and convergence of the latent-truth sampler.

``studies/latent_sbc.py`` runs the full study (500 data sets per design, parameters drawn
from the prior); its results ship in ``vignettes/data/latent_sbc.csv``.  These tests check the
saved verdicts (Talts et al. 2018: uniform ranks of the drawn values among the posterior draws,
coverage of central intervals at 50 / 90 / 95 %; the share of fits that would warn), re-run
batches of the preference model at a small scale (200 data sets in a few seconds) and check
that they reproduce the saved numbers (the chains' counts within Monte Carlo error on another
machine: ``tests/reruns.py``) and pass the same checks on their own.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import study_module
from reruns import assert_sbc_row_agrees
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "vignettes" / "data" / "latent_sbc.csv"


@pytest.fixture(scope="module")
def study():
    return study_module("latent_sbc")


@pytest.fixture(scope="module")
def saved():
    return pd.read_csv(CSV)


def test_the_saved_study_is_calibrated(study, saved):
    table = study.summarise(saved)
    assert set(table.design) == {d.name for d in study.DESIGNS}
    assert table.n.min() >= 500
    # every coverage inside its central 99.9 % binomial region
    inside = table[[c for c in table if c.startswith("inside_")]]
    assert inside.to_numpy().all(), table.loc[~inside.all(axis=1)].to_string()
    # ranks uniform: with 21 tests, p > 0.001 each (a family-wise level of about 2 %)
    assert (table.rank_p_value > 0.001).all(), table[["design", "quantity", "rank_p_value"]]


def test_the_saved_fits_are_free_of_convergence_warnings(study, saved):
    reported = saved[saved.quantity.isin(["diff", "alpha"])]
    per_design = reported.groupby("design")[["n", "n_flagged"]].sum()
    # at least 99 % of all fits would not warn (8 of 7,500 in the saved run), and at least 98 %
    # of every design's (the calibration sample, P7, is the hardest: 6 of 500)
    assert reported.n_flagged.sum() <= 0.01 * reported.n.sum()
    assert (per_design.n_flagged <= 0.02 * per_design.n).all(), per_design


@pytest.fixture(scope="module")
def rerun(study):
    design = next(d for d in study.DESIGNS if d.name == "P6")
    return pd.concat([study.run_batch(design, b) for b in range(4)], ignore_index=True)


def test_batches_reproduce_the_saved_ones(rerun, saved):
    for _, row in rerun.iterrows():
        match = saved[(saved.design == row.design) & (saved.batch == row.batch)
                      & (saved.quantity == row.quantity)]
        assert len(match) == 1
        assert_sbc_row_agrees(row, match.iloc[0])


def test_a_small_calibration_study_of_the_preference_model(study, rerun):
    # 200 data sets of a leaderboard pair (16 paired, 142 judge-only preferences), the
    # default sampler settings: ranks uniform, intervals covering, no convergence warning
    table = study.summarise(rerun)
    assert (table.n == 200).all()
    bins = rerun[[f"bin_{b:02d}" for b in range(20)]].groupby(rerun.quantity).sum()
    for quantity, counts in bins.iterrows():
        assert stats.chisquare(counts.to_numpy()).pvalue > 0.001, quantity
    inside = table[[c for c in table if c.startswith("inside_")]]
    assert inside.to_numpy().all(), table.to_string()
    assert rerun.n_flagged.sum() == 0 and rerun.n_flagged_any.sum() <= 2
