"""Several metrics and binned scalar scores for a binary human rating: :func:`fit_latent`.

The human rating (adequate or not) is the latent truth, K = 2.  The metrics' outputs on an item
form one pattern ``j`` (``J`` = the product of their levels): with ``dependence="joint"`` the
pattern probabilities per human class are unrestricted, so however the metrics depend on each
other given the truth is learnt from the paired items; ``"independent"`` multiplies one
confusion matrix per metric (fewer parameters, valid only when the metrics err independently;
:meth:`LatentFit.dependence` checks it on the paired items).  A scalar score enters without a
threshold through ``bins``: its ``k`` bins are cut at the quantiles ``1/k, ..., (k-1)/k`` of the
paired rows' scores, and each bin is a metric output.  One binary metric is the binary model,
which :func:`binaryeval.fit` computes exactly.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._comparison import Comparison, compare_draws, pair_differences
from .._results import Result, excluded_rows, row_account, row_facts
from ..data import LeftOutRows, RowAccount, as_binary, refuse_all_missing, scores
from ..errors import DataError, ParameterError
from ..summary import Summary, prior_text
from . import _common, _data, _fit, dependence
from ._ranking import _min_prob, plot_dag, ranking_graph
from .draws import DrawsPosterior
from .posterior import HIERARCHICAL_TEXT, LatentPosterior, build_model

if TYPE_CHECKING:  # names used only in type hints
    from collections.abc import Mapping

    import networkx as nx
    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

__all__ = ["LatentFit", "fit_latent"]

_SINGLE = "all"
_MAX_LEVELS = 12


def _metric_codes(values: pd.Series, term: str, paired: np.ndarray, n_bins: int | None,
                  lower: bool = False, binnable: bool = True
                  ) -> tuple[np.ndarray, tuple[str, ...], np.ndarray | None, bool]:
    """Code a metric term's ratings as outputs.

    Output index per row (-1 missing), the output labels, the bin edges (binned terms) and
    whether the outputs are ordered (numbers, bins or 0/1 as text; not other text).
    ``binnable``: whether the calling model takes ``bins=`` (the advice for a scalar score
    names it only then).

    A lower-is-better score is binned turned round (its first bin holds the highest scores);
    labels and edges stay in the score's own units.
    """
    if n_bins is not None:
        score = _data.numeric(values, term) * (-1.0 if lower else 1.0)
        edges = _data.bin_edges(score, paired, n_bins, term, lower)
        code = np.where(np.isnan(score), -1, np.searchsorted(edges, score, side="right"))
        labels = _bin_labels(edges, lower)
        return code.astype(np.int64), labels, (-edges[::-1] if lower else edges), True
    present = values.dropna()
    if pd.api.types.is_numeric_dtype(present):
        scores(values, term, "metric term")  # infinities refused by name, not counted as levels
    if present.map(lambda x: isinstance(x, (bool, np.bool_))).all() and len(present):
        present = present.astype(int)
        values = values.map(lambda x: x if pd.isna(x) else int(x))
    levels = sorted(pd.unique(present), key=lambda x: (str(type(x)), x))
    numeric = pd.api.types.is_numeric_dtype(present)
    if len(levels) > _MAX_LEVELS or (numeric and len(levels) > 2 and
                                     not np.all(np.mod(present.astype(float), 1) == 0)):
        binned = (f"a scalar score enters binned: pass bins=5 (or bins={{{term!r}: 5}}), or "
                  "threshold it in the formula" if binnable else
                  "a scalar score is thresholded in the formula for this model")
        raise DataError(f"metric term {term!r} has {len(levels)} distinct values; {binned}, "
                        f"e.g. I({term} > 0.5)")
    if len(levels) < 2:
        levels = sorted(set(levels) | ({0, 1} if numeric or not levels else set()))
        if len(levels) < 2:
            raise DataError(f"metric term {term!r} has a single value {levels!r}; it carries "
                            "no information")
    index = {lv: i for i, lv in enumerate(levels)}
    code = values.map(lambda x: -1 if pd.isna(x) else index[x]).to_numpy(dtype=np.int64)
    labels = tuple(_level_text(lv) for lv in levels)
    # 0/1 written as text or held in a category is the same rating, with the same direction
    return code, labels, None, bool(numeric) or labels == ("0", "1")


def _level_text(level: Any) -> str:
    """A metric level as text: a whole number as an integer, whatever its dtype.

    A 0/1 column read from a file with a missing value is float (0.0, 1.0); its levels are
    the same ratings as those of an integer column, and read alike (``"0"``, ``"1"``).
    """
    if isinstance(level, (float, np.floating)) and float(level).is_integer():
        return str(int(level))
    return str(level)


def _bin_labels(edges: np.ndarray, lower: bool = False) -> tuple[str, ...]:
    if lower:   # edges of the negated score: bins from the highest scores down
        cuts = [f"{-e:.4g}" for e in edges]
        return tuple([f"> {cuts[0]}"] + [f"({b}, {a}]" for a, b in zip(cuts[:-1], cuts[1:],
                                                                       strict=True)]
                     + [f"<= {cuts[-1]}"])
    cuts = [f"{e:.4g}" for e in edges]
    return tuple([f"< {cuts[0]}"] + [f"[{a}, {b})" for a, b in zip(cuts[:-1], cuts[1:],
                                                                   strict=True)]
                 + [f">= {cuts[-1]}"])


@dataclass(frozen=True, eq=False, repr=False)
class LatentFit(Result):
    """Rate of adequate outputs per group from several metrics or binned scores.

    Returned by :func:`fit_latent` (and by :func:`binaryeval.fit` for several metric terms or
    ``bins=``).  It answers what :class:`~binaryeval.BinaryFit` answers: ``to_frame()`` (indexed
    by the grouping column), ``compare()``, ``posterior(group)``, ``rates()``, ``naive()``,
    ``plan()``, ``ranking()``, in the fit's ``order``.

    Attributes
    ----------
    groups : tuple of str
        The groups (systems), as their labels sort.
    order : tuple of str
        The groups in display order (``order=`` of the fit; by default by posterior mean, those
        whose posterior is essentially the prior last).
    group_name : str
        Name of the grouping column(s) (the index name of the tables).
    latent : LatentPosterior
        The draws; classes ``0`` and ``1`` (inadequate, adequate); the outputs are the joint
        metric patterns.
    metric_levels : dict
        ``term -> labels`` of each metric's outputs (bins as intervals).
    bin_edges : dict
        ``term -> interior edges`` of every binned term (quantiles of the paired rows).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import binaryeval as be
    >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
    >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
    >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
    ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
    ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
    ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
    >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
    >>> res
    LatentFit(groups=2, metrics=2, outputs=4, n_rows=2400, chains=4, draws=500)
    >>> list(res.to_frame().columns)[:4]
    ['n_human', 'n_paired', 'n_metric', 'estimate']
    >>> res.to_frame().index.name
    'system'
    """

    formula: str
    groups: tuple[str, ...]
    latent: LatentPosterior
    human_term: str
    metric_terms: tuple[str, ...]
    metric_levels: dict
    bin_edges: dict = field(default_factory=dict)
    level: float = 0.95
    n_rows: int = 0
    excluded: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    call: dict = field(default_factory=dict)
    group_name: str = "group"
    order: tuple[str, ...] = ()
    prior: tuple[float, float] = (1.0, 1.0)
    lower_is_better: tuple[str, ...] = ()
    naive_counts: np.ndarray | None = None
    naive_positive: tuple[bool, ...] = ()
    _left_out: LeftOutRows | None = field(default=None, repr=False, compare=False)

    # -- access -----------------------------------------------------------------------------------
    @property
    def n_used(self) -> int:
        """Rows used (``n_rows - n_excluded``)."""
        return self.n_rows - self.n_excluded

    @property
    def n_excluded(self) -> int:
        """Rows left out (reasons in ``excluded``)."""
        return int(sum(self.excluded.values()))

    @property
    def excluded_rows(self) -> pd.Series:
        """The rows left out: the reason of each, indexed by the data's own row labels.

        In data order, the index name kept; the reasons are the keys of ``excluded`` and
        ``excluded_rows.value_counts()`` equals it.  Empty when no row was left out.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import binaryeval as be
        >>> rng = np.random.default_rng(0)
        >>> truth = rng.random(600) < 0.6
        >>> df = pd.DataFrame({"human": np.where(np.arange(600) < 150, truth, np.nan),
        ...                    "m1": np.where(truth, rng.random(600) < 0.8, rng.random(600) < 0.3),
        ...                    "m2": np.where(truth, rng.random(600) < 0.7, rng.random(600) < 0.2)
        ...                    }).astype(float)
        >>> df.loc[[597, 598], "m2"] = np.nan
        >>> df.loc[599, ["m1", "m2"]] = np.nan
        >>> res = be.fit_latent("human ~ m1 + m2", df, seed=1)
        >>> res.excluded_rows
        597    rated by some metrics only, no human rating
        598    rated by some metrics only, no human rating
        599          no rating (human and metrics missing)
        Name: reason, dtype: object
        """
        return excluded_rows(self._left_out)

    @property
    def _shown(self) -> list[str]:
        return list(self.order) if self.order else list(self.groups)

    def _positions(self) -> list[int]:
        return [self.groups.index(g) for g in self._shown]

    def _alpha(self) -> np.ndarray:
        return self.latent.draws.pi[..., 1]

    def alpha_draws(self, group: str | None = None) -> np.ndarray:
        """Posterior draws of ``alpha`` (the rate of adequate outputs), shape (chains, draws).

        Parameters
        ----------
        group : str, optional
            The group (the only one when there is a single group).

        Returns
        -------
        ndarray

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> res.alpha_draws("A").shape
        (4, 500)
        """
        return self.latent.pi_draws(group)[..., 1]

    def posterior(self, group: str | None = None) -> DrawsPosterior:
        """Posterior of ``alpha`` for one group (the only one when there is a single group).

        Parameters
        ----------
        group : str, optional
            A group label; may be omitted when the fit has one group.

        Returns
        -------
        DrawsPosterior
            ``mean()``, ``std()``, ``interval()``, ``cdf``, ``ppf``, ``prob_greater`` ... of
            the draws.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> post = res.posterior("A")
        >>> round(post.mean(), 1)
        0.7
        """
        if group is None and len(self.groups) != 1:
            raise ParameterError(f"name a group: one of {self._shown}")
        label = self.groups[0] if group is None else str(group)
        if label not in self.groups:
            raise ParameterError(f"group {group!r} is not in the fit; groups are {self._shown}")
        return DrawsPosterior(self.alpha_draws(label), "alpha", label, source=id(self.latent))

    # -- tables -----------------------------------------------------------------------------------
    def _index(self) -> pd.Index:
        return pd.Index(self._shown, name=self.group_name)

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
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> res.interval(0.8, kind="hdi").attrs["kind"]
        'hdi'
        """
        level = self.level if level is None else level
        return _common.interval_frame(self._alpha()[..., self._positions()], level, kind,
                                      self._index())

    def _prior_sd(self) -> float:
        a, b = self.prior
        return _common.prior_sd_share(np.array([b, a]), 1)

    def to_frame(self, level: float | None = None, kind: str = "eti") -> pd.DataFrame:
        """One row per group, indexed by the grouping column, in the fit's order.

        Parameters
        ----------
        level : float, optional
            Probability of the credible intervals (default: the fit's level; in ``attrs``).
        kind : {"eti", "hdi"}
            Equal-tailed or highest-density intervals.

        Returns
        -------
        DataFrame
            ``n_human`` (human ratings informing ``alpha``, paired included), ``n_paired``,
            ``n_metric`` (metric-only), ``estimate`` (posterior mean of ``alpha``),
            ``std_error`` (posterior sd), ``lower``/``upper`` (credible interval at
            ``level``), ``naive`` (:meth:`naive`), ``n_eff`` (human ratings alone that would
            give this posterior sd) and ``metric_worth`` (``n_eff - n_human``),
            ``prior_dominated`` (the posterior sd is at least 0.75 of the prior's: the data say
            little about this group), and the sampler's ``rhat``, ``ess_bulk``, ``ess_tail``.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> int(res.to_frame().loc["A", "n_paired"])
        200
        """
        level = self.level if level is None else v.level(level)
        post = self.latent
        pos = self._positions()
        alpha = self._alpha()[..., pos]
        s = _common.summarise(alpha, level)
        iv = _common.interval_frame(alpha, level, kind, self._index())
        n_paired = post.paired.sum(axis=(1, 2))[pos]
        n_human = (post.human.sum(axis=1)[pos] + (n_paired if post.paired_informs_pi else 0))
        m = s["estimate"]
        n_eff = _common.effective_human(m * (1 - m), s["std_error"] ** 2, float(sum(self.prior)))
        out = pd.DataFrame({
            "n_human": n_human.astype(int), "n_paired": n_paired.astype(int),
            "n_metric": post.metric.sum(axis=1)[pos].astype(int),
            "estimate": m, "std_error": s["std_error"], "lower": iv["lower"].to_numpy(),
            "upper": iv["upper"].to_numpy(), "naive": self.naive(level)["estimate"].to_numpy(),
            "n_eff": n_eff, "metric_worth": n_eff - n_human,
            "prior_dominated": _fit.prior_dominated(s["std_error"], self._prior_sd()),
            "rhat": s["rhat"], "ess_bulk": s["ess_bulk"], "ess_tail": s["ess_tail"]},
            index=self._index())
        out.attrs.update(level=level, kind=kind, method=post.method, rates=post.rates,
                         dependence=post.dependence,
                         bins={k: e.tolist() for k, e in self.bin_edges.items()},
                         lower_is_better=list(self.lower_is_better))
        out.attrs.update(row_account(self))
        return out

    def prior_dominated(self) -> list[str]:
        """The groups whose posterior of ``alpha`` is essentially the prior.

        See :meth:`to_frame`.

        Returns
        -------
        list of str

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> res.prior_dominated()
        []
        """
        frame = self.to_frame()
        return [str(g) for g in frame.index[frame["prior_dominated"].to_numpy(dtype=bool)]]

    def ranks(self, level: float | None = None, *, n_resamples: int | None = None,
              seed: int | None = None):
        """Posterior ranks of the groups by ``alpha``, with simultaneous credible rank intervals.

        Every posterior draw of the sampler ranks the groups (1 = highest ``alpha``); the shares
        of draws give ``P(rank = r)`` and the rank intervals hold for every group at once with
        posterior probability >= ``level`` (:mod:`binaryeval._ranks`).  The naive rank is the
        rank of the uncorrected estimate of :meth:`naive`.

        Parameters
        ----------
        level : float, optional
            Joint posterior probability of the rank intervals (default: the fit's level).
        n_resamples, seed : None
            Taken for the same call as :meth:`binaryeval.BinaryFit.ranks` and refused when
            given: the ranks are those of the sampler's own draws (their number and seed
            are the fit's ``draws``, ``chains`` and ``seed``), nothing is drawn anew.

        Returns
        -------
        Ranks

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> res.ranks().to_frame()["rank"].tolist()
        [1, 2]
        """
        from .._ranks import ranks_from_draws

        _common.refuse_resampling(n_resamples, seed, self.latent)
        level = self.level if level is None else v.level(level)
        draws = self._alpha().reshape(-1, len(self.groups))
        naive = self.naive(level)["estimate"].reindex(list(self.groups))
        post = self.latent
        # what the check before pooling found, as in the fit's summary
        pooled = _fit.pooling_note(post, self.pooling_check(), "groups") \
            if post.rates == "pooled" else None
        return ranks_from_draws(
            draws, self.groups, naive.to_numpy(dtype=float), level=level,
            ranked="alpha (rate of adequate outputs)",
            method=f"{post.n_chains} x {post.n_draws} draws of the sampler ({post.method})",
            seed=post.seed, group_name=self.group_name, chains=post.n_chains,
            notes=[pooled] if pooled else [])

    def naive(self, level: float | None = None) -> pd.DataFrame:
        """Uncorrected classify-and-count with the first metric, per group.

        Every item the first metric rated (paired and metric-only) counts as if the metric were a
        human: a 0/1 metric's 1 as adequate; the levels or bins of any other metric as the class
        most of their paired rows have (all groups together).  ``estimate`` is the share, with a
        Beta(1, 1)-posterior interval (as :meth:`BinaryFit.naive`).

        Parameters
        ----------
        level : float, optional
            Probability of the interval (default: the fit's level).

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> int(res.naive().loc["A", "n_metric_all"])
        1200
        """
        from scipy import stats

        level = self.level if level is None else v.level(level)
        pos = self._positions()
        counts = np.asarray(self.naive_counts)[pos]
        positive = np.asarray(self.naive_positive, dtype=bool)
        n = counts.sum(axis=1)
        k = counts[:, positive].sum(axis=1)
        tail = (1 - level) / 2
        with np.errstate(invalid="ignore", divide="ignore"):
            est = k / n
        out = pd.DataFrame({
            "n_metric_all": n.astype(int), "metric_pos_all": k.astype(int), "estimate": est,
            "std_error": np.sqrt(est * (1 - est) / n),
            "lower": stats.beta.ppf(tail, k + 1, n - k + 1),
            "upper": stats.beta.ppf(1 - tail, k + 1, n - k + 1)}, index=self._index())
        out.attrs.update(level=level, method="classify and count (uncorrected): "
                         + _naive_note(self), term=self.metric_terms[0])
        return out

    def rates(self, level: float | None = None) -> pd.DataFrame:
        """The model's posterior of the metrics' confusion matrix ``Theta`` per group.

        One row per (group, human class, metric output): ``P(output | class)`` from the draws of
        the whole model (paired and metric-only items), not from the paired rows alone;
        ``n_paired`` is the group's paired count in that cell.  Pooled rates repeat the one
        matrix for every group; known rates have no spread.

        Parameters
        ----------
        level : float, optional
            Probability of the intervals (default: the fit's level).

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> r = res.rates()
        >>> r.index.names
        FrozenList(['system', 'class', 'metric_output'])
        >>> round(float(r.loc[("A", "1")]["estimate"].sum()), 6)
        1.0
        """
        level = self.level if level is None else v.level(level)
        return _fit.rates_frame(self.latent, [(g,) for g in self.groups], [self.group_name],
                                level, self._positions())

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
            ``diff`` = posterior mean of ``alpha_1 - alpha_2`` with its ``std_error`` and
            credible interval ``lower``/``upper``, ``prob_greater`` = ``P(alpha_1 >
            alpha_2)``, ``prior_dominated`` when either group's posterior is essentially the
            prior.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> m = res.compare().matrix()
        >>> round(float(m.loc["A", "B"] + m.loc["B", "A"]), 6)
        1.0
        """
        sig = v.sig_level_or(sig_level, self.level)
        shown = self._shown if order is None else list(self._order_of(order))
        dominated = set(self.prior_dominated())
        alpha = self._alpha()
        pairs, diff = pair_differences(alpha, self.groups, shown)
        comp = compare_draws(diff, pairs, groups=shown, method=method, sig_level=sig,
                             adjust=adjust, level=self.level, group_name=self.group_name,
                             quantity="P(alpha_1 > alpha_2)")
        comp.table["prior_dominated"] = [a in dominated or b in dominated for a, b in pairs]
        return comp

    def prob_greater_matrix(self, order: str | Sequence[str] | None = None) -> pd.DataFrame:
        """``P(alpha_i > alpha_j)`` for every pair of groups, as :class:`~binaryeval.BinaryFit`.

        The shares of the sampler's draws, the matrix of :meth:`compare`
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
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> float(res.prob_greater_matrix().loc["A", "B"])
        1.0
        """
        out = self.compare(order=order).matrix()
        out.attrs.update(quantity="P(alpha_1 > alpha_2)")
        return out

    def _order_of(self, order: Any) -> tuple[str, ...]:
        frame_mean = self._alpha().reshape(-1, len(self.groups)).mean(axis=0)
        score = dict(zip(self.groups, frame_mean, strict=True))
        return _common.resolve_order(order, self.groups, score)

    @v.renamed(threshold="min_prob")
    def ranking(self, min_prob: float = 0.95, *, include_prior_dominated: bool = False) -> nx.DiGraph:
        """Groups ranked by ``P(alpha_a > alpha_b) >= min_prob``: a DAG (networkx).

        Parameters
        ----------
        min_prob : float
            Posterior probability an edge needs (0.5 < min_prob < 1).
        include_prior_dominated : bool
            Keep the groups whose posterior is essentially the prior (left out by default: the
            data cannot place them).

        Returns
        -------
        networkx.DiGraph
            Transitive edges removed; see :meth:`PreferenceFit.ranking`.  ``graph["left_out"]``
            lists the groups left out.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> sorted(res.ranking().nodes)
        ['A', 'B']
        """
        min_prob = _min_prob(min_prob)
        keep_all = v.flag(include_prior_dominated, "include_prior_dominated")
        left_out = [] if keep_all else self.prior_dominated()
        kept = [g for g in self._shown if g not in left_out]
        prob = self.compare().matrix().loc[kept, kept]
        means = self._alpha().reshape(-1, len(self.groups)).mean(axis=0)
        score = dict(zip(self.groups, means, strict=True))
        prob.attrs["mean_diff"] = {g: float(score[g] - np.mean([score[h] for h in kept
                                                                 if h != g]))
                                   if len(kept) > 1 else 0.0 for g in kept}
        g = ranking_graph(prob, min_prob)
        g.graph["left_out"] = left_out
        return g

    def dependence(self) -> pd.DataFrame:
        """Check of conditional dependence of the metrics on the paired items.

        Returns
        -------
        DataFrame
            ``n_paired`` and ``log10_bf`` (joint over independent) per group; ``attrs`` hold
            the overall ``log10_bf`` and the ``verdict`` (see
            :mod:`binaryeval.latent.dependence`).

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> res.dependence().attrs["verdict"]  # two independent metrics, 200 paired rows
        'inconclusive: dependence="joint" is the safe choice'
        """
        if len(self.metric_terms) < 2:
            raise ParameterError("the dependence check compares metrics: the fit has one")
        post = self.latent
        out = dependence.check(post.paired, post.levels, self.groups,
                               pooled=post.rates == "pooled")
        out.index.name = self.group_name
        return out

    def pooling_check(self) -> pd.DataFrame:
        """Check before pooling: whether one confusion matrix fits every group's paired items.

        An exact conditional test of homogeneity of the groups' paired confusion counts (per
        human class, the groups' counts of the metric outputs; see :mod:`binaryeval._pooling`).
        ``rates="pooled"`` runs it and warns when it fails
        (:class:`~binaryeval.errors.PoolingWarning`); it answers for any fit.

        Returns
        -------
        DataFrame
            Per group: ``n_paired`` and the group-against-the-rest ``statistic``, ``df`` and
            approximate ``p_value``; ``attrs`` hold the test's ``statistic``, ``p_value``,
            ``sig_level``, ``verdict`` and ``method``.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> bool(res.pooling_check().attrs["p_value"] > 0.01)
        True
        """
        out = _fit.pooling_check(self.latent, list(self.groups))
        out.index.name = self.group_name
        return out

    # -- display ----------------------------------------------------------------------------------
    def _repr_fields(self) -> dict[str, Any]:
        return {"groups": len(self.groups), "metrics": len(self.metric_terms),
                "outputs": len(self.latent.outputs), "n_rows": self.n_rows,
                "chains": self.latent.n_chains, "draws": self.latent.n_draws}

    def summary(self, level: float | None = None) -> Summary:
        """Facts of the fit, the table per group and the dependence check.

        Parameters
        ----------
        level : float, optional
            Probability of the credible intervals (default: the fit's level).

        Returns
        -------
        Summary

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> print(res.summary().title)
        Latent-truth model: rate of adequate outputs from several metrics
        """
        level = self.level if level is None else v.level(level)
        post = self.latent
        table = self.to_frame(level).drop(columns=["n_eff", "metric_worth"])
        table[["ess_bulk", "ess_tail"]] = table[["ess_bulk", "ess_tail"]].round().astype("Int64")
        pct = f"{100 * level:g}%"
        info: dict[str, Any] = {
            "formula": self.formula, **row_facts(self),
            "metrics": ", ".join(f"{t} ({len(self.metric_levels[t])} levels)"
                                 for t in self.metric_terms),
            "metric outputs (patterns)": len(post.outputs),
            "dependence": post.dependence,
            "rates": {"estimate": "estimated per group", "pooled": "estimated once from all "
                      "groups", "hierarchical": HIERARCHICAL_TEXT, "known": "known"}[post.rates],
            "prior (alpha)": prior_text(self.prior),
            "interval": f"{pct} equal-tailed credible interval", "sampler": post.method,
            "seed": post.seed}
        if self.lower_is_better:
            info["lower is better"] = ", ".join(self.lower_is_better)
        for term, edges in self.bin_edges.items():
            info[f"bins of {term}"] = ("edges " + ", ".join(f"{e:.4g}" for e in edges)
                                       + " (quantiles of the paired rows' scores)")
        source = ("several metrics" if len(self.metric_terms) > 1
                  else "binned scores" if self.bin_edges else "one metric")
        s = Summary(f"Latent-truth model: rate of adequate outputs from {source}", info,
                    [("per group (estimate: alpha, the rate of adequate outputs)", table)])
        if len(self.metric_terms) > 1:
            s.add_note(dependence.note(self.dependence().attrs["log10_bf"], post.dependence))
        if post.rates == "pooled":
            note = _fit.pooling_note(post, self.pooling_check(), "groups")
            if note:
                s.add_note(note)
        note = _fit.population_note(post, "groups")
        if note:
            s.add_note(note)
        dominated = [g for g in table.index[table["prior_dominated"].to_numpy(dtype=bool)]]
        if dominated:
            s.add_note(f"the data say little about {', '.join(map(str, dominated))}: the "
                       "posterior is essentially the prior (posterior sd at least "
                       f"{_common.PRIOR_DOMINATED:g} of the prior's; prior_dominated in "
                       "to_frame()); they are left out of ranking()")
        s.add_note("naive: " + _naive_note(self))
        for note in self.notes:
            s.add_note(note)
        return s

    @v.renamed(threshold="min_prob")
    def plot(self, ax: Axes | None = None, *, kind: str = "interval", min_prob: float = 0.95,
             level: float | None = None, **kwargs: Any) -> Axes:
        """Draw the rates, the comparison matrix or the ranking.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure when None.
        kind : {"interval", "matrix", "ranking"}
            Posterior means and intervals of ``alpha`` (the naive share beside them); heat map
            of ``P(alpha_row > alpha_column)``; the DAG of :meth:`ranking`.
        min_prob : float
            Posterior probability of an edge in ``kind="ranking"``.
        level : float, optional
            Probability of the intervals of ``kind="interval"`` (default: the fit's level).
        **kwargs
            Passed to matplotlib (seaborn for the matrix, networkx for the ranking).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import binaryeval as be
        >>> u = np.random.default_rng(0).random((2, 5, 1200))  # systems A and B, 1200 rows each
        >>> truth = u[:, 0] < np.array([[0.7], [0.5]])
        >>> df = pd.DataFrame({"system": np.repeat(["A", "B"], 1200),
        ...                    "human": np.where(np.arange(1200) < 200, truth, np.nan).ravel(),
        ...                    "m1": np.where(truth, u[:, 1] < 0.8, u[:, 2] < 0.25).ravel(),
        ...                    "m2": np.where(truth, u[:, 3] < 0.75, u[:, 4] < 0.3).ravel()})
        >>> res = be.fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
        >>> ax = res.plot()
        """
        import matplotlib.pyplot as plt

        kind = v.choice(kind, "kind", ("interval", "matrix", "ranking"))
        level = self.level if level is None else v.level(level)
        if level != self.level and kind != "interval":
            raise ParameterError(f"level={level!r} sets the intervals of kind='interval'; "
                                 f"kind={kind!r} draws none: leave level out")
        if kind == "matrix":
            return self.compare().plot(ax, **kwargs)
        if ax is None:
            _, ax = plt.subplots(figsize=(7, min(0.35 * len(self.groups) + 2.5, 14.0)))
        if kind == "interval":
            frame = self.to_frame(level)
            y = np.arange(len(frame))
            ax.errorbar(frame["estimate"], y, xerr=[frame["estimate"] - frame["lower"],
                                                    frame["upper"] - frame["estimate"]],
                        fmt="o", capsize=3, label=f"posterior mean, {level:.0%} interval",
                        **kwargs)
            ax.plot(frame["naive"], y, "x", color="C3", label="naive (first metric only)")
            ax.set_yticks(y, [str(g) for g in frame.index])
            ax.invert_yaxis()
            ax.set_xlabel("alpha (rate of adequate outputs)")
            ax.legend(fontsize=8)
            return ax
        return plot_dag(self.ranking(min_prob), ax, **kwargs)


def _naive_note(fit: LatentFit) -> str:
    term = fit.metric_terms[0]
    read = [lab for lab, p in zip(fit.metric_levels[term], fit.naive_positive, strict=True) if p]
    return (f"the share of items metric {term!r} alone rates adequate (levels read as adequate: "
            f"{', '.join(read) or 'none'}), uncorrected")


def _counts(parsed, frame, data: pd.DataFrame, bins: dict[str, int], lower: tuple[str, ...]):
    """Groups, per-metric codes and the counts of the model."""
    account = RowAccount(len(data))
    human = as_binary(frame.lhs.iloc[:, 0], parsed.lhs_names[0], "human rating").to_numpy()
    if frame.group is not None:
        group = frame.group
        missing = group.isna().to_numpy()
        account.exclude("missing group", rows=missing)
    else:
        group = pd.Series(_SINGLE, index=data.index)
        missing = np.zeros(len(data), dtype=bool)
    has_human = ~np.isnan(human)
    codes, labels, edges, ordered = [], {}, {}, {}
    for term in parsed.rhs_names:
        values = frame.rhs[term]
        if term in lower and term not in bins:
            present_values = values.dropna()
            if (pd.api.types.is_numeric_dtype(present_values)
                    and not pd.api.types.is_bool_dtype(present_values)
                    and present_values.nunique() > 2):
                raise ParameterError(
                    f"lower_is_better={term!r} applies to a scalar metric entered with bins=; "
                    f"{term!r} is a score ({present_values.nunique()} distinct values): give "
                    f"bins= too, e.g. bins={{{term!r}: 5}}, or threshold it in the formula, "
                    f"e.g. I({term} <= cut)")
            raise ParameterError(
                f"lower_is_better={term!r} applies to a scalar metric entered with bins=; a "
                f"binary or categorical metric has no direction to turn: if its 1 means "
                f"inadequate, flip it in the formula, e.g. I(1 - {term})")
        present = values.notna().to_numpy()
        code, lab, edge, is_ordered = _metric_codes(values[~missing], term,
                                                    (has_human & present)[~missing],
                                                    bins.get(term), lower=term in lower)
        full = np.full(len(data), -1, dtype=np.int64)
        full[~missing] = code
        codes.append(full)
        labels[term] = lab
        ordered[term] = is_ordered
        if edge is not None:
            edges[term] = edge
    levels = tuple(len(labels[t]) for t in parsed.rhs_names)
    out = _data.joint_index(codes, levels)
    some_metric = (np.stack(codes) >= 0).any(axis=0)
    # rows without a human rating: with no metric rating either, or with some metrics' only
    # (a model row needs every metric's rating or a human one): each said as what it is
    unrated = ~has_human & ~some_metric & ~missing
    partial_only = ~has_human & (out < 0) & some_metric & ~missing
    account.exclude("no rating (human and metrics missing)", rows=unrated)
    account.exclude("rated by some metrics only, no human rating", rows=partial_only)
    keep = ~missing & ~unrated & ~partial_only
    if not keep.any():
        raise DataError("no row has a group and a rating; check the columns in the formula")
    names, gidx = np.unique(group[keep].astype(str).to_numpy(), return_inverse=True)
    cls = np.where(np.isnan(human[keep]), -1, human[keep]).astype(np.int64)
    n, h, m, naive = _data.tally(gidx, cls, out[keep], codes[0][keep], len(names), 2,
                                 int(np.prod(levels)), levels[0])
    # the naive reading counts every row the first metric rated, those left out of the model
    # included (in the groups the model has)
    extra = partial_only & (codes[0] >= 0)
    if extra.any():
        where = np.searchsorted(names, group[extra].astype(str).to_numpy())
        found = (where < len(names)) & (names[np.minimum(where, len(names) - 1)]
                                        == group[extra].astype(str).to_numpy())
        np.add.at(naive, (where[found], codes[0][extra][found]), 1)
    partial = int((some_metric & (out < 0) & keep).sum())
    n_partial = partial + int(partial_only.sum())
    notes = ([f"{n_partial} rows rated by some metrics only: their metric ratings are not used"
              + (f" ({partial} of them count for their human rating)" if partial else "")]
             if n_partial and len(codes) > 1 else [])
    return (tuple(str(x) for x in names), n, h, m, naive, labels, edges, levels, ordered,
            account, notes)


def _margin(paired: np.ndarray, levels: tuple[int, ...], r: int) -> np.ndarray:
    """Paired counts of all groups by (human class, level of metric ``r``)."""
    k = paired.shape[1]
    full = paired.sum(axis=0).reshape(k, *levels)
    other = tuple(1 + s for s in range(len(levels)) if s != r)
    return full.sum(axis=other) if other else full


def _naive_reading(paired: np.ndarray, levels: tuple[int, ...], labels: tuple[str, ...]
                   ) -> tuple[bool, ...]:
    """Which levels of the first metric count as adequate in :meth:`LatentFit.naive`."""
    if labels == ("0", "1"):
        return (False, True)
    margin = _margin(paired, levels, 0)
    return tuple(bool(margin[1, lv] > 0 and margin[1, lv] >= margin[0, lv])
                 for lv in range(levels[0]))


def _check_directions(paired: np.ndarray, levels: tuple[int, ...], terms: list[str],
                      human: str, ordered: dict, binned: set, lower: tuple[str, ...]) -> bool:
    """The direction check of each ordered metric: AUC on the paired rows below 0.5.

    Returns whether it warned.
    """
    messages = []
    for r, term in enumerate(terms):
        if not ordered[term]:
            continue
        margin = _margin(paired, levels, r)
        auc = _fit.auc_from_counts(margin[0], margin[1])
        flip = (None if term in binned else
                f"if {term}'s 1 means inadequate, flip it in the formula, e.g. I(1 - {term})")
        msg = _fit.check_terms(
            auc, lambda term=term, auc=auc: (
                f"the metric {term!r} runs against the human ratings ({human}) on the paired "
                f"rows (AUC {auc:.2f}: its higher {'bins' if term in binned else 'values'} go "
                "with inadequate outputs)"),
            terms=[t for t in terms if t in binned], sides=[(term,)], lower=lower,
            advice=flip, note=f"or {human} is coded the other way round (1 = inadequate): flip "
                              f"it, e.g. I(1 - {human})")
        if msg:
            messages.append(msg)
    _fit.emit_direction(messages)
    return bool(messages)


@v.renamed(confidence="level", random_state="seed", rate_prior="rate_concentration",
           higher_is_better="lower_is_better", metric_higher_is_better="lower_is_better")
def fit_latent(formula: str, data: pd.DataFrame, *, dependence: str = "joint",
               bins: int | dict[str, int] | None = None, rates: str | Mapping = "estimate",
               prior: tuple[float, float] = (1.0, 1.0), rate_concentration: float | ArrayLike = 1.0,
               lower_is_better: str | Sequence[str] | None = None,
               order: str | Sequence[str] = "estimate", eval_env: int | dict = 0,
               paired_informs_pi: bool = True, level: float = 0.95, seed: int | None = None,
               draws: int = 1000, chains: int = 4, warmup: int | None = None) -> LatentFit:
    """The rate of adequate outputs per group from several metrics or binned scalar scores.

    Parameters
    ----------
    formula : str
        ``"human ~ m1 + m2 | system"``: a binary human rating (0/1, NaN = not rated), one or
        more metric terms (binary, categorical with a few levels, or scalar with ``bins``),
        and optionally the grouping (``| system`` or ``| system + domain``: every
        combination of the grouping terms' values is a group, as in :func:`binaryeval.fit`).
    data : DataFrame
        One row per rated output.
    dependence : {"joint", "independent"}
        How several metrics combine: their joint pattern (valid however they depend on each
        other given the truth; the default) or the product of per-metric confusion matrices
        (valid only when they err independently: a :class:`~binaryeval.DependenceWarning` says
        when the paired items show otherwise).
    bins : int or dict, optional
        Bin scalar metric terms into this many bins (one number for every metric term, or
        ``{term: bins}``); the edges are the quantiles of the paired rows' scores.
    rates : "estimate", "pooled", "hierarchical" or array-like
        The metrics' confusion matrix per group, one for all groups, per group partially
        pooled (each row drawn from a population Dirichlet whose mean and concentration are
        learnt, :mod:`binaryeval.latent.hierarchical`; ``rate_concentration`` is then
        refused), or known (a 2 x J matrix, rows inadequate/adequate, or
        ``{"rho": .., "eta": ..}`` for one binary metric).  ``"pooled"`` is checked on the
        paired items first (:meth:`LatentFit.pooling_check`).
    prior : (float, float)
        Beta prior ``(a, b)`` of ``alpha``, as in :func:`binaryeval.fit`.
    rate_concentration : float or array-like of shape (2, J)
        Dirichlet concentration of each row of the confusion matrix, its prior (1: uniform;
        for one binary metric, ``[[a, b], [b, a]]``, rows inadequate/adequate and columns
        metric 0/1, is the Beta prior ``rate_prior=(a, b)`` of :func:`binaryeval.fit` on
        ``eta`` and ``rho``).
    lower_is_better : str or list of str, optional
        Binned metric terms whose lower scores are better (their bins are turned round, so the
        highest bin is the best); a binary metric has no direction (flip it in the formula).
    order : "estimate", "input" or list of str
        Order of the groups in tables and plots: by posterior mean (highest first; groups whose
        posterior is essentially the prior last), as the labels sort, or as listed.
    eval_env : int or dict
        Variables of your code the formula may read as values (see :func:`binaryeval.fit`).
    paired_informs_pi : bool
        Whether the paired rows' human ratings count for ``alpha``.
    level : float
        Coverage of the credible intervals.
    seed : int, optional
        Seed of the sampler (reproducible on one machine: see
        :func:`binaryeval.latent_posterior`).  None draws fresh entropy; the fit reports the
        seed that reproduces it (``latent.seed``, the summary's ``seed`` line).
    draws, chains, warmup : int
        Draws kept per chain, chains and warm-up iterations (default ``max(100, draws // 4)``).

    Returns
    -------
    LatentFit

    Warns
    -----
    ConvergenceWarning
        When ``alpha`` of some group has R-hat above 1.01 or bulk/tail ESS below 400.
    DirectionWarning
        When a metric's higher values go with inadequate outputs on the paired rows.
    IdentifiabilityWarning
        One 0/1 metric: when the posterior probability that ``rho + eta <= 1`` (the metric
        says nothing about ``alpha``, or reads it the wrong way round) is above 0.05 in some
        group, as :func:`binaryeval.fit` says of the exact binary model (not beside a
        ``DirectionWarning``, which is said first).
    DependenceWarning
        With ``dependence="independent"``, when the paired items show the metrics err together.
    PoolingWarning
        With ``rates="pooled"``, when the paired items say the groups' confusion matrices
        differ (the check before pooling rejects at 0.01).

    Examples
    --------
    >>> from binaryeval import fit_latent
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random(2000) < 0.6
    >>> df = pd.DataFrame({"human": np.where(np.arange(2000) < 300, truth, np.nan),
    ...                    "m1": np.where(truth, rng.random(2000) < 0.8, rng.random(2000) < 0.3),
    ...                    "score": truth + rng.normal(0, 1, 2000)})
    >>> res = fit_latent("human ~ m1 + score", df, bins={"score": 4}, seed=1)
    >>> round(float(res.to_frame()["estimate"].iloc[0]), 2)
    0.54
    """
    from .._directions import read_lower_is_better
    from ..formula import parse_formula

    v.require_pandas(data, "fit_latent()")
    level = v.level(level)
    a, b = v.beta_pair(prior, "prior")
    draws, chains, warmup, seed_used = _common.sampler_options(draws, chains, warmup, seed,
                                                                rates=rates)
    parsed = parse_formula(formula)
    _data.check_formula_sides(parsed, formula, groups=None)
    terms = list(parsed.rhs_names)
    lower = read_lower_is_better(lower_is_better, [*parsed.lhs_names, *terms],
                                 example=terms[0])
    if parsed.lhs_names[0] in lower:
        raise ParameterError(f"lower_is_better={parsed.lhs_names[0]!r}: the human rating is "
                             "binary (1 = adequate); turn penalties into a rating in the "
                             f"formula, e.g. I({parsed.lhs_names[0]} == 0)")
    if not isinstance(order, str):
        order = list(order)
    frame = parsed.evaluate(data, eval_env=eval_env)
    # before an all-missing term makes every row look unrated by the others
    refuse_all_missing({t: frame.rhs[t] for t in terms}, "metric rating")
    bins_map = _data.bins_for(bins, terms)
    (groups, n, h, m, naive, labels, edges, levels, ordered, account,
     notes) = _counts(parsed, frame, data, bins_map, lower)
    backwards = _check_directions(n, levels, terms, parsed.lhs_names[0], ordered,
                                  set(bins_map), lower)
    outputs = ["/".join(labels[t][i] for t, i in zip(terms, pattern, strict=True))
               for pattern in np.ndindex(*levels)]
    model = build_model(n, h, m, groups, ("0", "1"), outputs, levels=levels,
                        dependence=dependence, rates=rates,
                        share_concentration=np.array([b, a]),
                        rate_concentration=rate_concentration,
                        paired_informs_pi=paired_informs_pi)
    out = _common.run(model, draws, chains, warmup, seed_used)
    post = LatentPosterior(groups, ("0", "1"), tuple(outputs), n, h, m, out, level=level,
                           share_concentration=model.prior[0],
                           rate_concentration=model.rate_prior, rates=model.rates,
                           known=model.known, dependence=model.dependence, levels=model.levels,
                           paired_informs_pi=model.paired_informs_pi,
                           seed=_common.reported_seed(seed, seed_used), warmup=warmup)
    if not backwards:   # one warning per call: a metric read backwards is said first
        unidentified = _fit.identifiability_alarm(post, groups)
        if unidentified:
            notes.append(unidentified)
    group_name = ":".join(parsed.group_names) if parsed.groups else "group"
    naive_positive = _naive_reading(n, levels, labels[terms[0]])
    if len(set(naive_positive)) == 1 and len(naive_positive) > 1:
        # every level read alike (each the majority class of its paired rows): the naive
        # reading is one number for every group, said rather than shown as a baseline
        way = "adequate" if naive_positive[0] else "inadequate"
        notes.append(f"the naive reading of {terms[0]!r} reads every level as {way} (each is "
                     "the majority class of its paired rows), so naive() is "
                     f"{1 if naive_positive[0] else 0} for every group and its ranks say "
                     "nothing; for a baseline that can differ between groups, threshold the "
                     f"score: naive() of a fit with I({terms[0]} >= cut)")
    res = LatentFit(formula, groups, post, parsed.lhs_names[0], tuple(terms),
                    labels, edges, level=level, n_rows=account.n_rows,
                    excluded=dict(account.excluded), notes=tuple(notes),
                    _left_out=account.left_out(data.index),
                    call={"formula": formula, "dependence": dependence, "bins": bins,
                          "rates": rates, "prior": (a, b), "lower_is_better": lower_is_better,
                          "order": order, "draws": draws, "chains": chains, "seed": seed},
                    group_name=group_name, prior=(a, b), lower_is_better=lower,
                    naive_counts=naive, naive_positive=naive_positive)
    frame_now = res.to_frame()
    dominated = frame_now.index[frame_now["prior_dominated"].to_numpy(dtype=bool)]
    means = dict(zip(frame_now.index, frame_now["estimate"], strict=True))
    res = replace(res, order=_common.resolve_order(order, groups, means, last=list(dominated)))
    _fit.dependence_alarm(post, list(groups), terms)
    _fit.pooling_alarm(post, list(groups), "groups", "rating")
    _fit.known_rates_alarm(post, list(groups), "groups", "rating")
    _common.warn_convergence(res.to_frame(), "alpha", list(res.order), draws, chains)
    return res


@functools.lru_cache(maxsize=1)
def _example() -> LatentFit:
    """A small fit for the examples: two systems, two independent binary metrics."""
    rng = np.random.default_rng(0)
    rows = []
    for system, alpha in (("A", 0.7), ("B", 0.5)):
        truth = rng.random(1200) < alpha
        rows.append(pd.DataFrame({
            "system": system, "human": np.where(np.arange(1200) < 200, truth, np.nan),
            "m1": np.where(truth, rng.random(1200) < 0.8, rng.random(1200) < 0.25),
            "m2": np.where(truth, rng.random(1200) < 0.75, rng.random(1200) < 0.3)}))
    df = pd.concat(rows, ignore_index=True)
    return fit_latent("human ~ m1 + m2 | system", df, draws=500, seed=1)
