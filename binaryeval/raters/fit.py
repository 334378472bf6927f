"""The rater-noise model: :func:`fit_raters` and :class:`RaterFit`.

The human rating is no longer the truth.  Every output (item) has a latent class, adequate or
not (or one of the levels of a binned rating); every human rating of it is one rater's noisy reading (a Dawid-Skene confusion matrix per
rater, or MACE's competence and personal answer distribution), and the metric is one more noisy
reading with its own confusion matrix per group, as in the latent-truth model.  A rater named
error-free reads the class without error: with one such rater and nobody else, the model is the
binary model of :func:`binaryeval.fit` with that rater as the human rating.  The raters'
confusions (competences) have a fixed prior (``rater_rates="estimate"``) or are drawn from a
population whose mean and concentration are learnt (``rater_rates="hierarchical"``,
:meth:`RaterFit.population`).

The sampler is in :mod:`binaryeval.raters.engine`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._comparison import Comparison, compare_draws, pair_differences
from .._results import Result, excluded_rows, row_account, row_facts
from .._warnings import warn
from ..data import LeftOutRows, scores
from ..errors import BinaryEvalWarning, DataError, IdentifiabilityWarning, ParameterError
from ..latent import _common, diagnostics
from ..latent import _data as _latent_data
from ..latent.draws import DrawsPosterior
from ..latent.multi import _metric_codes
from ..summary import Summary, prior_text
from . import _data
from ._plan import RaterPlan, make_plan
from .engine import POPULATION, RaterData, RaterDraws, sample, sample_classes

if TYPE_CHECKING:  # names used only in type hints
    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

__all__ = ["RaterFit", "fit_raters"]

MODELS = ("dawid-skene", "mace")
#: Beta(a, b) prior of a rater's chance of giving the item's class (fixed, shared by all raters)
RATER_PRIOR = (2.0, 1.0)
#: how the raters' confusions (competences) enter: each its own under the fixed prior, or drawn
#: from a population with a learnt mean and concentration
RATER_RATES = ("estimate", "hierarchical")


def _rating_counts(ratings: _data.Ratings) -> pd.Series:
    """Items by their number of human ratings (error-free ones included)."""
    per_item = np.bincount(ratings.rating_item, minlength=len(ratings.item_keys))
    counts = pd.Series(per_item).value_counts().sort_index()
    counts.index.name = "n_ratings"
    return counts


@dataclass(frozen=True, eq=False, repr=False)
class RaterFit(Result):
    """Rate of adequate outputs per group when the human raters err too.

    Returned by :func:`fit_raters` (and by :func:`binaryeval.fit` with ``rater=``).  It answers
    ``to_frame()``, ``compare()`` (``prob_greater_matrix()``), ``posterior(group)``,
    ``ranks()``, ``naive()`` (the majority vote as the truth), ``rates()`` (the metric's
    confusion), ``raters()`` (each rater's confusion or competence), ``items()`` (each item's
    posterior class probability) and ``plan()`` (another rating of a rated item, or a new
    item: which buys more certainty).

    Attributes
    ----------
    groups : tuple of str
        The groups (systems), as their labels sort.
    order : tuple of str
        The groups in display order.
    rater_names : tuple of str
        The raters, as their names sort.
    error_free : tuple of str
        The raters read without error.
    model : str
        ``"dawid-skene"`` or ``"mace"``.
    seed : int or None
        A seed that reproduces the fit (the entropy drawn when ``seed=None`` was given).
    told_apart : tuple of str
        The columns that tell a rater's several readings of one item apart (empty when every
        rater read each item once).

    Examples
    --------
    >>> import binaryeval as be
    >>> from binaryeval.datasets import simulate_ratings
    >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
    >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
    ...                     item="item", seed=1)
    >>> res
    RaterFit(groups=2, raters=4, model='dawid-skene', items=300, ratings=900, chains=4, draws=1000)
    >>> list(res.to_frame().columns)[:4]
    ['n_human', 'n_paired', 'n_metric', 'n_ratings']
    """

    formula: str
    groups: tuple[str, ...]
    rater_names: tuple[str, ...]
    error_free: tuple[str, ...]
    model: str
    draws: RaterDraws
    ratings: _data.Ratings
    human_term: str
    metric_term: str | None
    metric_levels: tuple[str, ...] = ()
    level: float = 0.95
    prior: tuple[float, float] = (1.0, 1.0)
    rater_prior: tuple[float, float] = RATER_PRIOR
    rates_mode: str = "estimate"
    rater_rates: str = "estimate"
    seed: int | np.random.SeedSequence | np.random.Generator | None = None
    warmup: int = 0
    n_rows: int = 0
    excluded: dict = field(default_factory=dict)
    call: dict = field(default_factory=dict)
    group_name: str = "group"
    order: tuple[str, ...] = ()
    levels: tuple[float, ...] = ()
    #: the columns that tell apart a rater's several readings of one item (see ``summary()``)
    told_apart: tuple[str, ...] = ()
    _left_out: LeftOutRows | None = field(default=None, repr=False, compare=False)

    # -- access -----------------------------------------------------------------------------------
    @property
    def excluded_rows(self) -> pd.Series:
        """The rows left out: the reason of each, indexed by the data's own row labels.

        In data order, the index name kept; the reasons are the keys of ``excluded`` and
        ``excluded_rows.value_counts()`` equals it.  Empty when no row was left out.

        Examples
        --------
        >>> import numpy as np
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)
        >>> df.loc[[2, 7], "system"] = None
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> res.excluded_rows
        2    missing group
        7    missing group
        Name: reason, dtype: object
        """
        return excluded_rows(self._left_out)

    @property
    def n_used(self) -> int:
        """Rows used (``n_rows - n_excluded``)."""
        return self.n_rows - self.n_excluded

    @property
    def n_excluded(self) -> int:
        """Rows left out (reasons in ``excluded``)."""
        return int(sum(self.excluded.values()))

    @property
    def n_chains(self) -> int:
        """Number of chains."""
        return int(self.draws.pi.shape[0])

    @property
    def n_draws(self) -> int:
        """Draws kept per chain."""
        return int(self.draws.pi.shape[1])

    @property
    def _shown(self) -> list[str]:
        return list(self.order) if self.order else list(self.groups)

    def _positions(self) -> list[int]:
        return [self.groups.index(g) for g in self._shown]

    @property
    def n_classes(self) -> int:
        """Number of classes: 2 for a binary rating, the number of levels of a binned one."""
        return int(self.draws.pi.shape[-1])

    def _scores(self) -> np.ndarray:
        """The value of each class: 0/1 (the share of adequate outputs) or the levels."""
        return np.asarray(self.levels, dtype=float) if self.levels else np.array([0.0, 1.0])

    def _class_labels(self) -> tuple[str, ...]:
        return tuple(f"{x:g}" for x in self.levels) if self.levels else ("0", "1")

    def _estimand(self) -> str:
        """What ``estimate`` is, in words: alpha, or the mean rating of a binned rating."""
        if not self.levels:
            return "alpha (rate of adequate outputs)"
        return f"mean rating (levels {', '.join(self._class_labels())})"

    def _alpha(self) -> np.ndarray:
        if not self.levels:
            return self.draws.pi[..., 1]
        return self.draws.pi @ self._scores()

    def _index(self) -> pd.Index:
        return pd.Index(self._shown, name=self.group_name)

    def alpha_draws(self, group: str | None = None) -> np.ndarray:
        """Posterior draws of ``alpha`` of one group, shape (chains, draws).

        Parameters
        ----------
        group : str, optional
            The group (the only one when there is a single group).

        Returns
        -------
        ndarray

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> res.alpha_draws("A").shape
        (4, 1000)
        """
        return self._alpha()[..., self.groups.index(self._label(group))]

    def _label(self, group: str | None) -> str:
        if group is None:
            if len(self.groups) != 1:
                raise ParameterError(f"name a group: one of {self._shown}")
            return self.groups[0]
        if str(group) not in self.groups:
            raise ParameterError(f"group {group!r} is not in the fit; groups are {self._shown}")
        return str(group)

    def posterior(self, group: str | None = None) -> DrawsPosterior:
        """Posterior of ``alpha`` for one group.

        Parameters
        ----------
        group : str, optional
            A group label; may be omitted when the fit has one group.

        Returns
        -------
        DrawsPosterior

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> round(res.posterior("A").mean(), 1)
        0.7
        """
        label = self._label(group)
        return DrawsPosterior(self.alpha_draws(label), "alpha", label, source=id(self.draws))

    # -- tables -----------------------------------------------------------------------------------
    def interval(self, level: float | None = None, kind: str = "eti") -> pd.DataFrame:
        """Credible intervals of ``alpha`` per group: columns ``lower``, ``upper``.

        Parameters
        ----------
        level : float, optional
            Coverage (default: the fit's ``level``).
        kind : {"eti", "hdi"}
            Equal-tailed or highest-density interval.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> res.interval(0.9).attrs["level"]
        0.9
        """
        level = self.level if level is None else level
        return _common.interval_frame(self._alpha()[..., self._positions()], level, kind,
                                      self._index())

    def _counts_per_group(self) -> dict[str, np.ndarray]:
        r = self.ratings
        g = len(self.groups)
        n_human = np.bincount(r.item_group, minlength=g)
        n_paired = np.bincount(r.item_group[r.item_metric >= 0], minlength=g)
        n_ratings = np.bincount(r.item_group[r.rating_item], minlength=g)
        return {"n_human": n_human, "n_paired": n_paired,
                "n_metric": r.metric_only.sum(axis=1) if r.metric_only.size else np.zeros(g, int),
                "n_ratings": n_ratings}

    def to_frame(self, level: float | None = None, kind: str = "eti") -> pd.DataFrame:
        """One row per group, indexed by the grouping column, in the fit's order.

        Parameters
        ----------
        level : float, optional
            Probability of the credible intervals (default: the fit's level).
        kind : {"eti", "hdi"}
            Equal-tailed or highest-density intervals.

        Returns
        -------
        DataFrame
            ``n_human`` (items with at least one human rating), ``n_paired`` (of those, items
            the metric rated too), ``n_metric`` (items the metric alone rated), ``n_ratings``
            (human ratings), ``estimate`` (posterior mean of ``alpha``), ``std_error``
            (posterior sd), ``lower``/``upper``, ``naive`` (the majority vote as the truth,
            :meth:`naive`), ``prior_dominated``, and the sampler's ``rhat``, ``ess_bulk``,
            ``ess_tail``.  For a binned rating ``estimate`` is the mean rating, and
            ``share_<level>`` columns follow (the posterior mean share of each class).

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> int(res.to_frame().loc["A", "n_ratings"])
        450
        """
        level = self.level if level is None else v.level(level)
        pos = self._positions()
        alpha = self._alpha()[..., pos]
        s = _common.summarise(alpha, level)
        iv = _common.interval_frame(alpha, level, kind, self._index())
        counts = {k: c[pos].astype(int) for k, c in self._counts_per_group().items()}
        out = pd.DataFrame({
            **counts, "estimate": s["estimate"], "std_error": s["std_error"],
            "lower": iv["lower"].to_numpy(), "upper": iv["upper"].to_numpy(),
            "naive": self.naive(level)["estimate"].to_numpy(),
            "prior_dominated": s["std_error"] >= _common.PRIOR_DOMINATED * self._prior_sd(),
            "rhat": s["rhat"], "ess_bulk": s["ess_bulk"], "ess_tail": s["ess_tail"]},
            index=self._index())
        if self.levels:
            shares = self.draws.pi[..., pos, :].reshape(-1, len(pos), self.n_classes).mean(axis=0)
            for c, lab in enumerate(self._class_labels()):
                out[f"share_{lab}"] = shares[:, c]
        out.attrs.update(level=level, kind=kind, method=self._method(), rates=self.rates_mode,
                         rater_rates=self.rater_rates, **self._population_attrs(level),
                         estimand="alpha (share of adequate outputs)" if not self.levels else
                         "mean rating (sum of level x class share)")
        out.attrs.update(row_account(self))
        return out

    def _prior_sd(self) -> float:
        """Prior sd of the estimated quantity (alpha, or the mean rating)."""
        conc = self._share_concentration()
        mean = conc / conc.sum()
        x = self._scores()
        return float(np.sqrt(max(mean @ x ** 2 - (mean @ x) ** 2, 0.0) / (conc.sum() + 1)))

    def _share_concentration(self) -> np.ndarray:
        if not self.levels:
            a, b = self.prior
            return np.array([b, a], dtype=float)
        return np.asarray(self.prior, dtype=float)

    def _method(self) -> str:
        return (f"Gibbs sampler of the rater-noise model ({self.model}): {self.n_chains} chains "
                f"x {self.n_draws} draws after {self.warmup} warm-up sweeps")

    def _prior_text(self) -> str:
        """Which prior the raters' confusions (competences) have, in words."""
        if self.rater_rates == "hierarchical":
            return ("rater_rates='hierarchical': every rater's chance of giving the item's "
                    "class drawn from a population Beta (Dawid-Skene: each row of the confusion "
                    "from a population Dirichlet) whose mean and concentration are learnt; "
                    f"hyperprior log c ~ Normal(log {np.exp(POPULATION.loc):g}, "
                    f"{POPULATION.scale:g}^2), mean ~ Beta{POPULATION.lean}"
                    + ("" if self.model == "mace" else
                       " with each row's diagonal its largest entry"))
        return (f"rater_rates='estimate': every rater's chance of giving the item's class has "
                f"the fixed prior Beta{tuple(float(x) for x in self.rater_prior)}")

    def _population_attrs(self, level: float) -> dict[str, str]:
        if self.rater_rates != "hierarchical":
            return {}
        return {"population": self._population_text(level)}

    def _population_text(self, level: float) -> str:
        pop = self.population(level)
        parts = []
        for idx, row in pop.iterrows():
            if self.model == "mace":
                what = "competence"
            else:
                if idx[0] != idx[1]:
                    continue
                what = f"P(rating {idx[1]} | class {idx[0]})"
            parts.append(f"{what} {row.estimate:.3f} [{row.lower:.3f}, {row.upper:.3f}], "
                         f"concentration {row.concentration:.3g} [{row.concentration_lower:.3g}"
                         f", {row.concentration_upper:.3g}]")
        return (f"the raters' population (mean, median concentration, {100 * level:g}% "
                "intervals): " + "; ".join(parts))

    def population(self, level: float | None = None) -> pd.DataFrame:
        """The raters' population of ``rater_rates="hierarchical"``: its mean and concentration.

        Dawid-Skene: one row per (class, rating), the population mean ``m_k[l]`` (the chance
        that a typical rater gives rating ``l`` to an item of class ``k``) and the row's
        concentration ``c_k``; MACE: one row, the population mean competence ``m`` and its
        concentration ``c``.  The raters' own values spread around the mean with an sd of
        ``sqrt(m (1 - m) / (c + 1))``: a large concentration says the raters are alike.

        Parameters
        ----------
        level : float, optional
            Coverage of the equal-tailed intervals (default: the fit's level).

        Returns
        -------
        DataFrame
            ``estimate``, ``std_error``, ``lower``, ``upper`` of the mean; ``concentration``
            (posterior median), ``concentration_lower``, ``concentration_upper``; the sampler's
            ``rhat`` (the larger of the mean's and of ``log c``'s), ``ess_bulk`` and
            ``ess_tail`` (the smaller of the two).

        Raises
        ------
        ParameterError
            When the fit has the fixed prior (``rater_rates="estimate"``).

        Examples
        --------
        >>> from binaryeval.raters import fit_raters
        >>> from binaryeval.raters._simulate import simulate_crowd
        >>> df, truth = simulate_crowd(0, alphas=[0.6], n_items=150, per_item=(2, 3),
        ...                            competence=[0.6, 0.7, 0.8, 0.9, 0.95] * 6)
        >>> res = fit_raters("rating ~ metric", df, rater="annotator", item="item",
        ...                  raters="mace", rater_rates="hierarchical", draws=1000, seed=1)
        >>> round(float(res.population()["estimate"].iloc[0]), 1)
        0.8
        """
        d = self.draws
        if d.population_mean is None:
            raise ParameterError("population() describes the raters' population of "
                                 "rater_rates='hierarchical'; this fit has the fixed prior "
                                 f"(rater_rates={self.rater_rates!r}): refit with "
                                 "rater_rates='hierarchical'")
        level = self.level if level is None else v.level(level)
        tail = (1.0 - level) / 2.0
        c, n, p, w = d.population_mean.shape
        s = _common.summarise(d.population_mean.reshape(c, n, p * w), level)
        log_c = np.log(d.population_concentration)
        sc = _common.summarise(log_c, level)
        c_lo, c_mid, c_hi = np.exp(np.quantile(log_c.reshape(-1, p), [tail, 0.5, 1.0 - tail],
                                               axis=0))
        if self.model == "mace":
            rows = [0]
            index = pd.Index(["competence"])
        else:
            rows = list(range(p * w))
            labels = self._class_labels()
            index = pd.MultiIndex.from_product([labels, labels], names=["class", "rating"])
        row_of = np.repeat(np.arange(p), w)[rows]
        out = pd.DataFrame({
            "estimate": s["estimate"][rows], "std_error": s["std_error"][rows],
            "lower": s["lower"][rows], "upper": s["upper"][rows],
            "concentration": c_mid[row_of], "concentration_lower": c_lo[row_of],
            "concentration_upper": c_hi[row_of],
            "rhat": np.fmax(s["rhat"][rows], sc["rhat"][row_of]),
            "ess_bulk": np.fmin(s["ess_bulk"][rows], sc["ess_bulk"][row_of]),
            "ess_tail": np.fmin(s["ess_tail"][rows], sc["ess_tail"][row_of])}, index=index)
        out.attrs.update(level=level, kind="eti", model=self.model,
                         rater_rates=self.rater_rates,
                         method=f"posterior draws; {self._method()}; the population's mean and "
                                "log concentration by Metropolis steps within the sweep")
        return out

    def naive(self, level: float | None = None) -> pd.DataFrame:
        """The majority vote of the human ratings as the truth, per group.

        Each item carrying human ratings counts as adequate when more of its ratings say so
        than not (a tie counts one half); ``estimate`` is the share, with the Beta(1, 1)
        posterior interval of that many adequate items.  The metric is not used.

        Parameters
        ----------
        level : float, optional
            Probability of the interval (default: the fit's level).

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> int(res.naive().loc["A", "n_human"])
        150
        """
        from scipy import stats

        level = self.level if level is None else v.level(level)
        vote = self._majority()
        r = self.ratings
        g = len(self.groups)
        n = np.bincount(r.item_group, minlength=g).astype(float)
        k = np.bincount(r.item_group, weights=vote, minlength=g)
        pos = self._positions()
        n, k = n[pos], k[pos]
        tail = (1 - level) / 2
        if self.levels:
            sq = np.bincount(r.item_group, weights=vote ** 2, minlength=g)[pos]
            with np.errstate(invalid="ignore", divide="ignore"):
                est = k / n
                se = np.sqrt(np.maximum(sq / n - est ** 2, 0.0) / np.maximum(n - 1, 1))
            z = stats.norm.ppf(1 - tail)
            out = pd.DataFrame({"n_human": n.astype(int), "estimate": est, "std_error": se,
                                "lower": est - z * se, "upper": est + z * se},
                               index=self._index())
            out.attrs.update(level=level, method="each item's mean rating as the truth, "
                             "uncorrected (normal interval)")
            return out
        with np.errstate(invalid="ignore", divide="ignore"):
            est = k / n
        out = pd.DataFrame({"n_human": n.astype(int), "estimate": est,
                            "std_error": np.sqrt(est * (1 - est) / n),
                            "lower": stats.beta.ppf(tail, k + 1, n - k + 1),
                            "upper": stats.beta.ppf(1 - tail, k + 1, n - k + 1)},
                           index=self._index())
        out.attrs.update(level=level, method="majority vote of the human ratings as the truth "
                         "(ties count one half), uncorrected")
        return out

    def _majority(self) -> np.ndarray:
        r = self.ratings
        n = len(r.item_keys)
        if self.levels:
            x = self._scores()[r.rating_label]
            return np.bincount(r.rating_item, weights=x, minlength=n) / np.bincount(
                r.rating_item, minlength=n)
        pos = np.bincount(r.rating_item, weights=r.rating_label, minlength=n)
        tot = np.bincount(r.rating_item, minlength=n)
        return np.where(2 * pos > tot, 1.0, np.where(2 * pos == tot, 0.5, 0.0))

    def raters(self, level: float | None = None) -> pd.DataFrame:
        """Each rater's estimated errors, with credible intervals, diagnostics and the items rated.

        With ``model="dawid-skene"`` one row per (rater, class, rating): ``P(rating | class)``
        (the rows of the rater's confusion matrix; ``class`` is the item's latent class).  With
        ``model="mace"`` one row per rater: ``estimate`` is the competence ``theta`` (the chance
        the rating is the item's class rather than the rater's own guess) and ``spam_positive``
        the share of adequate answers among the guesses.  Error-free raters have no spread.

        Parameters
        ----------
        level : float, optional
            Probability of the intervals (default: the fit's level).

        Returns
        -------
        DataFrame
            ``estimate``, ``std_error``, ``lower``, ``upper`` (equal-tailed), ``n_items``
            (items the rater rated), ``n_shared`` (of those, items somebody else rated too),
            ``is_error_free``, and the sampler's ``rhat``, ``ess_bulk``, ``ess_tail`` of each
            estimate (NaN for error-free raters, who are not sampled).

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> t = res.raters()
        >>> list(t.index.names)
        ['rater', 'class', 'rating']
        >>> bool((t["rhat"] < 1.05).all())
        True
        """
        return self._raters(level, diagnostics=True)

    def _raters(self, level: float | None, diagnostics: bool = False) -> pd.DataFrame:
        """The table of :meth:`raters`, with the sampler's diagnostics only when asked.

        Their cost grows with the raters, and the fit's own checks read the estimates alone.
        """
        level = self.level if level is None else v.level(level)
        tail = (1.0 - level) / 2.0
        r = self.ratings
        n_r = len(self.rater_names)
        n_items = np.bincount(r.rating_rater, minlength=n_r)
        per_item = np.bincount(r.rating_item, minlength=len(r.item_keys))
        n_shared = np.bincount(r.rating_rater[per_item[r.rating_item] > 1], minlength=n_r)
        free = np.array([x in self.error_free for x in self.rater_names])
        d = self.draws
        if self.model == "mace":
            flat = d.competence.reshape(-1, n_r).astype(float)
            k = self.n_classes
            spam = d.spam.reshape(-1, n_r, k)[..., -1].astype(float).mean(axis=0)
            est, sd = flat.mean(axis=0), flat.std(axis=0, ddof=1)
            lo, hi = np.quantile(flat, [tail, 1 - tail], axis=0)
            est, lo, hi = (np.where(free, 1.0, x) for x in (est, lo, hi))
            out = pd.DataFrame({"estimate": est, "std_error": np.where(free, 0.0, sd),
                                "lower": lo, "upper": hi,
                                "spam_positive": np.where(free, np.nan, spam),
                                "n_items": n_items, "n_shared": n_shared, "is_error_free": free},
                               index=pd.Index(self.rater_names, name="rater"))
            if diagnostics:
                self._add_diagnostics(out, d.competence, np.where(free, np.nan, 0.0))
        else:
            k = self.n_classes
            flat = d.phi.reshape(-1, n_r, k, k).astype(float)
            est, sd = flat.mean(axis=0), flat.std(axis=0, ddof=1)
            lo, hi = np.quantile(flat, [tail, 1 - tail], axis=0)
            eye = np.eye(k)[None]
            f3 = free[:, None, None]
            est, lo, hi = (np.where(f3, eye, x) for x in (est, lo, hi))
            sd = np.where(f3, 0.0, sd)
            labels = self._class_labels()
            idx = pd.MultiIndex.from_product([self.rater_names, labels, labels],
                                             names=["rater", "class", "rating"])
            out = pd.DataFrame({"estimate": est.ravel(), "std_error": sd.ravel(),
                                "lower": lo.ravel(), "upper": hi.ravel(),
                                "n_items": np.repeat(n_items, k * k),
                                "n_shared": np.repeat(n_shared, k * k),
                                "is_error_free": np.repeat(free, k * k)}, index=idx)
            if diagnostics:
                self._add_diagnostics(out, d.phi.reshape(*d.phi.shape[:2], -1),
                                      np.repeat(np.where(free, np.nan, 0.0), k * k))
        out.attrs.update(level=level, kind="eti", model=self.model,
                         rater_rates=self.rater_rates, **self._population_attrs(level),
                         method=f"posterior draws; {self._prior_text()}")
        return out

    @staticmethod
    def _add_diagnostics(out: pd.DataFrame, draws: np.ndarray, blank: np.ndarray) -> None:
        """R-hat and ESS of (chains, draws, Q) draws as columns of ``out`` (Q rows).

        ``blank`` is NaN where a row has no draws of its own (an error-free rater), else 0.
        """
        rhat, ess_bulk, ess_tail = diagnostics.summary(np.asarray(draws, dtype=float))
        out["rhat"] = rhat + blank
        out["ess_bulk"] = ess_bulk + blank
        out["ess_tail"] = ess_tail + blank

    def items(self) -> pd.DataFrame:
        """Each item's posterior probability of being adequate (the items with human ratings).

        Averaged over the kept sweeps of the conditional probabilities given the parameters.

        Returns
        -------
        DataFrame
            Indexed by (group, item): ``n_ratings``, ``majority`` (share of its ratings saying
            adequate), ``prob_adequate`` and ``class`` (``"1"`` when ``prob_adequate > 0.5``).
            For a binned rating: ``n_ratings``, ``mean_rating``, ``prob_<level>`` per level and
            ``class`` (the most probable level).

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> list(res.items().columns)
        ['n_ratings', 'majority', 'prob_adequate', 'class']
        """
        r = self.ratings
        n = len(r.item_keys)
        tot = np.bincount(r.rating_item, minlength=n)
        idx = pd.MultiIndex.from_frame(r.item_keys.rename(columns={"group": self.group_name}))
        if self.levels:
            prob = self.draws.item_prob
            labels = self._class_labels()
            out = pd.DataFrame({"n_ratings": tot, "mean_rating": self._majority()}, index=idx)
            for c, lab in enumerate(labels):
                out[f"prob_{lab}"] = prob[:, c]
            out["class"] = np.asarray(labels)[prob.argmax(axis=1)]
            return out
        pos = np.bincount(r.rating_item, weights=r.rating_label, minlength=n)
        p = self.draws.item_prob[:, 1]
        return pd.DataFrame({"n_ratings": tot, "majority": pos / tot, "prob_adequate": p,
                             "class": np.where(p > 0.5, "1", "0")}, index=idx)

    def rates(self, level: float | None = None) -> pd.DataFrame:
        """The metric's confusion matrix per group: ``P(metric output | class)``.

        Parameters
        ----------
        level : float, optional
            Probability of the intervals (default: the fit's level).

        Returns
        -------
        DataFrame
            One row per (group, class, metric output): ``estimate``, ``std_error``,
            ``lower``, ``upper`` and the sampler's ``rhat``, ``ess_bulk``, ``ess_tail``.

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> float(res.rates()["estimate"].groupby(level=[0, 1]).sum().iloc[0])
        1.0
        """
        if self.draws.theta is None:
            raise ParameterError("the fit has no metric (right side 1): there are no metric "
                                 "rates; raters() gives the human raters' errors")
        level = self.level if level is None else v.level(level)
        tail = (1.0 - level) / 2.0
        th = self.draws.theta
        j, k = th.shape[-1], self.n_classes
        flat = th.reshape(-1, th.shape[2], k, j).astype(float)
        mean, sd = flat.mean(axis=0), flat.std(axis=0, ddof=1)
        lo, hi = np.quantile(flat, [tail, 1 - tail], axis=0)
        rhat, ess_bulk, ess_tail = (x.reshape(th.shape[2], k, j) for x in diagnostics.summary(
            np.asarray(th, dtype=float).reshape(*th.shape[:2], -1)))
        rows, idx = [], []
        for gpos in self._positions():
            t = 0 if th.shape[2] == 1 else gpos
            for c in range(k):
                for o in range(j):
                    idx.append((self.groups[gpos], self._class_labels()[c],
                                self.metric_levels[o]))
                    rows.append((mean[t, c, o], sd[t, c, o], lo[t, c, o], hi[t, c, o],
                                 rhat[t, c, o], ess_bulk[t, c, o], ess_tail[t, c, o]))
        out = pd.DataFrame(rows, columns=["estimate", "std_error", "lower", "upper", "rhat",
                                          "ess_bulk", "ess_tail"],
                           index=_common.display_index(
                               idx, [self.group_name, "class", "metric_output"]))
        out.attrs.update(level=level, kind="eti", rates=self.rates_mode,
                         method="posterior draws of the rater-noise model")
        return out

    def compare(self, method: str = "bayes", *, sig_level: float | None = None,
                adjust: str | None = None,
                order: str | Sequence[str] | None = None) -> Comparison:
        """Compare every pair of groups from the joint posterior draws.

        Parameters
        ----------
        method : {"bayes", "z"}
            Which p-value decides ``significant`` (see :meth:`BinaryFit.compare`).
        sig_level : float, optional
            Significance threshold (default ``1 - level`` of the fit).
        adjust : str, optional
            A statsmodels ``multipletests`` method applied over all pairs.
        order : "estimate", "input" or list of str, optional
            Order of the groups (default: the fit's order).

        Returns
        -------
        Comparison

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> bool(res.compare().to_frame()["prob_greater"].iloc[0] > 0.99)
        True
        """
        sig = v.sig_level_or(sig_level, self.level)
        shown = self._shown if order is None else list(self._order_of(order))
        alpha = self._alpha()
        pairs, diff = pair_differences(alpha, self.groups, shown)
        return compare_draws(diff, pairs, groups=shown, method=method, sig_level=sig,
                             adjust=adjust, level=self.level, group_name=self.group_name,
                             quantity=("P(alpha_1 > alpha_2)" if not self.levels else
                                       "P(mean rating_1 > mean rating_2)"))

    def prob_greater_matrix(self, order: str | Sequence[str] | None = None) -> pd.DataFrame:
        """``P(alpha_i > alpha_j)`` for every pair of groups, as :class:`~binaryeval.BinaryFit`.

        The shares of the sampler's draws in which the row's ``alpha`` (the mean rating of a
        binned rating) exceeds the column's: the matrix of :meth:`compare`
        (``compare().matrix()``, the same numbers).

        Parameters
        ----------
        order : "estimate", "input" or list of str, optional
            Order of the groups in rows and columns (default: the fit's order).

        Returns
        -------
        DataFrame
            Cell ``(i, j)`` is ``P(alpha_i > alpha_j)`` (index ``group_1``, columns
            ``group_2``; the diagonal is NaN).

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> bool(res.prob_greater_matrix().loc["A", "B"] > 0.99)
        True
        """
        out = self.compare(order=order).matrix()
        out.attrs.update(quantity="P(alpha_1 > alpha_2)" if not self.levels else
                         "P(mean rating_1 > mean rating_2)")
        return out

    def _order_of(self, order: Any) -> tuple[str, ...]:
        means = self._alpha().reshape(-1, len(self.groups)).mean(axis=0)
        return _common.resolve_order(order, self.groups, dict(zip(self.groups, means,
                                                                  strict=True)))

    def ranks(self, level: float | None = None):
        """Posterior ranks of the groups by ``alpha``, with simultaneous rank intervals.

        Parameters
        ----------
        level : float, optional
            Joint posterior probability of the rank intervals (default: the fit's level).

        Returns
        -------
        Ranks

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> res.ranks().to_frame().index.tolist()
        ['A', 'B']
        """
        from .._ranks import ranks_from_draws

        level = self.level if level is None else v.level(level)
        draws = self._alpha().reshape(-1, len(self.groups))
        naive = self.naive(level)["estimate"].reindex(list(self.groups))
        return ranks_from_draws(
            draws, self.groups, naive.to_numpy(dtype=float), level=level,
            ranked=self._estimand(), method=self._method(), seed=self.seed,
            group_name=self.group_name, chains=self.n_chains)

    def plan(self, rater: str | None = None) -> RaterPlan:
        """Which buys more certainty about ``alpha``: another rating of a rated item, or a new item.

        For each group, the expected reduction of the posterior variance of ``alpha`` from one
        more human rating of an item the group's raters have rated (one not yet rated by the
        rater, drawn uniformly), and from one new item (an item with a metric output only while
        the group has some, else a new item the metric rates too).  The gains are exact
        functions of the fit's posterior draws (preposterior analysis: the draws reweighted by
        the likelihood of each outcome, :mod:`binaryeval.raters._plan`), with their Monte-Carlo
        error; more draws in the fit narrow it.

        Parameters
        ----------
        rater : str, optional
            The rater who would give the rating; by default a rater drawn as often as each
            rated in the group.

        Returns
        -------
        RaterPlan

        Raises
        ------
        ParameterError
            When ``rater`` is not one of the fit's raters.

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> res.plan().to_frame()["better"].tolist()
        ['new item', 'new item']
        """
        label = None if rater is None else _rater_label(rater, self.rater_names)
        if rater is not None and label is None:
            raise ParameterError(f"rater={rater!r} is not one of the fit's raters; raters are "
                                 f"{list(self.rater_names)[:10]}")
        return make_plan(self, label)

    # -- display ----------------------------------------------------------------------------------
    def _repr_fields(self) -> dict[str, Any]:
        return {"groups": len(self.groups), "raters": len(self.rater_names),
                "model": self.model, "items": len(self.ratings.item_keys),
                "ratings": int(self.ratings.rating_item.size), "chains": self.n_chains,
                "draws": self.n_draws}

    def identifiability(self) -> pd.Series:
        """Items by their number of human ratings (what identifies the raters' errors).

        Returns
        -------
        Series
            Indexed by ``n_ratings``: how many items carry that many human ratings.

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> res.identifiability().to_dict()
        {3: 300}
        """
        return _rating_counts(self.ratings)

    def _rater_table(self) -> pd.DataFrame:
        t = self._raters(None)
        if self.model == "mace":
            return t[["estimate", "lower", "upper", "n_items", "n_shared", "is_error_free"]].rename(
                columns={"estimate": "competence"})
        est = t["estimate"].unstack(["class", "rating"])
        base = t.groupby(level="rater")[["n_items", "n_shared", "is_error_free"]].first()
        return pd.DataFrame({**{f"p_correct_{c}": est[(c, c)] for c in self._class_labels()},
                             **{c: base[c] for c in base.columns}})

    def summary(self, level: float | None = None) -> Summary:
        """Facts of the fit, the table per group, the raters and what identifies them.

        Parameters
        ----------
        level : float, optional
            Probability of the credible intervals (default: the fit's level).

        Returns
        -------
        Summary

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> print(res.summary().title)
        Rater-noise model (dawid-skene): rate of adequate outputs when human raters err
        """
        level = self.level if level is None else v.level(level)
        table = self.to_frame(level)
        table[["ess_bulk", "ess_tail"]] = table[["ess_bulk", "ess_tail"]].round().astype("Int64")
        ident = self.identifiability()
        pct = f"{100 * level:g}%"
        info: dict[str, Any] = {
            "formula": self.formula, **row_facts(self),
            "rater model": {"dawid-skene": "Dawid-Skene (a confusion matrix per rater)",
                            "mace": "MACE (a competence and a guessing distribution per "
                                    "rater)"}[self.model],
            "raters": len(self.rater_names),
            "error-free raters": ", ".join(self.error_free) or "none",
            "items by human ratings": ", ".join(f"{int(n)} item{'s' if c != 1 else ''} with "
                                                f"{k}" for k, c in ident.items() for n in [c]),
            "metric": self.metric_term or "none",
            **({"prior (alpha)": prior_text(self.prior)} if not self.levels else
               {"prior (class shares)": prior_text(self.prior, "Dirichlet")}),
            "classes": ("0, 1 (binary rating)" if not self.levels else
                        ", ".join(self._class_labels()) + " (levels of the rating; estimate: "
                        "the mean rating)"),
            "prior (raters)": (f"{prior_text(self.rater_prior)} on each rater's "
                               "chance of giving the item's class (fixed, every rater)"
                            if self.rater_rates != "hierarchical" else
                            "a population learnt from the raters (rater_rates='hierarchical'): "
                            "see the table of the raters' population"),
            "interval": f"{pct} equal-tailed credible interval", "sampler": self._method(),
            "seed": self.seed}
        s = Summary(f"Rater-noise model ({self.model}): "
                    + ("rate of adequate outputs" if not self.levels else "mean rating")
                    + " when human raters err", info,
                    [("per group (estimate: alpha, the rate of adequate outputs)" if not self.levels
                     else "per group (estimate: the mean rating)", table),
                     ("raters (posterior means)", self._rater_table())])
        if self.rater_rates == "hierarchical":
            pop = self.population(level)
            pop[["ess_bulk", "ess_tail"]] = pop[["ess_bulk", "ess_tail"]].round().astype("Int64")
            s.add_table(f"the raters' population (mean; concentration: median, {pct} interval)",
                        pop)
            s.add_note("rater prior: " + self._prior_text() + ". A rater's chance spreads "
                       "around the population mean m with an sd of sqrt(m (1 - m) / "
                       "(concentration + 1)): raters with few ratings are drawn towards m")
        thin = [x for x, n in zip(self.rater_names, self._raters(None).groupby(level="rater")[
            "n_shared"].first().reindex(self.rater_names), strict=True)
                if n < THIN_SHARED and x not in self.error_free]
        if thin:
            s.add_note(f"{len(thin)} rater(s) share fewer than {THIN_SHARED} items with anybody "
                       "else "
                       f"({', '.join(thin[:5])}{', ...' if len(thin) > 5 else ''}): their "
                       "errors rest on the prior and the metric"
                       + ("" if self.rater_rates == "hierarchical" else
                          " (rater_rates='hierarchical' lets them borrow from the other "
                          "raters)"))
        if not self.error_free and _max_readings(self.ratings, self.metric_term is not None) < 3:
            s.add_note("every item carries at most two readings (human ratings"
                       + (" plus the metric's output" if self.metric_term else "") + "): pairs "
                       "of readings tell how often two readers agree, not the classes' shares, "
                       "so the estimates and their intervals rest on the raters' prior")
        if self.ratings.repeated:
            by = (f"column{'s' if len(self.told_apart) > 1 else ''} "
                  + ", ".join(repr(c) for c in self.told_apart[:4])
                  + (", ..." if len(self.told_apart) > 4 else "")) if self.told_apart else \
                "another column"
            s.add_note(f"{self.ratings.repeated:,} (rater, item) pairs have more than one "
                       f"reading, told apart by {by}: each counts as an independent reading of "
                       "one item. If that column names different outputs (a system, a "
                       "model), the item is too coarse: give item= a column naming each output "
                       "or group by it after '|'; if some are one reading exported twice, drop "
                       "the copies first")
        s.add_note("naive: the majority vote of the human ratings as the truth (ties one half)"
                   if not self.levels else
                   "naive: each item's mean human rating as the truth, averaged over the items")
        return s

    def plot(self, ax: Axes | None = None, *, kind: str = "interval", **kwargs: Any) -> Axes:
        """Draw the intervals of ``alpha`` (the majority vote beside them) or the comparison.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure when None.
        kind : {"interval", "matrix"}
            Intervals of ``alpha`` per group, or the heat map of ``P(alpha_row >
            alpha_column)``.
        **kwargs
            Passed to ``errorbar`` (seaborn for the matrix).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import binaryeval as be
        >>> from binaryeval.datasets import simulate_ratings
        >>> df = simulate_ratings(seed=0)  # systems A and B, 150 outputs each, 3 of 4 raters each
        >>> res = be.fit_raters("rating ~ metric | system", df, rater="annotator",
        ...                     item="item", seed=1)
        >>> ax = res.plot()
        """
        import matplotlib.pyplot as plt

        kind = v.choice(kind, "kind", ("interval", "matrix"))
        if kind == "matrix":
            return self.compare().plot(ax, **kwargs)
        if ax is None:
            _, ax = plt.subplots(figsize=(7, min(0.35 * len(self.groups) + 2.5, 14.0)))
        frame = self.to_frame()
        y = np.arange(len(frame))
        ax.errorbar(frame["estimate"], y, xerr=[frame["estimate"] - frame["lower"],
                                                frame["upper"] - frame["estimate"]],
                    fmt="o", capsize=3, label=f"rater model, {self.level:.0%} interval", **kwargs)
        ax.plot(frame["naive"], y, "x", color="C3", label="majority vote as the truth")
        ax.set_yticks(y, [str(g) for g in frame.index])
        ax.invert_yaxis()
        ax.set_xlabel(self._estimand())
        ax.legend(fontsize=8)
        return ax


def _check_identified(ratings: _data.Ratings, free: np.ndarray, has_metric: bool) -> None:
    """Refuse when nothing separates the raters' errors from the classes; warn when the prior does.

    Two conditionally independent readings of an item (two ratings, or a rating and the
    metric) tell how often they agree, which fixes the product of their accuracies times
    ``alpha (1 - alpha)`` but not ``alpha`` itself: with every item read at most twice, each
    reader adds two unknowns (its two error rates) and the pairs two equations (its share of
    positive readings and its agreement with the others), and ``alpha`` is the one unknown left
    over, whatever the number of raters.  A third reading of some items (a third rating, or the
    metric beside two ratings) identifies it (Kruskal's condition for three views).
    """
    per_item = np.bincount(ratings.rating_item, minlength=len(ratings.item_keys))
    if free.any():
        return
    if per_item.max(initial=0) < 2:
        raise DataError(
            "every item carries at most one human rating and no rater is named error-free: "
            "nothing in the data separates a rater's errors from the items' classes (a "
            "rating that disagrees with the metric may be the rater's error or the metric's). "
            "Name a trusted rater (error_free='name'), or have some items rated by two or more "
            "raters; with one rating per item taken as the truth, fit without rater=")
    if _max_readings(ratings, has_metric) < 3:
        warn("every item carries at most two readings (human ratings"
             + (" plus the metric's output" if has_metric else "") + ") and no rater is named "
             "error-free: pairs of readings tell how often two readers agree, not the classes' "
             "shares (alpha), so the shares and the raters' errors are not identified by the "
             "data and the fit rests "
             "on the prior (rater_prior, or the population of rater_rates='hierarchical'); the "
             "sampler wanders along the ridge of equally good fits. Have some items read a "
             "third time (a third rater" + ("" if has_metric else ", or a metric in the "
                                            "formula") + "), or name a trusted rater "
             "(error_free='name')", IdentifiabilityWarning)


#: a rater sharing fewer items than this with anybody else is thin: their errors rest on the prior
THIN_SHARED = 5
#: the share of the ratings (of items no error-free rater fixes) by thin raters above which the
#: fit with the fixed rater prior warns
THIN_SHARE = 0.5


def _warn_thin_raters(ratings: _data.Ratings, free: np.ndarray,
                      rater_prior: tuple[float, float]) -> None:
    """Warn when most ratings are by raters whose errors the data cannot tell (fixed prior).

    A rater who shares fewer than :data:`THIN_SHARED` items with another reader (another rater,
    or the metric: its output on the item) has a confusion that rests on ``rater_prior`` (a
    one-time rater of a crowd): with every rater rating
    one item, each rating reads as right with the prior's chance (2/3 for Beta(2, 1)) whatever
    the raters' real accuracy, and alpha moves with it (raters right 85 % of the time, alpha
    0.25: alpha came out 0.09 too low, its 95 % interval covering the truth in 3 of 8 crowds).
    Counted over the ratings of items no error-free rater fixes; warned when the thin raters
    give more than :data:`THIN_SHARE` of them.
    """
    n_r = len(ratings.raters)
    per_item = np.bincount(ratings.rating_item, minlength=len(ratings.item_keys))
    read_again = (per_item > 1) | (ratings.item_metric >= 0)
    n_shared = np.bincount(ratings.rating_rater[read_again[ratings.rating_item]],
                           minlength=n_r)
    fixed = np.zeros(len(ratings.item_keys), dtype=bool)
    fixed[ratings.rating_item[free[ratings.rating_rater]]] = True
    counted = ~fixed[ratings.rating_item] & ~free[ratings.rating_rater]
    thin_rater = (n_shared < THIN_SHARED) & ~free
    thin = counted & thin_rater[ratings.rating_rater]
    if not counted.any() or thin.sum() <= THIN_SHARE * counted.sum():
        return
    names = [ratings.raters[i] for i in np.flatnonzero(thin_rater)]
    a, b = rater_prior
    warn(f"{thin.sum():,} of the {counted.sum():,} ratings ({thin.sum() / counted.sum():.0%}) "
         f"are by {len(names):,} rater(s) who share fewer than {THIN_SHARED} items with another "
         f"reader (a rater or the metric) ({', '.join(names[:3])}"
         f"{', ...' if len(names) > 3 else ''}): the data cannot "
         f"tell their errors, which rest on the fixed rater_prior (Beta({a:g}, {b:g}): right "
         f"{a / (a + b):.0%} of the time) whatever their real accuracy, and alpha moves with "
         "it. Use rater_rates='hierarchical' (their errors learnt from all the raters), or "
         "name a trusted rater (error_free='name')", IdentifiabilityWarning)


def _max_readings(ratings: _data.Ratings, has_metric: bool) -> int:
    """The most readings of one item: its human ratings, plus the metric's output."""
    readings = np.bincount(ratings.rating_item, minlength=len(ratings.item_keys))
    if has_metric:
        readings = readings + (ratings.item_metric >= 0)
    return int(readings.max(initial=0))


def _rater_label(value: Any, raters: Sequence[str]) -> str | None:
    """The fit's label of the rater ``value`` names: by its text, or by number.

    A rater column with missing cells (metric-only rows) is read by pandas as floats, so rater
    ``1`` is labelled ``"1.0"``; ``1`` (or ``"1"``) still names it.
    """
    text = str(value)
    if text in raters:
        return text
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    for r in raters:
        try:
            if float(r) == number:
                return r
        except ValueError:
            continue
    return None


def _error_free(error_free: Any, raters: Sequence[str], column: str) -> tuple[str, ...]:
    if error_free is None:
        return ()
    scalar = isinstance(error_free, (str, bytes)) or np.ndim(error_free) == 0
    given = [error_free] if scalar else list(error_free)
    names = [_rater_label(x, raters) for x in given]
    missing = [x for x, n in zip(given, names, strict=True) if n is None]
    if missing:
        raise ParameterError(f"error_free={missing[0]!r} is not a rater of column {column!r}; "
                             f"raters are {list(raters)[:10]}")
    return tuple(names)


@v.renamed(confidence="level", random_state="seed")
def fit_raters(formula: str, data: pd.DataFrame, *, rater: str, item: str,
               raters: str = "dawid-skene", error_free: str | Sequence[str] | None = None,
               prior: tuple[float, float] = (1.0, 1.0),
               rater_prior: tuple[float, float] = RATER_PRIOR, rater_rates: str = "estimate",
               rate_concentration: float | ArrayLike = 1.0, rates: str = "estimate",
               order: str | Sequence[str] = "estimate", eval_env: int | dict = 0,
               level: float = 0.95, seed: int | None = None, draws: int = 1000, chains: int = 4,
               warmup: int | None = None) -> RaterFit:
    """The rate of adequate outputs per group when the human raters make mistakes too.

    Parameters
    ----------
    formula : str
        ``"rating ~ metric | system"`` (or ``"rating ~ 1 | system"`` without a metric): a
        human rating (NaN = this row carries no rating), a binary or categorical metric term,
        and the grouping.  A 0/1 rating is binary (the estimate is ``alpha``); a numeric rating
        with three or more values is binned, one class per distinct value (at most 11; a Likert
        1-5 scale has five classes, a preference coded -1/0/1 three), and the estimate is the
        mean rating, the classes' shares weighted by their values (for -1/0/1: ``win - loss``).
        Two values other than 0 and 1 (a binary rating coded 1/2 or -1/+1) are refused, as
        :func:`binaryeval.fit` refuses them: say in the formula which value is adequate.
        Preferences may also be written ``"first"``, ``"tie"``, ``"second"`` (as
        :func:`binaryeval.fit_preferences` reads them: 1, 0, -1), one group per pair of
        systems.
    data : DataFrame
        Long data, one row per rating: the item's metric output is repeated on each of its
        rows (or given once); rows without a rating carry the metric of items no human rated.
    rater : str
        The column naming who gave each rating.
    item : str
        The column naming the item (segment, document); an item is the item value within its
        group, so the same segment under two systems is two items.  Each rating is an
        independent reading of the item's class: a rater's second reading of an item needs a
        column telling the two apart (a session, the length of the text shown); two rows of
        one rater and item that agree in every other column (a row read in twice, or a changed
        rating) are refused.
    raters : {"dawid-skene", "mace"}
        The raters' error model: a confusion matrix per rater (Dawid and Skene 1979), or MACE's
        competence ``theta`` with a guessing distribution per rater (Hovy et al. 2013).
    error_free : str or list of str, optional
        Raters read without error (experts taken as the truth): their ratings fix the items'
        classes.  One error-free rater and nobody else is the binary model of
        :func:`binaryeval.fit`.
    prior : (float, float) or sequence of float
        Beta prior ``(a, b)`` of ``alpha``, as in :func:`binaryeval.fit`; for a binned rating
        the Dirichlet concentration of the class shares, one number per level in increasing
        order (default: 1 for each).
    rater_prior : (float, float)
        Beta prior ``(a, b)`` of each rater's chance of giving the item's class, fixed and the
        same for every rater (each row of a Dawid-Skene matrix; MACE's competence).  The default
        (2, 1) leans gently towards raters better than chance, which also fixes which class is
        which; raters with few ratings stay near it.  With ``K`` classes a Dawid-Skene row is
        Dirichlet with ``a`` on the diagonal and ``b / (K - 1)`` elsewhere.  Used with
        ``rater_rates="estimate"``; with ``"hierarchical"`` the population takes its place.
    rater_rates : {"estimate", "hierarchical"}
        How the raters' confusions (MACE: competences) enter, as ``rates`` does for the
        metric's.  ``"estimate"`` (default): each rater's own, under the fixed
        ``rater_prior``.  ``"hierarchical"``: drawn from a population whose mean and
        concentration are learnt from all raters (MACE: ``theta_r ~ Beta(c m, c (1 - m))``;
        Dawid-Skene: row ``k`` of every rater's confusion ``~ Dirichlet(c_k m_k)``), with
        ``log c ~ Normal(log 20, 1.5^2)`` (the hyperprior of ``rates="hierarchical"``) and the
        mean ``m`` leaning like the fixed prior, Beta(2, 1) on the chance of giving the item's
        class (Dawid-Skene: truncated to rows whose diagonal is the largest entry, a typical
        rater gives an item's own class more often than any other); raters who rated few items
        are drawn towards the other raters rather than towards a fixed prior.
        :meth:`RaterFit.population` reports the population.  The Metropolis updates add a cost
        per sweep that does not grow with the items (about 1.5 s of CPU at the default 1250
        sweeps: twice the fixed prior's time on a crowd of 600 ratings, 1.1 to 1.4 times on
        20 systems x 500 items).
    rate_concentration : float or array-like of shape (K, J)
        Dirichlet prior of each row of the metric's confusion matrix (as in
        :func:`binaryeval.latent.fit_latent`).
    rates : {"estimate", "pooled"}
        The metric's confusion matrix per group, or one for all groups.
    order : "estimate", "input" or list of str
        Order of the groups in tables and plots.
    eval_env : int or dict
        Variables of your code the formula may read as values (see :func:`binaryeval.fit`).
    level : float
        Coverage of the credible intervals.
    seed : int, optional
        Seed of the sampler (None: fresh entropy).  The fit's ``seed`` reproduces it: the given
        seed, or the entropy drawn for None (taken from a Generator).
    draws, chains, warmup : int
        Draws kept per chain, chains and warm-up sweeps (default ``max(100, draws // 4)``).

    Returns
    -------
    RaterFit

    Raises
    ------
    DataError
        When nothing identifies the raters' errors (every item rated once and no error-free
        rater), for a numeric rating with more than 11 levels or with two levels other than 0
        and 1, for one rater's reading of an item entered twice, and for contradicting rows.

    Warns
    -----
    ConvergenceWarning
        When ``alpha`` of some group has R-hat above 1.01 or bulk/tail ESS below 400.
    IdentifiabilityWarning
        When every item carries at most two readings (human ratings, plus the metric's output)
        and no rater is error-free: pairs of readings leave alpha to the prior; when the
        fit reads the metric or a rater as worse than chance (the two classes may be swapped;
        with a binned rating: a rater whose ratings fall as the items' fitted levels rise);
        and, with ``rater_rates="estimate"``, when more than half of the ratings are by raters
        who share fewer than 5 items with another rater or the metric (one-time raters of a
        crowd: their errors, and alpha with them, rest on ``rater_prior``).
    BinaryEvalWarning
        When a level of a binned rating holds under 2% of the ratings beside two common levels
        (a stray 0.5 or 2 in a 0/1 rating makes the fit a model of three classes whose estimate
        is the mean rating): the warning names the values and their counts.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from binaryeval.raters import fit_raters
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random(200) < 0.7
    >>> metric = np.where(rng.random(200) < 0.8, truth, ~truth).astype(int)
    >>> rows = [{"item": i, "annotator": f"r{r}", "metric": metric[i],
    ...          "rating": int(t if rng.random() < 0.85 else 1 - t)}
    ...         for i, t in enumerate(truth) for r in rng.choice(5, 3, replace=False)]
    >>> df = pd.DataFrame(rows)
    >>> res = fit_raters("rating ~ metric", df, rater="annotator", item="item", draws=600, seed=1)
    >>> round(float(res.to_frame()["estimate"].iloc[0]), 1)
    0.7

    The raters' confusions drawn from a population learnt from all five raters:

    >>> pop = fit_raters("rating ~ metric", df, rater="annotator", item="item", draws=1500,
    ...                  rater_rates="hierarchical", seed=1)
    >>> round(float(pop.to_frame()["estimate"].iloc[0]), 1)
    0.7
    >>> row = pop.population().loc[("1", "1")]  # a typical rater's P(rating 1 | class 1)
    >>> bool(row["lower"] < 0.85 < row["upper"])
    True
    """
    from ..formula import parse_formula

    v.require_pandas(data, "fit_raters()")
    level = v.level(level)
    ra, rb = v.beta_pair(rater_prior, "rater_prior")
    model = v.choice(raters, "raters", MODELS)
    rates = v.choice(rates, "rates", ("estimate", "pooled")) if isinstance(rates, str) else rates
    if not isinstance(rates, str):
        raise ParameterError(f"rates={rates!r}: the rater-noise model estimates the metric's "
                             "rates ('estimate' per group or 'pooled'); known rates are not "
                             "taken here")
    rater_rates = v.choice(rater_rates, "rater_rates", RATER_RATES)
    if rater_rates == "hierarchical" and (ra, rb) != RATER_PRIOR:
        raise ParameterError(f"rater_prior={rater_prior!r} is the fixed prior of every rater; "
                             "with rater_rates='hierarchical' the raters' prior is a population "
                             "learnt from them: give one of the two, not both")
    draws, chains, warmup, seed_used = _common.sampler_options(draws, chains, warmup, seed)
    if seed_used is None:
        seed_used = np.random.SeedSequence()      # fresh entropy, reported below
    # the fit carries a seed that reproduces it: the entropy drawn for seed=None (or taken from
    # a Generator, whose state moves on), the given seed otherwise
    seed_reported = (seed_used.entropy if seed is None or isinstance(seed, np.random.Generator)
                     else seed)
    for name, col in (("rater", rater), ("item", item)):
        if not isinstance(col, str) or col not in data.columns:
            raise DataError(f"{name}={col!r} is not a column of data; columns are "
                            f"{list(map(str, data.columns))[:12]}")
    if rater == item:
        raise ParameterError(f"rater= and item= both name the column {rater!r}: rater= names who "
                             "gave each rating, item= the output rated (two columns)")
    parsed = parse_formula(formula)
    if len(parsed.lhs) != 1:
        raise DataError("give one human rating term left of '~'")
    terms = list(parsed.rhs_names)
    if len(terms) > 1:
        raise ParameterError(f"the rater-noise model takes one metric term (or 1); the formula "
                             f"has {len(terms)}: {terms}")
    if len(parsed.groups) > 1:
        raise ParameterError("the rater-noise model takes one grouping term after '|'")
    frame = parsed.evaluate(data, eval_env=eval_env)
    human = frame.lhs.iloc[:, 0]
    hname = parsed.lhs_names[0]
    words = _preference_labels(human, hname)
    if words is human:
        words = _rating_numbers(human)
        human = words
    levels = _rating_levels(words, hname, preference=words is not human)
    human = words
    k = len(levels) if levels else 2
    share_conc = _share_prior(prior, levels)
    if levels:
        codes = np.searchsorted(np.asarray(levels), human.to_numpy(dtype=float))
        human = pd.Series(np.where(human.isna().to_numpy(), np.nan, codes), index=human.index)
    metric_codes, labels = None, ()
    if terms:
        values = frame.rhs[terms[0]]
        rated = human.notna().to_numpy() & values.notna().to_numpy()
        # (the rater-noise model takes no bins=: a scalar score is thresholded in the formula)
        metric_codes, labels, _, _ = _metric_codes(values, terms[0], rated, None,
                                                   binnable=False)
    group = frame.group if parsed.groups else None
    coded = _data.code(human, hname, metric_codes, group, data[rater], rater, data[item], item,
                       len(labels), coded=bool(levels), reading=_readings(data, hname))
    told_apart = (_told_apart(data, hname, rater, item, group, human.notna().to_numpy())
                  if coded.repeated else ())
    free_names = _error_free(error_free, coded.raters, rater)
    free = np.array([x in free_names for x in coded.raters], dtype=bool)
    _check_identified(coded, free, bool(terms))
    if rater_rates == "estimate":
        _warn_thin_raters(coded, free, (ra, rb))
    n = len(coded.item_keys)
    fixed = np.full(n, -1)
    is_free = free[coded.rating_rater]
    if is_free.any():
        fi, fl = coded.rating_item[is_free], coded.rating_label[is_free]
        fixed[fi] = fl
        if np.any(fixed[fi] != fl):
            bad = fi[fixed[fi] != fl][0]
            key = coded.item_keys.iloc[bad]
            raise DataError(f"item {key['item']!r} of {key['group']!r}: the error-free raters "
                            f"{list(free_names)} disagree on it; error-free ratings cannot "
                            "disagree: name fewer raters error_free=")
    # start each chain at the items' most frequent rating (ties: the lowest class)
    tally = np.bincount(coded.rating_item * k + coded.rating_label, minlength=n * k)
    init = tally.reshape(n, k).argmax(axis=1)
    if not levels:
        vote = tally.reshape(n, 2)
        init = np.where(vote[:, 1] > vote[:, 0], 1,
                        np.where(vote[:, 1] < vote[:, 0], 0, np.arange(n) % 2))
    j = len(labels)
    rate_conc = _common.concentration(
        rate_concentration, "rate_concentration", (k, j),
        what=f"rows: the {k} classes, columns: metric outputs") if j else np.ones((k, 0))
    rd = RaterData(
        item_group=coded.item_group, item_metric=coded.item_metric, fixed=fixed,
        rating_item=coded.rating_item[~is_free], rating_rater=coded.rating_rater[~is_free],
        rating_label=coded.rating_label[~is_free], metric_only=coded.metric_only,
        n_groups=len(coded.groups), n_raters=len(coded.raters), n_classes=k, n_outputs=j,
        model=model, share_concentration=share_conc, rater_prior=(ra, rb),
        rate_concentration=rate_conc, pooled=rates == "pooled", init=init,
        rater_rates=rater_rates)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = (sample_classes if levels else sample)(rd, draws=draws, chains=chains,
                                                      warmup=warmup, seed=seed_used)
    stored_prior = tuple(float(x) for x in (share_conc if levels else share_conc[::-1]))
    group_name = ":".join(parsed.group_names) if parsed.groups else "group"
    res = RaterFit(formula, coded.groups, coded.raters, free_names, model, out, coded, hname,
                   terms[0] if terms else None, tuple(labels), level=level, prior=stored_prior,
                   rater_prior=(ra, rb), rates_mode=rates, rater_rates=rater_rates,
                   seed=seed_reported, warmup=warmup,
                   n_rows=coded.account.n_rows, excluded=dict(coded.account.excluded),
                   _left_out=coded.account.left_out(data.index),
                   call={"formula": formula, "rater": rater, "item": item, "raters": model,
                         "error_free": error_free, "prior": stored_prior,
                         "rater_rates": rater_rates, "order": order,
                         "draws": draws, "chains": chains, "seed": seed},
                   group_name=group_name, levels=levels, told_apart=told_apart)
    frame_now = res.to_frame()
    dominated = frame_now.index[frame_now["prior_dominated"].to_numpy(dtype=bool)]
    means = dict(zip(frame_now.index, frame_now["estimate"], strict=True))
    res = replace(res, order=_common.resolve_order(order if isinstance(order, str) else
                                                   list(order), coded.groups, means,
                                                   last=list(dominated)))
    frame_now = res.to_frame()
    switched = _say_switched_classes(res) if not levels else _say_reversed_levels(res)
    bad = (frame_now["rhat"] > _common.RHAT_MAX) | (frame_now[["ess_bulk", "ess_tail"]].min(
        axis=1) < _common.ESS_MIN)
    if bad.any() or rater_rates != "hierarchical":
        if levels:
            # K classes: a class may stand for other levels of the rating in another chain (a
            # K x K confusion per rater asks much of a few ratings per item)
            modes = ("the chains may sit in different readings of the levels (a class standing "
                     "for other ratings in another chain), which more draws do not join: "
                     + ("raters='mace' (one competence per rater) asks less of the data, as do "
                        if model == "dawid-skene" else "")
                     + f"fewer levels (bin the rating in the formula, e.g. 'I({hname} >= "
                       f"{levels[len(levels) // 2]:g}) ~ ...') or a rater known to be "
                       "reliable in error_free=[...]")
        else:
            modes = None if switched else (
                "the chains may sit in mirrored readings (the two classes swapped), which more "
                "draws do not join: check whether a rater reversed the scale, or name a rater "
                "known to be reliable in error_free=[...]")
        _common.warn_convergence(
            frame_now, "alpha" if not levels else "the mean rating", list(res.order), draws,
            chains, modes=modes)
    else:   # one warning per call: the population's only when alpha's draws are fine
        pop = res.population()
        _common.warn_convergence(pop, "the raters' population (mean, log concentration)",
                                 [str(x) for x in pop.index], draws, chains)
    return res


#: a rater's p_correct_0 + p_correct_1 (the metric's rho + eta) below this reads the classes
#: the other way round
_WORSE_THAN_CHANCE = 0.9


def _ordered_pair(labels: Sequence[str]) -> bool:
    """Whether a metric's outputs are two numbers (the second the higher: the positive one).

    Two text outputs (``'bad'``, ``'good'``) have no direction the model knows of, so a metric
    reading them the other way round is no sign of swapped classes.
    """
    if len(labels) != 2:
        return False
    try:
        low, high = (float(x) for x in labels)
    except ValueError:
        return False
    return low < high


def _mace_worse_than_chance(res: RaterFit) -> list[tuple[str, float]]:
    """MACE's raters whose ratings read the fitted classes the other way round.

    MACE's confusion ``theta [l = c] + (1 - theta) xi_l`` has ``p_correct_0 + p_correct_1 = 1
    + theta >= 1``: a rater who reversed the scale is read as a guesser of competence near 0,
    and the model's own rates cannot show it.  So each rater's ratings are set against the
    items' posterior class probabilities (``items()``): the expected counts of each (class,
    rating) give ``p_correct_c`` with the pseudo-counts of ``rater_prior``, and a rater is
    named when the sum is under :data:`_WORSE_THAN_CHANCE` and three of its standard errors
    under 1 (a guesser's sum is 1 up to noise, and is not taken for it).
    """
    r = res.ratings
    free = np.array([x in res.error_free for x in res.rater_names])
    n_r = len(res.rater_names)
    p1 = res.draws.item_prob[r.rating_item, 1]
    lab = r.rating_label.astype(float)
    a, b = res.rater_prior
    out = []
    total = np.zeros(n_r)
    var = np.zeros(n_r)
    for weight, agree in ((p1, lab), (1.0 - p1, 1.0 - lab)):
        n_c = np.bincount(r.rating_rater, weights=weight, minlength=n_r) + a + b
        p_c = (np.bincount(r.rating_rater, weights=weight * agree, minlength=n_r) + a) / n_c
        total += p_c
        var += p_c * (1.0 - p_c) / (n_c + 1.0)
    for i in np.flatnonzero(~free & (total < _WORSE_THAN_CHANCE)
                            & (total + 3.0 * np.sqrt(var) < 1.0)):
        out.append((res.rater_names[i], float(total[i])))
    return out


def _below_chance(total: np.ndarray) -> bool:
    """Whether posterior draws of ``p_correct_0 + p_correct_1`` (or ``rho + eta``) say < 1.

    The posterior mean under :data:`_WORSE_THAN_CHANCE` and three posterior sds under 1: the
    rule :func:`_mace_worse_than_chance` applies to its pseudo-counts.
    """
    mean, sd = float(np.mean(total)), float(np.std(total))
    return mean < _WORSE_THAN_CHANCE and mean + 3.0 * sd < 1.0


def _say_switched_classes(res: RaterFit) -> bool:
    """Warn when the fit reads the metric or a rater as worse than chance (two classes).

    The same ratings fit as well with the classes swapped (every rater's and the metric's
    confusion mirrored, alpha read as 1 - alpha), so a rater who reversed the scale can take
    the chains to the swapped reading, which then looks confident and converged.  A metric
    with ``rho + eta < 1`` or a rater with ``p_correct_0 + p_correct_1 < 1`` in the fit is the
    sign of it: named when the posterior mean of the sum is under 0.9 and three of its
    posterior sds under 1 (:func:`_below_chance`), so a rater who guesses (whose sum is 1, and
    whose posterior mean the prior and a few hundred ratings leave anywhere from 0.8 to 1) is
    not taken for it; MACE's raters are read against the fitted classes
    (:func:`_mace_worse_than_chance`).
    """
    worse = []
    if res.metric_term is not None and _ordered_pair(res.metric_levels):
        # the metric's outputs by position (a float column's labels are '0.0' and '1.0')
        th = res.draws.theta
        flat = th.reshape(-1, *th.shape[2:]).astype(float)               # (S, Gt, 2, 2)
        sums = flat[:, :, 1, 1] + flat[:, :, 0, 0]
        for gpos in res._positions() if flat.shape[1] > 1 else [0]:
            if _below_chance(sums[:, gpos]):
                g = res.groups[gpos]
                where = "" if len(res.groups) < 2 or flat.shape[1] == 1 else f" in {g!r}"
                worse.append(f"the metric {res.metric_term!r}{where} (rho + eta = "
                             f"{sums[:, gpos].mean():.2f})")
    if res.model == "dawid-skene":
        phi = res.draws.phi
        flat = phi.reshape(-1, *phi.shape[2:]).astype(float)              # (S, R, 2, 2)
        sums = flat[:, :, 0, 0] + flat[:, :, 1, 1]
        for i, r in enumerate(res.rater_names):
            if r not in res.error_free and _below_chance(sums[:, i]):
                worse.append(f"rater {r!r} (p_correct_0 + p_correct_1 = "
                             f"{sums[:, i].mean():.2f})")
    else:
        worse += [f"rater {r!r} (p_correct_0 + p_correct_1 = {t:.2f} against the fitted "
                  "classes)" for r, t in _mace_worse_than_chance(res)]
    if not worse:
        return False
    warn(f"the fit reads {', '.join(worse[:4])}{' and more' if len(worse) > 4 else ''} as "
         "worse than chance: the ratings fit as well with the two classes swapped, so which "
         "class is adequate may rest on where the chains started; check whether a rater "
         "reversed the scale (recode that rater's ratings), or name a rater known to be "
         "reliable in error_free=[...]", IdentifiabilityWarning)
    return True


#: a rater's correlation with the items' fitted levels below this (and three of its null
#: standard errors, 1 / sqrt(ratings), below 0) reads the levels the other way round
_REVERSED_CORRELATION = -0.1


def _reversed_raters(res: RaterFit) -> list[tuple[str, float, int]]:
    """The raters of a binned rating whose ratings fall as the items' fitted levels rise.

    Each rating is set against its item's posterior mean level (``items()``): a rater who reads
    the scale as the fit does correlates positively, one who guesses near zero, and one who
    reads it reversed (or whom a reversed majority took the fit away from) negatively.  Named
    when the correlation over the rater's ratings is under :data:`_REVERSED_CORRELATION` and
    under ``-3 / sqrt(n)`` (three standard errors of a correlation of zero).  Raters with fewer
    than three ratings or a single level are passed over.
    """
    r = res.ratings
    x = res._scores()
    fitted = res.draws.item_prob @ x                                     # (N,)
    out = []
    for i, name in enumerate(res.rater_names):
        if name in res.error_free:
            continue
        own = r.rating_rater == i
        n = int(own.sum())
        if n < 3:
            continue
        y, e = x[r.rating_label[own]], fitted[r.rating_item[own]]
        if np.ptp(y) == 0 or np.ptp(e) == 0:
            continue
        corr = float(np.corrcoef(y, e)[0, 1])
        if corr < _REVERSED_CORRELATION and corr < -3.0 / np.sqrt(n):
            out.append((name, corr, n))
    return out


def _say_reversed_levels(res: RaterFit) -> bool:
    """Warn when raters of a binned rating read the fitted levels the other way round.

    A majority of raters who reversed the scale (5 for 1) takes the fit to their reading: the
    careful raters then read as reversed, and the mean rating comes out mirrored, converged
    and confident (:func:`_reversed_raters` finds them).
    """
    named = _reversed_raters(res)
    if not named:
        return False
    shown = ", ".join(f"rater {n!r} (correlation {c:.2f} over {k} ratings)"
                      for n, c, k in named[:4]) + (" and more" if len(named) > 4 else "")
    lo, hi = res.levels[0], res.levels[-1]
    warn(f"the ratings of {shown} fall as the items' fitted levels rise: the fit reads them "
         "against the scale, so either they reversed the scale or a majority that did took the "
         "fit to the reversed reading (the mean rating then comes out mirrored); check whether "
         f"a rater reversed the scale (recode that rater's ratings: {lo + hi:g} - rating), or "
         "name a rater known to be reliable in error_free=[...]", IdentifiabilityWarning)
    return True


def _readings(data: pd.DataFrame, rating: str) -> np.ndarray | None:
    """A hash per row of the data's columns other than the rating's (one reading: one hash).

    The columns the rating term names (the column itself, or those its expression reads) are
    left out, so two ratings of one reading share the hash.  None when no other column is left.
    """
    def names_it(column: Any) -> bool:
        text = str(column)
        return text == rating or re.search(rf"(?<!\w){re.escape(text)}(?!\w)", rating) is not None

    other = data.loc[:, [not names_it(c) for c in data.columns]]
    if other.shape[1] == 0:
        return None
    try:
        return pd.util.hash_pandas_object(other, index=False).to_numpy()
    except TypeError:   # unhashable cells (lists, dicts): their text
        return pd.util.hash_pandas_object(other.astype(str), index=False).to_numpy()


def _told_apart(data: pd.DataFrame, rating: str, rater: str, item: str,
                group: pd.Series | None, rated: np.ndarray) -> tuple[str, ...]:
    """The columns that vary within a rater's ratings of one item (of one group)."""
    keys = [data[rater].astype(str).to_numpy(), data[item].astype(str).to_numpy()]
    if group is not None:
        keys.append(np.asarray(group.astype(str)))
    sub = data.loc[rated, [c for c in data.columns if c not in (rater, item)]]
    other = [c for c in sub.columns if str(c) != rating and not re.search(
        rf"(?<!\w){re.escape(str(c))}(?!\w)", rating)]
    if not other:
        return ()
    by = [k[rated] for k in keys]
    try:
        varies = sub[other].groupby(by, sort=False).nunique(dropna=False).max() > 1
    except TypeError:   # unhashable cells (lists, dicts): their text
        varies = sub[other].astype(str).groupby(by, sort=False).nunique(dropna=False).max() > 1
    return tuple(str(c) for c in other if bool(varies[c]))


#: most levels a binned rating may have (more: bin the rating in the formula)
MAX_LEVELS = 11
#: a level holding less than this share of the ratings beside two common ones is named in a
#: warning (a stray value in a two-valued rating)
STRAY_SHARE = 0.02


def _preference_labels(human: pd.Series, name: str) -> pd.Series:
    """Preference words as numbers; other ratings as they are.

    ``'first'``, ``'tie'``, ``'second'`` (any case, as :func:`binaryeval.fit_preferences` reads
    them) become 1, 0, -1.
    """
    present = human.dropna()
    if not len(present) or pd.api.types.is_numeric_dtype(present) or \
            pd.api.types.is_bool_dtype(present):
        return human
    words = present.astype(str).str.strip().str.lower()
    if not words.isin(["first", "tie", "second"]).all():
        return human
    return pd.Series(_latent_data.preference_codes(human, name), index=human.index)


def _rating_numbers(human: pd.Series) -> pd.Series:
    """A rating held as text of numbers (``'1'`` to ``'5'``) or a categorical, as numbers.

    Anything else is returned as it is.  The levels of a binned rating are numbers, and the
    formula's ``I(rating >= 4)`` cannot compare text (or an unordered categorical) with a
    number, so the numbers written are read as numbers.
    """
    if isinstance(human.dtype, pd.CategoricalDtype):
        values = human.astype(object)
        present = values.dropna()
        if len(present) and present.map(
                lambda x: isinstance(x, (int, float, np.integer, np.floating))
                and not isinstance(x, (bool, np.bool_))).all():
            return pd.to_numeric(values)
        human = values
    present = human.dropna()
    if not len(present) or pd.api.types.is_numeric_dtype(present) or \
            pd.api.types.is_bool_dtype(present) or \
            not present.map(lambda x: isinstance(x, str)).all():
        return human
    values = pd.to_numeric(present.str.strip(), errors="coerce")
    if values.isna().any():
        return human
    return pd.to_numeric(human.where(human.isna(), human.astype(str).str.strip()))


def _rating_levels(human: pd.Series, name: str, preference: bool = False) -> tuple[float, ...]:
    """The levels of a binned (or preference) rating; () for a binary 0/1 rating.

    A numeric rating with values other than 0 and 1 is binned: its distinct values, sorted, are
    the classes (a Likert 1-5 scale has five; a preference coded -1/0/1 three, whose mean is
    ``win - loss``).  Anything else goes through the binary check of the package.  Two values
    other than 0 and 1 (a binary rating coded 1/2 or -1/+1) are refused as
    :func:`binaryeval.fit` refuses them, unless they are preference words (``preference``):
    their mean rating is no rate of adequate outputs.  A level holding under
    :data:`STRAY_SHARE` of the ratings beside two common ones (a stray 0.5 in a 0/1 rating) is
    named in a warning.
    """
    present = human.dropna()
    if not len(present) or not pd.api.types.is_numeric_dtype(present) or \
            pd.api.types.is_bool_dtype(present):
        return ()
    scores(human, name, "human rating")   # an infinity is refused by name, not made a level
    values, counts = np.unique(present.astype(float), return_counts=True)
    if set(values) <= {0.0, 1.0}:
        return ()
    if values.size > MAX_LEVELS:
        raise DataError(
            f"the rater-noise model reads {name!r} as a binned rating, one class per value, "
            f"and it has {values.size} distinct values ({values[0]:g} to {values[-1]:g}); at "
            f"most {MAX_LEVELS} are modelled: bin the rating in the formula, e.g. "
            f"'I(np.round({name})) ~ ...', or binarise it, e.g. 'I({name} >= 4) ~ ...'")
    if values.size < 2:
        raise DataError(f"{name!r} takes the single value {values[0]:g}: a rating with one "
                        "level says nothing about the items' classes")
    if values.size == 2 and not preference:
        lo, hi = (f"{x:g}" for x in values)
        raise DataError(
            f"column {name!r} (human rating) holds the two values {lo} and {hi}: a two-valued "
            "rating is binary and must be coded 1 = adequate, 0 = not (or booleans), as in "
            "binaryeval.fit; other numbers are read as the levels of a binned rating, whose "
            f"estimate is the mean rating (here between {lo} and {hi}), not a rate of adequate "
            f"outputs. Say which value is adequate in the formula, e.g. 'I({name} == {hi}) ~ "
            f"...' (or 'I({name} == {lo}) ~ ...'); a preference without ties: write it as "
            "'first' / 'second'")
    share = counts / counts.sum()
    rare = share < STRAY_SHARE
    if rare.any() and (~rare).sum() == 2:
        strays = ", ".join(f"{x:g} ({c} rating{'s' if c != 1 else ''})"
                           for x, c in zip(values[rare], counts[rare], strict=True))
        common = " and ".join(f"{x:g} ({c})" for x, c in zip(values[~rare], counts[~rare],
                                                             strict=True))
        keep = ", ".join(f"{x:g}" for x in values[~rare])
        warn(f"column {name!r} (human rating) holds {strays} beside {common}, of "
             f"{counts.sum()} ratings: every value is a class of the rating, so the fit has "
             f"{values.size} classes and its estimate is the mean rating, not alpha (the rate of "
             "adequate outputs). If those values are errors in a two-valued rating, correct "
             f"them or drop their rows (e.g. data[data[{name!r}].isin([{keep}])]); if they are "
             "levels of the rating, the fit stands", BinaryEvalWarning)
    return tuple(float(x) for x in values)


def _share_prior(prior: Any, levels: tuple[float, ...]) -> np.ndarray:
    """Dirichlet concentration of the class shares, in class order (binary: (1 - alpha, alpha))."""
    if not levels:
        a, b = v.beta_pair(prior, "prior")
        return np.array([b, a])
    k = len(levels)
    values = np.asarray(prior, dtype=float).ravel()
    if values.size == 2 and k != 2 and np.all(values == 1.0):
        return np.ones(k)      # the default (1, 1): uniform over the shares
    if values.size != k or not np.all(np.isfinite(values)) or not np.all(values > 0):
        raise ParameterError(
            f"prior={prior!r}: with a binned rating of {k} levels "
            f"({', '.join(f'{x:g}' for x in levels)}) the prior of the class shares is a "
            f"Dirichlet: give {k} positive numbers, one per level in increasing order "
            f"(e.g. prior={[1] * k})")
    return values
