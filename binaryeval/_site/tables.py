"""Tables for reading: a data frame formatted for a page, as self-contained HTML.

:func:`format_table` turns a :class:`pandas.DataFrame` into a :class:`Table` whose HTML a notebook,
the rendered vignettes and the user report show as it is.  Every column is formatted by its kind:

- **text** (strings, categories) is left-aligned;
- **counts** (integer columns, and float columns holding only whole numbers) are integers with a
  thousands separator, never ``12.000``;
- **probabilities** (columns named ``p``, ``p_*`` or ``prob*``, or named in ``probabilities=``) have
  fixed decimals and are never in e-notation: below ``0.001`` they read ``< 0.001``, above
  ``0.999`` (and below 1) ``> 0.999``;
- **numbers** have a fixed number of decimals per column (``decimals=``), optionally with a sign
  (``signed=``) or as percentages (``percent=``);
- **flags** (booleans) read ``yes`` / ``no``; a missing value is a dash;
- **numbers as printed** (strings such as ``"0.64-0.65"`` or ``"< 0.001"``, e.g. a paper's
  values copied as text) are shown unchanged and right-aligned.

Cells can be highlighted with an explanation (``highlight={(row, column): "why"}``): the cell is
shaded and marked with a letter, and the letters are explained under the table.  A long table
shows its first rows and folds the rest into a ``<details>`` element (``max_rows=``).  The HTML
is built with pandas' :class:`~pandas.io.formats.style.Styler`; its styles are scoped to the
table's id and it loads nothing from the network.

Examples
--------
>>> import pandas as pd
>>> from binaryeval._site.tables import format_table
>>> df = pd.DataFrame({"system": ["A", "B"], "n": [527.0, 100.0], "estimate": [0.6712, 0.5],
...                    "p_value": [1.4e-16, 0.2345]})
>>> print(format_table(df, decimals={"estimate": 2}))
system    n estimate p_value
     A  527     0.67 < 0.001
     B  100     0.50   0.234
"""

from __future__ import annotations

import hashlib
import html
import math
import re
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._format import PROBABILITY_NAME, draws_floor, format_probability, is_p_value_name
from ..errors import InputTypeError, ParameterError

__all__ = ["Table", "format_table", "format_probability", "format_number", "matches_printed"]

_KINDS = ("text", "verbatim", "count", "probability", "number", "percent", "flag")
# strings that are numbers as printed elsewhere ("0.64-0.65", "< 0.001", "12.5%", "1/2", "0.67**")
_PRINTED_NUMBER = re.compile(
    r"^[<>]?\s*[-+\u2212]?\d[\d,]*(\.\d+|/\d+)?%?(\s*[-\u2013]\s*\d[\d,]*(\.\d+)?%?)?\**$")
_DASH = "\u2013"
_HIGHLIGHT = "#fde7c4"


# ---------------------------------------------------------------------------------------------
# formatting one value
# ---------------------------------------------------------------------------------------------

def _missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # lists and other containers are not missing values
        return False


def format_number(value: Any, decimals: int = 3, *, signed: bool = False,
                  percent: bool = False, na: str = _DASH) -> str:
    """Format a number with fixed decimals (no e-notation, no negative zero).

    Parameters
    ----------
    value : float
        The number (``NaN`` or ``None`` for a missing one).
    decimals : int, default 3
        Decimals shown.
    signed : bool, default False
        Show a ``+`` before positive values (for differences).
    percent : bool, default False
        Multiply by 100 and add ``%``.
    na : str
        Text for a missing value.

    Returns
    -------
    str

    Examples
    --------
    >>> from binaryeval._site.tables import format_number
    >>> format_number(-0.00004), format_number(0.0123, 2, signed=True), format_number(0.25, 1, percent=True)
    ('0.000', '+0.01', '25.0%')
    >>> format_number(1234567.891, 1)
    '1,234,567.9'
    """
    if _missing(value):
        return na
    v = float(value) * (100 if percent else 1)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    text = f"{v:{'+' if signed else ''},.{decimals}f}"
    if re.fullmatch(r"[+-]?[0,.]*", text):  # rounds to zero: no sign
        text = text.lstrip("+-")
    return text + ("%" if percent else "")


def matches_printed(value: Any, printed: str) -> bool:
    """Whether a printed number is ``value`` rounded to the printed decimals.

    True when ``|value - printed| <= 0.5`` units of the printed number's last decimal, so
    rounding in either direction at a tie counts as agreement.  Use it to decide which cells of
    a published table differ from an exact computation.

    Parameters
    ----------
    value : float
        The computed value.
    printed : str
        The number as printed, e.g. ``"0.798"``, ``"-0.00"`` or ``"12"``.

    Returns
    -------
    bool
        False also when either is missing or ``printed`` is not a number.

    Examples
    --------
    >>> from binaryeval._site.tables import matches_printed
    >>> matches_printed(0.80033, "0.798"), matches_printed(0.79792, "0.798")
    (False, True)
    >>> matches_printed(0.0046, "0.005"), matches_printed(-0.0031, "-0.00")
    (True, True)
    """
    text = str(printed).strip().replace("\u2212", "-")
    if _missing(value) or not re.fullmatch(r"[-+]?\d+(\.\d+)?", text):
        return False
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(float(value) - float(text)) <= 0.5 * 10.0 ** -decimals + 1e-12


def _format_count(value: Any, na: str) -> str:
    if _missing(value):
        return na
    v = float(value)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{int(round(v)):,}"


def _format_flag(value: Any, na: str) -> str:
    if _missing(value):
        return na
    return "yes" if bool(value) else "no"


# ---------------------------------------------------------------------------------------------
# column kinds
# ---------------------------------------------------------------------------------------------

def _name_text(label: Hashable) -> str:
    """The last level of a column label, as text (MultiIndex columns are tuples)."""
    if isinstance(label, tuple):
        label = label[-1] if label else ""
    return str(label)


def _as_set(value: Any) -> set | bool | None:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, (str, tuple)) or not isinstance(value, Iterable):
        value = [value]
    return set(value)


def _kind(col: pd.Series, label: Hashable, *, probabilities: Any, counts: Any,
          percent: set, decimals: Mapping, text: set) -> str:
    """Decide how one column is formatted (see the module docstring)."""
    if label in text:
        return "text"
    values = col.dropna()
    if pd.api.types.is_bool_dtype(col) or (
            len(values) and values.map(lambda v: isinstance(v, (bool, np.bool_))).all()):
        return "flag"
    numeric = pd.api.types.is_numeric_dtype(col) or (
        len(values) and values.map(lambda v: isinstance(v, (int, float, np.number))).all())
    if not numeric:
        filled = values[values.map(lambda v: not (isinstance(v, str) and not v.strip()))]
        printed = filled.map(lambda v: isinstance(v, str) and bool(_PRINTED_NUMBER.match(v.strip())))
        return "verbatim" if len(filled) and printed.all() else "text"
    if label in percent:
        return "percent"
    if probabilities is True or (isinstance(probabilities, set) and label in probabilities):
        return "probability"
    if probabilities is not False and PROBABILITY_NAME.match(_name_text(label)):
        return "probability"
    if counts is True or (isinstance(counts, set) and label in counts):
        return "count"
    if label in decimals:
        return "number"
    numbers = pd.to_numeric(values, errors="coerce")
    finite = numbers[np.isfinite(numbers)]
    if pd.api.types.is_integer_dtype(col) or (
            counts is not False and len(finite) and (finite == np.round(finite)).all()):
        return "count"
    return "number"


# ---------------------------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Table:
    """A formatted table: the cell texts and their HTML.

    Made by :func:`format_table`.  A notebook or a rendered page shows the HTML
    (``_repr_html_``); ``str()`` gives the same cells as plain text.

    Attributes
    ----------
    cells : pandas.DataFrame
        The formatted cell texts (index levels included as leading columns), without markup.
    kinds : dict
        Column label -> ``"text"``, ``"count"``, ``"probability"``, ``"number"``,
        ``"percent"`` or ``"flag"``.
    html : str
        The self-contained HTML (a ``<div>`` with a scoped ``<style>``, the table, its notes).
    notes : dict
        Highlight letter -> explanation, in the order the letters appear.

    Examples
    --------
    >>> from binaryeval._site.tables import format_table
    >>> import pandas as pd
    >>> t = format_table(pd.DataFrame({"x": [1.0, 2.5]}), caption="Two numbers")
    >>> t.kinds
    {'x': 'number'}
    >>> "<caption>Two numbers</caption>" in t.html
    True
    """

    cells: pd.DataFrame
    kinds: dict
    html: str = field(repr=False)
    notes: dict = field(default_factory=dict)

    def _repr_html_(self) -> str:
        return self.html

    def to_html(self) -> str:
        """The table as self-contained HTML.

        Returns
        -------
        str

        Examples
        --------
        >>> from binaryeval._site.tables import format_table
        >>> import pandas as pd
        >>> format_table(pd.DataFrame({"x": [1]})).to_html().startswith("<div")
        True
        """
        return self.html

    def __str__(self) -> str:
        text = self.cells.to_string(index=False)
        for letter, note in self.notes.items():
            text += f"\n({letter}) {note}"
        return text

    def __repr__(self) -> str:
        return f"Table(rows={len(self.cells)}, columns={self.cells.shape[1]})"


def _inline(text: str) -> str:
    """Escape text for HTML and turn `code` spans into <code> elements."""
    parts = re.split(r"`([^`]+)`", str(text))
    return "".join(f"<code>{html.escape(p)}</code>" if i % 2 else html.escape(p)
                   for i, p in enumerate(parts))


def _letters(n: int) -> list[str]:
    out = []
    for i in range(n):
        s, k = "", i
        while True:
            s = chr(ord("a") + k % 26) + s
            k = k // 26 - 1
            if k < 0:
                break
        out.append(s)
    return out


def _with_index(data: pd.DataFrame, index: bool) -> tuple[pd.DataFrame, int]:
    """Move the index into leading columns (unless it is an unnamed range); how many there are."""
    plain = isinstance(data.index, pd.RangeIndex) and data.index.name is None
    if not index or plain:
        return data.reset_index(drop=True), 0
    names = [n if n is not None else "" for n in data.index.names]
    if len(set(names)) < len(names):  # unnamed levels: give them distinct blank-ish names
        names = [n or " " * (i + 1) for i, n in enumerate(names)]
    frame = data.copy()
    frame.index = frame.index.set_names(names)
    nlev = data.columns.nlevels
    out = frame.reset_index(col_level=nlev - 1, col_fill="")
    return out, len(names)


def _positions(data: pd.DataFrame, highlight: Mapping, nidx: int) -> dict[tuple[int, int], str]:
    """Map ``{(row label, column label): note}`` to positions in the formatted frame."""
    out: dict[tuple[int, int], str] = {}
    for key, note in highlight.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            raise ParameterError(
                f"highlight: keys must be (row label, column label) pairs, got {key!r}; "
                "e.g. highlight={('ref-B', 'estimate'): 'rounding'}")
        row, col = key
        try:
            i = data.index.get_loc(row)
            j = data.columns.get_loc(col)
        except KeyError:
            raise ParameterError(
                f"highlight: no cell ({row!r}, {col!r}) in the table; rows are "
                f"{list(data.index)[:8]}..., columns {list(data.columns)[:8]}...") from None
        if not (isinstance(i, (int, np.integer)) and isinstance(j, (int, np.integer))):
            raise ParameterError(f"highlight: the label ({row!r}, {col!r}) is not unique")
        out[(int(i), int(j) + nidx)] = str(note)
    return out


def format_table(
    data: pd.DataFrame | pd.Series,
    *,
    decimals: int | Mapping[Hashable, int] = 3,
    probabilities: bool | Iterable[Hashable] | None = None,
    counts: bool | Iterable[Hashable] | None = None,
    percent: Iterable[Hashable] = (),
    signed: Iterable[Hashable] = (),
    text: Iterable[Hashable] = (),
    index: bool = True,
    caption: str | None = None,
    source: str | None = None,
    note: str | None = None,
    highlight: Mapping[tuple[Hashable, Hashable], str] | None = None,
    max_rows: int | None = 25,
    show_rows: int = 10,
    fold: bool | str = False,
    na: str = _DASH,
) -> Table:
    """Format a data frame for reading: fixed decimals per column, aligned, folded when long.

    Parameters
    ----------
    data : pandas.DataFrame or pandas.Series
        The table.  Its index becomes the leading column(s) unless it is an unnamed
        ``RangeIndex`` (or ``index=False``); a Series becomes a one-column table.
    decimals : int or mapping, default 3
        Decimals of the number and probability columns: one number for all, or
        ``{column: decimals}`` (columns not named get 3).  A column named here is a number
        column even if its values are whole.
    probabilities : bool or list of column labels, optional
        Columns formatted as probabilities (``< 0.001``, never e-notation).  By default the
        columns named ``p``, ``p_*``, ``prob*`` or ``P(...)``, plus the ones listed; ``True``
        makes every numeric column a probability (a matrix of ``P(row > column)``), ``False``
        none.
    counts : bool or list of column labels, optional
        Columns formatted as integers.  By default integer columns and float columns whose
        values are all whole numbers, plus the ones listed; ``True`` every numeric column,
        ``False`` only integer columns.
    percent, signed : list of column labels
        Number columns shown as percentages (``12.5%``), or with a ``+`` on positive values.
    text : list of column labels
        Columns shown as text (left-aligned) whatever they hold.
    index : bool, default True
        Show the index as leading column(s).
    caption : str, optional
        Title above the table.
    source : str, optional
        Where the numbers come from, printed under the table ("Source: ...").
    note : str, optional
        A sentence printed under the table.
    highlight : mapping, optional
        ``{(row label, column label): explanation}``: the cells are shaded and marked with a
        letter, the letters explained under the table (the same explanation shares a letter).
        Labels are those of ``data`` (its index and columns).
    max_rows : int or None, default 25
        A table with more rows shows its first ``show_rows`` rows and folds the others into a
        ``<details>`` element; ``None`` never folds.
    show_rows : int, default 10
        Rows shown above the fold of a long table.
    fold : bool or str, default False
        Fold the whole table (the text is the summary line; ``True`` says "Show the table").
    na : str, default "–"
        Text for missing values.

    Returns
    -------
    Table
        The cell texts (``.cells``), the column kinds and the HTML.

    Raises
    ------
    InputTypeError
        If ``data`` is not a DataFrame or Series.
    ParameterError
        If a highlighted cell or a named column is not in the table.

    Examples
    --------
    >>> from binaryeval._site.tables import format_table
    >>> import pandas as pd
    >>> df = pd.DataFrame({"estimate": [0.671234, 0.5], "prob_greater": [1 - 1e-12, 0.5],
    ...                    "n_human": [527.0, 100.0]}, index=pd.Index(["A", "B"], name="system"))
    >>> t = format_table(df, decimals={"estimate": 2}, highlight={("B", "estimate"): "rounded"})
    >>> print(t)
    system estimate prob_greater n_human
         A     0.67      > 0.999     527
         B     0.50        0.500     100
    (a) rounded
    >>> t.kinds["n_human"], t.kinds["system"]
    ('count', 'text')
    """
    if isinstance(data, pd.Series):
        data = data.to_frame()
    if not isinstance(data, pd.DataFrame):
        raise InputTypeError(
            f"data must be a pandas DataFrame or Series, got {type(data).__name__}; "
            "wrap it with pd.DataFrame(...)")
    if data.columns.duplicated().any():
        dup = list(data.columns[data.columns.duplicated()])
        raise ParameterError(f"data: duplicated column labels {dup}; rename them first")
    if isinstance(decimals, Mapping):
        per_column = dict(decimals)
        default = int(per_column.pop("default", 3))
    else:
        per_column, default = {}, int(decimals)
    named = {"decimals": set(per_column), "percent": set(percent), "signed": set(signed),
             "text": set(text)}
    probs, cnts = _as_set(probabilities), _as_set(counts)
    marks = _positions(data, highlight or {}, 0)
    frame, nidx = _with_index(data, index)
    marks = {(i, j + nidx): v for (i, j), v in marks.items()}
    for what, labels in list(named.items()) + [("probabilities", probs), ("counts", cnts)]:
        if isinstance(labels, set):
            missing = [c for c in labels if c not in frame.columns]
            if missing:
                raise ParameterError(
                    f"{what}: no column {missing[0]!r} in the table; columns (index levels "
                    f"included) are {list(frame.columns)}")

    kinds: dict = {}
    cells = {}
    for j, label in enumerate(frame.columns):
        col = frame.iloc[:, j]
        if j < nidx and not pd.api.types.is_numeric_dtype(col):
            kind = "text"
        elif j < nidx and label not in per_column and label not in named["percent"]:
            kind = "count" if pd.api.types.is_integer_dtype(col) or (
                (col.dropna() == np.round(col.dropna())).all()) else "number"
        else:
            kind = _kind(col, label, probabilities=probs, counts=cnts, percent=named["percent"],
                         decimals=per_column, text=named["text"])
        kinds[label] = kind
        d = per_column.get(label, 1 if kind == "percent" else default)
        if kind == "probability":
            floor = draws_floor(label, frame.attrs.get("n_draws"))
            cells[label] = [format_probability(v, d, na, exact_one=is_p_value_name(label),
                                               floor=floor) for v in col]
        elif kind in ("number", "percent"):
            cells[label] = [format_number(v, d, signed=label in named["signed"],
                                          percent=kind == "percent", na=na) for v in col]
        elif kind == "count":
            cells[label] = [_format_count(v, na) for v in col]
        elif kind == "flag":
            cells[label] = [_format_flag(v, na) for v in col]
        else:
            cells[label] = [na if _missing(v) else str(v) for v in col]
    plain = pd.DataFrame(cells, columns=frame.columns)

    letters = {}
    for note_text in dict.fromkeys(marks[k] for k in sorted(marks)):
        letters[note_text] = _letters(len(letters) + 1)[-1]
    notes = {letter: note_text for note_text, letter in letters.items()}

    html_text = _render(plain, kinds, marks, letters, caption=caption, source=source, note=note,
                        max_rows=max_rows, show_rows=show_rows, fold=fold)
    return Table(cells=plain, kinds=kinds, html=html_text, notes=notes)


# ---------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------

def _table_id(plain: pd.DataFrame, caption: str | None, part: str) -> str:
    digest = hashlib.sha1((plain.to_json(orient="split") + str(caption) + part).encode())
    # letters only, so that no id reads like a number in e-notation ("8e4")
    return "be" + digest.hexdigest()[:12].translate(str.maketrans("0123456789", "ghijklmnop"))


def _styler_html(plain: pd.DataFrame, kinds: dict, marks: dict, letters: dict, rows: range,
                 caption: str | None, part: str) -> str:
    from pandas.io.formats.style import Styler

    shown = plain.iloc[list(rows)].copy()
    classes = pd.DataFrame("", index=shown.index, columns=shown.columns)
    for j in range(plain.shape[1]):
        escaped = [html.escape(v) for v in shown.iloc[:, j]]
        for k, i in enumerate(rows):
            if (i, j) in marks:
                letter = letters[marks[(i, j)]]
                escaped[k] += f'<sup class="be-mark">{letter}</sup>'
                classes.iloc[k, j] = "be-hl"
        shown.iloc[:, j] = escaped
    uid = _table_id(plain, caption, part)
    styles = [
        {"selector": "", "props": "border-collapse: collapse; margin: 0.5em 0; "
                                  "font-variant-numeric: tabular-nums; width: auto;"},
        {"selector": "th, td", "props": "padding: 0.25em 0.5em; vertical-align: top; "
                                        "text-align: right;"},
        {"selector": "thead th", "props": "border-bottom: 1px solid #999; font-weight: 600;"},
        {"selector": "thead th[colspan]", "props": "text-align: center; "
                                                   "border-bottom: 1px solid #ccc;"},
        {"selector": "caption", "props": "caption-side: top; text-align: left; "
                                         "font-weight: 600; padding: 0.3em 0;"},
        {"selector": "td.be-hl", "props": f"background: {_HIGHLIGHT};"},
        {"selector": "sup.be-mark", "props": "color: #9a5b00; font-weight: 600; "
                                             "margin-left: 0.15em; line-height: 0; "
                                             "font-size: 0.75em;"},
    ]
    for j, label in enumerate(plain.columns):
        align = "left" if kinds[label] in ("text", "flag") else "right"
        wrap = ""
        if kinds[label] == "text" and plain.iloc[:, j].str.len().max() <= 32:
            wrap = " white-space: nowrap;"
        styles.append({"selector": f"td.col{j}, th.col_heading.col{j}:not([colspan])",
                       "props": f"text-align: {align};{wrap}"})
    st = Styler(shown, uuid=uid, uuid_len=0, cell_ids=False)
    # column headers are labels of the data: escaped like the cells
    st = st.format_index(escape="html", axis=1)
    st = st.hide(axis="index").set_table_styles(styles).set_td_classes(classes)
    if caption:
        st = st.set_caption(_inline(caption))
    out = st.to_html()
    # Styler names the table "T_<uuid>"; the rules above are scoped to it
    return out


def _render(plain: pd.DataFrame, kinds: dict, marks: dict, letters: dict, *, caption, source,
            note, max_rows, show_rows, fold) -> str:
    n = len(plain)
    parts = ['<div class="be-table" style="overflow-x: auto; max-width: 100%;">']
    if max_rows is not None and n > max_rows and 0 < show_rows < n:
        parts.append(_styler_html(plain, kinds, marks, letters, range(show_rows), caption, "head"))
        rest = n - show_rows
        parts.append(f"<details><summary>Show the other {rest:,} of {n:,} rows</summary>")
        parts.append(_styler_html(plain, kinds, marks, letters, range(show_rows, n), None, "rest"))
        parts.append("</details>")
    else:
        body = _styler_html(plain, kinds, marks, letters, range(n), caption, "all")
        if fold:
            summary = "Show the table" if fold is True else _inline(fold)
            body = f"<details><summary>{summary}</summary>{body}</details>"
        parts.append(body)
    foot = []
    for note_text, letter in letters.items():
        foot.append(f'<sup class="be-mark" style="color: #9a5b00; font-weight: 600;">{letter}'
                    f"</sup>&nbsp;{_inline(note_text)}")
    if note:
        foot.append(_inline(note))
    if source:
        foot.append("Source: " + _inline(source))
    if foot:
        items = "".join(f'<p style="margin: 0.2em 0;">{f}</p>' for f in foot)
        parts.append(f'<div class="be-table-notes" style="font-size: 0.9em; '
                     f'color: #444; max-width: 60em;">{items}</div>')
    parts.append("</div>")
    return "\n".join(parts)
