"""The binary model's posterior of alpha by direct numerical integration (test helper).

Written for the tests from the model alone, with none of the package's code: uniform priors on
``alpha``, ``rho`` and ``eta``; human ratings ``Binomial(human_total, alpha)``, paired ratings
``Binomial(tp + fn, rho)`` and ``Binomial(tn + fp, eta)``, metric-only ratings
``Binomial(metric_total, p)`` with ``p = alpha rho + (1 - alpha)(1 - eta)``.  Then

    f(alpha) = alpha^h+ (1 - alpha)^h- * I(alpha),
    I(alpha) = integral over (rho, eta) of Beta(rho; tp + 1, fn + 1) Beta(eta; tn + 1, fp + 1)
               p^m+ (1 - p)^m-.

The metric factor is sharp along the lines ``p = const`` (10 000 metric ratings give it a width of
about 0.005), so ``(rho, eta)`` are changed to ``(p, x)``, ``x`` the rate along the line:
``rho`` when ``alpha <= 1/2`` (then ``eta`` is a function of ``(p, rho)``, Jacobian ``1/(1 - alpha)``),
``eta`` otherwise (Jacobian ``1/alpha``).  Along a line the integrand is a product of two Beta
densities no sharper than the rates' own posteriors, and in ``p`` the sharp factor is a Beta
density in ``p``.  Every integral is composite Gauss-Legendre over the region where its Beta density
exceeds 1e-16 of its mass, split where the integrand has a kink (``p = alpha``, ``p = 1 - alpha``,
where a rate reaches 0 or 1).  Doubling every node count (``panels=8``) changes the mean, sd and
2.5/97.5 % quantiles of the seven reference cases of ``test_grid.py`` by less than 1e-10; both
node counts agree with the package's exact engine to 1e-11 or better (measured).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special, stats

_X16, _W16 = np.polynomial.legendre.leggauss(16)


def _nodes(edges: np.ndarray, n_panels: int) -> tuple[np.ndarray, np.ndarray]:
    """Composite 16-point Gauss-Legendre nodes and weights on [edges[i], edges[i + 1]] pieces.

    ``edges`` has shape (..., 2) (one interval per leading index) or is a sorted break list.
    """
    lo, hi = edges[..., 0], edges[..., 1]
    width = np.maximum(hi - lo, 0.0) / n_panels
    k = np.arange(n_panels)
    mid = lo[..., None] + (k + 0.5) * width[..., None]                  # (..., panels)
    x = mid[..., None] + 0.5 * width[..., None, None] * _X16            # (..., panels, 16)
    w = 0.5 * width[..., None, None] * np.broadcast_to(_W16, x.shape)
    shape = (*lo.shape, n_panels * 16)
    return x.reshape(shape), w.reshape(shape)


def _log_beta_pdf(x: np.ndarray, a: float, b: float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        out = special.xlogy(a - 1, x) + special.xlog1py(b - 1, -x) - special.betaln(a, b)
    return np.where((x >= 0) & (x <= 1), out, -np.inf)


class QuadraturePosterior:
    """Posterior of alpha for the counts (the keywords of ``alpha_posterior``).

    Examples
    --------
    >>> q = QuadraturePosterior(human_pos=6, human_total=10)   # Beta(7, 5)
    >>> round(q.mean, 12) == round(7 / 12, 12)
    True
    """

    def __init__(self, human_pos: int = 0, human_total: int = 0, metric_pos: int = 0,
                 metric_total: int = 0, tp: int = 0, fn: int = 0, tn: int = 0, fp: int = 0, *,
                 panels: int = 4):
        self.h = (human_pos, human_total - human_pos)
        self.rho = (tp + 1.0, fn + 1.0)
        self.eta = (tn + 1.0, fp + 1.0)
        self.pbeta = (metric_pos + 1.0, metric_total - metric_pos + 1.0)
        self.panels = panels
        self.range = {name: self._mass(*ab) for name, ab in
                      (("rho", self.rho), ("eta", self.eta), ("p", self.pbeta))}
        # the region of alpha: where the log density is within 60 of its maximum on a scan
        scan = (np.arange(200) + 0.5) / 200
        logf = np.array([self._log_f(a) for a in scan])
        keep = np.flatnonzero(logf > logf.max() - 60)
        self.lo = max(0.0, scan[keep[0]] - 1 / 200)
        self.hi = min(1.0, scan[keep[-1]] + 1 / 200)
        self.shift = float(logf.max())
        # panels of alpha: 4 * panels pieces, their masses, the moments
        self.edges = np.linspace(self.lo, self.hi, 4 * panels + 1)
        x, w = _nodes(np.column_stack([self.edges[:-1], self.edges[1:]]), 1)
        f = np.exp(np.array([[self._log_f(a) for a in row] for row in x]) - self.shift)
        self.piece = (w * f).sum(axis=1)
        self.z = float(self.piece.sum())
        self.mean = float((w * f * x).sum() / self.z)
        self.var = float((w * f * (x - self.mean) ** 2).sum() / self.z)
        self.sd = self.var ** 0.5

    @staticmethod
    def _mass(a: float, b: float) -> tuple[float, float]:
        d = stats.beta(a, b)
        return float(d.ppf(1e-16)), float(d.isf(1e-16))

    def _log_f(self, alpha: float) -> float:
        """log of the unnormalised density at ``alpha``."""
        hp, hn = self.h
        log_prior = special.xlogy(hp, alpha) + special.xlog1py(hn, -alpha)
        return float(log_prior + np.log(self._inner(alpha)))

    def _inner(self, a: float) -> float:
        """I(alpha): the (rho, eta) integral, as an integral over p and the rate along the line."""
        if a <= 0.0 or a >= 1.0:
            return 0.0
        p_lo, p_hi = self.range["p"]
        breaks = np.unique(np.clip([p_lo, a, 1 - a, p_hi], p_lo, p_hi))
        p, wp = _nodes(np.column_stack([breaks[:-1], breaks[1:]]), self.panels)
        p, wp = p.ravel(), wp.ravel()
        if a <= 0.5:   # along the line by rho; eta = 1 - (p - a rho) / (1 - a)
            x_ab, y_ab, (m_lo, m_hi) = self.rho, self.eta, self.range["rho"]
            lo = np.maximum((p - (1 - a)) / a, m_lo)
            hi = np.minimum(p / a, m_hi)
            jac = 1.0 / (1.0 - a)

            def other(x):
                return 1.0 - (p[:, None] - a * x) / (1.0 - a)
        else:          # along the line by eta; rho = (p - (1 - a)(1 - eta)) / a
            x_ab, y_ab, (m_lo, m_hi) = self.eta, self.rho, self.range["eta"]
            lo = np.maximum(1.0 - p / (1.0 - a), m_lo)
            hi = np.minimum(1.0 - (p - a) / (1.0 - a), m_hi)
            jac = 1.0 / a

            def other(x):
                return (p[:, None] - (1.0 - a) * (1.0 - x)) / a
        hi = np.maximum(hi, lo)
        x, wx = _nodes(np.column_stack([lo, hi]), self.panels)          # (n_p, n_x)
        y = np.clip(other(x), 0.0, 1.0)
        along = (wx * np.exp(_log_beta_pdf(x, *x_ab) + _log_beta_pdf(y, *y_ab))).sum(axis=1)
        return float(jac * (wp * np.exp(_log_beta_pdf(p, *self.pbeta)) * along).sum())

    def cdf(self, x: float) -> float:
        """P(alpha <= x)."""
        if x <= self.lo:
            return 0.0
        if x >= self.hi:
            return 1.0
        i = int(np.searchsorted(self.edges, x, side="right") - 1)
        xs, ws = _nodes(np.array([self.edges[i], x]), 1)
        part = sum(w * np.exp(self._log_f(a) - self.shift) for a, w in zip(xs, ws, strict=True))
        return float((self.piece[:i].sum() + part) / self.z)

    def ppf(self, q: float) -> float:
        """The ``q`` quantile (root of ``cdf(x) = q``)."""
        return float(optimize.brentq(lambda x: self.cdf(x) - q, self.lo, self.hi, xtol=1e-13))


_X = {n: np.polynomial.legendre.leggauss(n) for n in (10, 20)}


def beta_difference_cdf(first: tuple[float, float], second: tuple[float, float], d: float,
                        nodes: int = 20) -> float:
    """``P(X_1 - X_2 <= d)`` for independent ``X_i ~ Beta(first)``, ``Beta(second)``.

    ``int f_1(x) S_2(x - d) dx`` over [0, 1] (``S_2`` is 1 below 0 and 0 above 1) with scipy's
    Beta density and survival function, by composite Gauss-Legendre with ``nodes`` points a
    panel: panels one sd wide within 12 sd of ``X_1``'s mean and of ``d`` plus ``X_2``'s mean
    (where each factor changes), sixteenths of [0, 1] elsewhere, and panel edges at the kinks
    ``x = d`` and ``x = 1 + d``.  Every panel then holds factors smooth on the scale of its width:
    20 and 10 points agree to rounding (below 1e-15 on the tests' pairs; asserted to 1e-14 at
    each end by :func:`beta_difference_ends`), and at the lower 2.5 % end of Beta(500, 400) minus
    Beta(9, 3) the value is within 1e-17 of mpmath's quadrature at 30 digits (measured; scipy's
    adaptive ``quad`` to ``epsabs=1e-14`` was 5.5e-14 off there).

    Examples
    --------
    >>> round(beta_difference_cdf((2, 2), (2, 2), 0.0), 14)   # symmetric: half the mass
    0.5
    """
    f1, f2 = stats.beta(*first), stats.beta(*second)
    scale = np.arange(-12.0, 12.5)
    edges = np.concatenate([np.linspace(0.0, 1.0, 17), f1.mean() + f1.std() * scale,
                            d + f2.mean() + f2.std() * scale, [d, 1.0 + d]])
    edges = np.unique(edges[(edges >= 0.0) & (edges <= 1.0)])
    x, w = _X[nodes]
    mid, rad = 0.5 * (edges[1:] + edges[:-1]), 0.5 * (edges[1:] - edges[:-1])
    pts = (mid[:, None] + rad[:, None] * x[None, :]).ravel()
    wts = (rad[:, None] * w[None, :]).ravel()
    return float(np.sum(wts * f1.pdf(pts) * f2.sf(np.clip(pts - d, 0.0, 1.0))))


def beta_difference_ends(first: tuple[float, float], second: tuple[float, float],
                         level: float = 0.95) -> list[float]:
    """The equal-tailed ``level`` interval of ``X_1 - X_2`` (see :func:`beta_difference_cdf`):
    Brent's method to 1e-13 on each end, where the rule of 10 points a panel is asserted to agree
    with that of 20 to 1e-14 (the quadrature's error, far below the root's tolerance).

    Examples
    --------
    >>> lo, hi = beta_difference_ends((2, 2), (2, 2), 0.5)
    >>> round(lo + hi, 12)
    0.0
    """
    out = []
    for q in ((1 - level) / 2, (1 + level) / 2):
        d = optimize.brentq(lambda d, q=q: beta_difference_cdf(first, second, d) - q, -1, 1,
                            xtol=1e-13)
        rough = beta_difference_cdf(first, second, d, nodes=10)
        assert abs(rough - beta_difference_cdf(first, second, d)) <= 1e-14, (first, second, d)
        out.append(d)
    return out
