"""Exact posterior of a system's rate of adequate outputs ``alpha``.

The model (von Däniken et al. 2022; von Däniken 2023, ch. 4)
------------------------------------------------------------
``alpha ~ Beta(a, b)``; human ratings are error-free, so ``h+`` positives out of ``h`` give the
conjugate factor ``alpha^h+ (1 - alpha)^h-``.  A metric rating is positive with probability
``rho`` for an adequate output and ``1 - eta`` for an inadequate one; ``rho`` and ``eta`` are either
known or have the Beta posteriors of the paired ratings.  Of the ``M`` metric-only ratings ``k``
are positive.

Exact route
-----------
Condition on the latent number ``T`` of truly adequate outputs among the ``M`` metric-only ones.
Given ``T`` the metric positives are ``X + Y`` with ``X ~ BetaBinom(T, rho-posterior)`` (adequate
outputs the metric accepts) and ``Y ~ BetaBinom(M - T, (1 - eta)-posterior)`` (inadequate outputs
it accepts); with known rates these are binomials.  Hence

    p(alpha | data) = sum_T pi_T Beta(alpha; A + T, B + M - T),
    pi_T ∝ C(M, T) B(A + T, B + M - T) L(T),   L(T) = P(X + Y = k | T),

with ``A = a + h+`` and ``B = b + h-``: a finite Beta mixture, exact.  Its moments are sums over
``T``; its CDF is evaluated without summing ``M + 1`` incomplete beta functions through the
telescoping identity ``I_x(a + 1, b - 1) = I_x(a, b) - Γ(a + b) / (Γ(a + 1) Γ(b)) x^a (1 - x)^(b-1)``
(all components share ``a + b``), which leaves one incomplete beta function plus a sum of
generalised binomial terms that vanish away from ``T ≈ x (A + B + M)``.

Error control
-------------
Only the weights ``pi_T`` need work.  Components more than ``TAIL_LOG`` (= 46) log units below
the largest are dropped (each is below 1e-20 of the largest, so together below 1e-12 of the total
even for ``M = 10^8``).  The window of components that matter is found from a rough guess (normal
approximations) by a bracketed search: the largest value seen always has the maximum between its
neighbours, and where ``log pi_T`` is unimodal everything beyond the first point below
``peak - TAIL_LOG`` on each side is below it too.  With known rates it is (the likelihood is
log-concave in ``alpha``); with estimated rates it need not be: when the paired rows and the
metric disagree (the paired rows say the metric rejects most inadequate outputs, and it accepted
all of them) the weights pile up at both ends, ``alpha`` near 0 and near 1, and either pile can
be the larger by hundreds of log units or both can matter.  So with an estimated rate one more
look covers ``0..M`` (65 even points and points at doubling distances from both ends, where such
a pile can be a few components wide; ``L(T) <= 1``, so a point whose other factors are already
below the level needs no ``L``, nor one below it by a tangent bound of ``L``, the summand's value
and slope a few Newton steps from its mode, where the summand is concave); every point above the
level starts a search of its own.
Each mode within ``TAIL_LOG`` of the highest gets its own window (overlapping ones merged), and
the posterior is the weighted sum of one mixture per window, by their masses
(:meth:`AlphaPosterior.from_parts`: its cdf the weighted sum of theirs, ``P(alpha_1 > alpha_2)``
the weighted sum over the parts, so that the quadrature never has to find a narrow mode far from
the other).  The tests check such designs
against all ``M + 1`` weights computed directly.

``L(T)`` is a sum over ``x`` of ``P(X = x) P(Y = k - x)``.  For an estimated rate the summand's
log-gamma functions come in pairs ``log Γ(z + a - 1) - log Γ(z)``, taken in Stirling's form
(plain differences of log-gamma functions near ``z log z`` would carry 1e-9 of rounding at
``z = 10^6``; the pairs carry a few units in the last place of ``(a - 1) log z``).  The sum:

- short sums term by term (integer tables, when the sum is as long as ``M``);
- long sums whose summand is smooth on a scale ``sigma >= 8`` and negligible at both ends of its
  window by Gauss-Legendre quadrature of the summand's analytic continuation, whose difference
  from the sum is of order ``exp(-2 pi^2 sigma^2)`` (Poisson summation); the window is centred
  on the summand's maximum (safeguarded Newton, stopped on the step relative to the local scale)
  and widened until the summand at both ends is negligible;
- long, very smooth sums (``sigma >= 200``) cut off by the range of ``x``: the ``_EM_EXACT``
  (128) terms next to the cut end one by one (there the continuation has log-gamma singularities
  one unit beyond the range, so its derivatives are of order one whatever ``sigma``), the rest by
  the same quadrature with the Euler-Maclaurin corrections ``f/2``, ``f'/12`` and ``f'''/720``;
  the next term is below 1e-14 of the largest term.

Measured against term-by-term sums of the same summand, ``log L`` agrees to 2e-12 at 10^3 to 10^5
ratings and to 1e-13 at 10^6 and 10^7; the tests hold it to 1e-9 of sums of scipy's beta-binomial
probabilities (whose own rounding is about 1e-11 at these sizes).

Up to ``_DIRECT_MAX`` (60,000) metric ratings every weight comes from one convolution: the summand
factors as ``row[T] + first[x] + second[T - x]`` (integer log-gamma tables), so all ``L(T)`` are
the convolution of ``exp(first)`` with ``exp(second)`` (tilted so that it peaks where the weights
do).  Above 400,000 multiply-adds it is taken by FFT, whose error in every entry is below ``16 eps
sqrt(log2 n) ||p||_2 ||q||_2``; the entries within four times that of zero are dropped and their
mass bounded (a geometric tail where the sequences are log-concave), and the weights are kept only
when the total error bound is within ``FFT_TOL`` (2.5e-13) of the mass, so the CDF is within 5e-13
of the exact mixture's (the tests hold the bound against the direct convolution and the posterior
against the exact convolution on hard designs).  Weights far below that share of the mass have
absolute, not relative, accuracy on this path.  With both rates estimated (Beta parameters of at
least one: both sequences log-concave) the FFT first covers only the windows that matter: each
sequence where it is within 40 log units of its largest entry (the mass left out, a geometric tail
by concavity, is added to the error bound: at most 1e-4 of it on the designs tested), the tables
over those windows and ``T`` over the window their convolution covers, the weights beyond it
bounded through linear bounds of their other factors (at 10^4 metric ratings and 300 paired rows
about 60 % of the whole lengths).  On every path ``log C(M, T) B(A + T, B + M - T)`` is summed by
its ratio recursion outwards from the guessed peak (the convolutions) or from the largest weight (a
materialised window, the whole range of a few hundred components): from ``T = 0`` or a window's
start its running sums reach thousands, and their rounding put up to 3.4e-12 between the CDFs at
6 x 10^4 ratings and in windows of 2 x 10^4 components; from the peak the CDFs are within 2e-13 of
those with 30-digit log-gamma functions at every ``T``.  Below 400,000 multiply-adds, and where the
bound refuses (a mode pressed against an end, a perfect metric, weights pulled far from the
metric's peak), an exact convolution sums every term (positive terms: relative error ``n eps``), up
to 25 x 10^6 multiply-adds.  Beyond ``_DIRECT_ANY`` (12,000) ratings the convolution's weights are
kept only when those within ``TAIL_LOG`` of the largest are one run; separate piles go to the mode
search below and are held in parts.  Where the bound refuses the windows' first tilt, they are
tried once more tilted at the largest weight seen.

Beyond ``_DIRECT_MAX`` ratings the windows' convolution still answers where the window in ``T``
spans at most ``_WINDOW_MAX`` (80,000) components, with the same bound and the same one-run rule
(its time grows with the window; the smooth representation below costs about the same whatever
the size).  On 80 random designs of 6 x 10^4 to 3 x 10^6 metric ratings, 31 took it: 1.5 to 5.7
times as quick (one 14 % slower), the CDF within 3.3e-12 of the smooth representation's and
within 2e-14 of the mixture with ``log L`` at every component on the three designs the tests hold
(9.4 x 10^4 to 1.2 x 10^5 ratings, 76 to 45,000 paired rows).

When the window in ``T`` is wide, ``log L(T)`` is interpolated piecewise (degree-24 Chebyshev
panels, two to start with; where the summation range changes shape, at ``T = k`` and
``T = M - k``, a panel edge, unless the range's end term is negligible there).  A panel is halved
until twice the largest error of ``log L`` at its check points (nine in a first panel; in a
halved one the parent's nodes and checks inside it, about sixteen, evaluated already; its two
ends among them: a weight rising steeply towards an end can be missed by the nodes next to it),
times the largest weight seen in the panel (relative to the peak) or the panel's share of the
total weight if that is larger (a long heavy tail of individually tiny weights), is below 1e-12,
or below 30 times the rounding noise of ``log L`` (estimated from fourth differences away from
the kinks) when that is larger.

That noise sets the posterior's error with estimated rates.  The summand's log-gamma pairs are
each of size ``(a - 1) log z``, with ``a`` up to the paired counts, and cancel to a number of
order one, so each value of ``log L(T)`` carries rounding of about ``0.2-0.8 eps P log M``
(``P = tp + fn + tn + fp`` plus twice the rate prior's parameters: the four Beta parameters of
the rates' posteriors together; of the estimated one alone when the other is known),
independently from one ``T`` to the next.  The interpolant through such values is off by a few
times that over a whole panel, and this error does not average out of the CDF: taken whole, the
pairs put the CDF within ``max(1e-12, eps P log M)`` of the exact posterior's (measured against
the mixture whose weights take ``log L`` directly at every ``T``, whose noise averages out: at
most ``0.19 eps P log M`` on 34 random designs of 10^4.3 to 10^7.5 metric ratings and 300 to
3 x 10^5 paired rows).  So where ``eps P log M`` exceeds ``_REF_FROM`` (5e-11: about 1.5 x 10^4
paired rows at 10^6 metric ratings) each pair, and each term in ``T`` alone, is taken as its
change from its value at a reference point (``T`` at the guessed peak of the weights, ``x`` at
``rho``'s mean times that) by :func:`~binaryeval.binary._kernels.log_gamma_ratio_shifts`
(within 8 eps of the change), and the values there are added once, as one constant whose
rounding is the same at every ``T`` (it drops out of the weights).  What remains is of the size
of the changes, ``(a - 1) |z - z_ref| / z`` each: ``log L(T) - log L(T_0)`` within 2.2e-12 of
30-digit sums near the peak of ``(24, 34, 3879359, 4277908, 55777, 29855, 23039, 13241)`` (10^5
paired rows) and within 1.2e-13 over 1.7 standard deviations either side of the peak of ``(11,
94, 12666883, 46513719, 15628, 6604, 141229, 39836)`` (2 x 10^5 paired rows, 4.7 x 10^7 metric
ratings); taken whole, 3.8e-10 and 3.2e-10.  The CDF is then within 1e-12 of the exact posterior:
measured 6.9e-14 against the mixture with 30-digit ``log L`` at every component of the first
(2.7e-11 with the pairs whole), 4.6e-15 against the mixture with ``log L`` at every component of
the second (9.5e-11 with the pairs whole, against the same with the pairs whole).  It costs time:
with less noise the panels are held to 1e-12 of the weights, and near a sharp end they are then
filled component by component (the first design 0.3 s instead of 13 ms, the second 22 ms
instead of 12).  The integer tables (the convolutions up to ``_DIRECT_MAX`` ratings, term-by-term
sums) take the pairs whole; term-by-term sums then use the continuous summand instead.  Below
``_REF_FROM`` the pairs are taken whole (a change costs about three times as much to evaluate,
and the common designs, up to 10^4 paired rows at 10^6 metric ratings, stay at their speed):
there the CDF is within ``max(1e-12, eps P log M)``, at most 5e-11 (measured: at most 0.19 eps
P log M, below 1e-11).  A known rate's count has its whole log-pmf in
Loader's form (:func:`binaryeval.binary._kernels.log_dbinom`: terms of the size of the result,
where log-gamma functions of the counts, ``z log z`` each, carried 7e-10 of noise at 10^6 and
8e-9 at 10^7 ratings): ``log L`` within 2e-13 of 30-digit sums at 10^6 to 10^7 ratings, the CDF
within 2e-13 of the mixture with ``log L`` at every ``T`` (1.2e-10 to 1.8e-9 before).

A wide window whose ends are too sharp for that (a mode pressed against 0 or M with a heavy
tail over every component, from a handful of paired rows) is held in pieces: the sharp ends
materialised, the middle smooth (as below), each piece's mass relative to one reference point
through log-gamma ratio changes (absolute ``log C(M, T) B(A + T, B + M - T)`` would carry 1e-8 of
rounding at 10^6 ratings, enough to mis-weigh the pieces).  At 10^8 ratings such a posterior
took 21 s and 5.8 GB materialised; in pieces 16 ms, within 1e-12 of its closed form.

Beyond ``_SMOOTH_FROM`` (30,000) components the weights are not materialised: the posterior keeps
the smooth weight function ``C(M, t) B(A + t, B + M - t) L(t)`` (the first factor in closed form
for real ``t``, differenced without cancellation), and its sums become integrals
(:mod:`binaryeval.binary._smooth`; Poisson summation again, with the ends tapered so that the
integrands vanish there smoothly).  A posterior of 10^7 metric ratings then costs what one of
10^5 does.

The tests and ``benchmarks/bench_accuracy.py`` hold the CDF to 1e-12 of the term-by-term mixture
of the same weights up to 10^7 metric ratings and to 1e-11 at 10^8 (measured: below 1e-13), the
smooth representation to 1e-12 of the materialised one (also where 3 x 10^6 human ratings
contradict 10^7 metric ratings), the CDF to ``max(1e-12, eps P log M)`` of the mixture with
``log L`` at every component where ``eps P log M`` is at most ``_REF_FROM`` and to 1e-12 above
(above), ``log L`` with its pairs as changes to 5e-12 of 30-digit sums, and the weights to the
component-by-component computation
within 1e-9 on random designs (measured: the CDF within 2e-11 of the one with every component
computed directly, on 217 random designs).  On 120 hard designs (near-perfect metrics, a handful
of paired rows, weights pressing an end, kinks of ``log L`` inside the window;
``studies/engine_hard_designs.py``) every CDF is within 4.2e-14 of the mixture with ``log L`` at
every component.  Counts above 10^10 are refused
(:data:`binaryeval._validate.MAX_COUNT`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .. import _validate
from ..errors import CountsError, ParameterError
from ._kernels import (
    _stirling_ratio,
    convolve,
    log_dbinom,
    log_gamma_ratio,
    log_gamma_ratio_ranges,
    log_gamma_ratio_shift,
    log_gamma_ratio_shifts,
)
from ._kernels import dot as _dot
from ._piecewise import CHEB_DEGREE, CHEB_NODES, PiecewiseChebyshev, chebyshev_coefficients
from ._smooth import SmoothMixture
from .posterior import AlphaPosterior

__all__ = ["MAX_PRIOR", "MAX_RATE_PRIOR", "alpha_posterior", "RateDistribution"]

TAIL_LOG = 46.0
#: Largest parameter of the prior of alpha: up to 1e9 the posterior's mean stays within 1e-9
#: of its standard deviation of a 40-digit computation over every component (measured:
#: 5e-10 at 1e9, 2e-9 at 1e10, 1e-8 at 1e12; its standard deviation within 1e-14).
MAX_PRIOR = 1e9
#: Largest parameter of the rates' prior: the metric likelihood's log-gamma ratios lose
#: ``eps * a * log(a)`` (mean within 2e-10 of the sd at 1e6, 9e-8 at 1e8).
MAX_RATE_PRIOR = 1e6
_FULL_SUM = 600  # sums over at most this many terms are done term by term
_TABLE_MAX = 2_000_000  # log-gamma tables for term-by-term sums up to this many metric ratings
_FULL_T = 600  # mixtures over at most this many components get L(T) for every T directly
# every weight from one convolution up to this many metric ratings: by FFT (about 1 ms at 10^4
# metric ratings, where np.convolve's k (M - k) multiply-adds took 5 ms and the windows 20; at
# 5 x 10^4 about half the windows' time), else exactly (np.convolve, kept on one BLAS thread:
# _kernels.convolve) up to _CONV_MAX multiply-adds
_DIRECT_MAX = 60_000
_DIRECT_ANY = 12_000   # up to here also weights in separate piles (beyond, held in parts)
# beyond _DIRECT_MAX, the convolution over the windows that matter where they span at most this
# many components (its time grows with their length: on random designs of 6 x 10^4 to 10^6
# metric ratings it was the quicker way up to about 80,000 components, and 1.5 to 4 times as
# quick at a few thousand to 40,000)
_WINDOW_MAX = 80_000
_CONV_MAX = 25_000_000
# above this many multiply-adds the convolution is done by FFT (with its error bound checked)
_FFT_FROM = 400_000
#: The FFT convolution's weights are kept when the bound on their total error (and on the
#: mass left out) is below this share of the total mass: the CDF is then within twice that.
FFT_TOL = 2.5e-13
# above this estimate of log L's rounding (eps P log M) the log-gamma pairs are taken as
# changes from a reference point
_REF_FROM = 5e-11
_EM_EXACT = 128  # terms next to a cut end of a smooth sum that are summed one by one
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(96)
_LOG_GL_WEIGHTS = np.log(_GL_WEIGHTS)


def _logsumexp_rows(v: np.ndarray) -> np.ndarray:
    """log(sum(exp(v), axis=1)) for a 2-D array (scipy's logsumexp carries more overhead)."""
    m = np.maximum.reduce(v, axis=1)   # (np.max's own reduction, without its wrapper)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(under="ignore", divide="ignore"):
        return safe + np.log(np.add.reduce(np.exp(v - safe[:, None]), axis=1))


def _combine(coef: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """``sum_i coef[i] * terms[i]`` over the first axis (numpy's einsum calls BLAS for this)."""
    return np.add.reduce(coef.reshape((-1,) + (1,) * (terms.ndim - 1)) * terms, axis=0)


def _row_chunks(n_rows: int, per_row: int, budget: int = 32768):
    """Slices of ``n_rows`` rows whose work arrays hold about ``budget`` elements each.

    Large temporaries are slow to allocate (fresh pages for every array); blocks that stay in
    the cache are several times faster than one pass over a large array.
    """
    step = max(1, budget // max(per_row, 1))
    return [slice(s, s + step) for s in range(0, n_rows, step)]


def _trigamma(x):
    """psi'(x), by its asymptotic series from 10 on and scipy's Hurwitz zeta below.

    The series' relative error is below 1e-10; the value only steers the mode search and the
    window widths.
    """
    x = np.asarray(x, dtype=float)
    big = x >= 10.0
    if big.all():
        inv = 1.0 / x
        inv2 = inv * inv
        return inv + inv2 * (0.5 + inv * (1.0 / 6.0 - inv2 * (1.0 / 30.0 - inv2 * (1.0 / 42.0
                                                                                   - inv2 / 30.0))))
    out = np.empty(x.shape)
    out[big] = _trigamma(x[big])
    out[~big] = special.zeta(2.0, x[~big])
    return out


def _count_moments(dist: RateDistribution, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of the (beta-)binomial count of accepted outputs among ``n``."""
    if dist.known is not None:
        p = dist.known
        return n * p, n * p * (1.0 - p)
    s = dist.a + dist.b
    p = dist.a / s
    return n * p, n * p * (1.0 - p) * (n + s) / (1.0 + s)


def _lchoose(n, k):
    return special.gammaln(n + 1.0) - special.gammaln(k + 1.0) - special.gammaln(n - k + 1.0)


@dataclass(frozen=True)
class RateDistribution:
    """The distribution of a metric's acceptance probability within one class of outputs.

    ``known`` gives a fixed probability; otherwise the probability is ``Beta(a, b)``.  The count
    of accepted outputs among ``n`` is then binomial or beta-binomial.
    """

    a: float = 1.0
    b: float = 1.0
    known: float | None = None

    def logpmf(self, x, n):
        """Log P(count = x | n trials), vectorised, continuous in x (analytic continuation)."""
        x = np.asarray(x, dtype=float)
        n = np.asarray(n, dtype=float)
        if self.known is None:
            return (_lchoose(n, x) + special.betaln(x + self.a, n - x + self.b)
                    - special.betaln(self.a, self.b))
        p = self.known
        return _lchoose(n, x) + special.xlogy(x, p) + special.xlog1py(n - x, -p)

    def dlogpmf(self, x, n):
        """Derivative of :meth:`logpmf` in x."""
        base = -special.digamma(x + 1.0) + special.digamma(n - x + 1.0)
        if self.known is None:
            return base + special.digamma(x + self.a) - special.digamma(n - x + self.b)
        return base + math.log(self.known) - math.log1p(-self.known)

    def d2logpmf(self, x, n):
        """Second derivative of :meth:`logpmf` in x."""
        base = -_trigamma(x + 1.0) - _trigamma(n - x + 1.0)
        if self.known is None:
            return base + _trigamma(x + self.a) + _trigamma(n - x + self.b)
        return base

    @property
    def degenerate(self) -> bool:
        """Whether the rate is known to be exactly 0 or 1 (one count is then fixed)."""
        return self.known is not None and self.known in (0.0, 1.0)

    @property
    def mean(self) -> float:
        """The rate's mean (or its known value)."""
        return self.known if self.known is not None else self.a / (self.a + self.b)


class _MetricLikelihood:
    """``log L(T) = log P(X_T + Y_{M-T} = k)`` for arrays of T.

    The summand ``log P(X_T = x) + log P(Y_{M-T} = k - x)`` is written as a few log-gamma terms
    in ``x`` whose offsets depend on ``T``, a slope ``x log(p / (1 - p))`` per known rate and a
    term in ``T`` alone: ``sum_i c_i log Γ(s_i x + o_i(T)) + slope x + const(T)``.  (Its values
    take a known rate's count, not 0 or 1, whole: ``log_dbinom``, Loader's form, whose terms are
    of the size of the result; its log-gamma functions would carry ``eps z log z`` each.)  Its
    derivatives in ``x`` are then one digamma (trigamma) call over all terms at once.  For an
    estimated rate the terms come in pairs ``log Γ(z + a - 1) - log Γ(z)`` (``z`` the count plus
    one), whose values are taken in Stirling's form (:func:`_lgamma_ratio`): each log-gamma
    function is about ``z log z`` and their plain difference would carry that much rounding
    (1e-9 at ``z = 10^6``), the ratio only about ``(a - 1) log z``.  For integer arguments the
    same split gives tables: ``summand = row[T] + first[x] + second[T - x]``.  Where their
    rounding would matter (:meth:`_reference`) the continuous summand takes each pair, and each
    term in ``T`` alone, as its change from a reference point near ``T = t_ref`` (by default where
    the metric alone puts the peak).
    """

    def __init__(self, k: int, M: int, pos: RateDistribution, neg: RateDistribution,
                 t_ref: float | None = None):
        self.k, self.M, self.pos, self.neg = k, M, pos, neg
        self._tables: tuple | None = None
        self._plain: tuple | None = None
        # log B(a, b) of each estimated rate (a constant of every summand)
        self._lbeta = tuple(special.betaln(d.a, d.b) if d.known is None else 0.0
                            for d in (pos, neg))
        # (coefficient, sign of x, offset at T = 0, change of the offset with T)
        terms = []
        if pos.known is None:
            terms += [(1.0, 1.0, pos.a, 0.0), (-1.0, 1.0, 1.0, 0.0),
                      (1.0, -1.0, pos.b, 1.0), (-1.0, -1.0, 1.0, 1.0)]
        else:
            terms += [(-1.0, 1.0, 1.0, 0.0), (-1.0, -1.0, 1.0, 1.0)]
        # the inadequate outputs' count y = k - x of n = M - T, and n - y = M - k - T + x
        if neg.known is None:
            terms += [(1.0, -1.0, k + neg.a, 0.0), (-1.0, -1.0, k + 1.0, 0.0),
                      (1.0, 1.0, M - k + neg.b, -1.0), (-1.0, 1.0, M - k + 1.0, -1.0)]
        else:
            terms += [(-1.0, -1.0, k + 1.0, 0.0), (-1.0, 1.0, M - k + 1.0, -1.0)]
        c, s, o0, o1 = (np.array(v) for v in zip(*terms, strict=True))
        self._c, self._s, self._o0, self._o1 = c, s, o0, o1
        self._cs = c * s
        # the values: log Γ(z + d) - log Γ(z) with z = s x + o0 + o1 T, for each estimated rate's
        # two counts (sign of x, offset at T = 0, change with T, d); the known rates' terms alone
        self._pairs = []
        self._lone = []
        # a known rate (not 0 or 1): its count's whole log-pmf by Loader's form (log_dbinom),
        # whose terms are of the size of the result, instead of log-gamma functions of the counts
        # (about z log z each: their rounding, 8e-9 at 10^7 ratings, was log L's noise)
        self._binom = (pos.known is not None and not pos.degenerate,
                       neg.known is not None and not neg.degenerate)
        if pos.known is None:
            self._pairs += [(1.0, 1.0, 0.0, pos.a - 1.0), (-1.0, 1.0, 1.0, pos.b - 1.0)]
        elif not self._binom[0]:
            self._lone += [(1.0, 1.0, 0.0), (-1.0, 1.0, 1.0)]
        if neg.known is None:
            self._pairs += [(-1.0, k + 1.0, 0.0, neg.a - 1.0), (1.0, M - k + 1.0, -1.0, neg.b - 1.0)]
        elif not self._binom[1]:
            self._lone += [(-1.0, k + 1.0, 0.0), (1.0, M - k + 1.0, -1.0)]
        if self._pairs:
            sign, o0, o1, d = (np.array(v) for v in zip(*self._pairs, strict=True))
            self._pair_arrays = (sign, o0, o1, d[:, None])
        self._ref = self._reference(t_ref) if self._pairs else None
        slope = 0.0
        if pos.known is not None and not pos.degenerate:
            slope += math.log(pos.known) - math.log1p(-pos.known)
        if neg.known is not None and not neg.degenerate:
            slope -= math.log(neg.known) - math.log1p(-neg.known)
        self._slope = slope   # the summand's slope in x from the known rates (its derivative)
        # ... of which the part the values take outside log_dbinom (the degenerate rates': none)
        self._value_slope = 0.0 if any(self._binom) else slope

    def _reference(self, t_ref: float | None):
        """A reference point ``(T_ref, x_ref)`` near the bulk, or None where none is needed.

        With large Beta parameters each log-gamma pair, of size ``(a - 1) log z``, would carry
        ``eps (a - 1) log z`` of rounding into every value.  Each pair (and each term in ``T``
        alone) is then taken as its change from its value at the reference point by
        :func:`log_gamma_ratio_shifts` (within 8 eps of the change), and the values there are
        added back as one constant, whose rounding is the same at every ``T``.  Needed where
        ``eps P log M`` exceeds ``_REF_FROM`` (``P`` the estimated rates' Beta parameters
        together); ``t_ref`` where the weights are expected to peak (None: where the metric
        alone puts it), ``x_ref`` at ``rho``'s mean times ``t_ref``.  Returns ``(t_ref, x_ref,
        the pairs' arguments there, the arguments of the terms in T alone there, and the pairs' and
        those terms' part of the summand there)``.
        """
        d = sum(dist.a + dist.b for dist in (self.pos, self.neg) if dist.known is None)
        if np.finfo(float).eps * d * math.log(max(self.M, 2)) <= _REF_FROM:
            return None
        k, M = self.k, self.M
        p, q = self.pos.mean, self.neg.mean
        if t_ref is None:
            share = (k / M - q) / (p - q) if p != q else 0.5
            t_ref = M * min(max(share, 0.0), 1.0)
        t_ref = float(min(max(round(t_ref), 0), M))
        lo, hi = max(0.0, k - (M - t_ref)), min(t_ref, float(k))
        x_ref = float(min(max(round(t_ref * p), lo), hi))
        sign, o0, o1, dd = self._pair_arrays
        z_ref = sign * x_ref + o0 + o1 * t_ref
        level = float(np.sum(log_gamma_ratio(z_ref, dd.ravel())))
        consts = []
        for dist, m_ref in ((self.pos, t_ref), (self.neg, M - t_ref)):
            if dist.known is None:
                level -= float(log_gamma_ratio(m_ref + 1.0, dist.a + dist.b - 1.0))
                consts.append(m_ref + 1.0)
            else:
                consts.append(None)
        # the summand at the reference point: one number of the size of a log-probability
        level -= self._lbeta[0] + self._lbeta[1]
        return t_ref, x_ref, [float(z) for z in z_ref], consts, level

    @property
    def log_concave(self) -> bool:
        """Whether the summand is concave in ``x``, and with it the tables ``first``, ``second``.

        So it is when every rate is known (and not 0 or 1) or has Beta parameters of at least
        one: the counts' log-pmfs are then concave (``psi'(x + a) <= psi'(x + 1)`` for
        ``a >= 1``).
        """
        return not (self.pos.degenerate or self.neg.degenerate) and all(
            d.known is not None or min(d.a, d.b) >= 1.0 for d in (self.pos, self.neg))

    # -- the continuous summand ------------------------------------------------------------------
    def _const(self, T: np.ndarray) -> np.ndarray:
        """The part of the summand that depends on T alone."""
        n = self.M - T
        out = np.zeros(T.shape)
        ref = self._ref
        if ref is not None:
            # each estimated rate's term as its change from the reference (the values there are
            # in the summand's constant)
            t_ref, refs = ref[0], ref[3]
            for dist, z_ref, sign in ((self.pos, refs[0], 1.0), (self.neg, refs[1], -1.0)):
                if dist.known is None:
                    out -= log_gamma_ratio_shift(z_ref, sign * (T - t_ref), dist.a + dist.b - 1.0)
        for dist, m, lbeta, binom in ((self.pos, T, self._lbeta[0], self._binom[0]),
                                      (self.neg, n, self._lbeta[1], self._binom[1])):
            if dist.known is None:
                if ref is None:
                    out -= (log_gamma_ratio(m + 1.0, dist.a + dist.b - 1.0) + lbeta)
            elif not binom:
                out += special.gammaln(m + 1.0) + m * math.log1p(-dist.known)
        if self.neg.known is not None and not self._binom[1]:
            out += self.k * (math.log(self.neg.known) - math.log1p(-self.neg.known))
        return out

    def _offsets(self, T: np.ndarray) -> np.ndarray:
        """The offsets ``o_i(T)`` of the log-gamma arguments, shape ``(terms, T.size)``."""
        return self._o0[:, None] + self._o1[:, None] * T[None, :]

    def _args(self, x: np.ndarray, T: np.ndarray, off: np.ndarray | None = None) -> np.ndarray:
        """The log-gamma arguments ``s_i x + o_i(T)``, shape ``(terms,) + x.shape``.

        ``T`` is 1-D; ``x`` has the shape of ``T`` or one more axis (points per T).  ``off``:
        :meth:`_offsets` of ``T`` when the caller has them (an iteration over x at fixed T).
        """
        if off is None:
            off = self._offsets(T)
        if x.ndim == 2:
            off = off[:, :, None]
        return self._s.reshape((-1,) + (1,) * x.ndim) * x[None] + off

    def _summand(self, x: np.ndarray, T: np.ndarray, const: np.ndarray | None = None):
        """The summand at real x (shape of T, or T x points) for a 1-D array T."""
        if const is None:
            const = self._const(T)
        if x.ndim == 2:
            const = const[:, None]
        v = self._value_slope * x + const
        if self._binom[0] or self._binom[1]:
            Tb = T[:, None] if x.ndim == 2 else T
            if self._binom[0]:
                v += log_dbinom(x, Tb, self.pos.known)
            if self._binom[1]:
                v += log_dbinom(self.k - x, self.M - Tb, self.neg.known)
        if self._pairs and self._ref is not None:
            sign, o0, o1, d = self._pair_arrays
            t_ref, x_ref, z_ref, _, level = self._ref
            dx, dt = x - x_ref, T - t_ref
            if x.ndim == 2:
                dt = dt[:, None]
            lead = (-1,) + (1,) * x.ndim
            shifts = sign.reshape(lead) * dx[None] + o1.reshape(lead) * dt[None]
            v += log_gamma_ratio_shifts(np.reshape(z_ref, lead), shifts, d.reshape(lead)).sum(axis=0)
            v += level
        elif self._pairs:
            sign, o0, o1, d = self._pair_arrays
            off = o0[:, None] + o1[:, None] * T[None, :]
            if x.ndim == 2:
                off, d = off[:, :, None], d[:, :, None]
            z = sign.reshape((-1,) + (1,) * x.ndim) * x[None] + off
            # the smallest argument of each ratio (its offset is one number per pair): as
            # log_gamma_ratio finds it, in one pass instead of three
            zmin = z.reshape(z.shape[0], -1).min(axis=1)
            least = float(np.minimum(zmin, zmin + d.ravel()).min()) if z.size else math.inf
            ratio = (_stirling_ratio(z, d, least - 1.0) if least > 16.0
                     else log_gamma_ratio(z, d))
            v += ratio.sum(axis=0)
        for sign, o0, o1 in self._lone:
            off = o0 + o1 * T
            v -= special.gammaln(sign * x + (off[:, None] if x.ndim == 2 else off))
        return v

    def _derivatives(self, x: np.ndarray, T: np.ndarray,
                     off: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """First and second derivative of the summand in x (1-D x and T; ``off`` as in _args)."""
        args = self._args(x, T, off)
        d1 = _combine(self._cs, special.digamma(args)) + self._slope
        d2 = _combine(self._c, _trigamma(args))
        return d1, d2

    def summand(self, x, T):
        """The summand ``log P(X_T = x) + log P(Y_{M-T} = k - x)``, broadcasting x and T."""
        x, T = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(T, dtype=float))
        if self.pos.degenerate or self.neg.degenerate:
            # a known rate of 0 or 1: the log-gamma form has log(0) in it; the pmfs do not
            with np.errstate(invalid="ignore", divide="ignore"):
                val = self.pos.logpmf(x, T) + self.neg.logpmf(self.k - x, self.M - T)
            return np.where(np.isnan(val), -np.inf, val)
        shape = x.shape
        return self._summand(x.ravel(), T.ravel()).reshape(shape)

    def _dsummand(self, x, T):
        x, T = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(T, dtype=float))
        shape = x.shape
        return self._derivatives(x.ravel(), T.ravel())[0].reshape(shape)

    # -- integer sums ----------------------------------------------------------------------------
    def _int_tables(self):
        """Log tables so that an integer summand is three look-ups.

        With ``D = M - k``: ``summand(x, T) = row[T] + first[x] + second[T - x]``, where ``row``
        collects the terms in ``T`` (and ``M - T``), ``first`` those in ``x`` (and ``k - x``) and
        ``second`` those in ``T - x`` (the adequate outputs the metric rejects) and in
        ``D - (T - x)`` (the inadequate ones it rejects).  ``first`` is padded with ``-inf``
        beyond ``x = k`` and ``second`` on both sides of ``0..D`` (by ``pad = max(k, D) + 1``
        entries), so that terms outside the summation range vanish by themselves.
        """
        if self._tables is None:
            row, first0, second0 = self._plain_tables()
            k, D = self.k, self.M - self.k
            pad = max(k, D) + 1
            first = np.full(k + 1 + pad, -np.inf)
            first[:k + 1] = first0
            second = np.full(D + 1 + 2 * pad, -np.inf)
            second[pad:pad + D + 1] = second0
            self._tables = (row, first, second, pad)
        return self._tables

    def _plain_tables(self):
        """The tables of :meth:`_int_tables` without the padding: over 0..M, 0..k and 0..D."""
        if self._plain is None:
            k, M = self.k, self.M
            D = M - k
            i = np.arange(M + 1, dtype=float)
            # each table over the counts it is read at: the row over 0..M, the first over 0..k
            # (x and k - x), the second over 0..D (T - x and its complement)
            sizes = (M + 1, k + 1, D + 1)
            logfact = (special.gammaln(i + 1.0)
                       if self.pos.known is not None or self.neg.known is not None else None)
            # every estimated rate's three log-gamma ratios in one call
            offsets = [(d, n) for dist in (self.pos, self.neg) if dist.known is None
                       for d, n in zip((dist.a + dist.b - 1.0, dist.a - 1.0, dist.b - 1.0), sizes,
                                       strict=True)]
            # (consecutive integer arguments: one slice per form of the ratio, no masks)
            ratios = iter(log_gamma_ratio_ranges([(n, d) for d, n in offsets]))
            parts = []
            for dist in (self.pos, self.neg):
                if dist.known is None:
                    row = -next(ratios) - special.betaln(dist.a, dist.b)
                    first = next(ratios)
                    second = next(ratios)
                else:
                    row = logfact
                    first = i[:k + 1] * math.log(dist.known) - logfact[:k + 1]
                    second = i[:D + 1] * math.log1p(-dist.known) - logfact[:D + 1]
                parts.append((row, first, second))
            (prow, pfirst, psecond), (nrow, nfirst, nsecond) = parts
            self._plain = (prow + nrow[::-1], pfirst[:k + 1] + nfirst[k::-1],
                           psecond[:D + 1] + nsecond[D::-1])
        return self._plain

    def _int_sums(self, T: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Log of the sum over x = lo..hi for integer T (int64 arrays), term by term."""
        row, first, second, pad = self._int_tables()
        width = int((hi - lo).max()) + 1
        out = np.empty(T.shape)
        offs = np.arange(width, dtype=np.int64)
        for sl in _row_chunks(T.size, width, 32768):
            x = lo[sl, None] + offs[None, :]
            # x beyond hi is beyond k or T (first or second is -inf there): no mask needed
            terms = first[x] + second[(T[sl, None] + pad) - x]
            out[sl] = _logsumexp_rows(terms) + row[T[sl]]
        return out

    def _ranges(self, T) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``T`` as an array, the range ``[lo, hi]`` of ``x`` at each, and where it is not empty."""
        T = np.atleast_1d(np.asarray(T, dtype=float))
        lo = np.maximum(0.0, self.k - (self.M - T))
        hi = np.minimum(T, float(self.k))
        return T, lo, hi, hi >= lo

    def __call__(self, T) -> np.ndarray:
        T, lo, hi, ok = self._ranges(T)
        out = np.full(T.shape, -np.inf)
        if not ok.any():
            return out
        T, lo, hi = T[ok], lo[ok], hi[ok]
        if self.pos.degenerate or self.neg.degenerate:
            out[ok] = self._degenerate(T, lo, hi)
            return out
        res = np.empty(T.shape)
        width = hi - lo
        small = width < _FULL_SUM
        if small.all():
            res = self._full_sum(T, lo, hi)
        elif not small.any():
            res = self._windowed(T, lo, hi)
        else:
            res[small] = self._full_sum(T[small], lo[small], hi[small])
            res[~small] = self._windowed(T[~small], lo[~small], hi[~small])
        out[ok] = res
        return out

    def _degenerate(self, T, lo, hi):
        # a known rate of exactly 0 or 1 makes one of the counts deterministic
        with np.errstate(invalid="ignore", divide="ignore"):
            return self._degenerate_values(T)

    def _degenerate_values(self, T):
        if self.pos.degenerate:
            x = T * self.pos.known
            y = self.k - x
            val = self.neg.logpmf(y, self.M - T)
            bad = (y < 0) | (y > self.M - T)
            if self.neg.degenerate:
                val = np.where(np.isclose(y, (self.M - T) * self.neg.known), 0.0, -np.inf)
        else:
            y = (self.M - T) * self.neg.known
            x = self.k - y
            val = self.pos.logpmf(x, T)
            bad = (x < 0) | (x > T)
        val = np.where(bad, -np.inf, val)
        return np.where(np.isnan(val), -np.inf, val)

    def _full_sum(self, T, lo, hi):
        """Term-by-term sums over x = lo..hi: integer tables, or the continuous summand."""
        width = int((hi - lo).max()) + 1
        # tables cost O(M) to build (about what M terms cost without them): worth it when this
        # sum alone is as large
        worth = (self._tables is not None or self._plain is not None
                 or T.size * width >= self.M)
        # (not where the pairs are changes from a reference point: the tables take them whole)
        integer = (worth and self._ref is None and self.M <= _TABLE_MAX and np.all(T == np.round(T))
                   and np.all(lo == np.round(lo)) and np.all(hi == np.round(hi)))
        if integer:
            return self._int_sums(T.astype(np.int64), lo.astype(np.int64), hi.astype(np.int64))
        out = np.empty(T.shape)
        offs = np.arange(width, dtype=float)
        for sl in _row_chunks(T.size, width * self._c.size):
            x = np.minimum(lo[sl, None] + offs[None, :], hi[sl, None])
            valid = (lo[sl, None] + offs[None, :]) <= hi[sl, None]
            terms = np.where(valid, self._summand(x, T[sl]), -np.inf)
            out[sl] = _logsumexp_rows(terms)
        return out

    def _mode(self, T, lo, hi):
        """Maximiser of the summand on [lo, hi], and the summand's curvature there.

        Safeguarded Newton on the derivative: the bracket [a, b] always holds the root of the
        derivative; a Newton step that leaves it is replaced by bisection, so the iteration
        converges for any unimodal summand.  It starts from the normal approximation (the
        conditional mean of X given X + Y = k, both counts normal with their beta-binomial
        means and variances) and stops when the Newton step is below 1e-3 of the summand's local
        scale ``1 / sqrt(-f'')`` (a step relative to x is no test: near the end of a long range
        the curvature can be large where the maximum is far away and flat).  The curvature is
        returned at the mode (at the end for a maximum there).
        """
        k, M = self.k, self.M
        n = T.size
        mu1, v1 = _count_moments(self.pos, T)
        mu2, v2 = _count_moments(self.neg, M - T)
        a, b = lo.copy(), hi.copy()
        x = np.clip(mu1 + v1 / np.maximum(v1 + v2, 1e-300) * (k - mu1 - mu2), a, b)
        # with the start, the ends: decreasing from the start (maximum at lo), or increasing to
        # the end (maximum at hi)
        d, h = self._derivatives(np.concatenate((x, lo + 1e-9, hi - 1e-9)),
                                 np.concatenate((T, T, T)))
        left, right = d[n:2 * n] <= 0, d[2 * n:] >= 0
        h_end = np.where(left, h[n:2 * n], h[2 * n:])
        d, h = d[:n], h[:n]
        # (what stays fixed over the steps: the arguments' offsets at T, the ends' verdicts)
        off = self._offsets(T)
        ends = left | right
        for _ in range(60):
            rising = d > 0
            a = np.where(rising, x, a)
            b = np.where(rising, b, x)
            concave = h < 0
            hh = np.where(concave, h, -1.0)
            step = np.where(concave, -d / hh, np.nan)
            # a step below 1e-3 of the local scale: the summand is within 1e-6 of its maximum
            tol = np.maximum(1e-3 / np.sqrt(-hh), 1e-13 * np.maximum(1.0, np.abs(x)))
            active = ~((np.abs(step) < tol) | (b - a < tol) | ends)  # NaN: not converged
            if not active.any():
                break
            nx = x + step
            bad = ~np.isfinite(nx) | (nx < a) | (nx > b)
            x = np.where(active, np.where(bad, 0.5 * (a + b), nx), x)
            d, h = self._derivatives(x, T, off)
        mode = np.where(left, lo, np.where(right, hi, x))
        h = np.where(ends, h_end, h)
        return mode, h

    def log_bound(self, T) -> np.ndarray | None:
        """An upper bound of ``log L(T)`` at a fraction of its cost, or None where none is known.

        ``L(T) = sum_{x=lo..hi} exp(f(x))`` with ``f`` the summand, concave in ``x`` where every
        rate is known or has Beta parameters of at least one (the counts' log-pmfs are then
        concave: ``psi'(x + a) <= psi'(x + 1)`` for ``a >= 1``).  A concave ``f`` lies below its
        tangent at any point ``x0``, so ``f(x) <= f(x0) + f'(x0) (x - x0)`` on ``[lo, hi]`` and
        ``log L <= f(x0) + max(f'(x0) (hi - x0), f'(x0) (lo - x0), 0) + log(hi - lo + 1)``
        whatever ``x0`` is; a few Newton steps towards the mode make the tangent term small.
        Above ``log L`` up to rounding (equal where the sum has one term): callers keep a margin.
        """
        pos, neg = self.pos, self.neg
        if not self.log_concave:
            return None
        T, lo, hi, ok = self._ranges(T)
        k, M = self.k, self.M
        out = np.full(T.shape, -np.inf)
        if ok.any():
            Tv, lo, hi = T[ok], lo[ok], hi[ok]
            # x0: three plain Newton steps from the normal approximation (the bound holds for any
            # x0 in [lo, hi]; near the mode it is tight), without _mode's brackets and checks
            mu1, v1 = _count_moments(pos, Tv)
            mu2, v2 = _count_moments(neg, M - Tv)
            x0 = np.clip(mu1 + v1 / np.maximum(v1 + v2, 1e-300) * (k - mu1 - mu2), lo, hi)
            off = self._offsets(Tv)
            for _ in range(3):
                d1, d2 = self._derivatives(x0, Tv, off)
                with np.errstate(divide="ignore", invalid="ignore"):
                    nx = x0 - d1 / d2
                x0 = np.where(np.isfinite(nx) & (d2 < 0), np.clip(nx, lo, hi), x0)
            f = self._summand(x0, Tv)
            d1, _ = self._derivatives(x0, Tv, off)
            rise = np.maximum(np.maximum(d1 * (hi - x0), d1 * (lo - x0)), 0.0)
            out[ok] = f + rise + np.log(hi - lo + 1.0)
        return out

    def _windowed(self, T, lo, hi):
        mode, curv = self._mode(T, lo, hi)
        const = self._const(T)
        sigma = np.where(curv < 0, 1.0 / np.sqrt(np.maximum(-curv, 1e-300)), hi - lo)
        half = 10.0 * sigma + 20.0
        wlo = np.maximum(lo, np.floor(mode - half))
        whi = np.minimum(hi, np.ceil(mode + half))
        n = T.size
        # the edges of the first widening (by 1.6, below) with the first ones: one call instead
        # of two where a tail is heavier than a normal one's (the same edges)
        wide = half * 1.6
        wlo2 = np.maximum(lo, np.floor(mode - wide))
        whi2 = np.minimum(hi, np.ceil(mode + wide))
        vals = self._summand(np.concatenate((mode, wlo, whi, wlo2, whi2)),
                             np.concatenate((T, T, T, T, T)),
                             np.concatenate((const, const, const, const, const)))
        # the sum is about peak * sigma * 2.5: terms below that by TAIL_LOG are negligible
        level = vals[:n] + np.log(np.maximum(sigma, 1.0)) - TAIL_LOG
        f_lo, f_hi = vals[n:2 * n], vals[2 * n:3 * n]
        # make sure the window's edges are far below the sum (non-Gaussian tails)
        for step in range(8):
            el = (wlo > lo) & (f_lo > level)
            eh = (whi < hi) & (f_hi > level)
            if not (el.any() or eh.any()):
                break
            half = np.where(el | eh, half * 1.6, half)
            wlo = np.where(el, np.maximum(lo, np.floor(mode - half)), wlo)
            whi = np.where(eh, np.minimum(hi, np.ceil(mode + half)), whi)
            if step == 0:
                # every edge moved here is a first widening's: evaluated above
                f_lo = np.where(el, vals[3 * n:4 * n], f_lo)
                f_hi = np.where(eh, vals[4 * n:], f_hi)
                continue
            redo = np.flatnonzero(el | eh)
            new = self._summand(np.concatenate((wlo[redo], whi[redo])),
                                np.concatenate((T[redo], T[redo])),
                                np.concatenate((const[redo], const[redo])))
            f_lo[redo], f_hi[redo] = new[:redo.size], new[redo.size:]
        out = np.empty(n)
        small_lo, small_hi = f_lo < level, f_hi < level
        # quadrature only where the summand is smooth (sigma >= 8) and negligible at both ends
        interior = small_lo & small_hi & (sigma >= 8.0)
        if interior.any():
            i = np.flatnonzero(interior)
            out[i] = self._quadrature(T[i], wlo[i], whi[i], const[i])
        # a very smooth summand cut off by the range of x (not negligible at that end): the terms
        # next to the cut one by one, the rest by quadrature with Euler-Maclaurin end corrections
        cut = (~interior & (sigma >= 200.0) & (small_lo | (wlo == lo))
               & (small_hi | (whi == hi)))
        if cut.any():
            out[cut] = self._euler_maclaurin(T[cut], wlo[cut], whi[cut], const[cut],
                                             ~small_lo[cut], ~small_hi[cut])
        rest = ~(interior | cut)
        if rest.any():
            out[rest] = self._full_sum(T[rest], wlo[rest], whi[rest])
        return out

    def _quadrature(self, T, a, b, const):
        """Log of the integral of the summand over [a, b] (Gauss-Legendre, 96 nodes)."""
        mid, rad = 0.5 * (a + b), 0.5 * (b - a)
        out = np.empty(T.shape)
        for sl in _row_chunks(T.size, _GL_NODES.size * self._c.size):
            x = mid[sl, None] + rad[sl, None] * _GL_NODES[None, :]
            vals = self._summand(x, T[sl], const[sl])
            out[sl] = _logsumexp_rows(vals + _LOG_GL_WEIGHTS[None, :])
        return out + np.log(rad)

    def _euler_maclaurin(self, T, a, b, const, cut_lo, cut_hi):
        """Log of ``sum_{x=a..b} f(x)`` for a smooth summand cut off by the range of x.

        ``cut_lo`` / ``cut_hi`` say where the summand is not negligible at ``a`` / ``b`` (the
        end of the range of x).  Next to such an end the summand's continuation has log-gamma
        singularities one unit beyond the range (``log Γ(y + 1)`` at ``y = -1``), so its
        derivatives there are of order one whatever its scale sigma: the ``_EM_EXACT`` terms next
        to a cut end are summed one by one.  The rest, from ``a'`` to ``b'``, is the integral plus
        the Euler-Maclaurin corrections ``(f(a') + f(b')) / 2 + (f'(b') - f'(a')) / 12 -
        (f'''(b') - f'''(a')) / 720``.  The next term, ``(f^(5)(b') - f^(5)(a')) / 30240``,
        has ``|f^(5)| <~ 24 f / s^5`` with ``s = min(sigma, _EM_EXACT + 1) >= 129``: below 1e-14
        of the largest term.
        """
        n = T.size
        depth = float(_EM_EXACT)
        a2 = np.where(cut_lo, a + depth, a)
        b2 = np.where(cut_hi, b - depth, b)
        parts = [self._quadrature(T, a2, b2, const)]
        x = np.concatenate((a2, b2))
        Tx = np.concatenate((T, T))
        args = self._args(x, Tx)
        f = self._summand(x, Tx, np.concatenate((const, const)))
        d1 = _combine(self._cs, special.digamma(args)) + self._slope
        d2 = _combine(self._c, _trigamma(args))
        d3 = _combine(self._cs, special.polygamma(2, args))
        # f' / f and f''' / f from the derivatives of log f
        g1 = d1
        g3 = d3 + 3.0 * d1 * d2 + d1 ** 3
        with np.errstate(divide="ignore"):
            parts.append(f[:n] + np.log(np.maximum(0.5 - g1[:n] / 12.0 + g3[:n] / 720.0, 0.0)))
            parts.append(f[n:] + np.log(np.maximum(0.5 + g1[n:] / 12.0 - g3[n:] / 720.0, 0.0)))
        offs = np.arange(_EM_EXACT, dtype=float)
        for cut, start, sign in ((cut_lo, a, 1.0), (cut_hi, b, -1.0)):
            part = np.full(n, -np.inf)
            i = np.flatnonzero(cut)
            for sl in _row_chunks(i.size, offs.size * self._c.size):
                j = i[sl]
                xs = start[j, None] + sign * offs[None, :]
                part[j] = _logsumexp_rows(self._summand(xs, T[j], const[j]))
            parts.append(part)
        return _logsumexp_rows(np.stack(parts, axis=1))


def _material_kinks(lik: _MetricLikelihood, lo: int, hi: int,
                    known: dict | None = None) -> tuple[float, ...]:
    """The points T = k and T = M - k where log L(T) changes its analytic form, when they matter.

    At T = k the sum over x gains its top term x = T (every adequate output accepted), at
    T = M - k its bottom term (every inadequate output accepted).  Where that end term is below
    the sum by TAIL_LOG it cannot bend log L: the kink is immaterial and no panel edge is needed.
    ``known`` maps points to log L where it has been computed already.
    """
    k, M = lik.k, lik.M
    cand = [(t, x) for t, x in ((float(k), float(k)), (float(M - k), 0.0)) if lo < t < hi + 1]
    if not cand:
        return ()
    t = np.array([c[0] for c in cand])
    end = lik.summand(np.array([c[1] for c in cand]), t)
    known = known or {}
    total = (np.array([known[v] for v in t.tolist()]) if all(v in known for v in t.tolist())
             else lik(t))
    return tuple(float(v) for v, e, s in zip(t, end, total, strict=True)
                 if not (e < s - TAIL_LOG))


def _log_weight_fn(A: float, B: float, M: int, lik: _MetricLikelihood | None):
    """``log w(T) = log C(M, T) + log B(A + T, B + M - T) + log L(T)``.

    Without ``lik``, the first two terms only.
    """
    def logw(T):
        T = np.asarray(T, dtype=float)
        base = _lchoose(M, T) + special.betaln(A + T, B + M - T)
        return base if lik is None else base + lik(T)
    return logw


def _guess(A: float, B: float, k: int, M: int, pos: RateDistribution,
           neg: RateDistribution) -> tuple[float, float]:
    """Where the component weights peak and how wide they are, roughly (normal approximations).

    ``alpha`` from the human ratings (``Beta(A, B)``) and from the metric (``k / M = alpha rho +
    (1 - alpha) (1 - eta)``, by the delta method), combined by precision.  Only a starting point
    for :func:`_locate`, which does not rely on it.
    """
    p1 = pos.mean
    p2 = neg.mean
    v1 = 0.0 if pos.known is not None else p1 * (1.0 - p1) / (pos.a + pos.b + 1.0)
    v2 = 0.0 if neg.known is not None else p2 * (1.0 - p2) / (neg.a + neg.b + 1.0)
    q = k / M
    ah = A / (A + B)
    vh = A * B / ((A + B) ** 2 * (A + B + 1.0))
    delta = p1 - p2
    if abs(delta) > 1e-3:
        am = (q - p2) / delta
        vm = (q * (1.0 - q) / M + am * am * v1 + (1.0 - am) ** 2 * v2) / (delta * delta)
        v = 1.0 / (1.0 / vh + 1.0 / max(vm, 1e-300))
        a = min(max(v * (ah / vh + am / max(vm, 1e-300)), 0.0), 1.0)
    else:
        a, v = ah, vh
    return M * a, M * math.sqrt(v) + math.sqrt(M * a * (1.0 - a)) + 1.0


class _Looks:
    """The points of ``0..M`` where ``logw`` has been evaluated (sorted), and its values there."""

    def __init__(self, logw, M: int):
        self.logw, self.M = logw, M
        self.pts = np.zeros(0, dtype=np.int64)
        self.vals = np.zeros(0)

    def add(self, points) -> None:
        new = np.setdiff1d(np.clip(np.round(points), 0, self.M).astype(np.int64), self.pts)
        if new.size:
            v = self.logw(new)
            pts = np.concatenate([self.pts, new])
            vals = np.concatenate([self.vals, np.where(np.isnan(v), -np.inf, v)])
            order = np.argsort(pts)
            self.pts, self.vals = pts[order], vals[order]

    def best(self) -> tuple[int, float, float]:
        """Index of the largest value, the width of its bracket, and the scale near it."""
        pts, vals = self.pts, self.vals
        i = int(np.argmax(vals))
        width = float(pts[min(i + 1, pts.size - 1)] - pts[max(i - 1, 0)])
        near = (vals > vals[i] - 8.0) & (pts != pts[i])
        sigma = 0.0
        if near.any():
            d = (pts[near] - pts[i]).astype(float)
            sigma = float(np.sqrt(np.mean(d * d / (2.0 * np.maximum(vals[i] - vals[near],
                                                                    1e-3)))))
        return i, width, sigma


# the first look around the guess: dense near it (a bracket of the maximum within the weights'
# scale at once, when the guess is good: the narrowing below then needs no second look, and one
# evaluation of log L costs far more than a few more points in it), sparse beyond, as far as 12
# scales (where a normal-like log weight is 72 below its peak: then the look holds a point below
# the window's level on each side, and the window's bounds need no probes of their own)
_FIRST_LOOK = np.r_[-12.0, -11.0, -10.0, -9.0, -8.0, -6.0, -4.0, -3.0, np.arange(-2.0, 2.01, 0.25),
                    3.0, 4.0, 6.0, 8.0, 9.0, 10.0, 11.0, 12.0]


def _locate(logw, M: int, centre: float, scale: float,
            extra=()) -> tuple[int, int, float, dict]:
    """The window of components that matter, and the peak log weight.

    Returns ``(t_lo, t_hi, peak, seen)``: outside ``[t_lo, t_hi]`` of ``0..M`` the unimodal
    ``logw`` is below its peak by more than TAIL_LOG.  The first look is around the guess
    ``centre`` (spread ``scale``), extended as far as 0 or M when its largest value is at its
    edge, so the largest value seen always has the maximum between its neighbours; that bracket
    is narrowed until it is within the weights' scale (the largest value is then within 1/8 of
    the peak).  ``peak`` is the largest value seen, never above the true peak, so the level
    ``peak - TAIL_LOG`` and the window can only err on the wide side; beyond the first point on
    each side below the level, unimodality keeps every value below it.  The points ``extra``
    within 30 scales of the guess are evaluated with the first look, the others within 30 of the
    weights' scales of the largest value with the window's first probes; ``seen`` maps every
    evaluated point to ``logw``.
    """
    looks = _Looks(logw, M)
    extra = np.asarray(extra, dtype=float)
    looks.add(np.concatenate((centre + scale * _FIRST_LOOK,
                              extra[np.abs(extra - centre) < 30.0 * scale])))
    # the largest value at the edge of the first look: look further out, as far as 0 or M
    i = int(np.argmax(looks.vals))
    further = scale * 8.0 * 2.0 ** np.arange(1, 40)
    out = []
    if i == 0 and looks.pts[0] > 0:
        out.append(looks.pts[0] - further)
    if i == looks.pts.size - 1 and looks.pts[-1] < M:
        out.append(looks.pts[-1] + further)
    if out:
        looks.add(np.concatenate(out))
    for _ in range(60):
        i, width, sigma = looks.best()
        if width <= max(2.0, sigma) or not np.isfinite(looks.vals[i]):
            break
        a = looks.pts[max(i - 1, 0)]
        before = looks.pts.size
        looks.add(np.linspace(a, a + width, 10)[1:-1])
        if looks.pts.size == before:
            break
    i, width, sigma = looks.best()
    tstar, peak = int(looks.pts[i]), float(looks.vals[i])
    if sigma <= 0.0:
        sigma = max(width, 1.0)
    t_lo, t_hi = _window_bounds(looks, tstar, sigma, peak - TAIL_LOG, extra)
    return t_lo, t_hi, peak, dict(zip(looks.pts.tolist(), looks.vals.tolist(), strict=True))


def _window_bounds(looks: _Looks, tstar: int, sigma: float, level: float,
                   extra: np.ndarray) -> tuple[int, int]:
    """The nearest points on each side of ``tstar`` below ``level``, or 0 and M.

    Where the points seen already hold one below ``level`` on each side (and every point of
    ``extra`` within 30 ``sigma``), the nearest of them.  Else probes at multiples of ``sigma``
    (8 to 30, then 45 to 1000) on the sides not settled yet; a side whose probes reach 0 or M
    ends there.  The points ``extra`` within 30 ``sigma`` are evaluated with the first probes.
    """
    M = looks.M
    bounds: list[int | None] = [None, None]
    extra = extra[np.abs(extra - tstar) < 30.0 * sigma]
    below = looks.vals < level
    left = looks.pts[below & (looks.pts < tstar)]
    right = looks.pts[below & (looks.pts > tstar)]
    if (left.size and right.size
            and np.isin(np.clip(np.round(extra), 0, M).astype(np.int64), looks.pts).all()):
        return int(left.max()), int(right.min())
    for far in (np.array([8.0, 10.0, 12.0, 15.0, 20.0, 30.0]),
                np.array([45.0, 70.0, 100.0, 150.0, 250.0, 400.0, 700.0, 1000.0])):
        sides = [sign for side, sign in ((0, -1.0), (1, 1.0)) if bounds[side] is None]
        if not sides:
            break
        looks.add(np.concatenate([tstar + sign * sigma * far for sign in sides] + [extra]))
        extra = extra[:0]
        below = looks.vals < level
        left = looks.pts[below & (looks.pts < tstar)]
        right = looks.pts[below & (looks.pts > tstar)]
        if left.size:
            bounds[0] = int(left.max())
        elif tstar - sigma * far[-1] <= 0:
            bounds[0] = 0
        if right.size:
            bounds[1] = int(right.min())
        elif tstar + sigma * far[-1] >= M:
            bounds[1] = M
    return (0 if bounds[0] is None else bounds[0], M if bounds[1] is None else bounds[1])


def _scan_points(M: int, t_lo: int, t_hi: int) -> np.ndarray:
    """Points of ``0..M`` outside ``[t_lo, t_hi]`` that a second mode cannot slip between.

    65 evenly spaced points and, towards both ends, points at doubling distances (1, 2, 4, ...
    up to M / 64) with the ends themselves: a mode pressed against an end can be a few components
    wide.
    """
    near = np.round(np.geomspace(1.0, max(M / 64.0, 1.0), max(int(math.log2(max(M, 2))) - 4, 2)))
    pts = np.unique(np.concatenate([np.round(np.linspace(0.0, M, 65)), [0.0, float(M)], near,
                                    M - near]))
    return pts[(pts < t_lo) | (pts > t_hi)]


def _all_modes(logw, M: int, t_lo: int, t_hi: int, peak: float,
               seen: dict, bound=None, finer=None) -> tuple[list[tuple[int, int]], float, dict]:
    """The windows of every material mode of ``logw`` (one look over ``0..M``).

    With known rates ``log w`` is concave in ``alpha`` and :func:`_locate` finds its one mode.
    With estimated rates it need not be unimodal: when the paired rows and the metric disagree
    (a metric that accepted nearly everything although the paired rows say it rejects most
    inadequate outputs), the posterior piles up near ``alpha = 0`` and near ``alpha = 1``, and
    the mode nearer the normal-approximation guess can be the smaller one by hundreds of log
    units.  Points of :func:`_scan_points` above ``peak - TAIL_LOG`` start a search of their
    own.  Returns the windows of the modes within TAIL_LOG of the highest (sorted, overlapping
    ones merged), the highest peak and every evaluated point.

    ``bound``, an upper bound of ``logw`` that is cheap to evaluate (the weight without its
    likelihood factor ``L(T) <= 1``), spares the likelihood at the points where the bound is
    already below the level (by one log unit, far above its rounding): those cannot be above it.
    With many human ratings that is nearly every scan point.  ``finer``, a tighter upper bound
    of ``logw`` (the base term plus :meth:`_MetricLikelihood.log_bound`, a few array calls
    instead of a quadrature per point), then spares the likelihood at the points it puts below
    the level the same way; it may return None (no bound known).
    """
    pts = _scan_points(M, t_lo, t_hi)
    if not pts.size:
        return [(t_lo, t_hi)], peak, seen
    vals = np.full(pts.size, -np.inf)
    look = np.ones(pts.size, dtype=bool)
    if bound is not None:
        with np.errstate(invalid="ignore"):
            look = ~(np.asarray(bound(pts), dtype=float) < peak - TAIL_LOG - 1.0)
    if finer is not None and look.any():
        tight = finer(pts[look])
        if tight is not None:
            with np.errstate(invalid="ignore"):
                look[look] = ~(np.asarray(tight, dtype=float) < peak - TAIL_LOG - 1.0)
    seen = dict(seen)
    if look.any():
        v = np.asarray(logw(pts[look]), dtype=float)
        vals[look] = np.where(np.isnan(v), -np.inf, v)
        # only values computed in full are seen (the bound is no value of logw)
        seen.update(zip(pts[look].astype(np.int64).tolist(), vals[look].tolist(), strict=True))
    if not np.any(vals > peak - TAIL_LOG):
        return [(t_lo, t_hi)], peak, seen
    windows = [(t_lo, t_hi, peak)]
    order = np.argsort(pts)
    pts, vals = pts[order], vals[order]
    # each run of scan points above the level, between points below it, holds one mode at least
    # (a run may straddle the first window: it then adds nothing new)
    level = peak - TAIL_LOG
    above = vals > level
    start = None
    runs = []
    for i, flag in enumerate(above.tolist() + [False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            runs.append((start, i - 1))
            start = None
    for a, b in runs:
        i = a + int(np.argmax(vals[a:b + 1]))
        gap = float(max(pts[min(i + 1, pts.size - 1)] - pts[i], pts[i] - pts[max(i - 1, 0)], 2.0))
        lo, hi, pk, more = _locate(logw, M, float(pts[i]), gap / 8.0)
        windows.append((lo, hi, pk))
        seen.update(more)
    top = max(pk for _, _, pk in windows)
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted((lo, hi) for lo, hi, pk in windows if pk > top - TAIL_LOG):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged, top, seen


_SMOOTH_FROM = 30000  # windows of more components use the smooth representation
# windows of more components whose ends are too sharp to be smooth are split into pieces (below,
# materialising them costs a few hundredths of a second)
_SPLIT_FROM = 300_000
_END_PIECE = 200_000  # a window's sharp end held materialised while the rest is smooth
_END_MIN = 20_000  # ... at least this many components of it
_PANEL_MIN = 400  # narrower panels are evaluated at every integer
# the panel's ends too: where the weights rise steeply towards an end (a mode pressed against 0
# or M), the nodes nearest to it can sit below the weights that matter
_CHEB_CHECK = np.array([-1.0, -0.97, -0.71, -0.33, 0.05, 0.41, 0.77, 0.99, 1.0])
def _chebyshev_panels(fn: _MetricLikelihood, lo: int, hi: int, base, peak: float,
                      tol: float = 1e-12,
                      kink_points=None) -> list[tuple[float, float, np.ndarray | None]]:
    """Adaptive piecewise Chebyshev interpolation of ``fn`` (log L) on the integers of [lo, hi].

    ``base(T) + fn(T)`` is the log weight of component T and ``peak`` its maximum.  Panels of
    degree-24 interpolants are halved until twice the largest error of ``fn`` at its check
    points (the ends included: nine in a first panel, the parent's nodes and checks inside a
    halved one, where ``fn`` is known already), times the largest relative weight ``exp(log w -
    peak)`` at its nodes and checks or the panel's share of the total weight if larger, is below
    ``tol``;
    panels narrower than ``_PANEL_MIN`` are left to direct evaluation.  The window
    starts as two panels (one when narrow), plus edges at the material kinks.  Returns
    ``(a, b, coef)`` per panel, ``coef`` the Chebyshev coefficients in ``(T - mid) / rad`` or
    None for a directly evaluated panel; the panels cover ``[lo, hi + 1)``.
    """
    # log L(T) has kinks where the summation range changes shape (T = k and T = M - k): make them
    # panel edges so that every panel holds an analytic piece (a narrow panel beside a kink near
    # the window's end is evaluated directly; inside a panel a kink can slip between the checks)
    kinks = [float(t) for t in (kink_points or ()) if lo < t < hi + 1]
    start = np.linspace(lo, hi + 1, 3 if hi + 1 - lo > 2 * _PANEL_MIN else 2)
    edges = np.unique(np.concatenate([start, kinks]))
    # a panel to do, with the points where fn is known in it (a halved panel's checks: None for
    # the first panels, which take the nine of _CHEB_CHECK)
    todo: list = [(a, b, None) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    panels: list[tuple[float, float, np.ndarray | None]] = []
    # rounding noise of log L (sums of large log-gamma terms) sets the attainable tolerance:
    # estimate it from fourth differences at consecutive integers, where the smooth part is nil
    # (evaluated with the first panels' nodes), in the middle of the widest piece between kinks
    # (near a kink the fourth differences are the kink's, not noise)
    pieces = np.array([lo, *sorted(kinks), hi + 1], dtype=float)
    widest = int(np.argmax(np.diff(pieces)))
    probe = np.round(0.5 * (pieces[widest] + pieces[widest + 1])) + np.arange(-8.0, 9.0)
    noise = None
    total, accepted = 1.0, 0.0   # the weights' total relative to the peak: at least 1
    while todo:
        panels.extend((a, b, None) for a, b, _ in todo if b - a <= _PANEL_MIN)
        todo = [p for p in todo if p[1] - p[0] > _PANEL_MIN]
        if not todo:
            break
        mids = np.array([0.5 * (a + b) for a, b, _ in todo])
        rads = np.array([0.5 * (b - a) for a, b, _ in todo])
        # integer nodes (rounded Chebyshev points) keep the summands on the integer lattice
        # (inside the component range: the last panel's right edge is hi + 1, beyond M at M)
        top = min(hi + 1, fn.M)
        xn = np.clip(np.round(mids[:, None] + rads[:, None] * CHEB_NODES[None, :]), lo, top)
        fresh = [i for i, p in enumerate(todo) if p[2] is None]
        xf = np.clip(np.round(mids[fresh, None] + rads[fresh, None] * _CHEB_CHECK[None, :]),
                     lo, top)
        vals = fn(np.concatenate([xn.ravel(), xf.ravel()] + ([probe] if noise is None else [])))
        if noise is None:
            pv = vals[-probe.size:]
            fourth = np.diff(pv, 4) if np.all(np.isfinite(pv)) else np.zeros(1)
            noise = float(np.std(fourth)) / math.sqrt(70.0)
            tol = max(tol, 30.0 * noise)
        vn = vals[:xn.size].reshape(len(todo), -1)
        lwn = base(xn.ravel()).reshape(xn.shape) + vn
        # each panel's checks: the nine of _CHEB_CHECK, or a halved panel's parent's nodes and
        # checks inside it (its two ends among them: the parent's end and its middle node)
        checks = [p[2] for p in todo]
        if fresh:
            vf = vals[xn.size:xn.size + xf.size].reshape(len(fresh), -1)
            lwf = base(xf.ravel()).reshape(xf.shape) + vf
            for j, i in enumerate(fresh):
                checks[i] = (xf[j], vf[j], lwf[j])
        width = max(c[0].size for c in checks)
        # (padded by repeating the first check: the largest error is the same)
        xc, vc, lwc = (_padded([c[n] for c in checks], width) for n in range(3))
        un = (xn - mids[:, None]) / rads[:, None]
        uc = (xc - mids[:, None]) / rads[:, None]
        finite = np.all(np.isfinite(vn), axis=1) & np.all(np.isfinite(vc), axis=1)
        coefs = _cheb_interpolate(un, np.where(finite[:, None], vn, 0.0))
        approx = np.polynomial.chebyshev.chebval(uc.T, coefs.T, tensor=False).T
        # the error of log L is spread over the whole panel (it oscillates between the nodes):
        # bound the weights' error by the largest error at the check points times the largest
        # weight seen in the panel (nodes and checks), with a factor 2 for the error between
        # the checks
        # -- and, where a long panel holds many small weights (a heavy tail), by the error of its
        # whole mass (mean weight at the nodes times the width) relative to the total mass, of
        # which the peak component is a lower bound: each tail weight may be far below the peak
        # while together they are not
        with np.errstate(invalid="ignore", over="ignore"):
            wn = np.exp(lwn - peak)
            wmax = np.maximum(np.maximum.reduce(wn, axis=1),
                              np.maximum.reduce(np.exp(lwc - peak), axis=1))
            part = np.mean(wn, axis=1) * 2.0 * rads
            total = max(total, float(np.nansum(part)) + accepted)
            err = (2.0 * np.maximum(wmax, part / total)
                   * np.maximum.reduce(np.abs(approx - vc), axis=1))
        nxt = []
        for i, (a, b, _) in enumerate(todo):
            if finite[i] and err[i] < tol:
                panels.append((a, b, coefs[i]))
                accepted += float(part[i]) if np.isfinite(part[i]) else 0.0
            else:
                m = 0.5 * (a + b)
                known = (np.concatenate((xn[i], checks[i][0])),
                         np.concatenate((vn[i], checks[i][1])),
                         np.concatenate((lwn[i], checks[i][2])))
                for c, d in ((a, m), (m, b)):
                    # the points of the half: the rounded ends and what lies between
                    inside = ((known[0] >= min(max(round(c), lo), top))
                              & (known[0] <= min(max(round(d), lo), top)))
                    nxt.append((c, d, tuple(v[inside] for v in known)))
        todo = nxt
    panels.sort(key=lambda p: p[0])
    return panels


def _padded(rows: list, width: int) -> np.ndarray:
    """1-D ``rows`` as the rows of one ``width``-column array, each padded with its first entry.

    (One array filled in place: a stack of padded copies costs a few array calls per row.)
    """
    out = np.empty((len(rows), width))
    for i, row in enumerate(rows):
        out[i, :row.size] = row
        out[i, row.size:] = row[0]
    return out


def _cheb_interpolate(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Coefficients of the degree-24 Chebyshev interpolants through ``(u[i], v[i])`` (rows).

    The nodes are rounded Chebyshev points, distinct in panels wider than ``_PANEL_MIN``: the
    barycentric formula gives each interpolant at the exact Chebyshev points, whose coefficients
    are a fixed linear map of those values (no linear solve, hence no BLAS threads, which spin on
    a busy machine).  A panel whose rounded nodes coincide gets the least-squares fit instead.
    """
    n = u.shape[1]
    diff = u[:, :, None] - u[:, None, :]
    diff[:, np.arange(n), np.arange(n)] = 1.0
    if np.any(diff == 0.0):
        V = np.polynomial.chebyshev.chebvander(u, CHEB_DEGREE)
        return np.stack([np.linalg.lstsq(V[i], v[i], rcond=None)[0] for i in range(v.shape[0])])
    bary = 1.0 / np.prod(diff, axis=2)
    gap = CHEB_NODES[None, :, None] - u[:, None, :]
    hit = gap == 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        kern = bary[:, None, :] / gap
        vals = np.add.reduce(kern * v[:, None, :], axis=2) / np.add.reduce(kern, axis=2)
    if hit.any():
        rows, cols, nodes = np.nonzero(hit)
        vals[rows, cols] = v[rows, nodes]
    return chebyshev_coefficients(vals)


def _chebyshev_fill(fn, lo: int, hi: int, base, peak: float, tol: float = 1e-12,
                    kink_points=None) -> np.ndarray:
    """``fn`` at every integer in [lo, hi], from :func:`_chebyshev_panels`."""
    ints = np.arange(lo, hi + 1, dtype=float)
    if hi - lo < _FULL_T:
        return fn(ints)
    out = np.empty(ints.size)
    for a, b, cheb in _chebyshev_panels(fn, lo, hi, base, peak, tol, kink_points):
        # ints are lo, lo + 1, ...: the panel [a, b) is a slice of them
        sel = slice(max(int(math.ceil(a)) - lo, 0), max(int(math.ceil(b)) - lo, 0))
        if cheb is None:
            out[sel] = fn(ints[sel])
        else:
            mid, rad = 0.5 * (a + b), 0.5 * (b - a)
            out[sel] = np.polynomial.chebyshev.chebval((ints[sel] - mid) / rad, cheb)
    return out


def _smooth_mixture(A: float, B: float, M: int, lik, t_lo: int, t_hi: int, peak: float,
                    kinks) -> tuple[SmoothMixture | None, list]:
    """The mixture through its smooth weight function (None where it is not smooth enough).

    Returns it with the panels of ``log L`` (a panel without coefficients is not smooth).

    ``log w(t) = log C(M, t) + log B(A + t, B + M - t) + log L(t)``: the first two terms in
    closed form for real ``t`` (changes of log-gamma ratios with fixed offsets from ``t_ref``,
    :func:`_base_change`: within ``8 eps`` of the change's size), ``log L`` from its piecewise
    Chebyshev panels.  Used when the window holds more than ``_SMOOTH_FROM`` components.
    """
    base_int = lambda t: _lchoose(M, t) + special.betaln(A + t, B + M - t)  # noqa: E731
    panels = _chebyshev_panels(lik, t_lo, t_hi, base_int, peak, kink_points=kinks)
    if any(cheb is None for _, _, cheb in panels):
        return None, panels
    edges = np.array([a for a, _, _ in panels] + [panels[-1][1]])
    rad = 0.5 * (edges[1:] - edges[:-1])
    # each panel's series is in (T - mid) / rad: exactly the local variable of PiecewiseChebyshev
    log_l = PiecewiseChebyshev(edges, np.stack([cheb for _, _, cheb in panels]))
    t_ref = float(round(0.5 * (t_lo + t_hi)))

    def log_base(t: np.ndarray) -> np.ndarray:
        # relative to t_ref, so that many human ratings (large A, B) add no rounding noise
        return _base_change(A, B, M, t, t_ref)

    # the weights relative to the largest seen by _locate (within 1/8 of their maximum)
    ref = peak - float(base_int(np.array([t_ref]))[0])
    U = t_hi - t_lo

    def weight(u: np.ndarray) -> np.ndarray:
        t = t_lo + np.clip(u, 0.0, U)
        return np.exp(log_base(t) + log_l(t) - ref)

    assert rad.min() > 0
    smooth = SmoothMixture(A + t_lo, A + B + M, U, weight, edges - t_lo,
                           kinks=[t - t_lo for t in kinks])
    # sum_t exp(log C(M, t) B(A + t, B + M - t) - (the same at t_ref) + log L(t)) = z exp(ref)
    smooth.ref_point = (t_ref, ref)
    return smooth, panels


def _base_change(A: float, B: float, M: int, t, t_ref: float):
    """``log C(M, t) B(A + t, B + M - t)`` minus the same at ``t_ref``, without cancellation.

    (Each term alone is a difference of log-gamma values as large as ``M log M``, whose rounding
    would be 1e-8 at 10^6 ratings.)  The sum of two changes of :func:`log_gamma_ratio_shift`
    (offsets ``A - 1`` and ``B - 1``, shifts ``t - t_ref`` and ``t_ref - t``), each within
    ``8 eps |change| + 1e-15`` of its exact value at the given ``t`` (measured against 40-digit
    log-gamma functions for offsets up to ``10^8`` and shifts up to ``10^6``: within 6 eps).
    """
    # through the shift t - t_ref (exact for t within a factor two of t_ref): M - t rounds to
    # eps M, which at a real t of a quadrature moved the second change by 2e-10
    s = np.asarray(t, dtype=float) - t_ref
    return (log_gamma_ratio_shift(t_ref + 1.0, s, A - 1.0)
            + log_gamma_ratio_shift(M - t_ref + 1.0, -s, B - 1.0))


def _validate_counts(**counts) -> dict[str, int]:
    out = {name: _validate.count(value, name) for name, value in counts.items()}
    for pos, tot in (("human_pos", "human_total"), ("metric_pos", "metric_total")):
        if pos in out and out[pos] > out[tot]:
            raise CountsError(f"{pos}={out[pos]} exceeds {tot}={out[tot]}: positives cannot "
                              "outnumber ratings")
    return out


def _check_prior(value, name: str, bound: float) -> tuple[float, float]:
    """A Beta pair no larger than the engine carries (see :data:`MAX_PRIOR`)."""
    a, b = _validate.beta_pair(value, name)
    if max(a, b) > bound:
        fix = ("a rate known that well is a known rate: pass rho= and eta= instead"
               if name == "rate_prior" else
               f"scale it down (e.g. prior=({a / max(a, b) * bound:.3g}, "
               f"{b / max(a, b) * bound:.3g}) keeps its mean and still outweighs the data)")
        raise ParameterError(
            f"{name}={value!r}: each parameter must be at most {bound:.0e}".replace("e+0", "e")
            + f"; beyond it the posterior's rounding exceeds its stated error (its mean within "
            f"1e-9 of its standard deviation); {fix}")
    return a, b


def _check_rate(name: str, value) -> float | None:
    return None if value is None else _validate.probability(value, name)


def _mixture(A: float, B: float, k: int, M: int, pos: RateDistribution,
             neg: RateDistribution):
    """The posterior's components: ``(a, b, weights)`` arrays or a :class:`SmoothMixture`.

    For separate modes, a list of ``(part, log mass)`` with either kind of part, one per mode.
    """
    guess = _guess(A, B, k, M, pos, neg)
    # (the guessed peak: the reference point of the log-gamma pairs' changes)
    lik = _MetricLikelihood(k, M, pos, neg, guess[0])
    logw = _log_weight_fn(A, B, M, lik)
    if M <= _DIRECT_MAX and not (pos.degenerate or neg.degenerate):
        T = np.arange(M + 1, dtype=float)
        lw = _direct_log_weights(A, B, k, M, lik, guess[0])
        # weights in separate piles (paired rows that contradict the metric) are held in parts
        # beyond _DIRECT_ANY ratings (below, one mixture costs little whatever its shape)
        if lw is not None and (M <= _DIRECT_ANY or _one_run(lw)):
            return _normalised(A, B, M, k, T, lw)[:3]
    elif not (pos.degenerate or neg.degenerate):
        # beyond _DIRECT_MAX ratings the convolution over the windows that matter, where they
        # are short enough to be quicker than the smooth representation below
        got = _window_weights(A, B, k, M, lik, guess[0], max_length=_WINDOW_MAX)
        if got is not None and _one_run(got[1]):
            start, lw = got
            return _normalised(A, B, M, k, start + np.arange(lw.size, dtype=float), lw)[:3]
    if M + 1 <= _FULL_T:
        T = np.arange(M + 1, dtype=float)
        # log C(M, T) + log B(A + T, B + M - T) by its ratio recursion, summed from the largest
        # weight (the absolute values carry eps (A + B) log(A + B) of rounding: 1e-9 at
        # A + B = 10^6)
        logL = lik(T)
        return _normalised(A, B, M, k, T, _peak_steps(A, B, M, T, logL)[0] + logL)[:3]
    # the kinks of log L are evaluated with the window's last probes
    t_lo, t_hi, peak, seen = _locate(logw, M, *guess, extra=(k, M - k))
    parts = [(t_lo, t_hi)]
    base = _log_weight_fn(A, B, M, None)
    if pos.known is None or neg.known is None:
        def finer(t):
            up = lik.log_bound(t)
            return None if up is None else base(t) + up

        parts, peak, seen = _all_modes(logw, M, t_lo, t_hi, peak, seen, bound=base,
                                       finer=finer)
        t_lo, t_hi = parts[0][0], parts[-1][1]
    known = {t: v - float(base(np.array([t]))[0]) for t, v in seen.items() if t in (k, M - k)}
    if len(parts) > 1:
        return [p for lo, hi in parts for p in _one_part(A, B, M, k, lik, base, lo, hi, peak,
                                                           known, t_c=parts[0][0])]
    pieces = _one_part(A, B, M, k, lik, base, t_lo, t_hi, peak, known)
    return pieces[0][0] if len(pieces) == 1 else pieces


def _one_run(lw: np.ndarray) -> bool:
    """Whether the weights within TAIL_LOG of the largest are one run of consecutive T."""
    above = np.flatnonzero(lw > np.max(lw) - TAIL_LOG)
    return bool(above.size and above[-1] - above[0] + 1 == above.size)


def _direct_log_weights(A: float, B: float, k: int, M: int, lik: _MetricLikelihood,
                        centre: float) -> np.ndarray | None:
    """``log w(T)`` for every ``T = 0..M`` as one convolution, or None where it cannot be trusted.

    The summand of ``L(T)`` factors as ``row[T] + first[x] + second[T - x]``
    (:meth:`_MetricLikelihood._int_tables`), so ``sum_x exp(first[x] + second[T - x])`` for all
    ``T`` at once is the convolution of ``p = exp(first)`` (over ``x = 0..k``) with
    ``q = exp(second)`` (over ``T - x = 0..M - k``): ``k (M - k)`` multiply-adds in linear space,
    where the windows and quadratures cost far more.  Both sequences are tilted by ``exp(theta
    x)`` (``theta`` the slope of the other factors of ``w`` at the guessed peak, so that the
    convolution peaks where the weights do) and scaled to a largest term of one; every term is
    positive, so each sum has a relative error below ``n eps`` (no cancellation) unless its
    terms underflow.

    A sum below 1e-280 may have lost terms to underflow.  Where ``first`` and ``second`` are
    concave (rate priors of at least one: a log-concave summand), so is the log of the
    convolution, and beyond the last sum above 1e-280 it falls at least as fast as its last step
    there; else it is bounded by ``(k + 1) 1e-280``.  Where the weight such a sum could hide
    comes within TAIL_LOG + 5 of the largest weight, ``log L(T)`` is computed term by term
    instead (log space: no underflow); when that is more than 64 components, the tilt is first
    moved to the largest of them and the convolution redone once (the better of the two is
    kept).  Returns None when no sum is above 1e-280 at all.

    Where the FFT is taken, the windows of :func:`_window_log_weights` are tried first.
    """
    D = M - k
    if (k + 1) * (D + 1) > _FFT_FROM:
        # over the windows that matter when their bounds allow (the tables then cost a part)
        lw = _window_log_weights(A, B, k, M, lik, centre)
        if lw is not None:
            return lw
    row, lp, lq = lik._plain_tables()
    T = np.arange(M + 1, dtype=float)
    # relative to the guessed peak, where the weights need their accuracy (summed from T = 0,
    # the running sums' rounding put 1e-12 between the CDFs at 6 x 10^4 ratings)
    H = _base_steps(A, B, M, T, int(min(max(round(centre), 0), M))) + row
    xs = np.arange(k + 1, dtype=float)
    us = np.arange(D + 1, dtype=float)
    if (k + 1) * (D + 1) > _FFT_FROM:
        # tilted by the slope of H at the guessed peak (the tilted convolution, whose entries
        # are accurate relative to its largest, then peaks where the weights do); if the bound
        # refuses, once more at the peak found
        t0 = int(min(max(round(centre), 1), M - 1))
        for _ in range(2):
            lw, t1 = _fft_log_weights(lp, lq, H, 0.5 * (H[t0 + 1] - H[t0 - 1]),
                                      lik.log_concave)
            if lw is not None:
                return lw
            if t1 < 0 or abs(min(max(t1, 1), M - 1) - t0) < 2:
                break
            t0 = min(max(t1, 1), M - 1)
    if (k + 1) * (D + 1) > _CONV_MAX:
        return None
    floor = 1e-280
    concave = bool(np.all(np.diff(lp, 2) <= 1e-9) and np.all(np.diff(lq, 2) <= 1e-9))
    best = None
    for _ in range(2):
        t0 = int(min(max(round(centre), 1), M - 1)) if M >= 2 else 0
        theta = -0.5 * (H[t0 + 1] - H[t0 - 1]) if M >= 2 else 0.0
        a = lp + theta * xs
        b = lq + theta * us
        ca, cb = float(np.max(a)), float(np.max(b))
        conv = convolve(np.exp(a - ca), np.exp(b - cb))
        shift = H + (ca + cb) - theta * T
        ok = conv >= floor
        if not ok.any():
            return None
        with np.errstate(divide="ignore"):
            logc = np.log(np.where(ok, conv, floor))
        lw = np.where(ok, shift + logc, -np.inf)
        top = float(np.max(lw))
        # the largest log sum an underflowed one could hide
        bound = np.full(T.shape, math.log((min(k, D) + 1) * floor))
        inside = np.flatnonzero(ok)
        lo_i, hi_i = int(inside[0]), int(inside[-1])
        if concave and hi_i - lo_i >= 1 and inside.size == hi_i - lo_i + 1:
            up = logc[hi_i] - logc[hi_i - 1]
            down = logc[lo_i + 1] - logc[lo_i]
            right, left = T > hi_i, T < lo_i
            bound[right] = np.minimum(bound[right], logc[hi_i] + up * (T[right] - hi_i))
            bound[left] = np.minimum(bound[left], logc[lo_i] - down * (lo_i - T[left]))
        hidden = np.where(ok, -np.inf, shift + bound)
        risky = hidden > top - TAIL_LOG - 5.0
        if risky.sum() <= 64 or best is not None:
            break
        best = (lw, risky)
        centre = float(np.argmax(hidden))
    if best is not None and best[1].sum() < risky.sum():
        lw, risky = best
    if risky.any():
        # those few log L(T) term by term (log space, no underflow)
        idx = np.flatnonzero(risky)
        lw[idx] = H[idx] - row[idx] + lik(T[idx])
    return lw


def _fft_convolve(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, float]:
    """The convolution of two non-negative sequences by real FFTs, and its error bound.

    The bound ``16 eps sqrt(log2 n) ||p||_2 ||q||_2`` (``n`` the FFT length) holds for every
    entry; see :func:`_fft_log_weights`.
    """
    from scipy import fft

    size = p.size + q.size - 1
    n = _fft_length(size)
    c = fft.irfft(fft.rfft(p, n) * fft.rfft(q, n), n)[:size]
    delta = 16.0 * np.finfo(float).eps * math.sqrt(math.log2(n)) * math.sqrt(
        _dot(p, p) * _dot(q, q))
    return c, delta


#: FFT lengths are ``m 2^j`` for these ``m``: pocketfft's radix-2 passes are the fastest (10,240
#: points took four fifths of the time of 10,125, the smallest 5-smooth length above 10,001)
_FFT_ODD = (1, 3, 5, 9, 15, 25, 27, 45, 75, 81, 125)


def _fft_length(size: int) -> int:
    """The smallest ``m 2^j >= size`` with ``m`` in :data:`_FFT_ODD`."""
    return min(m << max(0, (size - 1) // m).bit_length() if m < size else m for m in _FFT_ODD)


def _fft_log_weights(lp: np.ndarray, lq: np.ndarray, H: np.ndarray, theta: float,
                     concave: bool = False, trunc: float = 0.0,
                     beyond: tuple | None = None) -> tuple[np.ndarray | None, int]:
    """``log w(T) = H[T] + log sum_x exp(lp[x] + lq[T - x])`` by one FFT, or None.

    Returned with the index of the largest weight seen (-1 if none): a tilt there is the
    better one when the bound refuses the weights.

    The two sequences are tilted by ``exp(theta x)`` and scaled to a largest term of one (``p``
    and ``q``), their convolution ``c`` taken by real FFTs.  Its error in every entry is below

        delta = 16 eps sqrt(log2 n) ||p||_2 ||q||_2

    (``n`` the FFT length; rounding errors of an FFT behave like noise of that size: the
    largest error measured on the engine's designs is about ``2 eps ||p||_2 ||q||_2``, and
    the tests hold the bound against the exact convolution).  Entries below ``4 delta`` are
    noise: they are dropped, and their mass is bounded instead.  Where ``lp`` and ``lq`` are
    concave (rate priors of at least one), ``log c`` is concave too and beyond the last kept
    entry on each side falls at least as fast as the secant from the last entry above
    ``1000 delta`` (its values' errors allowed for), so the dropped mass is a geometric tail;
    else every dropped entry is bounded by ``5 delta``.  (``concave``: known to be, as
    :attr:`_MetricLikelihood.log_concave` tells; else the second differences of ``lp`` and ``lq``
    are checked.)  The weights are returned when the
    total of ``delta exp(shift)`` over the kept entries and of the dropped entries' bounds is
    below :data:`FFT_TOL` of the kept mass (then the CDF is within ``2 FFT_TOL`` of the exact
    mixture's); else None, and the caller convolves exactly.

    For a window of the weights (:func:`_window_log_weights`): ``trunc`` bounds the error that
    leaving out the sequences' entries beyond their windows adds to every entry (relative to
    their largest; added to ``delta``), and ``beyond = (n_left, g_left, n_right, g_right)``
    gives the components beyond the window's ends and the slope of a linear upper bound of
    ``H - theta T`` there (per component outwards): their dropped mass is bounded by a geometric
    sum of the bound of their last kept neighbour's kind.
    """
    xs = np.arange(lp.size, dtype=float)
    us = np.arange(lq.size, dtype=float)
    a = lp + theta * xs
    b = lq + theta * us
    ca, cb = float(np.max(a)), float(np.max(b))
    a -= ca
    b -= cb
    c, delta = _fft_convolve(np.exp(a, out=a), np.exp(b, out=b))
    delta += trunc
    size = c.size
    T = np.arange(size, dtype=float)
    shift = H + (ca + cb) - theta * T
    keep = np.flatnonzero(c >= 4.0 * delta)
    if not keep.size:
        return None, -1
    lo, hi = int(keep[0]), int(keep[-1])
    inside = c[lo:hi + 1]
    lw = np.full(size, -np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        lw[lo:hi + 1] = shift[lo:hi + 1] + np.log(inside)
    peak = int(np.argmax(lw))
    if np.any(inside < 4.0 * delta):
        return None, peak   # a dip into the noise inside: not a shape this bound is for
    top = float(lw[peak])
    rel = np.exp(lw[lo:hi + 1] - top)
    mass = float(np.sum(rel))
    # delta exp(shift - top) = delta exp(lw - top) / c over the kept entries
    rel /= inside
    err = delta * float(np.sum(rel))
    concave = concave or bool(np.all(np.diff(lp, 2) <= 1e-9) and np.all(np.diff(lq, 2) <= 1e-9))
    good = np.flatnonzero(c >= 1000.0 * delta)
    # (the entries beyond each end as slices: the same values as masks, in the same order)
    for side, end, outer in ((1, hi, slice(hi + 1, size)), (-1, lo, slice(0, lo))):
        further = 0 if beyond is None else beyond[2 if side == 1 else 0]
        if outer.stop <= outer.start and not further:
            continue
        ref = (good[-1] if side == 1 else good[0]) if good.size else end
        if ref == end:
            ref = end - side
        slope = math.inf
        if concave and 0 <= ref < size and c[ref] > 2.0 * delta and (ref - end) * side < 0:
            # secant through the true values' extremes: an upper bound of log c beyond the end
            slope = ((math.log(c[end] + delta) - math.log(c[ref] - delta)) / (end - ref))
        falls = side * slope < 0
        if outer.stop > outer.start:
            if falls:
                bound = math.log(c[end] + delta) + slope * (T[outer] - end)
            else:
                bound = np.full(outer.stop - outer.start, math.log(5.0 * delta))
            with np.errstate(over="ignore", under="ignore"):
                err += float(np.sum(np.exp(shift[outer] + bound - top)))
        if further:
            # beyond the window: from its last component outwards, log c falls by the slope
            # (or stays below 5 delta) and H - theta T rises by at most g per component
            edge = size - 1 if side == 1 else 0
            g = beyond[3 if side == 1 else 1]
            if falls:
                start = shift[edge] + math.log(c[end] + delta) + slope * (edge - end) - top
                g += side * slope
            else:
                start = shift[edge] + math.log(5.0 * delta) - top
            err += _geometric(start, g, further)
    if not err <= FFT_TOL * mass:
        return None, peak
    return lw, peak


def _geometric(start: float, g: float, n: int) -> float:
    """``sum_{j=1..n} exp(start + g j)`` (inf where it overflows)."""
    with np.errstate(over="ignore"):
        try:
            if g == 0.0:
                return n * math.exp(start)
            if g < 0.0:
                # exp(start + g) (1 - exp(g n)) / (1 - exp(g))
                return math.exp(start + g) * (-math.expm1(g * n)) / (-math.expm1(g))
            return math.exp(start + g * n) * (-math.expm1(-g * n)) / (-math.expm1(-g))
        except OverflowError:
            return math.inf


#: entries of the tilted sequences this far below their largest are left out of the window's
#: convolution (each below 5e-18 of it; together, by the geometric bound, below 1e-15 and 1e-4 of
#: the FFT's error bound on the designs tested; 60 cost 3 % more of a posterior with its interval
#: at 10^4 metric ratings, and left more windows too wide to be worth it)
_WINDOW_LOG = 40.0


def _lgamma_ratio(z: float, d: float) -> float:
    """``log Γ(z + d) - log Γ(z)`` by math.lgamma (a few units of ``eps z log z``)."""
    return math.lgamma(z + d) - math.lgamma(z)


def _window_of(f, slope, n: int) -> tuple[int, int]:
    """``[lo, hi]`` of ``0..n`` holding where a concave ``f`` is near its largest value.

    Near: within :data:`_WINDOW_LOG`.  ``slope(x) = f(x + 1) - f(x)`` (decreasing); plain
    floats: the largest value by bisection on the slope, each end bracketed from the width that
    the curvature there gives (doubled until ``f`` is below the level) and narrowed to a
    sixteenth of it, the outer end of the bracket taken.  A guide only: the caller checks the
    window with the exact values.
    """
    lo, hi = 0, n
    while lo < hi:      # the first x whose step is not upwards: the largest value
        mid = (lo + hi) // 2
        if slope(mid) > 0.0:
            lo = mid + 1
        else:
            hi = mid
    top = lo
    level = f(top) - _WINDOW_LOG
    bend = slope(top) - slope(top - 1) if 0 < top < n else 0.0
    width = (int(math.sqrt(2.0 * _WINDOW_LOG / -bend)) + 1) if bend < 0.0 else max(n // 8, 1)
    ends = []
    for side in (-1, 1):
        near, step = top, width
        while True:     # a bracket [near, far] (outwards) with f(far) below the level
            far = min(max(top + side * step, 0), n)
            if far == near or f(far) < level:
                break
            near, step = far, 2 * step
        while abs(far - near) > max(8, width // 16):
            mid = (near + far) // 2
            if f(mid) < level:
                far = mid
            else:
                near = mid
        ends.append(far)
    return ends[0], ends[1]


def _tail_mass(v: np.ndarray, at_start: bool) -> float | None:
    """A bound of ``sum exp(v)`` over the entries a concave ``v`` has beyond one of its ends.

    Before ``v[0]`` (``at_start``) or after ``v[-1]``: a geometric tail with the end's own step
    (concave: every step further out falls at least as much), or None when that step does not
    fall outwards.
    """
    if v.size < 2:
        return None
    step = float(v[1] - v[0]) if at_start else float(v[-2] - v[-1])
    if not step > 0.0:
        return None
    return math.exp(float(v[0] if at_start else v[-1])) / math.expm1(step)


def _rises(A: float, B: float, M: int, d1: float, d2: float, S0: int,
           S1: int) -> tuple[float, float] | None:
    """Slopes of linear upper bounds of ``H`` beyond ``[S0, S1]``, per component outwards.

    ``H(T) = G1(T) + G2(T) + const`` with ``G1 = log Γ(T + A) - log Γ(T + 1 + d1)`` and
    ``G2 = log Γ(M - T + B) - log Γ(M - T + 1 + d2)`` (``log C(M, T) B(A + T, B + M - T)`` and
    the tables' row).  Each is ``R(z; e) = log Γ(z + e) - log Γ(z)`` (``e >= 0``: concave in
    ``T``) or its negative (convex): a concave part lies below the line through its two values
    at the window's end (the step from ``log1p``), a convex one below its chord to ``T = 0`` or
    ``T = M`` (math.lgamma, plus 1e-8 for its rounding).  None when the window touches no room.
    """
    if S1 < 1 or S0 > M - 1:
        return None
    lg = _lgamma_ratio
    e1, e2 = A - 1.0 - d1, B - 1.0 - d2
    left = right = 0.0
    if S0 > 0:
        # G1 from S0 towards 0, G2 likewise (its argument M - T growing)
        left += (-math.log1p(e1 / (S0 + 1.0 + d1)) if e1 >= 0.0
                 else (lg(S0 + A, -e1) - lg(A, -e1) + 1e-8) / S0)
        left += (math.log1p(e2 / (M - S0 + d2)) if e2 >= 0.0
                 else (lg(M - S0 + B, -e2) - lg(M + B, -e2) + 1e-8) / S0)
    if S1 < M:
        right += (math.log1p(e1 / (S1 + d1)) if e1 >= 0.0
                  else (lg(S1 + A, -e1) - lg(M + A, -e1) + 1e-8) / (M - S1))
        right += (-math.log1p(e2 / (M - S1 + 1.0 + d2)) if e2 >= 0.0
                  else (lg(M - S1 + B, -e2) - lg(B, -e2) + 1e-8) / (M - S1))
    return left, right


def _window_log_weights(A: float, B: float, k: int, M: int, lik: _MetricLikelihood,
                        centre: float) -> np.ndarray | None:
    """``log w(T)``, ``T = 0..M``: :func:`_window_weights` over the whole range (``-inf`` beyond)."""
    got = _window_weights(A, B, k, M, lik, centre)
    if got is None:
        return None
    start, lw_w = got
    lw = np.full(M + 1, -np.inf)
    lw[start:start + lw_w.size] = lw_w
    return lw


def _window_weights(A: float, B: float, k: int, M: int, lik: _MetricLikelihood,
                    centre: float, max_length: int | None = None, retry: bool = True
                    ) -> tuple[int, np.ndarray] | None:
    """``(S0, log w(S0..S1))`` from one FFT over the parts of the sequences that matter.

    The convolution of :func:`_direct_log_weights` restricted to windows, for both rates estimated
    with Beta parameters of at least one (``first`` and ``second`` concave).  The tilted sequences
    are taken only where they are within :data:`_WINDOW_LOG` of their largest value (located in
    plain floats by math.lgamma, then checked on the exact table values: the largest inside, each
    cut end falling outwards), and the tables and ``H`` only over the window ``[S0, S1]`` of ``T``
    that their convolution covers (``H`` relative to the guessed peak, as in the whole
    convolution).  Leaving out a sequence's entries beyond its window changes every entry of the
    convolution by at most their mass (relative to the sequence's largest entry, which is one)
    times the other's largest (one): by concavity a geometric tail beyond each cut end (below 1e-4
    of ``delta`` on the designs tested), added to the FFT's ``delta``.  Beyond ``[S0, S1]`` every
    weight is dropped and bounded: ``H`` rises outwards at most linearly (:func:`_rises`) and ``log
    c`` falls as beyond the last kept entry, so :func:`_fft_log_weights` sums their bounds in
    closed form.  Inside the window the weights are those of the whole convolution up to the FFT's
    error, and the same acceptance rule holds.  None (the caller convolves over every ``T``) where
    any of this does not hold, where the window is not much shorter than ``0..M``, or where the
    bounds refuse.  ``max_length``: None also where the window ``[S0, S1]`` holds more
    components (found before any table is made; the weights beyond it are dropped and bounded
    all the same, so the window's length is a matter of time only).
    """
    pos, neg = lik.pos, lik.neg
    if (pos.known is not None or neg.known is not None or not lik.log_concave
            or M < 3):
        return None
    D = M - k
    pa, pb, na, nb = pos.a, pos.b, neg.a, neg.b
    d1, d2 = pa + pb - 1.0, na + nb - 1.0
    t0 = int(min(max(round(centre), 1), M - 1))

    def h_step(t: int) -> float:
        # H[t + 1] - H[t]: _base_steps' step and the row's (prow[t] = -R(t + 1; d1) ...)
        return (math.log((M - t) / (t + 1.0)) + math.log((A + t) / (B + M - t - 1.0))
                - math.log1p(d1 / (t + 1.0)) + math.log1p(d2 / (M - t)))

    theta = 0.5 * (h_step(t0 - 1) + h_step(t0))
    lg = _lgamma_ratio

    def fa(x):
        return lg(x + 1.0, pa - 1.0) + lg(k - x + 1.0, na - 1.0) + theta * x

    def sa(x):
        return math.log((x + pa) / (x + 1.0)) + math.log((k - x) / (k - x - 1.0 + na)) + theta

    def fb(u):
        return lg(u + 1.0, pb - 1.0) + lg(D - u + 1.0, nb - 1.0) + theta * u

    def sb(u):
        return math.log((u + pb) / (u + 1.0)) + math.log((D - u) / (D - u - 1.0 + nb)) + theta

    x0, x1 = _window_of(fa, sa, k)
    u0, u1 = _window_of(fb, sb, D)
    S0, S1 = x0 + u0, x1 + u1
    if (S1 - S0) * 4 > 3 * M or (max_length is not None and S1 - S0 + 1 > max_length):
        return None     # hardly shorter than the whole, or longer than asked
    ratios = iter(log_gamma_ratio_ranges([
        (S1 + 1, d1, S0), (M - S0 + 1, d2, M - S1),                 # the row
        (x1 + 1, pa - 1.0, x0), (k - x0 + 1, na - 1.0, k - x1),     # first
        (u1 + 1, pb - 1.0, u0), (D - u0 + 1, nb - 1.0, D - u1)]))   # second
    lb1, lb2 = special.betaln(pa, pb), special.betaln(na, nb)
    prow = -next(ratios) - lb1
    nrow = -next(ratios) - lb2
    row = prow + nrow[::-1]
    lp = next(ratios) + next(ratios)[::-1]
    lq = next(ratios) + next(ratios)[::-1]
    # the mass left out of each tilted sequence (relative to its largest, inside the window)
    trunc = 0.0
    for v, lo_end, hi_end in ((lp + theta * np.arange(x0, x1 + 1.0), x0 > 0, x1 < k),
                              (lq + theta * np.arange(u0, u1 + 1.0), u0 > 0, u1 < D)):
        v = v - float(np.max(v))
        for inner, at_start in ((lo_end, True), (hi_end, False)):
            if inner:
                tail = _tail_mass(v, at_start)
                if tail is None:
                    return None
                trunc += tail
    H = _base_steps(A, B, M, np.arange(S0, S1 + 1.0), min(max(t0, S0), S1) - S0) + row
    rises = _rises(A, B, M, d1, d2, S0, S1)
    if rises is None:
        return None
    beyond = (S0, rises[0] + theta, M - S1, rises[1] - theta)
    # (x, u and T counted from the windows' starts: the tilt's terms differ by constants, which
    # the sequences' scaling takes up)
    lw_w, peak = _fft_log_weights(lp, lq, H, theta, True, trunc, tuple(beyond))
    if lw_w is None:
        if retry and peak >= 0 and abs(S0 + peak - t0) >= 2:
            # tilted where the weights peak (the convolution is accurate relative to its
            # largest entry), once
            return _window_weights(A, B, k, M, lik, S0 + peak, max_length, retry=False)
        return None
    return S0, lw_w


def _one_part(A, B, M, k, lik, base, lo: int, hi: int, peak: float, known: dict,
              split: bool = True, t_c: int | None = None) -> list[tuple]:
    """One window's mixture as ``[(mixture, log mass), ...]``: one piece, or up to three.

    A wide window is held smooth.  Where only panels next to its ends are too sharp for that (a
    mode or a kink pressed against 0 or M, the weights changing by large factors from one
    component to the next), those ends are held materialised and the middle smooth: three
    consecutive pieces of one mixture, so a heavy tail over 10^8 components costs what a smooth
    window does (done above ``_SPLIT_FROM`` components).  Otherwise every component is
    materialised.

    The log masses of the pieces are relative to the weight function's base term at ``t_c``
    (the first component of the first piece, unless given), computed without cancellation, so
    that pieces from different windows weigh correctly against each other.
    """
    t_c = lo if t_c is None else t_c
    if hi - lo + 1 > _SMOOTH_FROM:
        smooth, panels = _smooth_mixture(A, B, M, lik, lo, hi, peak,
                                          _material_kinks(lik, lo, hi, known))
        if smooth is not None:
            t_ref, ref = smooth.ref_point
            mass = math.log(smooth._z) + ref + float(_base_change(A, B, M, t_ref, t_c))
            return [(smooth, mass)]
        direct = [(a, b) for a, b, cheb in panels if cheb is None]
        left = [b for a, b in direct if b <= lo + _END_PIECE]
        right = [a for a, b in direct if a >= hi + 1 - _END_PIECE]
        # the smooth middle starts well away from the sharp part (its tapered ends are exact
        # for weights that change slowly from one component to the next)
        cut_lo = max(int(math.ceil(max(left))), lo + _END_MIN) if left else lo
        cut_hi = min(int(math.floor(min(right))), hi + 1 - _END_MIN) if right else hi + 1
        if (split and hi - lo + 1 > _SPLIT_FROM and len(left) + len(right) == len(direct)
                and cut_hi - cut_lo > _SMOOTH_FROM):
            middle = _one_part(A, B, M, k, lik, base, cut_lo, cut_hi - 1, peak, known,
                               split=False, t_c=t_c)
            if middle and isinstance(middle[0][0], SmoothMixture):
                ends = [(a, b) for a, b in ((lo, cut_lo - 1), (cut_hi, hi)) if b >= a]
                pieces = [p for a, b in ends
                          for p in _one_part(A, B, M, k, lik, base, a, b, peak, known,
                                             split=False, t_c=t_c)]
                return sorted(pieces + middle, key=_piece_start)
    T, lw = _filled(A, B, M, lik, base, lo, hi, peak, known, t_c)
    if not split and not np.isfinite(lw).any():
        return []   # a piece of a window without weight (the window as a whole has some)
    a, b, w, mass = _normalised(A, B, M, k, T, lw)
    return [((a, b, w), mass)]


def _piece_start(piece: tuple) -> float:
    mix = piece[0]
    return mix.a0 if isinstance(mix, SmoothMixture) else float(mix[0][0])


def _filled(A, B, M, lik, base, lo: int, hi: int, peak: float, known: dict, t_c: int):
    """``T`` in the window ``[lo, hi]`` and ``log w(T)`` less the base term at ``t_c``."""
    T = np.arange(lo, hi + 1, dtype=float)
    logL = _chebyshev_fill(lik, lo, hi, base, peak,
                           kink_points=_material_kinks(lik, lo, hi, known))
    # the base steps summed from the window's largest weight (from its start, their running
    # sums put up to 4e-12 between the CDFs of windows of 10^4 components)
    steps, ref = _peak_steps(A, B, M, T, logL)
    base0 = float(_base_change(A, B, M, T[ref], t_c))
    return T, base0 + steps + logL


def _peak_steps(A: float, B: float, M: int, T: np.ndarray,
                extra: np.ndarray) -> tuple[np.ndarray, int]:
    """:func:`_base_steps` from the index of the largest ``base + extra``, and that index.

    The largest is located with the steps summed from ``T[0]`` (whose rounding moves it by no
    more than a component or two), then the steps are summed again outwards from it.
    """
    steps = _base_steps(A, B, M, T)
    ref = int(np.argmax(steps + extra))
    return (steps if ref == 0 else _base_steps(A, B, M, T, ref)), ref


def _base_steps(A: float, B: float, M: int, T: np.ndarray, ref: int = 0) -> np.ndarray:
    """``log C(M, T) + log B(A + T, B + M - T)`` at consecutive ``T`` less its value at ``T[ref]``.

    By the ratio recursion (two logarithms per component), summed outwards from ``T[ref]``: the
    rounding is a few units in the last place per step whatever ``A`` and ``B``, of the running
    sums, which stay small near the reference (from ``T = 0`` they reach thousands at 10^4
    ratings, and their rounding moved the weights near the peak by a few 1e-12 against each
    other: the reference belongs where the weights peak).
    """
    t = T[1:]
    # log((M - t + 1) / t) + log((A + t - 1) / (B + M - t)), in place on two work arrays
    up = np.subtract(M, t)
    up += 1.0
    up /= t
    np.log(up, out=up)
    down = np.add(A, t)
    down -= 1.0
    down /= np.subtract(B + M, t)
    np.log(down, out=down)
    up += down
    out = np.empty(T.size)
    out[ref] = 0.0
    np.cumsum(up[ref:], out=out[ref + 1:])
    if ref:
        # backwards: out[i] = -(step[i + 1] + ... + step[ref]) (up[j] is the step to T[j + 1])
        np.cumsum(up[ref - 1::-1], out=out[ref - 1::-1])
        np.negative(out[:ref], out=out[:ref])
    return out


def _normalised(A, B, M, k, T, lw):
    """``(a, b, weights, log mass)`` of the components within TAIL_LOG of the largest."""
    top = float(np.max(lw))
    if not math.isfinite(top) and not np.isfinite(lw).any():
        raise CountsError(f"the metric counts (metric_pos={k} of metric_total={M}) are impossible "
                          "under the given rates (likelihood zero for every alpha); check the "
                          "counts or the known rho/eta")
    keep = np.flatnonzero(lw > top - TAIL_LOG)
    first, last = int(keep[0]), int(keep[-1])
    T, lw = T[first:last + 1], lw[first:last + 1]
    # normalised by their sum, not by exp(lw - logsumexp(lw)): that carries the rounding of
    # the log mass (|mass| eps, 1e-13 when log L is large) into every weight
    w = np.exp(lw - top)
    total = float(np.sum(w))
    return A + T, B + M - T, w / total, top + math.log(total)


def _as_posterior(part, info: dict) -> AlphaPosterior:
    if isinstance(part, SmoothMixture):
        return AlphaPosterior.from_smooth(part, counts=info)
    return AlphaPosterior(*part, counts=info, method="exact")


def alpha_posterior(human_pos: int = 0, human_total: int = 0, metric_pos: int = 0,
                    metric_total: int = 0, tp: int = 0, fn: int = 0, tn: int = 0, fp: int = 0, *,
                    rho: float | None = None, eta: float | None = None,
                    prior: tuple[float, float] = (1.0, 1.0),
                    rate_prior: tuple[float, float] = (1.0, 1.0), method: str = "exact",
                    grid: tuple[int, int, int] = (2000, 1000, 1000)) -> AlphaPosterior:
    """Posterior of the rate of adequate outputs from sufficient statistics.

    Parameters
    ----------
    human_pos, human_total : int
        Human (error-free) ratings that inform ``alpha``: positives and total.
    metric_pos, metric_total : int
        Metric ratings of outputs without a human rating: positives and total.
    tp, fn, tn, fp : int
        Paired ratings (human and metric on the same output), which inform ``rho ~ Beta(tp + a_r,
        fn + b_r)`` and ``eta ~ Beta(tn + a_r, fp + b_r)``.
    rho, eta : float, optional
        Known true-positive / true-negative rate (then the paired counts of that rate are unused).
    prior : (float, float)
        Beta prior of ``alpha``.
    rate_prior : (float, float)
        Beta prior of ``rho`` and of ``eta``.
    method : {"exact", "grid"}
        ``"exact"``: the Beta-mixture posterior (see the module notes for its error bound);
        ``"grid"``: the paper's midpoint grid (slow; for reproducing published numbers).
    grid : (int, int, int)
        Grid sizes ``(N_alpha, N_rho, N_eta)`` for ``method="grid"``.

    Returns
    -------
    AlphaPosterior

    Examples
    --------
    >>> from binaryeval import alpha_posterior
    >>> post = alpha_posterior(human_pos=60, human_total=100, metric_pos=5600,
    ...                        metric_total=10000, tp=96, fn=24, tn=64, fp=16)
    >>> round(post.mean(), 2)
    0.6
    """
    c = _validate_counts(human_pos=human_pos, human_total=human_total, metric_pos=metric_pos,
                         metric_total=metric_total, tp=tp, fn=fn, tn=tn, fp=fp)
    a, b = _check_prior(prior, "prior", MAX_PRIOR)
    ar, br = _check_prior(rate_prior, "rate_prior", MAX_RATE_PRIOR)
    rho = _check_rate("rho", rho)
    eta = _check_rate("eta", eta)
    _validate.possible_under_known_rates(c["metric_pos"], c["metric_total"], rho, eta)
    if method == "grid":
        from .grid import grid_posterior

        return grid_posterior(**c, rho=rho, eta=eta, prior=(a, b), rate_prior=(ar, br), grid=grid)
    if method != "exact":
        raise ParameterError(f"method={method!r}: use 'exact' (default) or 'grid'")
    A = a + c["human_pos"]
    B = b + c["human_total"] - c["human_pos"]
    M, k = c["metric_total"], c["metric_pos"]
    pos = RateDistribution(c["tp"] + ar, c["fn"] + br) if rho is None else RateDistribution(known=rho)
    # the metric accepts an inadequate output with probability 1 - eta
    neg = (RateDistribution(c["fp"] + br, c["tn"] + ar) if eta is None
           else RateDistribution(known=1.0 - eta))
    if M == 0:
        aa, bb, w = np.array([A]), np.array([B]), np.array([1.0])
    elif pos.known is not None and neg.known is not None and pos.known == neg.known:
        # rho + eta == 1: the metric carries no information about alpha
        aa, bb, w = np.array([A]), np.array([B]), np.array([1.0])
    else:
        mix = _mixture(A, B, k, M, pos, neg)
        info = dict(c, rho=rho, eta=eta, prior=(a, b), rate_prior=(ar, br))
        if isinstance(mix, list):
            mass = np.array([m for _, m in mix])
            parts = [_as_posterior(part, info) for part, _ in mix]
            return AlphaPosterior.from_parts(parts, np.exp(mass - mass.max()), counts=info)
        if isinstance(mix, SmoothMixture):
            return AlphaPosterior.from_smooth(mix, counts=info)
        aa, bb, w = mix
    return AlphaPosterior(aa, bb, w, counts=dict(c, rho=rho, eta=eta, prior=(a, b),
                                                 rate_prior=(ar, br)), method="exact")
