"""Formulas ``lhs ~ rhs | g1 + g2``: parsing, checking and evaluation.

patsy would read ``metric | system`` as Python's bitwise *or* (and silently give numbers for integer
columns), so the top-level ``~`` and ``|`` are split here, the way R's ``Formula`` package and nlme's
``resp ~ cov | group`` do; each side is split into terms at its top-level ``+``.

What a term may contain
-----------------------
A formula is data: it may come from a command line or from someone else's file, so a term is never
run as Python code.  It is parsed with :mod:`ast` and the tree is evaluated here, node by node,
from an allow-list; anything else is refused with a :class:`~binaryeval.errors.FormulaError` that
puts a caret under the offending part.  A term may contain

- column names of the data (``mqm``), and ``Q("odd name")`` for a column whose name is no
  Python identifier;
- numbers and quoted strings (``I(system == "A")``), and ``np.pi``, ``np.e``, ``np.nan``,
  ``np.inf``;
- the arithmetic operators ``+ - * / // % **`` (``+`` inside brackets: a top-level ``+``
  separates terms), the comparisons ``== != < <= > >=`` (chained, ``0 < x < 1``, means both),
  and ``&``, ``|``, ``^``, ``~`` on conditions (inside brackets, e.g. ``I(~(x > 0))``);
- ``I(expression)`` (the expression's value) and ``C(column)`` (the column as categories: every
  distinct value is a group);
- the numpy functions of :data:`FUNCTIONS` (``log``, ``log1p``, ``exp``, ``sqrt``, ``abs``,
  ``clip``, ``isnan``, ``round``, ``floor``, ``ceil``, ``minimum``, ``maximum``, ``where``, ...),
  called bare (``log(x)``) or as ``np.log(x)`` / ``numpy.log(x)``, with arguments by position;
- from Python code, the caller's own variables (``I(chrf > cut)``; see ``eval_env`` of
  :func:`binaryeval.fit`) when they hold a number, string, date, array or Series: they are read as
  values, never called, and nothing of them is looked up.  The command line takes no variables.

Nothing else: no attribute access but ``np.<function>``, no name starting with ``__``, no Python
builtins (``open``, ``eval``, ``__import__``, ...), no indexing, ``lambda``, comprehensions,
``if``/``else``, ``and``/``or``/``not`` (use ``&``, ``|``, ``~``), ``:=``, f-strings, keyword
arguments, or calls of anything but the functions above.  patsy's stateful transforms
(``center``, ``standardize``) are not offered: on data read partition by partition they would
differ between partitions.  A column of the data wins over a variable of the same name.

A missing value in any column a term refers to gives a missing value of the term (``I(x > 0)``
is NaN, not False, where ``x`` is NaN): missing means "not rated".  Text is compared with text
only: a column holding text compared with a number (``I(mqm == 0)`` with ``mqm`` read as the
strings ``'0'``, ``'-1.5'``) is refused, since no text equals a number and the term would be the
same on every row; make such a column numeric first (``pd.to_numeric``).

Examples
--------
>>> from binaryeval.formula import parse_formula
>>> import pandas as pd
>>> df = pd.DataFrame({"mqm": [0, -2], "chrf": [0.6, 0.3], "system": ["A", "B"]})
>>> parse_formula('I(mqm == 0) ~ np.log(chrf) | system').evaluate(df).lhs.iloc[:, 0].tolist()
[True, False]
>>> parse_formula("open('x') ~ chrf").evaluate(df)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
binaryeval.errors.FormulaError: open() is not one of the functions a formula may call in term "open('x')"; a formula term may contain column names ...
    open('x') ~ chrf
    ^^^^
"""

from __future__ import annotations

import ast
import datetime
import difflib
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._validate import require_pandas
from .data import join_label, label_text
from .errors import DataError, FormulaError, InputTypeError, ParameterError

__all__ = ["CONSTANTS", "FUNCTIONS", "MAY_CONTAIN", "ModelFrame", "ParsedFormula", "VALUE_TYPES",
           "caller_namespace", "parse_formula", "value_names"]

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
            Variables the terms may read as values (a mapping), or a stack depth whose frame's
            variables are used (0: the first caller outside binaryeval, see
            :func:`caller_namespace`); ``{}`` for none.
        """
        require_pandas(data, "this call")
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
                texts = [label_text(g).tolist() for g in gcols]
                group = pd.Series([join_label(vals) for vals in zip(*texts, strict=True)],
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


# ---------------------------------------------------------------------------------------------
# what a term may contain, and its evaluation
# ---------------------------------------------------------------------------------------------

#: the numpy functions a term may call, bare (``log(x)``) or as ``np.log(x)`` / ``numpy.log(x)``
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "abs": np.abs, "absolute": np.absolute, "sign": np.sign, "sqrt": np.sqrt,
    "square": np.square, "exp": np.exp, "expm1": np.expm1, "log": np.log, "log2": np.log2,
    "log10": np.log10, "log1p": np.log1p, "power": np.power, "floor": np.floor, "ceil": np.ceil,
    "trunc": np.trunc, "rint": np.rint, "round": np.round, "clip": np.clip,
    "minimum": np.minimum, "maximum": np.maximum, "fmin": np.fmin, "fmax": np.fmax,
    "isnan": np.isnan, "isfinite": np.isfinite, "isinf": np.isinf, "where": np.where,
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_not": np.logical_not,
    "tanh": np.tanh, "arctanh": np.arctanh}

#: the numpy constants a term may use as ``np.pi`` / ``numpy.pi``
CONSTANTS: dict[str, float] = {"pi": np.pi, "e": np.e, "nan": np.nan, "inf": np.inf}

#: what a variable of the caller's code (``eval_env``) may hold to be used in a term
VALUE_TYPES: tuple[type, ...] = (bool, int, float, str, np.generic, np.ndarray, pd.Series,
                                 datetime.date, datetime.timedelta)

_MODULES = ("np", "numpy")
_OPERATORS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.USub: operator.neg, ast.UAdd: operator.pos,
                                            ast.Invert: operator.invert}
_COMPARISONS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge}

MAY_CONTAIN = (
    "a formula term may contain column names (Q(\"odd name\") for any column name), numbers and "
    "quoted strings, the operators + - * / // % ** and comparisons == != < <= > >=, & | ^ ~ on "
    "conditions, I(...), C(column), numpy's elementwise functions of "
    "binaryeval.formula.FUNCTIONS (log, log1p, exp, sqrt, abs, clip, isnan, round, floor, ceil, "
    "minimum, maximum, where, ...; bare or as np.log), np.pi, np.e, np.nan, np.inf, and, called "
    "from Python, your own variables holding a number, string, array or Series")


def _is_dunder(name: str) -> bool:
    """Names starting with ``__`` (``__import__``, ``__builtins__``) are never looked up."""
    return name.startswith("__")


class _Refused(Exception):
    """Raised inside the evaluator: what is wrong and the node it is wrong at."""

    def __init__(self, message: str, node: ast.AST | None, whole: bool = False):
        super().__init__(message)
        self.message = message
        self.node = node
        self.whole = whole  # the message says all (no list of what a term may contain)


def _span(code: str, node: ast.AST | None) -> tuple[int, int] | None:
    """Character offsets of ``node`` in ``code`` (the parser counts UTF-8 bytes)."""
    if node is None or not hasattr(node, "col_offset"):
        return None
    lines = code.splitlines(keepends=True) or [""]

    def offset(lineno: int, col: int) -> int:
        line = lines[min(lineno, len(lines)) - 1]
        before = sum(len(x) for x in lines[:min(lineno, len(lines)) - 1])
        return before + len(line.encode("utf-8")[:col].decode("utf-8", errors="ignore"))

    start = offset(node.lineno, node.col_offset)
    end = offset(node.end_lineno or node.lineno, node.end_col_offset or node.col_offset + 1)
    return start, max(end, start + 1)


def _parse_term(term: Term, formula: str) -> ast.expr:
    try:
        return ast.parse(term.code, mode="eval").body
    except SyntaxError as exc:
        pos = term.start + max((exc.offset or 1) - 1, 0)
        raise FormulaError(f"syntax error in term {term.code!r}: {exc.msg}", formula,
                           (min(pos, term.end - 1), term.end)) from None
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, nesting, huge literals
        raise FormulaError(f"term {term.code!r} cannot be read: {exc}", formula,
                           (term.start, term.end)) from None


def _function_name(node: ast.expr) -> str | None:
    """The name a call calls: ``f`` of ``f(...)``, ``np.f`` of ``np.f(...)``; None otherwise."""
    if isinstance(node, ast.Name):
        return node.id
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id in _MODULES):
        return f"{node.value.id}.{node.attr}"
    return None


def _check_tree(node: ast.expr) -> None:
    """Refuse anything in the term's tree that a formula may not contain (before evaluating)."""
    for sub in ast.walk(node):  # a name or attribute with "__" is refused wherever it stands
        if isinstance(sub, ast.Name) and _is_dunder(sub.id):
            raise _Refused(f"the name {sub.id!r} is not allowed (no names starting with '__'; "
                           f"write Q({sub.id!r}) for a column of that name)", sub)
        if isinstance(sub, ast.Attribute) and _is_dunder(sub.attr):
            raise _Refused(f"the attribute {sub.attr!r} is not allowed (no names starting with "
                           "'__', no attributes but np.<function>)", sub)
    _check_node(node)


def _check_node(node: ast.expr) -> None:
    if isinstance(node, ast.Name):
        if _is_dunder(node.id):
            raise _Refused(f"the name {node.id!r} is not allowed (no names starting with '__'; "
                           f"write Q({node.id!r}) for a column of that name)", node)
        return
    if isinstance(node, ast.Constant):
        if type(node.value) not in (int, float, bool, str):
            raise _Refused(f"the literal {node.value!r} is not allowed (numbers and quoted strings "
                           "only)", node)
        return
    if isinstance(node, ast.BinOp):
        if type(node.op) not in _OPERATORS:
            raise _Refused(f"the operator {type(node.op).__name__} is not allowed", node)
        _check_node(node.left)
        _check_node(node.right)
        return
    if isinstance(node, ast.UnaryOp):
        if type(node.op) not in _UNARY:
            raise _Refused("'not' is not allowed; negate a condition with ~, e.g. I(~(x > 0))",
                           node)
        _check_node(node.operand)
        return
    if isinstance(node, ast.Compare):
        for op in node.ops:
            if type(op) not in _COMPARISONS:
                raise _Refused(f"the comparison {type(op).__name__} is not allowed (== != < <= > >= "
                               "only)", node)
        _check_node(node.left)
        for c in node.comparators:
            _check_node(c)
        return
    if isinstance(node, ast.BoolOp):
        raise _Refused("'and'/'or' are not allowed; combine conditions with & and |, e.g. "
                       "I((x > 0) & (y < 1))", node)
    if isinstance(node, ast.Attribute):
        if (isinstance(node.value, ast.Name) and node.value.id in _MODULES
                and node.attr in CONSTANTS):
            return
        raise _Refused("attribute access is not allowed (only np.<function> of the functions "
                       "listed and np.pi, np.e, np.nan, np.inf)", node)
    if isinstance(node, ast.Call):
        name = _function_name(node.func)
        if name is None:
            raise _Refused("only I(), C(), Q() and the listed functions may be called", node.func)
        bare = name.split(".")[-1]
        if "." in name and bare not in FUNCTIONS:
            raise _Refused(f"{name} is not one of the functions a formula may call", node.func)
        if "." not in name and name not in ("I", "C", "Q") and name not in FUNCTIONS:
            if _is_dunder(name):
                raise _Refused(f"the name {name!r} is not allowed (no names starting with '__')", node.func)
            raise _Refused(f"{name}() is not one of the functions a formula may call", node.func)
        if node.keywords:
            raise _Refused("keyword arguments are not allowed; pass arguments by position",
                           node.keywords[0].value)
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise _Refused("*arguments are not allowed", arg)
        if name in ("I", "C") and len(node.args) != 1:
            raise _Refused(f"{name}() takes one expression, e.g. {name}(x)", node)
        if name == "Q":
            if len(node.args) != 1 or not (isinstance(node.args[0], ast.Constant)
                                           and isinstance(node.args[0].value, str)):
                raise _Refused('Q() takes one quoted column name, e.g. Q("odd name")', node)
            return
        for arg in node.args:
            _check_node(arg)
        return
    kind = {ast.Subscript: "indexing", ast.Lambda: "lambda", ast.IfExp: "'... if ... else ...'",
            ast.NamedExpr: "':='", ast.JoinedStr: "f-strings", ast.List: "lists",
            ast.Tuple: "tuples", ast.Dict: "dicts", ast.Set: "sets", ast.Starred: "'*'",
            ast.ListComp: "comprehensions", ast.SetComp: "comprehensions",
            ast.DictComp: "comprehensions", ast.GeneratorExp: "comprehensions",
            ast.Slice: "slices", ast.Await: "'await'", ast.Yield: "'yield'",
            ast.YieldFrom: "'yield'"}.get(type(node), type(node).__name__)
    raise _Refused(f"{kind} not allowed", node)


@dataclass
class _Evaluator:
    """Evaluates a checked term tree on ``data`` with the caller's values ``env``."""

    data: pd.DataFrame
    columns: dict[str, Any]
    env: dict[str, Any]
    used: list[str] = field(default_factory=list)
    #: where the caller's variables read by the term are missing (NaN), one mask each
    missing: list[np.ndarray] = field(default_factory=list)

    def value(self, node: ast.expr) -> Any:
        kind = type(node)
        if kind is ast.Name:
            return self._name(node)  # type: ignore[arg-type]
        if kind is ast.Constant:
            return node.value  # type: ignore[attr-defined]
        if kind is ast.Attribute:  # np.pi and the like (_check_tree refuses every other)
            return CONSTANTS[node.attr]  # type: ignore[attr-defined]
        if kind is ast.BinOp:
            return self._binop(node)  # type: ignore[arg-type]
        if kind is ast.UnaryOp:
            return _UNARY[type(node.op)](self.value(node.operand))  # type: ignore[attr-defined]
        if kind is ast.Compare:
            return self._compare(node)  # type: ignore[arg-type]
        if kind is ast.Call:
            return self._call(node)  # type: ignore[arg-type]
        raise _Refused(f"{kind.__name__} not allowed", node)  # _check_tree let nothing else by

    def _name(self, node: ast.Name) -> Any:
        name = node.id
        if name in self.columns:
            self.used.append(name)
            return self.data[self.columns[name]]
        if name in self.env:
            found = self.env[name]
            # type(), not isinstance(): nothing of the object is looked up
            if not issubclass(type(found), VALUE_TYPES):
                kind = found.kind if type(found) is _Unusable else type(found).__name__
                raise _Refused(f"the variable {name!r} is a {kind}; a formula "
                               "uses variables of your code only as values: a number, string, "
                               "array or Series", node)
            self._note_missing(name, found, node)
            return found
        if name in FUNCTIONS or name in ("I", "C", "Q"):
            raise _Refused(f"{name} is a function here: call it, e.g. {name}(x)", node)
        close = _close_matches(name, set(self.columns))
        hint = (f"; did you mean {close!r}?" if close
                else f"; the columns are {sorted(self.columns)[:12]}")
        raise _Refused(f"unknown name {name!r} in the formula (not a column of data){hint}", node)

    def _note_missing(self, name: str, found: Any, node: ast.Name) -> None:
        """Where a variable is missing, its term is missing too (as for a column).

        A Series must have the data's index: pandas would align any other by its labels and
        leave NaN where they differ, silently.
        """
        n = len(self.data)
        if type(found) is pd.Series:
            if not found.index.equals(self.data.index):
                raise _Refused(f"the variable {name!r} is a Series whose index is not the "
                               "data's (pandas would match its rows by label, leaving NaN where "
                               f"the labels differ); pass {name}.to_numpy() to use its values "
                               f"in row order, or {name}.reindex(data.index)", node,
                               whole=True)
            self.missing.append(found.isna().to_numpy())
        elif type(found) is np.ndarray:
            if found.ndim == 1 and found.shape[0] == n:
                self.missing.append(np.asarray(pd.isna(found), dtype=bool))
        elif issubclass(type(found), (float, np.floating)) and found != found:
            self.missing.append(np.ones(n, dtype=bool))

    def _binop(self, node: ast.BinOp) -> Any:
        left, right = self.value(node.left), self.value(node.right)
        op = type(node.op)
        if op is ast.Mult and (_is_text(left) or _is_text(right)):
            raise _Refused("text cannot be multiplied", node)
        if op is ast.Pow and _is_number(left) and _is_number(right):
            # exact integer powers of two literals can take unbounded time and memory
            with np.errstate(all="ignore"):
                return float(np.power(np.float64(left), np.float64(right)))
        return _OPERATORS[op](left, right)

    def _compare(self, node: ast.Compare) -> Any:
        left = self.value(node.left)
        out = None
        left_node = node.left
        for op, comp in zip(node.ops, node.comparators, strict=True):
            right = self.value(comp)
            _text_against_number(left, left_node, right, comp, node)
            part = _COMPARISONS[type(op)](left, right)
            # a < b < c holds where both comparisons hold, element by element
            out = part if out is None else out & part
            left, left_node = right, comp
        return out

    def _call(self, node: ast.Call) -> Any:
        name = _function_name(node.func)
        assert name is not None
        if name == "Q":
            column = node.args[0].value  # type: ignore[attr-defined]
            if column not in self.columns:
                raise _Refused(f"unknown column {column!r} in Q(...)", node.args[0])
            self.used.append(column)
            return self.data[self.columns[column]]
        args = [self.value(a) for a in node.args]
        if name in ("I", "C"):
            # C(x): the values are the categories (grouping treats every distinct value as one)
            return args[0]
        return FUNCTIONS[name.split(".")[-1]](*args)


def _holds_text(value: Any) -> bool:
    """Whether a column or array holds text (strings among its values, missing ones aside)."""
    if not isinstance(value, (pd.Series, np.ndarray)) or not _is_text(value):
        return False
    kind = pd.api.types.infer_dtype(value, skipna=True)
    return kind in ("string", "mixed", "mixed-integer", "mixed-integer-float")


def _text_against_number(left: Any, left_node: ast.AST, right: Any, right_node: ast.AST,
                         node: ast.Compare) -> None:
    """Refuse comparing text with a number.

    pandas answers False (or True for ``!=``) on every row, so ``I(mqm == 0)`` on a column of
    numbers read as text would rate every output alike without a word.
    """
    for text, text_node, other in ((left, left_node, right), (right, right_node, left)):
        number = _is_number(other) or (isinstance(other, (pd.Series, np.ndarray))
                                       and pd.api.types.is_numeric_dtype(other.dtype)
                                       and not pd.api.types.is_bool_dtype(other.dtype))
        if not (number and _holds_text(text)):
            continue
        shown = pd.Series(np.asarray(text, dtype=object)).dropna()
        shown = shown[shown.map(lambda x: isinstance(x, str))].unique()[:3]
        name = (text_node.id if isinstance(text_node, ast.Name)
                else ast.unparse(text_node))
        raise _Refused(f"{name!r} holds text ({', '.join(repr(x) for x in shown)}) and is "
                       "compared with a number: text never equals a number, so the term "
                       "would be the same for every row; make the column numeric first, e.g. "
                       f"data[{name!r}] = pd.to_numeric(data[{name!r}]), or compare it "
                       "with text (quoted)", node, whole=True)


def _is_text(value: Any) -> bool:
    if isinstance(value, (str, np.str_)):
        return True
    if not isinstance(value, (pd.Series, np.ndarray)):
        return False
    return not (pd.api.types.is_numeric_dtype(value.dtype)
                or pd.api.types.is_bool_dtype(value.dtype))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.number, np.bool_)) and not isinstance(value, np.ndarray)


@dataclass(frozen=True)
class _Unusable:
    """Stands for a caller's variable that is no value (a module, function, frame, ...)."""

    kind: str


def caller_namespace(depth: int = 0) -> dict[str, Any]:
    """The variables of the caller's code: the one way every formula path captures them.

    ``depth`` 0 is the frame of the first caller outside binaryeval (the user's line, however
    many of the package's functions lie in between), 1 the frame that called that one, and so
    on (as patsy's ``eval_env``, counted from the user's code).  Its globals and locals, the
    locals winning; none when the stack is not that deep.

    Examples
    --------
    >>> from binaryeval.formula import caller_namespace
    >>> cut = 0.5
    >>> caller_namespace()["cut"]
    0.5
    """
    from ._warnings import user_frame

    if depth < 0:
        raise ParameterError(f"eval_env={depth}: a stack depth is 0 (your code) or more")
    frame = user_frame(depth)
    if frame is None:
        return {}
    return {**frame.f_globals, **frame.f_locals}


def _environment(eval_env: int | dict | None) -> dict[str, Any]:
    """The caller's variables a term may read as values.

    Names starting with ``__`` are left out; a variable that is not a number, string, array or
    Series is replaced by a marker naming its type (so a term using it is refused, and nothing
    of it travels to the workers of a Dask cluster).
    """
    if isinstance(eval_env, dict):
        names = dict(eval_env)
    elif isinstance(eval_env, int) and not isinstance(eval_env, bool):
        names = caller_namespace(eval_env)
    elif eval_env is None:
        names = {}
    else:
        raise InputTypeError(f"eval_env={eval_env!r}: give a mapping of variable names (e.g. "
                             "{'cut': 0.5}), {} for none, or a stack depth (0: your code)")
    return {k: v if type(v) is _Unusable or issubclass(type(v), VALUE_TYPES)
            else _Unusable(type(v).__name__)
            for k, v in names.items() if isinstance(k, str) and not _is_dunder(k)}


def value_names(code: str) -> list[str]:
    """The names a term reads as values (columns or variables) and its ``Q("...")`` columns.

    Function names and ``np`` are not among them; a term that cannot be parsed has none.

    Examples
    --------
    >>> from binaryeval.formula import value_names
    >>> value_names('I(h == 1) + np.log(x) + Q("odd name") + log(cut)')
    ['h', 'x', 'odd name', 'cut']
    """
    try:
        tree = ast.parse(code, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and id(node) not in called and node.id not in _MODULES:
            out.append((node.col_offset, node.id))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "Q" and node.args and isinstance(node.args[0], ast.Constant)):
            out.append((node.col_offset, str(node.args[0].value)))
    return list(dict.fromkeys(name for _, name in sorted(out, key=lambda x: x[0])))


def _eval_term(term: Term, data: pd.DataFrame, env: dict[str, Any], formula: str) -> pd.Series:
    """Evaluate one term on ``data``; never runs the term's text as Python code."""
    columns = {c: c for c in data.columns if isinstance(c, str)}
    variables_missing: list[np.ndarray] = []
    if term.code in columns:
        values = data[term.code]
        used: list[str] = []
    else:
        tree = _parse_term(term, formula)
        evaluator = _Evaluator(data, columns, env)
        try:
            _check_tree(tree)
            with np.errstate(all="ignore"):
                values = evaluator.value(tree)
        except _Refused as exc:
            span = _span(term.code, exc.node)
            where = (term.start, term.end) if span is None else (term.start + span[0],
                                                                 term.start + span[1])
            message = exc.message if exc.whole or exc.message.startswith("unknown ") else (
                f"{exc.message} in term {term.code!r}; {MAY_CONTAIN}")
            raise FormulaError(message, formula, where) from None
        except RecursionError:
            raise FormulaError(f"term {term.code!r} is nested too deeply", formula,
                               (term.start, term.end)) from None
        except Exception as exc:  # evaluation errors of the user's expression (types, shapes)
            raise FormulaError(f"could not evaluate term {term.code!r}: {type(exc).__name__}: "
                               f"{exc}", formula, (term.start, term.end)) from None
        used = evaluator.used
        variables_missing = evaluator.missing
    if np.isscalar(values):
        values = pd.Series(values, index=data.index)
    values = pd.Series(np.asarray(values) if not isinstance(values, pd.Series) else values,
                       index=data.index, name=term.code)
    if len(values) != len(data):
        raise FormulaError(f"term {term.code!r} gave {len(values)} values for {len(data)} rows",
                           formula, (term.start, term.end))
    if used or variables_missing:
        missing = (data[list(dict.fromkeys(used))].isna().any(axis=1) if used
                   else pd.Series(False, index=data.index))
        for mask in variables_missing:
            missing |= mask
        if missing.any():
            values = values.astype(object) if values.dtype == bool else values.astype(float, errors="ignore")
            values = values.where(~missing, np.nan)
    return values


def _close_matches(name: str, columns: set[str]) -> str | None:
    lower = {c.lower(): c for c in columns}
    if name.lower() in lower:
        return lower[name.lower()]
    hits = difflib.get_close_matches(name, list(columns), n=1)
    return hits[0] if hits else None


def parse_formula(formula: str, *, allow_groups: bool = True, allow_multiple_rhs: bool = True,
                  allow_intercept_rhs: bool = True,
                  example: str = "human ~ metric | system") -> ParsedFormula:
    """Parse ``"lhs ~ rhs | g1 + g2"``.

    Parameters
    ----------
    formula : str
        The formula.  ``rhs`` may be ``1`` for "no metric".
    allow_groups, allow_multiple_rhs, allow_intercept_rhs : bool
        What the calling model accepts; violations raise :class:`FormulaError`.
    example : str
        A formula the calling model takes, shown by the errors of a formula with no ``~``
        (``"human ~ judge"`` for a model that takes no ``| group`` part).

    Returns
    -------
    ParsedFormula

    Examples
    --------
    >>> from binaryeval.formula import parse_formula
    >>> f = parse_formula("I(mqm == 0) ~ I(chrf > 0.5) | system")
    >>> f.lhs_names, f.rhs_names, f.group_names
    (['I(mqm == 0)'], ['I(chrf > 0.5)'], ['system'])
    """
    if not isinstance(formula, str):
        raise FormulaError(f"the formula must be a string like {example!r}, "
                           f"got {type(formula).__name__}")
    text = formula
    if not text.strip():
        raise FormulaError(f"the formula is empty; write it like {example!r}")
    _check_brackets(text)
    tildes = _top_level_positions(text, "~")
    if not tildes:
        raise FormulaError(f"the formula has no '~'; write it like {example!r}", text)
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
        _parse_term(term, text)  # syntax checked here; what the term may contain, when evaluated
    return ParsedFormula(text, lhs, rhs, groups)
