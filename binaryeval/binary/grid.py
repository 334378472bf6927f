"""The midpoint-grid posterior of the share of positives ``alpha`` (the baseline of the exact engine).

This is the numerical integration of von Däniken et al. (2022, Appendix B): ``alpha`` is evaluated at
the midpoints ``(i + 1/2) / N_alpha`` of ``N_alpha`` equal cells, and the metric's rates ``rho``
(true-positive rate) and ``eta`` (true-negative rate) at the midpoints of ``N_rho`` and ``N_eta``
cells, each rate cell carrying the mass its posterior ``Beta(tp + a_r, fn + b_r)`` or
``Beta(tn + a_r, fp + b_r)`` gives it (a difference of Beta CDFs).  A rate that is known exactly is a
single point of mass one.  The posterior mass of the alpha cell ``i`` is proportional to

    prior(alpha_i) * alpha_i^h+ (1 - alpha_i)^h-
        * sum_{j, k} m(rho_j) m(eta_k) p_ijk^m+ (1 - p_ijk)^m-,
    p_ijk = alpha_i rho_j + (1 - alpha_i)(1 - eta_k),

where ``h+``/``h-`` are the positive/negative human ratings and ``m+``/``m-`` the positive/negative
metric ratings of items without a human rating.  Everything is computed in log space (log-sum-exp),
one alpha row (or a few, when the rate cells are few) at a time, so memory stays bounded (the
rate grid's arrays and one row of work) whatever the number of alpha cells.  With many metric-only
ratings, ``p^m+ (1 - p)^m-`` is negligible away from ``p = m+ / (m+ + m-)``: each row then computes
only the rate cells of a band about that line that a bound on the likelihood's fall admits (the
terms left out are below ``e^-60`` of the row's largest; see :func:`_band_loglik`), which on the
paper's grid with 10,000 metric ratings is 17-20 % of them (the paper's cases).

Rate cells whose mass is below ``1e-30`` of the largest cell are left out of the sum; this changes
the posterior by far less than double precision resolves in its mean and variance and makes the
default grid (2000 x 1000 x 1000) affordable when the rate posteriors are concentrated.

The posterior density is taken as constant within each alpha cell: the CDF is piecewise linear
between cell edges, ``ppf`` inverts it, ``mean``/``var`` are the moments of the cell midpoints with
the cell masses (the paper's convention).  The grid resolution ``1 / N_alpha`` bounds the error of
quantiles; moments carry an error of order ``1 / N_alpha^2``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import logsumexp

from .. import _validate
from .._lazy import stats
from ..errors import CountsError, InputTypeError, ParameterError
from .posterior import PosteriorDistribution, _scipy_confidence

__all__ = ["GridPosterior", "grid_posterior"]

_PRUNE = np.log(1e-30)
_TILE = 131_072
_EXP_FLOOR = -700.0


def _rate_cells(known: float | None, pos: int, neg: int, prior: tuple[float, float],
                n: int) -> tuple[np.ndarray, np.ndarray]:
    """Midpoints and log masses of the rate grid (one point when the rate is known)."""
    if known is not None:
        return np.array([known]), np.array([0.0])
    edges = np.linspace(0.0, 1.0, n + 1)
    dist = stats.beta(pos + prior[0], neg + prior[1])
    # The CDF is exact near 0 and the survival function near 1: take the better of the two.
    cdf = dist.cdf(edges)
    sf = dist.sf(edges)
    mass = np.where(edges[1:] <= dist.median(), np.diff(cdf), -np.diff(sf))
    mass = np.clip(mass, 0.0, None)
    with np.errstate(divide="ignore"):
        logm = np.log(mass)
    logm -= logsumexp(logm)
    keep = logm > logm.max() + _PRUNE
    mids = (np.arange(n) + 0.5) / n
    return mids[keep], logm[keep]


def _metric_loglik(a: np.ndarray, r: np.ndarray, lr: np.ndarray, e: np.ndarray, le: np.ndarray,
                   mp: int, mn: int) -> np.ndarray:
    """Log sum_{j,k} m(rho_j) m(eta_k) p^mp (1 - p)^mn for every alpha, chunked over alpha.

    A chunk is a few alpha rows (or one row when the rate cells are many), worked on in tiles of
    at most ``_TILE`` rate cells so that the arrays of a step stay in the processor's cache.
    Terms below ``exp(_EXP_FLOOR)`` of the largest in their row are counted as zero rather than
    passed to ``exp``: their sum is below 1e-290 of the row's sum (the largest term is one), far
    under its last bit, and an ``exp`` that underflows costs twenty to a hundred times one that
    does not.
    """
    s = (r[:, None] + e[None, :] - 1.0).ravel()          # p = alpha * s + (1 - eta)
    c = np.broadcast_to(1.0 - e[None, :], (r.size, e.size)).ravel()
    ce = np.broadcast_to(e[None, :], (r.size, e.size)).ravel()
    lm = (lr[:, None] + le[None, :]).ravel()
    n = s.size
    rows = max(1, _TILE // n)
    tiles = [slice(lo, min(lo + _TILE, n)) for lo in range(0, n, _TILE)]
    like = np.empty(a.size)
    buf = np.empty((rows, n))
    tmp = np.empty((rows, min(n, _TILE)))
    big = np.empty((rows, min(n, _TILE)), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        for start in range(0, a.size, rows):
            ai = a[start:start + rows, None]
            k = ai.shape[0]
            top = np.full(k, -np.inf)
            for tile in tiles:
                t, u = buf[:k, tile], tmp[:k, :tile.stop - tile.start]
                np.multiply(ai, s[tile], out=u)            # alpha * s
                if mp:
                    np.add(u, c[tile], out=t)              # p
                    np.log(t, out=t)
                    t *= mp
                    t += lm[tile]
                else:
                    t[...] = lm[tile]
                if mn:
                    np.subtract(ce[tile], u, out=u)        # 1 - p = eta - alpha * s
                    np.log(u, out=u)
                    u *= mn
                    t += u
                np.maximum(top, t.max(axis=1), out=top)    # NaN (log of p < 0) propagates
            for i in np.flatnonzero(np.isnan(top)):
                row = buf[i]
                row[np.isnan(row)] = -np.inf
                top[i] = row.max()
            top[~np.isfinite(top)] = 0.0
            for tile in tiles:
                t, keep = buf[:k, tile], big[:k, :tile.stop - tile.start]
                t -= top[:, None]
                np.greater_equal(t, _EXP_FLOOR, out=keep)
                np.maximum(t, _EXP_FLOOR, out=t)
                np.exp(t, out=t)
                t *= keep
            like[start:start + k] = np.log(buf[:k].sum(axis=1)) + top
    return like


#: the band's cut: in an alpha row, terms below ``exp(_BAND_FLOOR)`` of its largest are left out
_BAND_FLOOR = -60.0
#: the band is used from this many metric-only ratings (with fewer it covers most rate cells)
#: and this many rate cells (with fewer, a row costs less than the band's own steps)
_BAND_FROM = 1000
_BAND_CELLS = 10_000


def _band_loglik(a: np.ndarray, r: np.ndarray, lr: np.ndarray, e: np.ndarray, le: np.ndarray,
                 mp: int, mn: int) -> np.ndarray:
    """:func:`_metric_loglik` from the rate cells near the line ``p = mp / (mp + mn)`` alone.

    With ``n = mp + mn`` metric-only ratings, ``g(p) = mp log p + mn log(1 - p)`` falls from its
    largest value at ``p_hat = mp / n`` by ``n KL(p_hat || p)``, and the second derivative of
    that divergence, ``p_hat / q^2 + (1 - p_hat) / (1 - q)^2``, is at least ``c = (p_hat^(1/3)
    + (1 - p_hat)^(1/3))^3`` for every ``q``; so ``g(p) <= g(p_hat) - n c (p - p_hat)^2 / 2``.
    In an alpha row, a term ``lr_j + le_k + g(p_jk)`` is therefore below a level ``L`` wherever
    ``|p_jk - p_hat|`` exceeds ``sqrt(2 (g(p_hat) + lr_j + max le - L) / (n c))``: for each
    ``rho_j`` the ``eta_k`` that can reach ``L`` are one run of consecutive cells (``p`` is
    linear in ``eta``), found by bisection of the sorted ``eta`` cells.  ``L`` is
    :data:`_BAND_FLOOR` below the largest term of a few cells on the line (at most the row's
    largest), and only the run's terms are computed.  The terms left out are each below
    ``exp(_BAND_FLOOR)`` (about 1e-26) of the row's largest term, so together below ``1e-26``
    times the number of rate cells of the row's sum: below ``1e-18`` of it up to ``10^8``
    rate cells, far under its last bit.  The terms kept are the ones :func:`_metric_loglik`
    computes, in the same form.
    """
    n = mp + mn
    ph = mp / n
    c = (ph ** (1.0 / 3.0) + (1.0 - ph) ** (1.0 / 3.0)) ** 3
    g_top = (mp * math.log(ph) if mp else 0.0) + (mn * math.log1p(-ph) if mn else 0.0)
    le_top = float(le.max())
    like = np.empty(a.size)
    rows = np.arange(r.size)
    last = e.size - 1

    def terms(ai: float, j: np.ndarray, k: np.ndarray) -> np.ndarray:
        rj, ek = r[j], e[k]
        u = ai * (rj + ek - 1.0)                     # alpha * s
        t = lr[j] + le[k]
        if mp:
            t += mp * np.log(u + (1.0 - ek))         # p
        if mn:
            t += mn * np.log(ek - u)                 # 1 - p = eta - alpha * s
        return t

    with np.errstate(divide="ignore", invalid="ignore"):
        for i, ai in enumerate(a):
            b = 1.0 - ai
            # the eta of each rho on the line p = p_hat, and its two nearest cells: a lower
            # bound of the row's largest term
            on_line = 1.0 - (ph - ai * r) / b
            k_near = np.clip(np.searchsorted(e, on_line), 1, last) if last else np.zeros(
                r.size, dtype=np.intp)
            near = terms(ai, np.r_[rows, rows], np.r_[k_near, np.maximum(k_near - 1, 0)])
            level = float(np.max(near[np.isfinite(near)], initial=-np.inf)) + _BAND_FLOOR
            drop = g_top + lr + le_top - level
            half = np.sqrt(2.0 * np.maximum(drop, 0.0) / (n * c)) * (1.0 + 1e-9) + 1e-12
            # p in [p_hat - half, p_hat + half] <=> eta in [1 - (p_hat + half - a rho) / b,
            # 1 - (p_hat - half - a rho) / b]
            lo = np.searchsorted(e, 1.0 - (ph + half - ai * r) / b, side="left")
            hi = np.searchsorted(e, 1.0 - (ph - half - ai * r) / b, side="right")
            hi = np.where(drop >= 0.0, hi, lo)
            sizes = hi - lo
            total = int(sizes.sum())
            if not total:
                like[i] = -np.inf
                continue
            j = np.repeat(rows, sizes)
            k = np.arange(total) - np.repeat(np.cumsum(sizes) - sizes - lo, sizes)
            t = terms(ai, j, k)
            top = float(np.max(t))
            if not top > -np.inf:
                # (every term is zero: p at 0 or 1 against ratings of the other kind)
                like[i] = -np.inf
                continue
            t -= top
            like[i] = math.log(float(np.sum(np.exp(t[t >= _BAND_FLOOR])))) + top
    return like


@dataclass(frozen=True, eq=False, repr=False)
class GridPosterior(PosteriorDistribution):
    """Posterior of ``alpha`` on a midpoint grid (see :func:`grid_posterior`).

    The density is constant within each cell, so the CDF is piecewise linear; methods follow
    ``scipy.stats`` frozen distributions as :class:`~binaryeval.binary.posterior.AlphaPosterior`
    does.

    Attributes
    ----------
    alpha : ndarray
        Cell midpoints ``(i + 1/2) / N_alpha``.
    weights : ndarray
        Posterior mass of each cell (sums to one).
    counts : dict
        The counts and known rates the posterior was computed from.
    grid : tuple of int
        ``(N_alpha, N_rho, N_eta)``.
    method : str
        ``"grid"``.

    Examples
    --------
    >>> from binaryeval.binary.grid import grid_posterior
    >>> post = grid_posterior(human_pos=60, human_total=100, grid=(1000, 1, 1))
    >>> post
    GridPosterior(mean=0.598039, std=0.0483101, method='grid')
    """

    alpha: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)
    counts: dict = field(default_factory=dict)
    grid: tuple[int, int, int] = (2000, 1000, 1000)
    prior: tuple[float, float] = (1.0, 1.0)
    rate_prior: tuple[float, float] = (1.0, 1.0)
    method: str = "grid"

    # -- moments ---------------------------------------------------------------------------------
    def mean(self) -> float:
        """Posterior mean (cell midpoints weighted by cell masses).

        Examples
        --------
        >>> from binaryeval.binary.grid import grid_posterior
        >>> round(grid_posterior(human_pos=6, human_total=10, grid=(2000, 1, 1)).mean(), 6)
        0.583333
        """
        return float(np.dot(self.weights, self.alpha))

    def var(self) -> float:
        """Posterior variance (cell midpoints weighted by cell masses).

        Examples
        --------
        >>> from binaryeval.binary.grid import grid_posterior
        >>> round(grid_posterior(human_pos=6, human_total=10, grid=(2000, 1, 1)).var(), 5)
        0.0187
        """
        m = self.mean()
        return float(np.dot(self.weights, (self.alpha - m) ** 2))

    def mode(self) -> float:
        """Midpoint of the cell with the largest mass.

        Examples
        --------
        >>> from binaryeval.binary.grid import grid_posterior
        >>> grid_posterior(human_pos=6, human_total=10, grid=(2000, 1, 1)).mode()
        0.59975
        """
        return float(self.alpha[int(np.argmax(self.weights))])

    # -- distribution functions ----------------------------------------------------------------------
    @property
    def _edges(self) -> np.ndarray:
        return np.linspace(0.0, 1.0, self.alpha.size + 1)

    @property
    def _cum(self) -> np.ndarray:
        c = np.concatenate([[0.0], np.cumsum(self.weights)])
        return c / c[-1]

    def pdf(self, x) -> np.ndarray | float:
        """Density, constant within each cell (mass times ``N_alpha``); zero outside [0, 1].

        Examples
        --------
        >>> from binaryeval.binary.grid import grid_posterior
        >>> float(grid_posterior(grid=(100, 1, 1)).pdf(0.5))
        1.0
        """
        x = np.asarray(x, dtype=float)
        n = self.alpha.size
        with np.errstate(invalid="ignore"):
            idx = np.clip(np.floor(np.nan_to_num(x) * n).astype(int), 0, n - 1)
            out = np.where((x >= 0) & (x <= 1), self.weights[idx] * n, 0.0)
        out = np.where(np.isnan(x), np.nan, out)
        return float(out) if out.ndim == 0 else out

    def logpdf(self, x) -> np.ndarray | float:
        """Logarithm of :meth:`pdf`.

        Examples
        --------
        >>> from binaryeval.binary.grid import grid_posterior
        >>> float(grid_posterior(grid=(100, 1, 1)).logpdf(0.5))
        0.0
        """
        with np.errstate(divide="ignore"):
            return np.log(self.pdf(x))

    def cdf(self, x) -> np.ndarray | float:
        """Distribution function, linear within each cell.

        Examples
        --------
        >>> from binaryeval.binary.grid import grid_posterior
        >>> round(float(grid_posterior(grid=(100, 1, 1)).cdf(0.25)), 12)
        0.25
        """
        out = np.interp(np.asarray(x, dtype=float), self._edges, self._cum)
        return float(out) if np.ndim(out) == 0 else out

    def sf(self, x) -> np.ndarray | float:
        """Survival function ``1 - cdf``.

        Examples
        --------
        >>> from binaryeval.binary.grid import grid_posterior
        >>> round(float(grid_posterior(grid=(100, 1, 1)).sf(0.25)), 12)
        0.75
        """
        return 1.0 - self.cdf(x)

    def ppf(self, q) -> np.ndarray | float:
        """Quantile function, the inverse of the piecewise linear :meth:`cdf` (NaN outside [0, 1]).

        Examples
        --------
        >>> from binaryeval.binary.grid import grid_posterior
        >>> round(float(grid_posterior(grid=(100, 1, 1)).ppf(0.3)), 12)
        0.3
        """
        q = np.asarray(q, dtype=float)
        cum, edges = self._cum, self._edges
        qc = np.clip(np.nan_to_num(q), 0.0, 1.0)
        # Right-continuous inverse: for each q the first edge where the CDF reaches q.
        i = np.clip(np.searchsorted(cum, qc, side="left"), 1, cum.size - 1)
        lo, hi = cum[i - 1], cum[i]
        frac = np.where(hi > lo, (qc - lo) / np.where(hi > lo, hi - lo, 1.0), 0.0)
        out = edges[i - 1] + frac * (edges[i] - edges[i - 1])
        out = np.where((q >= 0) & (q <= 1), out, np.nan)
        return float(out) if out.ndim == 0 else out

    def isf(self, q) -> np.ndarray | float:
        """Inverse survival function, ``ppf(1 - q)``.

        Examples
        --------
        >>> from binaryeval.binary.grid import grid_posterior
        >>> round(float(grid_posterior(grid=(100, 1, 1)).isf(0.3)), 12)
        0.7
        """
        return self.ppf(1.0 - np.asarray(q, dtype=float))

    def _raw_moment(self, n: int) -> float:
        """``E[alpha^n]`` over the cell midpoints (the paper's convention, as :meth:`mean`)."""
        return float(np.dot(self.weights, self.alpha ** n))

    def _central_moments(self) -> tuple[float, float]:
        d = self.alpha - self.mean()
        return float(np.dot(self.weights, d ** 3)), float(np.dot(self.weights, d ** 4))

    def expect(self, func=None, args: tuple = (), lb: float | None = None,
               ub: float | None = None, conditional: bool = False, **kwds) -> float:
        """``E[func(alpha)]`` over the cell midpoints with the cell masses (as :meth:`mean`).

        Parameters
        ----------
        func : callable, optional
            A function of one point (and ``args``); the identity when None.
        args : tuple
            Further arguments of ``func``.
        lb, ub : float, optional
            Only cells whose midpoints lie in ``[lb, ub]``.
        conditional : bool
            Divide by the mass of those cells.
        **kwds
            Not used (scipy passes them to its quadrature).

        Returns
        -------
        float

        Examples
        --------
        >>> from binaryeval.binary.grid import grid_posterior
        >>> post = grid_posterior(human_pos=6, human_total=10, grid=(2000, 1, 1))
        >>> round(post.expect(), 6) == round(post.mean(), 6)
        True
        """
        x = self.alpha
        sel = np.ones(x.size, dtype=bool)
        if lb is not None:
            sel &= x >= lb
        if ub is not None:
            sel &= x <= ub
        vals = x[sel] if func is None else np.array([func(v, *args) for v in x[sel]], dtype=float)
        total = float(np.dot(self.weights[sel], vals))
        if conditional:
            total /= float(self.weights[sel].sum())
        return total

    def entropy(self) -> float:
        """Differential entropy of the piecewise constant density, ``-sum_i w_i log(w_i N)``.

        Examples
        --------
        >>> from binaryeval.binary.grid import grid_posterior
        >>> round(grid_posterior(grid=(100, 1, 1)).entropy(), 12)  # uniform on [0, 1]
        0.0
        """
        w = self.weights[self.weights > 0]
        return float(-np.dot(w, np.log(w * self.alpha.size)))

    def interval(self, level: float = 0.95, kind: str = "eti", *,
                 confidence: float | None = None) -> tuple[float, float]:
        """Credible interval of ``alpha``.

        Parameters
        ----------
        level : float
            Posterior mass inside the interval, in (0, 1).
        kind : {"eti", "hdi"}
            Equal-tailed interval or highest-density interval (the shortest interval holding
            ``level`` of the mass; with a piecewise constant density it is found to within one cell).
        confidence : float, optional
            scipy's name for ``level``; give one of the two.

        Returns
        -------
        (float, float)

        Examples
        --------
        >>> from binaryeval.binary.grid import grid_posterior
        >>> [round(v, 3) for v in grid_posterior(grid=(1000, 1, 1)).interval(0.5)]
        [0.25, 0.75]
        """
        level = _validate.level(_scipy_confidence(level, confidence))
        kind = _validate.choice(kind, "kind", ("eti", "hdi"))
        if kind == "eti":
            lo, hi = self.ppf([(1 - level) / 2, (1 + level) / 2])
            return float(lo), float(hi)
        starts = np.linspace(0.0, 1.0 - level, 2001)
        lo = self.ppf(starts)
        hi = self.ppf(starts + level)
        k = int(np.argmin(hi - lo))
        return float(lo[k]), float(hi[k])

    def _draw(self, rng, n: int) -> np.ndarray:
        """A cell by its mass, then a uniform point inside it."""
        cells = rng.choice(self.alpha.size, size=n, p=self.weights)
        return (cells + rng.random(n)) / self.alpha.size


#: The most likelihood evaluations (alpha cells times rate cells kept) a grid may ask for: 50
#: times the paper's grid (2000 x 1000 x 1000), about half an hour at 7e7 per second.
MAX_GRID_EVALUATIONS = 1e11


def _check_grid_size(grid, n_alpha: int, rate_cells: int) -> None:
    """Refuse a grid that needs more memory than is available, or absurdly many evaluations."""
    # the rate grid's flattened arrays (four), the work array of at least one alpha row, and
    # two tile-sized work arrays (one of them boolean)
    need = 8.0 * (4 * rate_cells + max(rate_cells, _TILE)) + 9.0 * _TILE
    fix = "use method='exact' (the default), or fewer cells (the paper's grid is (2000, 1000, 1000))"
    _validate.memory(need, f"grid={tuple(grid)!r} ({rate_cells} rate cells kept)", fix)
    work = float(n_alpha) * rate_cells
    if work > MAX_GRID_EVALUATIONS:
        raise ParameterError(f"grid={tuple(grid)!r} needs {work:.1e} likelihood evaluations ("
                             f"{work / 2e9:.3g} times the paper's grid); "
                             f"at most {MAX_GRID_EVALUATIONS:.0e} are done: {fix}")


#: a grid is too coarse when the midpoint rule's relative error of a variance, ``h^2 / (12
#: sd^2)`` (``h`` a cell's width), exceeds this for alpha or a rate
_COARSE = 1e-2


def _check_resolution(a: np.ndarray, w: np.ndarray, na: int, rates: list, rate_prior) -> None:
    """One warning when the cells are too wide for the posterior they hold (alpha or a rate)."""
    from .._warnings import warn
    from ..errors import BinaryEvalWarning

    mean = float(w @ a)
    sds = {"alpha": (math.sqrt(max(float(w @ (a - mean) ** 2), 0.0)), na)}
    for name, n, pos, neg in rates:
        x, y = pos + rate_prior[0], neg + rate_prior[1]
        sds[name] = (math.sqrt(x * y / ((x + y) ** 2 * (x + y + 1.0))), n)
    coarse = {k: (sd, n) for k, (sd, n) in sds.items()
              if not sd > 0 or (1.0 / n) ** 2 / (12.0 * sd * sd) > _COARSE}
    if not coarse:
        return
    listed = "; ".join(f"{k}: {n} cells of width {1.0 / n:.3g} for a posterior sd of {sd:.3g}"
                       for k, (sd, n) in coarse.items())
    warn(f"the grid is too coarse for this posterior ({listed}): the midpoint rule then errs "
         "by more than 1 % in the variance (about h^2 / 12 of it for cells of width h), and "
         "more in the tails; use a finer grid (the paper's is grid=(2000, 1000, 1000)) or the "
         "exact engine (method='exact')", BinaryEvalWarning)


def grid_posterior(human_pos: int = 0, human_total: int = 0, metric_pos: int = 0,
                   metric_total: int = 0, tp: int = 0, fn: int = 0, tn: int = 0, fp: int = 0,
                   rho: float | None = None, eta: float | None = None,
                   prior: Sequence[float] = (1, 1), rate_prior: Sequence[float] = (1, 1),
                   grid: Sequence[int] = (2000, 1000, 1000)) -> GridPosterior:
    """Posterior of the share of positives ``alpha`` by the paper's midpoint grid.

    Parameters
    ----------
    human_pos, human_total : int
        Positive and total human ratings that inform ``alpha``.
    metric_pos, metric_total : int
        Positive and total metric ratings of items without a human rating.
    tp, fn, tn, fp : int
        Paired items (human and metric rating): true positives, false negatives, true negatives,
        false positives.  ``rho ~ Beta(tp + a_r, fn + b_r)``, ``eta ~ Beta(tn + a_r, fp + b_r)``.
    rho, eta : float, optional
        Rates known exactly (then their paired counts are ignored).
    prior : (a, b)
        Beta prior of ``alpha``.
    rate_prior : (a_r, b_r)
        Beta prior of each rate.
    grid : (N_alpha, N_rho, N_eta)
        Number of cells; the paper uses (2000, 1000, 1000).

    Returns
    -------
    GridPosterior

    Examples
    --------
    >>> from binaryeval.binary.grid import grid_posterior
    >>> post = grid_posterior(human_pos=60, human_total=100, grid=(1000, 1, 1))
    >>> round(post.mean(), 4)   # Beta(61, 41) has mean 61/102
    0.598
    """
    c = {name: _validate.count(value, name) for name, value in dict(
        human_pos=human_pos, human_total=human_total, metric_pos=metric_pos,
        metric_total=metric_total, tp=tp, fn=fn, tn=tn, fp=fp).items()}
    for pos, tot in (("human_pos", "human_total"), ("metric_pos", "metric_total")):
        if c[pos] > c[tot]:
            raise CountsError(f"{pos}={c[pos]} exceeds {tot}={c[tot]}: positives cannot "
                              "outnumber ratings")
    hp, ht, mp, mt = c["human_pos"], c["human_total"], c["metric_pos"], c["metric_total"]
    tp, fn, tn, fp = c["tp"], c["fn"], c["tn"], c["fp"]
    rho = None if rho is None else _validate.probability(rho, "rho")
    eta = None if eta is None else _validate.probability(eta, "eta")
    _validate.possible_under_known_rates(mp, mt, rho, eta)
    prior, rate_prior = _validate.beta_pair(prior, "prior"), _validate.beta_pair(rate_prior, "rate_prior")
    try:
        na, nr, ne = (int(g) for g in grid)
    except (TypeError, ValueError):
        raise InputTypeError(f"grid must be three cell counts (N_alpha, N_rho, N_eta), got {grid!r}.") from None
    if min(na, nr, ne) < 1:
        raise ParameterError(f"grid must hold positive cell counts, got {grid!r}; e.g. (2000, 1000, 1000).")

    a = (np.arange(na) + 0.5) / na
    la, l1a = np.log(a), np.log1p(-a)
    logw = (prior[0] - 1 + hp) * la + (prior[1] - 1 + ht - hp) * l1a

    if mt > 0:
        r, lr = _rate_cells(rho, tp, fn, rate_prior, nr)
        e, le = _rate_cells(eta, tn, fp, rate_prior, ne)
        _check_grid_size(grid, na, r.size * e.size)
        # many metric-only ratings and rate cells: the band of cells that matter in each row
        band = mt >= _BAND_FROM and r.size * e.size >= _BAND_CELLS
        like = (_band_loglik if band else _metric_loglik)(a, r, lr, e, le, mp, mt - mp)
        logw = logw + like

    logw = logw - logsumexp(logw)
    w = np.exp(logw)
    w = w / w.sum()
    _check_resolution(a, w, na, [(name, n, pos, neg) for name, n, pos, neg, known in (
        ("rho", nr, tp, fn, rho), ("eta", ne, tn, fp, eta)) if mt > 0 and known is None],
        rate_prior)
    counts = {"human_pos": hp, "human_total": ht, "metric_pos": mp, "metric_total": mt,
              "tp": tp, "fn": fn, "tn": tn, "fp": fp, "rho": rho, "eta": eta}
    return GridPosterior(alpha=a, weights=w, counts=counts, grid=(na, nr, ne),
                         prior=prior, rate_prior=rate_prior)
