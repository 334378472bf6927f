"""The tolerances of tests/reruns.py: what passes as Monte Carlo error and what does not."""

import numpy as np
import pytest
from reruns import (
    COUNT_TOL,
    CUMULATIVE_TOL,
    assert_chain_counts_agree,
    assert_chain_sums_agree,
    assert_rank_histograms_agree,
)


def test_counts_within_the_tolerance_pass_and_beyond_it_fail():
    saved = np.array([[45, 0], [40, 1]])
    assert_chain_counts_agree(saved + COUNT_TOL, saved, ["covered", "n_flagged"])
    with pytest.raises(AssertionError, match="covered"):
        assert_chain_counts_agree(saved + [[COUNT_TOL + 1, 0], [0, 0]], saved,
                                  ["covered", "n_flagged"])


def test_rank_histograms_compare_cumulative_counts():
    saved = np.full(20, 5)
    # ranks moved to the next bin: the cumulative counts move by the number moved
    moved = saved.copy()
    moved[3] -= CUMULATIVE_TOL
    moved[4] += CUMULATIVE_TOL
    assert_rank_histograms_agree(moved, saved)
    # every rank pushed up 3 bins (the top bin keeps its own): cumulative counts 15 short
    shifted = np.r_[np.zeros(3, int), saved[:-3]]
    shifted[-1] += 15
    with pytest.raises(AssertionError):
        assert_rank_histograms_agree(shifted, saved)
    # a histogram of another total (99 ranks, not 100) is not the same batch
    with pytest.raises(AssertionError):
        assert_rank_histograms_agree(saved[:-1].tolist() + [4], saved)


def test_sums_compare_relatively():
    assert_chain_sums_agree([101.9], [100.0])
    with pytest.raises(AssertionError):
        assert_chain_sums_agree([102.5], [100.0])
