"""How a probability is written in every table: fixed decimals, never e-notation.

One rule for the text, HTML and LaTeX summaries (:mod:`binaryeval.summary`) and for the tables of
the site and the user report (:mod:`binaryeval._site.tables`): a column is a probability when its
name is ``p``, ``p_*``, ``prob*`` or ``P(...)`` (``p_value``, ``p_adjusted``, ``prob_greater``,
``P(A > B)``), and a probability ``v`` shown with ``d`` decimals reads ``< 0.001`` below
``10**-d``, ``> 0.999`` between ``1 - 10**-d`` and 1, else ``v`` with ``d`` decimals (1 is
``1.000``).  Each renderer keeps its own mark for a missing value.
"""

from __future__ import annotations

import math
import re
from numbers import Real
from typing import Any

__all__ = ["PROBABILITY_NAME", "format_probability", "is_probability_name"]

#: Column names read as probabilities.
PROBABILITY_NAME = re.compile(r"^(p|p_.*|prob.*|P\(.*\))$")


def is_probability_name(name: Any) -> bool:
    """Whether a column named ``name`` holds probabilities.

    Examples
    --------
    >>> from binaryeval._format import is_probability_name
    >>> [is_probability_name(n) for n in ("p_value", "prob_greater", "P(A > B)", "n_paired")]
    [True, True, True, False]
    """
    return bool(PROBABILITY_NAME.match(str(name)))


def format_probability(value: Any, decimals: int = 3, na: str = "\u2013") -> str:
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
    """
    if value is None or (not isinstance(value, (str, bytes)) and _is_na(value)):
        return na
    if not isinstance(value, Real):
        return str(value)
    v = float(value)
    step = 10.0 ** -decimals
    if v < step:
        return f"< {step:.{decimals}f}"
    if 1 - step < v < 1:
        return f"> {1 - step:.{decimals}f}"
    return f"{v:.{decimals}f}"


def _is_na(value: Any) -> bool:
    """NaN or pandas' NA (without importing pandas)."""
    if type(value).__name__ == "NAType":
        return True
    try:
        return math.isnan(value)
    except (TypeError, ValueError):
        return False
