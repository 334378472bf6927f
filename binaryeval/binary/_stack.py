"""Many materialised posteriors evaluated side by side: one point each, one kernel sum for all.

A fit of thousands of groups asks every posterior for the same few numbers (the quantiles of its
interval, its median and mode).  Asked one posterior at a time, each answer is a handful of
kernel sums of a few hundred terms, and the cost is the interpreter's, not the arithmetic's.
:class:`Stack` concatenates the components of many materialised mixtures (a single Beta is one
component) and evaluates, for one point per mixture, any number of sums
``sum_j c_j Beta(x; a_j, b_j)`` at once: the kernel sums of
:mod:`binaryeval.binary.posterior`, with a window and an anchor per point.

Both distribution functions are such sums.  With ``C_j`` the cumulative weights, the telescoping
identity of the posterior module reads ``F(x) = I_x(a_last, b_last) + x sum_{j < last}
(C_j / a_j) Beta(x; a_j, b_j)`` (its kernel ``C(N - 1, a_j) x^a_j (1 - x)^(b_j - 1)`` is
``x Beta(x; a_j, b_j) / a_j``), so the cdf and the density come from one pass (coefficients
``C_j / a_j`` and ``w_j``), every term positive.  The density's first two derivatives are
sums too (coefficients ``w_j``, ``w_j (a_j - r)`` and ``w_j (a_j - r)^2`` about a reference
``r`` near the mode, which keeps their differences small): Newton's method for the mode.

:func:`quantiles` solves ``F(x) = q`` for every posterior at once (the posterior module's
Newton iteration, on the side where each tail is small), :func:`modes` the mode; both answer
what the single-posterior methods answer, to their precision (the tests hold them to 1e-12).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ._kernels import log_beta_pdf

__all__ = ["Stack", "both_sides", "modes", "quantiles", "solve"]

_CHUNK = 2_000_000  # elements of the (points x window) work arrays per chunk
_TAIL = math.log(1e-18)
# Halley's correction is used while it is small (near the root, where the matched Beta's log
# density slope stands in well for the target's); a larger one falls back to Newton's step
_HALLEY_MAX = 0.05


class Stack:
    """Materialised mixtures ``(a, b, w)`` side by side (see the module notes).

    Parameters
    ----------
    mixtures : list of (ndarray, ndarray, ndarray)
        Each mixture's components: consecutive ``a``, ``a + b`` constant, weights summing to 1.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._stack import Stack
    >>> from scipy import stats
    >>> s = Stack([(np.array([7.0]), np.array([5.0]), np.array([1.0]))])
    >>> cdf, pdf = s.cdf_pdf(np.array([0]), np.array([0.5]))
    >>> bool(np.isclose(cdf[0], stats.beta.cdf(0.5, 7, 5), rtol=1e-14))
    True
    """

    def __init__(self, mixtures):
        sizes = np.array([m[2].size for m in mixtures], dtype=np.int64)
        self.start = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)
        self.K = sizes
        a = np.concatenate([m[0] for m in mixtures]).astype(float)
        w = np.concatenate([m[2] for m in mixtures]).astype(float)
        self.N = np.array([float(m[0][0] + m[1][0]) for m in mixtures])
        self.a0 = np.array([float(m[0][0]) for m in mixtures])
        self.a_last = np.array([float(m[0][-1]) for m in mixtures])
        self.b_last = self.N - self.a_last
        group = np.repeat(np.arange(sizes.size), sizes)
        N = self.N[group]
        b = N - a
        with np.errstate(divide="ignore", invalid="ignore"):
            # log Beta_{j+1}(x) - log Beta_j(x) - logit(x), within a mixture
            self.ratio = np.log((b - 1.0) / a)
        # each mixture's cumulative weights on its own (a running sum over all of them would
        # carry the rounding of the earlier mixtures' totals)
        cum = np.concatenate([np.cumsum(m[2]) for m in mixtures]).astype(float)
        last = np.zeros(a.size, dtype=bool)
        last[self.start + sizes - 1] = True
        self.a, self.b, self.w = a, b, w
        self.cdf_coef = np.where(last, 0.0, cum / a)
        # the coefficients of the cdf and the density, for one pass over both
        self.cdf_pdf_coefs = np.stack([self.cdf_coef, w])
        self.mean_a = np.add.reduceat(w * a, self.start)

    def sums(self, grp: np.ndarray, x: np.ndarray, coefs: np.ndarray):
        """``sum_j coefs[r, j] Beta(x_i; a_j, b_j)`` over the components of mixture ``grp[i]``.

        Returns ``(log_peak, scaled)``: the log of the kernel at its anchor and the sums divided
        by it (rows ``r``, one column per point); points strictly inside (0, 1).
        """
        start, K, N, a0 = self.start[grp], self.K[grp], self.N[grp], self.a0[grp]
        lx = np.log(x) - np.log1p(-x)
        n = np.maximum(N - 2.0, 0.0)
        centre = x * n + 1.0 - a0
        half = np.ceil(10.0 * np.sqrt(n * x * (1.0 - x)) + 40.0)
        last = K - 1
        lo = np.minimum(np.maximum(np.floor(centre - half), 0), last)
        hi = np.minimum(np.maximum(np.ceil(centre + half), 0), last)
        before, after = centre < 0, centre > last
        if before.any() or after.any():
            # a point whose kernel peaks beyond an end sums a tail of the kernel: log-concave,
            # so it falls at least by the end's own ratio; 42 / |that| terms bring it below 1e-18
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                first_ratio = self.ratio[start] + lx
                last_ratio = self.ratio[start + np.maximum(last - 1, 0)] + lx
                reach_l = np.minimum(np.ceil(42.0 / np.maximum(-first_ratio, 1e-300)) + 1,
                                     2 * half)
                reach_r = np.minimum(np.ceil(42.0 / np.maximum(last_ratio, 1e-300)) + 1,
                                     2 * half)
            hi = np.where(before, np.minimum(last, np.maximum(hi, reach_l)), hi)
            lo = np.where(after, np.maximum(0, np.minimum(lo, last - reach_r)), lo)
        anchor = np.minimum(np.maximum(np.round(centre), lo), hi).astype(np.int64)
        lo, hi = lo.astype(np.int64), hi.astype(np.int64)
        ia = start + anchor
        log_peak = log_beta_pdf(x, self.a[ia], self.b[ia])
        scaled = coefs[:, ia].copy()
        width = int(max(np.max(hi - anchor, initial=0), np.max(anchor - lo, initial=0)))
        if width == 0:
            return log_peak, scaled
        rows = max(1, _CHUNK // (2 * width + 1))
        for s in range(0, x.size, rows):
            sl = slice(s, s + rows)
            scaled[:, sl] += self._window(ia[sl], (start + lo)[sl], (start + hi)[sl], lx[sl],
                                          coefs, width, start[sl], (start + last)[sl])
        return log_peak, scaled

    def _window(self, ia, lo, hi, lx, coefs, width, first, last):
        n = ia.size
        steps = np.arange(width)
        # both directions in one array: the ratio used for the step from a + t (forwards,
        # [:, 0]) or to a - 1 - t (backwards, [:, 1])
        idx = np.empty((n, 2, width), dtype=np.int64)
        idx[:, 0] = ia[:, None] + steps
        idx[:, 1] = ia[:, None] - 1 - steps
        inside = np.empty((n, 2, width), dtype=bool)
        np.less(idx[:, 0], hi[:, None], out=inside[:, 0])
        np.greater_equal(idx[:, 1], lo[:, None], out=inside[:, 1])
        outside = ~inside
        safe = np.minimum(np.maximum(idx, 0), self.ratio.size - 1)
        vals = self.ratio[safe]
        vals += lx[:, None, None]
        vals[outside] = 0.0
        rel = np.cumsum(vals, axis=2)
        rel[:, 1] *= -1.0
        with np.errstate(under="ignore"):
            kern = np.exp(rel)
        kern[outside] = 0.0
        # the term reached: a + t + 1 forwards, a - 1 - t backwards
        safe[:, 0] += 1
        np.minimum(safe, coefs.shape[1] - 1, out=safe)
        total = np.empty((coefs.shape[0], n))
        for r in range(coefs.shape[0]):
            total[r] = np.add.reduce((kern * coefs[r][safe]).reshape(n, -1), axis=1)
        count = inside.sum(axis=2)
        reached = np.take_along_axis(rel, np.maximum(count - 1, 0)[:, :, None], axis=2)[:, :, 0]
        edges = np.where(count > 0, reached, -np.inf)
        # each window must end where the kernel is negligible (or at the mixture's first/last
        # component)
        if np.any(((hi < last) & (edges[:, 0] > _TAIL)) | ((lo > first) & (edges[:, 1] > _TAIL))):
            raise FloatingPointError("internal: kernel window too narrow; please report this case")
        return total

    def cdf_pdf(self, grp: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Distribution function and density of mixture ``grp[i]`` at ``x[i]`` (in (0, 1))."""
        log_peak, s = self.sums(grp, x, self.cdf_pdf_coefs)
        with np.errstate(under="ignore", over="ignore"):
            peak = np.exp(log_peak)
            cdf = special.betainc(self.a_last[grp], self.b_last[grp], x) + x * peak * s[0]
            return np.minimum(cdf, 1.0), peak * s[1]

    def cdf(self, grp: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Distribution function of mixture ``grp[i]`` at ``x[i]`` (in (0, 1))."""
        log_peak, s = self.sums(grp, x, self.cdf_coef[None, :])
        with np.errstate(under="ignore", over="ignore"):
            cdf = special.betainc(self.a_last[grp], self.b_last[grp], x) + \
                x * np.exp(log_peak) * s[0]
        return np.minimum(cdf, 1.0)

    def logpdf(self, grp: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Log density of mixture ``grp[i]`` at ``x[i]`` (in (0, 1))."""
        log_peak, s = self.sums(grp, x, self.w[None, :])
        with np.errstate(divide="ignore"):
            return log_peak + np.log(s[0])


def solve(stack: Stack, grp: np.ndarray, tail: np.ndarray, mean: np.ndarray,
          var: np.ndarray, shape: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The ``y`` with ``cdf_grp[i](y) = tail[i]`` for every ``i`` (tails in [0, 1/2]).

    ``mean``, ``var``: the moments of mixture ``grp[i]``; ``shape``, optionally, its skewness
    and excess kurtosis (for a better start).  The posterior module's Newton
    iteration (:func:`_solve_tails`), all targets at once; ask the
    mirrored mixture (components of ``1 - alpha``) for a quantile above the median.
    """
    def evaluate(active, y):
        g = grp[active]
        F = np.zeros(y.shape)
        logf = np.full(y.shape, -np.inf)
        inner = (y > 0.0) & (y < 1.0)
        F[y >= 1.0] = 1.0
        if inner.any():
            cdf, pdf = stack.cdf_pdf(g[inner], y[inner])
            F[inner] = cdf
            with np.errstate(divide="ignore"):
                logf[inner] = np.log(pdf)
        return F, logf

    return _solve_tails(evaluate, tail, mean, var, shape)


def both_sides(mixtures) -> Stack:
    """The stack of the mixtures followed by their mirrors (``1 - alpha``).

    Groups ``i`` and ``len(mixtures) + i`` are the two sides of mixture ``i``.
    """
    return Stack(list(mixtures) + [(b[::-1].copy(), a[::-1].copy(), w[::-1].copy())
                                   for a, b, w in mixtures])


def quantiles(stack: Stack, q: np.ndarray, mean: np.ndarray, var: np.ndarray) -> np.ndarray:
    """The ``q[i]``-quantile of mixture ``i`` of a :func:`both_sides` stack, for every ``i``.

    Each is solved on its small side: ``F(x) = q`` below the median, the mirror's
    ``F(y) = 1 - q`` (``x = 1 - y``) above it, so that both tails keep their relative accuracy.
    """
    q = np.asarray(q, dtype=float)
    n = q.size
    small = q <= 0.5
    grp = np.where(small, np.arange(n), n + np.arange(n))
    tail = np.where(small, q, 1.0 - q)
    y = solve(stack, grp, tail, np.where(small, mean, 1.0 - mean), var)
    return np.where(small, y, 1.0 - y)


def modes(stack: Stack, mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """The mode of every mixture, NaN where Newton's method cannot vouch for it.

    Newton's method on the density's derivative from the moment-matched Beta's mode, inside a
    bracket ``mean -+ 8 sd`` whose ends must have the derivative's signs of a single interior
    maximum (else NaN: the caller asks the posterior itself, which looks at the whole density).
    A step that leaves the bracket, or a density that is not concave there, bisects.
    """
    n = mean.size
    grp = np.arange(n)
    lo = np.clip(mean - 8.0 * sd, 1e-300, 1.0 - 1e-16)
    hi = np.clip(mean + 8.0 * sd, 1e-300, 1.0 - 1e-16)
    # the coefficients about each mixture's mean a (their sums then differ little), for the
    # mixtures asked about (the first n of the stack)
    ref = stack.mean_a
    end = int(stack.start[n - 1] + stack.K[n - 1])
    d = stack.a[:end] - np.repeat(ref[:n], stack.K[:n])
    w = stack.w[:end]
    coefs = np.stack([w, w * d, w * d * d])

    def derivatives(g, x):
        r = ref[g]
        N = stack.N[g]
        _, s = stack.sums(g, x, coefs)
        s0, s1, s2 = s
        u = 1.0 + (N - 2.0) * x - r           # (a_j - 1 - (N - 2) x) = (a_j - r) - u
        xx = x * (1.0 - x)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            d1 = (s1 - u * s0) / xx
            second = (s2 - 2.0 * u * s1 + u * u * s0) / (xx * xx)
            second -= (s1 + (r - 1.0) * s0) / (x * x) + ((N - 1.0 - r) * s0 - s1) / (1.0 - x) ** 2
        return d1, second

    d_lo, _ = derivatives(grp, lo)
    d_hi, _ = derivatives(grp, hi)
    good = (d_lo > 0) & (d_hi < 0)
    var = sd * sd
    c = np.maximum(mean * (1.0 - mean) / np.maximum(var, 1e-300) - 1.0, 1e-6)
    a_, b_ = mean * c, (1.0 - mean) * c
    x = np.where((a_ > 1) & (b_ > 1), (a_ - 1.0) / np.maximum(a_ + b_ - 2.0, 1e-300), mean)
    x = np.clip(x, lo, hi)
    out = np.full(n, np.nan)
    active = np.flatnonzero(good)
    for _ in range(100):
        if not active.size:
            break
        xa = x[active]
        d1, d2 = derivatives(active, xa)
        lo[active] = np.where(d1 > 0, xa, lo[active])
        hi[active] = np.where(d1 > 0, hi[active], xa)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = d1 / d2
        new = xa - step
        bad = ~np.isfinite(new) | (d2 >= 0) | (new <= lo[active]) | (new >= hi[active])
        new = np.where(bad, 0.5 * (lo[active] + hi[active]), new)
        done = (~bad & (np.abs(step) <= 1e-10 * xa)) | (d1 == 0) | \
            (hi[active] - lo[active] <= 1e-15 * hi[active])
        x[active] = np.where(d1 == 0, xa, new)
        out[active[done]] = x[active[done]]
        active = active[~done]
    return out


def _solve_tails(evaluate, tail: np.ndarray, mean: np.ndarray, var: np.ndarray,
                 shape: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The ``y`` with ``cdf_i(y) = tail[i]`` for every ``tail[i]`` in [0, 1/2] at once.

    ``evaluate(active, y)`` gives the cdf and log density of target ``active[j]`` at ``y[j]``;
    ``mean``, ``var`` the moments of each target's distribution, ``shape`` optionally its
    skewness and excess kurtosis.  Newton's method on
    ``log cdf(y) - log tail`` (nearly linear in ``y`` far in a tail, where the cdf itself is
    exponentially curved), started from the Beta distribution with the same mean and variance
    (with ``shape``, moved by the difference of the Cornish-Fisher expansions of the target and
    that Beta, when the move is below a quarter standard deviation and the tail above 1e-6: for
    the posteriors of a few hundred paired rows the start is then within about 1e-5 of the
    quantile instead of 3e-4, and one evaluation fewer is needed; the start only saves work,
    the iteration below decides the answer).
    A bracket ``[lo, hi]`` holding the root is kept from the signs seen; a step that leaves it,
    or a density of zero, is replaced by bisection, so the iteration converges for any
    increasing cdf (several modes included).  It stops after a Newton step below 1e-9 of ``y``
    (the error left is of the order of its square), or when the bracket is within 1e-15 of
    ``y``; the cdf's own error (1e-13 relative in the tails) bounds the quantile's accuracy
    before that.
    """
    out = np.zeros(tail.shape)
    todo = np.flatnonzero(tail > 0.0)
    if not todo.size:
        return out
    t = tail[todo]
    log_t = np.log(t)
    m, v = np.asarray(mean, dtype=float)[todo], np.asarray(var, dtype=float)[todo]
    c = np.maximum(m * (1.0 - m) / np.maximum(v, 1e-300) - 1.0, 1e-6)
    with np.errstate(invalid="ignore"):
        y = special.betaincinv(np.maximum(m * c, 1e-300), np.maximum((1.0 - m) * c, 1e-300), t)
    y = np.where(np.isfinite(y) & (y > 0.0) & (y < 1.0), y, m)
    if shape is not None:
        y = _cornish_fisher_start(y, t, m, v, c, *(np.asarray(s, dtype=float)[todo]
                                                    for s in shape))
    # the matched Beta's a - 1 and b - 1: its log density's slope stands in for the target's
    am1, bm1 = m * c - 1.0, (1.0 - m) * c - 1.0
    lo, hi = np.zeros(t.shape), np.ones(t.shape)
    active = np.arange(t.size)
    for _ in range(100):
        ya = y[active]
        F, logf = evaluate(todo[active], ya)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            logF = np.log(F)
            resid = logF - log_t[active]
            # d log F / dy = f / F
            slope = np.exp(logf - logF)
            step = resid / slope
            # Halley's correction with the second derivative g'' = g' (d log f / dy - g') of
            # g = log F - log t, the log density's slope taken from the matched Beta: nearly
            # cubic convergence while that slope is close; only while the correction is small
            # (_HALLEY_MAX), else Newton's step (the stopping rule below is Newton's)
            h = 0.5 * step * (am1[active] / ya - bm1[active] / (1.0 - ya) - slope)
            move = np.where(np.abs(h) <= _HALLEY_MAX, step / (1.0 - h), step)
        below = resid < 0.0
        lo[active] = np.where(below, ya, lo[active])
        hi[active] = np.where(below, hi[active], ya)
        new = ya - move
        bad = ~np.isfinite(new) | (new <= lo[active]) | (new >= hi[active])
        # quadratic convergence: after a Newton step below 1e-9 of y the error is of order its
        # square (relative to y, times the log cdf's curvature: below 1e-16 in practice); a step
        # that small leaving the bracket is the cdf's rounding noise (y is as good as it gets)
        # (far in a tail of the smooth representation the cdf carries relative noise, up to 1e-6
        # at 1e-15: a step out of the bracket when the cdf is that close is that noise too)
        tiny = (np.abs(step) <= 1e-9 * ya) | (bad & (np.abs(resid) <= 1e-6))
        done = (resid == 0.0) | tiny | (hi[active] - lo[active] <= 1e-15 * hi[active])
        new = np.where(bad, np.where(tiny, ya, 0.5 * (lo[active] + hi[active])), new)
        y[active] = np.where(resid == 0.0, ya, new)
        active = active[~done]
        if not active.size:
            break
    out[todo] = y
    return out


def _cornish_fisher_start(y: np.ndarray, t: np.ndarray, m: np.ndarray, v: np.ndarray,
                          c: np.ndarray, skew: np.ndarray, kurt: np.ndarray) -> np.ndarray:
    """The Beta quantile ``y`` moved by the Cornish-Fisher difference of target and Beta.

    The Beta has mean ``m``, variance ``v`` (``c = a + b``); the target skewness ``skew`` and
    excess kurtosis ``kurt``.  With ``z`` the normal quantile of ``t``, each distribution's
    quantile is about ``mean + sd (z + (z^2 - 1) g / 6 + (z^3 - 3 z) e / 24 - (2 z^3 - 5 z)
    g^2 / 36)``; the two share mean and sd, so the difference of the expansions moves the Beta's
    exact quantile towards the target's.  Kept only where the move is small (below a quarter
    standard deviation), the tail above 1e-6 and the result inside (0, 1).
    """
    a, b = m * c, (1.0 - m) * c
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        g_b = 2.0 * (b - a) * np.sqrt(c + 1.0) / ((c + 2.0) * np.sqrt(a * b))
        e_b = 6.0 * ((a - b) ** 2 * (c + 1.0) - a * b * (c + 2.0)) / (a * b * (c + 2.0) * (c + 3.0))
        z = special.ndtri(t)
        sd = np.sqrt(v)
        move = sd * ((skew - g_b) * (z * z - 1.0) / 6.0 + (kurt - e_b) * (z ** 3 - 3.0 * z) / 24.0
                     - (skew * skew - g_b * g_b) * (2.0 * z ** 3 - 5.0 * z) / 36.0)
        new = y + move
        ok = (np.isfinite(new) & (np.abs(move) <= 0.25 * sd) & (t >= 1e-6) & (new > 0.0)
              & (new < 1.0))
    return np.where(ok, new, y)
