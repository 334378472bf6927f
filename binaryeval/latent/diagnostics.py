"""Convergence diagnostics of MCMC draws: rank-normalised split R-hat, bulk and tail ESS.

The definitions are those of Vehtari, Gelman, Simpson, Carpenter and Bürkner (2021),
"Rank-normalization, folding, and localization: an improved R-hat for assessing convergence of
MCMC", *Bayesian Analysis* 16(2), as ArviZ implements them (``arviz.rhat(method="rank")``,
``arviz.ess(method="bulk")``, ``arviz.ess(method="tail")``):

* chains are split in halves (the middle draw of an odd length is dropped);
* draws are rank-normalised: average ranks over all chains, ``z = Phi^-1((r - 3/8) / (S + 1/4))``
  (Blom's offsets);
* R-hat is ``max(R-hat of z, R-hat of the z of |x - median|)`` with the classic
  ``sqrt(((n - 1) / n W + B / n) / W)``;
* the effective sample size uses the autocovariances of every chain (FFT), the combined
  variance estimate ``var+`` and Geyer's initial monotone sequence; the bulk ESS is that of the
  rank-normalised draws, the tail ESS the smaller ESS of the indicators ``x <= q05`` and
  ``x <= q95``.

Every function takes draws with shape ``(chains, draws)`` or ``(chains, draws, *quantities)`` and
works on all quantities at once.  The tests check them against ArviZ when it is installed.
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = ["ess_bulk", "ess_tail", "rhat", "summary"]


def _as_draws(draws) -> tuple[np.ndarray, tuple[int, ...]]:
    """Draws as ``(quantities, chains, n)`` plus the shape of the quantities."""
    arr = np.asarray(draws, dtype=float)
    if arr.ndim < 2:
        from ..errors import ParameterError

        raise ParameterError(f"draws must have shape (chains, draws, ...), got shape {arr.shape}")
    qshape = arr.shape[2:]
    flat = arr.reshape(arr.shape[0], arr.shape[1], -1)
    return np.moveaxis(flat, 2, 0), qshape


def _split(x: np.ndarray) -> np.ndarray:
    """Split every chain in two halves: (Q, C, n) -> (Q, 2C, n // 2)."""
    half = x.shape[2] // 2
    return np.concatenate([x[:, :, :half], x[:, :, x.shape[2] - half:]], axis=1)


def _average_ranks(a: np.ndarray) -> np.ndarray:
    """Ranks along rows from 1, ties averaged, a row with NaN all NaN (scipy's ``rankdata``).

    ``scipy.stats.rankdata(a, method="average", axis=1)``, the same numbers (ranks are whole or half numbers, exact in floating point), from one
    unstable argsort per row: the average rank of a tie does not depend on the order of its
    members, and an unstable sort of floats is several times faster than scipy's stable one.
    """
    m = a.shape[1]
    order = np.argsort(a, axis=1)
    ordered = np.take_along_axis(a, order, axis=1)
    start = np.empty(a.shape, dtype=bool)  # where a run of equal values starts
    start[:, 0] = True
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=start[:, 1:])
    idx = np.arange(m)
    if start.all():
        rank = np.broadcast_to(idx + 1.0, a.shape)
    else:
        end = np.empty_like(start)
        end[:, -1] = True
        end[:, :-1] = start[:, 1:]
        first = np.maximum.accumulate(np.where(start, idx, 0), axis=1)
        last = np.minimum.accumulate(np.where(end, idx, m - 1)[:, ::-1], axis=1)[:, ::-1]
        rank = (first + last) / 2.0 + 1.0
    out = np.empty(a.shape)
    np.put_along_axis(out, order, rank, axis=1)
    out[np.isnan(a).any(axis=1)] = np.nan
    return out


def _z_scale(x: np.ndarray) -> np.ndarray:
    """Rank-normalise each quantity over all its chains and draws (Blom offsets, c = 3/8)."""
    q, c, n = x.shape
    ranks = _average_ranks(x.reshape(q, c * n))
    size = c * n
    return special.ndtri((ranks - 0.375) / (size - 0.75 + 1.0)).reshape(x.shape)


def _rhat_classic(x: np.ndarray) -> np.ndarray:
    n = x.shape[2]
    chain_mean = x.mean(axis=2)
    within = x.var(axis=2, ddof=1).mean(axis=1)
    between = n * chain_mean.var(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt((between / within + n - 1) / n)


def _autocov(x: np.ndarray) -> np.ndarray:
    """Autocovariance at every lag along the last axis (divisor n), by FFT."""
    from scipy.fft import next_fast_len

    n = x.shape[-1]
    size = next_fast_len(2 * n)
    centred = x - x.mean(axis=-1, keepdims=True)
    f = np.fft.rfft(centred, n=size, axis=-1)
    return np.fft.irfft(f * np.conjugate(f), n=size, axis=-1)[..., :n] / n


def _ess(x: np.ndarray) -> np.ndarray:
    """Effective sample size of (Q, C, n) draws with Geyer's initial monotone sequence."""
    q, c, n = x.shape
    out = np.full(q, np.nan)
    finite = np.isfinite(x).all(axis=(1, 2))
    constant = finite & (np.ptp(np.where(finite[:, None, None], x, 0.0), axis=(1, 2))
                         < np.finfo(float).resolution)
    out[constant] = c * n
    work = finite & ~constant
    if not work.any() or n < 2:
        return out
    xs = x[work]
    acov = _autocov(xs)
    mean_var = acov[:, :, 0].mean(axis=1) * n / (n - 1.0)
    var_plus = mean_var * (n - 1.0) / n
    if c > 1:
        var_plus = var_plus + xs.mean(axis=2).var(axis=1, ddof=1)
    rho = 1.0 - (mean_var[:, None] - acov.mean(axis=1)) / var_plus[:, None]
    rho[:, 0] = 1.0
    # pair sums P_k = rho[2k] + rho[2k + 1]
    n_pairs = n // 2
    pairs = rho[:, 0:2 * n_pairs:2] + rho[:, 1:2 * n_pairs:2]
    # Geyer's initial positive sequence: iteration i (i >= 1) runs while 2i - 1 < n - 3 and
    # P_{i-1} > 0; I is the number of iterations run
    i_max = max(0, -(-(n - 2) // 2) - 1)  # the largest i with 2i - 1 < n - 3
    positive = pairs[:, :i_max] > 0.0  # P_0 .. P_{i_max - 1}
    stops = ~positive
    big_i = (np.where(stops.any(axis=1), np.argmax(stops, axis=1), i_max) if i_max
             else np.zeros(xs.shape[0], dtype=int))
    rows = np.arange(xs.shape[0])
    # the last computed pair P_I is kept when >= 0; its even term rho[2I] is kept when the
    # pair is kept or when it is positive
    last_pair = pairs[rows, np.minimum(big_i, n_pairs - 1)]
    last_even = rho[rows, np.minimum(2 * big_i, n - 1)]
    keep_even = (big_i == 0) | (last_pair >= 0.0) | (last_even > 0.0)
    tail = np.where(big_i == 0, 1.0, np.where(keep_even, last_even, 0.0))
    # Geyer's initial monotone sequence over the kept pairs P_0 .. P_{I-1}
    mono = np.minimum.accumulate(pairs[:, :max(i_max, 1)], axis=1)
    idx = np.arange(mono.shape[1])[None, :]
    kept = np.where(idx < big_i[:, None], mono, 0.0).sum(axis=1)
    tau = -1.0 + 2.0 * kept + tail
    total = c * n
    tau = np.maximum(tau, 1.0 / np.log10(total))
    out[work] = total / tau
    return out


def _type7_quantile(sorted_rows: np.ndarray, prob: float) -> np.ndarray:
    """R's type-7 quantile of each (sorted) row, in the arithmetic of ``scipy.stats.mstats``.

    The indicator ``x <= q`` is sensitive to the last bit of ``q`` when ``q`` lands on a draw;
    computing it the way ArviZ does keeps the tail ESS identical to ArviZ's.
    """
    n = sorted_rows.shape[1]
    if n == 1:
        return sorted_rows[:, 0]
    aleph = n * prob + (1.0 - prob)
    k = int(np.floor(min(max(aleph, 1), n - 1)))
    gamma = min(max(aleph - k, 0.0), 1.0)
    return (1.0 - gamma) * sorted_rows[:, k - 1] + gamma * sorted_rows[:, k]


def _rhat_from(sx: np.ndarray, z_bulk: np.ndarray) -> np.ndarray:
    """R-hat of split draws ``sx`` given their rank-normalised values ``z_bulk``."""
    bulk = _rhat_classic(z_bulk)
    med = np.median(sx.reshape(sx.shape[0], -1), axis=1)[:, None, None]
    return np.maximum(bulk, _rhat_classic(_z_scale(np.abs(sx - med))))


def _ess_tail_of(x: np.ndarray) -> np.ndarray:
    flat = np.sort(x.reshape(x.shape[0], -1), axis=1)
    res = []
    for prob in (0.05, 0.95):
        quant = _type7_quantile(flat, prob)[:, None, None]
        res.append(_ess(_split((x <= quant).astype(float))))
    return np.fmin(res[0], res[1])


def rhat(draws) -> np.ndarray:
    """Rank-normalised split R-hat (the larger of the bulk and the folded value).

    Parameters
    ----------
    draws : array-like, shape (chains, draws) or (chains, draws, *quantities)
        MCMC draws; at least 2 chains and 4 draws.

    Returns
    -------
    ndarray or float
        One R-hat per quantity (a float for 2-d input).  Values above 1.01 say the chains have
        not mixed (Vehtari et al. 2021).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.latent.diagnostics import rhat
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(4, 1000))
    >>> bool(rhat(x) < 1.01)
    True
    >>> x[0] += 1.0  # one chain stuck elsewhere
    >>> bool(rhat(x) > 1.05)
    True
    """
    x, qshape = _as_draws(draws)
    if x.shape[1] < 2 or x.shape[2] < 4:
        out = np.full(x.shape[0], np.nan)
    else:
        sx = _split(x)
        out = _rhat_from(sx, _z_scale(sx))
    return float(out[0]) if not qshape else out.reshape(qshape)


def ess_bulk(draws) -> np.ndarray:
    """Bulk effective sample size: the ESS of the rank-normalised split chains.

    Parameters
    ----------
    draws : array-like, shape (chains, draws) or (chains, draws, *quantities)
        MCMC draws (at least 4 per chain).

    Returns
    -------
    ndarray or float
        One ESS per quantity; Vehtari et al. (2021) ask for at least 100 per chain (400 for
        4 chains) before trusting intervals.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.latent.diagnostics import ess_bulk
    >>> rng = np.random.default_rng(1)
    >>> independent = rng.normal(size=(4, 1000))
    >>> bool(3000 < ess_bulk(independent) < 5000)
    True
    """
    x, qshape = _as_draws(draws)
    out = np.full(x.shape[0], np.nan) if x.shape[2] < 4 else _ess(_z_scale(_split(x)))
    return float(out[0]) if not qshape else out.reshape(qshape)


def ess_tail(draws) -> np.ndarray:
    """Tail effective sample size: the smaller ESS of the 5 % and 95 % quantile indicators.

    Parameters
    ----------
    draws : array-like, shape (chains, draws) or (chains, draws, *quantities)
        MCMC draws (at least 4 per chain).

    Returns
    -------
    ndarray or float
        One ESS per quantity: how well the draws pin down the tails (and so the interval ends).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.latent.diagnostics import ess_tail
    >>> rng = np.random.default_rng(2)
    >>> bool(2000 < ess_tail(rng.normal(size=(4, 1000))) < 5000)
    True
    """
    x, qshape = _as_draws(draws)
    out = np.full(x.shape[0], np.nan) if x.shape[2] < 4 else _ess_tail_of(x)
    return float(out[0]) if not qshape else out.reshape(qshape)


def summary(draws) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """R-hat, bulk ESS and tail ESS at once (the rank normalisation computed once).

    Parameters
    ----------
    draws : array-like, shape (chains, draws, *quantities)
        MCMC draws.

    Returns
    -------
    (ndarray, ndarray, ndarray)
        :func:`rhat`, :func:`ess_bulk` and :func:`ess_tail` of every quantity.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.latent.diagnostics import ess_bulk, rhat, summary
    >>> rng = np.random.default_rng(3)
    >>> x = rng.normal(size=(4, 500, 2))
    >>> r, bulk, tail = summary(x)
    >>> bool(np.allclose(r, rhat(x)) and np.allclose(bulk, ess_bulk(x)))
    True
    """
    x, qshape = _as_draws(draws)
    shape = qshape if qshape else (1,)
    if x.shape[2] < 4:
        nan = np.full(shape, np.nan)
        return nan, nan.copy(), nan.copy()
    sx = _split(x)
    z = _z_scale(sx)
    r = _rhat_from(sx, z) if x.shape[1] >= 2 else np.full(x.shape[0], np.nan)
    return r.reshape(shape), _ess(z).reshape(shape), _ess_tail_of(x).reshape(shape)
