"""The check before pooling: whether one confusion matrix fits every group's paired items.

``rates="pooled"`` assumes that the metric errs alike in every group: one ``Theta`` (in the
binary model one ``rho`` and one ``eta``) for all of them.  On the paired items that is a
statement about contingency tables.  For each human class ``c`` the paired items of group ``g``
fall into the metric's outputs ``j`` with counts ``N[g, c, j]``; given the group's class count
``n[g, c]`` they are multinomial with probabilities ``Theta_g[c, :]``.  Pooling is the
hypothesis ``Theta_g[c, :] = Theta[c, :]`` for every group and class, i.e. homogeneity of the
``G x J`` table of each class.  The groups' shares of the classes (``alpha``, ``pi``) may differ
freely: the test conditions on them.

Two statistics look at the tables.  Pearson's ``X^2`` summed over the classes,

    X^2 = sum_c sum_g sum_j (N[g, c, j] - E[g, c, j])^2 / E[g, c, j],
    E[g, c, j] = n[g, c] m[c, j] / n[c]

(``m[c, j]`` the output totals of class ``c``; rows and columns without items are left out),
sees differences spread over many groups; the smallest chi-square p-value of the "group against
the rest" statistics (below) sees one group that differs from many (among 190 pairs X^2 spreads
its signal over hundreds of degrees of freedom).  The check's p-value is that of the smaller of
the two statistics' p-values.  It is computed exactly rather than from the chi-square
distribution, which paired sets of a few dozen items per group (many cells below 5) do not
follow: under homogeneity the table of each class is, given both its margins, multivariate
hypergeometric, so tables drawn with both margins fixed (Patefield's algorithm,
:class:`scipy.stats.random_table`) give the null distribution.  Each statistic's p-value is
its tail share among the data and the ``n_resamples`` drawn tables, the smaller one is taken
for the data and for every drawn table alike, and the check's p-value is the share of them at
least as small as the data's.  The data and the draws are exchangeable under homogeneity, so
this is a valid p-value for any number of draws (a Monte Carlo test, Besag and Clifford 1989;
the conditional test is the one Fisher's exact test generalises).  Under homogeneity it rejects
at most ``sig_level`` of the time, whatever the counts; the draws use a fixed seed, so a fit's
check is reproducible.  ``studies/pooling_check.py`` measures the false alarms and the power of
both parts over designs of 2 to 190 groups.

Why a test and not a Bayes factor (as :mod:`binaryeval.latent.dependence` uses for its
question): the check has to stay quiet when the rates are equal, in a known share of fits, for
any number of groups and paired items; an exact conditional test has that calibration by
construction, while a Bayes factor's false-alarm rate depends on its priors and the design.
``sig_level`` is :data:`SIG_LEVEL` = 0.01: a warning that pooling is wrong should rarely be a
false alarm (one fit in a hundred with equal rates), since its advice, rates per group, costs
interval width.

What the check cannot do: it sees only differences that the paired items resolve.  With few
paired items per group, rates that differ by less than their per-group standard errors pass,
although with many metric-only items such a difference can still move a pooled estimate by more
than its (narrow) interval.  A check that passes is no proof that the rates are equal.
:func:`unseen_shift` says how large a difference it leaves possible in a binary fit: with 20
paired rows a group among eight, a metric calling some 0.4 of the group's outputs positive more
or less often than the others' goes unseen half the time, which moves the group's ``alpha`` by
0.6 to 0.8; with 200 paired rows, 0.11 and 0.22 (the summary of a pooled fit says so when that
move exceeds its intervals' half-width, and then points to ``rates="hierarchical"``).
:func:`unseen_move` says it for any table (bins, several metrics, preferences): the move of the
output shares that shifts ``alpha`` or ``diff`` most for what the check sees; the check fired on
0.21-0.30 of data sets drawn with that move (ten preference pairs or eight binned groups, 16 to 100
items a class) and on 0.82-1.0 at twice it, so "missed half the time or more" holds.  Nor
can a check between groups see paired items that differ from the metric-only ones for every
group alike (on WMT21 en-ru with BLEURT-20 and MQM kept on 20 % of the segments the pooled
intervals covered 90 % of the systems while the check stayed quiet: the kept segments' rates
were higher than the rest's in every system).

``studies/pooling_check.py`` (``vignettes/data/pooling_check.csv``, 100 data sets per design):
false alarms at 0.01 between 0.00 and 0.02 over binary designs of 2 to 30 groups with 10 to
200 paired rows and preference designs of 10 and 190 pairs with 5 and 30 paired items; power
0.80 for one group in eight whose ``rho`` is 0.2 lower (200 paired rows each; 0.17 with 40),
0.96 for one pair in ten with a poorer judge (60 paired items); on WMT21 en-de (chrF or BLEU at
one threshold) it fired on every split, where the pooled intervals covered 90 % of the systems
with MQM on 20 % of the segments (per-system rates 94 %).

Each group's own contribution is also reported as a "group against the rest" test: for a
``2 x J`` table (the group, all others) Pearson's statistic is the group's share of ``X^2``
times ``n[c] / (n[c] - n[g, c])``, with ``J - 1`` degrees of freedom per class.  Its chi-square
p-value, approximate with few paired items, ranks the groups (and names those that deviate
most); the check refers the smallest of them to its exact distribution, as above.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import special

from ._lazy import stats

__all__ = ["N_RESAMPLES", "SEED", "SIG_LEVEL", "check", "deviations", "message", "passes",
           "unseen_move", "unseen_move_text", "unseen_shift", "unseen_text"]

#: Significance threshold of the check (a warning at most once in a hundred fits with equal rates).
SIG_LEVEL = 0.01

#: Tables drawn for the Monte Carlo p-value (its Monte Carlo sd at p = 0.01 is about 0.002).
N_RESAMPLES = 2000

#: The draws' fixed seed, so that a fit's check gives the same p-value every time.
SEED = 20260

#: Groups named in a message.
SHOWN = 3

METHOD = ("exact conditional test of homogeneity of the paired items' confusion counts across "
          "groups (Pearson X^2 summed over human classes, and the most deviating group against "
          "the rest; Monte Carlo p-value of the smaller of their p-values, from tables with "
          "both margins fixed)")


def _class_tables(paired: np.ndarray):
    """Per human class: the rows (groups) and columns (outputs) with items, and the table."""
    for c in range(paired.shape[1]):
        table = paired[:, c, :]
        rows = np.flatnonzero(table.sum(axis=1) > 0)
        cols = np.flatnonzero(table.sum(axis=0) > 0)
        if len(rows) < 2 or len(cols) < 2:
            continue          # nothing to compare in this class
        yield c, rows, cols, table[np.ix_(rows, cols)]


def check(paired, groups: Sequence[str], *, n_resamples: int = N_RESAMPLES,
          seed: int = SEED, sig_level: float = SIG_LEVEL) -> pd.DataFrame:
    """Test whether one confusion matrix fits every group's paired items.

    Parameters
    ----------
    paired : array-like of shape (G, K, J)
        Paired counts: group, human class, metric output.
    groups : sequence of str
        The groups' labels, in the order of ``paired``.
    n_resamples : int
        Tables drawn under homogeneity for the p-value.
    seed : int
        Seed of those draws.
    sig_level : float
        Significance threshold (the check fails when ``p_value < sig_level``).

    Returns
    -------
    DataFrame
        One row per group: ``n_paired``, and the group-against-the-rest ``statistic``, ``df``
        and approximate ``p_value``.  ``attrs`` hold the test: ``statistic`` (Pearson's, summed
        over classes) and ``df`` (its chi-square degrees of freedom, for orientation),
        ``p_value`` (exact, Monte Carlo, of the combined test), ``sig_level``,
        ``n_resamples``, ``seed``, ``verdict`` and ``method``; ``p_value`` is NaN when there
        is nothing to compare (one group, or no class seen in two groups).

    Examples
    --------
    Two groups whose metric errs alike, and a third that calls most negatives positive:

    >>> same = [[40, 10], [10, 40]]
    >>> res = check([same, same, [[40, 10], [35, 15]]], ["a", "b", "c"])
    >>> bool(res.attrs["p_value"] < 0.01), res["p_value"].idxmin()
    (True, 'c')
    >>> bool(check([same, same], ["a", "b"]).attrs["p_value"] > 0.5)
    True
    """
    counts = np.asarray(paired, dtype=float)
    n_groups = counts.shape[0]
    rng = np.random.default_rng(seed)
    # row 0: the data; rows 1..n_resamples: tables drawn under homogeneity
    total = np.zeros(n_resamples + 1)
    group_stat = np.zeros((n_resamples + 1, n_groups))
    group_df = np.zeros(n_groups, dtype=int)
    df_total = 0
    for _, rows, cols, table in _class_tables(counts):
        row_sum, col_sum = table.sum(axis=1), table.sum(axis=0)
        n = table.sum()
        expected = np.outer(row_sum, col_sum) / n
        sims = stats.random_table(row_sum.astype(int), col_sum.astype(int)).rvs(
            size=n_resamples, random_state=rng)
        tables = np.concatenate([table[None], sims])
        share = ((tables - expected) ** 2 / expected).sum(axis=2)        # (draws, rows)
        total += share.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(n > row_sum, n / (n - row_sum), 0.0)
        group_stat[:, rows] += share * scale
        group_df[rows] += len(cols) - 1
        df_total += (len(rows) - 1) * (len(cols) - 1)
    has = group_df > 0
    group_p = np.full(n_groups, np.nan)
    if df_total == 0:
        p_value = float("nan")
    else:
        # the two statistics' Monte Carlo p-values for the data and for every drawn table, then
        # the smaller of them, referred to its own distribution over the same draws: the data
        # and the draws are exchangeable under homogeneity, so the result is an exact p-value
        tol = 1 + 1e-9          # sums taken in another order count as equal
        omnibus = _tail_share(total, larger=True, tol=tol)
        worst = _smallest_p(group_df[has], group_stat[:, has])
        single = _tail_share(worst, larger=False, tol=tol)
        both = np.minimum(omnibus, single)
        p_value = float(np.mean(both <= both[0] * tol))
        group_p[has] = special.chdtrc(group_df[has], group_stat[0, has])
    out = pd.DataFrame({"n_paired": counts.sum(axis=(1, 2)).astype(int),
                        "statistic": np.where(has, group_stat[0], np.nan),
                        "df": group_df, "p_value": group_p},
                       index=pd.Index([str(g) for g in groups], name="group"))
    out.attrs.update(statistic=float(total[0]), df=df_total, p_value=p_value,
                     sig_level=sig_level, n_resamples=n_resamples, seed=seed,
                     verdict=_verdict(p_value, sig_level), method=METHOD)
    return out


def _smallest_p(df: np.ndarray, stat: np.ndarray) -> np.ndarray:
    """Per row of ``stat`` (draws, groups), the smallest chi-square p-value over the groups.

    The p-value falls as the statistic grows, so among groups with the same degrees of
    freedom the largest statistic has the smallest p-value: one ``chdtrc`` per row and
    distinct ``df`` instead of one per group (``chdtrc`` is non-increasing in its floating
    point values too: the same minimum as ``chdtrc(df, stat).min(axis=1)``).
    """
    out = None
    for d in np.unique(df):
        p = special.chdtrc(d, stat[:, df == d].max(axis=1))
        out = p if out is None else np.minimum(out, p)
    return out


def _tail_share(x: np.ndarray, *, larger: bool, tol: float) -> np.ndarray:
    """For every entry, the share of all entries at least as extreme (itself included)."""
    order = np.sort(x)
    if larger:   # share of entries >= x_i (within the tolerance)
        return 1.0 - np.searchsorted(order, x / tol, side="left") / len(x)
    return np.searchsorted(order, x * tol, side="right") / len(x)


def unseen_shift(paired, group: int, *, sig_level: float = SIG_LEVEL) -> tuple[float, float]:
    """The largest difference in a binary metric's errors that the check misses in one group.

    A difference ``d`` in both human classes at once, the metric calling a share ``d`` more
    (or fewer) of the group's outputs positive than the pooled rates say whatever their human
    rating (``rho`` and ``1 - eta`` both moved by ``d``, within [0, 1]), is the difference that
    moves a pooled estimate of the group's ``alpha`` most for its size, by
    ``(a d_1 + (1 - a) d_0) / (rho + eta - 1)`` read from its metric-only ratings (``a`` the
    group's share of adequate paired outputs, ``d_1``, ``d_0`` the moves after clipping).

    The group's statistic against the rest (Pearson's, one degree of freedom per human class)
    is computed exactly for every outcome of its paired rows, binomial with the pooled rates
    or the moved ones; its critical value is its quantile ``1 - sig_level / G`` under the
    pooled rates (the check's smallest-group statistic with a Bonferroni share of the level),
    and ``d`` is found, in each direction, where the statistic exceeds it half the time.  The
    answer is the larger move of ``alpha`` of the two directions.  An approximation of the
    check's power (the check itself is exact), to say how large a difference a passing check
    leaves possible; not a test.

    Parameters
    ----------
    paired : array-like of shape (G, 2, 2)
        Paired counts: group, human class (adequate first), metric output (positive first),
        as :func:`check` takes them.
    group : int
        Index of the group.
    sig_level : float
        The check's significance threshold.

    Returns
    -------
    (float, float)
        ``(d, shift)``: the move of the metric's positive share (negative: fewer positive
        calls) and the size of the move of ``alpha`` it causes; ``shift`` is NaN when the pooled rates do not identify ``alpha``
        (``rho + eta <= 1``) and both are NaN when the group shares no human class with
        the others.  When no ``d`` within [0, 1] is seen half the time, the largest possible.

    Examples
    --------
    Eight groups of 20 paired rows each, ``rho = 0.82`` and ``eta = 0.67``: the metric may
    call 0.41 fewer of a group's outputs positive unseen, which moves its ``alpha`` by 0.77.

    >>> same = [[9, 2], [3, 6]]
    >>> [round(x, 2) for x in unseen_shift([same] * 8, 0)]
    [-0.41, 0.77]
    """
    counts = np.asarray(paired, dtype=float)
    if counts.ndim != 3 or counts.shape[1:] != (2, 2):
        raise ValueError(f"paired must have shape (groups, 2, 2), got {counts.shape}")
    n_groups = counts.shape[0]
    total = counts.sum(axis=0)
    n_g = counts[group].sum(axis=1)                  # the group's items per human class
    p = total[:, 0] / total.sum(axis=1)              # pooled positive share per class
    classes = [c for c in range(2) if n_g[c] > 0 and 0 < p[c] < 1 and total[c].sum() > n_g[c]]
    if not classes:
        return float("nan"), float("nan")
    null = np.array([p[c] for c in classes])
    if np.prod([n_g[c] + 1 for c in classes]) > _EXACT_OUTCOMES:
        return _unseen_shift_normal(total, n_g, classes, null, sig_level / n_groups)
    # every outcome of the group's paired rows and its statistic (2 x 2 against the rest)
    outcomes = [np.arange(int(n_g[c]) + 1, dtype=float) for c in classes]
    parts = []
    for c, s in zip(classes, outcomes, strict=True):
        n, big = n_g[c], total[c].sum()
        parts.append((s - n * p[c]) ** 2 / (n * p[c] * (1 - p[c])) * big / (big - n))
    stat = parts[0] if len(parts) == 1 else parts[0][:, None] + parts[1][None, :]

    def law(q: np.ndarray) -> np.ndarray:
        pmf = [stats.binom.pmf(s, n_g[c], qc) for c, s, qc in zip(classes, outcomes, q,
                                                                    strict=True)]
        return pmf[0] if len(pmf) == 1 else np.outer(pmf[0], pmf[1])

    # the critical region: the statistic at or above the smallest of its values whose upper
    # tail under the pooled rates is within the level (ties, of mirror outcomes, held together)
    values, where = np.unique(stat.ravel(), return_inverse=True)
    tail = np.cumsum(np.bincount(where, law(null).ravel(), values.size)[::-1])[::-1]
    within = np.flatnonzero(tail <= sig_level / n_groups)
    region = stat >= (values[within[0]] if within.size else np.inf)

    def exceeds(q: np.ndarray) -> float:
        return float(law(q)[region].sum())
    rho = total[0, 0] / total[0].sum()
    eta = total[1, 1] / total[1].sum()
    share = n_g[0] / n_g.sum()
    best = (float("nan"), float("nan"))
    for sign in (1.0, -1.0):
        top = float(np.max(1 - null) if sign > 0 else np.max(null))
        moved = lambda d, sign=sign: np.clip(null + sign * d, 0.0, 1.0)  # noqa: E731
        lo, hi = 0.0, top
        if exceeds(moved(top)) >= 0.5:
            for _ in range(40):
                mid = 0.5 * (lo + hi)
                lo, hi = (mid, hi) if exceeds(moved(mid)) < 0.5 else (lo, mid)
        d = hi
        move = np.zeros(2)
        move[classes] = np.abs(moved(d) - null)
        shift = (share * move[0] + (1 - share) * move[1]) / (rho + eta - 1) \
            if rho + eta > 1 else float("nan")
        if not best[1] >= shift:
            best = (sign * d, float(shift))
    return best


def unseen_text(spot: tuple[str, int, float, float]) -> str:
    """What a passing check can miss, as a clause: ``spot`` is ``(group, n_paired, d, shift)``.

    ``d`` and ``shift`` from :func:`unseen_shift` of that group (``shift`` at most 1).
    """
    group, n, d, shift = spot
    move = "by as much as its whole range" if shift >= 1.0 else f"by {shift:.2f}"
    return (f"with {n:,} paired rows (the median group, {group}) it misses half the time or "
            f"more a metric calling {abs(d):.2f} {'more' if d > 0 else 'fewer'} of a group's "
            f"outputs positive in both human classes, which moves that group's alpha {move}")


def unseen_move_text(group: str, n: int, outputs, v, move: float, *, estimand: str,
                     unit: str, whole: float = 1.0) -> str:
    """What a passing check can miss, as a clause, from :func:`unseen_move`.

    ``group``: the group's name, ``n`` its paired items, ``outputs`` the metric's outputs
    (names), ``v`` and ``move`` :func:`unseen_move`'s answer, ``estimand`` its name
    (``"alpha"``, ``"diff"``), ``unit`` the group's kind (``"group"``, ``"pair"``) and
    ``whole`` the estimand's range (a move of at least that is "its whole range").

    Examples
    --------
    >>> unseen_move_text("A vs B", 40, ["first", "tie", "second"], [0.25, -0.11, -0.14], 0.63,
    ...                  estimand="diff", unit="pair", whole=2.0)  # doctest: +NORMALIZE_WHITESPACE
    "with 40 paired items (the median pair, A vs B) it misses half the time or more a metric
    moving up to 0.25 of a pair's ratings in every human class (to 'first' +0.25; from 'second'
    -0.14, 'tie' -0.11), which moves that pair's diff by 0.63"
    """
    v = np.asarray(v, dtype=float)
    order = np.argsort(-np.abs(v), kind="stable")
    def listed(parts: list[str]) -> str:
        # the three largest moves, and how many smaller ones (joint patterns of several metrics)
        return ", ".join(parts[:3]) + (f" and {len(parts) - 3} more" if len(parts) > 3 else "")
    up = listed([f"{str(outputs[j])!r} +{v[j]:.2f}" for j in order if v[j] >= 0.005])
    down = listed([f"{str(outputs[j])!r} {v[j]:.2f}" for j in order if v[j] <= -0.005])
    how = f"by {move:.2f}" if move < whole else "by as much as its whole range"
    items = "rows" if unit == "group" else "items"
    return (f"with {n:,} paired {items} (the median {unit}, {group}) it misses half the time or "
            f"more a metric moving up to {float(v[v > 0].sum()):.2f} of a {unit}'s ratings in every "
            f"human class (to {up}; from {down}), which moves that "
            f"{unit}'s {estimand} {how}")


#: Outcomes of a group's paired rows enumerated exactly by :func:`unseen_shift` (beyond, normal)
_EXACT_OUTCOMES = 40_000


def _unseen_shift_normal(total: np.ndarray, n_g: np.ndarray, classes: list[int],
                         null: np.ndarray, level: float) -> tuple[float, float]:
    """:func:`unseen_shift` for many paired rows: each class's count normal, d within [0, 1].

    The statistic is then a chi-square of one degree of freedom per class, non-central under a
    move ``d`` with ``lambda = d^2 sum_c n_c / (p_c (1 - p_c))``; ``d`` is where it exceeds its
    ``1 - level`` quantile half the time.  Used beyond :data:`_EXACT_OUTCOMES` outcomes
    (some 200 paired rows a class), where it is within 1 % of the enumeration's move of
    ``alpha`` (3 % at 50 rows a class).
    """
    df = len(classes)
    crit = float(special.chdtri(df, level))
    lam = _median_noncentrality(df, crit)
    info = sum(n_g[c] / (q * (1 - q)) for c, q in zip(classes, null, strict=True))
    d = min(math.sqrt(lam / info), 1.0)
    move = np.zeros(2)
    move[classes] = np.minimum(d, 1.0 - null)
    rho = total[0, 0] / total[0].sum()
    eta = total[1, 1] / total[1].sum()
    share = n_g[0] / n_g.sum()
    shift = (share * move[0] + (1 - share) * move[1]) / (rho + eta - 1) \
        if rho + eta > 1 else float("nan")
    return d, float(shift)


def unseen_move(paired, group: int, gradient, *, theta=None, sig_level: float = SIG_LEVEL
                ) -> tuple[np.ndarray, float]:
    """The largest move of a share estimate that the check misses half the time: any table.

    :func:`unseen_shift` for human classes and metric outputs of any number (a metric's bins,
    the joint patterns of several metrics, preference ratings): the group's metric moves each
    output's share by ``d v[j]`` in every human class (``sum_j v[j] = 0``; a class whose row
    would leave [0, 1] moves as far as it can, as :func:`unseen_shift` clips each class), which
    the metric-only ratings read as a move of the class shares ``pi``, and so of the estimand
    ``gradient @ pi`` (``alpha``; ``diff = win_1 - win_2`` for preferences).  ``d`` is where
    the group's statistic against the rest (Pearson's, ``J_c - 1`` degrees of freedom per
    human class ``c`` with paired items) exceeds its ``1 - sig_level / G`` chi-square quantile
    half the time, and ``v`` the direction that moves the estimand most for that.

    Pearson's statistic of a class with ``n_c`` paired items moved by ``w`` from the pooled
    row ``Theta[c]`` is non-central with ``lambda = n_c sum_j w[j]^2 / Theta[c, j]`` (as in
    :func:`unseen_shift`'s normal law): the same move in every class costs ``v' Q v``,
    ``Q = diag(sum_c n_c / Theta[c, j])``.  The move of the estimand is linear, ``h' v``, with
    ``h = D A (A' D A)^-1 B' gradient`` the sensitivity of the shares' weighted least-squares
    (local maximum-likelihood) reading of the metric-only outputs ``q = Theta' pi``
    (``D = diag(1 / q)``, ``A = Theta' B``, ``B`` a basis of the moves of ``pi`` that keep its
    sum, ``pi`` the group's shares among its paired items).  The largest ``h' v`` for a given
    ``v' Q v`` with ``sum_j v[j] = 0`` is at ``v`` proportional to ``Q^-1 (h - mu)`` (``mu``
    the ``Q^-1``-weighted mean of ``h``).  The pooled rows are ``theta`` when given (a fit's
    posterior mean: a cell without items is then not 0), else the pooled counts' shares, where
    an output that a class with paired items never shows does not move.  With one binary
    metric this is :func:`unseen_shift`'s normal law (there the enumeration answers); like it,
    an approximation of the check's power, to say how large a difference a passing check
    leaves possible; not a test.

    Parameters
    ----------
    paired : array-like of shape (G, K, J)
        Paired counts: group, human class, metric output (any order, as :func:`check`).
    group : int
        Index of the group.
    gradient : array-like of shape (K,)
        The estimand's weights on the class shares.
    theta : array-like of shape (K, J), optional
        The pooled confusion matrix (rows: classes, summing to 1).
    sig_level : float
        The check's significance threshold.

    Returns
    -------
    (ndarray, float)
        ``(v, move)``: the move of each output's share, ``d v`` (shape (J,); a class at a
        bound moves less), and the size of the move of the estimand; NaN when the group shares
        no class with the others or the pooled confusion matrix does not identify the shares.

    Examples
    --------
    Ten pairs of 40 paired preference ratings each (classes and outputs: first, tie, second),
    a judge right 0.7 of the time: a judge of one pair moving 0.29 of its ratings from
    "second" to "first" in every human class (0.13 in the classes "first" and "tie", which
    have no more "second" ratings to give) goes unseen half the time, and moves that pair's
    ``diff`` by 0.69.

    >>> import numpy as np
    >>> one = [[11, 2, 2], [2, 6, 2], [2, 2, 11]]
    >>> v, move = unseen_move([one] * 10, 0, [1, 0, -1])
    >>> np.round(v, 2).tolist(), round(move, 2)
    ([0.29, 0.0, -0.29], 0.69)
    """
    counts = np.asarray(paired, dtype=float)
    g = np.asarray(gradient, dtype=float)
    if counts.ndim != 3 or g.shape != (counts.shape[1],):
        raise ValueError(f"paired must have shape (groups, classes, outputs) and gradient one "
                         f"weight per class, got {counts.shape} and {g.shape}")
    n_groups, n_classes, n_out = counts.shape
    nothing = (np.full(n_out, np.nan), float("nan"))
    total = counts.sum(axis=0)
    rows = total.sum(axis=1)
    n_g = counts[group].sum(axis=1)
    if theta is None:
        with np.errstate(invalid="ignore", divide="ignore"):
            theta = total / rows[:, None]
    theta = np.asarray(theta, dtype=float)
    classes = [c for c in range(n_classes)
               if n_g[c] > 0 and rows[c] > n_g[c] and np.count_nonzero(theta[c] > 0) >= 2]
    if not classes or np.isnan(theta).any():
        return nothing
    # the cost of a move: Q[j] (infinite where some class never shows the output: it stays)
    with np.errstate(divide="ignore"):
        per_class = {c: n_g[c] / theta[c] for c in classes}
    q_diag = sum(per_class.values())
    free = np.isfinite(q_diag)
    df = sum(int(np.count_nonzero(theta[c] > 0)) - 1 for c in classes)
    if free.sum() < 2:
        return nothing
    # the estimand's sensitivity to the output shares, through the shares' reading of q
    pi = n_g / n_g.sum()
    q = theta.T @ pi
    basis = np.linalg.svd(np.ones((1, n_classes)))[2][1:].T      # (K, K - 1), sums to 0
    a = theta.T @ basis
    seen = q > 0
    fisher = a[seen].T @ (a[seen] / q[seen, None])
    if not np.isfinite(fisher).all() or np.linalg.cond(fisher) > 1e12:
        return nothing
    h = np.zeros(n_out)
    h[seen] = (a[seen] / q[seen, None]) @ np.linalg.solve(fisher, basis.T @ g)
    inv = np.where(free, 1.0 / np.where(free, q_diag, 1.0), 0.0)
    u = inv * (h - float(inv @ h / inv.sum()))
    if not np.any(u):
        return np.zeros(n_out), 0.0
    v = u / math.sqrt(float(u @ (np.where(free, q_diag, 0.0) * u)))   # v' Q v = 1, sum 0
    # how far each class can move along v before a share leaves [0, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(v < 0, theta / -v, np.where(v > 0, (1.0 - theta) / v, np.inf))
    room = np.where(rows > 0, room.min(axis=1), np.inf)
    cost = {c: float(v @ (np.where(free, per_class[c], 0.0) * v)) for c in classes}

    def lam_at(d: float) -> float:
        return sum(min(d, room[c]) ** 2 * cost[c] for c in classes)
    lam = _median_noncentrality(df, float(special.chdtri(df, sig_level / n_groups)))
    top = max(room[c] for c in classes)
    if lam_at(top) <= lam:
        d = top                      # unseen half the time even at the largest move
    else:
        lo, hi = 0.0, top
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if lam_at(mid) < lam else (lo, mid)
        d = hi
    # each class moves d (or as far as it can); the metric-only ratings mix the classes
    steps = np.minimum(d, room)
    return d * v, float(h @ v) * float(pi @ steps)


def _median_noncentrality(df: int, crit: float) -> float:
    """The non-centrality at which a chi-square of ``df`` exceeds ``crit`` half the time."""
    from scipy import optimize

    def excess(lam: float) -> float:
        return float(stats.ncx2.sf(crit, df, lam)) - 0.5
    hi = crit + 1.0
    while excess(hi) < 0:
        hi *= 2.0
    return float(optimize.brentq(excess, 0.0, hi, xtol=1e-10))


def _verdict(p_value: float, sig_level: float) -> str:
    if not np.isfinite(p_value):
        return "nothing to check: no human class has paired items in two groups"
    if p_value < sig_level:
        return "the groups' rates differ: pooling them is not supported"
    return ("consistent with one set of rates for every group (a check with little power when "
            "groups have few paired items)")


def passes(result: pd.DataFrame | None) -> bool:
    """Whether a check ran and found no difference between the groups' rates.

    Examples
    --------
    >>> passes(check([[[5, 5], [5, 5]], [[5, 5], [5, 5]]], ["a", "b"]))
    True
    >>> passes(None)
    False
    """
    if result is None:
        return False
    p = result.attrs["p_value"]
    return bool(np.isfinite(p) and p >= result.attrs["sig_level"])


def deviations(result: pd.DataFrame, n: int = SHOWN) -> list[str]:
    """The ``n`` groups that deviate most from the others, most first (approximate p-values).

    Examples
    --------
    >>> same = [[40, 10], [10, 40]]
    >>> deviations(check([same, same, [[40, 10], [35, 15]]], ["a", "b", "c"]), 1)
    ['c']
    """
    ranked = result.dropna(subset=["p_value"]).sort_values(["p_value", "statistic"],
                                                           ascending=[True, False])
    return [str(g) for g in ranked.index[:n]]


def largest_cell(paired: np.ndarray, index: int) -> tuple[int, int, float, float, int]:
    """Group ``index``'s cell furthest from the pooled rates, in standardised units.

    Returns ``(class, output, group's share, pooled share, group's items of the class)``.
    """
    counts = np.asarray(paired, dtype=float)
    best = (0, 0, np.nan, np.nan, 0)
    best_z = -1.0
    for c in range(counts.shape[1]):
        n_gc = counts[index, c].sum()
        n_c = counts[:, c].sum()
        if n_gc == 0 or n_c == 0:
            continue
        pooled = counts[:, c].sum(axis=0) / n_c
        expected = n_gc * pooled
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(expected > 0, np.abs(counts[index, c] - expected) / np.sqrt(expected),
                         0.0)
        j = int(np.argmax(z))
        if z[j] > best_z:
            best_z = float(z[j])
            best = (c, j, float(counts[index, c, j] / n_gc), float(pooled[j]), int(n_gc))
    return best


def message(result: pd.DataFrame, describe: Callable[[str], str], *, units: str,
            matrix: str) -> str:
    """The warning text of a failed check, naming the groups that deviate most and the fix.

    ``describe(group)`` says how that group's rates differ from the pooled ones; ``units``
    names the groups in the plural ("groups", "pairs"); ``matrix`` what is pooled ("one pair
    of rates (rho, eta)", "one confusion matrix").
    """
    a = result.attrs
    worst = deviations(result)
    listed = "; ".join(f"{g}: {describe(g)}" for g in worst)
    n_units = len(result)
    return (f"rates='pooled' uses {matrix} for the {n_units} {units}, but their paired items "
            f"say the metric errs differently between them (check before pooling: p = "
            f"{_p_text(a['p_value'], a['n_resamples'])}, below {a['sig_level']:g}; exact "
            f"conditional test of the paired confusion counts). Most different: {listed}. "
            f"Pooled intervals can then miss the truth in such {units}, and by more the more "
            "metric-only items they have. Use rates='estimate' (rates per "
            f"{units.rstrip('s')}: wider, honest), or pool only {units} whose paired items agree (fit them apart), or rate "
            f"more paired items in the {units} that deviate")


def _p_text(p: float, n_resamples: int) -> str:
    floor = 1.0 / (1 + n_resamples)
    return f"{p:.2g}" if p > floor else f"{p:.2g} (the smallest the {n_resamples} draws give)"


def summary_note(result: pd.DataFrame | None, *, units: str,
                 caveat: str | None = None) -> str | None:
    """The summary's line about the check of a pooled fit (None when it could not run).

    ``caveat`` replaces the line's general word on the check's power when it passes (a
    measure of what it can miss, where the model gives one).
    """
    if result is None or not np.isfinite(result.attrs["p_value"]):
        return None
    a = result.attrs
    head = f"check before pooling (one confusion matrix for all {units}): p = " \
           f"{_p_text(a['p_value'], a['n_resamples'])}"
    if passes(result):
        if caveat is None:
            caveat = (f"a check with little power when {units} have few paired items, so it "
                      "is no proof that the rates are equal")
        return (head + f", no difference between the {units}' rates found at "
                f"{a['sig_level']:g}; {caveat}")
    return (head + f": WARNING, the {units}' rates differ (most: "
            f"{', '.join(deviations(result))}); pooled intervals can miss the truth, "
            "rates='estimate' is the safe choice")
