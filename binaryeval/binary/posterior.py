"""The posterior of ``alpha`` as a distribution object (scipy's frozen-distribution conventions).

:class:`AlphaPosterior` is the exact posterior, a finite mixture of Beta distributions whose
components share ``a_j + b_j = N`` and have consecutive ``a_j = a_0 + j`` (see
:mod:`binaryeval.binary.engine` for how the weights are computed).  It offers what code written for
``scipy.stats`` expects of a frozen distribution -- ``mean()``, ``var()``, ``std()``,
``median()``, ``pdf``, ``logpdf``, ``cdf``, ``sf``, ``ppf``, ``isf``, ``interval``, ``rvs``,
``support()`` -- plus ``mode()``, :meth:`~AlphaPosterior.prob_greater` and the package's result
protocol (``summary()``, ``to_frame()``).

Distribution functions without summing incomplete beta functions
-----------------------------------------------------------------
Consecutive components are linked by ``I_x(a + 1, b - 1) = I_x(a, b) - d(x)`` with
``d_j(x) = C(N - 1, a_j) x^a_j (1 - x)^(b_j - 1)`` (a binomial probability with real arguments).
Telescoping down from the last component gives, with ``C_j`` the cumulative weights,

    F(x) = I_x(a_{K-1}, b_{K-1}) + sum_{j < K-1} d_j(x) C_j,

a sum of positive terms (so the lower tail keeps its relative accuracy).  ``d_j(x)`` is a
bell-shaped kernel in ``j`` around ``x (N - 1) - a_0`` with width ``s = sqrt((N - 1) x (1 - x))``;
the sum runs over a window of ``10 s + 40`` terms on each side (the terms outside add less than
1e-18, checked at the window's edges for every ``x``).  The kernel is evaluated at its peak with
Loader's saddle-point form (:mod:`binaryeval.binary._kernels`: accurate to a few units in the last
place even for ``N = 10^9``, where log-gamma differences lose seven digits) and from there by the
ratio ``d_{j+1} / d_j = (b_j - 1) / (a_j + 1) * x / (1 - x)``, accumulated outwards so that rounding
grows only where the terms are already negligible.  The survival function is the same sum for the
mirrored mixture (``1 - alpha``), so the upper tail is accurate too; the density uses the kernel
``Beta(x; a_j, b_j)`` the same way.  The stated error of ``cdf`` and ``sf`` is 1e-12 absolute
(and about 1e-13 relative in the tails), tested against the term-by-term mixture up to 10^8
metric ratings.

P(alpha_1 > alpha_2)
--------------------
``P(alpha_1 > alpha_2) = int f_n(x) G(x) dx`` is integrated over the *narrower* posterior ``n``
(``G`` is the other one's CDF or survival function), on panels placed at both posteriors' means and
standard deviations and bisected until Gauss-Legendre rules of 8 and 16 points agree to 1e-14 per
panel (both for ``G`` and for ``1 - G``, so ``P(a > b)`` and ``P(b > a)`` use the same nodes and sum
to one within rounding).  The mass of ``n`` outside ``[ppf(1e-15), isf(1e-15)]`` is left out and
the result is normalised by the integral of ``f_n`` on the same nodes.  The tests hold it to 1e-11
of adaptive quadrature (``scipy.integrate.quad``) over random pairs with widths from one rating to
10^6.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from .. import _validate
from .._results import Result
from ..errors import ParameterError
from ..summary import Summary
from ._kernels import dot as _dot
from ._kernels import log_beta_pdf, log_dbinom
from ._piecewise import PiecewiseChebyshev, interpolate_noisy
from ._smooth import SmoothMixture, _cumulative

__all__ = ["AlphaPosterior", "PosteriorDistribution", "prob_greater"]

_TAIL = math.log(1e-18)
_CHUNK = 2_000_000  # elements of the (points x window) work arrays per chunk
_GL8 = np.polynomial.legendre.leggauss(8)
_GL16 = np.polynomial.legendre.leggauss(16)


def _as_points(x) -> tuple[np.ndarray, bool]:
    arr = np.asarray(x, dtype=float)
    return arr.ravel(), arr.ndim == 0


def _shape(values: np.ndarray, x, scalar: bool):
    if scalar:
        return float(values[0])
    return values.reshape(np.shape(x))


class PosteriorDistribution(Result):
    """What every posterior of ``alpha`` offers, given ``cdf``, ``sf``, ``pdf`` and ``ppf``.

    Subclasses (:class:`AlphaPosterior`, the grid posterior) implement the distribution functions
    and moments; this base adds intervals, the median, ``rvs``, ``prob_greater`` and the result
    protocol.

    Examples
    --------
    >>> from binaryeval import alpha_posterior
    >>> post = alpha_posterior(human_pos=6, human_total=10)
    >>> isinstance(post, PosteriorDistribution)
    True
    """

    __slots__ = ()

    def support(self) -> tuple[float, float]:
        """The support ``(0, 1)`` of ``alpha``.

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> alpha_posterior(human_pos=1, human_total=2).support()
        (0.0, 1.0)
        """
        return (0.0, 1.0)

    def median(self) -> float:
        """Posterior median.

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=5, human_total=10).median(), 6)
        0.5
        """
        return float(self.ppf(0.5))

    def std(self) -> float:
        """Posterior standard deviation.

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).std(), 6)  # Beta(7, 5)
        0.136735
        """
        return math.sqrt(self.var())

    def interval(self, level: float = 0.95, kind: str = "eti") -> tuple[float, float]:
        """Credible interval holding posterior probability ``level``.

        Parameters
        ----------
        level : float
            Posterior probability inside the interval (positional, as scipy's ``interval``).
        kind : {"eti", "hdi"}
            Equal-tailed interval, or the highest-density interval (the shortest single interval
            with that probability; where the paired rows contradict the metric the posterior can
            have two modes, and the interval then spans the valley between them).

        Returns
        -------
        (float, float)

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> [round(v, 4) for v in alpha_posterior(human_pos=6, human_total=10).interval(0.9)]
        [0.3498, 0.8004]
        """
        level = _validate.level(level)
        kind = _validate.choice(kind, "kind", ("eti", "hdi"))
        if kind == "eti":
            tail = (1.0 - level) / 2.0
            return (float(self.ppf(tail)), float(self.isf(tail)))
        from scipy.optimize import minimize_scalar

        def width(p: float) -> float:
            return float(self.ppf(p + level) - self.ppf(p))

        res = minimize_scalar(width, bounds=(0.0, 1.0 - level), method="bounded",
                              options={"xatol": 1e-10})
        # the boundary solutions (mode at 0 or 1) are not interior minima
        _, p = min((width(float(res.x)), float(res.x)), (width(0.0), 0.0),
                   (width(1.0 - level), 1.0 - level))
        return (float(self.ppf(p)), float(self.ppf(p + level)))

    def rvs(self, size: int | tuple[int, ...] = 1, random_state: Any = None) -> np.ndarray:
        """Random draws from the posterior (scipy's argument names).

        Parameters
        ----------
        size : int or tuple of int
            Shape of the output.
        random_state : None, int, numpy Generator or RandomState
            Source of randomness; the same integer gives the same draws.

        Returns
        -------
        ndarray

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> post = alpha_posterior(human_pos=6, human_total=10)
        >>> post.rvs(size=3, random_state=1).shape
        (3,)
        """
        if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
            rng = random_state
        else:
            rng = np.random.default_rng(_validate.seed(random_state, "random_state"))
        return self._draw(rng, size)

    def prob_greater(self, other: PosteriorDistribution) -> float:
        """``P(alpha_self > alpha_other)`` for independent posteriors.

        Adaptive Gauss-Legendre quadrature over the narrower posterior's mass (see the module
        notes); the error is below 1e-12 whatever the two widths.

        Parameters
        ----------
        other : PosteriorDistribution

        Returns
        -------
        float

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> a = alpha_posterior(human_pos=60, human_total=100)
        >>> b = alpha_posterior(human_pos=50, human_total=100)
        >>> round(a.prob_greater(b), 4)
        0.9214
        """
        return prob_greater(self, other)

    # -- protocol --------------------------------------------------------------------------
    def _repr_fields(self) -> Mapping[str, Any]:
        return {"mean": self.mean(), "std": self.std(), "method": getattr(self, "method", "")}

    def to_frame(self, level: float = 0.95, kind: str = "eti") -> pd.DataFrame:
        """One row: ``estimate`` (mean), ``std_error`` (sd), ``mode``, ``median``, ``lower``, ``upper``.

        Parameters
        ----------
        level : float
            Probability of the credible interval.
        kind : {"eti", "hdi"}
            Kind of interval (in ``attrs`` with the level).

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> alpha_posterior(human_pos=6, human_total=10).to_frame().round(4)
               estimate  std_error  mode  median   lower   upper
        alpha    0.5833     0.1367   0.6  0.5881  0.3079  0.8325
        """
        lo, hi = self.interval(level, kind)
        out = pd.DataFrame({"estimate": [self.mean()], "std_error": [self.std()],
                            "mode": [self.mode()], "median": [self.median()],
                            "lower": [lo], "upper": [hi]}, index=["alpha"])
        out.attrs.update(level=level, kind=kind, method=getattr(self, "method", ""))
        return out

    def summary(self, level: float = 0.95) -> Summary:
        """Printable summary: the counts, the priors and the posterior's estimates.

        Parameters
        ----------
        level : float
            Probability of the credible interval.

        Returns
        -------
        Summary

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> print(alpha_posterior(human_pos=6, human_total=10).summary().as_text().splitlines()[0])
        Posterior of alpha (rate of adequate outputs)
        """
        counts = dict(getattr(self, "counts", {}))
        info = {k: v for k, v in counts.items() if v is not None}
        info["method"] = getattr(self, "method", "")
        table = self.to_frame(level)
        return Summary("Posterior of alpha (rate of adequate outputs)", info,
                       [(f"{100 * level:g}% equal-tailed credible interval", table)])

    # -- hooks -------------------------------------------------------------------------------
    def _draw(self, rng, size):  # pragma: no cover - every subclass implements it
        raise TypeError(f"{type(self).__name__} cannot draw samples")

    def _support(self) -> tuple[float, float]:
        """Where all but 1e-15 of each tail's mass lies (cached by subclasses)."""
        return float(self.ppf(1e-15)), float(self.isf(1e-15))

    def _fast(self):
        """``(cdf, sf, pdf)`` for many points at once; exact here, interpolated by mixtures."""
        return self.cdf, self.sf, self.pdf


@dataclass(frozen=True, eq=False, repr=False)
class AlphaPosterior(PosteriorDistribution):
    """Exact posterior of ``alpha``: a finite mixture of Beta distributions.

    ``weights[j]`` is the probability of component ``Beta(a[j], b[j])``; the components share
    ``a[j] + b[j]`` and ``a[j + 1] = a[j] + 1``.  Create it with
    :func:`binaryeval.alpha_posterior` (or get one per group from a fit).  Methods follow
    ``scipy.stats`` frozen distributions, so the object drops into code written for them.

    Examples
    --------
    >>> from binaryeval import alpha_posterior
    >>> post = alpha_posterior(human_pos=60, human_total=100, metric_pos=5600,
    ...                        metric_total=10000, tp=96, fn=24, tn=64, fp=16)
    >>> post
    AlphaPosterior(mean=0.599254, std=0.0344717, method='exact')
    >>> round(post.cdf(0.6), 4), round(post.ppf(0.5), 4)
    (0.5076, 0.5993)
    """

    a: np.ndarray | None
    b: np.ndarray | None
    weights: np.ndarray | None
    counts: dict = field(default_factory=dict)
    method: str = "exact"
    smooth: SmoothMixture | None = field(default=None, repr=False)
    #: separate modes: the posterior is ``sum_i part_weights[i] * parts[i]``
    parts: tuple = field(default=(), repr=False)
    part_weights: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def from_smooth(cls, smooth: SmoothMixture, counts: dict | None = None) -> AlphaPosterior:
        """A posterior whose many components are held through their smooth weight function.

        ``a``, ``b`` and ``weights`` are then None; :meth:`components` builds the arrays.

        Parameters
        ----------
        smooth : SmoothMixture
            The components (see :mod:`binaryeval.binary._smooth`).
        counts : dict, optional
            The counts the posterior was computed from.

        Returns
        -------
        AlphaPosterior

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> post = alpha_posterior(metric_pos=560000, metric_total=10**6, tp=20, fn=5, tn=15, fp=5)
        >>> post.smooth is not None, post.n_components > 10**5
        (True, True)
        """
        return cls(None, None, None, counts=dict(counts or {}), method="exact", smooth=smooth)

    @classmethod
    def from_parts(cls, parts, weights, counts: dict | None = None) -> AlphaPosterior:
        """A posterior with separate modes: a weighted sum of posteriors, one per mode.

        Used by the engine when the weights over ``T`` have modes too far apart to hold every
        component between them.

        Parameters
        ----------
        parts : sequence of AlphaPosterior
            One posterior per mode, each a mixture of consecutive components.
        weights : array_like
            Their probabilities (summing to 1).
        counts : dict, optional
            The counts the posterior was computed from.

        Returns
        -------
        AlphaPosterior

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> post = AlphaPosterior.from_parts(
        ...     [alpha_posterior(1, 10), alpha_posterior(9, 10)], [0.5, 0.5])
        >>> round(post.mean(), 6), round(post.cdf(0.5), 6)
        (0.5, 0.5)
        """
        w = np.asarray(weights, dtype=float)
        return cls(None, None, None, counts=dict(counts or {}), method="exact",
                   parts=tuple(parts), part_weights=w / w.sum())

    def components(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The mixture's components as arrays ``(a, b, weights)``.

        Returns
        -------
        (ndarray, ndarray, ndarray)

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> a, b, w = alpha_posterior(human_pos=6, human_total=10).components()
        >>> a.tolist(), b.tolist(), w.tolist()
        ([7.0], [5.0], [1.0])
        """
        if self.parts:
            comps = [p.components() for p in self.parts]
            return (np.concatenate([c[0] for c in comps]), np.concatenate([c[1] for c in comps]),
                    np.concatenate([c[2] * w for c, w in zip(comps, self.part_weights,
                                                              strict=True)]))
        if self.smooth is None:
            return self.a, self.b, self.weights
        j = np.arange(self.smooth.U + 1, dtype=float)
        a = self.smooth.a0 + j
        return a, self.smooth.N - a, self.smooth.weights()

    @property
    def _is_beta(self) -> bool:
        return self.smooth is None and not self.parts and self.weights.size == 1

    # -- moments ---------------------------------------------------------------------------
    @cached_property
    def _total(self) -> float:
        if self.parts:
            return self.parts[0]._total
        if self.smooth is not None:
            return self.smooth.N
        return float(self.a[0] + self.b[0])

    @cached_property
    def _moments(self) -> tuple[float, float]:
        if self.parts:
            w = self.part_weights
            m = np.array([p.mean() for p in self.parts])
            v = np.array([p.var() for p in self.parts])
            mean = float(_dot(w, m))
            return mean, float(_dot(w, v + (m - mean) ** 2))
        if self.smooth is not None:
            return self.smooth.mean(), self.smooth.var()
        n = self._total
        w = self.weights
        mean = float(_dot(w, self.a) / n)
        # variance as E[Var | j] + Var[E | j], both sums of non-negative terms (no cancellation)
        m_j = self.a / n
        within = float(_dot(w, m_j * (1.0 - m_j)) / (n + 1.0))
        between = float(_dot(w, (m_j - mean) ** 2))
        return mean, within + between

    def mean(self) -> float:
        """Posterior mean.

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> alpha_posterior(human_pos=6, human_total=10).mean() == 7 / 12
        True
        """
        return self._moments[0]

    def var(self) -> float:
        """Posterior variance.

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).var(), 8)  # 7*5/(12^2*13)
        0.01869658
        """
        return self._moments[1]

    @cached_property
    def _mode(self) -> float:
        from scipy.optimize import minimize_scalar

        if self._is_beta:
            a, b = float(self.a[0]), float(self.b[0])
            if a > 1 and b > 1:
                return (a - 1.0) / (a + b - 2.0)
            return 0.0 if a <= b else 1.0
        if self.parts:
            # the modes are far apart: the densest of the parts' own modes
            modes = np.array([p._mode for p in self.parts])
            return float(modes[int(np.argmax(self.pdf(modes)))])
        if self.smooth is not None:
            sd = self.std()
            lo, hi = max(self.mean() - 8 * sd, 0.0), min(self.mean() + 8 * sd, 1.0)
        else:
            lo, hi = float(self.ppf(1e-9)), float(self.isf(1e-9))
        if lo == hi:
            return lo
        # start from the densest of a few points to stay in the right basin
        grid = np.linspace(lo, hi, 201)
        dens = self.pdf(grid)
        i = int(np.argmax(dens))
        if i == 0 and self.pdf(0.0) >= dens[0]:
            return 0.0
        if i == grid.size - 1 and self.pdf(1.0) >= dens[-1]:
            return 1.0
        left, right = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        res = minimize_scalar(lambda t: -self.pdf(t), bounds=(left, right), method="bounded",
                              options={"xatol": 1e-12})
        return float(res.x)

    def mode(self) -> float:
        """Posterior mode (where the density is largest).

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> alpha_posterior(human_pos=6, human_total=10).mode()  # (a - 1) / (a + b - 2)
        0.6
        """
        return self._mode

    @property
    def n_components(self) -> int:
        """Number of Beta components kept in the mixture."""
        if self.parts:
            return sum(p.n_components for p in self.parts)
        if self.smooth is not None:
            return self.smooth.U + 1
        return int(self.weights.size)

    # -- the kernels -----------------------------------------------------------------------
    @cached_property
    def _lower(self):
        if self.parts:
            return _PartsSide(self.parts, self.part_weights, upper=False)
        if self.smooth is not None:
            return _SmoothEval(self.smooth.lower)
        return _Telescope(self.a, self.b, self.weights)

    @cached_property
    def _upper(self):
        # the mirrored mixture: 1 - alpha has components Beta(b_j, a_j) in reverse order
        if self.parts:
            return _PartsSide(self.parts, self.part_weights, upper=True)
        if self.smooth is not None:
            return _SmoothEval(self.smooth.upper)
        return _Telescope(self.b[::-1].copy(), self.a[::-1].copy(), self.weights[::-1].copy())

    def cdf(self, x):
        """Posterior distribution function ``P(alpha <= x)``; NaN in, NaN out.

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> post = alpha_posterior(human_pos=6, human_total=10)
        >>> round(post.cdf(0.5), 6), post.cdf(float("nan"))
        (0.274414, nan)
        """
        pts, scalar = _as_points(x)
        return _shape(self._split(pts, upper=False), x, scalar)

    def sf(self, x):
        """Survival function ``P(alpha > x)``, accurate in the upper tail.

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).sf(0.5), 6)
        0.725586
        """
        pts, scalar = _as_points(x)
        return _shape(self._split(pts, upper=True), x, scalar)

    def _split(self, x: np.ndarray, upper: bool) -> np.ndarray:
        """Cdf (or sf) computed from the side where it is small.

        The telescoping sum is accurate relative to its value there, and ``1 - value`` keeps the
        other side monotone to rounding.
        """
        out = np.full(x.shape, np.nan)
        low = x <= self.mean()
        high = x > self.mean()
        with np.errstate(invalid="ignore"):
            cdf_low = self._lower.cdf(x[low])
            sf_high = self._upper.cdf(1.0 - x[high])
        if upper:
            out[low], out[high] = 1.0 - cdf_low, sf_high
        else:
            out[low], out[high] = cdf_low, 1.0 - sf_high
        return out

    def logpdf(self, x):
        """Logarithm of the posterior density (``-inf`` outside [0, 1]).

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).logpdf(0.5), 6)
        0.813531
        """
        pts, scalar = _as_points(x)
        return _shape(self._lower.logpdf(pts), x, scalar)

    def pdf(self, x):
        """Posterior density (zero outside [0, 1]).

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).pdf(0.5), 6)  # Beta(7, 5)
        2.255859
        """
        pts, scalar = _as_points(x)
        return _shape(np.exp(self._lower.logpdf(pts)), x, scalar)

    def ppf(self, q):
        """Quantile function (inverse of :meth:`cdf`); NaN for ``q`` outside [0, 1].

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).ppf(0.5), 6)  # Beta(7, 5)
        0.58811
        """
        pts, scalar = _as_points(q)
        out = np.array([self._quantile(float(p), upper=False) for p in pts])
        return _shape(out, q, scalar)

    def isf(self, q):
        """Inverse survival function: the ``x`` with ``P(alpha > x) = q``.

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).isf(0.5), 6)
        0.58811
        """
        pts, scalar = _as_points(q)
        out = np.array([self._quantile(float(p), upper=True) for p in pts])
        return _shape(out, q, scalar)

    @cached_property
    def _support_cached(self) -> tuple[float, float]:
        if self.parts:
            ends = [p._support_cached for p, w in zip(self.parts, self.part_weights, strict=True)
                    if w > 1e-16]
            return min(e[0] for e in ends), max(e[1] for e in ends)
        if self.smooth is not None:
            return self.smooth.support(1e-16)
        if self.weights.size == 1:
            a, b = float(self.a[0]), float(self.b[0])
            return (float(special.betaincinv(a, b, 1e-15)), float(special.betainccinv(a, b, 1e-15)))
        # below the 1e-16 quantile of the first component holding more than 1e-16 of the weight,
        # the mixture has at most 2e-16 of its mass (components further down hold less than 1e-16
        # together); the same from the top
        cum = self._lower.cum
        first = int(np.searchsorted(cum, 1e-16, side="right"))
        last = int(np.searchsorted(cum, 1.0 - 1e-16, side="left"))
        first, last = min(first, cum.size - 1), min(last, cum.size - 1)
        return (float(special.betaincinv(self.a[first], self.b[first], 1e-16)),
                float(special.betainccinv(self.a[last], self.b[last], 1e-16)))

    def _support(self) -> tuple[float, float]:
        return self._support_cached

    @cached_property
    def _interpolants(self):
        """Piecewise Chebyshev interpolants of cdf and pdf on the support.

        The density's interpolant is checked to 1e-13 of its peak at points between the nodes;
        the cdf is its exact integral.
        """
        lo, hi = self._support_cached
        m, sd = self.mean(), self.std()
        pts = np.clip(m + sd * np.array([-12.0, -8, -5, -3, -1.5, 0, 1.5, 3, 5, 8, 12]), lo, hi)
        edges = np.unique(np.r_[lo, pts, hi])
        grid = np.linspace(lo, hi, 257)
        peak = float(np.max(np.exp(self._lower.logpdf(np.r_[grid, m]))))
        pdf = interpolate_noisy(lambda x: np.exp(self._lower.logpdf(x)), edges,
                                1e-13 * max(peak, 1.0), left=0.0, right=0.0)
        # the cdf is the density's integral: exact for the interpolant, within 1e-13 * peak *
        # (hi - lo) of the true cdf; anchored at the lower end, where the cdf is below 2e-16
        _, cdf = _cumulative(pdf)
        cdf = PiecewiseChebyshev(cdf.edges, cdf.coefs, left=0.0, right=1.0)
        return cdf, pdf

    def _fast(self):
        if self._is_beta:
            return self.cdf, self.sf, self.pdf
        cdf, pdf = self._interpolants
        return cdf, (lambda x: 1.0 - cdf(x)), pdf

    def _quantile(self, q: float, upper: bool, exact: bool = False) -> float:
        if not 0.0 <= q <= 1.0:  # NaN included
            return math.nan
        if upper:
            q_low, target = 1.0 - q, q
        else:
            q_low, target = q, q
        if q_low == 0.0:
            return 0.0
        if q_low == 1.0:
            return 1.0
        if self._is_beta:
            a, b = float(self.a[0]), float(self.b[0])
            if upper:
                return float(special.betainccinv(a, b, q))
            return float(special.betaincinv(a, b, q))
        if not exact and 1e-9 < q < 1.0 - 1e-9 and "_interpolants" in self.__dict__:
            # a posterior already compared with others has its interpolants: use them
            return self._polished_quantile(q if not upper else 1.0 - q)
        # solve on the side where the function is accurate: cdf below the median, sf above
        use_sf = (not upper and q > 0.5) or (upper and q < 0.5)
        if use_sf:
            tail = target if upper else 1.0 - q

            def f(t: float) -> float:
                return tail - float(self._upper.cdf(np.array([1.0 - t]))[0])
        else:
            tail = 1.0 - target if upper else q

            def f(t: float) -> float:
                return float(self._lower.cdf(np.array([t]))[0]) - tail
        return _solve_increasing(f, self._bracket(q_low))

    def _polished_quantile(self, p: float) -> float:
        """The p-quantile: a root of the cdf interpolant, then Newton steps on the exact cdf."""
        from scipy.optimize import brentq

        cdf, pdf = self._interpolants
        lo, hi = self._support_cached
        x = float(brentq(lambda t: float(cdf(np.array([t]))[0]) - p, lo, hi, xtol=1e-15,
                         rtol=1e-15))
        for _ in range(3):
            fx = float(self._split(np.array([x]), upper=p > 0.5)[0])
            resid = (fx - p) if p <= 0.5 else (1.0 - p) - fx
            dens = float(np.exp(self._lower.logpdf(np.array([x]))[0]))
            if not dens > 0 or abs(resid) <= 1e-16:
                break
            step = resid / dens if p <= 0.5 else -resid / dens
            x = min(max(x - step, lo), hi)
            if abs(step) <= 4e-16 * max(abs(x), 1e-300):
                break
        return x

    def _bracket(self, q: float) -> tuple[float, float]:
        if self.parts:
            # the part holding the q-quantile, and the quantile within it
            cum = np.cumsum(self.part_weights)
            i = int(min(np.searchsorted(cum, q), len(self.parts) - 1))
            before = cum[i] - self.part_weights[i]
            local = min(max((q - before) / self.part_weights[i], 0.0), 1.0)
            return self.parts[i]._bracket(local)
        sd = max(self.std(), 1e-12)
        if self.smooth is not None:
            guess = self.mean() + sd * float(special.ndtri(q))
            return max(guess - 2.0 * sd, 0.0), min(guess + 2.0 * sd, 1.0)
        idx = int(min(np.searchsorted(self._lower.cum, q), self.weights.size - 1))
        guess = float(special.betaincinv(self.a[idx], self.b[idx], q))
        return max(guess - 2.0 * sd, 0.0), min(guess + 2.0 * sd, 1.0)

    def _draw(self, rng, size):
        shape = (size,) if np.isscalar(size) else tuple(size)
        n = int(np.prod(shape))
        if self.parts:
            which = rng.choice(len(self.parts), size=n, p=self.part_weights)
            out = np.empty(n)
            for i, part in enumerate(self.parts):
                sel = which == i
                out[sel] = part._draw(rng, int(sel.sum()))
            return out.reshape(shape)
        a, b, w = self.components()
        comp = rng.choice(w.size, size=n, p=w / w.sum())
        return rng.beta(a[comp], b[comp]).reshape(shape)


def _solve_increasing(fn, bracket: tuple[float, float]) -> float:
    """Root of an increasing function on [0, 1], from a starting bracket widened as needed."""
    from scipy.optimize import brentq

    seen: dict[float, float] = {}

    def f(t: float) -> float:
        # each point once: the bracket's ends are needed by the widening and again by brentq
        if t not in seen:
            seen[t] = fn(t)
        return seen[t]

    lo, hi = bracket
    step = max(hi - lo, 1e-9)
    while lo > 0.0 and f(lo) > 0:
        lo, step = max(lo - 2.0 * step, 0.0), 2.0 * step
    step = max(hi - lo, 1e-9)
    while hi < 1.0 and f(hi) < 0:
        hi, step = min(hi + 2.0 * step, 1.0), 2.0 * step
    flo, fhi = f(lo), f(hi)
    if flo >= 0:
        return lo
    if fhi <= 0:
        return hi
    return float(brentq(f, lo, hi, xtol=1e-15, rtol=1e-15, maxiter=300))


class _SmoothEval:
    """The distribution functions of one side of a :class:`SmoothMixture` on all of [0, 1]."""

    def __init__(self, side):
        self.side = side

    def cdf(self, x: np.ndarray) -> np.ndarray:
        out = np.full(x.shape, np.nan)
        out[x <= 0.0] = 0.0
        out[x >= 1.0] = 1.0
        inner = (x > 0.0) & (x < 1.0)
        if inner.any():
            out[inner] = self.side.cdf(x[inner])
        return out

    def logpdf(self, x: np.ndarray) -> np.ndarray:
        out = np.full(x.shape, np.nan)
        out[(x < 0.0) | (x > 1.0)] = -np.inf
        edge = (x == 0.0) | (x == 1.0)
        # the end components are far from 0 and 1 when there are this many
        out[edge] = -np.inf
        inner = (x > 0.0) & (x < 1.0)
        if inner.any():
            out[inner] = self.side.logpdf(x[inner])
        return out


class _PartsSide:
    """The cdf and log-density of a weighted sum of posteriors (or of its mirror, ``1 - alpha``).

    Each part's cdf (or survival function, for the mirror) is accurate on its own; the sum keeps
    that, since the weights are positive.
    """

    def __init__(self, parts, weights: np.ndarray, upper: bool):
        self.parts, self.weights, self.upper = parts, weights, upper

    def cdf(self, x: np.ndarray) -> np.ndarray:
        out = np.zeros(x.shape)
        for part, w in zip(self.parts, self.weights, strict=True):
            out += w * (part.sf(1.0 - x) if self.upper else part.cdf(x))
        return out

    def logpdf(self, x: np.ndarray) -> np.ndarray:
        pts = 1.0 - x if self.upper else x
        logs = np.stack([math.log(w) + part.logpdf(pts)
                         for part, w in zip(self.parts, self.weights, strict=True) if w > 0])
        with np.errstate(invalid="ignore"):
            return special.logsumexp(logs, axis=0)


class _Telescope:
    """``F(x) = I_x(a_last, b_last) + sum_j d_j(x) C_j`` and the mixture density, vectorised."""

    def __init__(self, a: np.ndarray, b: np.ndarray, w: np.ndarray):
        self.a, self.b, self.w = a, b, w
        self.K = int(w.size)
        self.N = float(a[0] + b[0])
        self.cum = np.cumsum(w)
        with np.errstate(divide="ignore", invalid="ignore"):
            # log d_{j+1} - log d_j - logit(x) and the same for the Beta densities
            self.g = np.log((b[:-1] - 1.0) / (a[:-1] + 1.0))
            self.h = np.log((b[:-1] - 1.0) / a[:-1])

    # -- public -----------------------------------------------------------------------------
    def cdf(self, x: np.ndarray) -> np.ndarray:
        out = np.full(x.shape, np.nan)
        out[x <= 0.0] = 0.0
        out[x >= 1.0] = 1.0
        inner = (x > 0.0) & (x < 1.0)
        if not inner.any():
            return out
        xi = x[inner]
        last = special.betainc(self.a[-1], self.b[-1], xi)
        if self.K > 1:
            n = self.N - 1.0
            centre = xi * n - self.a[0]
            anchor_log = lambda idx, xs: log_dbinom(self.a[idx], n, xs)  # noqa: E731
            log_peak, scaled = _kernel_sum(xi, centre, np.sqrt(n * xi * (1.0 - xi)),
                                           self.g, self.cum[:-1], anchor_log)
            with np.errstate(under="ignore"):
                last = last + np.exp(log_peak) * scaled
        out[inner] = np.minimum(last, 1.0)
        return out

    def logpdf(self, x: np.ndarray) -> np.ndarray:
        out = np.full(x.shape, np.nan)
        out[(x < 0.0) | (x > 1.0)] = -np.inf
        ends = (x == 0.0) | (x == 1.0)
        if ends.any():
            out[ends] = self._logpdf_ends(x[ends])
        inner = (x > 0.0) & (x < 1.0)
        if not inner.any():
            return out
        xi = x[inner]
        if self.K == 1:
            out[inner] = log_beta_pdf(xi, self.a[0], self.b[0])
            return out
        n = self.N - 2.0
        centre = xi * n + 1.0 - self.a[0]
        anchor_log = lambda idx, xs: log_beta_pdf(xs, self.a[idx], self.b[idx])  # noqa: E731
        log_peak, scaled = _kernel_sum(xi, centre, np.sqrt(np.maximum(n, 0.0) * xi * (1.0 - xi)),
                                       self.h, self.w, anchor_log)
        with np.errstate(divide="ignore"):
            out[inner] = log_peak + np.log(scaled)
        return out

    def _logpdf_ends(self, x: np.ndarray) -> np.ndarray:
        from scipy import stats

        # at 0 only the first component can be non-zero (a_j grows by one), at 1 only the last
        out = np.empty(x.shape)
        with np.errstate(divide="ignore"):
            for i, v in enumerate(x):
                j = 0 if v == 0.0 else self.K - 1
                out[i] = np.log(self.w[j]) + stats.beta.logpdf(v, self.a[j], self.b[j])
        return out


def _kernel_sum(x, centre, spread, ratio, coef, anchor_log):
    """``sum_j coef[j] k_j(x)`` for a bell-shaped kernel ``k`` in ``j``, for many ``x`` at once.

    ``log k_{j+1} - log k_j = ratio[j] + logit(x)``; ``anchor_log(j, x)`` gives ``log k_j(x)``
    accurately at the peak.  Returns ``(log k_peak, sum_j coef[j] k_j / k_peak)`` per point.
    """
    n_terms = coef.size
    lx = np.log(x) - np.log1p(-x)
    half = np.ceil(10.0 * spread + 40.0)
    log_peak = np.empty(x.size)
    scaled = np.zeros(x.size)
    # points whose kernel lies beyond the last term add nothing (all terms below 1e-18); points
    # left of the first term keep a short window there so that the lower tail stays accurate
    lo = np.clip(np.floor(centre - half), 0, n_terms - 1)
    hi = np.clip(np.ceil(centre + half), 0, n_terms - 1)
    # a point whose kernel peaks before the first (after the last) term sums a tail of the
    # kernel: the terms fall geometrically away from that end (the kernel is log-concave), at
    # least by the end's own ratio, so 42 / |log ratio| terms (at most twice the usual
    # half-width) bring them below 1e-18 of the largest term summed
    with np.errstate(divide="ignore", invalid="ignore"):
        if ratio.size:
            reach_l = np.ceil(42.0 / np.maximum(-(ratio[0] + lx), 1e-300)) + 1
            reach_r = np.ceil(42.0 / np.maximum(ratio[-1] + lx, 1e-300)) + 1
        else:
            reach_l = reach_r = np.zeros(x.size)
    reach_l = np.minimum(reach_l, 2.0 * half)
    reach_r = np.minimum(reach_r, 2.0 * half)
    before = centre < 0
    after = centre > n_terms - 1
    hi = np.where(before, np.minimum(n_terms - 1, np.maximum(hi, reach_l)), hi)
    lo = np.where(after, np.maximum(0, np.minimum(lo, n_terms - 1 - reach_r)), lo)
    anchor = np.clip(np.round(centre), lo, hi).astype(np.int64)
    lo, hi = lo.astype(np.int64), hi.astype(np.int64)
    todo = np.arange(x.size)
    log_peak[:] = anchor_log(anchor, x)
    width = int(max((hi[todo] - anchor[todo]).max(), (anchor[todo] - lo[todo]).max()))
    if width == 0:
        scaled[todo] = coef[anchor[todo]]
        return log_peak, scaled
    rows = max(1, _CHUNK // (2 * width + 1))
    for start in range(0, todo.size, rows):
        sel = todo[start:start + rows]
        scaled[sel] = _window_sums(sel, anchor, lo, hi, lx, ratio, coef, width)
    return log_peak, scaled


def _window_sums(sel, anchor, lo, hi, lx, ratio, coef, width):
    """The scaled sums for the points ``sel``: cumulative log ratios outwards from the anchor."""
    a = anchor[sel][:, None]
    steps = np.arange(width)[None, :]
    total = coef[anchor[sel]].copy()
    # forward: log k_{a+m} - log k_a = sum_{t < m} (ratio[a + t] + lx), m = 1..width
    fwd_idx = a + steps  # index of the ratio used for the step a + t -> a + t + 1
    fwd_ok = (fwd_idx + 1) <= hi[sel][:, None]
    vals = np.where(fwd_ok, ratio[np.minimum(fwd_idx, ratio.size - 1)] + lx[sel][:, None], 0.0)
    rel = np.cumsum(vals, axis=1)
    with np.errstate(under="ignore"):
        terms = np.where(fwd_ok, np.exp(rel) * coef[np.minimum(fwd_idx + 1, coef.size - 1)], 0.0)
    total += terms.sum(axis=1)
    edge_f = np.where(fwd_ok.any(axis=1), rel[np.arange(len(sel)), fwd_ok.sum(axis=1) - 1], -np.inf)
    # backward: log k_{a-m} - log k_a = -sum_{t = 1..m} (ratio[a - t] + lx)
    bwd_idx = a - 1 - steps
    bwd_ok = bwd_idx >= lo[sel][:, None]
    vals = np.where(bwd_ok, ratio[np.maximum(bwd_idx, 0)] + lx[sel][:, None], 0.0)
    rel = -np.cumsum(vals, axis=1)
    with np.errstate(under="ignore"):
        terms = np.where(bwd_ok, np.exp(rel) * coef[np.maximum(bwd_idx, 0)], 0.0)
    total += terms.sum(axis=1)
    edge_b = np.where(bwd_ok.any(axis=1), rel[np.arange(len(sel)), bwd_ok.sum(axis=1) - 1], -np.inf)
    # the window must end where the kernel is negligible (unless it ends at the first/last term)
    n_terms = coef.size
    open_f = (hi[sel] < n_terms - 1) & (edge_f > _TAIL)
    open_b = (lo[sel] > 0) & (edge_b > _TAIL)
    if np.any(open_f | open_b):
        raise FloatingPointError("internal: kernel window too narrow; please report this case")
    return total


def prob_greater(first: PosteriorDistribution, second: PosteriorDistribution) -> float:
    """``P(alpha_1 > alpha_2)`` for two independent posteriors (see the module notes).

    Parameters
    ----------
    first, second : PosteriorDistribution

    Returns
    -------
    float

    Examples
    --------
    >>> from binaryeval import alpha_posterior
    >>> a, b = alpha_posterior(human_pos=1, human_total=2), alpha_posterior(human_pos=3, human_total=4)
    >>> round(prob_greater(a, b) + prob_greater(b, a), 14)
    1.0
    """
    for name, post in (("first", first), ("second", second)):
        if not isinstance(post, PosteriorDistribution):
            raise ParameterError(f"{name}={post!r}: compare two posteriors of alpha "
                                 "(e.g. from alpha_posterior or a fit's posterior(group))")
    # a posterior with separate modes: the weighted sum over its parts
    if isinstance(first, AlphaPosterior) and first.parts:
        return float(sum(w * prob_greater(part, second)
                         for part, w in zip(first.parts, first.part_weights, strict=True)))
    if isinstance(second, AlphaPosterior) and second.parts:
        return float(sum(w * prob_greater(first, part)
                         for part, w in zip(second.parts, second.part_weights, strict=True)))
    swap = second.std() < first.std()
    narrow, wide = (second, first) if swap else (first, second)
    # P(first > second) = int f_first F_second  (narrow = first)
    #                   = int f_second S_first  (narrow = second)
    lo, hi = narrow._support()
    if not hi > lo:
        point = lo
        return float(wide.sf(point)) if swap else float(wide.cdf(point))
    edges = _panel_edges(narrow, wide, lo, hi)
    j_cdf, j_sf = _adaptive(narrow._fast()[2], wide._fast(), edges)
    good, bad = (j_sf, j_cdf) if swap else (j_cdf, j_sf)
    total = good + bad
    return float(min(max(good / total, 0.0), 1.0))


def _panel_edges(narrow, wide, lo: float, hi: float) -> np.ndarray:
    m, s = narrow.mean(), narrow.std()
    pts = [lo, hi] + [m + k * s for k in (-8, -6, -4, -3, -2, -1, 0, 1, 2, 3, 4, 6, 8)]
    mw, sw = wide.mean(), wide.std()
    pts += [mw + k * sw for k in (-3, -2, -1, 0, 1, 2, 3)]
    pts = np.unique(np.clip(np.asarray(pts, dtype=float), lo, hi))
    return pts


def _adaptive(density, wide_fns, edges: np.ndarray, tol: float = 1e-14) -> tuple[float, float]:
    """``(int f_n F_w, int f_n S_w)`` by panel bisection until 8- and 16-point rules agree."""
    wide_cdf, wide_sf, _ = wide_fns
    x8, w8 = _GL8
    x16, w16 = _GL16
    todo = [(float(a), float(b)) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]
    j_cdf = j_sf = 0.0
    span = float(edges[-1] - edges[0])
    for _ in range(60):
        if not todo:
            break
        mids = np.array([0.5 * (a + b) for a, b in todo])
        rads = np.array([0.5 * (b - a) for a, b in todo])
        nodes = np.concatenate([(mids[:, None] + rads[:, None] * x8[None, :]).ravel(),
                                (mids[:, None] + rads[:, None] * x16[None, :]).ravel()])
        dens = density(nodes)
        cdfw = wide_cdf(nodes)
        sfw = wide_sf(nodes)
        n8 = len(todo) * 8
        parts = []
        for vals in (dens * cdfw, dens * sfw):
            lo8 = (vals[:n8].reshape(-1, 8) * w8).sum(axis=1) * rads
            hi16 = (vals[n8:].reshape(-1, 16) * w16).sum(axis=1) * rads
            parts.append((lo8, hi16))
        err = np.maximum(np.abs(parts[0][1] - parts[0][0]), np.abs(parts[1][1] - parts[1][0]))
        allowed = np.maximum(tol * (2.0 * rads) / span, 1e-17)
        ok = (err <= allowed) | (rads < 1e-15)
        j_cdf += float(parts[0][1][ok].sum())
        j_sf += float(parts[1][1][ok].sum())
        todo = [(a, 0.5 * (a + b)) for (a, b), k in zip(todo, ok, strict=True) if not k] + \
               [(0.5 * (a + b), b) for (a, b), k in zip(todo, ok, strict=True) if not k]
    if todo:
        raise FloatingPointError("internal: P(alpha_1 > alpha_2) did not converge; please report")
    return j_cdf, j_sf
