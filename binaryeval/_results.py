"""Small shared pieces of the result protocol."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

__all__ = ["TestResult"]


@dataclass(frozen=True)
class TestResult:
    """A hypothesis-test result that unpacks to ``(statistic, pvalue)``.

    Other fields are reached by name; subclasses add them.

    Examples
    --------
    >>> r = TestResult(statistic=1.5, pvalue=0.13, method="demo")
    >>> stat, p = r
    >>> p
    0.13
    """

    __test__ = False  # not a pytest test class

    statistic: float
    pvalue: float
    method: str = ""
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __iter__(self):
        yield self.statistic
        yield self.pvalue

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int) -> float:
        return (self.statistic, self.pvalue)[i]

    def _asdict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}
