"""Warnings that point at the user's line, whatever depth inside the package they come from."""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["warn"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def warn(message: str, category: type[Warning]) -> None:
    """Issue ``message`` attributed to the first caller outside the binaryeval package.

    Parameters
    ----------
    message : str
        The warning text (what happened and what to do).
    category : Warning subclass
        The warning class (one of :mod:`binaryeval.errors`).

    Examples
    --------
    >>> import warnings
    >>> from binaryeval.errors import BinaryEvalWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("careful", BinaryEvalWarning)
    >>> caught[0].filename.endswith("_warnings.py")
    False
    """
    frame = sys._getframe(1)
    level = 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            _PACKAGE_DIR + os.sep):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
