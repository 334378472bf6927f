"""Formulas ``lhs ~ rhs | g1 + g2``: parsing, checking and evaluation.

patsy would read ``metric | system`` as Python's bitwise *or* (and silently give numbers for integer
columns), so the top-level ``~`` and ``|`` are split here, the way R's ``Formula`` package and nlme's
``resp ~ cov | group`` do.  Each term is then evaluated with patsy's evaluation environment, so
``I(mqm == 0)``, ``np.log(x)``, ``Q("odd name")`` and ``C(x)`` work as in patsy formulas.

A missing value in any column a term refers to gives a missing value of the term (``I(x > 0)``
is NaN, not False, where ``x`` is NaN): missing means "not rated".
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .errors import DataError, FormulaError

__all__ = ["ParsedFormula", "ModelFrame", "parse_formula"]

_OPEN = "([{"
_CLOSE = ")]}"


def _top_level_positions(text: str, char: str) -> list[int]:
    """Offsets of ``char`` outside brackets and string literals."""
    depth = 0
    quote: str | None = None
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        elif c == char and depth == 0:
            # "||" and "|=" are not the grouping bar; "~" inside comparisons does not occur
            out.append(i)
        i += 1
    return out


def _check_brackets(text: str) -> None:
    stack: list[tuple[str, int]] = []
    quote: str | None = None
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
            continue
        if c in "\"'":
            quote = c
        elif c in _OPEN:
            stack.append((c, i))
        elif c in _CLOSE:
            if not stack or _OPEN.index(stack[-1][0]) != _CLOSE.index(c):
                raise FormulaError(f"unmatched {c!r} in the formula", text, i)
            stack.pop()
    if stack:
        raise FormulaError(f"unclosed {stack[-1][0]!r} in the formula", text, stack[-1][1])


@dataclass(frozen=True)
class Term:
    """One term of a formula side: its code and its place in the formula text."""

    code: str
    start: int
    end: int


def _split_terms(text: str, offset: int, formula: str, side: str) -> list[Term]:
    cuts = _top_level_positions(text, "+")
    pieces = []
    prev = 0
    for cut in [*cuts, len(text)]:
        raw = text[prev:cut]
        stripped = raw.strip()
        lead = len(raw) - len(raw.lstrip())
        start = offset + prev + lead
        if not stripped:
            raise FormulaError(f"empty term on the {side} side of the formula", formula,
                               (offset + prev, offset + max(cut, prev + 1)))
        pieces.append(Term(stripped, start, start + len(stripped)))
        prev = cut + 1
    return pieces


@dataclass(frozen=True)
class ParsedFormula:
    """A parsed ``lhs ~ rhs | groups`` formula.

    Attributes
    ----------
    text : str
        The formula as given.
    lhs : list of Term
        Left-hand terms (one for most models).
    rhs : list of Term
        Right-hand terms; empty when the right side is ``1`` (no metric).
    groups : list of Term
        Grouping terms after ``|``; empty for a single group.
    """

    text: str
    lhs: list[Term]
    rhs: list[Term]
    groups: list[Term] = field(default_factory=list)

    @property
    def lhs_names(self) -> list[str]:
        """The left-hand terms as written."""
        return [t.code for t in self.lhs]

    @property
    def rhs_names(self) -> list[str]:
        """The right-hand terms as written (empty for ``1``)."""
        return [t.code for t in self.rhs]

    @property
    def group_names(self) -> list[str]:
        """The grouping terms after ``|``."""
        return [t.code for t in self.groups]

    def evaluate(self, data: pd.DataFrame, eval_env: int | dict | None = 0) -> ModelFrame:
        """Evaluate every term on ``data``.

        Parameters
        ----------
        data : DataFrame
            The data; names in the formula are looked up here first.
        eval_env : int or dict, optional
            Extra names for the expressions (a mapping), or a stack depth as in patsy.
        """
        if not isinstance(data, pd.DataFrame):
            raise DataError(f"data must be a pandas DataFrame, got {type(data).__name__}; "
                            "wrap it with pd.DataFrame(...)")
        if len(data) == 0:
            raise DataError("data has no rows: nothing to fit")
        env = _environment(eval_env)
        lhs = pd.DataFrame({t.code: _eval_term(t, data, env, self.text) for t in self.lhs},
                           index=data.index)
        rhs = pd.DataFrame({t.code: _eval_term(t, data, env, self.text) for t in self.rhs},
                           index=data.index)
        if self.groups:
            gcols = [_eval_term(t, data, env, self.text) for t in self.groups]
            for t, g in zip(self.groups, gcols, strict=True):
                if g.isna().all():
                    raise DataError(f"grouping column {t.code!r} is missing (NaN) in every row; "
                                    "fill it or drop it from the formula")
            if len(gcols) == 1:
                group = gcols[0].rename(self.groups[0].code)
            else:
                missing = pd.concat(gcols, axis=1).isna().any(axis=1)
                group = pd.Series([":".join(str(v) for v in vals) for vals in zip(*gcols, strict=True)],
                                  index=data.index, name=":".join(self.group_names))
                group[missing] = np.nan
        else:
            group = None
        return ModelFrame(self, lhs, rhs, group)


@dataclass(frozen=True)
class ModelFrame:
    """The evaluated sides of a formula (one column per term)."""

    formula: ParsedFormula
    lhs: pd.DataFrame
    rhs: pd.DataFrame
    group: pd.Series | None


def _environment(eval_env: int | dict | None) -> dict[str, Any]:
    import patsy
    import patsy.builtins as pb

    env: dict[str, Any] = {"np": np, "numpy": np}
    env.update({k: getattr(pb, k) for k in pb.__all__})
    if isinstance(eval_env, dict):
        env.update(eval_env)
    elif isinstance(eval_env, int):
        captured = patsy.EvalEnvironment.capture(eval_env + 2)
        for ns in reversed(captured._namespaces):
            env.update({k: v for k, v in ns.items() if not k.startswith("__")})
    return env


def _names_in(code: str) -> list[tuple[str, int]]:
    tree = ast.parse(code, mode="eval")
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.append((node.id, node.col_offset))
    return sorted(out, key=lambda x: x[1])


def _quoted_columns(code: str) -> list[str]:
    """Column names used through ``Q("...")``."""
    tree = ast.parse(code, mode="eval")
    out = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Q"
                and node.args and isinstance(node.args[0], ast.Constant)):
            out.append(str(node.args[0].value))
    return out


def _eval_term(term: Term, data: pd.DataFrame, env: dict[str, Any], formula: str) -> pd.Series:
    try:
        names = _names_in(term.code)
    except SyntaxError as exc:
        pos = term.start + max((exc.offset or 1) - 1, 0)
        raise FormulaError(f"syntax error in term {term.code!r}: {exc.msg}", formula,
                           (min(pos, term.end - 1), term.end)) from None
    columns = set(map(str, data.columns))
    used_cols = []
    for name, col in names:
        if name in columns:
            used_cols.append(name)
        elif name not in env and not hasattr(builtins, name):
            close = _close_matches(name, columns)
            hint = f"; did you mean {close!r}?" if close else f"; the columns are {sorted(columns)[:12]}"
            raise FormulaError(f"unknown name {name!r} in the formula (not a column of data){hint}",
                               formula, (term.start + col, term.start + col + len(name)))
    for qname in _quoted_columns(term.code):
        if qname not in columns:
            raise FormulaError(f"unknown column {qname!r} in Q(...)", formula, (term.start, term.end))
        used_cols.append(qname)
    if term.code in columns:
        values = data[term.code]
    else:
        namespace = dict(env)
        namespace.update({c: data[c] for c in data.columns if isinstance(c, str)})
        import patsy.builtins as pb

        namespace["Q"] = lambda name: data[name]
        namespace["I"] = pb.I
        try:
            values = eval(compile(term.code, "<formula>", "eval"), {"__builtins__": builtins}, namespace)
        except Exception as exc:  # evaluation errors of user expressions
            raise FormulaError(f"could not evaluate term {term.code!r}: {type(exc).__name__}: {exc}",
                               formula, (term.start, term.end)) from None
    if np.isscalar(values):
        values = pd.Series(values, index=data.index)
    values = pd.Series(np.asarray(values) if not isinstance(values, pd.Series) else values,
                       index=data.index, name=term.code)
    if len(values) != len(data):
        raise FormulaError(f"term {term.code!r} gave {len(values)} values for {len(data)} rows",
                           formula, (term.start, term.end))
    if used_cols and term.code not in columns:
        missing = data[list(dict.fromkeys(used_cols))].isna().any(axis=1)
        if missing.any():
            values = values.astype(object) if values.dtype == bool else values.astype(float, errors="ignore")
            values = values.where(~missing, np.nan)
    return values


def _close_matches(name: str, columns: set[str]) -> str | None:
    import difflib

    lower = {c.lower(): c for c in columns}
    if name.lower() in lower:
        return lower[name.lower()]
    hits = difflib.get_close_matches(name, list(columns), n=1)
    return hits[0] if hits else None


def parse_formula(formula: str, *, allow_groups: bool = True, allow_multiple_rhs: bool = True,
                  allow_intercept_rhs: bool = True) -> ParsedFormula:
    """Parse ``"lhs ~ rhs | g1 + g2"``.

    Parameters
    ----------
    formula : str
        The formula.  ``rhs`` may be ``1`` for "no metric".
    allow_groups, allow_multiple_rhs, allow_intercept_rhs : bool
        What the calling model accepts; violations raise :class:`FormulaError`.

    Returns
    -------
    ParsedFormula

    Examples
    --------
    >>> f = parse_formula("I(mqm == 0) ~ I(chrf > 0.5) | system")
    >>> f.lhs_names, f.rhs_names, f.group_names
    (['I(mqm == 0)'], ['I(chrf > 0.5)'], ['system'])
    """
    if not isinstance(formula, str):
        raise FormulaError(f"the formula must be a string like 'human ~ metric | system', "
                           f"got {type(formula).__name__}")
    text = formula
    if not text.strip():
        raise FormulaError("the formula is empty; write it like 'human ~ metric | system'")
    _check_brackets(text)
    tildes = _top_level_positions(text, "~")
    if not tildes:
        raise FormulaError("the formula has no '~'; write it like 'human ~ metric | system'", text)
    if len(tildes) > 1:
        raise FormulaError("the formula has more than one '~'", text, tildes[1])
    t = tildes[0]
    left, right = text[:t], text[t + 1:]
    if not left.strip():
        raise FormulaError("nothing left of '~': name the human rating column", text, t)
    bars = [b + t + 1 for b in _top_level_positions(right, "|")]
    # '||' is never a grouping bar
    for b in bars:
        if b + 1 < len(text) and text[b + 1] == "|":
            raise FormulaError("'||' is not allowed; use a single '|' before the grouping columns",
                               text, (b, b + 2))
    if len(bars) > 1:
        raise FormulaError("the formula has more than one top-level '|'", text, bars[1])
    if bars and not allow_groups:
        raise FormulaError("this model takes no grouping ('| group') part", text, bars[0])
    rhs_text = right if not bars else text[t + 1:bars[0]]
    if not rhs_text.strip():
        raise FormulaError("nothing right of '~': name the metric column or write 1", text,
                           (t, t + 1))
    lhs = _split_terms(left, 0, text, "left")
    rhs = _split_terms(rhs_text, t + 1, text, "right")
    groups: list[Term] = []
    if bars:
        gtext = text[bars[0] + 1:]
        if not gtext.strip():
            raise FormulaError("nothing after '|': name the grouping column(s)", text, bars[0])
        groups = _split_terms(gtext, bars[0] + 1, text, "grouping")
    if len(rhs) == 1 and rhs[0].code in ("1", "0"):
        if not allow_intercept_rhs:
            raise FormulaError("this model needs metric columns on the right of '~'", text,
                               (rhs[0].start, rhs[0].end))
        rhs = []
    elif any(r.code in ("1", "0") for r in rhs):
        bad = next(r for r in rhs if r.code in ("1", "0"))
        raise FormulaError("'1' or '0' can only stand alone on the right side", text,
                           (bad.start, bad.end))
    if len(rhs) > 1 and not allow_multiple_rhs:
        raise FormulaError("this model takes one metric on the right of '~'", text,
                           (rhs[1].start, rhs[-1].end))
    for term in [*lhs, *rhs, *groups]:
        try:
            ast.parse(term.code, mode="eval")
        except SyntaxError as exc:
            pos = term.start + max((exc.offset or 1) - 1, 0)
            raise FormulaError(f"syntax error in term {term.code!r}: {exc.msg}", text,
                               (min(pos, term.end - 1), term.end)) from None
    return ParsedFormula(text, lhs, rhs, groups)
