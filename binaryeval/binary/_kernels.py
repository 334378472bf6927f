"""Accurate log-probabilities of binomial type for large, real-valued arguments.

``log C(n, k) + k log p + (n - k) log(1 - p)`` computed from log-gamma functions loses about
``n log n`` units in the last place (each term is of that size and they cancel to a number of
order one): at ``n = 10^7`` that is a relative error of about 2e-8 in the probability.  Loader's
saddle-point form (C. Loader, *Fast and accurate computation of binomial probabilities*, 2000)
writes the same quantity as Stirling-series corrections plus deviance terms ``bd0`` that are
small where the probability is large, so the result is accurate to a few units in the last place
for every ``n``.  Both functions accept real ``k`` and ``n`` (the mixture components of the exact
engine have real Beta parameters when the prior is not an integer).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

__all__ = ["bd0", "convolve", "dot", "log_beta_pdf", "log_dbinom", "log_gamma_ratio",
           "log_gamma_ratio_change", "log_gamma_ratio_range", "log_gamma_ratio_ranges",
           "log_gamma_ratio_shift", "stirlerr"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_S = (1.0 / 12.0, 1.0 / 360.0, 1.0 / 1260.0, 1.0 / 1680.0, 1.0 / 1188.0)


def dot(u: np.ndarray, v: np.ndarray) -> float:
    """Inner product without BLAS: short vectors, and no thread start-up on a busy machine.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._kernels import dot
    >>> dot(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    11.0
    """
    return float(np.add.reduce(np.multiply(u, v)))


#: the longest inner product of :func:`convolve`: OpenBLAS computes ``ddot`` on one thread up to
#: 10,000 elements
_DOT_ONE_THREAD = 8192


def convolve(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``np.convolve(p, q)``, in pieces whose inner products stay on one BLAS thread.

    ``np.convolve`` forms each entry as an inner product over the overlap of the two
    sequences, through BLAS ``ddot``, which OpenBLAS spreads over threads beyond 10,000
    elements: thousands of short parallel sections, whose threads wait for a core when the
    machine is busy.  With both cores of a two-core machine busy, sequences of 33,001 and
    17,001 terms took 41 s instead of 0.07 s.  Here the shorter sequence is cut into pieces of
    at most 8,192 terms and their convolutions added at their offsets: the same products,
    each entry's sum in up to ``len / 8192`` parts (for positive terms the relative error
    stays below ``n eps``).  Where the shorter sequence has at most 8,192 terms this is one
    ``np.convolve``, bit for bit.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._kernels import convolve
    >>> rng = np.random.default_rng(0)
    >>> p, q = rng.random(20_000), rng.random(9_000)
    >>> bool(np.allclose(convolve(p, q), np.convolve(p, q), rtol=1e-12, atol=0))
    True
    """
    if p.size < q.size:
        p, q = q, p
    if q.size <= _DOT_ONE_THREAD:
        return np.convolve(p, q)
    out = np.zeros(p.size + q.size - 1)
    for start in range(0, q.size, _DOT_ONE_THREAD):
        piece = q[start:start + _DOT_ONE_THREAD]
        out[start:start + p.size + piece.size - 1] += np.convolve(p, piece)
    return out


def stirlerr(n: np.ndarray, least: float | None = None) -> np.ndarray:
    """``log Γ(n + 1) - (n + 1/2) log n + n - log sqrt(2 pi)`` for real ``n > 0``.

    The Stirling series: two terms when every ``n`` exceeds 500 (the next is below 3e-17
    absolute), five above 15 (the next below 2e-16 at 15, far less beyond), and the log-gamma
    function itself up to 15.  ``least``, a lower bound of ``n`` when the caller knows one,
    saves finding the smallest.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._kernels import stirlerr
    >>> abs(float(stirlerr(np.array(1e6))) - 1 / 12e6) < 1e-18
    True
    """
    n = np.asarray(n, dtype=float)
    s0, s1, s2, s3, s4 = _S
    if least is None:
        least = n.min(initial=np.inf)
    if least > 15.0 and n.ndim:
        return _stirling_series(n, least > 500.0)
    nn = n * n
    if least > 500.0:
        return (s0 - s1 / nn) / n
    if least > 15.0:
        return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.asarray((s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n)
    small = n <= 15.0
    if small.any():
        m = n[small]
        low = special.gammaln(m + 1.0) - (m + 0.5) * np.log(m) + m - _LOG_SQRT_2PI
        if out.ndim == 0:
            return low.reshape(())
        out[small] = low
    return out


def _stirling_series(n: np.ndarray, short: bool) -> np.ndarray:
    """:func:`stirlerr` by its series for an array ``n > 15`` (two terms when ``short``).

    The same operations in the same order as the expressions in :func:`stirlerr`, in place on
    one work array (no temporaries): the same values, bit for bit.
    """
    s0, s1, s2, s3, s4 = _S
    nn = n * n
    if short:
        t = np.divide(s1, nn)
    else:
        t = np.divide(s4, nn)
        for c in (s3, s2, s1):
            np.subtract(c, t, out=t)
            t /= nn
    np.subtract(s0, t, out=t)
    t /= n
    return t


def bd0(x: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """The deviance term ``x log(x / mu) + mu - x``, accurate when ``x`` is close to ``mu``.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._kernels import bd0
    >>> float(bd0(np.array(10.0), np.array(10.0)))
    0.0
    """
    x = np.asarray(x, dtype=float)
    mu = np.asarray(mu, dtype=float)
    if x.shape != mu.shape:
        x, mu = np.broadcast_arrays(x, mu)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = x - mu
        total = x + mu   # (used twice: the test and the series' v)
        near = np.abs(d) < 0.1 * total
        if near.all():
            return _bd0_series(x, d, d / total)
        out = np.empty(x.shape)
        far = ~near
        out[far] = x[far] * np.log(x[far] / mu[far]) + mu[far] - x[far]
        if near.any():
            out[near] = _bd0_series(x[near], d[near], d[near] / total[near])
    return out


def _bd0_series(x: np.ndarray, d: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``bd0`` for ``|v| < 1/21`` (``v = (x - mu) / (x + mu)``, ``d = x - mu``) by its series.

    ``d v + 2 x sum_j v^(2j+1) / (2j+1)``: each term below the previous by ``v^2`` (at most
    0.0023), so the terms needed for 1e-17 of the sum follow from the largest ``|v|``.
    """
    v2 = v * v
    top = float(np.maximum.reduce(v2, axis=None, initial=0.0))
    n_terms = 11 if top <= 0.0 else int(min(11, max(1, math.ceil(-39.2 / math.log(top)))))
    s = d * v
    ej = 2.0 * x * v
    if s.ndim == 0:
        for j in range(1, n_terms + 1):
            ej = ej * v2
            s = s + ej / (2 * j + 1)
        return s
    # the same operations in place (no temporaries per term)
    term = np.empty(s.shape)
    for j in range(1, n_terms + 1):
        ej *= v2
        np.divide(ej, 2 * j + 1, out=term)
        s += term
    return s


def log_dbinom(k, n, p):
    """``log[Γ(n + 1) / (Γ(k + 1) Γ(n - k + 1)) p^k (1 - p)^(n - k)]`` for real ``0 <= k <= n``.

    Accurate to a few units in the last place of the probability for any ``n`` (Loader 2000);
    ``k`` and ``n`` may be non-integer.  Broadcasts over its arguments.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._kernels import log_dbinom
    >>> from scipy import stats
    >>> bool(np.isclose(log_dbinom(3.0, 10.0, 0.4), stats.binom.logpmf(3, 10, 0.4), rtol=1e-14))
    True
    """
    k, n, p = np.asarray(k, dtype=float), np.asarray(n, dtype=float), np.asarray(p, dtype=float)
    if not k.shape == n.shape == p.shape:
        k, n, p = np.broadcast_arrays(k, n, p)
    q = 1.0 - p
    with np.errstate(divide="ignore", invalid="ignore"):
        nk = n - k
        if k.ndim and k.min(initial=np.inf) >= 1.0 and nk.min(initial=np.inf) >= 1.0:
            # every count at least one (the usual case): the same values as below, in place
            lc = stirlerr(n)
            lc -= stirlerr(k)
            lc -= stirlerr(nk)
            lc -= bd0(k, n * p)
            lc -= bd0(nk, n * q)
            lf = np.log(k)
            lf += math.log(2.0 * math.pi)
            lf += np.log1p(-k / n)
            lf *= 0.5
            lc -= lf
            return lc
        out = np.empty(k.shape)
        lo = k < 1.0
        hi = nk < 1.0
        mid = ~(lo | hi)
        if mid.all():
            lc = (stirlerr(n) - stirlerr(k) - stirlerr(n - k) - bd0(k, n * p) - bd0(n - k, n * q))
            return lc - 0.5 * (math.log(2.0 * math.pi) + np.log(k) + np.log1p(-k / n))
        if mid.any():
            kk, nn, pp, qq = k[mid], n[mid], p[mid], q[mid]
            lc = (stirlerr(nn) - stirlerr(kk) - stirlerr(nn - kk)
                  - bd0(kk, nn * pp) - bd0(nn - kk, nn * qq))
            lf = math.log(2.0 * math.pi) + np.log(kk) + np.log1p(-kk / nn)
            out[mid] = lc - 0.5 * lf
        edge = ~mid
        if edge.any():
            # one of the two counts is below 1: the log-gamma terms of the other side nearly
            # cancel, so use log Γ(n + 1) - log Γ(n - k + 1) by its own accurate route
            kk, nn, pp = k[edge], n[edge], p[edge]
            swap = (n[edge] - k[edge]) < 1.0
            small = np.where(swap, nn - kk, kk)  # the count below 1
            prob = np.where(swap, 1.0 - pp, pp)
            big = nn - small
            out[edge] = (log_gamma_ratio(big + 1.0, small) - special.gammaln(small + 1.0)
                         + special.xlogy(small, prob) + special.xlog1py(big, -prob))
    return out


def log_beta_pdf(x, a, b):
    """``log Beta(x; a, b)`` accurate for large ``a + b`` (any ``a, b > 0``, ``0 < x < 1``).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._kernels import log_beta_pdf
    >>> from scipy import stats
    >>> bool(np.isclose(log_beta_pdf(0.3, 2.5, 4.0), stats.beta.logpdf(0.3, 2.5, 4.0), rtol=1e-14))
    True
    """
    x, a, b = np.asarray(x, dtype=float), np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not x.shape == a.shape == b.shape:
        x, a, b = np.broadcast_arrays(x, a, b)
    if x.size <= _FEW:
        # a few points (a quantile search's anchors): the same formulas one point at a time,
        # without the array machinery, where both counts are at least one
        few = [_log_beta_pdf_one(*v) for v in zip(x.ravel().tolist(), a.ravel().tolist(),
                                                   b.ravel().tolist(), strict=True)]
        if None not in few:
            return np.array(few, dtype=float).reshape(x.shape)
    regular = (a >= 1.0) & (b >= 1.0)
    if regular.all():
        # (the same values as below, without gathering and scattering every element)
        return np.log(a + b - 1.0) + log_dbinom(a - 1.0, a + b - 2.0, x)
    out = np.empty(x.shape)
    if regular.any():
        aa, bb = a[regular], b[regular]
        # Beta(x; a, b) = (a + b - 1) * dbinom(a - 1; a + b - 2, x)
        out[regular] = np.log(aa + bb - 1.0) + log_dbinom(aa - 1.0, aa + bb - 2.0, x[regular])
    other = ~regular
    if other.any():
        xx, aa, bb = x[other], a[other], b[other]
        small, large = np.minimum(aa, bb), np.maximum(aa, bb)
        # log B(a, b) = log Γ(small) - [log Γ(large + small) - log Γ(large)]
        lbeta = np.where(large >= 1.0,
                         special.gammaln(small) - log_gamma_ratio(np.maximum(large, 1.0), small),
                         special.betaln(aa, bb))
        with np.errstate(divide="ignore"):
            out[other] = special.xlogy(aa - 1.0, xx) + special.xlog1py(bb - 1.0, -xx) - lbeta
    return out


_FEW = 4  # arrays up to this size go through the one-point forms below


def _stirlerr_one(n: float) -> float:
    """:func:`stirlerr` of one ``n > 15`` (the series: two terms above 500, else five)."""
    s0, s1, s2, s3, s4 = _S
    nn = n * n
    if n > 500.0:
        return (s0 - s1 / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


def _bd0_one(x: float, mu: float) -> float:
    """:func:`bd0` of one pair (its series near ``mu``, as :func:`_bd0_series`)."""
    d = x - mu
    if not abs(d) < 0.1 * (x + mu):
        return x * math.log(x / mu) + mu - x
    v = d / (x + mu)
    v2 = v * v
    n_terms = 11 if v2 <= 0.0 else int(min(11, max(1, math.ceil(-39.2 / math.log(v2)))))
    s = d * v
    ej = 2.0 * x * v
    for j in range(1, n_terms + 1):
        ej = ej * v2
        s = s + ej / (2 * j + 1)
    return s


def _log_beta_pdf_one(x: float, a: float, b: float) -> float | None:
    """:func:`log_beta_pdf` at one point by Loader's form, or None outside its plain case.

    The plain case: ``0 < x < 1`` and both counts ``a - 1``, ``b - 1`` above 15 (every
    :func:`stirlerr` by its series); elsewhere the array form answers.
    """
    if not (0.0 < x < 1.0 and a > 16.0 and b > 16.0):
        return None
    k, n = a - 1.0, a + b - 2.0
    q = 1.0 - x
    lc = (_stirlerr_one(n) - _stirlerr_one(k) - _stirlerr_one(n - k) - _bd0_one(k, n * x)
          - _bd0_one(n - k, n * q))
    return math.log(a + b - 1.0) + lc - 0.5 * (math.log(2.0 * math.pi) + math.log(k)
                                                + math.log1p(-k / n))


def log_gamma_ratio(z, d):
    """``log Γ(z + d) - log Γ(z)`` for real ``z > 0``, ``z + d > 0`` (broadcasting).

    Where ``z`` and ``z + d`` exceed 16, in Stirling's form differenced term by term:
    ``(u + 1/2) log(1 + d/u) + d log(u + d) - d + stirlerr(u + d) - stirlerr(u)`` with
    ``u = z - 1``, no term much larger than ``d log z``: accurate to a few units in the last place
    of the result, where the plain difference of log-gamma functions loses ``z log z`` units
    (1e-9 at ``z = 10^6``).  Below 16, that plain difference (a loss of at most 1e-14).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._kernels import log_gamma_ratio
    >>> from scipy import special
    >>> bool(np.isclose(log_gamma_ratio(7.5, 2.25), special.gammaln(9.75) - special.gammaln(7.5)))
    True
    >>> z = np.array([1e6, 2e7])
    >>> bool(np.allclose(log_gamma_ratio(z, 0.5), 0.5 * np.log(z) - 1 / (8 * z), rtol=1e-15))
    True
    """
    z, d = np.asarray(z, dtype=float), np.asarray(d, dtype=float)
    low = np.minimum(z, z + d)
    least = low.min(initial=np.inf)
    if least > 16.0:
        return _stirling_ratio(z, d, least - 1.0)
    z, d = np.broadcast_arrays(z, d)
    if z.ndim == 0:
        return special.gammaln(z + d) - special.gammaln(z)
    # d in memory of its own (typically one offset per row, broadcast over a quadrature's
    # points): the arithmetic below on a broadcast view runs strided loops, a tenth slower; each
    # element is the same number, so the values are the same bit for bit
    d = np.ascontiguousarray(d)
    # a few small arguments: Stirling's form with the two-term series everywhere (at a stand-in
    # of 600 where an argument is at most 500), then the five-term series where the smaller
    # argument is up to 500 and the plain difference where it is at most 16 (each value by the
    # same form as when every argument of the call is in its range)
    few = low <= 500.0
    zf, df, lf = z[few], d[few], low[few]
    zz = z.copy()
    zz[few] = 600.0 - np.minimum(df, 0.0)
    out = np.asarray(_stirling_ratio(zz, d, 599.0))
    vals = np.empty(zf.shape)
    small = lf <= 16.0
    mid = ~small
    if mid.any():
        vals[mid] = _stirling_ratio(zf[mid], df[mid], 15.5)
    vals[small] = special.gammaln(zf[small] + df[small]) - special.gammaln(zf[small])
    out[few] = vals
    return out


def log_gamma_ratio_range(n: int, d: float) -> np.ndarray:
    """:func:`log_gamma_ratio` at ``z = 1, 2, ..., n`` for one offset ``d > -1``.

    The same forms (the plain difference of log-gamma functions where ``z`` or ``z + d`` is at
    most 16, Stirling's form beyond), taken on consecutive slices instead of through masks:
    a table of a few thousand entries costs a fraction of the general call.  Beyond 500 the
    Stirling series has its two-term form (the next term is below 3e-17 absolute).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._kernels import log_gamma_ratio, log_gamma_ratio_range
    >>> z = np.arange(1.0, 2001.0)
    >>> bool(np.allclose(log_gamma_ratio_range(2000, 30.5), log_gamma_ratio(z, 30.5),
    ...                  rtol=1e-15, atol=1e-13))
    True
    """
    return log_gamma_ratio_ranges([(n, d)])[0]


_CHUNK = 8192  # elements per pass: temporaries this small are reused from the cache, not paged


def log_gamma_ratio_ranges(specs) -> list[np.ndarray]:
    """:func:`log_gamma_ratio_range` for several ``(n, d)`` at once.

    A spec ``(n, d, start)`` asks for ``z = start + 1, ..., n`` only (the same values as
    entries ``start..n - 1`` of the whole range).

    Each range in three parts: ``z`` with ``min(z, z + d) <= 16`` by the plain difference of
    log-gamma functions; up to 500 by Stirling's form with the five-term series; beyond, with
    the two-term series.  Each part of every range together (one call for all of them, a table
    of a thousand entries costs the interpreter more than the arithmetic), in passes of
    ``_CHUNK`` elements (a large temporary array costs fresh memory pages each time).  With
    whole offsets (integer counts and rate priors) the Stirling parts read ``stirlerr`` and
    ``log`` from tables shared by every range (:func:`_shared_ratios`: the same values).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._kernels import log_gamma_ratio, log_gamma_ratio_ranges
    >>> a, b = log_gamma_ratio_ranges([(3000, 30.5), (1200, -0.5)])
    >>> bool(np.allclose(a, log_gamma_ratio(np.arange(1.0, 3001.0), 30.5), rtol=1e-15))
    True
    >>> bool(np.allclose(b, log_gamma_ratio(np.arange(1.0, 1201.0), -0.5), rtol=1e-15))
    True
    """
    # (a range from start: the whole range's array, filled from start on and returned from there)
    starts = [spec[2] if len(spec) > 2 else 0 for spec in specs]
    outs = [np.empty(spec[0]) for spec in specs]
    parts: list[list[tuple[int, int, int, float]]] = [[], [], []]
    for i, (n, d, *_) in enumerate(specs):
        # z with min(z, z + d) <= 16, then up to 500 (u = z - 1 and u + d above 15), then beyond
        small = min(n, int(math.floor(16.0 - min(d, 0.0))))
        mid = min(n, max(small, int(math.ceil(501.0 - min(d, 0.0)))))
        for kind, (a, b) in enumerate(((0, small), (small, mid), (mid, n))):
            a = max(a, starts[i])
            if b > a:
                parts[kind].append((i, a, b, float(d)))
    for kind, pieces in enumerate(parts):
        if kind and _shared_ratios(kind, pieces, outs):
            continue
        # batches of about _CHUNK elements: short pieces together, long ones cut
        batch: list[tuple[int, int, int, float]] = []
        size = 0
        for i, a, b, dv in pieces + [(-1, 0, 0, 0.0)]:
            for lo in range(a, b, _CHUNK):
                hi = min(b, lo + _CHUNK)
                batch.append((i, lo, hi, dv))
                size += hi - lo
                if size >= _CHUNK:
                    _ratio_batch(kind, batch, outs)
                    batch, size = [], 0
            if i < 0 and batch:
                _ratio_batch(kind, batch, outs)
    return [out[start:] if start else out for out, start in zip(outs, starts, strict=True)]


def _shared_ratios(kind: int, pieces, outs) -> bool:
    """One Stirling part of every range from shared tables, when every offset is a whole number.

    With ``u = z - 1`` and ``v = u + d`` both integers, ``stirlerr(u)``, ``stirlerr(v)`` and
    ``log v`` of every range are entries of one table each over the integers the ranges reach
    (the row, the first and the second table of both rates read the same arguments, shifted):
    the operations of :func:`_stirling_ratio` on the same numbers in the same order, so the
    same values bit for bit, with a third of its passes.  Returns False (nothing done) when an
    offset is not whole or the tables would be much longer than the ranges.
    """
    if not pieces or any(not float(d).is_integer() for _, _, _, d in pieces):
        return False
    lo = min(a + min(int(d), 0) for _, a, _, d in pieces)
    hi = max(b + max(int(d), 0) for _, _, b, d in pieces)
    if hi - lo > 2 * sum(b - a for _, a, b, _ in pieces):
        return False
    # (the series by the same rule as in each batch: five terms for the middle part, two beyond)
    grid, ser, logs = _integer_tables(kind == 2, lo, hi)
    total = sum(b - a for _, a, b, _ in pieces)
    if total <= _CHUNK:
        # short ranges: all in one pass (the offsets as an array), scattered afterwards
        at = np.concatenate([np.arange(a - lo, b - lo) for _, a, b, _ in pieces])
        shift = np.repeat(np.array([int(dv) for _, _, _, dv in pieces]),
                          [b - a for _, a, b, _ in pieces])
        d = shift.astype(float)
        u = grid[at]
        out = np.divide(d, u)
        np.log1p(out, out=out)
        out *= u + 0.5
        at_v = at + shift
        lv = logs[at_v]
        lv *= d
        out += lv
        out -= d
        sv = ser[at_v]
        sv -= ser[at]
        out += sv
        pos = 0
        for i, a, b, _ in pieces:
            outs[i][a:b] = out[pos:pos + b - a]
            pos += b - a
        return True
    for i, a, b, dv in pieces:
        d, sh = np.float64(dv), int(dv)
        for c in range(a, b, _CHUNK):
            e = min(b, c + _CHUNK)
            u = grid[c - lo:e - lo]
            out = outs[i][c:e]
            np.divide(d, u, out=out)
            np.log1p(out, out=out)
            out *= u + 0.5
            lv = logs[c + sh - lo:e + sh - lo] * d
            out += lv
            out -= d
            sv = ser[c + sh - lo:e + sh - lo] - ser[c - lo:e - lo]
            out += sv
    return True


#: the tables of :func:`_integer_tables` are kept up to this many integers (8 MB in all)
_KEEP_INTEGERS = 1 << 17
_KEPT: dict = {}


def _integer_tables(short: bool, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The integers ``lo..hi - 1`` (``lo >= 1``) as floats, their Stirling series and logs.

    Slices of tables kept from ``1`` up, whichever counts ask (each entry is an elementwise
    function of its integer: the same values as tables made for ``lo..hi`` alone); made anew
    beyond :data:`_KEEP_INTEGERS`.  ``short``: the two-term series (else five terms).
    """
    if lo < 1 or hi > _KEEP_INTEGERS:
        grid = np.arange(float(lo), float(hi))
        return grid, _stirling_series(grid, short), np.log(grid)
    kept = _KEPT.get(short)
    if kept is None or kept[0].size + 1 < hi:
        size = min(_KEEP_INTEGERS, max(hi, 4096, 2 * (0 if kept is None else kept[0].size)))
        grid = np.arange(1.0, size + 1.0)
        kept = (grid, _stirling_series(grid, short), np.log(grid))
        for arr in kept:
            arr.setflags(write=False)
        _KEPT[short] = kept
    return tuple(arr[lo - 1:hi - 1] for arr in kept)


def _ratio_batch(kind: int, batch, outs) -> None:
    """One part's values for a batch of ``(range, start, stop, d)`` (see log_gamma_ratio_ranges)."""
    if len(batch) == 1:
        i, a, b, dv = batch[0]
        z, d = np.arange(a + 1.0, b + 1.0), np.float64(dv)
    else:
        z = np.concatenate([np.arange(a + 1.0, b + 1.0) for _, a, b, _ in batch])
        d = np.concatenate([np.full(b - a, dv) for _, a, b, dv in batch])
    if kind == 0:
        vals = special.gammaln(z + d) - special.gammaln(z)
    else:
        # the five-term series up to 500, the two-term beyond
        vals = _stirling_ratio(z, d, 15.5 if kind == 1 else 500.5)
    at = 0
    for i, a, b, _ in batch:
        outs[i][a:b] = vals[at:at + b - a]
        at += b - a


def _stirling_ratio(z: np.ndarray, d: np.ndarray, least: float) -> np.ndarray:
    """:func:`log_gamma_ratio` in Stirling's form.

    ``least`` bounds ``z - 1`` and ``z + d - 1`` from below (above 15).
    """
    u = z - 1.0
    v = u + d
    if np.ndim(v) == 0 or np.ndim(u) == 0:
        return (u + 0.5) * np.log1p(d / u) + d * np.log(v) - d + (stirlerr(v, least)
                                                                  - stirlerr(u, least))
    # (u + 1/2) log1p(d / u) + d log v - d + (stirlerr(v) - stirlerr(u)): the same operations in
    # the same order, in place on a few work arrays (the same values, bit for bit, with fewer
    # temporaries: these tables and quadratures are the engine's bulk work)
    out = np.divide(d, u)
    if out.shape != v.shape:
        out = np.broadcast_to(out, v.shape).copy()
    np.log1p(out, out=out)
    out *= u + 0.5
    lv = np.log(v)
    lv *= d
    out += lv
    out -= d
    sv = stirlerr(v, least)
    sv -= stirlerr(u, least)
    out += sv
    return out


def log_gamma_ratio_change(z, z_ref: float, d: float):
    """``[log Γ(z + d) - log Γ(z)] - [log Γ(z_ref + d) - log Γ(z_ref)]`` without cancellation.

    The change of :func:`log_gamma_ratio` between two arguments with the same offset ``d``
    (``z``, ``z_ref``, ``z + d`` and ``z_ref + d`` positive): :func:`log_gamma_ratio_shift` with
    the shift ``z - z_ref``.  Where ``z`` is itself a rounded difference (``M - t`` for a real
    ``t``), pass the shift to :func:`log_gamma_ratio_shift` instead: the rounding of ``z``, up to
    ``eps z / 2``, changes the result by that times ``log((z + d) / z)``.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._kernels import log_gamma_ratio_change
    >>> from scipy import special
    >>> z = np.array([1000.5, 2000.0])
    >>> ref = special.gammaln(z + 60) - special.gammaln(z)
    >>> ref = ref - (special.gammaln(1500.0 + 60) - special.gammaln(1500.0))
    >>> bool(np.allclose(log_gamma_ratio_change(z, 1500.0, 60.0), ref, atol=1e-9))
    True
    """
    z = np.asarray(z, dtype=float)
    return log_gamma_ratio_shift(z_ref, z - z_ref, d)


def log_gamma_ratio_shift(z_ref: float, shift, d: float):
    """``[log Γ(z_ref + s + d) - log Γ(z_ref + s)] - [log Γ(z_ref + d) - log Γ(z_ref)]``.

    For every shift ``s`` of ``shift`` (``z_ref``, ``z_ref + s`` and both plus ``d`` positive),
    without cancellation.  It is the second difference ``G(x + m + n) - G(x + m) - G(x + n) +
    G(x)`` of ``G(y) = log Γ(y + 1)``, with ``x`` the smallest of the four points less one,
    ``m <= n`` the two shifts ``|s|`` and ``|d|`` (symmetric in them), times the sign of ``s d``.
    From Stirling's form it is

        m log1p(n / x) + [bd0(x + n + m, x + n) - bd0(x + m, x)]
        - log1p(m n / (x (x + m + n))) / 2 + [st(x + m + n) - st(x + n) - st(x + m) + st(x)]

    (``bd0`` the deviance of :func:`bd0`, differenced through the shift ``m`` itself, ``st``
    :func:`stirlerr`), after ``G(x) = G(x + 1) - log(x + 1)`` has raised ``x`` above 15 (each
    step adds ``log1p(m n / ((x + 1) (x + 1 + m + n)))``, positive).  Every term is at most of
    the size of the change except where ``m`` exceeds ``x`` (a reference or a shift beyond the
    smaller argument), where ``m log1p(n / x)`` and the deviances are up to ``log(n / x)`` times
    larger.  Measured against 50-digit log-gamma functions for ``z_ref`` up to ``10^8``, ``d``
    from -0.5 to ``10^8`` and shifts up to ``10^6``: within ``6 eps |change| + 1e-15`` (the tests
    hold it to 8 eps; the plain difference of the two ratios loses ``eps m log z``: 1e-11 at
    shifts of 10^4 and offsets above 10^3).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._kernels import log_gamma_ratio_shift
    >>> from scipy import special
    >>> ratio = lambda z: special.gammaln(z + 60.0) - special.gammaln(z)
    >>> s = np.array([-499.5, 500.0])
    >>> bool(np.allclose(log_gamma_ratio_shift(1500.0, s, 60.0), ratio(1500.0 + s) - ratio(1500.0),
    ...                  rtol=1e-12, atol=0))
    True
    """
    shift = np.asarray(shift, dtype=float)
    shape = shift.shape
    shift = shift.ravel()
    if d == 0.0:
        return np.zeros(shape)
    x = (z_ref - 1.0) + np.minimum(shift, 0.0) + min(d, 0.0)
    size = np.abs(shift)
    out = _second_difference(x, np.minimum(size, abs(d)), np.maximum(size, abs(d)))
    out *= np.sign(shift) * math.copysign(1.0, d)
    return out.reshape(shape)


def _second_difference(x: np.ndarray, m: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``G(x + m + n) - G(x + m) - G(x + n) + G(x)``, ``G(y) = log Γ(y + 1)``, ``m <= n``.

    The sum of :func:`log_gamma_ratio_shift`'s docstring, element by element (its sign is the
    caller's).
    """
    mn = m * n
    # G(x) = G(x + 1) - log(x + 1): x above 15, where Stirling's series holds
    up = np.zeros(x.shape)
    low = np.flatnonzero(x <= 15.0)
    if low.size:
        xl, mnl, wl = x[low], mn[low], m[low] + n[low]
        add = np.zeros(low.size)
        for _ in range(int(math.ceil(15.0 - float(xl.min()))) + 1):
            below = xl <= 15.0
            if not below.any():
                break
            y = xl + 1.0
            add += np.where(below, np.log1p(mnl / (y * (y + wl))), 0.0)
            xl = np.where(below, y, xl)
        x = x.copy()
        x[low] = xl
        up[low] = add
    xn = x + n
    xm = x + m
    far = xn + m
    k = x.size
    dev = _bd0_shift(np.concatenate((xn, x)), np.concatenate((m, m)))
    st = stirlerr(np.concatenate((far, xn, xm, x)), float(x.min(initial=np.inf)))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (m * np.log1p(n / x) + (dev[:k] - dev[k:]) - 0.5 * np.log1p(mn / (x * far))
                + ((st[:k] - st[k:2 * k]) - (st[2 * k:3 * k] - st[3 * k:])) + up)


def log_gamma_ratio_shifts(z_ref, shift, d) -> np.ndarray:
    """:func:`log_gamma_ratio_shift` for many references and offsets at once.

    ``z_ref``, ``shift`` and ``d`` broadcast together (``z_ref`` and ``d`` typically one per
    row): the same formula, element by element, with the same accuracy (within 8 eps of the
    change), in one pass instead of one per reference.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._kernels import log_gamma_ratio_shift, log_gamma_ratio_shifts
    >>> s = np.array([[-499.5, 500.0], [3.0, -7.25]])
    >>> z, d = np.array([[1500.0], [20.5]]), np.array([[60.0], [-0.5]])
    >>> both = log_gamma_ratio_shifts(z, s, d)
    >>> bool(np.allclose(both[0], log_gamma_ratio_shift(1500.0, s[0], 60.0), rtol=1e-14, atol=0))
    True
    >>> bool(np.allclose(both[1], log_gamma_ratio_shift(20.5, s[1], -0.5), rtol=1e-14, atol=0))
    True
    """
    z_ref, shift, d = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (z_ref, shift, d)))
    shape = shift.shape
    z_ref, shift, d = z_ref.ravel(), shift.ravel(), d.ravel()
    x = (z_ref - 1.0) + np.minimum(shift, 0.0) + np.minimum(d, 0.0)
    size, reach = np.abs(shift), np.abs(d)
    out = _second_difference(x, np.minimum(size, reach), np.maximum(size, reach))
    out *= np.sign(shift) * np.sign(d)
    return out.reshape(shape)


def _bd0_shift(y: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``bd0(y + m, y)`` for ``y > 0``, ``m >= 0``, through the shift ``m`` itself.

    (``y + m`` is rounded; the difference of the rounded arguments would not be ``m``.)
    """
    v = m / (2.0 * y + m)
    near = v < 0.1
    if near.all():
        return _bd0_series(y + m, m, v)
    out = np.empty(y.shape)
    far = ~near
    out[far] = (y[far] + m[far]) * np.log1p(m[far] / y[far]) - m[far]
    if near.any():
        out[near] = _bd0_series(y[near] + m[near], m[near], v[near])
    return out
