"""Modules imported on first use.

scipy.stats nearly doubles the time ``import binaryeval`` takes (about 1 s of CPU on top of
numpy, pandas and the rest of scipy), and a fit, a command or a worker process often never
reaches it.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class _Lazy:
    """A module imported when one of its attributes is first read.

    Examples
    --------
    >>> from binaryeval._lazy import stats
    >>> round(float(stats.norm.ppf(0.975)), 6)
    1.959964
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)

    def __repr__(self) -> str:
        return f"<{self._name}, imported on first use>"


#: ``scipy.stats``, imported on first use
stats = _Lazy("scipy.stats")
