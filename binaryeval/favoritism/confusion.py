"""One 3 x 3 confusion matrix of human against metric preference ratings."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .._results import Result
from .._validate import choice, renamed
from .._warnings import warn
from ..data import check_preference_coding
from ..errors import CountsError, DataError, FaviUndefinedWarning
from ..summary import Summary
from .intervals import favi_intervals
from .ratings import coded
from .score import (
    FAVI_WEIGHTS,
    LABELS,
    OFFDIAG,
    UNDEFINED_MESSAGE,
    aligned,
    as_confusion,
    favi_from_counts,
)
from .sign import SignTestResult, sign_test

if TYPE_CHECKING:  # names used only in type hints
    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike


def _num(x: Any) -> float:
    x = float(x)
    return int(x) if x.is_integer() else x


def favi_score(confusion: ArrayLike | PreferenceConfusion) -> float:
    """The Favi-Score of a 3 x 3 preference confusion matrix.

    Parameters
    ----------
    confusion : array-like of shape (3, 3) or PreferenceConfusion
        Counts with rows = human rating and columns = metric rating, both in the order
        ``+, =, -`` (``+``: the first system is better).  Non-integer non-negative values
        (e.g. cell probabilities) are accepted.

    Returns
    -------
    float
        ``sum(W * C) / E`` in ``[-2, 2]``; positive when the metric's disagreements with the
        humans favour the first system.  NaN, with a :class:`FaviUndefinedWarning`, when the
        metric never disagrees (``E = 0``): the score is undefined, not 0.

    Raises
    ------
    CountsError
        When the matrix is not 3 x 3, has negative or non-finite entries, or more than ``2**61``
        ratings in all (beyond it the int64 sums could overflow).

    Examples
    --------
    >>> # 10 items humans rated '-' and the metric '+' (paper example C1)
    >>> from binaryeval import favi_score
    >>> favi_score([[100, 0, 0], [0, 100, 0], [10, 0, 90]])
    2.0
    """
    counts = _matrix(confusion)
    num, e = favi_from_counts(counts)
    if e == 0:
        warn(UNDEFINED_MESSAGE, FaviUndefinedWarning)
        return float("nan")
    return float(num / e)


def _matrix(confusion: Any, name: str = "confusion") -> np.ndarray:
    """The checked counts of a :class:`PreferenceConfusion` or of a 3 x 3 array."""
    if isinstance(confusion, PreferenceConfusion):
        return confusion.counts
    return as_confusion(confusion, name)


@dataclass(frozen=True, eq=False, repr=False)
class PreferenceConfusion(Result):
    """A 3 x 3 confusion matrix of human (rows) against metric (columns) preference ratings.

    Build it with :func:`preference_confusion` or :meth:`from_counts`.

    Attributes
    ----------
    counts : ndarray (3, 3)
        Counts, rows human and columns metric, both in the order ``+, =, -``.

    Examples
    --------
    >>> from binaryeval import PreferenceConfusion
    >>> c = PreferenceConfusion.from_counts([[413, 20, 23], [28, 164, 10], [44, 13, 285]])
    >>> c.E, c.mar_human, c.mar_metric, round(c.favi, 4), c.accuracy
    (138, 114, 167, 0.3841, 0.862)
    >>> c
    PreferenceConfusion(n=1000, E=138, favi=0.384058, accuracy=0.862)
    """

    counts: np.ndarray

    def __post_init__(self) -> None:
        arr = as_confusion(self.counts, "counts").copy()
        arr.setflags(write=False)
        object.__setattr__(self, "counts", arr)

    @classmethod
    def from_counts(cls, confusion: ArrayLike) -> PreferenceConfusion:
        """Wrap an existing 3 x 3 count matrix (rows human, columns metric, order ``+, =, -``).

        Parameters
        ----------
        confusion : array-like of shape (3, 3)
            The counts.

        Returns
        -------
        PreferenceConfusion

        Examples
        --------
        >>> from binaryeval import PreferenceConfusion
        >>> PreferenceConfusion.from_counts([[5, 1, 0], [2, 3, 1], [0, 1, 4]]).E
        5
        """
        return cls(_matrix(confusion))

    # -- counts -------------------------------------------------------------------------------
    @property
    def n(self) -> float:
        """Number of rated items."""
        return _num(self.counts.sum())

    @property
    def E(self) -> float:  # noqa: N802 (the paper's symbol)
        """Number of disagreements (off-diagonal sum)."""
        return _num(self.counts[OFFDIAG].sum())

    @property
    def human_margins(self) -> pd.Series:
        """Human rating distribution ``d_human = (d+, d=, d-)`` (row sums)."""
        return pd.Series(self.counts.sum(axis=1), index=list(LABELS), name="human")

    @property
    def metric_margins(self) -> pd.Series:
        """Metric rating distribution ``d_metric`` (column sums)."""
        return pd.Series(self.counts.sum(axis=0), index=list(LABELS), name="metric")

    @property
    def margins(self) -> pd.DataFrame:
        """Both rating distributions: rows ``+, =, -``, columns ``human`` and ``metric``."""
        return pd.concat([self.human_margins, self.metric_margins], axis=1)

    @property
    def mar_human(self) -> float:
        """Margin ``d+ - d-`` of the human ratings."""
        return _num(self.counts[0].sum() - self.counts[2].sum())

    @property
    def mar_metric(self) -> float:
        """Margin ``d+ - d-`` of the metric ratings."""
        return _num(self.counts[:, 0].sum() - self.counts[:, 2].sum())

    @property
    def accuracy(self) -> float:
        """Sample-level sign accuracy ``trace(C) / N`` (NaN for an empty matrix)."""
        n = self.counts.sum()
        return float(np.trace(self.counts) / n) if n > 0 else float("nan")

    @property
    def sign_agreement(self) -> bool:
        """System-level agreement ``sign(mar_human) == sign(mar_metric)`` (a tie on both sides agrees)."""
        return bool(np.sign(self.mar_human) == np.sign(self.mar_metric))

    @property
    def favi(self) -> float:
        """The Favi-Score (NaN with a :class:`FaviUndefinedWarning` when ``E = 0``)."""
        return favi_score(self.counts)

    @property
    def favi_margin_form(self) -> float:
        """``(mar(d_metric) - mar(d_human)) / E`` (Lemma 1); equal to :attr:`favi`."""
        e = self.E
        return float((self.mar_metric - self.mar_human) / e) if e > 0 else float("nan")

    def _quiet_favi(self) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FaviUndefinedWarning)
            return self.favi

    def sign_test(self, source: Literal["human", "metric"] = "human", *,
                  ties: Literal["drop", "split"] = "drop",
                  alternative: Literal["two-sided", "greater", "less"] = "two-sided") -> SignTestResult:
        """Sign test of the human (row sums) or metric (column sums) ratings.

        Parameters
        ----------
        source : {"human", "metric"}
            Whose ratings are tested.
        ties, alternative : str
            As in :func:`sign_test`.

        Returns
        -------
        SignTestResult

        Raises
        ------
        CountsError
            When the matrix holds counts that are not whole numbers (proportions, weights).

        Examples
        --------
        >>> from binaryeval import PreferenceConfusion
        >>> c = PreferenceConfusion.from_counts([[10, 2, 3], [1, 4, 0], [2, 1, 5]])
        >>> c.sign_test("human").n_pos, c.sign_test("metric").n_pos
        (15, 13)
        """
        choice(source, "source", ("human", "metric"))
        d = self.human_margins if source == "human" else self.metric_margins
        if self.counts.dtype.kind == "f":
            raise CountsError(f"the {source} ratings' counts are not whole numbers "
                              f"(+: {d['+']:g}, =: {d['=']:g}, -: {d['-']:g}); the sign test "
                              "counts ratings: build the matrix from counts of items, not from "
                              "proportions or weights")
        return sign_test(int(d["+"]), int(d["-"]), int(d["="]), ties=ties, alternative=alternative)

    @renamed(draws="n_resamples", prior="cell_concentration")
    def interval(self, level: float = 0.95, *,
                 method: Literal["dirichlet", "bootstrap", "score"] = "dirichlet",
                 n_resamples: int = 4000, cell_concentration: float | None = None,
                 seed: int | np.random.SeedSequence | np.random.Generator | None = None) -> pd.DataFrame:
        """Interval for the Favi-Score of the population the items come from.

        Parameters
        ----------
        level : float
            Probability content of the interval.
        method : {"dirichlet", "bootstrap", "score"}
            ``"dirichlet"``: equal-tailed interval of Favi under the posterior
            ``Dirichlet(C + cell_concentration)`` of the 9 cell probabilities.  ``"bootstrap"``: percentile
            bootstrap over items.  ``"score"``: the score (Wilson-type) interval for the mean
            disagreement weight, exact arithmetic, no draws.  With fewer than 20 disagreements
            the score interval is used whatever is asked (see Notes).
        n_resamples : int
            Monte Carlo draws (posterior draws or bootstrap resamples).
        cell_concentration : float, optional
            Dirichlet concentration added to every cell, the prior of ``"dirichlet"`` (default
            0.5, Jeffreys).
        seed : int, optional
            Seed of ``numpy.random.default_rng``; drawn at random and recorded when omitted.

        Returns
        -------
        DataFrame
            One row with ``estimate``, ``lower``, ``upper``, ``p_undefined`` (share of draws
            with ``E = 0``; NaN for the score interval) and ``method`` (the interval used);
            ``level``, ``method``, ``seed``, ``cell_concentration``, ``n_resamples`` and ``description`` in
            ``attrs``.

        Warns
        -----
        SmallSampleWarning
            When ``E < 20`` and ``method`` is not ``"score"``: the interval is the score
            interval instead.

        Notes
        -----
        Given ``E``, Favi is the mean of ``E`` multinomial weights in ``{-2, -1, 1, 2}``.  With
        few disagreements the bootstrap interval collapses onto the observed cells and the
        Dirichlet interval is pulled towards 0 by its prior; both then miss a true Favi far more
        often than ``1 - level``, while the score interval keeps its coverage (simulations in
        :mod:`binaryeval.favoritism.intervals`).

        Examples
        --------
        >>> from binaryeval import PreferenceConfusion
        >>> c = PreferenceConfusion.from_counts([[53, 3, 3], [25, 52, 5], [9, 4, 46]])
        >>> ci = c.interval(seed=1)
        >>> bool(ci.lower[0] < c.favi < ci.upper[0]), ci.method[0]
        (True, 'dirichlet')
        >>> c.interval(method="score")[["lower", "upper"]].round(3).to_dict("records")
        [{'lower': 0.311, 'upper': 0.951}]
        """
        columns, meta = favi_intervals(self.counts[None], ["this pair"], level=level, method=method,
                                       n_resamples=n_resamples,
                                       cell_concentration=cell_concentration, seed=seed)
        out = pd.DataFrame({"estimate": [self._quiet_favi()], **columns})
        out.attrs.update(meta)
        return out

    # -- protocol ---------------------------------------------------------------------------
    def matrix(self) -> pd.DataFrame:
        """The counts as a labelled 3 x 3 table (index ``human``, columns ``metric``).

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> from binaryeval import PreferenceConfusion
        >>> PreferenceConfusion.from_counts([[5, 1, 0], [2, 3, 1], [0, 1, 4]]).matrix()
        metric  +  =  -
        human
        +       5  1  0
        =       2  3  1
        -       0  1  4
        """
        return pd.DataFrame(self.counts, index=pd.Index(LABELS, name="human"),
                            columns=pd.Index(LABELS, name="metric"))

    def to_frame(self) -> pd.DataFrame:
        """One row per cell: ``human``, ``metric`` (ratings), ``count`` and the Favi ``weight``.

        Returns
        -------
        DataFrame
            Nine rows in the order of the matrix (row by row); ``favi`` and ``n_disagreements``
            in ``attrs``.

        Examples
        --------
        >>> from binaryeval import PreferenceConfusion
        >>> c = PreferenceConfusion.from_counts([[5, 1, 0], [2, 3, 1], [0, 1, 4]])
        >>> c.to_frame().head(3).to_dict("records")[1]
        {'human': '+', 'metric': '=', 'count': 1, 'weight': -1}
        """
        human, metric = np.meshgrid(LABELS, LABELS, indexing="ij")
        out = pd.DataFrame({"human": human.ravel(), "metric": metric.ravel(),
                            "count": self.counts.ravel(), "weight": FAVI_WEIGHTS.ravel()})
        out.attrs.update({"favi": self._quiet_favi(), "n_disagreements": self.E,
                          "method": "preference confusion matrix (rows human, columns metric)"})
        return out

    def _repr_fields(self) -> Mapping[str, Any]:
        return {"n": self.n, "E": self.E, "favi": self._quiet_favi(), "accuracy": self.accuracy}

    def summary(self) -> Summary:
        """The matrix with its margins, ``E``, the margins' difference and the Favi-Score.

        Examples
        --------
        >>> from binaryeval import PreferenceConfusion
        >>> c = PreferenceConfusion.from_counts([[5, 1, 0], [2, 3, 1], [0, 1, 4]])
        >>> print(c.summary().as_text().splitlines()[0])
        Preference confusion matrix
        """
        table = self.matrix()
        table["total"] = table.sum(axis=1)
        table.loc["total"] = table.sum(axis=0)
        info = {"items (N)": self.n, "disagreements (E)": self.E, "mar(d_human)": self.mar_human,
                "mar(d_metric)": self.mar_metric, "Favi-Score": self._quiet_favi(),
                "sample-level sign accuracy": self.accuracy,
                "system-level sign agreement": self.sign_agreement}
        notes = ["rows: human rating, columns: metric rating; '+' = first system better"]
        if self.E == 0:
            notes.append("E = 0: the metric never disagrees with the humans, so Favi is undefined (NaN)")
        return Summary("Preference confusion matrix", info, [("counts", table)], notes)

    def plot(self, ax: Axes | None = None, *, kind: Literal["heatmap"] = "heatmap",
             **kwargs: Any) -> Axes:
        """Heat map of the counts; returns the matplotlib Axes.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure when omitted.
        kind : {"heatmap"}
            The one view of a single matrix.
        **kwargs
            Passed to :func:`seaborn.heatmap` (``annot``, ``fmt``, ``cmap``, ``vmax``, ``cbar``).

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> from binaryeval import PreferenceConfusion
        >>> ax = PreferenceConfusion.from_counts([[5, 1, 0], [2, 3, 1], [0, 1, 4]]).plot()
        >>> ax.get_title()
        'human (rows) vs metric (columns)'
        """
        import matplotlib.pyplot as plt
        import seaborn as sns

        from .plots import check_ax

        check_ax(ax)
        choice(kind, "kind", ("heatmap",))
        if ax is None:
            _, ax = plt.subplots(figsize=(3.6, 3.0))
        kwargs.setdefault("annot", True)
        kwargs.setdefault("fmt", "g")
        kwargs.setdefault("cmap", "Blues")
        sns.heatmap(self.matrix(), ax=ax, **kwargs)
        ax.set_title("human (rows) vs metric (columns)")
        return ax


def preference_confusion(human: ArrayLike, metric: ArrayLike) -> PreferenceConfusion:
    """Confusion matrix of human against metric preference ratings.

    Parameters
    ----------
    human, metric : sequence
        One rating per item, as ``'+', '=', '-'`` (also ``'>'``/``'<'``) or ``1, 0, -1``
        (numbers or their text).  Two Series indexed by the same items are matched by their
        index.

    Returns
    -------
    PreferenceConfusion
        Counts, ``E``, margins, accuracy and Favi-Score.

    Raises
    ------
    DataError
        Unknown rating symbols (including missing values), sequences of different length, two
        Series whose indexes share some labels but not all, or
        ratings of the numbers 0 and 1 alone (is 0 a tie or a win of the second system? recode a
        winner coded 0/1 as ``2 * np.asarray(human) - 1``, or write the ties as ``'='``).

    Examples
    --------
    >>> from binaryeval import preference_confusion
    >>> c = preference_confusion(list("++=--+=+"), [1, 0, 0, -1, 1, 1, -1, 1])
    >>> c.counts.astype(int).tolist(), c.E, c.favi
    ([[3, 1, 0], [0, 1, 1], [1, 0, 1]], 3, 0.0)
    """
    human, metric = aligned(human, metric, ("human", "metric"))
    h, h_coding = coded(human, "human")
    m, m_coding = coded(metric, "metric")
    if h.size != m.size:
        raise DataError(f"human and metric must rate the same items: got {h.size} human and {m.size} "
                        "metric ratings; align them by item")
    check_preference_coding(h_coding, "human", "human preference", argument=True)
    check_preference_coding(m_coding, "metric", "metric preference", argument=True)
    cell = (1 - h.astype(np.int64)) * 3 + (1 - m.astype(np.int64))
    return PreferenceConfusion(np.bincount(cell, minlength=9).reshape(3, 3))
