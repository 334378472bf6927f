"""A formula on one partition of the data: its terms evaluated, its group labels coded.

The models need only counts (or sums) per group, so a data frame is read partition by
partition: a pandas frame is one partition, a Dask frame many.  The functions here are what each
partition runs, the same for both; what needs every row (a column missing everywhere, the order
of the groups) is decided after the partitions are summarised and merged.

Group labels are those :class:`~binaryeval.formula.ParsedFormula.evaluate` gives: the text of
the value for one grouping column (:func:`binaryeval.data.label_text`), the values' text joined
by ``":"`` for several (:func:`binaryeval.data.join_label`, which quotes a value holding ``":"``,
so that two rows share a label only when their values do); a row missing any grouping value has
no group.  They are found per distinct value (``pandas.factorize``), not per row.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np
import pandas as pd

from .data import join_label, label_text
from .formula import ParsedFormula, _environment, _eval_term, value_names

__all__ = ["code_groups", "evaluate_terms", "formula_env", "grouping_columns", "merge_kinds",
           "merge_labels", "referenced_names", "say_merged_labels", "value_kinds"]


def referenced_names(parsed: ParsedFormula) -> list[str]:
    """Every name the formula's terms read: columns, the caller's variables, ``Q("...")`` columns.

    Functions (``I``, ``np.log``, ...) are not names read.

    Examples
    --------
    >>> from binaryeval._partition import referenced_names
    >>> from binaryeval.formula import parse_formula
    >>> referenced_names(parse_formula("I(h == 1) ~ np.log(x) | g"))
    ['h', 'x', 'g']
    """
    names: list[str] = []
    for term in [*parsed.lhs, *parsed.rhs, *parsed.groups]:
        names += value_names(term.code)
    return list(dict.fromkeys(names))


def grouping_columns(parsed: ParsedFormula) -> list[str]:
    """The columns the grouping terms name as they are: ``g``, ``Q("odd name")``, ``C(g)``.

    These hold names (systems, prompts, domains), to be read from a text file as written
    (:func:`binaryeval.read_table`'s ``string_columns``).  ``I(g)`` names ``g`` as it is too,
    and a term that joins text (a string literal in it: ``I(system + "/" + lp)``) reads its
    columns as text; a grouping term that computes on values (``I(year > 2020)``) reads its
    columns as values and is left out.

    Examples
    --------
    >>> from binaryeval._partition import grouping_columns
    >>> from binaryeval.formula import parse_formula
    >>> grouping_columns(parse_formula('h ~ m | system + C(domain) + Q("lp x") + I(year > 2020)'))
    ['system', 'domain', 'lp x']
    >>> grouping_columns(parse_formula('h ~ m | I(system) + I(team + "/" + lp)'))
    ['system', 'team', 'lp']
    """
    def call_of(node, name):
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == name and len(node.args) == 1 and not node.keywords)

    out = []
    for term in parsed.groups:
        try:
            node = ast.parse(term.code.strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if call_of(node, "C") or call_of(node, "I"):
            inner = node.args[0]
            if isinstance(inner, ast.Name) or call_of(inner, "Q"):
                node = inner
            elif any(isinstance(n, ast.Constant) and isinstance(n.value, str)
                     for n in ast.walk(inner)):
                # text joined from columns: the columns are names, read as written
                out += value_names(term.code)
                continue
        if isinstance(node, ast.Name):
            out.append(node.id)
        elif (call_of(node, "Q") and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            out.append(node.args[0].value)
    return list(dict.fromkeys(out))


def formula_env(parsed: ParsedFormula, eval_env: int | dict) -> dict[str, Any]:
    """The names the formula's expressions may use, restricted to those it mentions.

    Parameters
    ----------
    parsed : ParsedFormula
    eval_env : int or dict
        A mapping of names, or a stack depth as in patsy: 0 is the frame that called into
        binaryeval (the user's code, however many of the package's functions lie in between),
        1 the frame that called that one, and so on.

    Returns
    -------
    dict
        Small enough to send with every partition's task (a frame's other variables, such as
        the data themselves, are left behind).

    Examples
    --------
    >>> from binaryeval._partition import formula_env
    >>> from binaryeval.formula import parse_formula
    >>> cut = 0.5
    >>> env = formula_env(parse_formula("h ~ I(s > cut)"), {"cut": cut, "other": 1})
    >>> sorted(k for k in env if k in ("cut", "other"))
    ['cut']
    """
    full = _environment(eval_env)
    wanted = set(referenced_names(parsed))
    return {k: v for k, v in full.items() if k in wanted}


def evaluate_terms(parsed: ParsedFormula, data: pd.DataFrame, env: dict[str, Any]
                   ) -> tuple[list[pd.Series], list[pd.Series], list[pd.Series]]:
    """The left, right and grouping terms evaluated on ``data`` (one Series per term).

    Parameters
    ----------
    parsed : ParsedFormula
    data : DataFrame
        One partition (it may have no rows).
    env : dict
        Names for the expressions (from :func:`formula_env`).

    Returns
    -------
    (list of Series, list of Series, list of Series)

    Raises
    ------
    FormulaError
        Unknown names, expressions that fail.

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval._partition import evaluate_terms
    >>> from binaryeval.formula import parse_formula
    >>> df = pd.DataFrame({"h": [1, 0], "s": [0.2, 0.8], "g": ["a", "b"]})
    >>> lhs, rhs, groups = evaluate_terms(parse_formula("h ~ I(s > 0.5) | g"), df, {})
    >>> rhs[0].tolist(), groups[0].tolist()
    ([False, True], ['a', 'b'])
    """
    full = _environment(env)

    def side(terms):
        return [_eval_term(t, data, full, parsed.text) for t in terms]

    return side(parsed.lhs), side(parsed.rhs), side(parsed.groups)


def _factorize(values: pd.Series, kinds: list | None = None) -> tuple[np.ndarray, pd.Series]:
    """Codes (-1 for missing) and distinct values in order of first appearance.

    Mixed Python objects are compared by their text, so that ``1`` and ``True`` (equal as
    numbers) stay two groups, as their labels do; a categorical column by its values' text
    (each category's own text: integer categories are ``"1"`` whether or not a value is
    missing).
    """
    if isinstance(values.dtype, pd.CategoricalDtype):
        if kinds is not None:
            kinds.append(None)
        # the categories' text once, then the rows' integer codes (the same codes and labels
        # as the text of every row: a value's text depends on the value alone)
        # (and the first row of each category, so that the rows are read twice, not hashed)
        text_codes, texts = pd.factorize(label_text(pd.Series(values.cat.categories,
                                                              dtype=object)))
        cat = np.asarray(values.cat.codes).astype(np.intp) + 1    # 0: missing
        n = cat.size
        first_row = np.full(len(text_codes) + 1, n, dtype=np.intp)
        np.minimum.at(first_row, cat, np.arange(n, dtype=np.intp))
        # each text's first row (categories with one text share it), texts in that order
        first_text = np.full(len(texts), n, dtype=np.intp)
        np.minimum.at(first_text, np.asarray(text_codes, dtype=np.intp), first_row[1:])
        order = np.argsort(first_text, kind="stable")
        order = order[first_text[order] < n]
        new_code = np.full(len(texts), -1, dtype=np.intp)
        new_code[order] = np.arange(order.size, dtype=np.intp)
        lookup = np.r_[-1, new_code[np.asarray(text_codes, dtype=np.intp)]]
        return lookup[cat], pd.Series(np.asarray(texts, dtype=object)[order], dtype=object)
    if values.dtype == object:
        if kinds is None:
            say_merged_labels([values.name], [value_kinds(values)])
        else:
            kinds.append(value_kinds(values))
        codes, uniques = pd.factorize(label_text(values))
    else:
        if kinds is not None:
            kinds.append(None)
        codes, uniques = pd.factorize(values)
    return codes.astype(np.intp, copy=False), pd.Series(uniques)


def value_kinds(values: pd.Series) -> dict[str, list[str]]:
    """The distinct values of an object column by their text: text -> the values (shown with type).

    Values are told apart by their text (:func:`~binaryeval.data.label_text`); a text with two
    entries is two values read as one group (``1`` and ``"1"``).  Kept per partition and merged
    (:func:`merge_kinds`), so that a Dask frame's partitions find what one pandas frame finds.

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval._partition import value_kinds
    >>> value_kinds(pd.Series([1, "1", "a", None], dtype=object))
    {'1': ['1 (int)', "'1' (str)"], 'a': ["'a' (str)"]}
    """
    out: dict[str, list[str]] = {}
    for v in pd.unique(values.dropna().to_numpy()):
        shown = f"{v!r} ({type(v).__name__})"
        seen = out.setdefault(str(v), [])
        if shown not in seen:
            seen.append(shown)
    return out


def merge_kinds(first: list | None, second: list | None) -> list | None:
    """The :func:`value_kinds` of each grouping column over two sets of rows, in row order."""
    if first is None or second is None:
        return second if first is None else first
    out = []
    for a, b in zip(first, second, strict=True):
        if a is None or b is None:
            out.append(b if a is None else a)
            continue
        merged = {k: list(v) for k, v in a.items()}
        for text, shown in b.items():
            seen = merged.setdefault(text, [])
            seen.extend(x for x in shown if x not in seen)
        out.append(merged)
    return out


def say_merged_labels(names: list, kinds: list | None) -> None:
    """Warn when distinct values of a grouping column print alike (``1`` and ``"1"``).

    Groups are told apart by their text (:func:`~binaryeval.data.label_text`), so such values
    are one group: right for ids read from two sources, wrong for two batches whose systems
    happen to share a name; said, with the values, once per column.  ``kinds`` holds each
    column's :func:`value_kinds` (None: not an object column).
    """
    from ._warnings import warn
    from .errors import BinaryEvalWarning

    for name, kind in zip(names, kinds or [], strict=False):
        merged = [shown for shown in (kind or {}).values() if len(shown) > 1]
        if not merged:
            continue
        shown = "; ".join(" and ".join(vs[:3]) for vs in merged[:3])
        column = f"grouping column {name!r}" if name is not None else "a grouping column"
        warn(f"{column}: {shown} print alike and are read as one group (groups are told apart "
             "by their text); if they are different groups, give them different names",
             BinaryEvalWarning)


def code_groups(columns: list[pd.Series], kinds: list | None = None
                ) -> tuple[np.ndarray, list[str]]:
    """Group code of every row (-1: a grouping value is missing) and the labels.

    Labels come in order of first appearance.

    Parameters
    ----------
    columns : list of Series
        The evaluated grouping terms (at least one), aligned.
    kinds : list, optional
        Receives each column's :func:`value_kinds` (None for a column that is not of objects),
        for the caller to say merged values once all partitions are in
        (:func:`say_merged_labels`); without it they are said at once.

    Returns
    -------
    (ndarray of intp, list of str)
        ``labels[codes[i]]`` is row ``i``'s label: ``str`` of the value for one column, the
        values' ``str`` joined by :func:`~binaryeval.data.join_label` for several (as
        :meth:`ParsedFormula.evaluate`).  Distinct values with the same text share a label.

    Examples
    --------
    >>> import pandas as pd
    >>> from binaryeval._partition import code_groups
    >>> g = pd.Series(["b", "a", None, "b"])
    >>> code_groups([g])
    (array([ 0,  1, -1,  0]), ['b', 'a'])
    >>> code_groups([g, pd.Series([1, 1, 2, 2])])
    (array([ 0,  1, -1,  2]), ['b:1', 'a:1', 'b:2'])
    >>> code_groups([pd.Series(["x:y", "x"]), pd.Series(["z", "y:z"])])[1]
    ["'x:y':z", "x:'y:z'"]
    """
    factors = [_factorize(c, kinds) for c in columns]
    if len(factors) == 1:
        codes, uniques = factors[0]
        labels = uniques.astype(str).tolist() if len(uniques) else []
    else:
        missing = np.zeros(len(columns[0]), dtype=bool)
        combined = np.zeros(len(columns[0]), dtype=np.int64)
        for c, u in factors:
            missing |= c < 0
            # re-coded after each column, so the combined code stays below the number of rows
            combined = pd.factorize(combined * max(len(u), 1) + np.maximum(c, 0))[0]
        rows = np.flatnonzero(~missing)
        sub, _ = pd.factorize(combined[rows])
        codes = np.full(len(combined), -1, dtype=np.intp)
        codes[rows] = sub
        first = rows[np.unique(sub, return_index=True)[1]]  # the first row of each group
        texts = [[str(v) for v in u.iloc[c[first]]] for c, u in factors]
        labels = [join_label(parts) for parts in zip(*texts, strict=True)]
    codes = codes.astype(np.intp, copy=False)
    # distinct values with the same text (1 and 1.0 in different columns' joins) share a label
    if len(set(labels)) < len(labels):
        relabel, distinct = pd.factorize(np.asarray(labels, dtype=object))
        codes = np.where(codes >= 0, relabel[np.maximum(codes, 0)], -1)
        labels = [str(v) for v in distinct]
    return codes, labels


def merge_labels(first: list[str], second: list[str]) -> tuple[list[str], np.ndarray]:
    """The labels of two partitions in order of first appearance, and where ``second``'s go.

    Examples
    --------
    >>> from binaryeval._partition import merge_labels
    >>> merge_labels(["b", "a"], ["c", "b"])
    (['b', 'a', 'c'], array([2, 0]))
    """
    position = {g: i for i, g in enumerate(first)}
    labels = list(first)
    where = np.empty(len(second), dtype=np.intp)
    for j, g in enumerate(second):
        if g not in position:
            position[g] = len(labels)
            labels.append(g)
        where[j] = position[g]
    return labels, where
