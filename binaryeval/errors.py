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
    "CountsError",
    "DataError",
    "FormulaError",
    "IdentifiabilityWarning",
    "InputTypeError",
    "ParameterError",
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
