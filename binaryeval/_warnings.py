"""Warnings that point at the user's line, whatever depth inside the package they come from.

The one place that walks the call stack out of the package: :func:`warn` uses it for the warning's
``stacklevel``, :func:`user_frame` for the names a formula's expressions may use
(``eval_env``, :mod:`binaryeval._partition`).
"""

from __future__ import annotations

import os
import sys
import warnings
from types import FrameType

__all__ = ["user_frame", "warn"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _leave_package(frame: FrameType | None) -> tuple[FrameType | None, int]:
    """The first frame from ``frame`` outwards whose code is not in the package, and the steps."""
    steps = 0
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
        steps += 1
    return frame, steps


def user_frame(depth: int = 0) -> FrameType | None:
    """The frame of the first caller outside binaryeval, or ``depth`` frames above it.

    Parameters
    ----------
    depth : int
        How many frames further out (0: the user's line that called into the package).

    Returns
    -------
    frame or None
        None when the stack is not that deep.

    Examples
    --------
    >>> from binaryeval._warnings import user_frame
    >>> user_frame().f_code.co_filename.endswith("_warnings.py")
    False
    """
    frame, _ = _leave_package(sys._getframe(1))
    for _ in range(depth):
        frame = frame.f_back if frame is not None else None
    return frame


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
    >>> from binaryeval._warnings import warn
    >>> import warnings
    >>> from binaryeval.errors import BinaryEvalWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("careful", BinaryEvalWarning)
    >>> caught[0].filename.endswith("_warnings.py")
    False
    """
    _, steps = _leave_package(sys._getframe(1))
    warnings.warn(message, category, stacklevel=2 + steps)
