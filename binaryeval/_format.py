"""How a probability is written in every table: fixed decimals, never e-notation.

One rule for the text, HTML and LaTeX summaries (:mod:`binaryeval.summary`) and for the tables of
the site and the user report (:mod:`binaryeval._site.tables`): a column is a probability when its
name is ``p``, ``p_*``, ``prob*`` or ``P(...)`` (``p_value``, ``p_adjusted``, ``prob_greater``,
``P(A > B)``), and a probability ``v`` shown with ``d`` decimals reads ``< 0.001`` below
``10**-d``, ``> 0.999`` above ``1 - 10**-d``, else ``v`` with ``d`` decimals.  A p-value of
exactly 1 (``p``, ``p_value*``, ``p_adjusted``: an exact answer, as for equal sign counts) reads
``1.000``; any other probability of 1 (a posterior probability that rounds to 1, a far-apart
pair's, a share of draws) reads ``> 0.999`` like its neighbours, so that a column of them does not
single one out as certain.  A probability estimated from ``n`` posterior draws (a table whose
``attrs["n_draws"]`` is ``n``) is shown no finer than the draws resolve it: a share below ``1 / n``
reads ``< 1/n`` rounded up (``< 0.0005`` for 2,000 draws), a p-value (twice a tail) below ``2 / n``
likewise, and a share above ``1 - 1 / n`` reads ``> 1 - 1/n`` rounded down.  Each renderer keeps its
own mark for a missing value.
"""

from __future__ import annotations

import math
import re
from numbers import Real
from typing import Any

__all__ = ["PROBABILITY_NAME", "P_VALUE_NAME", "draws_floor", "format_probability",
           "is_p_value_name", "is_probability_name"]

#: Column names read as probabilities.
PROBABILITY_NAME = re.compile(r"^(p|p_.*|prob.*|P\(.*\))$")
#: ... and those of p-values, where 1 is an exact answer.
P_VALUE_NAME = re.compile(r"^(p|p_value.*|p_adjusted)$")


def is_probability_name(name: Any) -> bool:
    """Whether a column named ``name`` holds probabilities.

    Examples
    --------
    >>> from binaryeval._format import is_probability_name
    >>> [is_probability_name(n) for n in ("p_value", "prob_greater", "P(A > B)", "n_paired")]
    [True, True, True, False]
    """
    return bool(PROBABILITY_NAME.match(str(name)))


def is_p_value_name(name: Any) -> bool:
    """Whether a column named ``name`` holds p-values (a probability of 1 is shown as 1).

    Examples
    --------
    >>> from binaryeval._format import is_p_value_name
    >>> [is_p_value_name(n) for n in ("p_value", "p_adjusted", "prob_greater", "p_best")]
    [True, True, False, False]
    """
    return bool(P_VALUE_NAME.match(str(name)))


def draws_floor(name: Any, draws: Any) -> float:
    """The smallest probability ``n`` posterior draws resolve in a column named ``name``.

    ``1 / n`` for a share of draws, ``2 / n`` for a p-value (twice a tail share); 0 without draws.

    Examples
    --------
    >>> from binaryeval._format import draws_floor
    >>> draws_floor("prob_greater", 2000), draws_floor("p_value", 2000), draws_floor("p", None)
    (0.0005, 0.001, 0.0)
    """
    if not draws:
        return 0.0
    return (2.0 if is_p_value_name(name) else 1.0) / float(draws)


def format_probability(value: Any, decimals: int = 3, na: str = "\u2013",
                       exact_one: bool = True, floor: float = 0.0) -> str:
    """Format a probability with fixed decimals, never in e-notation.

    Parameters
    ----------
    value : float
        A probability (``NaN``, ``None`` or ``pd.NA`` for a missing one); a value that is not a
        number (text such as ``"n/a"``) is shown as it is.
    decimals : int, default 3
        Decimals shown; values closer to 0 or 1 than ``10**-decimals`` read ``< 0.001`` or
        ``> 0.999`` (for three decimals).
    na : str
        Text for a missing value.
    exact_one : bool, default True
        Show a value of exactly 1 as ``1.000`` (p-values); False shows it as ``> 0.999``.
    floor : float, default 0
        The smallest probability the estimate resolves (:func:`draws_floor`): values below it,
        or above ``1 - floor``, read as bounds at it.

    Returns
    -------
    str

    Examples
    --------
    >>> from binaryeval._format import format_probability
    >>> format_probability(1.41e-16), format_probability(0.04567), format_probability(1 - 1e-9)
    ('< 0.001', '0.046', '> 0.999')
    >>> format_probability(0), format_probability(1.0), format_probability(None)
    ('< 0.001', '1.000', '–')
    >>> format_probability(1.0, exact_one=False)
    '> 0.999'
    >>> format_probability(0.0, 4, floor=1 / 2000), format_probability(1.0, 4, exact_one=False,
    ...                                                                floor=1 / 4000)
    ('< 0.0005', '> 0.9997')
    """
    if value is None or (not isinstance(value, (str, bytes)) and _is_na(value)):
        return na
    if not isinstance(value, Real):
        return str(value)
    v = float(value)
    scale = 10 ** decimals
    step = 1.0 / scale
    # the bounds, at least a step from 0 and 1, rounded outwards from what the floor allows
    low = max(step, math.ceil(round(floor * scale, 6)) / scale)
    high = min(1.0 - step, math.floor(round((1.0 - floor) * scale, 6)) / scale)
    if v < low:
        return f"< {low:.{decimals}f}"
    if high < v < 1 or (v == 1 and not exact_one):
        return f"> {high:.{decimals}f}"
    return f"{v:.{decimals}f}"


def _is_na(value: Any) -> bool:
    """NaN or pandas' NA (without importing pandas)."""
    if type(value).__name__ == "NAType":
        return True
    try:
        return math.isnan(value)
    except (TypeError, ValueError):
        return False
