"""The posterior of ``alpha`` as a distribution object (scipy's frozen-distribution conventions).

:class:`AlphaPosterior` is the exact posterior, a finite mixture of Beta distributions whose
components share ``a_j + b_j = N`` and have consecutive ``a_j = a_0 + j`` (see
:mod:`binaryeval.binary.engine` for how the weights are computed).  It offers what code written for
``scipy.stats`` expects of a frozen distribution, with scipy's argument names -- ``mean()``,
``var()``, ``std()``, ``median()``, ``stats(moments)``, ``moment(order)``, ``entropy()``,
``pdf``, ``logpdf``, ``cdf``, ``logcdf``, ``sf``, ``logsf``, ``ppf``, ``isf``,
``interval(confidence)``, ``expect(func, args, lb, ub, conditional)``,
``rvs(size, random_state)`` (one float for ``size=None``), ``support()`` -- checked against
``scipy.stats.beta`` where the posterior is a Beta; plus ``mode()``,
:meth:`~AlphaPosterior.prob_greater` and the package's result protocol (``summary()``,
``to_frame()``; ``interval`` also takes the package's ``level`` and ``kind``).  Moments are
exact sums over the components (skewness and kurtosis from each component's central moments
shifted to the mixture's mean, without the cancellation of raw moments).

Quantiles
---------
``ppf``/``isf`` solve ``log F(x) = log q`` on the side where the tail is small by Newton's method
from the moment-matched Beta, inside a bracket kept from the signs seen (bisection when a step
leaves it); a few cdf and density evaluations per quantile, every requested quantile at once.

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
from ..errors import InputTypeError, ParameterError
from ..summary import Summary, prior_text
from . import _matrix, _stack
from ._kernels import dot as _dot
from ._kernels import log_beta_pdf
from ._piecewise import PiecewiseChebyshev, interpolate_noisy
from ._smooth import SmoothMixture, _cumulative
from ._stack import Stack, _solve_tails

__all__ = ["AlphaPosterior", "PosteriorDistribution", "prob_greater", "prob_greater_matrix"]

_FAR_TAIL = 1e-14  # pairs whose tails beyond a point between them hold less are 0 or 1
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
    >>> from binaryeval.binary.posterior import PosteriorDistribution
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

    def interval(self, level: float = 0.95, kind: str = "eti", *,
                 confidence: float | None = None) -> tuple[float, float]:
        """Credible interval holding posterior probability ``level``.

        Parameters
        ----------
        level : float
            Posterior probability inside the interval (positional, as scipy's ``interval``).
        kind : {"eti", "hdi"}
            Equal-tailed interval, or the highest-density interval (the shortest single interval
            with that probability; where the paired rows contradict the metric the posterior can
            have two modes, and the interval then spans the valley between them).
        confidence : float, optional
            scipy's name for ``level`` (``interval(confidence=0.9)`` as for a frozen
            ``scipy.stats`` distribution); give one of the two.

        Returns
        -------
        (float, float)

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> [round(v, 4) for v in alpha_posterior(human_pos=6, human_total=10).interval(0.9)]
        [0.3498, 0.8004]
        >>> post = alpha_posterior(human_pos=6, human_total=10)
        >>> post.interval(confidence=0.9) == post.interval(0.9)  # scipy's name
        True
        """
        level = _validate.level(_scipy_confidence(level, confidence))
        kind = _validate.choice(kind, "kind", ("eti", "hdi"))
        if kind == "eti":
            return self._eti((1.0 - level) / 2.0)
        from scipy.optimize import minimize_scalar

        def width(p: float) -> float:
            return float(self.ppf(p + level) - self.ppf(p))

        res = minimize_scalar(width, bounds=(0.0, 1.0 - level), method="bounded",
                              options={"xatol": 1e-10})
        # the boundary solutions (mode at 0 or 1) are not interior minima
        _, p = min((width(float(res.x)), float(res.x)), (width(0.0), 0.0),
                   (width(1.0 - level), 1.0 - level))
        return (float(self.ppf(p)), float(self.ppf(p + level)))

    def _eti(self, tail: float) -> tuple[float, float]:
        """The equal-tailed interval with ``tail`` of the mass outside on each side."""
        return (float(self.ppf(tail)), float(self.isf(tail)))

    def logcdf(self, x):
        """Logarithm of :meth:`cdf`, accurate far in the lower tail.

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).logcdf(0.1), 4)  # Beta(7, 5)
        -10.6844
        """
        with np.errstate(divide="ignore"):
            return np.log(self.cdf(x))

    def logsf(self, x):
        """Logarithm of :meth:`sf`, accurate far in the upper tail.

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).logsf(0.99), 4)  # Beta(7, 5)
        -16.9405
        """
        with np.errstate(divide="ignore"):
            return np.log(self.sf(x))

    def moment(self, order: int) -> float:
        """The non-central moment ``E[alpha^order]`` (scipy's ``moment``).

        Parameters
        ----------
        order : int
            A whole number >= 0.

        Returns
        -------
        float

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).moment(2), 10)  # 7 * 8 / (12 * 13)
        0.3589743590
        """
        n = _validate.size(order, "order", minimum=0)
        return 1.0 if n == 0 else float(self._raw_moment(n))

    def stats(self, moments: str = "mv"):
        """Mean (``m``), variance (``v``), skewness (``s``) and excess kurtosis (``k``), as scipy.

        Parameters
        ----------
        moments : str
            Which of ``"mvsk"`` to return, in that order.

        Returns
        -------
        float or tuple of float

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> [round(v, 6) for v in alpha_posterior(human_pos=6, human_total=10).stats("mvsk")]
        [0.583333, 0.018697, -0.174128, -0.357551]
        """
        if not isinstance(moments, str) or not moments or set(moments) - set("mvsk"):
            raise ParameterError(f"moments={moments!r}: give letters from 'mvsk' (mean, "
                                 "variance, skewness, excess kurtosis), e.g. moments='mv'")
        var = self.var()
        out = []
        if "m" in moments:
            out.append(self.mean())
        if "v" in moments:
            out.append(var)
        if "s" in moments or "k" in moments:
            mu3, mu4 = self._central_moments()
            if "s" in moments:
                out.append(mu3 / var ** 1.5)
            if "k" in moments:
                out.append(mu4 / var ** 2 - 3.0)
        return out[0] if len(out) == 1 else tuple(out)

    def expect(self, func=None, args: tuple = (), lb: float | None = None,
               ub: float | None = None, conditional: bool = False, **kwds) -> float:
        """``E[func(alpha)]`` by numerical integration, as scipy's ``expect``.

        ``int func(x) pdf(x) dx`` over ``[lb, ub]`` (default: all of [0, 1]), on panels between
        the posterior's quantiles (so that a narrow posterior is resolved; beyond its 1e-16
        quantiles the mass is left out): when ``func`` takes arrays, by Gauss-Legendre rules of
        8 and 16 points on panels halved until the two agree (an error of about 1e-14); else, or
        with ``kwds``, by :func:`scipy.integrate.quad` (``kwds`` go to it).

        Parameters
        ----------
        func : callable, optional
            A function of one point (and ``args``); the identity when None.
        args : tuple
            Further arguments of ``func``.
        lb, ub : float, optional
            Limits of integration.
        conditional : bool
            Divide by the posterior probability of ``[lb, ub]``.
        **kwds
            Passed to :func:`scipy.integrate.quad`.

        Returns
        -------
        float

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> post = alpha_posterior(human_pos=6, human_total=10)
        >>> round(post.expect(lambda x: x * x), 8) == round(post.moment(2), 8)
        True
        """
        if func is None:
            def func(x, *a):
                return x
        lo, hi = self._support()
        lo = lo if lb is None else max(lo, float(lb))
        hi = hi if ub is None else min(hi, float(ub))
        if not hi > lo:
            return 0.0
        qs = np.array([1e-12, 1e-9, 1e-6, 1e-3, 0.02, 0.1, 0.25, 0.5, 0.75, 0.9, 0.98,
                       1 - 1e-3, 1 - 1e-6, 1 - 1e-9, 1 - 1e-12])
        pts = np.unique(np.r_[lo, np.asarray(self.ppf(qs), dtype=float), hi])
        pts = pts[(pts >= lo) & (pts <= hi)]
        vectorised = _vectorised(func, args, pts) if not kwds else False
        if vectorised:
            total = _integral(lambda x: func(x, *args) * self.pdf(x), pts)
        else:
            from scipy import integrate

            opts = {"epsabs": 1e-14, "epsrel": 1e-12, "limit": 200}
            opts.update(kwds)
            total = 0.0
            for a, b in zip(pts[:-1], pts[1:], strict=True):
                if b > a:
                    total += integrate.quad(lambda x: func(x, *args) * float(self.pdf(x)), a,
                                            b, **opts)[0]
        if conditional and (lb is not None or ub is not None):
            total /= float(self.cdf(hi) - self.cdf(lo))
        return float(total)

    def entropy(self) -> float:
        """Differential entropy ``-int f log f`` (by :meth:`expect`'s quadrature, about 1e-14).

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).entropy(), 6)  # Beta(7, 5)
        -0.579563
        """
        lo, hi = self._support()
        qs = np.array([1e-12, 1e-9, 1e-6, 1e-3, 0.02, 0.1, 0.25, 0.5, 0.75, 0.9, 0.98,
                       1 - 1e-3, 1 - 1e-6, 1 - 1e-9, 1 - 1e-12])
        pts = np.unique(np.r_[lo, np.asarray(self.ppf(qs), dtype=float), hi])

        def integrand(x):
            logf = np.asarray(self.logpdf(x), dtype=float)
            with np.errstate(invalid="ignore"):
                return np.where(np.isfinite(logf), -np.exp(logf) * logf, 0.0)
        return float(_integral(integrand, pts))

    def rvs(self, size: int | tuple[int, ...] | None = None,
            random_state: int | np.random.SeedSequence | np.random.Generator | None = None
            ) -> float | np.ndarray:
        """Random draws from the posterior (scipy's argument names).

        Parameters
        ----------
        size : None, int or tuple of int
            Shape of the output; None (the default, as scipy's frozen distributions) gives one
            float.  A request needing more memory than is available is refused before drawing.
        random_state : None, int, numpy Generator or RandomState
            Source of randomness; the same integer gives the same draws.

        Returns
        -------
        float or ndarray

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> post = alpha_posterior(human_pos=6, human_total=10)
        >>> post.rvs(size=3, random_state=1).shape
        (3,)
        >>> isinstance(post.rvs(random_state=1), float)
        True
        """
        shape = _sample_shape(size)
        n = math.prod(shape)
        _validate.memory(self._draw_memory(n), f"rvs(size={size!r})",
                         "draw in batches (several rvs calls sharing one numpy Generator as "
                         "random_state)")
        if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
            rng = random_state
        else:
            rng = np.random.default_rng(_validate.seed(random_state, "random_state"))
        draws = self._draw(rng, n)
        return float(draws[0]) if size is None else draws.reshape(shape)

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
        # the priors as a fit's summary writes them (the grid keeps them beside its counts; a
        # rate prior only where a rate is estimated)
        for key in ("prior", "rate_prior"):
            if key not in info and getattr(self, key, None) is not None:
                info[key] = tuple(getattr(self, key))
        known = counts.get("rho") is not None and counts.get("eta") is not None
        metric = sum(int(counts.get(k) or 0) for k in ("metric_total", "tp", "fn", "tn", "fp"))
        if known or not metric:
            info.pop("rate_prior", None)
        for key, label in (("prior", "prior (alpha)"), ("rate_prior", "prior (rho, eta)")):
            if isinstance(info.get(key), (tuple, list)) and len(info[key]) == 2:
                info[label] = prior_text(info.pop(key))
        info["method"] = getattr(self, "method", "")
        table = self.to_frame(level)
        return Summary("Posterior of alpha (rate of adequate outputs)", info,
                       [(f"{100 * level:g}% equal-tailed credible interval", table)])

    # -- hooks -------------------------------------------------------------------------------
    def _raw_moment(self, n: int) -> float:  # pragma: no cover - every subclass implements it
        """``E[alpha^n]`` for a whole number ``n >= 1``."""
        raise TypeError(f"{type(self).__name__} has no moments")

    def _central_moments(self) -> tuple[float, float]:  # pragma: no cover - every subclass
        """The third and fourth central moments."""
        raise TypeError(f"{type(self).__name__} has no moments")

    def _draw(self, rng, n: int) -> np.ndarray:  # pragma: no cover - subclasses implement it
        """``n`` independent draws, a flat array."""
        raise TypeError(f"{type(self).__name__} cannot draw samples")

    def _draw_memory(self, n: int) -> float:
        """Bytes that ``n`` draws need at their peak: 32 per draw.

        (The component index, its two parameters and the draw.)
        """
        return 32.0 * n

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
        >>> from binaryeval import AlphaPosterior
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

    def _component_sum(self, h) -> float:
        """``sum_j w_j h(a_j)`` over the components (``h`` vectorised in ``a``)."""
        if self.parts:
            return float(sum(w * p._component_sum(h)
                             for p, w in zip(self.parts, self.part_weights, strict=True)))
        if self.smooth is not None:
            return self.smooth.component_sum(h)
        return _dot(self.weights, h(self.a))

    def _raw_moment(self, n: int) -> float:
        # E[Beta(a, N - a)^n] = prod_{i < n} (a + i) / (N + i), each factor below one
        N = self._total

        def h(a):
            out = np.ones(np.shape(a))
            for i in range(n):
                out = out * ((a + i) / (N + i))
            return out
        return self._component_sum(h)

    def _central_moments(self) -> tuple[float, float]:
        # each component's central moments about its own mean, shifted to the mixture's mean
        # d = a / N - m: E[(X - m)^3] = k3 + 3 v d + d^3, E[(X - m)^4] = k4 + 4 k3 d + 6 v d^2 + d^4
        N, m = self._total, self.mean()

        def parts(a):
            b = N - a
            v = a * b / (N * N * (N + 1.0))
            k3 = 2.0 * a * b * (b - a) / (N ** 3 * (N + 1.0) * (N + 2.0))
            k4 = 3.0 * a * b * (a * b * (N - 6.0) + 2.0 * N * N) / (
                N ** 4 * (N + 1.0) * (N + 2.0) * (N + 3.0))
            return a / N - m, v, k3, k4

        def third(a):
            d, v, k3, _ = parts(a)
            return k3 + 3.0 * v * d + d ** 3

        def fourth(a):
            d, v, k3, k4 = parts(a)
            return k4 + 4.0 * k3 * d + 6.0 * v * d * d + d ** 4
        return self._component_sum(third), self._component_sum(fourth)

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
            # Newton's method on the density's derivative (the kernel sums of the stack)
            mode = float(_stack.modes(self._sides, np.array([self.mean()]),
                                      np.array([self.std()]))[0])
            if np.isfinite(mode):
                return mode
            # not a single interior maximum within 8 sd of the mean: look at the whole density
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
        return _MixtureSide(self.a, self.b, self.weights)

    def _eti(self, tail: float) -> tuple[float, float]:
        if self.smooth is not None or self.parts or self._is_beta:
            return super()._eti(tail)
        # both ends in one Newton iteration (the mixture and its mirror side by side)
        m, v = self.mean(), self.var()
        g, e = self._skew_kurt
        y = _stack.solve(self._sides, np.array([0, 1]), np.array([tail, tail]),
                         np.array([m, 1.0 - m]), np.array([v, v]),
                         (np.array([g, -g]), np.array([e, e])))
        return float(y[0]), float(1.0 - y[1])

    @cached_property
    def _skew_kurt(self) -> tuple[float, float]:
        """Skewness and excess kurtosis, to a few digits (they steer the quantile search's start).

        For a materialised mixture from the weighted sums of the powers of ``a_j / N - m`` up to
        the fourth (each component's central moments shifted to the mixture's mean are
        polynomials in it), with each component's fourth central moment taken as ``3 var^2``
        (its excess kurtosis is of order ``1 / N``);
        for a smooth one from :meth:`_central_moments` (a sum over its quadrature rule); NaN for
        separate parts (a materialised piece can hold 10^5 components: the start is not worth a
        pass over them, and the search starts from the matched Beta).
        """
        m, v = self.mean(), self.var()
        if self.parts or not v > 0.0:
            return math.nan, math.nan
        if self.smooth is None:
            # each component's moments are polynomials in d = a / N - m (p = m + d): with
            # c0 = m (1 - m), c1 = 1 - 2 m its variance is (c0 + c1 d - d^2) / (N + 1) and its
            # third central moment that times 2 (c1 - 2 d) / (N + 2), so both sums need only
            # the weighted powers of d (D_r = sum_j w_j d_j^r)
            N = self._total
            w = self.weights
            d = self.a / N
            d -= m
            wd2 = w * d
            wd2 *= d
            D0, D1 = float(np.add.reduce(w)), _dot(w, d)
            D2, D3 = float(np.add.reduce(wd2)), _dot(wd2, d)
            D4 = _dot(wd2, d * d)
            c0, c1 = m * (1.0 - m), 1.0 - 2.0 * m
            n1, n12 = 1.0 / (N + 1.0), 1.0 / ((N + 1.0) * (N + 2.0))
            c2 = c1 * c1 - 2.0 * c0
            k3 = (2.0 * n12 * (c0 * c1 * D0 + c2 * D1 - 3.0 * c1 * D2 + 2.0 * D3)
                  + 3.0 * n1 * (c0 * D1 + c1 * D2 - D3) + D3)
            k4 = (3.0 * n1 * n1 * (c0 * c0 * D0 + 2.0 * c0 * c1 * D1 + c2 * D2 - 2.0 * c1 * D3 + D4)
                  + 8.0 * n12 * (c0 * c1 * D1 + c2 * D2 - 3.0 * c1 * D3 + 2.0 * D4)
                  + 6.0 * n1 * (c0 * D2 + c1 * D3 - D4) + D4)
        else:
            k3, k4 = self._central_moments()
        return k3 / v ** 1.5, k4 / (v * v) - 3.0

    @cached_property
    def _sides(self) -> Stack:
        """A materialised mixture and its mirror in one stack (groups 0 and 1)."""
        return _stack.both_sides([(self.a, self.b, self.weights)])

    @cached_property
    def _upper(self):
        # the mirrored mixture: 1 - alpha has components Beta(b_j, a_j) in reverse order
        if self.parts:
            return _PartsSide(self.parts, self.part_weights, upper=True)
        if self.smooth is not None:
            return _SmoothEval(self.smooth.upper)
        return _MixtureSide(self.b[::-1].copy(), self.a[::-1].copy(), self.weights[::-1].copy())

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

    def logcdf(self, x):
        """Logarithm of :meth:`cdf`, accurate in both tails (``log1p(-sf)`` above the mean).

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).logcdf(0.1), 4)  # Beta(7, 5)
        -10.6844
        """
        pts, scalar = _as_points(x)
        return _shape(self._log_split(pts, upper=False), x, scalar)

    def logsf(self, x):
        """Logarithm of :meth:`sf`, accurate in both tails (``log1p(-cdf)`` below the mean).

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).logsf(0.99), 4)  # Beta(7, 5)
        -16.9405
        """
        pts, scalar = _as_points(x)
        return _shape(self._log_split(pts, upper=True), x, scalar)

    def _log_split(self, x: np.ndarray, upper: bool) -> np.ndarray:
        out = np.full(x.shape, np.nan)
        low = x <= self.mean()
        high = x > self.mean()
        with np.errstate(invalid="ignore", divide="ignore"):
            cdf_low = self._lower.cdf(x[low])
            sf_high = self._upper.cdf(1.0 - x[high])
            if upper:
                out[low], out[high] = np.log1p(-cdf_low), np.log(sf_high)
            else:
                out[low], out[high] = np.log(cdf_low), np.log1p(-sf_high)
        return out

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
        return _shape(self._quantiles(pts, upper=False), q, scalar)

    def isf(self, q):
        """Inverse survival function: the ``x`` with ``P(alpha > x) = q``.

        Examples
        --------
        >>> from binaryeval import alpha_posterior
        >>> round(alpha_posterior(human_pos=6, human_total=10).isf(0.5), 6)
        0.58811
        """
        pts, scalar = _as_points(q)
        return _shape(self._quantiles(pts, upper=True), q, scalar)

    @cached_property
    def _support_cached(self) -> tuple[float, float]:
        """Where all but 1e-16 of each tail's mass lies: the exact quantiles."""
        if self._is_beta:
            a, b = float(self.a[0]), float(self.b[0])
            return (float(special.betaincinv(a, b, 1e-16)), float(special.betainccinv(a, b, 1e-16)))
        tail = np.array([1e-16])
        return (float(self._quantiles(tail, upper=False)[0]),
                float(self._quantiles(tail, upper=True)[0]))

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
        values = np.exp(self._lower.logpdf(np.r_[grid, m]))
        peak = float(np.max(values))
        # (the grid inside the ends is the coarse grid the noise estimate looks at: given; the
        # density is a sum of positive terms, so its rounding is relative to its value)
        pdf = interpolate_noisy(lambda x: np.exp(self._lower.logpdf(x)), edges,
                                1e-13 * max(peak, 1.0), left=0.0, right=0.0,
                                coarse=(grid[1:-1], values[1:-2]), relative=True)
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

    def _quantiles(self, q: np.ndarray, upper: bool) -> np.ndarray:
        """``ppf(q)`` (or ``isf(q)`` when ``upper``) for an array, each solved on its small side.

        A quantile below the median is a root of ``F(x) = q`` with ``F`` the lower tail's
        telescoping sum; above it a root of ``S(x) = 1 - q`` with ``S`` the mirrored mixture's,
        solved for ``y = 1 - x`` (so that a quantile near 1 keeps its relative accuracy in
        ``1 - x``).  See :func:`_solve_tails`.
        """
        out = np.full(q.shape, np.nan)
        valid = (q >= 0.0) & (q <= 1.0)
        if not valid.any():
            return out
        qv = q[valid]
        # the probability on the side where it is small, and which side that is
        small = qv <= 0.5
        tail = np.where(small, qv, 1.0 - qv)        # 1 - q is exact for q >= 1/2
        on_lower = small != upper                   # ppf of a small q, or isf of a large one
        res = np.empty(qv.shape)
        if self._is_beta:
            a, b = float(self.a[0]), float(self.b[0])
            res[on_lower] = special.betaincinv(a, b, tail[on_lower])
            res[~on_lower] = special.betainccinv(a, b, tail[~on_lower])
        elif self.smooth is None and not self.parts:
            # both sides of the mixture in one stack: every quantile in one Newton iteration
            m, v = self.mean(), self.var()
            g, e = self._skew_kurt
            n = tail.size
            y = _stack.solve(self._sides, np.where(on_lower, 0, 1), tail,
                             np.where(on_lower, m, 1.0 - m), np.full(n, v),
                             (np.where(on_lower, g, -g), np.full(n, e)))
            res[:] = np.where(on_lower, y, 1.0 - y)
        else:
            m, v = self.mean(), self.var()
            g, e = self._skew_kurt
            for side, sel, mid, sk in ((self._lower, on_lower, m, g),
                                       (self._upper, ~on_lower, 1.0 - m, -g)):
                if sel.any():
                    n = int(sel.sum())
                    y = _solve_tails(_side_evaluator(side), tail[sel], np.full(n, mid),
                                     np.full(n, v), (np.full(n, sk), np.full(n, e)))
                    res[sel] = y if side is self._lower else 1.0 - y
        out[valid] = res
        return out

    def _draw(self, rng, n: int) -> np.ndarray:
        if self.parts:
            which = rng.choice(len(self.parts), size=n, p=self.part_weights)
            out = np.empty(n)
            for i, part in enumerate(self.parts):
                sel = which == i
                out[sel] = part._draw(rng, int(sel.sum()))
            return out
        a, b, w = self.components()
        comp = rng.choice(w.size, size=n, p=w / w.sum())
        return rng.beta(a[comp], b[comp])

    def _draw_memory(self, n: int) -> float:
        # a smooth representation materialises its components (a, b, weights) to draw
        held = 0 if self.smooth is None and not self.parts else 32.0 * self.n_components
        return 32.0 * n + held


def _vectorised(func, args, pts: np.ndarray) -> bool:
    """Whether ``func`` maps an array of points to an array of their values."""
    try:
        probe = pts[:3]
        out = np.asarray(func(probe, *args), dtype=float)
        return out.shape == probe.shape and bool(
            np.allclose(out, [float(func(float(v), *args)) for v in probe], rtol=1e-14,
                        atol=0.0, equal_nan=True))
    except (TypeError, ValueError):
        return False


def _integral(f, edges: np.ndarray, tol: float = 1e-14) -> float:
    """``int f`` over ``[edges[0], edges[-1]]`` for a vectorised ``f``.

    Panels start at ``edges`` and are halved until Gauss-Legendre rules of 8 and 16 points agree
    within ``tol`` times the panel's share of the whole width (so the error is about ``tol``),
    or within 1e-12 of the panel's integral of ``|f|`` (the rounding noise of ``f``); the
    16-point value is kept.
    """
    x8, w8 = _GL8
    x16, w16 = _GL16
    todo = [(float(a), float(b)) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]
    span = float(edges[-1] - edges[0])
    total = 0.0
    for _ in range(60):
        if not todo:
            break
        mids = np.array([0.5 * (a + b) for a, b in todo])
        rads = np.array([0.5 * (b - a) for a, b in todo])
        nodes = np.concatenate([(mids[:, None] + rads[:, None] * x8[None, :]).ravel(),
                                (mids[:, None] + rads[:, None] * x16[None, :]).ravel()])
        vals = np.asarray(f(nodes), dtype=float)
        n8 = len(todo) * 8
        lo8 = (vals[:n8].reshape(-1, 8) * w8).sum(axis=1) * rads
        hi16 = (vals[n8:].reshape(-1, 16) * w16).sum(axis=1) * rads
        # or within 1e-12 of the panel's own integral of |f| (rounding noise of f, which halving
        # cannot reduce, adds no more than that)
        size = (np.abs(vals[n8:]).reshape(-1, 16) * w16).sum(axis=1) * rads
        err = np.abs(hi16 - lo8)
        ok = (err <= np.maximum(tol * 2.0 * rads / span, 1e-12 * size)) | (rads < 1e-15)
        total += float(hi16[ok].sum())
        todo = [half for (a, b), k in zip(todo, ok, strict=True) if not k
                for half in ((a, 0.5 * (a + b)), (0.5 * (a + b), b))]
    if todo:
        raise FloatingPointError("internal: the integral did not converge; please report")
    return total


def _scipy_confidence(level, confidence):
    """``level``, or scipy's ``confidence`` when that is given instead."""
    if confidence is None:
        return level
    if level != 0.95:
        raise ParameterError(f"level={level!r} and confidence={confidence!r}: give one (confidence "
                             "is scipy's name for level)")
    return confidence


def _sample_shape(size) -> tuple[int, ...]:
    """The shape of ``size`` as scipy reads it: None (one draw), a whole number or a tuple."""
    if size is None:
        return ()
    dims = size if isinstance(size, (tuple, list)) else (size,)
    for d in dims:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise InputTypeError(f"size={size!r}: pass None (one draw), a whole number of draws "
                                 "or a tuple of them, e.g. size=1000")
        if d < 0:
            raise ParameterError(f"size={size!r}: the number of draws cannot be negative; pass "
                                 "a whole number >= 0, e.g. size=1000")
    return tuple(int(d) for d in dims)


def summaries(posts, tail: float, median: bool = False, mode: bool = True) -> dict[str, np.ndarray]:
    """Equal-tailed interval ends, mode (and median) of many posteriors at once.

    ``lower``/``upper`` leave ``tail`` outside on each side.  The materialised mixtures are answered together (:mod:`._stack`: one Newton iteration for
    every quantile of every posterior, one for every mode): the same numbers as each
    posterior's own methods, within a few units in the last place.  Other posteriors (smooth,
    several parts, the grid's) answer one by one.
    """
    n = len(posts)
    out = {key: np.full(n, np.nan) for key in ("lower", "upper", "median", "mode")}
    every = [i for i, p in enumerate(posts) if isinstance(p, AlphaPosterior) and p.smooth is None
             and not p.parts]
    # blocks of about a million components (the work arrays stay in the cache's reach)
    sizes = np.array([posts[i].n_components for i in every], dtype=np.int64)
    block = np.cumsum(sizes) // 1_000_000
    for b in np.unique(block) if every else ():
        _summaries_block(posts, [i for i, k in zip(every, block, strict=True) if k == b], tail,
                         median, mode, out)
    for i, p in enumerate(posts):
        if not np.isfinite(out["lower"][i]):
            out["lower"][i], out["upper"][i] = p._eti(tail)
            if median:
                out["median"][i] = p.median()
        if mode and not np.isfinite(out["mode"][i]):
            out["mode"][i] = p.mode()
    return out


def _summaries_block(posts, batch: list[int], tail: float, median: bool, mode: bool,
                     out: dict) -> None:
    """:func:`summaries` for the materialised mixtures ``batch`` of ``posts``, into ``out``."""
    if batch:
        mix = [posts[i].components() for i in batch]
        stack = _stack.both_sides(mix)
        m = np.array([posts[i].mean() for i in batch])
        v = np.array([posts[i].var() for i in batch])
        g = np.arange(len(batch))
        grp = np.r_[g, g + len(batch), g if median else g[:0]]
        tails = np.r_[np.full(2 * g.size, tail), np.full(g.size if median else 0, 0.5)]
        y = _stack.solve(stack, grp, tails, np.r_[m, 1.0 - m, m], np.r_[v, v, v])
        out["lower"][batch] = y[:g.size]
        out["upper"][batch] = 1.0 - y[g.size:2 * g.size]
        if median:
            out["median"][batch] = y[2 * g.size:]
        if mode:
            out["mode"][batch] = _stack.modes(stack, m, np.sqrt(v))
            # a single Beta's mode in closed form
            for i in batch:
                if posts[i]._is_beta:
                    out["mode"][i] = posts[i].mode()


def _side_evaluator(side):
    """``evaluate(active, y) -> (cdf, log density)`` of one side of a posterior."""
    def evaluate(active, y):
        with np.errstate(divide="ignore", invalid="ignore"):
            inner = (y > 0.0) & (y < 1.0)
            if isinstance(side, (_MixtureSide, _SmoothEval)) and inner.all():
                return side.cdf_logpdf(y)
            return side.cdf(y), side.logpdf(y)
    return evaluate


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

    def cdf_logpdf(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both at once, for points strictly inside (0, 1) (see ``_Side.cdf_logpdf``)."""
        return self.side.cdf_logpdf(x)

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


class _MixtureSide:
    """A materialised mixture's cdf and log density on all of [0, 1] (one :class:`Stack`).

    The telescoping sum and the density are the kernel sums of :mod:`._stack`; a single Beta is
    scipy's (one component, no sum).
    """

    def __init__(self, a: np.ndarray, b: np.ndarray, w: np.ndarray):
        self.a, self.b, self.w = a, b, w
        self.K = int(w.size)
        self.stack = Stack([(a, b, w)])

    def _inner(self, x: np.ndarray, fill_outside: tuple[float, float]):
        out = np.full(x.shape, np.nan)
        below, above = fill_outside
        out[x < 0.0] = below
        out[x > 1.0] = above
        inner = (x > 0.0) & (x < 1.0)
        return out, inner, np.zeros(int(inner.sum()), dtype=np.int64)

    def cdf(self, x: np.ndarray) -> np.ndarray:
        out, inner, grp = self._inner(x, (0.0, 1.0))
        out[x == 0.0], out[x == 1.0] = 0.0, 1.0
        if inner.any():
            out[inner] = self.stack.cdf(grp, x[inner])
        return out

    def logpdf(self, x: np.ndarray) -> np.ndarray:
        out, inner, grp = self._inner(x, (-np.inf, -np.inf))
        ends = (x == 0.0) | (x == 1.0)
        if ends.any():
            out[ends] = self._logpdf_ends(x[ends])
        if inner.any():
            xi = x[inner]
            out[inner] = (log_beta_pdf(xi, self.a[0], self.b[0]) if self.K == 1
                          else self.stack.logpdf(grp, xi))
        return out

    def cdf_logpdf(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both at once (one kernel sum) for points strictly inside (0, 1)."""
        cdf, pdf = self.stack.cdf_pdf(np.zeros(x.size, dtype=np.int64), x)
        with np.errstate(divide="ignore"):
            return cdf, np.log(pdf)

    def _logpdf_ends(self, x: np.ndarray) -> np.ndarray:
        from scipy import stats

        # at 0 only the first component can be non-zero (a_j grows by one), at 1 only the last;
        # the two values once each, whatever the number of points at the ends
        out = np.empty(x.shape)
        with np.errstate(divide="ignore"):
            for end, j in ((0.0, 0), (1.0, self.K - 1)):
                at = x == end
                if at.any():
                    out[at] = np.log(self.w[j]) + stats.beta.logpdf(end, self.a[j], self.b[j])
        return out


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
    >>> from binaryeval.binary.posterior import prob_greater
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
    far = _far_apart(first, second)
    if far is not None:
        return far
    # the shared quadrature of prob_greater_matrix for this one pair (exact densities and cdfs
    # on Gauss-Legendre panels, checked by a second rule); the adaptive quadrature over
    # interpolants where the check fails
    pair = [first, second]
    ends = summaries(pair, 1e-16, mode=False)
    todo = ~np.eye(2, dtype=bool)
    P, good = _matrix.quadrature(pair, ends["lower"], ends["upper"],
                                 np.array([first.std(), second.std()]), todo)
    if good[0, 1]:
        return float(P[0, 1])
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


def prob_greater_matrix(posts) -> np.ndarray:
    """``P[i, j] = P(alpha_i > alpha_j)`` for every pair of independent posteriors at once.

    Pairs whose 1e-16 quantiles do not overlap are 0 or 1; the others come from one quadrature
    over shared nodes (:mod:`binaryeval.binary._matrix`: the same numbers as
    :func:`prob_greater` pair by pair, within 1e-12), pairs it cannot vouch for (and posteriors
    with separate modes) from :func:`prob_greater`.

    Parameters
    ----------
    posts : sequence of PosteriorDistribution

    Returns
    -------
    ndarray
        ``(G, G)``; the diagonal is NaN.

    Examples
    --------
    >>> from binaryeval.binary.posterior import prob_greater_matrix
    >>> from binaryeval import alpha_posterior
    >>> posts = [alpha_posterior(70, 100), alpha_posterior(55, 100), alpha_posterior(60, 100)]
    >>> P = prob_greater_matrix(posts)
    >>> round(float(P[0, 1]), 4), round(float(P[0, 1] + P[1, 0]), 12)
    (0.9855, 1.0)
    """
    G = len(posts)
    out = np.full((G, G), np.nan)
    if G < 2:
        return out
    with _stack.reuse():
        # (the quantiles and both quadrature tables read one stack of the mixtures)
        return _prob_greater_matrix(posts, out)


def _prob_greater_matrix(posts, out: np.ndarray) -> np.ndarray:
    sd = np.array([p.std() for p in posts])
    ends = summaries(posts, 1e-16, mode=False)
    lo, hi = ends["lower"], ends["upper"]
    apart = hi[:, None] < lo[None, :]           # i's mass wholly below j's
    out[apart] = 0.0
    out[apart.T] = 1.0
    close = ~(apart | apart.T)
    np.fill_diagonal(close, False)
    # posteriors with separate modes have narrow features their sd does not show
    parts = np.array([isinstance(p, AlphaPosterior) and bool(p.parts) for p in posts])
    todo = close & ~parts[:, None] & ~parts[None, :]
    P, good = _matrix.quadrature(posts, lo, hi, sd, todo)
    out[good] = P[good]
    rest = close & ~good
    # the rest one by one (each pair once; the other order by complement)
    for i, j in zip(*np.nonzero(np.triu(rest)), strict=True):
        v = prob_greater(posts[i], posts[j])
        out[i, j], out[j, i] = v, 1.0 - v
    return out


def _far_apart(first: PosteriorDistribution, second: PosteriorDistribution) -> float | None:
    """0 or 1 when the two posteriors' masses are apart, else None.

    ``alpha_1 > alpha_2`` needs ``alpha_1 > c`` or ``alpha_2 < c`` for any ``c``, so
    ``P(alpha_1 > alpha_2) <= P(alpha_1 > c) + P(alpha_2 < c)`` (and the same with the roles
    swapped bounds ``1 - P``).  Both tails are exact (each evaluated on its own small side); the
    smallest sum over a few points ``c`` between the posteriors is the bound.  Below
    ``_FAR_TAIL`` the answer is 0 (or 1), within that bound plus the tails' own error.  Pairs
    less than four combined standard deviations apart are never tried.
    """
    m1, s1, m2, s2 = first.mean(), first.std(), second.mean(), second.std()
    if abs(m1 - m2) < 4.0 * (s1 + s2):
        return None
    low, high = (first, second) if m1 < m2 else (second, first)
    ml, sl, mh, sh = (m1, s1, m2, s2) if m1 < m2 else (m2, s2, m1, s1)
    # points between the two, the one as many of its standard deviations from each mean first
    balanced = (ml * sh + mh * sl) / (sl + sh)
    a, b = ml + 2.0 * sl, mh - 2.0 * sh
    c = np.unique(np.r_[balanced, np.linspace(a, b, 7)[1:-1]] if b > a else [balanced])
    c = c[(c > 0.0) & (c < 1.0)]
    if not c.size:
        return None
    bound = float(np.min(np.asarray(low.sf(c), dtype=float) + np.asarray(high.cdf(c),
                                                                          dtype=float)))
    if not bound <= _FAR_TAIL:
        return None
    # the lower posterior is above the higher one with probability at most `bound`
    return 0.0 if low is first else 1.0


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
