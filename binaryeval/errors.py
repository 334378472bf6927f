"""The error hierarchy of binaryeval.

Every error the package raises on bad input is a subclass of :class:`BinaryEvalError` and of the
matching built-in (``ValueError`` or ``TypeError``), so ``except ValueError`` keeps working while
``except binaryeval.BinaryEvalError`` catches exactly the package's own complaints.  Messages name
the argument or column, the offending value and how to fix it.
"""

from __future__ import annotations

__all__ = [
    "BinaryEvalError",
    "BinaryEvalWarning",
    "ConvergenceWarning",
    "CountsError",
    "DataError",
    "DirectionWarning",
    "FaviUndefinedWarning",
    "FormulaError",
    "IdentifiabilityWarning",
    "InputTypeError",
    "ParameterError",
    "RenderError",
    "SmallSampleWarning",
    "UnpairedItemsWarning",
]


class BinaryEvalError(Exception):
    """Base class of every error raised by binaryeval."""


class DataError(BinaryEvalError, ValueError):
    """A data frame, column or value cannot be used as given."""


class InputTypeError(BinaryEvalError, TypeError):
    """An argument has the wrong type (e.g. a string where a number is needed)."""


class ParameterError(BinaryEvalError, ValueError):
    """A scalar parameter (probability, level, size, option) is out of range or unknown."""


class CountsError(BinaryEvalError, ValueError):
    """Sufficient statistics are negative, non-integer or inconsistent."""


class FormulaError(BinaryEvalError, ValueError):
    """A model formula cannot be parsed or names unknown columns.

    Parameters
    ----------
    message : str
        What is wrong and how to fix it.
    formula : str, optional
        The formula text; shown with a caret under the offending part.
    position : int or tuple of (start, end), optional
        Character offset(s) of the offending part in ``formula``.
    """

    def __init__(self, message: str, formula: str | None = None,
                 position: int | tuple[int, int] | None = None) -> None:
        self.formula = formula
        self.position = position
        text = message
        if formula is not None:
            if position is None:
                text = f"{message}\n    {formula}"
            else:
                start, end = (position, position + 1) if isinstance(position, int) else position
                end = max(end, start + 1)
                text = f"{message}\n    {formula}\n    {' ' * start}{'^' * (end - start)}"
        super().__init__(text)


class BinaryEvalWarning(UserWarning):
    """Base class of the package's warnings."""


class IdentifiabilityWarning(BinaryEvalWarning):
    """The metric's rates leave the quantity of interest (nearly) unidentified (rho + eta <= 1)."""


class DirectionWarning(BinaryEvalWarning):
    """Human and metric scores point in opposite directions.

    A lower-is-better score was probably read as higher-is-better; the message names the likely
    fix, ``lower_is_better=[...]``.
    """


class FaviUndefinedWarning(BinaryEvalWarning):
    """The Favi-Score is undefined (NaN): the metric never disagrees with the humans (E = 0).

    Examples
    --------
    >>> import warnings
    >>> import binaryeval as be
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     score = be.favi_score([[5, 0, 0], [0, 3, 0], [0, 0, 4]])
    >>> score, caught[0].category.__name__
    (nan, 'FaviUndefinedWarning')
    """


class UnpairedItemsWarning(BinaryEvalWarning):
    """Some items are rated for only one system of a pair; they are skipped and counted.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> import binaryeval as be
    >>> df = pd.DataFrame({"seg": [1, 1, 2], "system": ["a", "b", "a"], "h": [2, 1, 3],
    ...                    "m": [0.5, 0.1, 0.9]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = be.favi("h ~ m | system", df, item="seg")
    >>> caught[0].category.__name__, int(res.n_skipped[0])
    ('UnpairedItemsWarning', 1)
    """


class SmallSampleWarning(BinaryEvalWarning):
    """Too few observations for the requested method to keep its stated coverage.

    The message names the count and the method used instead.
    """


class ConvergenceWarning(BinaryEvalWarning):
    """A sampler's diagnostics (R-hat, effective sample size) say its draws are not yet reliable."""


class RenderError(BinaryEvalError, RuntimeError):
    """A document could not be rendered (a chunk raised, or the header or an option is invalid)."""
