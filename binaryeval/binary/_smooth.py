"""A Beta mixture with very many components, evaluated through its smooth weight function.

With many metric ratings and uncertain rates the exact posterior has up to millions of Beta
components ``Beta(a0 + j, N - a0 - j)``, ``j = 0..U``, whose weights ``w_j`` vary smoothly with
``j`` (``log w`` is a piecewise polynomial over the whole window, see
:mod:`binaryeval.binary.engine`).  Every quantity of the posterior is a sum over ``j`` of a
summand ``w_j h_j``; for a summand that is smooth and vanishes at both ends, the sum equals the
integral of its continuation up to an exponentially small error (Poisson summation).  To make the
ends vanish, the weights are split with a smooth taper ``phi`` (a C-infinity step, exactly 0
within ``_EDGE`` components of an end and 1 beyond ``_EDGE + _TAPER``):

    sum_j w_j h_j = int w(u) phi(u) h(u) du + sum_{j near an end or a kink} w_j (1 - phi_j) h_j,

the integral by Gauss-Legendre quadrature, the materialised terms one by one (a few hundred of
them, and only where ``h`` is not negligible there).  The summands used:

- moments: ``h = (a0 + j)^p``;
- the CDF: ``h_j = I_x(a0 + j, N - a0 - j)``, a smooth step in ``j`` of width
  ``s = sqrt(N x (1 - x))``: below the step ``h = 1`` and the integral is the cumulative integral
  of ``w phi`` (a piecewise polynomial, integrated exactly); across it, quadrature;
- the density: ``h_j = Beta(x; a0 + j, N - a0 - j)``, a bell in ``j`` of the same width.

Where ``log L`` has a kink (``T = k`` or ``T = M - k``, where its summation range changes shape,
when the end term matters) the weights are tapered in the same way on both sides of it and the
components within ``_EDGE + _TAPER`` of it are summed one by one: the integral of a function with
a kink is not its sum (Euler-Maclaurin leaves ``f'/12`` of the jump there), and a Gauss-Legendre
panel across a kink loses its accuracy.  The quadratures' panels are cut across every taper (C
infinity, but not analytic at its ends).  Before, on designs with a handful of paired rows and
near-perfect rates, the CDF was up to 3.6e-8 from the mixture with ``log L`` at every component
(a panel across the kink), 7.4e-11 with the panels cut at the kink alone (the sum), and 7e-10
where a panel crossed the taper at an end.

The cost of a point is a few hundred special-function calls whatever the number of components.
The tests hold the moments, CDF and density to 1e-12 of the component-by-component mixture.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from numpy.polynomial import chebyshev as C
from scipy import special

from ._kernels import dot as _dot
from ._kernels import log_beta_pdf
from ._piecewise import PiecewiseChebyshev, interpolate_noisy

__all__ = ["SmoothMixture"]

_EDGE = 2.0      # the taper is exactly 0 within this many components of an end
_TAPER = 400.0   # ... and rises to 1 over this many
_GL = np.polynomial.legendre.leggauss(16)
# the taper's span is cut into this many panels wherever a point's panels reach it
_TAPER_CUTS = 4
# panel edges around a point's kernel, in units of its reach (14 widths and 40 components)
_CUTS = np.array([-1.0, -0.5, -0.25, -0.12, -0.05, 0.0, 0.05, 0.12, 0.25, 0.5, 1.0])
_GL48 = np.polynomial.legendre.leggauss(48)


def _step(t: np.ndarray) -> np.ndarray:
    """A C-infinity step: 0 for t <= 0, 1 for t >= 1 (exp(-1/t) / (exp(-1/t) + exp(-1/(1-t))))."""
    t = np.asarray(t, dtype=float)
    out = np.where(t >= 1.0, 1.0, 0.0)
    mid = (t > 0.0) & (t < 1.0)
    tm = t[mid]
    # written as a logistic of 1/(1-t) - 1/t, which neither overflows nor loses accuracy
    out[mid] = special.expit(1.0 / (1.0 - tm) - 1.0 / tm) if tm.size else tm
    return out


def _cumulative(poly: PiecewiseChebyshev) -> tuple[float, PiecewiseChebyshev]:
    """Total integral and the cumulative integral (a piecewise polynomial) of ``poly``."""
    e = poly.edges
    rad = 0.5 * (e[1:] - e[:-1])
    # every panel's antiderivative at once (coefficients along axis 1), zero at its left end
    cum = C.chebint(poly.coefs, lbnd=-1.0, axis=1) * rad[:, None]
    totals = C.chebval(1.0, cum.T)
    cum[1:, 0] += np.cumsum(totals)[:-1]
    total = float(totals.sum())
    return total, PiecewiseChebyshev(e, cum, left=0.0, right=total)


class _Side:
    """The mixture in one orientation: components ``Beta(a0 + u, N - a0 - u)``, ``u`` in [0, U].

    ``g = w phi`` (interpolant) and its cumulative ``G``; ``ends`` the materialised components'
    indices (ascending: near the ends and the kinks) and their remaining weights
    ``w_j (1 - phi_j)``; everything normalised to total mass one.
    """

    def __init__(self, a0: float, N: float, U: float, g: PiecewiseChebyshev,
                 G: PiecewiseChebyshev, ends: tuple[np.ndarray, np.ndarray],
                 cuts: np.ndarray | None = None):
        self.a0, self.N, self.U, self.g, self.G = a0, N, U, g, G
        # where the quadratures cut their panels: across each tapered zone (C-infinity but not
        # analytic at its ends: a panel across one lost accuracy, 7e-10 of the cdf where the
        # weights press against an end)
        self.cuts = np.zeros(0) if cuts is None else np.asarray(cuts, dtype=float)
        # the materialised components (ascending) and their running sums
        self.j, self.r = ends
        self._cum = np.concatenate(([0.0], np.cumsum(self.r)))

    def _reached(self, lo: np.ndarray, hi: np.ndarray):
        """The materialised components each point's span ``[lo, hi]`` reaches.

        Returns the count below ``lo`` per point, the points that reach any, and for those the
        components of the slice they reach together: ``(first, near, j, r)``.
        """
        first = np.searchsorted(self.j, lo, side="left")
        last = np.searchsorted(self.j, hi, side="right")
        near = np.flatnonzero(last > first)
        if not near.size:
            return first, near, self.j[:0], self.r[:0]
        cut = slice(int(first[near].min()), int(last[near].max()))
        return first, near, self.j[cut], self.r[cut]

    def _panels(self, centre: np.ndarray, width: np.ndarray, reach: np.ndarray):
        """Gauss-Legendre nodes/weights on panels around each point's step/bell, inside [0, U].

        Ten 16-point panels (measured against sixty 48-point ones at 17 quantiles of both sides
        of four posteriors from 10^5 to 10^6 ratings: the cdf's sum within 1.2e-15 of that, 24
        points a panel 0.6e-15; against 64 points on the same panels at 32 quantiles up to 10^7
        ratings the cdf within 1.2e-15 and the density within 1e-13 of its peak, as with 24;
        the tests hold the cdf's sum to 1e-14).  The tapers' spans (:attr:`cuts`) are further
        cuts wherever they fall inside (a panel of zero width where outside the point's span).
        """
        xg, wg = _GL
        cuts = centre[:, None] + _CUTS[None, :] * reach[:, None]
        cuts = np.clip(cuts, 0.0, self.U)
        inside = (self.cuts[None, :] > cuts[:, :1]) & (self.cuts[None, :] < cuts[:, -1:])
        extra = self.cuts[inside.any(axis=0)]
        if extra.size:
            # each as one more cut, clipped to the row's span (a panel of zero width where it
            # falls outside)
            extra = np.clip(extra[None, :], cuts[:, :1], cuts[:, -1:])
            cuts = np.sort(np.concatenate((cuts, extra), axis=1), axis=1)
        a, b = cuts[:, :-1], cuts[:, 1:]
        mid, rad = 0.5 * (a + b), 0.5 * (b - a)
        nodes = mid[:, :, None] + rad[:, :, None] * xg[None, None, :]
        weights = rad[:, :, None] * wg[None, None, :]
        n = centre.size
        return nodes.reshape(n, -1), weights.reshape(n, -1), cuts[:, 0]

    def cdf(self, x: np.ndarray) -> np.ndarray:
        """``F(x) = sum_j w_j I_x(a_j, b_j)`` for points strictly inside (0, 1)."""
        N = self.N
        s = np.sqrt(N * x * (1.0 - x))
        centre = x * N - self.a0
        reach = 14.0 * s + 40.0
        u, g_w, start = self._panels(centre, s, reach)
        vals = self.g(u) * special.betainc(self.a0 + u, N - self.a0 - u, x[:, None])
        out = self.G(start) + np.add.reduce(vals * g_w, axis=1)
        self._add_end_components(out, x, centre, reach)
        return np.clip(out, 0.0, 1.0)

    def _add_end_components(self, cdf: np.ndarray, x: np.ndarray, centre: np.ndarray,
                            reach: np.ndarray) -> None:
        """Add the materialised components to ``cdf`` in place.

        Below the step (``u < centre - reach``) ``I`` is 1 (as in ``G``), above it 0; inside
        it each component's incomplete beta function.
        """
        if not self.j.size:
            return
        first, near, j, r = self._reached(centre - reach, centre + reach)
        cdf += self._cum[first]
        if near.size:
            a = self.a0 + j
            h = special.betainc(a[None, :], self.N - a[None, :], x[near][:, None])
            inside = ((j[None, :] >= (centre - reach)[near][:, None])
                      & (j[None, :] <= (centre + reach)[near][:, None]))
            cdf[near] += (h * r * inside).sum(axis=1)

    def _add_end_density(self, dens: np.ndarray, x: np.ndarray, centre: np.ndarray,
                         reach: np.ndarray) -> None:
        """Add the materialised components' density to ``dens`` where the bell reaches them."""
        if not self.j.size:
            return
        _, near, j, r = self._reached(centre - reach, centre + reach)
        if near.size:
            a = self.a0 + j
            with np.errstate(under="ignore"):
                d = np.exp(log_beta_pdf(x[near][:, None], a[None, :], self.N - a[None, :]))
            dens[near] += (d * r).sum(axis=1)

    def cdf_logpdf(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`cdf` and, on the same nodes, the log density (for a quantile search).

        The cdf is :meth:`cdf`'s own sum.  The density's bell is centred within one component
        of the cdf's step and is as wide, so the step's panels (14 widths and 40 components
        each way) hold it too and the weights are interpolated once; the density on these
        nodes only steers Newton's steps (:meth:`logpdf` is the density's own rule).
        """
        N = self.N
        s = np.sqrt(N * x * (1.0 - x))
        centre = x * N - self.a0
        reach = 14.0 * s + 40.0
        u, g_w, start = self._panels(centre, s, reach)
        gu = self.g(u)
        a, b = self.a0 + u, N - self.a0 - u
        xs = x[:, None]
        # (np.add.reduce: np.sum's own reduction, without its wrapper)
        cdf = self.G(start) + np.add.reduce(gu * special.betainc(a, b, xs) * g_w, axis=1)
        with np.errstate(divide="ignore", under="ignore"):
            dens = np.add.reduce(gu * np.exp(log_beta_pdf(xs, a, b)) * g_w, axis=1)
        self._add_end_components(cdf, x, centre, reach)
        # the materialised components of the density, where its bell reaches them (as logpdf)
        self._add_end_density(dens, x, x * (N - 2.0) + 1.0 - self.a0, reach)
        with np.errstate(divide="ignore"):
            return np.clip(cdf, 0.0, 1.0), np.log(np.maximum(dens, 0.0))

    def logpdf(self, x: np.ndarray) -> np.ndarray:
        """``log sum_j w_j Beta(x; a_j, b_j)`` for points strictly inside (0, 1)."""
        N = self.N
        s = np.sqrt(max(N - 2.0, 1.0) * x * (1.0 - x))
        centre = x * (N - 2.0) + 1.0 - self.a0
        reach = 14.0 * s + 40.0
        u, g_w, _ = self._panels(centre, s, reach)
        with np.errstate(divide="ignore", under="ignore"):
            dens = np.exp(log_beta_pdf(x[:, None], self.a0 + u, N - self.a0 - u))
            total = np.add.reduce(self.g(u) * dens * g_w, axis=1)
            self._add_end_density(total, x, centre, reach)
            # far out in a tail the interpolated weights can dip below zero by their tolerance
            # (1e-14 of their peak): the density there is zero within its error
            return np.log(np.maximum(total, 0.0))


def _scaled_poly(p: PiecewiseChebyshev, z: float, right: float) -> PiecewiseChebyshev:
    return PiecewiseChebyshev(p.edges, p.coefs / z, left=0.0, right=right)


def _taper(u: np.ndarray, U: float, kinks: np.ndarray = ()) -> np.ndarray:
    """The taper ``phi``: 0 within ``_EDGE`` of an end or a kink, 1 beyond ``_EDGE + _TAPER``."""
    out = _step((u - _EDGE) / _TAPER) * _step((U - _EDGE - u) / _TAPER)
    for t in kinks:
        out = out * _step((np.abs(u - t) - _EDGE) / _TAPER)
    return out


def _reflect(poly: PiecewiseChebyshev, U: float) -> PiecewiseChebyshev:
    """``p(U - u)`` as a piecewise polynomial (T_n(-v) = (-1)^n T_n(v))."""
    signs = (-1.0) ** np.arange(poly.coefs.shape[1])
    return PiecewiseChebyshev(U - poly.edges[::-1], poly.coefs[::-1] * signs[None, :],
                              left=poly.right, right=poly.left)


class SmoothMixture:
    """The posterior's components through a smooth weight function (see the module notes).

    Parameters
    ----------
    a0 : float
        First parameter of the first component.
    N : float
        ``a + b`` of every component.
    U : int
        Index of the last component (at least ``4 * (_EDGE + _TAPER)``).
    weight : callable
        Unnormalised weight of the (continuous) component ``u`` in ``[0, U]``, vectorised; smooth.
    breakpoints : array-like
        Where ``weight`` changes shape (panel edges of its own representation).
    kinks : array-like, optional
        Those of the breakpoints where ``weight`` is not smooth (integers): the weights are
        tapered to zero there and the components near them summed one by one.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._smooth import SmoothMixture
    >>> w = lambda u: np.exp(-0.5 * ((u - 2500.0) / 300.0) ** 2)
    >>> mix = SmoothMixture(4000.5, 20001.0, 5000, w, [0.0, 2500.0, 5000.0])
    >>> round(mix.mean(), 6)  # (a0 + E[u]) / N
    0.325009
    """

    def __init__(self, a0: float, N: float, U: int, weight, breakpoints, kinks=()):
        self.a0, self.N, self.U = float(a0), float(N), int(U)
        Uf = float(U)
        kinks = np.asarray(kinks, dtype=float).ravel()
        kinks = self._kinks = kinks[(kinks > 0.0) & (kinks < Uf)]
        self._weight = weight
        grid = np.linspace(0.0, Uf, 513)
        zone = _EDGE + _TAPER
        # the materialised components: within the taper's zone of an end or of a kink
        j = np.unique(np.concatenate(
            [np.arange(0.0, zone + 1.0), np.arange(np.ceil(Uf - zone), Uf + 1.0)]
            + [np.arange(np.ceil(t - zone), np.floor(t + zone) + 1.0) for t in kinks]))
        j = j[(j >= 0.0) & (j <= Uf)]
        # the weights on a grid (for their scale and the noise probe) and at the materialised
        # components, in one evaluation
        both = weight(np.concatenate((grid, j)))
        on_grid = both[:grid.size]
        peak = float(np.max(on_grid))
        ramps = _EDGE + _TAPER * np.linspace(0.0, 1.0, _TAPER_CUTS + 1)
        zones = np.concatenate([ramps, Uf - ramps] + [t - ramps for t in kinks]
                               + [t + ramps for t in kinks])
        zones = zones[(zones > 0.0) & (zones < Uf)]
        edges = np.unique(np.concatenate((np.asarray(breakpoints, dtype=float).ravel(),
                                          zones, [0.0, Uf])))
        edges = edges[(edges >= 0.0) & (edges <= Uf)]

        def phi(u):
            return _taper(u, Uf, kinks)

        g = interpolate_noisy(lambda u: weight(u) * phi(u), edges, 1e-14 * peak,
                              left=0.0, right=0.0,
                              coarse=(grid[1:-1], (on_grid * phi(grid))[1:-1]))
        total, G = _cumulative(g)
        r = np.maximum(both[grid.size:], 0.0) * (1.0 - phi(j))
        z = total + float(r.sum())
        self._zones = np.unique(zones)
        self.lower = _Side(self.a0, self.N, Uf, _scaled_poly(g, z, 0.0),
                           _scaled_poly(G, z, 1.0 * G.right / z), (j, r / z), self._zones)
        self._g, self._ends, self._z = g, (j, r), z
        self._moments = self._compute_moments()

    @cached_property
    def upper(self) -> _Side:
        """The mirrored mixture (components of ``1 - alpha``), built when first needed."""
        Uf = float(self.U)
        g_up = _reflect(self._g, Uf)
        _, G_up = _cumulative(g_up)
        j, r = self._ends
        order = np.argsort(Uf - j)
        z = self._z
        return _Side(self.N - self.a0 - Uf, self.N, Uf, _scaled_poly(g_up, z, 0.0),
                     _scaled_poly(G_up, z, G_up.right / z), ((Uf - j)[order], r[order] / z),
                     Uf - self._zones)

    @cached_property
    def _rule(self) -> tuple[np.ndarray, np.ndarray]:
        """Points ``a`` and weights of the rule for ``sum_j w_j h(a_j)``.

        48-point Gauss-Legendre on each panel of the tapered weights, plus the end components one
        by one.
        """
        x48, w48 = _GL48
        side = self.lower
        e = side.g.edges
        mid, rad = 0.5 * (e[1:] + e[:-1]), 0.5 * (e[1:] - e[:-1])
        u = np.concatenate(((mid[:, None] + rad[:, None] * x48[None, :]).ravel(), side.j))
        g = np.concatenate(((rad[:, None] * w48[None, :]).ravel() * side.g(u[:mid.size * 48]),
                            side.r))
        return self.a0 + u, g

    def component_sum(self, h) -> float:
        """``sum_j w_j h(a_j)`` for a smooth vectorised ``h`` of the first Beta parameter.

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.binary._smooth import SmoothMixture
        >>> w = lambda u: np.exp(-0.5 * ((u - 2500.0) / 300.0) ** 2)
        >>> mix = SmoothMixture(4000.5, 20001.0, 5000, w, [0.0, 2500.0, 5000.0])
        >>> round(mix.component_sum(lambda a: a / 20001.0), 6) == round(mix.mean(), 6)
        True
        """
        a, g = self._rule
        return float(_dot(g, h(a)))

    def _compute_moments(self) -> tuple[float, float]:
        a, g = self._rule
        m = a / self.N
        mean = float(_dot(g, m))
        within = float(_dot(g, m * (1.0 - m))) / (self.N + 1.0)
        between = float(_dot(g, (m - mean) ** 2))
        return mean, within + between

    def mean(self) -> float:
        """Mixture mean (see the class example)."""
        return self._moments[0]

    def var(self) -> float:
        """Mixture variance."""
        return self._moments[1]

    def weights(self) -> np.ndarray:
        """The weights at the components ``j = 0..U`` (normalised to sum to one)."""
        w = np.maximum(self._weight(np.arange(self.U + 1, dtype=float)), 0.0)
        return w / w.sum()

    def support(self, tail: float = 1e-16) -> tuple[float, float]:
        """An interval holding all but ``2 tail`` of the mass (from the end components)."""
        last = self.a0 + self.U
        return (float(special.betaincinv(self.a0, self.N - self.a0, tail)),
                float(special.betainccinv(last, self.N - last, tail)))
