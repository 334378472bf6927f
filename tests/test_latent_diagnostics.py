"""R-hat and ESS (Vehtari et al. 2021) in numpy, against ArviZ and against closed forms."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import binaryeval as be
from binaryeval.latent import diagnostics as d


def _ar1(rng, phi, chains, n, q=1):
    x = np.zeros((chains, n, q))
    e = rng.normal(size=(chains, n, q))
    x[:, 0] = e[:, 0] / np.sqrt(1 - phi ** 2)
    for t in range(1, n):
        x[:, t] = phi * x[:, t - 1] + e[:, t]
    return x


def test_agrees_with_arviz():
    az = pytest.importorskip("arviz")  # optional: the definitions' reference implementation
    rng = np.random.default_rng(0)
    for n in (4, 5, 7, 10, 101, 1000):
        for chains, phi, shift in ((4, 0.0, 0.0), (1, 0.9, 0.0), (2, 0.99, 0.3), (4, -0.5, 0.6)):
            x = _ar1(rng, phi, chains, n, q=3)
            if chains > 1:
                x[1] += shift
            x[:, :, 2] = np.round(x[:, :, 2])  # ties in the ranks
            got = np.stack([d.rhat(x), d.ess_bulk(x), d.ess_tail(x)])
            for i in range(3):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = [az.rhat(x[:, :, i]) if chains > 1 else np.nan,
                            az.ess(x[:, :, i], method="bulk"),
                            az.ess(x[:, :, i], method="tail")]
                np.testing.assert_allclose(got[:, i], want, rtol=1e-10, equal_nan=True)


def test_ess_of_an_ar1_process_matches_its_closed_form():
    # the integrated autocorrelation time of AR(1) is (1 + phi) / (1 - phi)
    rng = np.random.default_rng(1)
    for phi in (0.0, 0.5, 0.9):
        x = _ar1(rng, phi, 4, 20000, q=1)[..., 0]
        want = x.size * (1 - phi) / (1 + phi)
        assert d.ess_bulk(x) == pytest.approx(want, rel=0.1)
        assert d.rhat(x) < 1.005


def test_rhat_flags_chains_that_disagree_and_shapes_are_kept():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(4, 500, 2, 3))
    x[0, :, 1, 2] += 2.0
    r = d.rhat(x)
    assert r.shape == (2, 3)
    assert r[1, 2] > 1.2 and np.all(np.delete(r.ravel(), 5) < 1.02)
    assert d.ess_bulk(x).shape == (2, 3) and d.ess_tail(x).shape == (2, 3)
    assert isinstance(d.rhat(x[..., 0, 0]), float)
    with pytest.raises(be.errors.ParameterError, match="chains, draws"):
        d.rhat(np.zeros(10))


def test_constant_draws_have_full_ess():
    x = np.ones((4, 100))
    assert d.ess_bulk(x) == 400.0


def test_the_ranks_are_scipys_average_ranks():
    # the rank normalisation's ranks: scipy.stats.rankdata(method="average") row by row, the
    # same numbers, with ties (rounded draws, a constant row), infinities and a NaN
    from scipy import stats

    rng = np.random.default_rng(3)
    x = rng.normal(size=(6, 4001))
    x[1] = np.round(x[1], 1)
    x[2] = 1.0
    x[3, [5, 9]] = np.inf, -np.inf
    x[4, 7] = np.nan
    x[5, :2000] = -0.0
    x[5, 2000:] = 0.0
    np.testing.assert_array_equal(d._average_ranks(x), stats.rankdata(x, method="average", axis=1))
    np.testing.assert_array_equal(d._average_ranks(x[[0]]), stats.rankdata(x[[0]], axis=1))


@pytest.mark.parametrize("rhat, bulk, tail", [(1.01036, 688.0, 504.0), (1.002, 820.0, 399.6),
                                              (1.0099, 399.7, 900.0)])
def test_the_convergence_warning_prints_each_failing_value_beyond_its_bound(rhat, bulk, tail):
    # the group fails one check by a margin that the usual rounding (R-hat to 3 decimals, ESS
    # to whole draws) would hide: the printed values must show which bound is not met
    import re

    import pandas as pd

    from binaryeval.errors import ConvergenceWarning
    from binaryeval.latent import _common

    frame = pd.DataFrame({"rhat": [1.001, rhat], "ess_bulk": [900.0, bulk],
                          "ess_tail": [950.0, tail]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _common.warn_convergence(frame, "alpha", ["A", "B"], draws=400, chains=4)
    assert len(caught) == 1 and caught[0].category is ConvergenceWarning
    text = str(caught[0].message)
    assert "for B " in text
    shown = {name: float(value) for name, value in
             re.findall(r"(R-hat|bulk ESS|tail ESS) ([0-9.]+)", text)}
    failing = (shown["R-hat"] > _common.RHAT_MAX or shown["bulk ESS"] < _common.ESS_MIN
               or shown["tail ESS"] < _common.ESS_MIN)
    assert failing, text
    assert shown["R-hat"] == pytest.approx(rhat, abs=1e-3)
    assert shown["tail ESS"] == pytest.approx(tail, abs=1)


@pytest.mark.parametrize(("ess", "draws", "want"), [
    (33.0, 50, 700),      # 1.1 * 50 * 400 / 33 = 666.7 -> 700 (it said draws=100: ESS near 66)
    (390.0, 1000, 2000),  # nearly there: twice the draws
    (120.0, 1000, 3700),  # 1.1 * 1000 * 400 / 120 = 3666.7 -> 3700
])
def test_the_advice_asks_for_enough_draws_to_reach_the_ess_bound(ess, draws, want):
    import pandas as pd

    from binaryeval.errors import ConvergenceWarning
    from binaryeval.latent import _common

    frame = pd.DataFrame({"rhat": [1.001, 1.02], "ess_bulk": [900.0, ess + 50],
                          "ess_tail": [950.0, ess]})
    with pytest.warns(ConvergenceWarning, match=rf"run more draws, e\.g\. draws={want} "):
        _common.warn_convergence(frame, "alpha", ["A", "B"], draws=draws, chains=4)
    # the ESS grows in proportion to the draws: the advice reaches the bound
    assert ess * want / draws >= _common.ESS_MIN
