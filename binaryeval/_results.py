"""The result protocol every public result follows.

A result is data first, display second.  Subclasses provide two things:

* :meth:`Result.summary` returning a :class:`~binaryeval.summary.Summary` (title, facts, tables,
  notes), and
* :meth:`Result.to_frame` returning the tidy table (one row per group, pair or metric; snake_case
  columns such as ``estimate``, ``std_error``, ``lower``, ``upper``, ``statistic``, ``p_value``).

From these the base derives the display methods: ``print(result)`` shows the summary text (as R
prints a fitted model), ``repr(result)`` is one line built from :meth:`Result._repr_fields`,
notebooks render :meth:`Result._repr_html_`, and Quarto's PDF output uses
:meth:`Result._repr_latex_`.  Results that can be drawn implement ``plot(ax=None, kind=..., **kw)``
and return the matplotlib ``Axes``.

Hypothesis tests are :class:`TestResult` subclasses: frozen dataclasses that unpack to
``(statistic, p_value)`` like scipy's and statsmodels' test results, with other fields by name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .summary import Summary

__all__ = ["Result", "TestResult", "excluded_rows", "row_account"]


def _short(value: Any) -> str:
    """A compact rendering of one value for a one-line repr."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return repr(text)
    if isinstance(value, (list, tuple)) and len(value) > 4:
        return f"[{len(value)} items]"
    return repr(value)


def row_account(result: Any) -> dict[str, Any]:
    """The row account of a result fitted to rows of data, for its ``to_frame().attrs``.

    ``n_rows``, ``n_used``, ``n_excluded`` and ``excluded`` (reason -> rows), the same keys in
    every result that read a table; ``{}`` for a result of counts or settings (no rows).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from binaryeval._results import row_account
    >>> row_account(SimpleNamespace(n_rows=10, n_used=9, n_excluded=1,
    ...                             excluded={"missing group": 1}))
    {'n_rows': 10, 'n_used': 9, 'n_excluded': 1, 'excluded': {'missing group': 1}}
    >>> row_account(SimpleNamespace(n_rows=None))
    {}
    """
    if getattr(result, "n_rows", None) is None:
        return {}
    return {"n_rows": int(result.n_rows), "n_used": int(result.n_used),
            "n_excluded": int(result.n_excluded),
            "excluded": {str(k): int(n) for k, n in dict(result.excluded).items() if n}}


def excluded_rows(left_out: Any) -> pd.Series | None:
    """The rows a result left out as a Series: the data's row labels, the reason of each.

    ``left_out`` is the result's :class:`~binaryeval.data.LeftOutRows` (None when the result
    cannot say which rows: a fit from counts or from a Dask frame).  The Series is indexed by
    the data's own labels (its index name kept), in data order, and named ``reason``; its
    ``value_counts()`` are the result's ``excluded``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from binaryeval._results import excluded_rows
    >>> from binaryeval.data import LeftOutRows
    >>> excluded_rows(LeftOutRows(pd.Index([7], name="id"), np.zeros(1, dtype=np.int16),
    ...                           ("missing group",))).to_dict()
    {7: 'missing group'}
    >>> excluded_rows(None) is None
    True
    """
    return None if left_out is None else left_out.series()


def row_facts(result: Any, used: str = "rows used") -> dict[str, Any]:
    """The row account as every summary states it: ``rows``, ``rows used``, ``rows excluded``.

    ``rows excluded`` lists each reason after its count (``3,325 no rating``) or reads ``none``;
    ``used`` names the used rows where they are a kind of row (``"paired rows used"``).  Empty
    for a result not fitted to rows of data.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from binaryeval._results import row_facts
    >>> row_facts(SimpleNamespace(n_rows=10, n_used=9, n_excluded=1,
    ...                           excluded={"missing group": 1, "other": 0}))
    {'rows': 10, 'rows used': 9, 'rows excluded': '1 missing group'}
    """
    if getattr(result, "n_rows", None) is None:
        return {}
    excluded = "; ".join(f"{int(n):,} {r}" for r, n in dict(result.excluded).items() if n)
    return {"rows": int(result.n_rows), used: int(result.n_used),
            "rows excluded": excluded or "none"}


class Result(ABC):
    """Base of every public result: the display protocol from ``summary()`` and ``to_frame()``.

    Examples
    --------
    >>> from binaryeval._results import Result
    >>> import pandas as pd
    >>> from binaryeval.summary import Summary
    >>> class Mean(Result):
    ...     def __init__(self, values):
    ...         self.values = list(values)
    ...     def to_frame(self):
    ...         return pd.DataFrame({"estimate": [sum(self.values) / len(self.values)]})
    ...     def summary(self):
    ...         return Summary("Mean", {"n": len(self.values)}, [("", self.to_frame())])
    ...     def _repr_fields(self):
    ...         return {"n": len(self.values)}
    >>> Mean([1, 2, 3])
    Mean(n=3)
    >>> print(Mean([1, 2, 3]))  # doctest: +NORMALIZE_WHITESPACE
    Mean
    ========================================
    n: 3
    ----------------------------------------
    estimate
      2.0000
    ========================================
    """

    __slots__ = ()

    @abstractmethod
    def summary(self) -> Summary:
        """The printable summary: facts, tables and notes."""

    @abstractmethod
    def to_frame(self) -> pd.DataFrame:
        """The tidy table of the result (``level`` and ``method`` in ``attrs`` where they apply)."""

    def _repr_fields(self) -> Mapping[str, Any]:
        """The few facts shown by ``repr()``; subclasses override."""
        return {}

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={_short(v)}" for k, v in self._repr_fields().items())
        return f"{type(self).__name__}({inner})"

    def __str__(self) -> str:
        return self.summary().as_text()

    def _repr_html_(self) -> str:
        return self.summary().as_html()

    def _repr_latex_(self) -> str:
        return self.summary().as_latex()


@dataclass(frozen=True, repr=False)
class TestResult(Result):
    """A hypothesis-test result that unpacks to ``(statistic, p_value)``.

    Other fields are reached by name; subclasses add them and extend :meth:`summary`.

    Examples
    --------
    >>> from binaryeval._results import TestResult
    >>> r = TestResult(statistic=1.5, p_value=0.13, method="demo")
    >>> stat, p = r
    >>> p
    0.13
    >>> r
    TestResult(statistic=1.5, p_value=0.13, method='demo')
    """

    __test__ = False  # not a pytest test class

    statistic: float
    p_value: float
    method: str = ""

    def __iter__(self) -> Iterator[float]:
        yield self.statistic
        yield self.p_value

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int) -> float:
        return (self.statistic, self.p_value)[i]

    def _asdict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def _repr_fields(self) -> Mapping[str, Any]:
        return {"statistic": self.statistic, "p_value": self.p_value, "method": self.method}

    def to_frame(self) -> pd.DataFrame:
        """One row with every field of the test."""
        import pandas as pd

        out = pd.DataFrame([self._asdict()])
        out.attrs.update(method=self.method)
        return out

    def summary(self) -> Summary:
        """Every field of the test as a fact list."""
        from .summary import Summary

        title = self.method or type(self).__name__
        return Summary(title, self._asdict())
