"""A re-run Monte Carlo batch against the saved one: what must agree exactly, what within chains.

The saved studies (``vignettes/data/*.csv``) are re-run in part from their seeds.  Everything
that does not pass through a Markov chain comes out the same on any machine: the simulated data
(their counts), the peers' closed-form intervals, the shares of calls made from exact draws.
The chains themselves are a deterministic function of the seed *on one machine*, not across
machines: numpy's vectorised exponentials and sums and the BLAS behind matrix products round the
last bit differently with other CPU kernels (AVX-512 against AVX2 lanes, another summation
order).  A Hamiltonian trajectory amplifies such a difference until an acceptance decision
goes the other way, and the chain goes another way from there, with the same distribution.  What it reports then differs by Monte
Carlo error: a replicate whose interval ends near the drawn value is covered or not, a rank moves
to the next bin.

Measured on the re-run batches by moving every exponential in :mod:`binaryeval.latent` one unit
in the last place (the kind of difference between two machines): coverage counts moved by at
most 2 replicates of 25 or 50, the rank histograms' cumulative counts by at most 4, the summed
interval widths by at most 0.43 %.  The saved batches were written on a machine with other
kernels; re-run on an AMD EPYC without AVX-512 they differ by as much (2 replicates, 3 ranks,
0.60 %).  The bounds
below leave room above that.  The calibration itself is checked on the saved study's whole
replicate sets (binomial regions, rank tests), beside each re-run.
"""

from __future__ import annotations

import numpy as np

COUNT_TOL = 3          # replicates by which a count through the chains may differ
CUMULATIVE_TOL = 5     # ... the rank histogram's cumulative count at any bin
RELATIVE_TOL = 0.02    # relative difference of a sum or mean of the chains' widths or sds


def assert_chain_counts_agree(again, saved, columns, *, tol: int = COUNT_TOL) -> None:
    """Counts through the chains (coverage, flagged fits): within ``tol`` replicates."""
    a = np.asarray(again, dtype=float).reshape(-1, len(columns))
    s = np.asarray(saved, dtype=float).reshape(-1, len(columns))
    diff = np.abs(a - s)
    assert (diff <= tol).all(), {c: (a[:, i].tolist(), s[:, i].tolist())
                                 for i, c in enumerate(columns) if (diff[:, i] > tol).any()}


def assert_rank_histograms_agree(again, saved, *, tol: int = CUMULATIVE_TOL) -> None:
    """Rank histograms (rows of bin counts): the same total, cumulative counts within ``tol``."""
    a, s = np.atleast_2d(np.asarray(again, dtype=float)), np.atleast_2d(np.asarray(saved, dtype=float))
    np.testing.assert_array_equal(a.sum(axis=1), s.sum(axis=1))
    gap = np.abs(np.cumsum(a, axis=1) - np.cumsum(s, axis=1)).max(axis=1)
    assert (gap <= tol).all(), (gap.tolist(), a.tolist(), s.tolist())


def assert_chain_sums_agree(again, saved, *, rtol: float = RELATIVE_TOL) -> None:
    """Sums or means of the chains' interval widths or sds: within ``rtol`` relative."""
    np.testing.assert_allclose(np.asarray(again, dtype=float), np.asarray(saved, dtype=float),
                               rtol=rtol)


def assert_sbc_row_agrees(row, saved_row) -> None:
    """One re-run row of a simulation-based calibration study against the saved one.

    The sizes and the seed exactly; coverage counts and flagged fits within ``COUNT_TOL``, the
    rank histogram within ``CUMULATIVE_TOL``.
    """
    for col in ("n", "seed"):
        assert row[col] == saved_row[col], col
    counts = [c for c in row.index if c.startswith(("covered_", "n_flagged"))]
    bins = [c for c in row.index if c.startswith("bin_")]
    assert counts and len(bins) == 20
    assert_chain_counts_agree(row[counts].to_numpy(), saved_row[counts].to_numpy(), counts)
    assert_rank_histograms_agree(row[bins].to_numpy(), saved_row[bins].to_numpy())
