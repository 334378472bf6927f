"""The entry point :func:`favi`: formula -> model frame -> pair counts -> :class:`FaviResult`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from .._dask import is_dask_frame
from .._directions import check_direction
from .._validate import choice, renamed
from .._validate import sig_level as valid_sig_level
from .._warnings import warn
from ..errors import BinaryEvalWarning, DataError, ParameterError, UnpairedItemsWarning
from .counting import count_pairs, repeated_message
from .frame import _parse, favi_frame
from .ratings import tolerances
from .result import FaviResult
from .sign import TIES

if TYPE_CHECKING:  # names used only in type hints
    from collections.abc import Sequence


def _report_unpaired(skipped: np.ndarray, unpaired: str) -> None:
    if not skipped.any():
        return
    msg = (f"{int(skipped.sum())} item-pair combinations are rated for only one system of the pair "
           f"(in {int((skipped > 0).sum())} of {skipped.size} pairs); they are skipped and counted in "
           "to_frame()['n_skipped']")
    if unpaired == "raise":
        raise DataError(msg + "; drop those items or pass unpaired='warn'")
    if unpaired == "warn":
        warn(msg, UnpairedItemsWarning)


def _check_agreement(counts: np.ndarray, human_term: str, metric_term: str,
                     lower: tuple[str, ...], mode: str) -> None:
    """The direction check on the item comparisons that human and metric both decide.

    A comparison (an item of a pair) is decided when both prefer a system (cells ``(+, +)``,
    ``(+, -)``, ``(-, +)``, ``(-, -)``).  A metric worth evaluating agrees with the humans on most
    of them; agreeing on fewer than half means that one score most likely points the other way
    (an error penalty or TER read as higher-is-better).
    """
    c = np.asarray(counts).sum(axis=0)
    opposite = int(c[0, 2] + c[2, 0])
    decided = opposite + int(c[0, 0] + c[2, 2])
    agree = 1.0 - opposite / decided if decided else np.nan
    terms = (human_term, metric_term)
    check_direction(
        agree, lambda: (f"the human ({human_term}) and metric ({metric_term}) preferences point to "
                        f"opposite systems on {opposite / decided:.0%} of the {decided:,} item "
                        "comparisons where both prefer a system"),
        terms=terms, sides=[(human_term,), (metric_term,)], lower=lower,
        advice=("check that '+' (or 1) means the first system is better in both columns"
                if mode == "preferences" else None))


@renamed(human_higher_is_better="lower_is_better", metric_higher_is_better="lower_is_better",
         alpha="sig_level")
def favi(formula: str, data: pd.DataFrame, *, item: str, pairs: str | Sequence[tuple[str, str]] = "all",
         tolerance: float | tuple[float, float] | dict[str, float] = 0.0,
         lower_is_better: str | list[str] | None = None,
         sign_test_ties: Literal["drop", "split"] = "drop", sig_level: float = 0.05,
         unpaired: Literal["warn", "raise", "count"] = "warn") -> FaviResult:
    """Favi-Scores of a metric against human ratings for every pair of systems.

    Parameters
    ----------
    formula : str
        ``"human ~ metric | system"`` for data with one row per (item, system) holding scalar or
        ordinal scores, e.g. ``"mqm ~ bleurt | system"``.  ``"human ~ metric | system_a + system_b"``
        for data that already hold preference ratings (``+/=/-`` or ``1/0/-1``) per
        (item, system_a, system_b); pairs given in either order are oriented consistently.
    data : DataFrame
        The data: a pandas frame, or a Dask frame (counted partition by partition, the same
        counts; scores data are shuffled so that each item's rows meet in one partition).
    item : str
        Column naming the input (segment, document) shared by the systems.
    pairs : "all" or list of (str, str)
        The system pairs (oriented as given), each pair once; a system is named by its text
        (``1`` names the system ``'1'``).  ``"all"`` takes every unordered pair, ``group_1``
        first in natural order (``sys2`` before ``sys10``; the orientation of every pair table,
        :func:`binaryeval.fit_preferences` included).
    tolerance : float, (float, float) or dict
        Score differences ``<= tolerance`` count as ``=`` (as written in decimals: ``0.8 - 0.7``,
        which floats make a hair larger than ``0.1``, is a tie at ``0.1``); a pair, or a mapping
        from the formula's terms (``{"chrf": 0.5}``, as :func:`binaryeval.fit_preferences`
        takes) or from ``"human"``/``"metric"`` to numbers, sets the two sides separately (their
        scales differ; a side not named gets 0).  Scores data only: preference data are refused
        a tolerance above 0.
    lower_is_better : str or list of str, optional
        The terms, as written in the formula (human or metric side), whose lower scores are
        better: MQM error penalties, TER.  The default treats higher scores as better on both
        sides.  The result states the direction used for each term.
    sign_test_ties : {"drop", "split"}
        Tie rule of the per-pair sign tests (see :func:`sign_test`).
    sig_level : float
        Significance threshold of the sign tests used by :meth:`FaviResult.ranking`.
    unpaired : {"warn", "raise", "count"}
        What to do with items rated for only one system of a pair: they are always skipped and
        counted (``n_skipped``); ``"warn"`` also warns, ``"raise"`` raises :class:`DataError`.

    Returns
    -------
    FaviResult

    Raises
    ------
    DataError
        Infinite scores, duplicated column names, repeated (item, system) rows; preference data
        whose human or metric column holds the numbers 0 and 1 alone (is 0 a tie or a win of
        the second system? ``I(2 * human - 1)`` recodes a winner coded 0/1; ties written as
        ``'='`` say that 0 is a tie); system names that write one number two ways (``1`` in
        one row or column, ``1.0`` in another: a column of whole numbers read as floats).
    ParameterError
        A system in ``pairs`` without a row used, a pair given twice (in either order), or (for
        preference data) a pair no row compares or a ``tolerance`` above 0 (the ratings are
        already ``+/=/-``).

    Warns
    -----
    DirectionWarning
        When human and metric prefer opposite systems on more than half of the item comparisons
        where both prefer one: a lower-is-better score was probably read as higher-is-better.
        The message names the likely ``lower_is_better=[...]``.
    UnpairedItemsWarning
        When items are rated for only one system of a pair (``unpaired="warn"``).
    BinaryEvalWarning
        Preference data in which some rows rate an (item, system pair) that another row already
        rates, in either order of the systems: every row counts as one comparison, and the sign
        tests take them as independent (too small p-values for repeated ratings of one output).

    Examples
    --------
    >>> from binaryeval import favi
    >>> import pandas as pd
    >>> df = pd.DataFrame({"seg": [1, 1, 2, 2, 3, 3], "system": list("ababab"),
    ...                    "human": [3, 2, 1, 1, 4, 5], "metric": [0.9, 0.2, 0.6, 0.5, 0.4, 0.3]})
    >>> r = favi("human ~ metric | system", df, item="seg")
    >>> r.to_frame()[["group_1", "group_2", "n", "n_disagreements", "favi"]].to_dict("records")
    [{'group_1': 'a', 'group_2': 'b', 'n': 3, 'n_disagreements': 2, 'favi': 1.5}]

    MQM error penalties (lower is better) against chrF:

    >>> import binaryeval as be
    >>> ende = be.datasets.load_wmt21_ende().assign(penalty=lambda d: -d.mqm)
    >>> res = be.favi("penalty ~ chrf | system", ende, item="seg_id", lower_is_better="penalty")
    >>> res.directions
    {'penalty': 'lower is better', 'chrf': 'higher is better'}
    """
    choice(unpaired, "unpaired", ("warn", "raise", "count"))
    choice(sign_test_ties, "sign_test_ties", TIES)
    sig_level = valid_sig_level(sig_level)
    parsed = _parse(formula)
    tol = tolerances(tolerance, (parsed.lhs_names[0], parsed.rhs_names[0]))
    if len(parsed.groups) == 2 and any(tol):
        raise ParameterError(f"tolerance={tolerance!r} applies to score differences; preference "
                             "data ('| system_a + system_b') hold ratings that are already '+', "
                             "'=' or '-', so there is no difference to compare with it: drop "
                             "tolerance, or give one row per (item, system) with scores "
                             "('| system') to derive the ratings with a tolerance")
    if is_dask_frame(data):
        from ._partitions import favi_counts

        spec, account, counted = favi_counts(formula, data, item=item,
                                             lower_is_better=lower_is_better, pairs=pairs, tol=tol)
        left_out = None   # a Dask frame's index labels are per partition: no row is found by them
    else:
        frame = favi_frame(formula, data, item=item, lower_is_better=lower_is_better)
        counted = count_pairs(frame, pairs, tol)
        spec, account = frame, frame.account
        left_out = frame.left_out
    _report_unpaired(counted.n_skipped, unpaired)
    if counted.n_repeated:
        warn(repeated_message(counted.n_repeated, account.n_used), BinaryEvalWarning)
    _check_agreement(counted.counts, spec.human_term, spec.metric_term, spec.lower_is_better,
                     spec.mode)
    call = {"formula": formula, "item": item, "pairs": pairs, "tolerance": tolerance,
            "lower_is_better": lower_is_better, "sign_test_ties": sign_test_ties,
            "sig_level": sig_level, "unpaired": unpaired}
    return FaviResult(formula=formula, item=item, systems=counted.systems, pair_index=counted.pair_index,
                      counts=counted.counts, n_skipped=counted.n_skipped, mode=spec.mode,
                      n_rows=account.n_rows, excluded=dict(account.excluded),
                      n_items=counted.n_items, tolerance=tol, human_term=spec.human_term,
                      metric_term=spec.metric_term, lower_is_better=spec.lower_is_better,
                      sign_test_ties=sign_test_ties, sig_level=sig_level, call=call,
                      _left_out=left_out)
