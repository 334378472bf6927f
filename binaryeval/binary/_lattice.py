"""Where the weights of the split ``(X, U)`` live, and how coarse a lattice their sums allow.

The model's rates (:mod:`binaryeval.binary.rates`) are a mixture over the split of the ``k``
positive metric-only ratings into ``X`` adequate outputs and of the ``M - k`` negative ones into
``U`` adequate outputs.  Its log weights are a sum of log-gamma functions of ``X``, of ``U`` and
of ``T = X + U`` (:func:`parts`), defined for real ``X`` and ``U`` too: a smooth function.

:func:`locate` finds the box holding every term within ``1e-20`` of the largest without
visiting the whole square: Newton's method on the continuous log weights for the mode, their
Hessian for a first box ``10.5`` standard deviations wide, then the box is widened until the
log weights on each of its four sides (every integer point on them) are below the cut.  The
set of terms above the cut is convex when the log weights are concave (checked at the mode),
so a box whose sides stay below the cut holds all of it.

:func:`lattice_weights` then sums the weights on a lattice of ``h_X`` by ``h_U`` steps inside
the box instead of on every integer point.  By Poisson's summation formula the two sums differ
by the weights' Fourier transform at the lattice's frequencies (``m_X / h_X``, ``m_U / h_U``
with ``m`` a non-zero integer pair): for a bump of covariance ``S`` about ``exp(-2 pi^2 q(m))``
with ``q(m) = sum_ij m_i S_ij m_j / (h_i h_j)``.  A rate's density sums the weights times a
component's density, whose log bends too (narrower along one diagonal the more ratings there
are), so ``S`` is taken for the weights alone and for each rate's product at the mode, and the
steps are chosen so that ``q(m) >= 3`` for every one of them (``exp(-59)``, some ``2e-26``).
Strides are taken only in a direction where the weights fall below ``1e-13`` of the largest
before the square's edge (a bump cut off by the edge has no such transform: there the steps
are 1, and the other direction's step is set by its spread given this one).  The error is then
measured, not assumed: a second lattice shifted by half a step gives the mass and the means and
sds of ``X`` and ``U`` again, and the steps are halved until the two agree to ``1e-13``
relative, or to the log weights' own rounding when that is larger (eps times the size of their
log-gamma terms: some 1e-11 at 1,500 ratings, 1e-9 at 100,000).  Each lattice point stands for
the ``h_X h_U`` integer points around it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

_CUT = math.log(1e-20)      # terms below this (relative to the largest) are left out
_REACH = 10.5               # the first box: the mode +- this many standard deviations
_MIN_Q = 3.0                # the lattice's smallest q(m) (see the module's docstring)
_SAFETY = 1.1               # ... with this margin for the component densities' own spread
_SCAN = 401                 # points per direction of the check for a second mode
_AGREE = 1e-13              # the shifted lattices' mass and means must agree this closely
_EDGE = 5.0                 # an edge line holding this times the tolerance of a line through
                            # the mode presses the weights (see locate)


@dataclass(frozen=True)
class _Part:
    """``sum_s sign_s lgamma(offset_s + c_s x) + slope x`` (constants dropped)."""

    terms: tuple[tuple[float, float, float], ...]
    slope: float = 0.0

    def value(self, x: np.ndarray | float) -> np.ndarray | float:
        out = self.slope * x
        for sign, c, off in self.terms:
            out = out + sign * special.gammaln(off + c * x)
        return out

    def size(self, x: float) -> float:
        """The sum of the terms' sizes: rounding makes ``value`` uncertain by about its eps."""
        return abs(self.slope * x) + sum(abs(float(special.gammaln(off + c * x)))
                                         for _, c, off in self.terms)

    def derivatives(self, x: float) -> tuple[float, float]:
        d1, d2 = self.slope, 0.0
        for sign, c, off in self.terms:
            d1 += sign * c * float(special.psi(off + c * x))
            d2 += sign * float(special.polygamma(1, off + c * x))
        return d1, d2


@dataclass(frozen=True)
class Parts:
    """The log weights ``fx(X) + gu(U) + ht(X + U)`` and the ranges of ``X`` and ``U``."""

    fx: _Part
    gu: _Part
    ht: _Part
    x_range: tuple[int, int]
    u_range: tuple[int, int]


def parts(*, A, B, k, M, Ar, Br, Ae, Be, rho, eta) -> Parts:
    """The three parts of the log weights (the same terms as the rates module's grids)."""
    fx: list = [(-1.0, 1.0, 1.0), (-1.0, -1.0, k + 1.0)]            # log C(k, X)
    gu: list = [(-1.0, 1.0, 1.0), (-1.0, -1.0, M - k + 1.0)]        # log C(M - k, U)
    ht: list = [(1.0, 1.0, float(A)), (1.0, -1.0, float(B + M))]    # log B(A + T, B + M - T)
    sx = su = 0.0
    x_range, u_range = (0, k), (0, M - k)
    if rho is None:
        fx.append((1.0, 1.0, float(Ar)))
        gu.append((1.0, 1.0, float(Br)))
        ht.append((-1.0, 1.0, float(Ar + Br)))
    elif 0 < rho < 1:
        sx += math.log(rho)
        su += math.log1p(-rho)
    elif rho == 0:
        x_range = (0, 0)
    else:
        u_range = (0, 0)
    if eta is None:
        fx.append((1.0, -1.0, float(Be + k)))
        gu.append((1.0, -1.0, float(Ae + M - k)))
        ht.append((-1.0, -1.0, float(Ae + Be + M)))
    elif 0 < eta < 1:
        sx -= math.log1p(-eta)
        su -= math.log(eta)
    elif eta == 0:
        u_range = (M - k, M - k)
    else:
        x_range = (k, k)
    return Parts(_Part(tuple(fx), sx), _Part(tuple(gu), su), _Part(tuple(ht)), x_range,
                 u_range)


def log_weights(p: Parts, X: np.ndarray, U: np.ndarray) -> np.ndarray:
    """Log weights on the outer grid (rows ``U``, columns ``X``); ``X``, ``U`` integer-valued.

    ``ht`` is tabulated once on the integers from the smallest to the largest ``X + U``.
    """
    t0 = float(X.min() + U.min())
    table = np.asarray(p.ht.value(t0 + np.arange(X.max() + U.max() - t0 + 1.0)), dtype=float)
    idx = (U[:, None] - U.min()).astype(np.int64) + (X[None, :] - X.min()).astype(np.int64)
    lw = table[idx]
    lw += np.asarray(p.gu.value(U), dtype=float)[:, None]
    lw += np.asarray(p.fx.value(X), dtype=float)[None, :]
    return lw


@dataclass(frozen=True)
class Box:
    """The box of terms above the cut, the Hessian at the mode and which edges it presses."""

    x: tuple[int, int]
    u: tuple[int, int]
    mode: tuple[float, float]
    hess: np.ndarray
    top: float
    pressed_x: bool
    pressed_u: bool


def _lse(values: np.ndarray) -> float:
    top = float(values.max())
    return top + math.log(float(np.exp(values - top).sum())) if np.isfinite(top) else top


def floor(p: Parts, mode: tuple[float, float]) -> float:
    """The tolerance of the lattice's sums: ``1e-13``, or their own rounding when larger.

    Each log weight is off by up to eps times the size of its log-gamma terms, so each sum
    is off by as much, relative, and two sums by twice that (some 1e-11 at 1,500 ratings,
    1e-9 at 100,000).
    """
    xm, um = mode
    size = p.fx.size(xm) + p.gu.size(um) + p.ht.size(xm + um)
    return max(_AGREE, 2.0 * float(np.finfo(float).eps) * size)


def _value(p: Parts, x: float, u: float) -> float:
    return float(p.fx.value(x) + p.gu.value(u) + p.ht.value(x + u))


def _slopes(p: Parts, x: float, u: float) -> tuple[np.ndarray, np.ndarray]:
    """Slope and Hessian of the log weights (a coordinate with one value: slope 0, -1)."""
    (xl, xh), (ul, uh) = p.x_range, p.u_range
    h1, h2 = p.ht.derivatives(x + u)
    g, hess = np.zeros(2), np.array([[-1.0, 0.0], [0.0, -1.0]])
    if xh > xl:
        fx1, fx2 = p.fx.derivatives(x)
        g[0], hess[0, 0] = fx1 + h1, fx2 + h2
    if uh > ul:
        gu1, gu2 = p.gu.derivatives(u)
        g[1], hess[1, 1] = gu1 + h1, gu2 + h2
    if xh > xl and uh > ul:
        hess[0, 1] = hess[1, 0] = h2
    return g, hess


def _mode(p: Parts, start: tuple[float, float]):
    """Newton's method (with backtracking, kept in the square) on the continuous log weights.

    Returns ``(x, u, g, hess, active)``: the mode, the slope and Hessian there and which
    coordinates sit on the square's edge with the slope pointing out of it; None when it does
    not converge or the log weights are not concave in the free coordinates there.
    """
    (xl, xh), (ul, uh) = p.x_range, p.u_range
    x, u = min(max(start[0], xl), xh), min(max(start[1], ul), uh)
    f = _value(p, x, u)
    for _ in range(200):
        g, hess = _slopes(p, x, u)
        free = np.array([xh > xl, uh > ul])
        # a coordinate on the square's edge with the slope pointing out stays there
        at_lo = np.array([x <= xl, u <= ul]) & (g < 0)
        at_hi = np.array([x >= xh, u >= uh]) & (g > 0)
        free &= ~(at_lo | at_hi)
        step = np.zeros(2)
        if free.all():
            if hess[0, 0] < 0 and np.linalg.det(hess) > 0:
                step = -np.linalg.solve(hess, g)
            else:
                # not concave here: up the slope, a step the curvature allows
                step = g / max(float(np.abs(np.diag(hess)).max()), 1e-12)
        elif free.any():
            i = int(np.flatnonzero(free)[0])
            step[i] = -g[i] / hess[i, i] if hess[i, i] < 0 else g[i] / max(
                abs(hess[i, i]), 1e-12)
        if not np.any(step):
            break
        lam = 1.0
        while lam > 1e-14:
            nx = min(max(x + lam * step[0], xl), xh)
            nu = min(max(u + lam * step[1], ul), uh)
            nf = _value(p, nx, nu)
            if nf >= f - 1e-13 * max(1.0, abs(f)):
                break
            lam *= 0.5
        else:
            break
        moved = max(abs(nx - x), abs(nu - u))
        x, u, f = nx, nu, nf
        if moved < 1e-7:
            break
    else:
        return None
    g, hess = _slopes(p, x, u)
    active = np.array([(x <= xl and g[0] < 0) or (x >= xh and g[0] > 0) or xh == xl,
                       (u <= ul and g[1] < 0) or (u >= uh and g[1] > 0) or uh == ul])
    free = ~active
    if free.all():
        if not (hess[0, 0] < 0 and np.linalg.det(hess) > 0):
            return None
    elif free.any():
        i = int(np.flatnonzero(free)[0])
        if not hess[i, i] < 0:
            return None
    return x, u, g, hess, active


def locate(p: Parts, start: tuple[float, float]) -> Box | None:
    """The box of every term within ``1e-20`` of the largest (see the module's docstring).

    None when Newton's method finds no mode with the log weights concave in the coordinates
    not held at an edge, or a coarse scan finds terms above the cut outside the box (a
    second mode); the caller then takes another way.
    """
    found = _mode(p, start)
    if found is None:
        return None
    xm, um, g, hess, active = found
    (xl, xh), (ul, uh) = p.x_range, p.u_range
    # the largest term: the best integer point around the continuous mode
    cx = np.unique(np.clip([math.floor(xm), math.ceil(xm)], xl, xh)).astype(float)
    cu = np.unique(np.clip([math.floor(um), math.ceil(um)], ul, uh)).astype(float)
    top = float(log_weights(p, cx, cu).max())
    # a first box: REACH sds of the free coordinates (given the held ones), and where a
    # held coordinate's slope alone takes the log weights below the cut
    widths = []
    for i in (0, 1):
        if active[i]:
            widths.append(1.2 * -_CUT / max(abs(g[i]), 1e-300) + 2.0)
        elif active[1 - i]:
            widths.append(_REACH * math.sqrt(-1.0 / hess[i, i]) + 2.0)
        else:
            widths.append(_REACH * math.sqrt(float(np.linalg.inv(-hess)[i, i])) + 2.0)
    wx, wu = (min(w, 1e15) for w in widths)
    x0, x1 = max(xl, math.floor(xm - wx)), min(xh, math.ceil(xm + wx))
    u0, u1 = max(ul, math.floor(um - wu)), min(uh, math.ceil(um + wu))
    for _ in range(60):
        xs = np.arange(x0, x1 + 1, dtype=float)
        us = np.arange(u0, u1 + 1, dtype=float)
        sides = {
            "x0": float(log_weights(p, xs[:1], us).max()),
            "x1": float(log_weights(p, xs[-1:], us).max()),
            "u0": float(log_weights(p, xs, us[:1]).max()),
            "u1": float(log_weights(p, xs, us[-1:]).max()),
        }
        top = max(top, *sides.values())
        cut = top + _CUT
        grow_x = max(2, (x1 - x0) // 2)
        grow_u = max(2, (u1 - u0) // 2)
        moved = False
        if sides["x0"] >= cut and x0 > xl:
            x0, moved = max(xl, x0 - grow_x), True
        if sides["x1"] >= cut and x1 < xh:
            x1, moved = min(xh, x1 + grow_x), True
        if sides["u0"] >= cut and u0 > ul:
            u0, moved = max(ul, u0 - grow_u), True
        if sides["u1"] >= cut and u1 < uh:
            u1, moved = min(uh, u1 + grow_u), True
        if not moved:
            # an edge presses the weights when its line holds more than _EDGE times the
            # tolerance of the mass of the parallel line through the mode: a lattice cut off
            # there errs by about (its step / the spread) / sqrt(2 pi) of that share
            tol = floor(p, (xm, um))
            mid_x = float(_lse(log_weights(p, np.array([min(max(round(xm), xl), xh)], float),
                                           us)))
            mid_u = float(_lse(log_weights(p, xs, np.array([min(max(round(um), ul), uh)],
                                                             float))))
            lines = {"x0": (x0 == xl, xs[:1], us, mid_x), "x1": (x1 == xh, xs[-1:], us, mid_x),
                     "u0": (u0 == ul, xs, us[:1], mid_u), "u1": (u1 == uh, xs, us[-1:], mid_u)}
            pressed = {}
            for name, (at_edge, lx, lu, mid) in lines.items():
                pressed[name] = bool(at_edge and float(_lse(log_weights(p, lx, lu))) - mid
                                     >= math.log(_EDGE * tol))
            pressed_x = bool(active[0] or pressed["x0"] or pressed["x1"])
            pressed_u = bool(active[1] or pressed["u0"] or pressed["u1"])
            if _elsewhere(p, (x0, x1), (u0, u1), cut):
                return None
            return Box((int(x0), int(x1)), (int(u0), int(u1)), (xm, um), hess, top,
                       pressed_x, pressed_u)
    return None


def _elsewhere(p: Parts, xb: tuple[int, int], ub: tuple[int, int], cut: float) -> bool:
    """Whether a coarse scan of the whole square finds a term above the cut outside the box.

    The box is grown from one mode; with few paired ratings the weights can have a second
    one (the mirror image that swaps adequate and inadequate outputs).  Such modes are wide:
    the few paired ratings leave them spread over a good part of the square, far more than
    the scan's step (1/400 of each side); with many paired ratings there is one mode only.
    """
    (xl, xh), (ul, uh) = p.x_range, p.u_range
    if (xb == (xl, xh)) and (ub == (ul, uh)):
        return False
    X = np.unique(np.round(np.linspace(xl, xh, _SCAN)))
    U = np.unique(np.round(np.linspace(ul, uh, _SCAN)))
    lw = log_weights(p, X, U)
    outside = ((X < xb[0]) | (X > xb[1]))[None, :] | ((U < ub[0]) | (U > ub[1]))[:, None]
    return bool(np.any(lw[outside] >= cut))


def steps(box: Box, narrowings: tuple[np.ndarray, ...] = ()) -> tuple[int, int]:
    """The lattice's steps: ``q(m) >= 3`` for every non-zero ``m`` (module docstring).

    ``narrowings``: Hessians each added to the weights' in turn (a rate's components' log
    density at a fixed point, which makes each term of that rate's density narrower than
    the weights); every one of them, and the weights alone, must clear the bound.
    """
    target = math.sqrt(_MIN_Q) * _SAFETY
    if box.pressed_x and box.pressed_u:
        return 1, 1
    hessians = [box.hess] + [box.hess + n for n in narrowings]
    if box.pressed_x or box.pressed_u:
        # the spread of the free coordinate given the pressed one
        i = 1 if box.pressed_x else 0
        spread = min(math.sqrt(-1.0 / h[i, i]) for h in hessians)
        step = max(1, int(spread / target))
        return (1, step) if box.pressed_x else (step, 1)
    covs = [np.linalg.inv(-h) for h in hessians]
    sx = min(math.sqrt(c[0, 0]) for c in covs)
    su = min(math.sqrt(c[1, 1]) for c in covs)
    hx, hu = max(1, int(sx / target)), max(1, int(su / target))
    # shrink the larger step (relative to its spread) until every q(m) clears the bound
    while (hx > 1 or hu > 1) and min(_smallest_q(c, hx, hu) for c in covs) < (
            _MIN_Q * _SAFETY ** 2):
        if hx > 1 and (hu == 1 or hx / sx >= hu / su):
            hx = max(1, min(hx - 1, int(hx * 0.9)))
        else:
            hu = max(1, min(hu - 1, int(hu * 0.9)))
    return hx, hu


def _smallest_q(cov: np.ndarray, hx: int, hu: int) -> float:
    """``min q(m)`` over non-zero integer pairs ``m`` (a step of 1: no frequency of its own)."""
    d = np.array([1.0 / hx, 1.0 / hu])
    q = cov * np.outer(d, d)
    lam = float(np.linalg.eigvalsh(q)[0])
    if lam <= 0:
        return 0.0
    # q(m) >= lam |m|^2: pairs beyond this reach clear the bound
    reach = int(math.ceil(math.sqrt(_MIN_Q * _SAFETY ** 2 / lam))) + 1
    mx = np.arange(-reach, reach + 1, dtype=float) if hx > 1 else np.zeros(1)
    mu = np.arange(0, reach + 1, dtype=float) if hu > 1 else np.zeros(1)
    gx, gu = np.meshgrid(mx, mu)
    gx, gu = gx.ravel(), gu.ravel()
    # one of m and -m, and not 0; a step of 1 aliases nothing the full sum does not
    keep = (gu > 0) | ((gu == 0) & (gx > 0))
    gx, gu = gx[keep], gu[keep]
    if gx.size == 0:
        return math.inf
    return float((q[0, 0] * gx * gx + 2.0 * q[0, 1] * gx * gu + q[1, 1] * gu * gu).min())


@dataclass(frozen=True)
class Lattice:
    """Normalised weights on a lattice (rows ``U``, columns ``X``) and their logs."""

    X: np.ndarray
    U: np.ndarray
    w: np.ndarray
    lw: np.ndarray
    steps: tuple[int, int]
    floor: float            # the sums' relative rounding (see lattice_weights)


def _weights_on(p: Parts, box: Box, hx: int, hu: int, sx: int, su: int):
    X = np.arange(box.x[0] + sx, box.x[1] + 1, hx, dtype=float)
    U = np.arange(box.u[0] + su, box.u[1] + 1, hu, dtype=float)
    lw = log_weights(p, X, U) - box.top
    w = np.exp(lw)
    return X, U, w, lw


def _summary(X, U, w) -> tuple[float, float, float, float, float]:
    """Mass, means and sds of ``X`` and ``U`` on a lattice."""
    mass = float(w.sum())
    px, pu = w.sum(axis=0) / mass, w.sum(axis=1) / mass
    mx, mu = float(px @ X), float(pu @ U)
    return (mass, mx, mu, math.sqrt(max(float(px @ (X - mx) ** 2), 0.0)),
            math.sqrt(max(float(pu @ (U - mu) ** 2), 0.0)))


def lattice_weights(p: Parts, box: Box, narrowings: tuple[np.ndarray, ...] = (),
                    max_points: int = 4_000_000) -> Lattice | None:
    """The weights on the coarsest lattice whose shifted copy agrees (module docstring).

    None when the lattice would hold more than ``max_points`` points.
    """
    hx, hu = steps(box, narrowings)
    agree = floor(p, box.mode)
    while True:
        size = ((box.x[1] - box.x[0]) // hx + 1) * ((box.u[1] - box.u[0]) // hu + 1)
        if size > max_points:
            return None
        X, U, w, lw = _weights_on(p, box, hx, hu, 0, 0)
        if hx == 1 and hu == 1:
            break
        X2, U2, w2, _ = _weights_on(p, box, hx, hu, hx // 2, hu // 2)
        a, b = _summary(X, U, w), _summary(X2, U2, w2)
        if (abs(a[0] - b[0]) <= agree * a[0] and abs(a[1] - b[1]) <= agree * max(a[3], 1.0)
                and abs(a[2] - b[2]) <= agree * max(a[4], 1.0)):
            break
        hx, hu = max(1, hx // 2), max(1, hu // 2)
    # trim lattice lines wholly below the cut (the box was found with room to spare)
    keep = lw >= _CUT
    rows, cols = np.flatnonzero(keep.any(axis=1)), np.flatnonzero(keep.any(axis=0))
    r0, r1, c0, c1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    X, U, w, lw = X[c0:c1], U[r0:r1], w[r0:r1, c0:c1], lw[r0:r1, c0:c1]
    total = float(w.sum())
    return Lattice(X, U, w / total, lw - math.log(total), (hx, hu), agree)
