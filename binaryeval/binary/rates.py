"""The model's posterior of the metric's rates ``rho`` and ``eta`` (not the paired rows' alone).

The metric-only ratings inform the rates too: through ``alpha``, which the human ratings pin
down, the share of metric positives says how often the metric accepts.  Split the ``k`` positive
of the ``M`` metric-only ratings into ``X`` adequate outputs (the rest inadequate) and the
``M - k`` negatives into ``U`` adequate ones.  Given ``(X, U)`` the three parameters are
independent Beta posteriors,

    alpha ~ Beta(A + X + U, B + M - X - U),
    rho   ~ Beta(Ar + X, Br + U),
    eta   ~ Beta(Ae + M - k - U, Be + k - X),

(``A, B`` the prior of ``alpha`` plus the human ratings, ``Ar, Br`` and ``Ae, Be`` the rate prior
plus the paired counts ``tp, fn`` and ``tn, fp``), and the split has the posterior weights

    w(X, U) ∝ C(k, X) C(M - k, U) B(A + X + U, B + M - X - U) B(Ar + X, Br + U)
              B(Ae + M - k - U, Be + k - X)

(a known rate contributes ``rho^X (1 - rho)^U`` or ``eta^(M - k - U) (1 - eta)^(k - X)``
instead): the joint posterior is a finite mixture, exact.  Its ``alpha`` margin is the mixture
over ``T = X + U`` of the exact engine (:mod:`binaryeval.binary.engine`); the tests check that the
two agree.

Computation: every term when ``(k + 1)(M - k + 1)`` is at most ``_FULL`` (250,000: up to about
1,000 metric-only ratings per group).  Beyond that, the box of the terms within ``1e-20`` of the
largest weight is located from the mode (Newton's method on the continuous log weights) and
checked on its four sides, and the sums run on a lattice as coarse as Poisson's summation formula
allows, in each direction where the weights fall off before the square's edge (unit steps where
they press against it), checked against a copy shifted by half a step
(:mod:`binaryeval.binary._lattice`).  The tests hold it to the sum over every term within 1e-11
on designs of 5,000 metric-only ratings (inside the square, pressing either edge), and the
mixture's mean of ``alpha`` to the exact engine's within 1e-11.  The box is grown from one
mode; a coarse scan of the whole square (401 x 401 points) must find nothing above the cut
outside it (with few paired ratings the weights can have a second, mirror-image mode).  Where
no such lattice is possible, every term while there are at most ``_FULL_FALLBACK`` (4 million);
beyond that (hundreds of thousands of metric-only ratings with a few dozen paired ones, the
weights pressing two edges over some 10^10 terms) the region is zoomed into from a coarse scan
and summed on a lattice an eighth of the weights' spread apart; those sums are not checked, and
``BinaryFit.rates()`` says so whenever the mixture's mean of ``alpha`` misses the exact
engine's by more than 1e-8 (it misses by 1e-4 to 6e-4 on such designs).  Moments are
the mixture's; the interval's ends are roots of the mixture's distribution function.  With every term, the components of one row (fixed ``U`` for ``rho``)
have consecutive first parameters, so the distribution function is one incomplete beta function
per row plus a sum of kernel terms (``I_t(a + 1, b) = I_t(a, b) - t^a (1 - t)^b / (a B(a, b))``).
Everything after the log weights runs on the box of the terms within ``1e-20`` of the largest
weight, normalised on it: the terms left out are each below 1e-20 of the largest, so together
below ``1e-20 (k + 1)(M - k + 1) <= 2.5e-15`` of the mass (tested).  For a group of 1,000
ratings, 10 % of them paired, that box still holds some 50,000 to 130,000 terms (the weights
spread over about 10 to 30 in ``X`` and in ``U`` and reach 1e-20 only some 14 spreads out).

With every term, the rates come first from one-dimensional tables alone
(:func:`_table_rates`): no two-dimensional array but one Hankel matrix is made, and no
exponential of one is taken.  The marginal weights of ``X`` and ``U`` over the whole square are
correlations of the exponentials of the (tilted, scaled) tables, exact sums of positive terms;
they give the mean of ``alpha`` over every term, the guesses below, and the box: the rows and
columns at either end whose marginal mass is at most ``5e-16`` each are left out, at most
``2e-15`` of the mass, measured (some 63,000 to 140,000 terms for a group of 1,000 ratings,
0.8 of the box below).  Each rate's density at the points of the Chebyshev grid below (65 or
129 of them) is then one matrix product of a Hankel matrix of ``T`` with a column and a row
factor per point (:func:`_table_density`), with the grid's checks; each component's log
density there is its value at the mean split (an accurate log beta function) plus differences
of log-gamma functions, so no rounding scales the density as a whole.  A grid that misses
mass beyond its ends, or reaches fewer than 9 of the sds found, is tried once more reaching
14 guessed sds instead of 10 (a long tail: about 8 % of groups of 1,000 ratings with one or two
false positives or negatives among the paired rows, 7.7e-12 of the mass beyond 10 sds on one
of them).  Where a check of the tables fails, the box
of the terms within ``1e-20`` of the largest below answers: for both rates when the scaling
fails (after a second tilt, where the tilted tables' largest entries line up), for the one rate
whose grid fails otherwise.

On that box the work is arranged for many groups (``BinaryFit.rates()`` and ``to_frame()``
compute it per group): every beta function splits into log-gamma functions of ``X``, of ``U``
and of ``T = X + U``, so the log weights, the moments and the kernel terms come from
one-dimensional tables (Hankel views in ``T``) instead of a beta function per term.  Each
rate's moments and interval then come from its density on a Chebyshev grid of 33 to 129
points over its mean +- 10 sds: the terms at every grid point are those at one reference
point times a row and a column factor, so the density at all points is one matrix product
and no incomplete beta function is evaluated; the distribution function is the
interpolant's integral, checked to be within ``1.2e-12`` of the mixture's (the checks and
the bound: :func:`_chebyshev_rate`).  Where that does not apply (a grid reaching 0 or 1 with
a component's parameter at most 1 there, a check failing), each end is found by Newton's
method inside a shrinking bracket (bisection when a step leaves it), with
the density from the same kernel terms, to the accuracy of the Brent search it replaces
(``1e-12``; a step below ``1e-6`` standard deviations ends it, its error then being of the
order of the step's square); and the kernel terms are tabulated at one reference point, from
which each Newton step is two matrix-vector products.  The tests hold the ends (either way)
to 1e-11 of a term-by-term sum of incomplete beta functions solved by Brent's method, and to
1e-10 on random designs with the edges a fit meets (tp or tn zero, no paired rows, one
metric-only rating, no metric-only positives or negatives, known rates, a rate prior below
1); the two ways agree to 1e-11 on groups of 1,000 ratings.  The tables' way is held to the
box's (and to Brent's method) within 1e-11 on groups of 1,000 ratings and on those random
designs, its marginals to the beta functions' term by term within 1e-10 relative, its density
to scipy's beta densities within 1e-12 relative, its log beta function and log-gamma
differences to 50-digit decimals, and the mass it leaves out to its bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

__all__ = ["RatePosterior", "model_rate_means", "model_rates", "model_rates_batch"]

_FULL = 250_000
_FULL_FALLBACK = 4_000_000   # every term, where the lattice is not possible, up to this many
_TABLES = True          # every term from one-dimensional tables first (_table_rates)
_LATTICE = 400          # lattice points per direction while zooming
_PRUNE = math.log(1e-20)


@dataclass(frozen=True)
class RatePosterior:
    """Posterior mean, sd and equal-tailed interval of one rate; ``known`` when fixed."""

    mean: float
    sd: float
    lower: float
    upper: float
    known: bool = False


def _lchoose(n: float, x: np.ndarray) -> np.ndarray:
    return special.gammaln(n + 1) - special.gammaln(x + 1) - special.gammaln(n - x + 1)


def _log_weights(X: np.ndarray, U: np.ndarray, *, A, B, k, M, Ar, Br, Ae, Be, rho, eta
                 ) -> np.ndarray:
    """Log-weights ``log w(X, U)`` up to a constant, on the outer grid (rows U, columns X)."""
    x, u = X[None, :], U[:, None]
    lw = (_lchoose(k, x) + _lchoose(M - k, u)
          + special.betaln(A + x + u, B + M - x - u))
    lw = lw + (special.betaln(Ar + x, Br + u) if rho is None
               else x * math.log(rho) + u * math.log1p(-rho) if 0 < rho < 1
               else np.where((x > 0) if rho == 0 else (u > 0), -np.inf, 0.0))
    lw = lw + (special.betaln(Ae + (M - k - u), Be + (k - x)) if eta is None
               else (M - k - u) * math.log(eta) + (k - x) * math.log1p(-eta) if 0 < eta < 1
               else np.where((M - k - u > 0) if eta == 0 else (k - x > 0), -np.inf, 0.0))
    return lw


def _log_weights_full(*, A, B, k, M, Ar, Br, Ae, Be, rho, eta, tables=None) -> np.ndarray:
    """:func:`_log_weights` on every term, built from one-dimensional tables.

    Rows ``U = 0..M-k``, columns ``X = 0..k``.  Each beta function splits into log-gamma functions of ``X``, of ``U`` and of ``T = X + U``
    alone, so the grid is the sum of a column table, a row table and a Hankel table of ``T``
    (a view, no copy): the same terms as :func:`_log_weights` with ``O(k + M)`` log-gamma
    evaluations instead of ``O(k (M - k))`` beta functions (the terms agree to about 1e-12
    relative: log-gamma of arguments up to ``A + B + M`` to double precision).
    """
    if tables is None:
        tables = _log_weight_tables(A=A, B=B, k=k, M=M, Ar=Ar, Br=Br, Ae=Ae, Be=Be, rho=rho,
                                    eta=eta)
    fx, gu, ht = tables
    # hankel[U, X] = ht[U + X]; in place (a second temporary of the grid's size costs more
    # than the additions)
    out = np.add(np.lib.stride_tricks.sliding_window_view(ht, k + 1), gu[:, None])
    out += fx[None, :]
    return out


def _log_weight_tables(*, A, B, k, M, Ar, Br, Ae, Be, rho, eta
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tables of :func:`_log_weights_full`: ``log w(X, U) = fx[X] + gu[U] + ht[X + U]``."""
    x = np.arange(k + 1, dtype=float)
    u = np.arange(M - k + 1, dtype=float)
    t = np.arange(M + 1, dtype=float)
    fx = _lchoose(k, x)
    gu = _lchoose(M - k, u)
    ht = special.betaln(A + t, B + M - t)
    if rho is None:
        fx = fx + special.gammaln(Ar + x)
        gu = gu + special.gammaln(Br + u)
        ht = ht - special.gammaln(Ar + Br + t)
    elif 0 < rho < 1:
        fx = fx + x * math.log(rho)
        gu = gu + u * math.log1p(-rho)
    elif rho == 0:
        fx = np.where(x > 0, -np.inf, fx)
    else:
        gu = np.where(u > 0, -np.inf, gu)
    if eta is None:
        fx = fx + special.gammaln(Be + k - x)
        gu = gu + special.gammaln(Ae + M - k - u)
        ht = ht - special.gammaln(Ae + Be + M - t)
    elif 0 < eta < 1:
        fx = fx + (k - x) * math.log1p(-eta)
        gu = gu + (M - k - u) * math.log(eta)
    elif eta == 0:
        gu = np.where(M - k - u > 0, -np.inf, gu)
    else:
        fx = np.where(k - x > 0, -np.inf, fx)
    return fx, gu, ht


def _zoom(k: int, M: int, args: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lattice points (X, U) and normalised weights covering the posterior of the split."""
    x_lo, x_hi, u_lo, u_hi = 0.0, float(k), 0.0, float(M - k)
    for _ in range(12):
        X = np.unique(np.round(np.linspace(x_lo, x_hi, _LATTICE)))
        U = np.unique(np.round(np.linspace(u_lo, u_hi, _LATTICE)))
        lw = _log_weights(X, U, **args)
        w = np.exp(lw - lw.max())
        w /= w.sum()
        mx, mu = float((w.sum(axis=0) * X).sum()), float((w.sum(axis=1) * U).sum())
        sx = math.sqrt(max(float((w.sum(axis=0) * (X - mx) ** 2).sum()), 0.0))
        su = math.sqrt(max(float((w.sum(axis=1) * (U - mu) ** 2).sum()), 0.0))
        step_x = (X[-1] - X[0]) / max(X.size - 1, 1)
        step_u = (U[-1] - U[0]) / max(U.size - 1, 1)
        keep = lw >= lw.max() + _PRUNE
        cols, rows = np.flatnonzero(keep.any(axis=0)), np.flatnonzero(keep.any(axis=1))
        nx_lo, nx_hi = X[max(cols[0] - 2, 0)], X[min(cols[-1] + 2, X.size - 1)]
        nu_lo, nu_hi = U[max(rows[0] - 2, 0)], U[min(rows[-1] + 2, U.size - 1)]
        fine = step_x <= max(sx / 4, 1.0) and step_u <= max(su / 4, 1.0)
        if fine and (nx_lo, nx_hi, nu_lo, nu_hi) == (x_lo, x_hi, u_lo, u_hi):
            break
        if fine and step_x <= 1 and step_u <= 1:
            break
        x_lo, x_hi, u_lo, u_hi = nx_lo, nx_hi, nu_lo, nu_hi
    # the final lattice: an eighth of the spread (or 1) apart, over the box found
    hx, hu = max(1, int(sx // 8)), max(1, int(su // 8))
    X = np.arange(x_lo, x_hi + 1, hx, dtype=float)
    U = np.arange(u_lo, u_hi + 1, hu, dtype=float)
    lw = _log_weights(X, U, **args)
    w = np.exp(lw - lw.max())
    # the lattice sum stands for the sum over every integer point: weight by the cell each
    # lattice point represents
    cx = np.gradient(X) if X.size > 1 else np.ones(1)
    cu = np.gradient(U) if U.size > 1 else np.ones(1)
    w = w * cu[:, None] * cx[None, :]
    return X, U, w / w.sum()


def _cdf_direct(t: float, a: np.ndarray, b: np.ndarray, w: np.ndarray) -> float:
    return float((w * special.betainc(a, b, t)).sum())


def _cdf_rows(t: float, a0: float, b: np.ndarray, W: np.ndarray, tails: np.ndarray,
              lkern: np.ndarray, ai: np.ndarray | None = None, density: bool = False):
    """Mixture CDF for rows of consecutive first parameters ``a0 + i`` (row ``j``: ``b[j]``).

    ``sum_ij W[j, i] I_t(a0 + i, b_j) = sum_j [S_j I_t(a0, b_j) - sum_i C[j, i] d_ji(t)]`` with
    ``d_ji = t^(a0 + i) (1 - t)^b_j / ((a0 + i) B(a0 + i, b_j))`` and ``C[j, i]`` the weight of
    row ``j`` beyond column ``i``.  With ``density=True`` also the mixture's density, from the
    same terms: the density of component ``(i, j)`` at ``t`` is ``d_ji (a0 + i) / (t (1 - t))``.
    """
    if t <= 0.0 or t >= 1.0:
        value = 0.0 if t <= 0.0 else 1.0
        return (value, 0.0) if density else value
    n = W.shape[1]
    if ai is None:
        ai = a0 + np.arange(n)
    d = np.exp(ai[None, :] * math.log(t) + b[:, None] * math.log1p(-t) + lkern)
    head = (W.sum(axis=1) * special.betainc(a0, b, t)).sum()
    cdf = float(head - (tails * d).sum())
    if not density:
        return cdf
    pdf = float(((W * d) @ ai).sum()) / (t * (1.0 - t))
    return cdf, pdf


class _RowMixture:
    """:func:`_cdf_rows` with its density, many points for one pass over the terms.

    The kernel terms at ``t`` are those at a reference point ``t0`` times
    ``exp((a0 + i) r) exp(b_j s)`` with ``r = log(t / t0)``, ``s = log((1 - t) / (1 - t0))``:
    after one pass that tabulates the terms at ``t0``, each point near it costs two
    matrix-vector products.  Every term is positive, so the sums keep their relative
    accuracy.  The factors are used while ``E = max_i (a0 + i) r + max_j b_j s <= 200``, the
    largest exponent any term is scaled by (a point beyond that becomes the new reference),
    and they are applied as ``exp((a0 + i) r - c)`` (at most 1) and ``exp(b_j s + c)`` (at most
    ``e^200``, far below the largest double) with ``c = max_i (a0 + i) r``.  A term that
    matters at ``t`` (at least ``1e-20`` of the largest there, which is at least ``1e-6`` of
    their sum) was at least ``e^-200`` of that at ``t0``: a normal double, exact to its last
    bit, not an underflow; a column factor that underflows belongs to terms below ``1e-220``
    of the largest at ``t``.
    """

    _REACH = 200.0

    def __init__(self, a0: float, b: np.ndarray, W: np.ndarray, tails: np.ndarray,
                 lkern: np.ndarray, ai: np.ndarray):
        self.a0, self.b, self.W, self.tails, self.lkern, self.ai = a0, b, W, tails, lkern, ai
        self.row_weight = W.sum(axis=1)
        self.t0 = None

    def _reference(self, t: float) -> None:
        # the kernel terms at t, then both tables, in place (one work array besides them)
        d = np.add(self.lkern, (self.ai * math.log(t))[None, :])
        d += (self.b * math.log1p(-t))[:, None]
        np.exp(d, out=d)
        self.t0 = t
        self.k_cdf = self.tails * d
        d *= self.W
        d *= self.ai[None, :]
        self.k_pdf = d

    def __call__(self, t: float) -> tuple[float, float]:
        if t <= 0.0 or t >= 1.0:
            return (0.0 if t <= 0.0 else 1.0), 0.0
        if self.t0 is None:
            self._reference(t)
        ar = self.ai * math.log(t / self.t0)
        bs = self.b * (math.log1p(-t) - math.log1p(-self.t0))
        c = float(ar.max())
        if c + float(bs.max()) > self._REACH:
            self._reference(t)
            ar, bs, c = np.zeros_like(self.ai), np.zeros_like(self.b), 0.0
        col = np.exp(ar - c)
        row = np.exp(bs + c)
        head = float((self.row_weight * special.betainc(self.a0, self.b, t)).sum())
        cdf = head - float(row @ (self.k_cdf @ col))
        pdf = float(row @ (self.k_pdf @ col)) / (t * (1.0 - t))
        return cdf, pdf


def _newton_quantiles(cdf_pdf, mean: float, sd: float, probs: tuple[float, float]
                      ) -> tuple[float, float]:
    """Roots of ``cdf(t) = p`` by Newton's method kept inside a shrinking bracket.

    ``cdf_pdf(t)`` returns the mixture's distribution function and density at ``t``.  A step
    that leaves the bracket is replaced by bisection; the iteration stops when a step is below
    ``1e-13``, or below ``1e-6 sd`` (quadratic convergence: the error left after such a step is
    about its square times half the log density's slope, ``|z| / (2 sd)`` near the normal's
    quantile ``z``, so about ``1e-12 sd``) while the distribution function is within ``1e-7``
    of ``p``,
    or when the bracket is narrower than ``1e-12`` (brentq's ``xtol`` before), so the root is
    as accurate as the root search it replaces.
    """
    out = []
    z = {p: math.sqrt(2.0) * float(special.erfinv(2.0 * p - 1.0)) for p in probs}
    for p in probs:
        lo, hi = 0.0, 1.0
        t = min(max(mean + z[p] * sd, 1e-300), 1.0 - 1e-16)
        for _ in range(200):
            f, dens = cdf_pdf(t)
            g = f - p
            if g == 0.0:
                lo = hi = t
                break
            if g < 0:
                lo = t
            else:
                hi = t
            step = g / dens if dens > 0 else math.inf
            # (a small step alone is not enough: beside a prior below 1 the density is
            # unbounded at 0 or 1, and a start there takes tiny steps far from the root)
            small = abs(step) < 1e-13 or (abs(step) < 1e-6 * sd and lo < t - step < hi)
            if small and abs(g) <= 1e-7:
                t = min(max(t - step, lo), hi)
                break
            new = t - step
            if not (lo < new < hi):
                new = 0.5 * (lo + hi)
            if hi - lo < 1e-12:
                t = new
                break
            t = new
        out.append(float(t))
    return out[0], out[1]


def _quantiles(cdf, mean: float, sd: float, probs: tuple[float, float]) -> tuple[float, float]:
    out = []
    for p in probs:
        lo, hi = max(mean - 12 * sd, 0.0), min(mean + 12 * sd, 1.0)
        f_lo, f_hi = cdf(lo) - p, cdf(hi) - p
        if f_lo > 0:
            lo, f_lo = 0.0, -p
        if f_hi < 0:
            hi, f_hi = 1.0, 1.0 - p
        if f_lo == 0:
            out.append(lo)
        elif f_hi == 0:
            out.append(hi)
        else:
            out.append(float(optimize.brentq(lambda t, p=p: cdf(t) - p, lo, hi, xtol=1e-12)))
    return out[0], out[1]


def model_rates(*, A: float, B: float, k: int, M: int, tp: int, fn: int, tn: int, fp: int,
                rate_prior: tuple[float, float], rho: float | None = None,
                eta: float | None = None, level: float = 0.95
                ) -> tuple[RatePosterior, RatePosterior, float]:
    """The model's posterior of ``rho`` and ``eta``, and its mean of ``alpha`` (a check).

    Parameters
    ----------
    A, B : float
        Prior of ``alpha`` plus the human ratings informing it (positives, negatives).
    k, M : int
        Positive and all metric-only ratings.
    tp, fn, tn, fp : int
        Paired counts informing the rates (pooled ones with pooled rates).
    rate_prior : (float, float)
        Beta prior of each rate.
    rho, eta : float, optional
        Known rates.
    level : float
        Probability of the intervals.

    Returns
    -------
    (RatePosterior, RatePosterior, float)

    Examples
    --------
    Without metric-only ratings the posterior of the rates is the paired rows' Beta:

    >>> from binaryeval.binary.rates import model_rates
    >>> r, e, _ = model_rates(A=61, B=41, k=0, M=0, tp=40, fn=10, tn=30, fp=20,
    ...                       rate_prior=(1, 1))
    >>> round(r.mean, 6), round(41 / 52, 6)
    (0.788462, 0.788462)
    """
    with _one_blas_thread():
        return _model_rates(A=A, B=B, k=k, M=M, tp=tp, fn=fn, tn=tn, fp=fp,
                            rate_prior=rate_prior, rho=rho, eta=eta, level=level)


def _model_rates(*, A: float, B: float, k: int, M: int, tp: int, fn: int, tn: int, fp: int,
                 rate_prior: tuple[float, float], rho: float | None, eta: float | None,
                 level: float) -> tuple[RatePosterior, RatePosterior, float]:
    """:func:`model_rates` (its matrix products on one BLAS thread, set by the caller)."""
    ar, br = rate_prior
    args = dict(A=A, B=B, k=k, M=M, Ar=ar + tp, Br=br + fn, Ae=ar + tn, Be=br + fp,
                rho=rho, eta=eta)
    tail = (1.0 - level) / 2.0
    probs = (tail, 1.0 - tail)
    if (k + 1) * (M - k + 1) > _FULL:
        # the box of the terms that matter, found without visiting the square, and the
        # coarsest lattice its sums allow (binaryeval.binary._lattice)
        lat = _on_lattice(args)
        if lat is not None:
            if lat.steps == (1, 1):
                return (*_full_rates(lat.w, lat.X, lat.U, args, probs, lat.lw),
                        _alpha_mean(lat.w, lat.X, lat.U, A, B, M))
            return _lattice_rates(lat, args, probs)
    # no lattice (a second mode, or too many terms at unit steps): every term while they
    # fit in memory, else the coarse zoom (whose alpha BinaryFit.rates() checks)
    full = (k + 1) * (M - k + 1) <= max(_FULL, _FULL_FALLBACK)
    if full:
        tables = _log_weight_tables(**args)
        got = _table_rates(tables, args, probs) if _TABLES else None
        if got is not None and got[0] is not None and got[1] is not None:
            return got
        X, U, w, lw = _box(_log_weights_full(**args, tables=tables), log=True)
        if got is not None and (got[0] is not None or got[1] is not None):
            # the rate the tables answered stands; the box answers the other
            done = {name: r for name, r in zip(("rho", "eta"), got[:2], strict=True)
                    if r is not None}
            return (*_full_rates(w, X, U, args, probs, lw, done), got[2])
    else:
        X, U, w = _zoom(k, M, args)
        lw = None  # the zoomed weights come without their logs (the Newton path needs none)
        full = bool(np.all(np.diff(X) == 1) and np.all(np.diff(U) == 1))
    if full:
        # unit steps: every sum below from one-dimensional tables in X, U and T = X + U
        return (*_full_rates(w, X, U, args, probs, lw), _alpha_mean(w, X, U, A, B, M))
    T = X[None, :] + U[:, None]
    alpha_mean = float((w * (A + T) / (A + B + M)).sum())
    out = []
    for name, known in (("rho", rho), ("eta", eta)):
        if known is not None:
            out.append(RatePosterior(known, 0.0, known, known, known=True))
            continue
        if name == "rho":
            a = (args["Ar"] + X)[None, :] + 0 * U[:, None]
            b = (args["Br"] + U)[:, None] + 0 * X[None, :]
        else:
            a = (args["Ae"] + M - k - U)[:, None] + 0 * X[None, :]
            b = (args["Be"] + k - X)[None, :] + 0 * U[:, None]
        mean = float((w * a / (a + b)).sum())
        second = float((w * a * (a + 1) / ((a + b) * (a + b + 1))).sum())
        sd = math.sqrt(max(second - mean ** 2, 0.0))
        lo, hi = _quantiles(_direct_cdf(w, a, b), mean, sd, probs)
        out.append(RatePosterior(mean, sd, lo, hi))
    return out[0], out[1], alpha_mean


def model_rates_batch(tasks: list[dict]) -> list[tuple[RatePosterior, RatePosterior, float]]:
    """:func:`model_rates` of several groups (keyword arguments each), in order.

    One call per batch of groups when they are dealt out to joblib's workers (each result
    depends on its own arguments alone, so the answers do not depend on the batching).

    Examples
    --------
    >>> from binaryeval.binary.rates import model_rates, model_rates_batch
    >>> task = dict(A=61, B=41, k=30, M=50, tp=8, fn=2, tn=7, fp=3, rate_prior=(1, 1))
    >>> model_rates_batch([task])[0] == model_rates(**task)
    True
    """
    # the BLAS limit once for the batch (setting it costs some 0.07 ms, 3 % of a group's time)
    with _one_blas_thread():
        return [_model_rates(**{"rho": None, "eta": None, "level": 0.95, **task})
                for task in tasks]


#: the most terms ``(k + 1)(M - k + 1)`` of a split for :func:`model_rate_means`' convolutions
_MEANS_CONV_MAX = 4_000_000
#: the relative error :func:`model_rate_means` allows its sums (underflow bounded)
_MEANS_TOL = 1e-13


def model_rate_means(*, A: float, B: float, k: int, M: int, tp: int, fn: int, tn: int, fp: int,
                     rate_prior: tuple[float, float], rho: float | None = None,
                     eta: float | None = None) -> tuple[float, float, float] | None:
    """The model's posterior means of ``rho`` and ``eta``, and its mean of ``alpha`` (a check).

    The means alone, without the intervals :func:`model_rates` computes: the split's weights
    are ``w(X, U) = exp(fx[X] + gu[U] + ht[X + U])`` (one-dimensional tables), and a
    component's mean of ``rho``, ``(Ar + X) / (Ar + Br + T)``, has its numerator in ``X`` and
    its denominator in ``T = X + U`` alone (for ``eta``, ``(Ae + M - k - U) / (Ae + Be + M -
    T)``), so each mean is a sum over ``T`` of one convolution in ``X``: three exact
    convolutions of positive terms (each entry within ``n eps`` of its value, no
    cancellation) instead of the two-dimensional box of every term.  The two sequences are
    tilted by ``exp(s X)`` and ``exp(s U)`` (``s`` the slope of ``ht`` at the expected split)
    and scaled to a largest term of one, so a convolution entry loses at most its products
    below the smallest normal double.  Where that loss, times the entry's factor in ``T``,
    could exceed ``_MEANS_TOL / (M + 1)`` of the largest weight, the entry is summed term by
    term in log space instead (when that would be more than :data:`_MEANS_TERMS_MAX` terms,
    the tilt is moved once to the largest weight found); the sums are accepted when what the
    other entries could have lost is below :data:`_MEANS_TOL` (1e-13) of each.  None where
    that fails or the split has more than :data:`_MEANS_CONV_MAX` terms: :func:`model_rates`
    answers there.  The tests hold the means to the sum over every term
    within 1e-12 (on random and edge designs) and 1e-13 (a design of 3,000 ratings).

    Examples
    --------
    >>> from binaryeval.binary.rates import model_rate_means, model_rates
    >>> task = dict(A=61, B=41, k=300, M=500, tp=40, fn=10, tn=30, fp=20, rate_prior=(1, 1))
    >>> rho, eta, alpha = model_rate_means(**task)
    >>> r, e, a = model_rates(**task)
    >>> abs(rho - r.mean) < 1e-12, abs(eta - e.mean) < 1e-12, abs(alpha - a) < 1e-12
    (True, True, True)
    """
    from ._kernels import convolve

    ar, br = rate_prior
    Ar, Br, Ae, Be = ar + tp, br + fn, ar + tn, br + fp
    D = M - k
    if M < 1 or (k + 1) * (D + 1) > _MEANS_CONV_MAX:
        return None
    fx, gu, ht = _log_weight_tables(A=A, B=B, k=k, M=M, Ar=Ar, Br=Br, Ae=Ae, Be=Be, rho=rho,
                                    eta=eta)
    x = np.arange(k + 1, dtype=float)
    u = np.arange(D + 1, dtype=float)
    t = np.arange(M + 1, dtype=float)
    # the split the prior and paired rows' means expect (as _on_lattice starts from)
    a0 = A / (A + B)
    r0 = rho if rho is not None else Ar / (Ar + Br)
    e0 = eta if eta is not None else Ae / (Ae + Be)
    q0 = a0 * r0 + (1.0 - a0) * (1.0 - e0)
    centre = (k * (a0 * r0 / q0 if q0 > 0 else 0.5)
              + D * (a0 * (1.0 - r0) / (1.0 - q0) if q0 < 1 else 0.5))
    tiny = (min(k, D) + 1) * np.finfo(float).tiny
    # each sum: a factor along X or U (the numerator, in log form too), one in T
    sums = [("alpha", None, None, (A + t) / (A + B + M))]
    if rho is None:
        sums.append(("rho", Ar + x, None, 1.0 / (Ar + Br + t)))
    if eta is None:
        sums.append(("eta", None, Ae + D - u, 1.0 / (Ae + Be + M - t)))
    largest = max([1.0] + [float(f.max()) for _, fa, fb, _ in sums for f in (fa, fb)
                           if f is not None])
    limit = math.log(_MEANS_TOL / (M + 1)) - math.log(tiny * largest)
    for _ in range(2):
        i0 = int(min(max(round(centre), 1), M - 1)) if M >= 2 else 0
        s = 0.5 * (ht[i0 + 1] - ht[i0 - 1]) if M >= 2 else 0.0
        la, lb = fx + s * x, gu + s * u
        ca, cb = float(np.max(la)), float(np.max(lb))
        if not (np.isfinite(ca) and np.isfinite(cb)):
            return None
        P, Q = np.exp(la - ca), np.exp(lb - cb)
        c0 = convolve(P, Q)
        pos = c0 > 0.0
        if not pos.any():
            return None
        rel = ht - s * t + (ca + cb)
        peak = rel[pos] + np.log(c0[pos])
        top = float(np.max(peak))
        rel -= top
        # where a convolution entry's lost products could matter, the entry term by term in
        # log space (no underflow); elsewhere they hold below _MEANS_TOL / (M + 1) each
        risky = np.flatnonzero(rel > limit)
        if risky.size * (min(k, D) + 1) > _MEANS_TERMS_MAX:
            centre = float(np.flatnonzero(pos)[np.argmax(peak)])
            continue
        h = np.exp(np.where(rel > limit, -np.inf, rel))
        exact = _split_sums_at(risky, fx, gu, ht - top, sums, k, D)
        total = float(h @ c0) + float(np.sum(exact["alpha"]))
        means, lost_all = {}, tiny * float(np.sum(h))
        for name, fx_factor, gu_factor, per_t in sums:
            if fx_factor is None and gu_factor is None:
                conv, big = c0, 1.0
            elif fx_factor is not None:
                conv, big = convolve(P * fx_factor, Q), float(fx_factor.max())
            else:
                conv, big = convolve(P, Q * gu_factor), float(gu_factor.max())
            value = float(h @ (conv * per_t)) + float(exact[name] @ per_t[risky])
            lost = tiny * big * float(h @ per_t) + lost_all * value / total
            if not (total > 0.0 and lost <= _MEANS_TOL * value):
                return None
            means[name] = value / total
        return (means.get("rho", rho), means.get("eta", eta), means["alpha"])
    return None


#: the most terms summed one by one (in log space) where a convolution entry may be short
_MEANS_TERMS_MAX = 2_000_000


def _split_sums_at(T: np.ndarray, fx: np.ndarray, gu: np.ndarray, ht: np.ndarray, sums,
                   k: int, D: int) -> dict[str, np.ndarray]:
    """Per sum of :func:`model_rate_means`, ``sum_x w(x, T - x) factor`` at these ``T``.

    Term by term in log space: ``ht[T] + log sum_x exp(fx[x] + gu[T - x] + log factor)``.
    """
    if not T.size:
        return {name: np.zeros(0) for name, *_ in sums}
    lo = np.maximum(T - D, 0)
    hi = np.minimum(T, k)
    width = int((hi - lo).max()) + 1
    xs = lo[:, None] + np.arange(width)[None, :]
    inside = xs <= hi[:, None]
    xs = np.where(inside, xs, lo[:, None])
    us = T[:, None] - xs
    base = np.where(inside, fx[xs] + gu[us], -np.inf)
    out = {}
    with np.errstate(divide="ignore"):
        for name, fx_factor, gu_factor, _ in sums:
            terms = base
            if fx_factor is not None:
                terms = base + np.log(fx_factor[xs])
            elif gu_factor is not None:
                terms = base + np.log(gu_factor[us])
            top = np.max(terms, axis=1)
            safe = np.where(np.isfinite(top), top, 0.0)
            lse = np.log(np.sum(np.exp(terms - safe[:, None]), axis=1)) + safe
            out[name] = np.exp(ht[T] + lse)
    return out


def _alpha_mean(w: np.ndarray, X: np.ndarray, U: np.ndarray, A: float, B: float, M: int
                ) -> float:
    return float((A + w.sum(axis=0) @ X + w.sum(axis=1) @ U) / (A + B + M))


def _on_lattice(args: dict):
    """The weights on a lattice (:func:`binaryeval.binary._lattice.lattice_weights`), or None."""
    from . import _lattice

    A, B, k, M = args["A"], args["B"], args["k"], args["M"]
    p = _lattice.parts(**args)
    # a start: the split the prior and paired rows' means of the three parameters expect
    a0 = A / (A + B)
    r0 = args["rho"] if args["rho"] is not None else args["Ar"] / (args["Ar"] + args["Br"])
    e0 = args["eta"] if args["eta"] is not None else args["Ae"] / (args["Ae"] + args["Be"])
    q0 = a0 * r0 + (1.0 - a0) * (1.0 - e0)
    pi1 = a0 * r0 / q0 if q0 > 0 else 0.5
    pi0 = a0 * (1.0 - r0) / (1.0 - q0) if q0 < 1 else 0.5
    box = _lattice.locate(p, (k * pi1, (M - k) * pi0))
    if box is None:
        return None
    # each term of a rate's density is the weight times a component's density, whose log
    # bends too: the lattice must follow the narrower product (both rates' at the mode)
    xm, um = box.mode
    narrowings = []
    for name in ("rho", "eta"):
        if args[name] is not None:
            continue
        if name == "rho":
            a, b = args["Ar"] + xm, args["Br"] + um
        else:
            # a = Ae + M - k - U, b = Be + k - X: X moves b, U moves a
            b, a = args["Ae"] + M - k - um, args["Be"] + k - xm
        t2 = float(special.polygamma(1, a + b))
        narrowings.append(np.array([[t2 - float(special.polygamma(1, a)), t2],
                                    [t2, t2 - float(special.polygamma(1, b))]]))
    return _lattice.lattice_weights(p, box, tuple(narrowings))


def _components(name: str, args: dict, X: np.ndarray, U: np.ndarray, T: np.ndarray):
    """A rate's component parameters ``a``, ``b`` and their sum at ``T = X + U``.

    For rho ``a`` runs along ``X`` (the columns) and ``b`` along ``U`` (the rows); for eta
    ``a`` runs along ``U`` and ``b`` along ``X``.
    """
    if name == "rho":
        return args["Ar"] + X, args["Br"] + U, args["Ar"] + args["Br"] + T
    M, k = args["M"], args["k"]
    return (args["Ae"] + M - k - U, args["Be"] + k - X, args["Ae"] + args["Be"] + M - T)


def _lattice_rates(lat, args: dict, probs) -> tuple[RatePosterior, RatePosterior, float]:
    """Moments and interval of each rate from weights on a lattice (any steps)."""
    X, U, w, lw = lat.X, lat.U, lat.w, lat.lw
    A, B, M = args["A"], args["B"], args["M"]
    T = X[None, :] + U[:, None]
    out = []
    for name in ("rho", "eta"):
        known = args[name]
        if known is not None:
            out.append(RatePosterior(known, 0.0, known, known, known=True))
            continue
        a, b, total = _components(name, args, X, U, T)
        a2, b2 = (a[None, :], b[:, None]) if name == "rho" else (a[:, None], b[None, :])
        mean = float((w * a2 / total).sum())
        second = float((w * (a2 * (a2 + 1.0)) / (total * (total + 1.0))).sum())
        sd = math.sqrt(max(second - mean ** 2, 0.0))
        got = None
        if 0.0 < mean < 1.0 and sd > 0:
            # every term's density at the mean: the kernel the grid's density scales
            lk = lw + (a2 - 1.0) * math.log(mean) + (b2 - 1.0) * math.log1p(-mean)
            lk -= special.gammaln(a2) + special.gammaln(b2) - special.gammaln(total)
            got = _chebyshev_rate(name, w, lw, X, U, a, b, args, mean, sd, probs,
                                  kernel=np.exp(lk), log_kernel=lk, floor=lat.floor)
        if got is not None:
            out.append(RatePosterior(*got))
            continue
        aa, bb = a2 + 0.0 * b2, b2 + 0.0 * a2
        lo, hi = _newton_quantiles(_direct_cdf_pdf(w, aa, bb), mean, sd, probs)
        out.append(RatePosterior(mean, sd, lo, hi))
    return out[0], out[1], _alpha_mean(w, X, U, A, B, M)


def _box(lw: np.ndarray, log: bool = False) -> tuple[np.ndarray, ...]:
    """The box of every term within ``_PRUNE`` (1e-20) of the largest, normalised on it.

    ``lw``: log weights on the whole grid (rows ``U = 0..M-k``, columns ``X = 0..k``).  Each
    term left out is below 1e-20 of the largest, so all of them together hold less than
    ``1e-20 (k + 1)(M - k + 1) <= 2.5e-15`` of the mass (``_FULL`` terms at most): the moments,
    the distribution function and its quantiles move by no more than that.  The rest of the
    work runs on the box alone (about half the grid for a group of 1,000 ratings).  With
    ``log=True`` also the normalised log weights.
    """
    row_top, col_top = lw.max(axis=1), lw.max(axis=0)
    top = float(row_top.max())
    rows = np.flatnonzero(row_top >= top + _PRUNE)
    cols = np.flatnonzero(col_top >= top + _PRUNE)
    r0, r1, c0, c1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
    lwb = lw[r0:r1, c0:c1] - top
    w = np.exp(lwb)
    total = w.sum()
    w /= total
    X, U = np.arange(c0, c1, dtype=float), np.arange(r0, r1, dtype=float)
    if log:
        lwb -= math.log(total)
        return X, U, w, lwb
    return X, U, w


def _hankel(table: np.ndarray, n_cols: int) -> np.ndarray:
    """``H[j, i] = table[i + j]`` as a view (rows: ``table.size - n_cols + 1``)."""
    return np.lib.stride_tricks.sliding_window_view(table, n_cols)


def _guess(name: str, args: dict, ex: float, eu: float, vx: float, vu: float
           ) -> tuple[float, float]:
    """A rate's mean and sd guessed from the mean and variance of ``X`` and ``U``.

    The component at the mean split, its sd widened by the spread of the split (a guess: the
    grid is set from it, the moments then come from the grid).
    """
    M, k = args["M"], args["k"]
    if name == "rho":
        ga, gb, va, vb = args["Ar"] + ex, args["Br"] + eu, vx, vu
    else:
        ga, gb, va, vb = args["Ae"] + M - k - eu, args["Be"] + k - ex, vu, vx
    gn = ga + gb
    mean = ga / gn
    return mean, math.sqrt((gb * gb * va + ga * ga * vb) / gn ** 4
                           + mean * (1.0 - mean) / (gn + 1.0))


def _full_rates(w: np.ndarray, X: np.ndarray, U: np.ndarray, args: dict, probs,
                lw: np.ndarray | None = None, done: dict | None = None
                ) -> tuple[RatePosterior, RatePosterior]:
    """Moments and interval of each rate on a unit-step grid (rows ``U``, columns ``X``).

    ``done``: the rates already found another way (by name), taken as they are.

    A component's ``a / (a + b)`` and ``a (a + 1) / ((a + b)(a + b + 1))`` have ``a`` in ``X``
    (rho) or ``U`` (eta) alone and ``a + b`` in ``T = X + U`` alone, so each moment is a
    product of the weights with a Hankel table of ``T`` and a vector.
    """
    t = X[0] + U[0] + np.arange(X.size + U.size - 1, dtype=float)
    out = []
    if lw is not None:
        # the spread of X and U, for a first guess of each rate's mean and sd
        px, pu = w.sum(axis=0), w.sum(axis=1)
        ex, eu = float(px @ X), float(pu @ U)
        vx, vu = float(px @ (X - ex) ** 2), float(pu @ (U - eu) ** 2)
    for name in ("rho", "eta"):
        if done and name in done:
            out.append(done[name])
            continue
        known = args[name]
        if known is not None:
            out.append(RatePosterior(known, 0.0, known, known, known=True))
            continue
        a, b, total = _components(name, args, X, U, t)
        if lw is not None:
            # the component at the mean split, moved by the spread of X and U (a guess:
            # the grid below is set from it, the moments then come from the grid)
            guess_mean, guess_sd = _guess(name, args, ex, eu, vx, vu)
            got = _chebyshev_rate(name, w, lw, X, U, a, b, args, guess_mean, guess_sd,
                                  probs)
            if got is not None:
                out.append(RatePosterior(*got))
                continue
        h1 = _hankel(1.0 / total, X.size)
        h2 = _hankel(1.0 / (total * (total + 1.0)), X.size)
        if name == "rho":
            mean = float(((w * h1) @ a).sum())
            second = float(((w * h2) @ (a * (a + 1.0))).sum())
        else:
            mean = float((a @ (w * h1)).sum())
            second = float(((a * (a + 1.0)) @ (w * h2)).sum())
        sd = math.sqrt(max(second - mean ** 2, 0.0))
        mixture = _row_cdf(name, w, a, b)
        if 0.0 < mean < 1.0:
            # one reference between the two ends usually reaches both
            mixture._reference(mean)
        lo, hi = _newton_quantiles(mixture, mean, sd, probs)
        out.append(RatePosterior(mean, sd, lo, hi))
    return out[0], out[1]


def _direct_cdf_pdf(w: np.ndarray, a: np.ndarray, b: np.ndarray):
    """The mixture's distribution function and density, term by term (for Newton's method)."""
    keep = w > w.max() * 1e-20
    aa, bb, ww = a[keep], b[keep], w[keep]
    lw = np.log(ww) - special.betaln(aa, bb)

    def cdf_pdf(t: float) -> tuple[float, float]:
        if t <= 0.0 or t >= 1.0:
            return (0.0 if t <= 0.0 else 1.0), 0.0
        cdf = float((ww * special.betainc(aa, bb, t)).sum())
        pdf = float(np.exp(lw + (aa - 1.0) * math.log(t) + (bb - 1.0) * math.log1p(-t)).sum())
        return cdf, pdf

    return cdf_pdf


def _direct_cdf(w: np.ndarray, a: np.ndarray, b: np.ndarray):
    keep = w > w.max() * 1e-20
    aa, bb, ww = a[keep], b[keep], w[keep]
    return lambda t: _cdf_direct(t, aa, bb, ww)


def _row_cdf(name: str, w: np.ndarray, a: np.ndarray, b: np.ndarray):
    """The telescoping CDF on the box of weights above 1e-20 of the largest.

    ``a``, ``b``: the components' parameters, one-dimensional (for rho ``a`` along the
    columns and ``b`` along the rows; for eta the other way round).
    """
    keep = w > w.max() * 1e-20
    rows, cols = np.flatnonzero(keep.any(axis=1)), np.flatnonzero(keep.any(axis=0))
    r0, r1, c0, c1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    Wb = w[r0:r1, c0:c1]
    if name == "rho":
        # row U, consecutive a = Ar + X along the row
        Wr = Wb
        a0 = float(a[c0])
        brow = b[r0:r1]
    else:
        # column X, a = Ae + M - k - U decreasing in U: flip rows, then rows are columns
        Wr = Wb[::-1, :].T
        a0 = float(a[r1 - 1])
        brow = b[c0:c1]
    n = Wr.shape[1]
    ai = a0 + np.arange(n)
    # log B(a0 + i, b_j) from log-gamma tables: a0 + i + b_j runs over consecutive values
    # (b_j steps by +1 (rho) or -1 (eta) from row to row), a Hankel table of one array
    rising = brow.size < 2 or brow[1] > brow[0]
    base = a0 + (brow[0] if rising else brow[-1])
    table = special.gammaln(base + np.arange(n + brow.size - 1, dtype=float))
    sums = _hankel(table, n) if rising else _hankel(table, n)[::-1]
    lkern = np.subtract(sums, (np.log(ai) + special.gammaln(ai))[None, :])
    lkern -= special.gammaln(brow)[:, None]
    # the weight of each row beyond each column (0 beyond the last)
    tails = np.empty(Wr.shape)
    tails[:, -1] = 0.0
    np.cumsum(Wr[:, :0:-1], axis=1, out=tails[:, -2::-1])
    return _RowMixture(a0, brow, Wr, tails, lkern, ai)


# -- the interval's ends from the mixture's density on a Chebyshev grid ------------------------
_CHEB_REACH = 9.0        # the grid spans the mean +- at least this many sds
_GUESS_REACH = 10.0     # ... set from a guess of the mean and sd this many guessed sds out
_WIDE_REACH = 14.0      # ... and this many where a skewed tail reached beyond (the tables' way)
_MISSING_TOL = 1e-12     # the mass the grid may miss (beyond its ends) and rounding
_CHEB_POINTS = (33, 65, 129)  # nested: each holds the one before
_TABLE_POINTS = (65, 129)     # ... from the tables (see _chebyshev_rate)
_CHEB_TOL = 1e-13        # the distribution function's error allowed (see _chebyshev_rate)


def _cheb_coefficients(values: np.ndarray) -> np.ndarray:
    """Chebyshev coefficients of the interpolant through the points ``cos(pi m / (n - 1))``."""
    from scipy import fft

    n = values.shape[-1]
    c = fft.dct(values, type=1, axis=-1) / (n - 1)
    c[..., 0] /= 2.0
    c[..., -1] /= 2.0
    return c


def _cheb_integral(c: np.ndarray) -> np.ndarray:
    """Coefficients of ``x -> integral from -1 to x`` of the series ``c``."""
    n = c.size
    out = np.zeros(n + 1)
    # T_n = (T_{n+1} / (n + 1) - T_{n-1} / (n - 1)) / 2 integrated
    cc = np.concatenate([c, [0.0, 0.0]])
    out[1] = cc[0] - cc[2] / 2.0
    j = np.arange(2, n + 1)
    out[2:] = (cc[j - 1] - cc[j + 1]) / (2.0 * j)
    # the constant that makes the integral 0 at x = -1 (T_n(-1) = (-1)^n)
    out[0] = -float(out[1:] @ (-1.0) ** np.arange(1, n + 1))
    return out


def _scaled(w: np.ndarray, lw: np.ndarray, H: np.ndarray, C: np.ndarray, R: np.ndarray
            ) -> np.ndarray | None:
    """``w[j, i] exp(H[i + j] + C[i] + R[j])`` with three products instead of an exponential.

    The three tables are tilted (``H[T] - s T``, ``C[i] + s i``, ``R[j] + s j``, the sum
    unchanged) and centred at the largest weight so that each factor stays within
    ``e^+-230`` and no product of two can overflow; when they do not, one exponential of the
    whole sum (``lw`` the log of ``w``).  None when even that leaves the range of doubles.
    """
    j0, i0 = np.unravel_index(int(np.argmax(w)), w.shape)
    t0 = i0 + j0
    lo, hi = max(t0 - 1, 0), min(t0 + 1, H.size - 1)
    slope = (H[hi] - H[lo]) / max(hi - lo, 1)
    h = H - slope * np.arange(H.size)
    c = C + slope * np.arange(C.size)
    r = R + slope * np.arange(R.size)
    base = h[t0] + c[i0] + r[j0]
    h -= h[t0]
    c -= c[i0]
    r -= r[j0]
    if base < 700.0 and max(float(np.abs(h).max()), float(np.abs(c).max()),
                            float(np.abs(r).max())) < 230.0:
        K = w * _hankel(np.exp(h), C.size)
        K *= np.exp(r + base)[:, None]
        K *= np.exp(c)[None, :]
        return K
    lk = lw + _hankel(H, C.size)
    lk += C[None, :]
    lk += R[:, None]
    if float(lk.max()) > 700.0:
        return None
    return np.exp(lk)


_BLAS = None


@contextmanager
def _one_blas_thread():
    """The matrix products of the block on one BLAS thread (restored after).

    Each rate's density is a product of some 65 x 300 by 300 x 200, too small for a second
    thread to pay: on a busy machine the idle thread spins and doubles the CPU time.  One
    :class:`threadpoolctl.ThreadpoolController`, made on first use, sets the limit (some
    0.02 ms).
    """
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    with _BLAS.limit(limits=1, user_api="blas"):
        yield


def _chebyshev_rate(name: str, w: np.ndarray, lw: np.ndarray, X: np.ndarray, U: np.ndarray,
                    a: np.ndarray, b: np.ndarray, args: dict, guess_mean: float,
                    guess_sd: float, probs, kernel: np.ndarray | None = None,
                    log_kernel: np.ndarray | None = None, floor: float = 0.0,
                    table_density=None, lines=None, reach: float = _GUESS_REACH,
                    failed: list[str] | None = None
                    ) -> tuple[float, float, float, float] | None:
    """Mean, sd and interval of one rate from its density interpolated on a Chebyshev grid.

    ``w``, ``lw``: the box's weights and their logs (rows ``U``, columns ``X``); ``a``, ``b``:
    the components' parameters along the axes (for rho ``a`` along the columns, for eta along
    the rows).  The density at ``t`` is ``sum_ji w_ji t^(a - 1) (1 - t)^(b - 1) / B(a, b)``:
    the terms at ``t`` are those at the guessed mean ``t0`` times a row factor and a column
    factor (as in :class:`_RowMixture`), so the density at all grid points is one matrix
    product, with no incomplete beta function.  The grid spans ``guess_mean +- reach
    guess_sd`` (10 unless told; stopping at 0 or 1, where every component's density is 0
    when its parameters exceed 1) at 33, 65 or 129 Chebyshev points (each set holds the one
    before).
    The moments are the interpolant's (Clenshaw-Curtis), the distribution function its
    integral from the grid's lower end, the ends its roots (Newton's method kept inside a
    bracket).  Accepted only when

    (i) the last four coefficients together, times the grid's half width, are below
        ``1e-13`` (the interpolant's error in the distribution function);
    (ii) the integral over the grid is within ``1e-12`` of 1 (every component integrates to
         1 over (0, 1); what is missing is the mass beyond the grid's ends plus the rounding
         of the log-gamma functions in the terms, relative ``1e-16`` of their size, about
         ``1e-13`` at 1,000 ratings); the integral then divides the density;
    (iii) the grid reaches 9 sds (found) beyond the mean on each side not stopped at 0 or 1.

    The distribution function is then within about ``1.2e-12`` of the box's (and that within
    ``2.5e-15`` of the mixture's), each end within that over the density there, and the
    mean within about ``1e-12``.  None (the caller takes Newton's method) when a check
    fails, the grid would reach 0 or 1 with a parameter at most 1 there, or a factor would
    leave the range of doubles.

    ``table_density``: the log density from one-dimensional tables (:func:`_table_density`)
    instead of the kernel (``w`` and ``lw`` are then not read, and may be None), on 65 or 129
    points (a series of 33 points once passed check (i) with its ends 1.4e-12 off: the last
    four coefficients can be small by chance in a short series); ``lines``:
    ``lines(on_rows, mask)``, the weights of the rows (or columns) in ``mask`` summed along
    them, for the density at 0 or 1 (from ``w`` when not given).  ``reach``: the grid's
    half width in guessed sds.  ``failed``: a list to which the name of a failing check is
    appended (``"mass"`` for (ii), ``"reach"`` for (iii): the two a wider grid can mend).
    """
    mean, sd = guess_mean, guess_sd
    lo_t, hi_t = mean - reach * sd, mean + reach * sd
    # a grid reaching 0 or 1 stops there, where every component's density is finite (both
    # its parameters at least 1 there); else this path does not apply
    a_min, b_min = float(a.min()), float(b.min())
    if not sd > 0 or (lo_t <= 0.0 and a_min < 1.0) or (hi_t >= 1.0 and b_min < 1.0):
        return None
    lo_t, hi_t = max(lo_t, 0.0), min(hi_t, 1.0)
    # a component with b = 1 has density a at 1 (and one with a = 1 density b at 0), the
    # rest 0 there: the mixture's density at the ends (rows U, columns X; for rho a along
    # the columns, for eta along the rows)
    b_on_rows = name == "rho"
    if lines is None:
        def lines(on_rows: bool, on: np.ndarray) -> np.ndarray:
            return w[on, :].sum(axis=0) if on_rows else w[:, on].sum(axis=1)
    ends = {1.0: 0.0, 0.0: 0.0}
    if hi_t >= 1.0 and b_min == 1.0:
        ends[1.0] = float(lines(b_on_rows, b == 1.0) @ a)
    if lo_t <= 0.0 and a_min == 1.0:
        ends[0.0] = float(lines(not b_on_rows, a == 1.0) @ b)
    M = args["M"]
    tt = X[0] + U[0] + np.arange(X.size + U.size - 1, dtype=float)
    if name == "rho":
        # a along the columns (X), b along the rows (U); a + b = Ar + Br + T
        col_e, row_e = a - 1.0, b - 1.0
    else:
        # a along the rows (U), b along the columns (X); a + b = Ae + Be + M - T
        col_e, row_e = b - 1.0, a - 1.0
    l0, l1 = math.log(mean), math.log1p(-mean)
    col_on_t = name == "rho"
    cl0, rl0 = (l0, l1) if col_on_t else (l1, l0)
    if table_density is not None:
        K = None
    elif kernel is None:
        # w times each component's density at the guessed mean: w exp(H[i + j] + C[i] + R[j])
        if name == "rho":
            H = special.gammaln(args["Ar"] + args["Br"] + tt)
            col_lb, row_lb = special.gammaln(a), special.gammaln(b)
        else:
            H = special.gammaln(args["Ae"] + args["Be"] + M - tt)
            col_lb, row_lb = special.gammaln(b), special.gammaln(a)
        C = col_e * cl0 - col_lb
        R = row_e * rl0 - row_lb
        K = _scaled(w, lw, H, C, R)
    else:
        K = kernel
    if K is None and table_density is None:
        return None
    half, mid = 0.5 * (hi_t - lo_t), 0.5 * (hi_t + lo_t)

    def density(ts: np.ndarray) -> np.ndarray | None:
        # the terms at t are those at the guessed mean times a row and a column factor
        out = np.zeros(ts.size)
        inner = (ts > 0.0) & (ts < 1.0)
        out[ts >= 1.0] = ends[1.0]
        out[ts <= 0.0] = ends[0.0]
        ti = ts[inner]
        if table_density is not None:
            got = table_density(np.log(ti), np.log1p(-ti))
            if got is None:
                return None
            out[inner] = np.exp(got)
            return out
        lt, l1t = np.log(ti) - l0, np.log1p(-ti) - l1
        ce = np.outer(lt if col_on_t else l1t, col_e)
        re = np.outer(l1t if col_on_t else lt, row_e)
        c = ce.max(axis=1, keepdims=True)
        if float((re + c).max()) > 700.0:
            if log_kernel is None:
                return None
            # the factors leave the range of doubles (many ratings, a point far out): each
            # point's terms as one exponential of their logs, which stay below the density's
            out[inner] = [float(np.exp(log_kernel + ce[m][None, :] + re[m][:, None]).sum())
                          for m in range(ti.size)]
            return out
        ce -= c
        re += c
        out[inner] = np.einsum("mj,mj->m", np.exp(re), np.exp(ce) @ K.T)
        return out

    dens = None
    for n in (_CHEB_POINTS if table_density is None else _TABLE_POINTS):
        theta = np.pi * np.arange(n) / (n - 1)
        ts = mid + half * np.cos(theta)
        if dens is None:
            dens = density(ts)
        else:
            # the points of the previous grid are every other point of this one
            new = np.empty(n)
            new[0::2] = dens
            fresh = density(ts[1::2])
            if fresh is None:
                return None
            new[1::2] = fresh
            dens = new
        if dens is None:
            return None
        coef = _cheb_coefficients(dens)
        if half * float(np.abs(coef[-4:]).sum()) <= _CHEB_TOL:
            break
    else:
        # the densities' own rounding (``floor``, many ratings) can keep the series from
        # reaching 1e-13: then it must reach that
        if not half * float(np.abs(coef[-4:]).sum()) <= floor:
            return None
    cdf = _cheb_integral(coef) * half
    orders = np.arange(cdf.size)
    # every component integrates to 1 over (0, 1), so the integral over the grid is 1 less
    # the mass beyond its ends, up to the rounding of the log-gamma functions in each term's
    # normalisation (about 1e-16 of their size, some 1e-13 relative at 1,000 ratings)
    total = float(cdf.sum())
    if abs(1.0 - total) > max(_MISSING_TOL, floor):
        if failed is not None:
            failed.append("mass")
        return None
    cdf /= total
    dens = dens / total
    coef = coef / total
    # the moments: the interpolant of t^p times the density integrated (Clenshaw-Curtis)
    even = np.arange(0, n, 2)
    weights_cc = np.zeros(n)
    weights_cc[even] = 2.0 / (1.0 - even.astype(float) ** 2)
    moments = _cheb_coefficients(np.vstack([ts * dens, ts * ts * dens])) @ weights_cc * half
    mean = float(moments[0])
    sd = math.sqrt(max(float(moments[1]) - mean * mean, 0.0))
    # the grid must reach 9 of the sds found (or 0 or 1) on both sides
    if not ((lo_t == 0.0 or lo_t <= mean - _CHEB_REACH * sd)
            and (hi_t == 1.0 or hi_t >= mean + _CHEB_REACH * sd)):
        if failed is not None:
            failed.append("reach")
        return None
    dorders = np.arange(coef.size)
    ends = []
    for p in probs:
        # Newton's method on the series in theta (x = cos theta), kept inside [0, pi]
        z = math.sqrt(2.0) * float(special.erfinv(2.0 * p - 1.0))
        x = min(max((mean + z * sd - mid) / half, -1.0), 1.0)
        lo_x, hi_x = -1.0, 1.0
        for _ in range(60):
            th = math.acos(x)
            g = float(np.cos(orders * th) @ cdf) - p
            d = float(np.cos(dorders * th) @ coef) * half
            if g < 0:
                lo_x = x
            else:
                hi_x = x
            new = x - g / d if d > 0 else 0.5 * (lo_x + hi_x)
            if not lo_x <= new <= hi_x:
                new = 0.5 * (lo_x + hi_x)
            if abs(new - x) < 1e-15 or hi_x - lo_x < 1e-15:
                x = new
                break
            x = new
        else:
            return None
        ends.append(mid + half * x)
    return mean, sd, ends[0], ends[1]



#: the mass the rates' densities may leave out at each of the box's four sides (see _full_rates)
_TRIM = 5e-16
#: the largest term of a point of :func:`_table_density` must be at least e^this (factors <= 1)
_UNDERFLOW = -600.0
#: the smallest argument :func:`_log_beta` takes Stirling's series at
_STIRLING = 15.0


def _trim(p: np.ndarray) -> tuple[int, int]:
    """The longest runs at either end of ``p`` holding at most ``_TRIM`` each: ``[lo, hi)`` kept."""
    lead = int(np.searchsorted(np.cumsum(p), _TRIM, side="right"))
    trail = int(np.searchsorted(np.cumsum(p[::-1]), _TRIM, side="right"))
    lead, trail = min(lead, p.size - 1), min(trail, p.size - 1)
    if lead + trail >= p.size:
        return 0, p.size
    return lead, p.size - trail


def _table_density(name: str, X: np.ndarray, U: np.ndarray, args: dict,
                   tables: tuple[np.ndarray, np.ndarray, np.ndarray], norm: float,
                   t0: float, centre: tuple[float, float], out: np.ndarray | None = None
                   ) -> Callable[[np.ndarray, np.ndarray], np.ndarray | None] | None:
    """One rate's log density at many points from one-dimensional tables, or None.

    The box's weights are ``exp(fx[X] + gu[U] + ht[T] - norm)`` (``tables`` as from
    :func:`_log_weight_tables`, unit steps ``X``, ``U``) and a component's log density at
    ``t`` is ``(a - 1) log t + (b - 1) log(1 - t) - lgamma(a) - lgamma(b) + lgamma(a + b)``,
    with ``a`` (rho) or ``b`` (eta) in ``X``, the other in ``U`` and ``a + b`` in ``T``.  So
    every term of the density at ``t`` is ``exp(c[X] + r[U] + h[T])`` with ``c`` and ``r``
    linear in ``log t`` and ``log(1 - t)``: the density at the points ``t_m`` is ``sum_U
    R[m, U] (H C_m)[U]`` with ``H[U, X] = exp(h[X + U])`` one Hankel matrix for every point,
    one matrix product over the box, and no other two-dimensional array (the same terms as
    :func:`_scaled`'s kernel times the row and column factors of :func:`_chebyshev_rate`,
    without making that kernel).

    The three tables are tilted (``h[T] - s T``, ``c[X] + s X``, ``r[U] + s U`` with ``s``
    the slope of ``h`` at the mean split ``centre``, the sum unchanged) and each scaled to a
    largest entry of 1 (each point's factors ``C_m``, ``R_m`` too, from their logs), so
    nothing overflows and the scales are added back as logs.  An entry that underflows is
    below ``e^-708``; the point's sum is then required to be at least ``e^-600`` times the
    number of terms (so its largest term at least ``e^-600``): every term it leaves out or
    rounds as a subnormal is below ``e^-100`` of the point's density.  The point's tables are
    its offsets from ``t0`` (``(a - 1) log(t / t0)``), added to tables at ``t0`` rounded
    once.  ``tables`` are :func:`_table_marginals`' scaled ones (``norm`` the log of their
    sum), so the weights are those its marginals sum, and each component's log density at
    ``t0`` is its value at the mean split (:func:`_log_beta`, a few ulps) plus differences of
    log-gamma functions from there (:func:`_lgamma_diff`): each term carries the rounding of
    its own tables' entries (relative about ``1e-16`` of their size, some 1e-13 at 1,000
    ratings, as the box's weights do) and no rounding is common to all terms (the rounding
    of one log-gamma value some 3,000 would scale the density by up to 1e-12 and hide as
    much missing mass from check (ii) of :func:`_chebyshev_rate`).

    ``out``: an array of shape ``(X.size, U.size)`` to hold the Hankel matrix (transposed),
    shared by the rates of one group.  Returns ``log_density(lt, l1t)``: the log density at
    the points of ``log t = lt`` and ``log(1 - t) = l1t`` (arrays), None when a point fails
    the check above; or None when a table is not finite.
    """
    fx, gu, ht = tables
    k, M = args["k"], args["M"]
    x0, u0, nx, nu = int(X[0]), int(U[0]), X.size, U.size
    tt = float(x0 + u0) + np.arange(nx + nu - 1, dtype=float)
    if name == "rho":
        # columns: a = Ar + X on log t; rows: b = Br + U on log(1 - t)
        col_e, row_e = args["Ar"] + X - 1.0, args["Br"] + U - 1.0
        total_e = args["Ar"] + args["Br"] + tt
    else:
        # columns: b = Be + k - X on log(1 - t); rows: a = Ae + M - k - U on log t
        col_e, row_e = args["Be"] + k - X - 1.0, args["Ae"] + M - k - U - 1.0
        total_e = args["Ae"] + args["Be"] + M - tt
    f, g, h = fx[x0:x0 + nx], gu[u0:u0 + nu], ht[x0 + u0:x0 + u0 + tt.size]
    if not (np.all(np.isfinite(f)) and np.all(np.isfinite(g)) and np.all(np.isfinite(h))
            and math.isfinite(norm) and 0.0 < t0 < 1.0):
        return None
    col_on_t = name == "rho"
    l0, l1 = math.log(t0), math.log1p(-t0)
    cl0, rl0 = (l0, l1) if col_on_t else (l1, l0)
    i0 = min(max(round(centre[0]) - x0, 0), nx - 1)
    j0 = min(max(round(centre[1]) - u0, 0), nu - 1)
    # each component's log density at t0 as its value at the mean split (one accurate log
    # beta function, _log_beta) plus differences of log-gamma functions from there
    # (_lgamma_diff, no log-gamma value of some 3,000 rounded): no rounding shifts the
    # density as a whole, so the distribution function's check (ii) measures the missing
    # mass, not the rounding of one reference term
    const = (float(col_e[i0]) * cl0 + float(row_e[j0]) * rl0
             - _log_beta(float(col_e[i0]) + 1.0, float(row_e[j0]) + 1.0))
    comp_c = (col_e - col_e[i0]) * cl0 - _lgamma_diff(col_e + 1.0, float(col_e[i0]) + 1.0)
    comp_r = (row_e - row_e[j0]) * rl0 - _lgamma_diff(row_e + 1.0, float(row_e[j0]) + 1.0)
    comp_h = _lgamma_diff(total_e, float(total_e[i0 + j0]))
    if tt.size >= 3:
        tc = min(max(i0 + j0, 1), tt.size - 2)
        s = 0.5 * float(h[tc + 1] + comp_h[tc + 1] - h[tc - 1] - comp_h[tc - 1])
    else:
        s = 0.0
    c_base = f + comp_c + s * np.arange(nx)
    r_base = g + comp_r + s * np.arange(nu)
    h_base = h + comp_h - s * np.arange(tt.size)
    cmax, rmax, hmax = float(c_base.max()), float(r_base.max()), float(h_base.max())
    c_base -= cmax
    r_base -= rmax
    h_base -= hmax
    offset = cmax + rmax + hmax + const - norm
    # H transposed (rows X, columns U), contiguous for the matrix products
    if out is None:
        out = np.empty((nx, nu))
    hank_t = out
    np.copyto(hank_t, _hankel(np.exp(h_base), nu))
    floor_log = _UNDERFLOW + math.log(nx * nu)

    def log_density(lt: np.ndarray, l1t: np.ndarray) -> np.ndarray | None:
        dc, dr = (lt - l0, l1t - l1) if col_on_t else (l1t - l1, lt - l0)
        ce = c_base[None, :] + np.outer(dc, col_e)
        re = r_base[None, :] + np.outer(dr, row_e)
        gc, gr = ce.max(axis=1), re.max(axis=1)
        ce -= gc[:, None]
        re -= gr[:, None]
        np.exp(ce, out=ce)
        np.exp(re, out=re)
        sums = np.einsum("mj,mj->m", re, ce @ hank_t)
        with np.errstate(divide="ignore"):
            ls = np.log(sums)
        if not np.all(ls >= floor_log):
            return None
        return ls + gc + gr + offset

    return log_density




def _table_marginals(tables: tuple[np.ndarray, np.ndarray, np.ndarray], args: dict
                     ) -> tuple[np.ndarray, np.ndarray, float,
                                tuple[np.ndarray, np.ndarray, np.ndarray]] | None:
    """The marginal weights of ``X`` and ``U`` over the whole square, the log of their sum.

    ``tables``: :func:`_log_weight_tables`.  Returns ``(px, pu, norm, scaled)`` with
    ``scaled`` the tilted tables less their largest entries, whose weights
    ``w(X, U) = exp(fx[X] + gu[U] + ht[X + U] - norm)`` sum to 1 over the square, or None
    (see :func:`_table_rates` for the tilt, the scaling and the check against underflow).
    """
    fx, gu, ht = tables
    A, B, k, M = args["A"], args["B"], args["k"], args["M"]
    x = np.arange(k + 1, dtype=float)
    u = np.arange(M - k + 1, dtype=float)
    # the tilt: the slope of ht at the split the prior and paired rows' means expect
    a0 = A / (A + B)
    r0 = args["rho"] if args["rho"] is not None else args["Ar"] / (args["Ar"] + args["Br"])
    e0 = args["eta"] if args["eta"] is not None else args["Ae"] / (args["Ae"] + args["Be"])
    q0 = a0 * r0 + (1.0 - a0) * (1.0 - e0)
    centre = (k * (a0 * r0 / q0 if q0 > 0 else 0.5)
              + (M - k) * (a0 * (1.0 - r0) / (1.0 - q0) if q0 < 1 else 0.5))
    if M >= 2:
        tc = int(min(max(round(centre), 1), M - 1))
        s = 0.5 * float(ht[tc + 1] - ht[tc - 1])
    else:
        s = 0.0
    t = np.arange(M + 1, dtype=float)
    for attempt in range(2):
        if attempt:
            # the expected split was far from the weights' (a known rate the data contradict):
            # the tilt at which the tilted tables' largest entries line up, X + U = T
            s = _aligned_tilt(fx, gu, ht)
            if s is None:
                return None
        f, g, h = fx + s * x, gu + s * u, ht - s * t
        fmax, gmax, hmax = float(f.max()), float(g.max()), float(h.max())
        if not (math.isfinite(fmax) and math.isfinite(gmax) and math.isfinite(hmax)):
            return None
        ef, eg, eh = np.exp(f - fmax), np.exp(g - gmax), np.exp(h - hmax)
        # pu[U] = eg[U] sum_X eh[U + X] ef[X], px[X] = ef[X] sum_U eh[X + U] eg[U]
        pu = eg * np.correlate(eh, ef, "valid")
        total = float(pu.sum())
        if total > 0.0 and math.log(total) >= _UNDERFLOW + math.log(x.size * u.size):
            break
    else:
        return None
    px = ef * np.correlate(eh, eg, "valid")
    pu /= total
    px /= total
    return px, pu, math.log(total), (f - fmax, g - gmax, h - hmax)


def _aligned_tilt(fx: np.ndarray, gu: np.ndarray, ht: np.ndarray) -> float | None:
    """The tilt ``s`` at which ``argmax(fx + s X) + argmax(gu + s U) = argmax(ht - s T)``.

    The left side never falls as ``s`` grows and the right side never rises, so bisection
    finds where they cross; there the three tilted tables peak at one split, and their
    product's largest term is close to the product of their largest entries.  None when the
    tables are not finite anywhere.
    """
    if not (np.isfinite(fx).any() and np.isfinite(gu).any() and np.isfinite(ht).all()):
        return None
    x, u, t = (np.arange(a.size, dtype=float) for a in (fx, gu, ht))
    steps = np.diff(ht)
    lo = float(steps.min()) - 1.0 if steps.size else -1.0
    hi = float(steps.max()) + 1.0 if steps.size else 1.0

    def gap(s: float) -> float:
        return float(np.argmax(fx + s * x) + np.argmax(gu + s * u) - np.argmax(ht - s * t))

    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if gap(mid) < 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _table_rates(tables: tuple[np.ndarray, np.ndarray, np.ndarray], args: dict, probs
                 ) -> tuple[RatePosterior | None, RatePosterior | None, float] | None:
    """:func:`model_rates` on every term from one-dimensional tables, or None.

    ``tables``: :func:`_log_weight_tables`, ``log w(X, U) = fx[X] + gu[U] + ht[X + U]`` on the
    whole square.  No two-dimensional array is made but one Hankel matrix for the rates'
    densities, and no exponential of one is taken.  The marginal weights of ``U`` and of
    ``X`` over the whole square are ``exp(gu)`` times the correlation of ``exp(ht)`` with
    ``exp(fx)`` (and the other way round): sums of positive products, each within ``n eps``
    of its value.  The tables are tilted (``ht[T] - s T``, ``fx[X] + s X``, ``gu[U] + s U``,
    ``s`` the slope of ``ht`` at the split the prior and the paired rows' means expect, the
    sum unchanged) and scaled to a largest entry of 1; their sum must be at least ``e^-600``
    times the number of terms (so the largest term at least ``e^-600``): a term lost to
    underflow is below ``e^-708``, together below ``e^-100`` of the mass.  From the marginals
    come the mean of ``alpha`` (over every term), the guesses of the rates' means and sds and
    the box: the rows and columns at either end of marginal mass up to ``_TRIM`` (5e-16) each
    are left out, at most ``2e-15`` of the mass (each rate's density is then divided by its
    integral).  Each rate's density is :func:`_table_density` on that box, on
    :func:`_chebyshev_rate`'s grid with its checks (once more on a grid of 14 guessed sds
    when it misses mass or reach): its bound holds, with the box's mixture within ``4e-15``
    of the whole square's.  A rate whose checks fail is None (the caller
    then takes the box of the whole grid's log weights, :func:`_box`, and
    :func:`_full_rates` for it); None when the marginals' check fails (then for both).
    """
    A, B, k, M = args["A"], args["B"], args["k"], args["M"]
    got = _table_marginals(tables, args)
    if got is None:
        return None
    px, pu, norm, scaled = got
    fx, gu, ht = scaled
    x = np.arange(k + 1, dtype=float)
    u = np.arange(M - k + 1, dtype=float)
    ex, eu = float(px @ x), float(pu @ u)
    vx, vu = float(px @ (x - ex) ** 2), float(pu @ (u - eu) ** 2)
    alpha_mean = float((A + ex + eu) / (A + B + M))
    r0, r1 = _trim(pu)
    c0, c1 = _trim(px)
    X, U = x[c0:c1], u[r0:r1]
    t = X[0] + U[0] + np.arange(X.size + U.size - 1, dtype=float)

    def lines(on_rows: bool, on: np.ndarray) -> np.ndarray:
        # the weights of some rows (or columns) of the box, summed along them
        if on_rows:
            j = U[on].astype(int)
            return np.exp(fx[c0:c1][None, :] + gu[j][:, None]
                          + ht[j[:, None] + X.astype(int)[None, :]] - norm).sum(axis=0)
        i = X[on].astype(int)
        return np.exp(fx[i][None, :] + gu[r0:r1][:, None]
                      + ht[U.astype(int)[:, None] + i[None, :]] - norm).sum(axis=1)

    out = []
    buffer = None
    for name in ("rho", "eta"):
        known = args[name]
        if known is not None:
            out.append(RatePosterior(known, 0.0, known, known, known=True))
            continue
        a, b, _ = _components(name, args, X, U, t)
        # the component at the mean split, moved by the spread of X and U (as _full_rates)
        guess_mean, guess_sd = _guess(name, args, ex, eu, vx, vu)
        if buffer is None:
            buffer = np.empty((X.size, U.size))
        dens = _table_density(name, X, U, args, scaled, norm, guess_mean, (ex, eu),
                              out=buffer)
        got = None
        if dens is not None:
            failed: list[str] = []
            got = _chebyshev_rate(name, None, None, X, U, a, b, args, guess_mean, guess_sd,
                                  probs, table_density=dens, lines=lines, failed=failed)
            if got is None and failed:
                # a skewed tail beyond the guessed 10 sds (check ii), or an sd above the
                # guess (check iii): once more on a grid reaching 14 guessed sds
                got = _chebyshev_rate(name, None, None, X, U, a, b, args, guess_mean,
                                      guess_sd, probs, table_density=dens, lines=lines,
                                      reach=_WIDE_REACH)
        out.append(None if got is None else RatePosterior(*got))
    return out[0], out[1], alpha_mean


def _log_beta(a: float, b: float) -> float:
    """``log B(a, b)`` to a few ulps of its value (not of the log-gamma functions it cancels).

    ``lgamma(a) + lgamma(b) - lgamma(a + b)`` carries the rounding of terms some 2,000 each at
    a few hundred ratings.  With ``lo <= hi``, ``n = lo + hi`` and ``rest`` the remainder of
    Stirling's series (:func:`_stirling_rest`): for ``lo >= 15``
    ``(lo - 1/2) log(lo / n) + (hi - 1/2) log(hi / n) + log(2 pi / n) / 2 + rest(lo)
    + rest(hi) - rest(n)``; for ``hi >= 15 > lo``, ``lgamma(lo) + (hi - 1/2) log(hi / n)
    - lo log n + lo + rest(hi) - rest(n)``; else scipy's ``betaln``.
    """
    lo, hi = min(a, b), max(a, b)
    if hi < _STIRLING:
        return float(special.betaln(a, b))
    n = lo + hi
    log_hi = math.log1p(-lo / n)
    if lo >= _STIRLING:
        return ((lo - 0.5) * math.log(lo / n) + (hi - 0.5) * log_hi
                + 0.5 * math.log(2.0 * math.pi / n)
                + _stirling_rest(lo) + _stirling_rest(hi) - _stirling_rest(n))
    return (float(special.gammaln(lo)) + (hi - 0.5) * log_hi - lo * math.log(n) + lo
            + _stirling_rest(hi) - _stirling_rest(n))


def _lgamma_diff(x: np.ndarray, x0: float) -> np.ndarray:
    """``lgamma(x) - lgamma(x0)`` without rounding ``lgamma(x0)`` (a shift common to all).

    Where ``x`` and ``x0`` are both at least ``_STIRLING``: ``(x - 1/2) log(x / x0) + (x - x0)
    (log x0 - 1) + rest(x) - rest(x0)``, each entry within a few ulps of its terms (some
    hundreds at 1,000 ratings: 1e-13 at most, and none common to the entries); elsewhere
    scipy's log-gamma functions (small where an argument is small).
    """
    x = np.asarray(x, dtype=float)
    if x0 < _STIRLING:
        return special.gammaln(x) - float(special.gammaln(x0))
    big = x >= _STIRLING
    out = np.empty_like(x)
    xb = x[big]
    out[big] = ((xb - 0.5) * np.log(xb / x0) + (xb - x0) * (math.log(x0) - 1.0)
                + _stirling_rest(xb) - _stirling_rest(x0))
    if not big.all():
        out[~big] = special.gammaln(x[~big]) - float(special.gammaln(x0))
    return out


def _stirling_rest(x: float | np.ndarray) -> float | np.ndarray:
    """``lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2)`` for ``x >= 15``.

    Five terms of the series; the next, ``691 / (360360 x^11)``, is below ``3e-16`` there.
    """
    y = 1.0 / (x * x)
    return (1.0 / 12.0 - y * (1.0 / 360.0 - y * (1.0 / 1260.0 - y * (1.0 / 1680.0
            - y / 1188.0)))) / x
