"""Warnings that point at the user's line, however deep inside the package they are raised."""

from __future__ import annotations

import os
import sys
import warnings

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_user(message: str, category: type[Warning]) -> None:
    """Issue ``message`` attributed to the first stack frame outside the package.

    The right ``stacklevel`` depends on how many package frames (decorators, helpers, properties)
    lie between the user's call and the warning; walking the stack finds it whatever the path.
    """
    frame = sys._getframe(0)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
