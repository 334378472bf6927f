"""The subsample study of the preferences vignette (``studies/preference_subsample.py``).

The study fits the corrected preference model to random subsamples of the expert ratings of
WMT21 en-de and saves one row per number of kept segments in
``vignettes/data/preference_subsample.csv``, which the vignette reads.  Here one saved row is
re-run from its seed (every row has its own random stream) and must come out the same (the
sampler's calls within Monte Carlo error on another machine: ``tests/reruns.py``), and the
saved rows must say what the vignette's text says of them.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import study_module
from reruns import assert_chain_counts_agree, assert_chain_sums_agree

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "vignettes" / "data" / "preference_subsample.csv"


@pytest.fixture(scope="module")
def study():
    return study_module("preference_subsample")


@pytest.fixture(scope="module")
def saved():
    return pd.read_csv(CSV)


def test_the_saved_rows_are_the_studys_design(study, saved):
    want = [(name, " + ".join(m), n, repeats, draws[len(m)], seed)
            for name, sets, sizes, repeats, draws, seed in study.STUDIES for m in sets for n in sizes]
    got = list(saved[["study", "metrics", "n", "repeats", "draws", "seed"]].itertuples(
        index=False, name=None))
    assert got == want
    np.testing.assert_allclose(saved["share"], saved["n"] / 527, rtol=1e-9)


def test_every_saved_row_converged(saved):
    # the package's ConvergenceWarning rule over the shares of every row's tables: a row of
    # unconverged draws once showed a second metric's gain that was not there
    assert (saved["rhat"] <= 1.01).all(), saved.loc[saved["rhat"] > 1.01, ["metrics", "n", "rhat"]]
    assert (saved["ess"] >= 400).all(), saved.loc[saved["ess"] < 400, ["metrics", "n", "ess"]]


def test_one_saved_row_is_reproduced(study, saved):
    # the cheapest row (BLEU alone, 100 kept segments, 4 repeats x 45 pairs, 1,000 draws): the
    # subsamples, the sampler and the human-only calls all come from the row's own seeds
    prefs = study.prepare()
    # the full evaluation: 527 rated segments of 1,002, 45 pairs
    assert prefs.human.shape == (45, 1002) and len(prefs.rated) == 527
    assert (prefs.full_counts.sum(axis=1) == 527).all()
    again = study.subsample_row(prefs, ["bleu"], 100, repeats=4, draws=1000, seed=7)
    want = saved[(saved["study"] == "combine") & (saved["metrics"] == "bleu")
                 & (saved["n"] == 100)]
    assert len(want) == 1
    want = want.iloc[0]
    for key in ("metrics", "n", "repeats", "draws", "seed"):
        assert again[key] == want[key], key
    # the share kept and the human-only calls (exact Dirichlet draws) on any machine; the
    # sampler's calls and sds on the machine that wrote the file, within Monte Carlo error on
    # another (tests/reruns.py): a call is a count of the 180
    for key in ("share", "human_only"):
        assert again[key] == pytest.approx(want[key], rel=1e-8, abs=1e-12), key
    calls = 4 * 45
    for key in ("corrected", "corrected_sign"):
        assert_chain_counts_agree(again[key] * calls, want[key] * calls, [key])
    assert_chain_sums_agree(again["sd"], want["sd"])


def test_the_calls_of_a_known_posterior(study):
    module = study
    # classes: 0 first better, 1 tie within the tolerance, 2 second better, -1 missing
    np.testing.assert_array_equal(module.classes(np.array([0.5, 0.1, -0.1, -0.5, np.nan]), 0.2),
                                  [0, 1, 1, 2, -1])
    # one pair's draws all above 0, one all below, one across 0
    d = np.stack([np.linspace(0.1, 0.2, 101), np.linspace(-0.2, -0.1, 101),
                  np.linspace(-0.1, 0.1, 101)], axis=1)
    np.testing.assert_array_equal(module.call(d), [1, -1, 0])
    # Dirichlet(1 + counts): 300 of 400 for the first system is a clear call; 5 against 4 is not
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(module.human_call(np.array([[300, 50, 50], [5, 0, 4]]), rng),
                                  [1, 0])


def test_the_saved_rows_say_what_the_vignette_says(saved):
    chrf = saved[saved["study"] == "subsample"].set_index("n")
    # with chrF the corrected calls agree no more often than the kept expert ratings alone
    # (within the noise of 8 x 45 calls, sd about 0.025 at 75 %), at every size
    assert (chrf["corrected"] - chrf["human_only"]).abs().max() <= 0.05
    # about three pairs in four at half the ratings; 95 % only with all 527 kept
    assert 0.70 <= chrf.loc[264, "corrected"] <= 0.80
    assert list(chrf.index[chrf["corrected"] >= 0.95]) == [527]
    # the figure's description: from about 0.5 at 50 segments
    assert 0.45 <= chrf.loc[50, "corrected"] <= 0.6
    # the posterior sd of diff shrinks as segments are kept
    assert chrf["sd"].is_monotonic_decreasing


def test_the_combined_rows_say_what_the_vignette_says(saved):
    # "A second metric adds nothing here": with converged draws, chrF with BLEU or TER has the
    # posterior sd of diff of the better metric alone, at each number of kept segments
    combine = saved[saved["study"] == "combine"].set_index(["metrics", "n"])["sd"]
    for n in (100, 264):
        alone = min(combine[(m, n)] for m in ("chrf", "bleu", "ter"))
        for pair in ("chrf + bleu", "chrf + ter"):
            assert combine[(pair, n)] >= 0.98 * alone, (pair, n)
