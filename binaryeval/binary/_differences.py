"""Equal-tailed intervals of ``alpha_i - alpha_j`` for many pairs of posteriors at once.

:func:`~binaryeval.binary.compare.difference_interval` finds one pair's interval by Brent's
method over an adaptive quadrature: exact, but some milliseconds a pair, hours for the half
million pairs of a thousand groups.  Here every pair is solved side by side, on surrogates of the
posteriors that cost a few arithmetic operations to evaluate, each with a checked error.

Surrogates
----------
Each posterior's distribution function is written in its normal score,
``F(x) = Phi(z((x - m) / s))`` (``m``, ``s`` its mean and standard deviation), and ``z`` (nearly
the identity for a posterior close to normal) is interpolated by a Chebyshev polynomial in
``t = (x - m) / s`` over the posterior's ``DOMAIN_TAIL`` = 1e-12 quantiles (beyond them the
tail probabilities carry more rounding than they are worth), from exact values at Chebyshev
points of the second kind (each on its small side: ``Phi^-1(F)`` below the mean, ``-Phi^-1(S)``
above).  Outside the quantiles ``F`` is 0 or 1 (wrong by at most 1e-12).  The degree doubles
from 16 to 512 until three times the error of the interpolant of half the degree, measured as
``|Phi(z~) - F|`` at the new points (halfway between the old ones, where an interpolant errs
most), is within 1e-10; that is kept as the bound of the finer one.  For fast evaluation the
interpolant is then tabulated with its slope on 256 equal cells (or 512, 1024, 2048: the first
that meets the tolerance), read by cubic Hermite interpolation, and the table is checked the
same way at the cells' midpoints.  The pairs read the wide posterior's ``F`` itself from a
second table: quintic Hermite interpolation on 256 (or 512, 1024) equal cells, matching
``F = Phi(z)``, its density and the density's slope at the cell ends (from the interpolant's
first two derivatives), so that a node costs a few products and no normal distribution
function or exponential; it is checked at the cells' midpoints too.  ``e``, the interpolant's
bound plus three times the larger table error, stays within 1e-10 (the tests hold both tables
to it at random points).  A posterior that does not meet it (or has separate modes) is left to
the pair-by-pair path.

Each pair
---------
With ``n`` the narrower posterior and ``w`` the other, ``P(alpha_1 - alpha_2 <= d)`` is
``E[F_w(Y_n + d)]`` or ``E[S_w(Y_n - d)] = 1 - E[F_w(Y_n - d)]`` (``F_w`` from the quintic
table).  The expectation over ``Y_n`` is a Gauss-Hermite rule in the normal score: nodes
``y_k = F~_n^-1(Phi(z_k))`` (the cubic table's quantiles at the rule's points) with the rule's
weights.  Each end is the root of ``H(d) = q`` by Halley's method from
the Cornish-Fisher quantile of the difference (its cumulants are exact sums of the two
posteriors'), every pair at once.

The error bound
---------------
For independent pairs, replacing each distribution function by its surrogate moves ``H`` by at
most ``e_1 + e_2`` (``H = E[F_1(Y_2 + d)]``, and swapping ``F_2`` for ``F~_2`` moves it by at
most ``sup |F~_2 - F_2|``). The rule's own error ``e_rule`` is taken as twice the difference
between the main rule and a check rule with 8 points fewer (32 and 24 points, then 48 and 40,
then 64 and 56: twice the difference bounds the main rule's error whenever the check rule errs
by at most three times as much, as Gauss rules on these smooth integrands do). An end ``d`` is
accepted when ``|H~(d) - q| + e_1 + e_2 + e_rule <= h~(d) * TOL / 2`` (``h~`` the difference's
density there): then ``H(d - TOL) < q < H(d + TOL)``, so the exact end lies within ``TOL =
1e-9`` of ``d`` (the density does not change on that scale for any posterior the engine builds).

The bound, then: each certified end within ``TOL = 1e-9`` of the exact end, given the
surrogates' checked errors ``e`` (three times the largest seen at the check points) and the
rule's error bounded as above.  The tests hold it against an independent computation (composite
Gauss-Legendre quadrature of the exact densities and distribution functions, Newton's method to
1e-14) on pairs of 19 posteriors (mixtures of 300 to 3 x 10^4 metric ratings, Betas of 60 to
10^5 ratings): the largest error measured over 57 of the 171 pairs at two levels is 2.3e-10.  Pairs that are not accepted after a few steps, and pairs with a posterior
left to the pair-by-pair path, are answered by
:func:`~binaryeval.binary.compare.difference_interval`.  The tests hold the ends to 1e-9 of
that function and of adaptive quadrature on Beta pairs.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from . import _stack

__all__ = ["DOMAIN_TAIL", "TOL", "Surrogates", "intervals"]

TOL = 1e-9             # stated bound on each interval end
DOMAIN_TAIL = 1e-12    # the surrogates' domain: between these quantiles
_F_TOL = 1e-10         # surrogate error accepted for a posterior's distribution function
_SAFETY = 3.0          # the stated error: this times the largest error seen at the checks
_DEGREES = (16, 32, 64, 128, 256, 512)
_CELLS = (256, 512, 1024, 2048)  # grid cells of the cubic Hermite table over the domain
_F_CELLS = (256, 512, 1024)  # cells of the quintic table of F over the domain
_RULES = ((32, 24), (48, 40), (64, 56))   # Gauss-Hermite rules: main rule and its check
_CHUNK = 200_000       # elements (pairs x nodes) per work array
_STEPS = 6


def _cheb_points(n: int) -> np.ndarray:
    """The ``n + 1`` Chebyshev points of the second kind on [-1, 1] (descending).

    Those of ``2 n`` are these and the ``n`` points halfway (in angle) between them.
    """
    return np.cos(np.pi * np.arange(n + 1) / n)


def _cheb_coefs(values: np.ndarray) -> np.ndarray:
    """Chebyshev coefficients of the interpolants through ``values`` (rows).

    At :func:`_cheb_points`: the discrete cosine transform of the first kind.
    """
    n = values.shape[1] - 1
    k = np.arange(n + 1)
    v = values.copy()
    v[:, 0] *= 0.5
    v[:, -1] *= 0.5
    c = (2.0 / n) * (v @ np.cos(np.pi * np.outer(k, k) / n).T)
    c[:, 0] *= 0.5
    c[:, -1] *= 0.5
    return c


def _clenshaw(c: np.ndarray, u: np.ndarray, deriv: bool = False):
    """``sum_j c[:, j] T_j(u)`` (and its derivative in ``u``) for rows ``c`` and ``u`` (rows)."""
    n = c.shape[1] - 1
    u2 = 2.0 * u
    b1 = np.zeros(u.shape)
    b2 = np.zeros(u.shape)
    for j in range(n, 0, -1):
        b1, b2 = u2 * b1 - b2 + c[:, j, None], b1
    val = u * b1 - b2 + c[:, 0, None]
    if not deriv:
        return val, None
    # the derivative's coefficients: c'_{j-1} = c'_{j+1} + 2 j c_j, c'_0 halved
    dc = np.zeros_like(c)
    for j in range(n, 0, -1):
        dc[:, j - 1] = (dc[:, j + 1] if j + 1 <= n else 0.0) + 2.0 * j * c[:, j]
    dc[:, 0] *= 0.5
    b1 = np.zeros(u.shape)
    b2 = np.zeros(u.shape)
    for j in range(n - 1, 0, -1):
        b1, b2 = u2 * b1 - b2 + dc[:, j, None], b1
    return val, u * b1 - b2 + dc[:, 0, None]


def _vander(n: int, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``T_j(u_k)`` and ``T_j'(u_k) = j U_{j-1}(u_k)`` for ``j <= n`` (rows ``j``)."""
    T = np.empty((n + 1, u.size))
    dT = np.empty((n + 1, u.size))
    T[0], dT[0] = 1.0, 0.0
    U_prev, U = np.zeros(u.size), np.ones(u.size)      # U_{-1}, U_0
    if n >= 1:
        T[1], dT[1] = u, 1.0
    for j in range(2, n + 1):
        T[j] = 2.0 * u * T[j - 1] - T[j - 2]
        U_prev, U = U, 2.0 * u * U - U_prev            # U_{j-1}
        dT[j] = j * U
    return T, dT


def _hermite(z0, z1, d0, d1, r, deriv: bool):
    """Cubic Hermite interpolation on [0, 1] (``d`` the end slopes times the step)."""
    r2 = r * r
    r3 = r2 * r
    val = (2.0 * r3 - 3.0 * r2 + 1.0) * z0 + (r3 - 2.0 * r2 + r) * d0 \
        + (3.0 * r2 - 2.0 * r3) * z1 + (r3 - r2) * d1
    if not deriv:
        return val, None
    slope = (6.0 * r2 - 6.0 * r) * (z0 - z1) + (3.0 * r2 - 4.0 * r + 1.0) * d0 \
        + (3.0 * r2 - 2.0 * r) * d1
    if deriv != 2:
        return val, slope
    curv = (12.0 * r - 6.0) * (z0 - z1) + (6.0 * r - 4.0) * d0 + (6.0 * r - 2.0) * d1
    return val, slope, curv


def _quintic(z, dz, d2z):
    """Each cell's quintic in ``r`` for ``F = Phi(z)`` from ``z`` and its two derivatives.

    ``z``, ``dz``, ``d2z`` at the cell ends, the derivatives per cell (times the step and its
    square); the Hermite interpolant matching ``F``, ``F'`` and ``F''`` at both ends, in power
    form ``c0 + c1 r + ... + c5 r^5`` (one array per coefficient).
    """
    phi = np.exp(-0.5 * np.minimum(z * z, 1e300)) / np.sqrt(2.0 * np.pi)
    F = special.ndtr(z)
    d = phi * dz
    s2 = phi * (d2z - z * dz * dz)
    F0, F1, d0, d1, s0, s1 = F[:, :-1], F[:, 1:], d[:, :-1], d[:, 1:], s2[:, :-1], s2[:, 1:]
    A = F1 - F0 - d0 - 0.5 * s0
    Bv = d1 - d0 - s0
    Cv = s1 - s0
    return (F0, d0, 0.5 * s0, 10.0 * A - 4.0 * Bv + 0.5 * Cv, -15.0 * A + 7.0 * Bv - Cv,
            6.0 * A - 3.0 * Bv + 0.5 * Cv)


def _quintic_table(c: np.ndarray, cells: int):
    """The quintic cells of ``F = Phi(z)`` for the interpolants ``c`` (rows), and their errors.

    ``cells`` equal cells over the domain; the error is the largest ``|F~ - Phi(z)|`` at the
    cells' midpoints (where the interpolant matching three numbers at each end errs most).
    """
    grid = np.linspace(-1.0, 1.0, 2 * cells + 1)
    basis, slopes = _vander(c.shape[1] - 1, grid)
    c2 = np.polynomial.chebyshev.chebder(c, 2, axis=1)
    z, dz, d2z = c @ basis, c @ slopes, c2 @ basis[:c2.shape[1]]
    step = 2.0 / cells
    with np.errstate(invalid="ignore", over="ignore"):
        quintic = _quintic(z[:, ::2], dz[:, ::2] * step, d2z[:, ::2] * step ** 2)
        mid = sum(q * 0.5 ** m for m, q in enumerate(quintic))
        err = np.max(np.abs(mid - special.ndtr(z[:, 1::2])), axis=1)
    return quintic, err


def _side_error(z_approx, tail, upper):
    """``|Phi(z~) - F|`` measured on each point's small side."""
    return np.abs(special.ndtr(np.where(upper, -z_approx, z_approx)) - tail)


class Surrogates:
    """Normal-score surrogates of many posteriors' distribution functions (see the notes).

    Per posterior: ``mean``, ``sd``, the domain ``lo``/``hi`` in ``t``, the checked ``error``
    of the distribution function, ``ok`` (it meets the tolerance), ``third``/``fourth``
    (central moments, for the starting point), a cubic Hermite table of ``z`` on a uniform
    grid in ``t`` (flat arrays; ``offset``, ``cells`` per posterior) for the quantile nodes, and
    a quintic one of ``F`` (``fcoef``; ``offset_f``, ``cells_f``) for the pairs' sums.
    """

    def __init__(self, posts, lower: np.ndarray, upper: np.ndarray):
        G = len(posts)
        self.mean = np.array([p.mean() for p in posts], dtype=float)
        self.sd = np.array([p.std() for p in posts], dtype=float)
        self.third = np.zeros(G)
        self.fourth = 3.0 * self.sd ** 4
        for g, p in enumerate(posts):
            central = getattr(p, "_central_moments", None)
            if central is not None and not getattr(p, "parts", ()):
                self.third[g], self.fourth[g] = central()
        with np.errstate(divide="ignore", invalid="ignore"):
            self.lo = (np.asarray(lower, dtype=float) - self.mean) / self.sd
            self.hi = (np.asarray(upper, dtype=float) - self.mean) / self.sd
        self.error = np.full(G, np.inf)
        usable = (np.isfinite(self.lo) & np.isfinite(self.hi) & (self.hi > self.lo)
                  & (self.sd > 0) & np.array([not getattr(p, "parts", ()) for p in posts]))
        # the materialised mixtures' exact values from one stack (shared in _stack.reuse())
        every = [g for g in np.flatnonzero(usable).tolist()
                 if getattr(posts[g], "smooth", 0) is None]
        self._mixtures = (_stack.both_sides([posts[g].components() for g in every]) if every
                          else None, {g: k for k, g in enumerate(every)})
        coefs = self._chebyshev(posts, np.flatnonzero(usable))
        self._table(coefs)
        self._mixtures = None
        # beyond the domain the surrogate's 0 or 1 is off by the tail's mass
        self.error = np.maximum(self.error, DOMAIN_TAIL)
        self.ok = self.error <= _F_TOL

    # -- exact values -----------------------------------------------------------------------
    def _exact(self, posts, rows: np.ndarray, t: np.ndarray):
        """Exact normal scores of posteriors ``rows`` at ``t`` (rows x points).

        Each point on its small side (``Phi^-1(F)`` below the mean, ``-Phi^-1(S)`` above);
        also the tail probabilities and which side.
        """
        x = np.clip(self.mean[rows, None] + self.sd[rows, None] * t, 0.0, 1.0)
        upper = t > 0.0
        tail = np.empty(t.shape)
        stack, place = self._mixtures
        stacked = [k for k, g in enumerate(rows) if g in place]
        if stacked:
            n = len(place)
            grp = np.repeat([place[rows[k]] for k in stacked], t.shape[1])
            sub_up = upper[stacked].ravel()
            sub_x = x[stacked].ravel()
            grp = np.where(sub_up, grp + n, grp)
            y = np.where(sub_up, 1.0 - sub_x, sub_x)
            inner = (y > 0.0) & (y < 1.0)
            vals = np.where(y >= 1.0, 1.0, 0.0)
            if inner.any():
                vals[inner] = stack.cdf(grp[inner], y[inner])
            tail[stacked] = vals.reshape(len(stacked), t.shape[1])
        done = set(stacked)
        for k, g in enumerate(rows):
            if k not in done:
                p = posts[g]
                tail[k] = np.where(upper[k], p.sf(x[k]), p.cdf(x[k]))
        with np.errstate(divide="ignore"):
            z = special.ndtri(np.clip(tail, 0.0, 1.0))
        return np.where(upper, -z, z), tail, upper

    def _chebyshev(self, posts, rows: np.ndarray) -> dict[int, np.ndarray]:
        """Chebyshev interpolants of ``z`` in ``t`` on each domain.

        The degree doubles until the interpolant of half the degree is within the tolerance
        at the new points.
        """
        out: dict[int, np.ndarray] = {}
        if not rows.size:
            return out
        n = _DEGREES[0]
        mid = 0.5 * (self.hi + self.lo)
        rad = 0.5 * (self.hi - self.lo)
        t = mid[rows, None] + rad[rows, None] * _cheb_points(n)[None, :]
        values, _, _ = self._exact(posts, rows, t)
        for n in _DEGREES[1:]:
            new = _cheb_points(n)[1::2]
            t = mid[rows, None] + rad[rows, None] * new[None, :]
            z, tail, upper = self._exact(posts, rows, t)
            finite = np.isfinite(values).all(axis=1) & np.isfinite(z).all(axis=1)
            half = _cheb_coefs(np.where(np.isfinite(values), values, 0.0))
            approx, _ = _clenshaw(half, np.broadcast_to(new, z.shape).copy())
            err = np.max(_side_error(approx, tail, upper), axis=1)
            err[~finite] = np.inf
            both = np.empty((rows.size, n + 1))
            both[:, ::2], both[:, 1::2] = values, z
            accept = _SAFETY * err <= _F_TOL
            if accept.any():
                out[n] = (rows[accept], _cheb_coefs(both[accept]))
                self.error[rows[accept]] = _SAFETY * err[accept]
            rows, values = rows[~accept], both[~accept]
            if not rows.size:
                break
        return out

    def _table(self, coefs) -> None:
        """The cubic Hermite tables of ``z`` and quintic ones of ``F`` from the interpolants.

        Checked halfway between the grid points (the finer grid where the coarser one misses
        the tolerance); the stated error is the interpolant's plus the worse table's.
        """
        G = self.mean.size
        self.cells = np.zeros(G, dtype=np.int64)
        self.cells_f = np.zeros(G, dtype=np.int64)
        cheb = self.error.copy()
        table_err = np.zeros(G)
        pieces_z, pieces_d, owners = [], [], []
        pieces_f, owners_f = [], []
        for _, (rows_all, c_all) in sorted(coefs.items()):
            rows, c = rows_all, c_all
            for cells in _CELLS:
                if not rows.size:
                    break
                grid = np.linspace(-1.0, 1.0, 2 * cells + 1)
                basis, slopes = _vander(c.shape[1] - 1, grid)
                z, dz = c @ basis, c @ slopes
                step = 2.0 / cells
                z0, z1 = z[:, 0:-2:2], z[:, 2::2]
                d0, d1 = dz[:, 0:-2:2] * step, dz[:, 2::2] * step
                half, _ = _hermite(z0, z1, d0, d1, 0.5, deriv=False)
                with np.errstate(invalid="ignore"):
                    dens = np.exp(-0.5 * np.minimum(z[:, 1::2] ** 2, 1e300)) / np.sqrt(2 * np.pi)
                err = np.max(np.abs(half - z[:, 1::2]) * dens * 1.01, axis=1)
                accept = cheb[rows] + _SAFETY * err <= _F_TOL
                if accept.any():
                    table_err[rows[accept]] = err[accept]
                    self.cells[rows[accept]] = cells
                    pieces_z.append(z[accept, ::2])
                    pieces_d.append(dz[accept, ::2] * step)
                    owners.append(rows[accept])
                rows, c = rows[~accept], c[~accept]
            # the quintic tables of F, as coarse as the tolerance allows
            keep = self.cells[rows_all] > 0
            rows, c = rows_all[keep], c_all[keep]
            for cells in _F_CELLS:
                if not rows.size:
                    break
                quintic, err = _quintic_table(c, cells)
                accept = cheb[rows] + _SAFETY * np.maximum(table_err[rows], err) <= _F_TOL
                if accept.any():
                    table_err[rows[accept]] = np.maximum(table_err[rows[accept]], err[accept])
                    self.cells_f[rows[accept]] = cells
                    # each row's cells between a cell of 0 below the domain and one of 1 above
                    block = np.zeros((6, int(accept.sum()), cells + 2))
                    block[0, :, -1] = 1.0
                    for m, q in enumerate(quintic):
                        block[m, :, 1:-1] = q[accept]
                    pieces_f.append(block.reshape(6, -1))
                    owners_f.append(rows[accept])
                rows, c = rows[~accept], c[~accept]
        # usable: both tables within the tolerance
        both = (self.cells > 0) & (self.cells_f > 0)
        self.error = np.where(both, cheb + _SAFETY * table_err, np.inf)
        self.offset = np.zeros(G, dtype=np.int64)
        self.offset_f = np.zeros(G, dtype=np.int64)
        if owners:
            own = np.concatenate(owners)
            sizes = self.cells[own] + 1
            self.offset[own] = np.r_[0, np.cumsum(sizes)[:-1]]
            self.z = np.concatenate([r for piece in pieces_z for r in piece])
            self.dz = np.concatenate([r for piece in pieces_d for r in piece])
        else:
            self.z = self.dz = np.zeros(2)
        if owners_f:
            own = np.concatenate(owners_f)
            self.offset_f[own] = np.r_[0, np.cumsum(self.cells_f[own] + 2)[:-1]]
            self.fcoef = tuple(np.concatenate([piece[m] for piece in pieces_f])
                               for m in range(6))
        else:
            self.fcoef = tuple(np.zeros(2) for _ in range(6))
        # each cell's cubic in r in power form, c0 + c1 r + c2 r^2 + c3 r^3 (the Hermite
        # interpolant rewritten: the same polynomial), one array per coefficient: np.take of
        # each reads a point's four numbers several times faster than indexing rows of one table
        z0, z1, d0, d1 = self.z[:-1], self.z[1:], self.dz[:-1], self.dz[1:]
        self.coef = (z0, d0, 3.0 * (z1 - z0) - 2.0 * d0 - d1, 2.0 * (z0 - z1) + d0 + d1)
        # the cell coordinate is (x - mean) * scale + shift
        with np.errstate(divide="ignore", invalid="ignore"):
            self.scale = self.cells / ((self.hi - self.lo) * self.sd)
            self.shift = -self.lo * self.cells / (self.hi - self.lo)
            # the quintic table's cell coordinate is x * scale_f + shift_f
            self.scale_f = self.cells_f / ((self.hi - self.lo) * self.sd)
            self.shift_f = (-self.lo * self.cells_f / (self.hi - self.lo)
                            - self.mean * self.scale_f)

    def values(self, g: np.ndarray, x: np.ndarray, deriv: bool):
        """The surrogate's ``F~``, ``f~`` and ``f~'`` of posteriors ``g`` (rows) at ``x``.

        From the quintic table (no normal-distribution function to evaluate); 0 below the
        domain and 1 above it, the derivatives 0 there.  ``deriv`` False: ``F~`` alone.
        """
        cells = self.cells_f[g, None].astype(float)
        scale = self.scale_f[g, None]
        pos = x * scale
        pos += self.shift_f[g, None]
        np.maximum(pos, -1.0, out=pos)
        np.minimum(pos, cells, out=pos)
        k = np.floor(pos)
        r = pos - k
        at = k.astype(np.int64)
        at += self.offset_f[g, None] + 1
        c0, c1, c2, c3, c4, c5 = (np.take(column, at) for column in self.fcoef)
        val = c0 + r * (c1 + r * (c2 + r * (c3 + r * (c4 + r * c5))))
        if not deriv:
            return val, None, None
        slope = (c1 + r * (2.0 * c2 + r * (3.0 * c3 + r * (4.0 * c4 + r * (5.0 * c5))))) * scale
        curv = (2.0 * c2 + r * (6.0 * c3 + r * (12.0 * c4 + r * (20.0 * c5)))) * (scale * scale)
        return val, slope, curv

    def scores(self, g: np.ndarray, x: np.ndarray, deriv: bool):
        """Normal scores ``z~`` of posteriors ``g`` (rows) at ``x`` (rows x nodes), with ``dz/dx``.

        Points outside a posterior's domain get ``-inf``/``+inf`` (and derivative 0).
        """
        cells = self.cells[g, None]
        pos = (x - self.mean[g, None]) * self.scale[g, None] + self.shift[g, None]
        inside = (pos >= 0.0) & (pos <= cells)
        k = np.minimum(np.maximum(np.floor(pos), 0.0), cells - 1).astype(np.int64)
        r = pos - k
        at = self.offset[g, None] + k
        c0, c1, c2, c3 = (np.take(column, at) for column in self.coef)
        val = np.where(inside, c0 + r * (c1 + r * (c2 + r * c3)),
                       np.where(pos < 0.0, -np.inf, np.inf))
        if not deriv:
            return val, None
        scale = self.scale[g, None]
        slope = np.where(inside, (c1 + r * (2.0 * c2 + 3.0 * r * c3)) * scale, 0.0)
        return val, slope

    def quantile_nodes(self, rule, among: np.ndarray | None = None) -> np.ndarray:
        """Each posterior's surrogate quantiles at ``Phi(z_k)`` for the rule's points ``z_k``.

        Solves ``z~(t) = z_k`` by Newton's method from ``t = z_k`` (bisection on the domain when
        a step leaves the bracket); rows of surrogates that are not usable, or not ``among``
        the posteriors asked for (all by default), are NaN.
        """
        zk = rule[0]
        G = self.mean.size
        wanted = self.ok.copy()
        if among is not None:
            wanted &= np.isin(np.arange(G), among)
        rows = np.flatnonzero(wanted)
        x = np.full((G, zk.size), np.nan)
        if not rows.size:
            return x
        target = np.broadcast_to(zk, (rows.size, zk.size))
        m, s = self.mean[rows, None], self.sd[rows, None]
        lo_x = m + s * self.lo[rows, None] + 0.0 * target
        hi_x = m + s * self.hi[rows, None] + 0.0 * target
        cur = np.clip(m + s * target, lo_x, hi_x)
        # a point beyond the table's values (the rule's outermost points lie beyond the
        # domain's 1e-12 quantiles) is the domain's end, where the search would bisect to
        first = self.z[self.offset[rows]][:, None]
        last = self.z[self.offset[rows] + self.cells[rows]][:, None]
        beyond = (target <= first) | (target >= last)
        cur = np.where(target <= first, lo_x, np.where(target >= last, hi_x, cur))
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            for _ in range(80):
                z, dz = self.scores(rows, cur, deriv=True)
                f = z - target
                lo_x = np.where(f < 0.0, cur, lo_x)
                hi_x = np.where(f > 0.0, cur, hi_x)
                new = cur - f / dz
                # (a step onto the bracket's end is no step out: a converged point, whose
                # last rounding-sized residual moved that end onto it, stays there)
                out = ~(new >= lo_x) | ~(new <= hi_x)
                new = np.where(out, 0.5 * (lo_x + hi_x), new)
                new = np.where(beyond, cur, new)
                done = np.abs(new - cur) <= 1e-15 * np.maximum(1.0, np.abs(cur))
                cur = new
                if done.all():
                    break
        x[rows] = cur
        return x


def intervals(posts, first: np.ndarray, second: np.ndarray, level: float,
              lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Interval ends of ``alpha_first - alpha_second`` for the pairs ``(first[k], second[k])``.

    ``lower``/``upper``: each posterior's :data:`DOMAIN_TAIL` quantiles.  Returns ``(lo, hi, ok)``: ``ok``
    marks the pairs whose ends are certified within :data:`TOL` (the others are NaN).
    """
    sur = Surrogates(posts, lower, upper)
    P = first.size
    out = np.full((P, 2), np.nan)
    good = np.zeros(P, dtype=bool)
    idx = np.flatnonzero(sur.ok[first] & sur.ok[second])
    # pairs that read the same wide posterior's table side by side, so that its table stays
    # in the cache (each pair's ends do not depend on the order)
    wide = np.where(sur.sd[second] <= sur.sd[first], first, second)
    idx = idx[np.argsort(wide[idx], kind="stable")]
    q = np.array([(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    # the pairs one rule pair cannot certify go to the next (more points)
    for main, check in _RULES:
        if not idx.size:
            break
        rule, check_rule = (np.polynomial.hermite_e.hermegauss(n) for n in (main, check))
        # (the later rules, for the few pairs left, only on the posteriors of those pairs)
        among = np.union1d(first[idx], second[idx])
        nodes = sur.quantile_nodes(rule, among)
        check_nodes = sur.quantile_nodes(check_rule, among)
        w, wc = rule[1] / rule[1].sum(), check_rule[1] / check_rule[1].sum()
        per = max(1, _CHUNK // (2 * main))
        for start in range(0, idx.size, per):
            k = idx[start:start + per]
            out[k], good[k] = _solve(sur, nodes, check_nodes, w, wc, first[k], second[k], q)
        idx = idx[~good[idx]]
    return out[:, 0], out[:, 1], good


def _solve(sur: Surrogates, nodes, check_nodes, w, wc, i, j, q):
    """Both ends for the pairs ``(i, j)`` (arrays); see the module notes."""
    n = i.size
    # rows: each pair twice (lower and upper end)
    i2, j2 = np.repeat(i, 2), np.repeat(j, 2)
    p = np.tile(q, n)
    narrow_second = sur.sd[j2] <= sur.sd[i2]
    narrow = np.where(narrow_second, j2, i2)
    wide = np.where(narrow_second, i2, j2)
    sign = np.where(narrow_second, 1.0, -1.0)    # F_w(y + d) or S_w(y - d)
    y = nodes[narrow]
    yc = check_nodes[narrow]
    # Cornish-Fisher start from the exact cumulants of the difference
    mean = sur.mean[i2] - sur.mean[j2]
    var = sur.sd[i2] ** 2 + sur.sd[j2] ** 2
    sd = np.sqrt(var)
    k3 = sur.third[i2] - sur.third[j2]
    k4 = (sur.fourth[i2] - 3.0 * sur.sd[i2] ** 4) + (sur.fourth[j2] - 3.0 * sur.sd[j2] ** 4)
    g1, g2 = k3 / sd ** 3, k4 / var ** 2
    zq = special.ndtri(p)
    wq = (zq + (zq ** 2 - 1.0) * g1 / 6.0 + (zq ** 3 - 3.0 * zq) * g2 / 24.0
          - (2.0 * zq ** 3 - 5.0 * zq) * g1 ** 2 / 36.0)
    d = mean + sd * wq
    bound = sur.error[i2] + sur.error[j2]
    ok = np.zeros(2 * n, dtype=bool)
    active = np.arange(2 * n)
    for _ in range(_STEPS):
        if not active.size:
            break
        a = active
        H, h, hp = _cdf(sur, y[a], w, wide[a], sign[a], d[a], density=True)
        resid = H - p[a]
        close = (h > 0.0) & (np.abs(resid) + bound[a] <= 0.25 * TOL * h)
        if close.any():
            # the second rule's value estimates the first's error: certified or left over
            c = a[close]
            Hc, _, _ = _cdf(sur, yc[c], wc, wide[c], sign[c], d[c], density=False)
            # (the difference of the two rules, doubled: a bound of the main rule's error as
            # long as the check rule errs by no more than three times the main one)
            err = np.abs(resid[close]) + bound[c] + 2.0 * np.abs(H[close] - Hc)
            ok[c] = err <= 0.5 * TOL * h[close]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # Halley's step (the curvature from the tables), Newton's where it misleads
            denom = 2.0 * h * h - resid * hp
            halley = 2.0 * resid * h / denom
            newton = resid / h
            use = (denom > h * h) & np.isfinite(halley)
            new = np.clip(d[a] - np.where(use, halley, newton), -1.0, 1.0)
        d[a] = np.where(close | ~np.isfinite(new), d[a], new)
        active = a[~close]
    ends = d.reshape(n, 2)
    good = ok.reshape(n, 2).all(axis=1)
    ends[~good] = np.nan
    return ends, good


def _cdf(sur: Surrogates, y: np.ndarray, w: np.ndarray, wide: np.ndarray, sign: np.ndarray,
         d: np.ndarray, density: bool):
    """``H(d) = sum_k w_k G(y_k +/- d)`` with ``G`` the wide posterior's F (sign +) or S (-)."""
    x = y + sign[:, None] * d[:, None]
    F, f, fp = sur.values(wide, x, deriv=density)
    # S(y - d) = 1 - F(y - d): the same absolute accuracy
    Fw = F @ w
    H = np.where(sign > 0.0, Fw, 1.0 - Fw)
    if not density:
        return H, None, None
    # dH/dd = sum w_k f(x_k) (the sign cancels: d/dd of S(y - d) is f(y - d));
    # d2H/dd2 = +/- sum w_k f'(x_k)
    return H, f @ w, sign * (fp @ w)
