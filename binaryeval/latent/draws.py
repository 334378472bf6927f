"""The posterior of one quantity from the sampler's draws: :class:`DrawsPosterior`.

``LatentFit.posterior(group)`` (``alpha`` of a group) and ``PreferenceFit.posterior(group_1,
group_2)`` (``diff = win_1 - win_2`` of a pair) return one.  It answers what the binary model's
exact :class:`~binaryeval.AlphaPosterior` answers -- ``mean()``, ``std()``, ``median()``,
``interval()``, ``cdf``, ``sf``, ``ppf``, ``rvs``, ``prob_greater`` -- from the draws: moments and
quantiles of the draws, the empirical distribution function, draws resampled.  Two posteriors of
the same fit are compared draw by draw (their draws come from the joint posterior); posteriors of
different fits are compared as independent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._results import Result
from ..summary import Summary
from . import _common, diagnostics

if TYPE_CHECKING:  # names used only in type hints
    from numpy.typing import ArrayLike

__all__ = ["DrawsPosterior"]


@dataclass(frozen=True, eq=False, repr=False)
class DrawsPosterior(Result):
    """Posterior of one quantity held as the sampler's draws.

    Attributes
    ----------
    draws : ndarray (chains, draws)
        The draws, chain by chain.
    quantity : str
        What is drawn (``"alpha"``, ``"diff"``).
    label : str
        Whose it is (a group, or a pair ``"A vs B"``).
    source : int
        Which fit's joint posterior the draws come from (draws of the same source are compared
        draw by draw).

    Examples
    --------
    >>> import numpy as np
    >>> from binaryeval.latent import DrawsPosterior
    >>> rng = np.random.default_rng(0)
    >>> post = DrawsPosterior(rng.beta(7, 5, size=(4, 2000)), "alpha", "A")
    >>> round(post.mean(), 2), round(post.std(), 2)
    (0.58, 0.14)
    """

    draws: np.ndarray
    quantity: str = "x"
    label: str = ""
    source: int = 0

    @property
    def _flat(self) -> np.ndarray:
        return np.asarray(self.draws, dtype=float).ravel()

    # -- moments and quantiles -----------------------------------------------------------------
    def mean(self) -> float:
        """Posterior mean (of the draws).

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.latent import DrawsPosterior
        >>> DrawsPosterior(np.array([[0.1, 0.3]])).mean()
        0.2
        """
        return float(self._flat.mean())

    def var(self) -> float:
        """Posterior variance (of the draws, ``ddof=1``).

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.latent import DrawsPosterior
        >>> round(DrawsPosterior(np.array([[0.1, 0.3]])).var(), 6)
        0.02
        """
        return float(self._flat.var(ddof=1))

    def std(self) -> float:
        """Posterior standard deviation.

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.latent import DrawsPosterior
        >>> round(DrawsPosterior(np.array([[0.1, 0.3]])).std(), 6)
        0.141421
        """
        return float(np.sqrt(self.var()))

    def median(self) -> float:
        """Posterior median.

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.latent import DrawsPosterior
        >>> DrawsPosterior(np.array([[0.1, 0.2, 0.9]])).median()
        0.2
        """
        return float(np.median(self._flat))

    def ppf(self, q: ArrayLike) -> float | np.ndarray:
        """Quantiles of the draws (linear interpolation, numpy's default).

        Parameters
        ----------
        q : float or array-like
            Probabilities.

        Returns
        -------
        float or ndarray

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.latent import DrawsPosterior
        >>> DrawsPosterior(np.arange(11.0)[None]).ppf(0.5)
        5.0
        """
        out = np.quantile(self._flat, q)
        return float(out) if np.ndim(out) == 0 else out

    def cdf(self, x: ArrayLike) -> float | np.ndarray:
        """Share of draws at or below ``x`` (the empirical distribution function).

        Parameters
        ----------
        x : float or array-like

        Returns
        -------
        float or ndarray

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.latent import DrawsPosterior
        >>> DrawsPosterior(np.arange(10.0)[None]).cdf(4.5)
        0.5
        """
        s = np.sort(self._flat)
        out = np.searchsorted(s, x, side="right") / s.size
        return float(out) if np.ndim(out) == 0 else out

    def sf(self, x: ArrayLike) -> float | np.ndarray:
        """Share of draws above ``x``.

        Parameters
        ----------
        x : float or array-like

        Returns
        -------
        float or ndarray

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.latent import DrawsPosterior
        >>> DrawsPosterior(np.arange(10.0)[None]).sf(4.5)
        0.5
        """
        return 1.0 - self.cdf(x)

    def interval(self, level: float = 0.95, kind: str = "eti") -> tuple[float, float]:
        """Credible interval holding ``level`` of the draws.

        Parameters
        ----------
        level : float
            Probability inside the interval.
        kind : {"eti", "hdi"}
            Equal-tailed, or the shortest interval holding ``level`` of the draws.

        Returns
        -------
        (float, float)

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.latent import DrawsPosterior
        >>> DrawsPosterior(np.arange(101.0)[None]).interval(0.9)
        (5.0, 95.0)
        """
        level = v.level(level)
        kind = v.choice(kind, "kind", ("eti", "hdi"))
        flat = self._flat[:, None]
        if kind == "eti":
            tail = (1.0 - level) / 2.0
            lo, hi = np.quantile(flat, [tail, 1.0 - tail], axis=0)
        else:
            lo, hi = _common.hdi(flat, level)
        return float(lo[0]), float(hi[0])

    def support(self) -> tuple[float, float]:
        """The smallest and largest draw.

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.latent import DrawsPosterior
        >>> DrawsPosterior(np.array([[0.2, 0.1, 0.4]])).support()
        (0.1, 0.4)
        """
        return float(self._flat.min()), float(self._flat.max())

    def rvs(self, size: int | tuple[int, ...] = 1, random_state: int | np.random.SeedSequence | np.random.Generator | None = None) -> np.ndarray:
        """Draws resampled (with replacement) from the posterior's draws.

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
        >>> import numpy as np
        >>> from binaryeval.latent import DrawsPosterior
        >>> DrawsPosterior(np.array([[0.1, 0.3]])).rvs(size=3, random_state=1).shape
        (3,)
        """
        if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
            rng = random_state
        else:
            rng = np.random.default_rng(v.seed(random_state, "random_state"))
        flat = self._flat
        return flat[rng.integers(0, flat.size, size=size)]

    def prob_greater(self, other: DrawsPosterior | float) -> float:
        """``P(x_self > x_other)``; ties count half.

        Draws of the same fit are compared draw by draw (the joint posterior); otherwise the two
        are taken as independent.  A number compares with that value.

        Parameters
        ----------
        other : DrawsPosterior or float

        Returns
        -------
        float

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.latent import DrawsPosterior
        >>> a = DrawsPosterior(np.array([[0.5, 0.6, 0.7]]), source=1)
        >>> b = DrawsPosterior(np.array([[0.4, 0.7, 0.6]]), source=1)
        >>> round(a.prob_greater(b), 4), a.prob_greater(0.55)
        (0.6667, 0.6666666666666666)
        """
        x = self._flat
        if isinstance(other, DrawsPosterior):
            y = other._flat
            if other.source == self.source and self.source and y.shape == x.shape:
                return float(np.mean(x > y) + 0.5 * np.mean(x == y))
            ys = np.sort(y)
            below = np.searchsorted(ys, x, side="left")
            upto = np.searchsorted(ys, x, side="right")
            return float(np.mean(below + 0.5 * (upto - below)) / ys.size)
        value = v.real(other, "other")
        return float(np.mean(x > value) + 0.5 * np.mean(x == value))

    # -- protocol --------------------------------------------------------------------------------
    def _repr_fields(self) -> Mapping[str, Any]:
        return {"quantity": self.quantity, "label": self.label, "mean": self.mean(),
                "std": self.std()}

    def to_frame(self, level: float = 0.95, kind: str = "eti") -> pd.DataFrame:
        """One row of summaries of the draws.

        ``estimate`` (mean), ``std_error`` (sd), ``median``, ``lower``, ``upper``, and the
        sampler's ``rhat``, ``ess_bulk``, ``ess_tail``.

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
        >>> import numpy as np
        >>> from binaryeval.latent import DrawsPosterior
        >>> rng = np.random.default_rng(0)
        >>> list(DrawsPosterior(rng.normal(size=(4, 500)), "diff").to_frame().columns)[:5]
        ['estimate', 'std_error', 'median', 'lower', 'upper']
        """
        lo, hi = self.interval(level, kind)
        d = np.asarray(self.draws, dtype=float)
        d = d.reshape(1, -1) if d.ndim == 1 else d
        out = pd.DataFrame({"estimate": [self.mean()], "std_error": [self.std()],
                            "median": [self.median()], "lower": [lo], "upper": [hi],
                            "rhat": diagnostics.rhat(d[..., None]),
                            "ess_bulk": diagnostics.ess_bulk(d[..., None]),
                            "ess_tail": diagnostics.ess_tail(d[..., None])},
                           index=pd.Index([self.quantity]))
        out.attrs.update(level=level, kind=kind, method="MCMC draws", label=self.label)
        return out

    def summary(self, level: float = 0.95) -> Summary:
        """The draws' estimates of the quantity.

        Parameters
        ----------
        level : float
            Probability of the credible interval.

        Returns
        -------
        Summary

        Examples
        --------
        >>> import numpy as np
        >>> from binaryeval.latent import DrawsPosterior
        >>> rng = np.random.default_rng(0)
        >>> print(DrawsPosterior(rng.normal(size=(4, 500)), "diff", "A vs B").summary().title)
        Posterior of diff (A vs B), from the sampler's draws
        """
        d = np.asarray(self.draws)
        chains, n = (1, d.size) if d.ndim == 1 else d.shape[:2]
        info = {"quantity": self.quantity, "of": self.label or "-",
                "draws": f"{chains} chains x {n} draws"}
        return Summary(f"Posterior of {self.quantity}" + (f" ({self.label})" if self.label
                                                          else "")
                       + ", from the sampler's draws", info,
                       [(f"{100 * level:g}% equal-tailed credible interval",
                         self.to_frame(level))])
