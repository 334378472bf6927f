"""Piecewise Chebyshev interpolation with a checked error, for fast repeated evaluation.

A posterior's distribution functions are exact but each evaluation costs a kernel sum; comparing
twenty posteriors pairwise evaluates each one thousands of times.  :func:`interpolate` builds, once
per function, a piecewise polynomial on an interval: each panel holds the degree-24 interpolant at
Chebyshev points, and a panel is halved until the interpolant agrees with the function at check
points between the nodes to within the requested absolute tolerance.  Evaluating the result is a
vectorised Clenshaw recurrence.
"""

from __future__ import annotations

import bisect
import math
from functools import cached_property

import numpy as np

__all__ = ["CHEB_DEGREE", "CHEB_NODES", "PiecewiseChebyshev", "chebyshev_coefficients",
           "interpolate", "interpolate_noisy"]

#: Degree of every panel's interpolant (here and in the engine's interpolation of log L).
CHEB_DEGREE = 24
#: Its nodes, the Chebyshev points of the first kind on [-1, 1] (ascending).
CHEB_NODES = np.cos(np.pi * (np.arange(CHEB_DEGREE + 1) + 0.5) / (CHEB_DEGREE + 1))[::-1]
_DEG, _NODES = CHEB_DEGREE, CHEB_NODES
# check points: between the nodes, away from them (where an interpolant errs most)
_CHECK = np.array([-0.985, -0.83, -0.52, -0.11, 0.31, 0.66, 0.92, 0.995])
# the inverse of the Chebyshev-Vandermonde matrix at the nodes, in closed form (discrete
# orthogonality: c_j = (2 - [j = 0]) / n * sum_k v_k T_j(x_k)); no LAPACK call at import
_VANDER_INV = ((2.0 - (np.arange(_DEG + 1) == 0))[:, None] / (_DEG + 1)
               * np.cos(np.outer(np.arange(_DEG + 1), np.arccos(_NODES))))
_FEW = 4  # up to this many points are evaluated in plain floats
_NOISE_CHECK_FROM = 64  # panels beyond which a panel's own noise is measured when it fails


class PiecewiseChebyshev:
    """A piecewise polynomial: ``edges`` (sorted, n + 1) and Chebyshev ``coefs`` (n x 25).

    Outside ``[edges[0], edges[-1]]`` it returns ``left``/``right`` (constants).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._piecewise import interpolate
    >>> p = interpolate(np.sin, [0.0, 3.0], tol=1e-13)
    >>> bool(abs(p(np.array([1.0]))[0] - np.sin(1.0)) < 1e-13)
    True
    """

    def __init__(self, edges: np.ndarray, coefs: np.ndarray, left: float = np.nan,
                 right: float = np.nan):
        self.edges = np.asarray(edges, dtype=float)
        self.coefs = np.asarray(coefs, dtype=float)
        self.left, self.right = left, right

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if x.size <= _FEW:
            return np.array([self._one(v) for v in x.ravel().tolist()]).reshape(x.shape)
        e = self.edges
        if e[0] <= x.min() and x.max() <= e[-1]:
            # every point inside (the usual case; a NaN fails both tests): no masks
            return self._inside(x.ravel()).reshape(x.shape)
        out = np.empty(x.shape)
        below, above = x < e[0], x > e[-1]
        out[below], out[above] = self.left, self.right
        inside = ~(below | above) & ~np.isnan(x)
        out[np.isnan(x)] = np.nan
        if inside.any():
            out[inside] = self._inside(x[inside])
        return out

    def _inside(self, xi: np.ndarray) -> np.ndarray:
        """The values at the points ``xi`` (1-D), all in ``[edges[0], edges[-1]]``."""
        e = self.edges
        # (integer panel indices: np.clip's bounds by minimum and maximum, without its wrapper)
        k = np.minimum(np.maximum(e.searchsorted(xi, side="right") - 1, 0), len(e) - 2)
        lo, hi = e[k], e[k + 1]
        u = (2.0 * xi - (lo + hi)) / (hi - lo)
        # each point's coefficients as columns: every degree's a contiguous row
        c = self._coefs_t[:, k]
        # Clenshaw, vectorised over points (each with its own coefficient row); in place,
        # the same operations in the same order as b1 <- 2 u b1 - b2 + c_j
        u2 = 2.0 * u
        b1 = c[-1].copy()
        b2 = np.zeros(xi.size)
        tmp = np.empty(xi.size)
        for j in range(c.shape[0] - 2, 0, -1):
            np.multiply(u2, b1, out=tmp)
            tmp -= b2
            tmp += c[j]
            b1, b2, tmp = tmp, b1, b2
        return u * b1 - b2 + c[0]

    def _one(self, x: float) -> float:
        """The value at one point, in plain floats.

        The operations of :meth:`__call__` in the same order (the same value, bit for bit),
        without the cost of a few dozen array calls.
        """
        edges = self._edge_list
        if x < edges[0]:
            return self.left
        if x > edges[-1]:
            return self.right
        if x != x:
            return math.nan
        k = min(max(bisect.bisect_right(edges, x) - 1, 0), len(edges) - 2)
        lo, hi = edges[k], edges[k + 1]
        u = (2.0 * x - (lo + hi)) / (hi - lo)
        c = self._coef_rows[k]
        u2 = 2.0 * u
        b1, b2 = c[-1], 0.0
        for j in range(len(c) - 2, 0, -1):
            b1, b2 = u2 * b1 - b2 + c[j], b1
        return u * b1 - b2 + c[0]

    @cached_property
    def _edge_list(self) -> list:
        return self.edges.tolist()

    @cached_property
    def _coef_rows(self) -> list:
        return self.coefs.tolist()

    @cached_property
    def _coefs_t(self) -> np.ndarray:
        """The coefficients with the degree first (a row per degree, for :meth:`__call__`)."""
        return np.ascontiguousarray(self.coefs.T)


def chebyshev_coefficients(values: np.ndarray) -> np.ndarray:
    """Chebyshev coefficients of the interpolants through values at :data:`CHEB_NODES`.

    One row per panel; a fixed linear map (discrete orthogonality), no linear solve.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._piecewise import CHEB_NODES, chebyshev_coefficients
    >>> c = chebyshev_coefficients(np.exp(CHEB_NODES)[None, :])
    >>> bool(abs(np.polynomial.chebyshev.chebval(0.3, c[0]) - np.exp(0.3)) < 1e-14)
    True
    """
    # a small matrix product by multiply and sum: no BLAS threads (einsum may call BLAS)
    return np.add.reduce(values[:, None, :] * _VANDER_INV[None, :, :], axis=2)


_coefs = chebyshev_coefficients


def interpolate(fn, breakpoints, tol: float, *, max_panels: int = 4096,
                left: float = np.nan, right: float = np.nan,
                local_noise: bool = False) -> PiecewiseChebyshev:
    """Piecewise Chebyshev interpolant of the vectorised ``fn`` on ``[min, max]`` of ``breakpoints``.

    Panels start at the sorted ``breakpoints`` and are halved until, at eight check points inside
    each panel, the interpolant and ``fn`` differ by at most ``tol`` (absolute).

    Parameters
    ----------
    fn : callable
        Vectorised function of an array of points.
    breakpoints : array-like
        Initial panel edges (at least two distinct values).
    tol : float
        Absolute tolerance at the check points.
    max_panels : int
        Largest number of panels before giving up (raises FloatingPointError).
    left, right : float
        Values returned outside the interval.
    local_noise : bool
        Once there are more than ``_NOISE_CHECK_FROM`` panels, also accept a panel whose error is
        within ``tol`` plus thirty times the rounding noise of ``fn`` measured in that panel (fourth
        differences at a spacing of ``1e-5`` of its width, where the smooth part is nil): noise
        that varies along the interval can exceed an estimate made elsewhere, and halving
        cannot reduce it.

    Returns
    -------
    PiecewiseChebyshev

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._piecewise import interpolate
    >>> p = interpolate(np.exp, [0.0, 1.0, 2.0], tol=1e-12)
    >>> bool(np.allclose(p(np.linspace(0, 2, 7)), np.exp(np.linspace(0, 2, 7)), atol=1e-12))
    True
    """
    edges = np.unique(np.asarray(breakpoints, dtype=float))
    todo = list(zip(edges[:-1], edges[1:], strict=True))
    done: list[tuple[float, float, np.ndarray]] = []
    while todo:
        if len(done) + len(todo) > max_panels:
            raise FloatingPointError("internal: interpolation needs too many panels")
        lo = np.array([a for a, _ in todo])
        hi = np.array([b for _, b in todo])
        mid, rad = 0.5 * (lo + hi), 0.5 * (hi - lo)
        xn = mid[:, None] + rad[:, None] * _NODES[None, :]
        xc = mid[:, None] + rad[:, None] * _CHECK[None, :]
        vals = fn(np.concatenate([xn.ravel(), xc.ravel()]))
        vn = vals[:xn.size].reshape(xn.shape)
        vc = vals[xn.size:].reshape(xc.shape)
        coefs = _coefs(vn)
        approx = np.polynomial.chebyshev.chebval(_CHECK, coefs.T)  # panels x check points
        err = np.maximum.reduce(np.abs(approx - vc), axis=1)
        if local_noise and len(done) + len(todo) > _NOISE_CHECK_FROM:
            err = np.where(err <= tol, err, err - 30.0 * _local_noise(fn, lo, hi, err > tol))
        nxt = []
        for i, (a, b) in enumerate(todo):
            if err[i] <= tol or b - a <= 1e-12 * max(1.0, abs(a)):
                done.append((a, b, coefs[i]))
            else:
                m = 0.5 * (a + b)
                nxt.extend([(a, m), (m, b)])
        todo = nxt
    done.sort(key=lambda t: t[0])
    edges = np.array([d[0] for d in done] + [done[-1][1]])
    return PiecewiseChebyshev(edges, np.stack([d[2] for d in done]), left, right)


def _local_noise(fn, lo: np.ndarray, hi: np.ndarray, which: np.ndarray) -> np.ndarray:
    """Rounding noise of ``fn`` in the panels ``which`` (zero elsewhere), from fourth differences."""
    out = np.zeros(lo.shape)
    if not which.any():
        return out
    mid, width = 0.5 * (lo[which] + hi[which]), hi[which] - lo[which]
    probe = mid[:, None] + 1e-5 * width[:, None] * np.arange(-8.0, 9.0)[None, :]
    vals = fn(probe.ravel()).reshape(probe.shape)
    fourth = np.diff(vals, 4, axis=1)
    out[which] = np.where(np.all(np.isfinite(fourth), axis=1),
                          np.std(fourth, axis=1) / np.sqrt(70.0), 0.0)
    return out


def interpolate_noisy(fn, breakpoints, tol: float, *, left: float = np.nan,
                      right: float = np.nan, coarse=None,
                      relative: bool = False) -> PiecewiseChebyshev:
    """:func:`interpolate` at ``tol`` or at the function's own noise level, whichever is larger.

    The noise (rounding, or the quadrature error of a function computed by quadrature) is
    estimated from fourth differences of ``fn`` at closely spaced points in the middle of each
    initial panel and around the largest value on a coarse grid (noise that is relative to the
    value is largest there), where the smooth part of a fourth difference is negligible; the
    tolerance is raised to thirty times the largest estimate.  Where the noise varies along the
    interval, panels beyond the first ``_NOISE_CHECK_FROM`` are also held to thirty times their
    own noise (see :func:`interpolate`).  ``coarse``, a pair ``(points, values)`` of ``fn``
    already at hand, stands in for the coarse grid.  ``relative=True`` says that the noise of
    ``fn`` is relative to its value (a sum of positive terms, each rounded): the largest is
    then where the value is, and only that point is probed.

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.binary._piecewise import interpolate_noisy
    >>> rng = np.random.default_rng(0)
    >>> noisy = lambda x: np.sin(x) + 1e-14 * rng.standard_normal(np.shape(x))
    >>> p = interpolate_noisy(noisy, [0.0, 1.0], 1e-16)
    >>> bool(abs(p(np.array([0.5]))[0] - np.sin(0.5)) < 1e-12)
    True
    """
    edges = np.unique(np.asarray(breakpoints, dtype=float))
    mids = 0.5 * (edges[:-1] + edges[1:])
    widths = edges[1:] - edges[:-1]
    if coarse is None:
        coarse = np.linspace(edges[0], edges[-1], 257)[1:-1]
        size = np.abs(fn(coarse))
    else:
        coarse, size = np.asarray(coarse[0], dtype=float), np.abs(coarse[1])
    if np.any(np.isfinite(size)):
        top = coarse[int(np.nanargmax(size))]
        k = min(int(np.searchsorted(edges, top, side="right")) - 1, widths.size - 1)
        # keep the probe's points inside one panel
        top = float(np.clip(top, edges[k] + 2e-5 * widths[k], edges[k + 1] - 2e-5 * widths[k]))
        if relative:
            mids, widths = np.array([top]), widths[k:k + 1]
        else:
            mids, widths = np.append(mids, top), np.append(widths, widths[k])
    # two spacings: rounding noise can be sporadic (an occasional last-place jump of a large
    # intermediate), and one short run of points may miss it
    steps = np.arange(-16.0, 17.0)
    probe = np.concatenate([mids[:, None] + h * widths[:, None] * steps[None, :]
                            for h in (1e-6, 1.3e-7)])
    vals = fn(probe.ravel()).reshape(probe.shape)
    fourth = np.diff(vals, 4, axis=1)
    noise = float(np.max(np.std(fourth, axis=1))) / np.sqrt(70.0) if np.all(np.isfinite(fourth)) \
        else 0.0
    return interpolate(fn, edges, max(tol, 30.0 * noise), max_panels=8192, left=left,
                       right=right, local_noise=True)
