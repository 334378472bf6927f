"""Does an LLM judge err differently by position or by a covariate?  :func:`judge_bias`.

The rows rated by both the humans and the judge (the paired rows) show the judge's confusion
matrix: for each human preference (first better, tie, second better) the shares of the judge's
preferences.  Two questions are asked of it.

*Position.*  Where a column names the system shown first, every paired row is turned to the order
of presentation (``shown first better``, ``tie``, ``shown second better``).  The judge's *lean*
in a human class is ``P(judge prefers the output shown first) - P(judge prefers the output shown
second)``; at a true tie (the human class ``tie``) a judge without position bias leans 0, one that
prefers the first answer leans above 0.  Each row of the confusion matrix has the posterior
``Dirichlet(1 + counts)``; the lean's equal-tailed interval is exact (the quadrature of
:func:`binaryeval.latent.preferences.dirichlet_diff_interval`).

*A covariate* (``by=``: a domain, response-length bins).  The same table per level (stratum) of
the covariate, and the judge's ``agreement`` ``P(judge = human class | human class)`` with its
Beta posterior interval.  Whether one confusion matrix fits every stratum is a Bayes factor:
each human class's judge preferences are Dirichlet-multinomial, either with one matrix per
stratum or one for all (symmetric Dirichlet(1) priors, closed form as in
:mod:`binaryeval.latent.dependence`); ``log10 BF > 1`` (Kass and Raftery's "strong") says the
confusion differs.  With a position column the order of presentation is checked the same way
(strata "first system shown first" and "second system shown first", the rows in the systems'
order).

*A judge that rates single outputs* (``first``/``second`` left out: 0/1 ratings, or a score
thresholded or binned in the formula) has no position and no lean: its confusion matrix
(human class x judge output; for 0/1 ratings ``eta`` and ``rho``) is compared across the
strata of ``by`` the same way.

A :class:`~binaryeval.JudgeBiasWarning` says when it matters: the lean at a true tie is credibly
away from 0, or a covariate's (or the position's) Bayes factor exceeds 10.  Then one confusion
matrix for all items is wrong for the model's correction: fit the strata separately (or
randomise the order of presentation and balance it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._results import Result, excluded_rows, row_account, row_facts
from .._warnings import warn
from ..data import LeftOutRows, RowAccount, label_text, refuse_all_missing, refuse_number_forms
from ..errors import DataError, JudgeBiasWarning, ParameterError
from ..summary import Summary
from . import _data
from .dependence import THRESHOLD, _log_dm

if TYPE_CHECKING:  # names used only in type hints
    from matplotlib.axes import Axes

__all__ = ["JudgeBias", "judge_bias"]

_SYSTEM = ("first", "tie", "second")
_SHOWN = ("shown first better", "tie", "shown second better")
_MAX_LEVELS = 12


def _table(human: np.ndarray, judge: np.ndarray, strata: np.ndarray, n_strata: int,
           k: int = 3, j: int = 3) -> np.ndarray:
    """Counts (strata, human class, judge output) of class indices (0/1/2 for preferences)."""
    out = np.zeros((n_strata, k, j), dtype=np.int64)
    np.add.at(out, (strata, human, judge), 1)
    return out


def _score_rows(counts: np.ndarray, classes: list[str], outputs: list[str], strata: list[str],
                factor: str, level: float) -> pd.DataFrame:
    """Rows of a judge that rates outputs one at a time: its shares per human class.

    ``judge_<output>`` is the posterior mean of ``P(judge = output | human class)`` under
    ``Dirichlet(1 + counts)``; ``agreement`` is ``P(judge = the human class)`` with its Beta
    interval where the class is also one of the judge's outputs (for 0/1 ratings: ``eta`` at
    class 0, ``rho`` at class 1), NaN otherwise.
    """
    from .preferences import _beta_ppf

    tail = (1.0 - level) / 2.0
    rows = []
    for s, name in enumerate(strata):
        for c, cls in enumerate(classes):
            a = counts[s, c] + 1.0
            row = {"factor": factor, "stratum": name, "class": cls,
                   "n_paired": int(counts[s, c].sum())}
            row.update({f"judge_{out}": a[o] / a.sum() for o, out in enumerate(outputs)})
            if cls in outputs:
                agree = a[outputs.index(cls)]
                other = a.sum() - agree
                row.update(agreement=agree / a.sum(),
                           agreement_lower=float(_beta_ppf(tail, agree, other)),
                           agreement_upper=float(_beta_ppf(1 - tail, agree, other)))
            else:
                row.update(agreement=np.nan, agreement_lower=np.nan, agreement_upper=np.nan)
            rows.append(row)
    return pd.DataFrame(rows).set_index(["factor", "stratum", "class"])


def _score_labels(values: pd.Series, term: str) -> tuple[np.ndarray, list[str]]:
    """Class index per row (-1 missing) and the labels of a rating with few levels.

    ``True``/``False`` read as 1/0 and whole numbers print without a decimal point, so a human
    column of 0.0/1.0 (NaN where not rated) and a judge column of 0/1 share their labels.
    """
    present = values.dropna()
    # an object column of Python bools or numbers (bools with None for the unrated rows, or
    # numbers read from JSON) reads as its numbers, so that its True and 1.0 are the label "1"
    numbers = (pd.api.types.is_bool_dtype(present) or pd.api.types.is_numeric_dtype(present)
               or pd.api.types.infer_dtype(present, skipna=True) in (
                   "boolean", "integer", "floating", "mixed-integer-float"))
    if numbers and len(present):
        x = present.to_numpy(dtype=float)
        if not np.isfinite(x).all():
            raise DataError(f"term {term!r} holds infinite values; give finite ratings or NaN")
        whole = bool(np.all(x == np.round(x)))
        text = pd.Series([f"{int(v)}" if whole else f"{v:g}" for v in x], index=present.index)
        order = sorted(np.unique(x))
        levels = [f"{int(v)}" if whole else f"{v:g}" for v in order]
    else:
        text = label_text(present)
        levels = sorted(pd.unique(text))
    if len(levels) > _MAX_LEVELS:
        raise DataError(f"term {term!r} has {len(levels)} distinct values; a judge's confusion "
                        f"needs ratings with at most {_MAX_LEVELS} levels: threshold a score in "
                        "the formula (e.g. I(score > 0.5)) or bin it")
    index = {lv: i for i, lv in enumerate(levels)}
    code = np.full(len(values), -1, dtype=np.int64)
    code[values.notna().to_numpy()] = text.map(index).to_numpy(dtype=np.int64)
    return code, levels


def _rows(counts: np.ndarray, labels: tuple[str, ...], strata: list[str], factor: str,
          level: float) -> pd.DataFrame:
    from .preferences import _beta_ppf, dirichlet_diff_interval

    tail = (1.0 - level) / 2.0
    rows = []
    for s, name in enumerate(strata):
        for c, cls in enumerate(labels):
            n = counts[s, c]
            a = n + 1.0
            lean = (a[0] - a[2]) / a.sum()
            lo, hi = dirichlet_diff_interval(a[0], a[1], a[2], level)
            agree, other = a[c], a.sum() - a[c]
            rows.append({"factor": factor, "stratum": name, "class": cls,
                         "n_paired": int(n.sum()),
                         "judge_first": a[0] / a.sum(), "judge_tie": a[1] / a.sum(),
                         "judge_second": a[2] / a.sum(),
                         "lean": lean, "lean_lower": lo, "lean_upper": hi,
                         "agreement": agree / (agree + other),
                         "agreement_lower": float(_beta_ppf(tail, agree, other)),
                         "agreement_upper": float(_beta_ppf(1 - tail, agree, other))})
    return pd.DataFrame(rows).set_index(["factor", "stratum", "class"])


def _log10_bf(counts: np.ndarray) -> float:
    """log10 BF of one confusion matrix per stratum against one for all (Dirichlet(1) rows)."""
    if counts.shape[0] < 2:
        return float("nan")
    separate = _log_dm(counts.astype(float), 1.0).sum()
    common = _log_dm(counts.sum(axis=0).astype(float), 1.0).sum()
    return float((separate - common) / np.log(10.0))


def _deviating(counts: np.ndarray, strata: list[str]) -> list[str]:
    """Strata ordered by how far their judge shares stray from all strata together."""
    pooled = counts.sum(axis=0) + 1.0
    pooled = pooled / pooled.sum(axis=1, keepdims=True)
    own = counts + 1.0
    own = own / own.sum(axis=2, keepdims=True)
    weight = counts.sum(axis=2)                      # rows of more items count more
    gap = (np.abs(own - pooled).sum(axis=2) * weight).sum(axis=1) / np.maximum(
        weight.sum(axis=1), 1)
    return [strata[i] for i in np.argsort(-gap)]


@dataclass(frozen=True, eq=False, repr=False)
class JudgeBias(Result):
    """The judge's confusion by position and by a covariate (returned by :func:`judge_bias`).

    ``to_frame()`` has one row per (``factor``, ``stratum``, human ``class``): ``n_paired``, the
    judge's shares ``judge_first``, ``judge_tie``, ``judge_second`` (posterior means; for the
    position factor ``first`` is the output shown first), the ``lean`` = ``judge_first -
    judge_second`` with its interval, and the ``agreement`` P(judge = class) with its interval.
    :meth:`tests` gives the Bayes factors, :meth:`position_bias` the headline number.

    Examples
    --------
    >>> import warnings
    >>> from binaryeval import judge_bias
    >>> from binaryeval.datasets import simulate_battles
    >>> from binaryeval.errors import JudgeBiasWarning
    >>> df = simulate_battles(seed=7)   # a judge leaning to the output shown first, erring on long ones
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", JudgeBiasWarning)
    ...     res = judge_bias("human ~ judge", df, first="a", second="b", shown_first="shown",
    ...                      by="length")
    >>> round(float(res.position_bias()["lean"]), 2)
    0.38
    >>> res.tests().loc["length", "verdict"]
    'the confusion differs across strata'
    """

    formula: str
    frame: pd.DataFrame
    bayes_factors: pd.DataFrame
    level: float = 0.95
    shown_first: str | None = None
    by: str | None = None
    n_rows: int = 0
    excluded: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    _left_out: LeftOutRows | None = field(default=None, repr=False, compare=False)

    @property
    def excluded_rows(self) -> pd.Series:
        """The rows left out: the reason of each, indexed by the data's own row labels.

        In data order, the index name kept; the reasons are the keys of ``excluded`` and
        ``excluded_rows.value_counts()`` equals it.  Empty when no row was left out.

        Examples
        --------
        >>> import warnings
        >>> import numpy as np
        >>> from binaryeval import judge_bias
        >>> from binaryeval.datasets import simulate_battles
        >>> from binaryeval.errors import JudgeBiasWarning
        >>> df = simulate_battles(seed=7).head(400).copy()
        >>> df.loc[[5, 9], "judge"] = np.nan
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", JudgeBiasWarning)
        ...     res = judge_bias("human ~ judge", df, first="a", second="b", by="length")
        >>> res.excluded_rows
        5    not rated by both the humans and the judge
        9    not rated by both the humans and the judge
        Name: reason, dtype: object
        """
        return excluded_rows(self._left_out)

    @property
    def n_used(self) -> int:
        """Paired rows used (``n_rows - n_excluded``)."""
        return self.n_rows - self.n_excluded

    @property
    def n_excluded(self) -> int:
        """Rows left out (reasons in ``excluded``)."""
        return int(sum(self.excluded.values()))

    def to_frame(self) -> pd.DataFrame:
        """The judge's confusion per (factor, stratum, human class), with intervals.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import warnings
        >>> from binaryeval import judge_bias
        >>> from binaryeval.datasets import simulate_battles
        >>> from binaryeval.errors import JudgeBiasWarning
        >>> df = simulate_battles(seed=7)   # a judge leaning to the output shown first, erring on long ones
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", JudgeBiasWarning)
        ...     res = judge_bias("human ~ judge", df, first="a", second="b", shown_first="shown",
        ...                      by="length")
        >>> list(res.to_frame().index.names)
        ['factor', 'stratum', 'class']
        """
        out = self.frame.copy()
        out.attrs.update(level=self.level, kind="eti",
                         method="Dirichlet(1 + counts) posterior of each "
                         "row of the judge's confusion matrix on the paired rows")
        out.attrs.update(row_account(self))
        return out

    def position_bias(self) -> pd.Series:
        """The judge's lean towards the output shown first at a true tie, with its interval.

        Returns
        -------
        Series
            ``n_paired``, ``lean``, ``lean_lower``, ``lean_upper`` (NaN without a position
            column).

        Examples
        --------
        >>> import warnings
        >>> from binaryeval import judge_bias
        >>> from binaryeval.datasets import simulate_battles
        >>> from binaryeval.errors import JudgeBiasWarning
        >>> df = simulate_battles(seed=7)   # a judge leaning to the output shown first, erring on long ones
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", JudgeBiasWarning)
        ...     res = judge_bias("human ~ judge", df, first="a", second="b", shown_first="shown",
        ...                      by="length")
        >>> bool(res.position_bias()["lean_lower"] > 0)
        True
        """
        keys = ("position", "all", "tie")
        if keys not in self.frame.index:
            return pd.Series({"n_paired": 0, "lean": np.nan, "lean_lower": np.nan,
                              "lean_upper": np.nan})
        return self.frame.loc[keys, ["n_paired", "lean", "lean_lower", "lean_upper"]]

    def tests(self) -> pd.DataFrame:
        """Bayes factors of each factor: does one confusion matrix fit every stratum.

        Returns
        -------
        DataFrame
            Per factor: ``log10_bf`` (one matrix per stratum against one for all), ``verdict``
            and ``note`` (the strata that deviate most); ``attrs`` hold ``decisive_log10_bf``.

        Examples
        --------
        >>> import warnings
        >>> from binaryeval import judge_bias
        >>> from binaryeval.datasets import simulate_battles
        >>> from binaryeval.errors import JudgeBiasWarning
        >>> df = simulate_battles(seed=7)   # a judge leaning to the output shown first, erring on long ones
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", JudgeBiasWarning)
        ...     res = judge_bias("human ~ judge", df, first="a", second="b", shown_first="shown",
        ...                      by="length")
        >>> bool(res.tests().loc["length", "log10_bf"] > 1)
        True
        """
        out = self.bayes_factors.copy()
        out.attrs.update(decisive_log10_bf=THRESHOLD,
                         method="Bayes factor of Dirichlet-multinomial judge preferences per "
                                "human class: one confusion matrix per stratum vs one for all")
        return out

    def _repr_fields(self) -> Mapping[str, Any]:
        return {"n_used": self.n_used, "shown_first": self.shown_first, "by": self.by,
                "level": self.level}

    def summary(self) -> Summary:
        """Facts, the position bias, the Bayes factors and the table.

        Returns
        -------
        Summary

        Examples
        --------
        >>> import warnings
        >>> from binaryeval import judge_bias
        >>> from binaryeval.datasets import simulate_battles
        >>> from binaryeval.errors import JudgeBiasWarning
        >>> df = simulate_battles(seed=7)   # a judge leaning to the output shown first, erring on long ones
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", JudgeBiasWarning)
        ...     res = judge_bias("human ~ judge", df, first="a", second="b", shown_first="shown",
        ...                      by="length")
        >>> print(res.summary().title)
        Judge bias on the paired rows
        """
        pb = self.position_bias()
        facts: dict[str, Any] = {
            "formula": self.formula, **row_facts(self, used="paired rows used"),
            "shown first": self.shown_first or "not given", "by": self.by or "none"}
        if np.isfinite(pb["lean"]):
            facts["lean at a true tie"] = (
                f"{pb['lean']:+.3f} [{pb['lean_lower']:+.3f}, {pb['lean_upper']:+.3f}] "
                f"({self.level:.0%}; > 0 prefers the output shown first; "
                f"{int(pb['n_paired'])} tied items)")
        tables = [("Bayes factors", self.tests()), ("the judge's confusion", self.to_frame())]
        s = Summary("Judge bias on the paired rows", facts, tables)
        if "lean" in self.frame.columns:
            s.add_note("lean = P(judge prefers first) - P(judge prefers second) among the items "
                       "of a human class; agreement = P(judge = the human class)")
        else:
            s.add_note("judge_<output> = P(judge = output | human class); agreement = P(judge = "
                       "the human class) (for 0/1 ratings: eta at class 0, rho at class 1)")
        for note in self.notes:
            s.add_note(note)
        return s

    def plot(self, ax: Axes | None = None, *, kind: str | None = None, **kwargs: Any) -> Axes:
        """The judge's lean (or agreement) per factor, stratum and human class, with intervals.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (a new figure when None).
        kind : {"lean", "agreement"}, optional
            Which quantity (default: the lean of preferences, the agreement of a judge that
            rates single outputs, which has no lean).
        **kwargs
            Passed to the matplotlib call that draws the intervals.

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import warnings
        >>> from binaryeval import judge_bias
        >>> from binaryeval.datasets import simulate_battles
        >>> from binaryeval.errors import JudgeBiasWarning
        >>> df = simulate_battles(seed=7)   # a judge leaning to the output shown first, erring on long ones
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", JudgeBiasWarning)
        ...     res = judge_bias("human ~ judge", df, first="a", second="b", shown_first="shown",
        ...                      by="length")
        >>> ax = res.plot()
        """
        import matplotlib.pyplot as plt

        has_lean = "lean" in self.frame.columns
        kind = v.choice(kind if kind is not None else "lean" if has_lean else "agreement",
                        "kind", ("lean", "agreement"))
        if kind == "lean" and not has_lean:
            raise ParameterError("kind='lean': a judge that rates single outputs has no lean "
                                 "(it is a preference's); use kind='agreement'")
        frame = self.frame
        if ax is None:
            _, ax = plt.subplots(figsize=(7, min(0.3 * len(frame) + 1.5, 14.0)))
        y = np.arange(len(frame))
        est = frame[kind].to_numpy()
        err = np.array([est - frame[f"{kind}_lower"].to_numpy(),
                        frame[f"{kind}_upper"].to_numpy() - est])
        tie = (frame.index.get_level_values("class") == "tie") & has_lean
        kwargs.setdefault("color", "C0")
        ax.errorbar(est[~tie], y[~tie], xerr=err[:, ~tie], fmt="o", capsize=2,
                    label=f"posterior mean, {self.level:.0%} interval", **kwargs)
        if tie.any():
            kwargs["color"] = "C1"
            ax.errorbar(est[tie], y[tie], xerr=err[:, tie], fmt="s", capsize=2,
                        label="human tie (no position bias: lean 0)", **kwargs)
        labels = [" / ".join(str(x) for x in key) for key in frame.index]
        ax.set_yticks(y, labels, fontsize=8)
        ax.invert_yaxis()
        if kind == "lean":
            ax.axvline(0.0, color="0.5", lw=0.8, ls="--")
            ax.set_xlabel("lean = P(judge prefers first) - P(judge prefers second)")
        else:
            ax.set_xlabel("agreement = P(judge = human class)")
        ax.legend(fontsize=8)
        return ax


def _cut_labels(edges: np.ndarray) -> list[str]:
    """The bin edges as text, 4 significant digits or as many more as keep them apart.

    Examples
    --------
    >>> _cut_labels(np.array([10000.125, 10000.25, 10000.375]))
    ['10000.1', '10000.2', '10000.4']
    """
    for digits in range(4, 18):
        cuts = [f"{e:.{digits}g}" for e in edges]
        if len(set(cuts)) == len(cuts):
            return cuts
    return [repr(float(e)) for e in edges]


def _strata(values: pd.Series, name: str, bins: int) -> tuple[np.ndarray, list[str]]:
    """Stratum index per row (-1 missing) and the strata's labels.

    The values of a column with few levels, or ``bins`` quantile bins of a numeric one.
    """
    present = values.dropna()
    if pd.api.types.is_numeric_dtype(present) and present.nunique() > _MAX_LEVELS:
        x = values.to_numpy(dtype=float)
        if not np.isfinite(present.to_numpy(dtype=float)).all():
            raise DataError(f"by={name!r} holds infinite values; give finite numbers or NaN")
        edges = np.unique(np.quantile(present.to_numpy(dtype=float),
                                      np.linspace(0, 1, bins + 1)[1:-1]))
        code = np.where(np.isnan(x), -1, np.searchsorted(edges, x, side="right"))
        cuts = _cut_labels(edges)
        labels = ([f"< {cuts[0]}"] + [f"[{a}, {b})" for a, b in zip(cuts[:-1], cuts[1:],
                                                                    strict=True)]
                  + [f">= {cuts[-1]}"]) if cuts else ["all"]
        return code.astype(np.int64), labels
    text = label_text(values)
    levels = sorted(pd.unique(text.dropna()))
    if len(levels) > _MAX_LEVELS:
        raise DataError(f"by={name!r} has {len(levels)} distinct values; give a column with at "
                        f"most {_MAX_LEVELS} levels, or numbers (binned with bins=)")
    index = {lv: i for i, lv in enumerate(levels)}
    code = text.map(lambda x: -1 if pd.isna(x) else index[x]).to_numpy(dtype=np.int64)
    return code, [str(lv) for lv in levels]


@v.renamed(confidence="level")
def judge_bias(formula: str, data: pd.DataFrame, *, first: str | None = None,
               second: str | None = None, shown_first: str | None = None, by: str | None = None,
               bins: int = 4, level: float = 0.95, eval_env: int | dict = 0) -> JudgeBias:
    """The judge's confusion by position and by a covariate, on the rows humans rated too.

    Parameters
    ----------
    formula : str
        ``"human ~ judge"``: the human and the judge's preference of each row (-1, 0, 1 or
        ``"second"``, ``"tie"``, ``"first"``, as :func:`binaryeval.fit_preferences` reads them);
        without ``first``/``second``, their ratings of single outputs: 0/1, or a few levels
        (at most 12; threshold or bin a score in the formula, e.g. ``I(score > 0.5)``).
    data : DataFrame
        One row per compared pair of outputs (or per rated output).
    first, second : str, optional
        Columns naming the two systems of each row (the preferences refer to them); leave both
        out for ratings of single outputs, which are checked across ``by``.
    shown_first : str, optional
        Column naming the system whose output was shown first (one of the row's two systems).
    by : str, optional
        A covariate column (a domain, a response length): its values, or ``bins`` quantile
        bins of a numeric column with more than 12 values.
    bins : int
        Quantile bins of a numeric ``by`` column.
    level : float
        Coverage of the intervals.
    eval_env : int or dict
        The variables a term may read besides the columns: 0 (default) your code's variables,
        as in :func:`binaryeval.fit`; a mapping gives them explicitly, ``{}`` none.

    Returns
    -------
    JudgeBias

    Warns
    -----
    JudgeBiasWarning
        When the lean at a true tie is credibly away from 0, or one confusion matrix does not
        fit every stratum of ``by`` (or both orders of presentation): log10 BF > 1.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import pandas as pd
    >>> from binaryeval import judge_bias
    >>> from binaryeval.datasets import simulate_battles
    >>> from binaryeval.errors import JudgeBiasWarning
    >>> df = simulate_battles(seed=7)   # a judge leaning to the output shown first, erring on long ones
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", JudgeBiasWarning)
    ...     res = judge_bias("human ~ judge", df, first="a", second="b", shown_first="shown",
    ...                      by="length")
    >>> int(res.to_frame().loc[("position", "all", "tie"), "n_paired"])
    246

    A judge that rates single outputs (0/1) and misses more errors on long outputs: its
    ``rho`` and ``eta`` (the agreement at human class 1 and 0) by length.

    >>> rng = np.random.default_rng(8)
    >>> truth, long = rng.random(1200) < 0.6, rng.random(1200) < 0.5
    >>> hit = rng.random(1200) < np.where(long, 0.65, 0.9)
    >>> rated = pd.DataFrame({"human": truth.astype(int),
    ...                       "judge": np.where(hit, truth, ~truth).astype(int),
    ...                       "length": np.where(long, "long", "short")})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", JudgeBiasWarning)
    ...     single = judge_bias("human ~ judge", rated, by="length")
    >>> single.to_frame()["agreement"].round(2).tolist()
    [0.61, 0.63, 0.91, 0.9]
    """
    from ..formula import parse_formula

    v.require_pandas(data, "judge_bias()")
    level = v.level(level)
    bins = v.size(bins, "bins", minimum=2)
    parsed = parse_formula(formula)
    if parsed.groups or len(parsed.lhs_names) != 1 or len(parsed.rhs_names) != 1:
        raise ParameterError(f"formula={formula!r}: give one human and one judge term, "
                             "'human ~ judge' (the systems come from first= and second=)")
    if shown_first is None and by is None:
        raise ParameterError("name what to check: shown_first= (the column naming the system "
                             "shown first) and/or by= (a covariate column)")
    if (first is None) != (second is None):
        raise ParameterError("give both first= and second= (the columns naming the two systems "
                             "of a preference) or neither (ratings of single outputs)")
    if first is None and shown_first is not None:
        raise ParameterError("shown_first= needs preferences between two outputs: give first= "
                             "and second=, the columns naming each row's two systems")
    frame = parsed.evaluate(data, eval_env=eval_env)
    refuse_all_missing({**frame.lhs, **frame.rhs}, "rating")
    if first is None:
        return _single_outputs(formula, data, parsed, frame, by, bins, level)
    human = _data.preference_codes(frame.lhs.iloc[:, 0], parsed.lhs_names[0], "human preference")
    judge = _data.preference_codes(frame.rhs[parsed.rhs_names[0]], parsed.rhs_names[0],
                                   "judge preference")
    raw_a = _data.column(data, first, "first")
    raw_b = _data.column(data, second, "second")
    sa, sb = label_text(raw_a), label_text(raw_b)
    named = [(first, pd.api.types.is_float_dtype(raw_a), sa.dropna()),
             (second, pd.api.types.is_float_dtype(raw_b), sb.dropna())]
    if shown_first is not None:
        raw_shown = _data.column(data, shown_first, "shown_first")
        shown = label_text(raw_shown)
        named.append((shown_first, pd.api.types.is_float_dtype(raw_shown), shown.dropna()))
    refuse_number_forms(named)
    account = RowAccount(len(data))
    miss = (sa.isna() | sb.isna()).to_numpy()
    account.exclude("missing system", rows=miss)
    unpaired = (np.isnan(human) | np.isnan(judge)) & ~miss
    account.exclude("not rated by both the humans and the judge", rows=unpaired)
    keep = ~miss & ~unpaired
    same = keep & (sa == sb).to_numpy()
    if same.any():
        raise DataError(f"a row compares system {sa[same].iloc[0]!r} with itself; each row "
                        f"needs two different systems in {first!r} and {second!r}")
    sign = np.ones(len(data))
    if shown_first is not None:
        no_pos = keep & shown.isna().to_numpy()
        account.exclude("missing shown_first", rows=no_pos)
        keep &= ~no_pos
        is_a = (shown == sa).to_numpy()
        is_b = (shown == sb).to_numpy()
        bad = keep & ~is_a & ~is_b
        if bad.any():
            i = int(np.argmax(bad))
            raise DataError(f"{shown_first!r} names {shown.iloc[i]!r} in row {data.index[i]!r}, "
                            f"which is neither {first!r} ({sa.iloc[i]!r}) nor {second!r} "
                            f"({sb.iloc[i]!r}); name the system shown first")
        sign = np.where(is_b, -1.0, 1.0)
    strata_code, strata = None, []
    if by is not None:
        strata_code, strata = _strata(_data.column(data, by, "by"), by, bins)
        no_by = keep & (strata_code < 0)
        account.exclude(f"missing {by}", rows=no_by)
        keep &= ~no_by
    if not keep.any():
        raise DataError("no row has both systems and both a human and a judge preference")
    h_sys = _data.classes_from_codes(human[keep])
    j_sys = _data.classes_from_codes(judge[keep])
    parts, tests = [], []
    messages = []
    if shown_first is not None:
        s = sign[keep]
        h_pos = _data.classes_from_codes(human[keep] * s)
        j_pos = _data.classes_from_codes(judge[keep] * s)
        counts = _table(h_pos, j_pos, np.zeros(h_pos.size, dtype=np.int64), 1)
        parts.append(_rows(counts, _SHOWN, ["all"], "position", level))
        order = ["first system shown first", "second system shown first"]
        by_order = _table(h_sys, j_sys, (s < 0).astype(np.int64), 2)
        parts.append(_rows(by_order, _SYSTEM, order, "order", level))
        bf = _log10_bf(by_order)
        tests.append(("order", bf, _deviating(by_order, order)[:1]))
        tie = parts[0].loc[("position", "all", "tie")]
        if tie["lean_lower"] > 0 or tie["lean_upper"] < 0:
            messages.append(
                f"the judge leans {'towards' if tie['lean'] > 0 else 'against'} the output "
                f"shown first at a true tie: lean {tie['lean']:+.2f} "
                f"[{tie['lean_lower']:+.2f}, {tie['lean_upper']:+.2f}] on "
                f"{int(tie['n_paired'])} tied items")
    if by is not None:
        s_code = strata_code[keep]
        if shown_first is not None:
            h_by, j_by, labels = h_pos, j_pos, _SHOWN
        else:
            h_by, j_by, labels = h_sys, j_sys, _SYSTEM
        counts = _table(h_by, j_by, s_code, len(strata))
        parts.append(_rows(counts, labels, strata, by, level))
        tests.append((by, _log10_bf(counts), _deviating(counts, strata)[:3]))
    return _finish(formula, parts, tests, messages, account, level, shown_first, by,
                   "fit_preferences", index=data.index)


def _finish(formula: str, parts: list[pd.DataFrame], tests: list, messages: list[str],
            account: RowAccount, level: float, shown_first: str | None, by: str | None,
            fitter: str, notes: list[str] | None = None, *,
            index: pd.Index | None = None) -> JudgeBias:
    """The Bayes factors' verdicts, the one warning and the result."""
    notes = list(notes or [])
    rows = []
    for factor, bf, worst in tests:
        differs = np.isfinite(bf) and bf > THRESHOLD
        verdict = ("the confusion differs across strata" if differs else
                   "one confusion matrix fits every stratum" if np.isfinite(bf) and
                   bf < -THRESHOLD else "inconclusive" if np.isfinite(bf) else
                   "a single stratum: nothing to compare")
        note = f"most deviating: {', '.join(worst)}" if differs else ""
        rows.append({"factor": factor, "log10_bf": bf, "verdict": verdict, "note": note})
        if differs:
            what = ("the order of presentation" if factor == "order" else f"{factor}")
            messages.append(f"the judge's confusion differs across {what} (log10 BF {bf:.1f}; "
                            f"{note})")
    table = pd.DataFrame(rows).set_index("factor")
    if messages:
        # the order of presentation is only advice when the position is what differs
        position = any(f == "order" and np.isfinite(b) and b > THRESHOLD for f, b, _ in tests)
        position |= bool(messages) and messages[0].startswith("the judge leans")
        text = ("; ".join(messages) + ". One confusion matrix for all items then mis-corrects "
                f"the judge: fit the strata separately (one {fitter} per stratum)"
                + (", and randomise and balance the order of presentation" if position
                   else ""))
        notes.append("WARNING: " + text)
        warn(text, JudgeBiasWarning)
    return JudgeBias(formula, pd.concat(parts), table, level=level, shown_first=shown_first,
                     by=by, n_rows=account.n_rows, excluded=dict(account.excluded),
                     notes=tuple(notes),
                     _left_out=None if index is None else account.left_out(index))


def _single_outputs(formula: str, data: pd.DataFrame, parsed: Any, frame: Any, by: str,
                    bins: int, level: float) -> JudgeBias:
    """:func:`judge_bias` of a judge that rates outputs one at a time, across ``by``."""
    h_code, classes = _score_labels(frame.lhs.iloc[:, 0], parsed.lhs_names[0])
    j_code, outputs = _score_labels(frame.rhs[parsed.rhs_names[0]], parsed.rhs_names[0])
    account = RowAccount(len(data))
    keep = (h_code >= 0) & (j_code >= 0)
    account.exclude("not rated by both the humans and the judge", rows=~keep)
    strata_code, strata = _strata(_data.column(data, by, "by"), by, bins)
    no_by = keep & (strata_code < 0)
    account.exclude(f"missing {by}", rows=no_by)
    keep &= ~no_by
    if not keep.any():
        raise DataError(f"no row has both a human and a judge rating and a value of {by!r}")
    counts = _table(h_code[keep], j_code[keep], strata_code[keep], len(strata), len(classes),
                    len(outputs))
    parts = [_score_rows(counts, classes, outputs, strata, by, level)]
    tests = [(by, _log10_bf(counts), _deviating(counts, strata)[:3])]
    notes = []
    if not set(classes) & set(outputs):
        notes.append(f"agreement is undefined: the human classes ({', '.join(classes)}) are none "
                     f"of the judge's outputs ({', '.join(outputs)}); code both alike (e.g. 0/1 "
                     "for both) to read the judge's agreement")
    return _finish(formula, parts, tests, [], account, level, None, by, "fit", notes,
                   index=data.index)


def _example() -> JudgeBias:
    """A judge that prefers the first answer at ties and errs more on long answers."""
    import warnings

    from ..datasets import simulate_battles

    df = simulate_battles(seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBiasWarning)
        return judge_bias("human ~ judge", df, first="a", second="b", shown_first="shown",
                          by="length")
