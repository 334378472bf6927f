"""One renderer for every result: :class:`Summary` as text, HTML and LaTeX.

A summary is a title, an ordered block of ``key: value`` facts (formula, rows used, prior, ...),
one or more titled tables (pandas DataFrames) and free-text notes.  ``print(summary)`` shows the
text form, notebooks show the HTML form and ``as_latex()`` gives a ``tabular`` per table.
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._format import draws_floor, format_probability, is_p_value_name, is_probability_name

__all__ = ["Summary"]


def _format_value(value: Any, digits: int) -> str:
    if value is None or value is pd.NA:
        return "-"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if np.isnan(v):
            return "NaN"
        if v != 0 and (abs(v) < 10 ** (-digits) or abs(v) >= 1e7):
            return f"{v:.{max(digits - 1, 1)}e}"
        return f"{v:.{digits}f}"
    return str(value)


def _format_probability(value: Any, digits: int, exact_one: bool = True,
                        floor: float = 0.0) -> str:
    """A probability by the package's one rule (:mod:`binaryeval._format`); missing as elsewhere."""
    return (format_probability(value, digits, na="", exact_one=exact_one, floor=floor)
            or _format_value(value, digits))


#: The facts of the row account (binaryeval._results.row_facts), written with thousands separators
_ROW_COUNTS = frozenset({"rows", "rows used", "paired rows used"})

#: Columns of counts and effective sizes (``n_eff``, ``n_paired``, ``ess_bulk``): a whole number
#: shows as one, a fractional one (an effective number of ratings or draws) with one decimal.
_COUNT_NAME = re.compile(r"^(n|n_.*|ess|ess_.*)$")


def _format_count(value: Any, digits: int, whole: bool = False) -> str:
    """A count or effective size, whole or with one decimal as its column (``whole``).

    A column reads alike: whole numbers when it holds whole numbers only, else one decimal in
    every row (``527.0`` beside ``528.3``).
    """
    if isinstance(value, (float, np.floating)) and np.isfinite(value) and abs(value) < 1e15:
        v = float(value)
        return str(int(v)) if whole else f"{v:.1f}"
    return _format_value(value, digits)


def _whole_numbers(values: pd.Series) -> bool:
    """Whether every finite float of ``values`` is a whole number (integers always are)."""
    floats = [float(v) for v in values
              if isinstance(v, (float, np.floating)) and np.isfinite(v)]
    return all(v.is_integer() for v in floats)


#: Columns of amounts (a rating budget's ``cost``): written as a person writes a sum (``1000``,
#: ``999.5``), not padded to the table's decimals.
_AMOUNT_NAME = re.compile(r"^(cost|budget)$")


def _format_fact(value: Any, digits: int) -> str:
    """A fact above the tables, as a person would write it.

    A float gets at most ``digits`` decimals with trailing zeros dropped (``1000``, ``0.05``).
    """
    if isinstance(value, (float, np.floating)) and np.isfinite(value) and not isinstance(
            value, bool) and 10 ** -digits <= abs(float(value)) < 1e7:
        text = f"{float(value):.{digits}f}".rstrip("0").rstrip(".")
        return text
    return _format_value(value, digits)


def prior_text(params: Any, family: str = "Beta") -> str:
    """A prior as every summary writes it: ``Beta(1, 1)``, ``Dirichlet(1, 1, 1)``.

    Examples
    --------
    >>> from binaryeval.summary import prior_text
    >>> prior_text((1.0, 2.5)), prior_text([1, 1, 1], "Dirichlet")
    ('Beta(1, 2.5)', 'Dirichlet(1, 1, 1)')
    """
    return f"{family}({', '.join(f'{float(x):g}' for x in params)})"


def _shows_index(frame: pd.DataFrame) -> bool:
    """Whether a table's row labels say something (not pandas' unnamed 0, 1, 2, ...)."""
    index = frame.index
    return not (isinstance(index, pd.RangeIndex) and index.name is None
                and index.start == 0 and index.step == 1)


def _format_frame(frame: pd.DataFrame, digits: int) -> pd.DataFrame:
    out = frame.copy()
    # a table of probabilities (e.g. a matrix of p-values named after metrics) says so in attrs
    every = bool(frame.attrs.get("probabilities", False))
    for col in out.columns:
        probability = every or is_probability_name(col)
        if not probability and _COUNT_NAME.match(str(col)):
            whole = _whole_numbers(out[col])
            out[col] = [_format_count(v, digits, whole) for v in out[col]]
            continue
        if probability:
            exact_one = is_p_value_name(col)
            floor = draws_floor(col, frame.attrs.get("n_draws"))
            out[col] = [_format_probability(v, digits, exact_one, floor) for v in out[col]]
            continue
        fmt = _format_fact if _AMOUNT_NAME.match(str(col)) else _format_value
        out[col] = [fmt(v, digits) for v in out[col]]
    # a pair of groups reads 'A vs B'; the levels of any other row key (a judge's factor,
    # stratum and class; a plan's two sizes) are joined by ' / ', under their names joined alike
    names = list(frame.index.names)
    pair = len(names) == 2 and (names == ["group_1", "group_2"] or names == [None, None])
    sep = " vs " if pair else " / "
    name = frame.index.name
    if len(names) > 1 and not pair and all(n is not None for n in names):
        name = sep.join(map(str, names))
    out.index = pd.Index([sep.join(map(str, i)) if isinstance(i, tuple) else str(i)
                          for i in out.index], name=name)
    return out


def _latex_escape(text: str) -> str:
    repl = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}"}
    return "".join(repl.get(c, c) for c in str(text))


@dataclass
class Summary:
    """A printable summary of a result.

    Parameters
    ----------
    title : str
        Heading of the summary.
    info : mapping, optional
        Ordered ``label -> value`` facts shown above the tables.
    tables : list of (str, DataFrame), optional
        Titled tables; the index is shown as the first column.
    notes : list of str, optional
        Free-text remarks printed at the end (warnings, conventions).
    digits : int
        Decimal places for floats.

    Examples
    --------
    >>> from binaryeval import Summary
    >>> import pandas as pd
    >>> s = Summary("Example", {"rows used": 3}, [("estimates", pd.DataFrame({"mean": [0.5]}))])
    >>> print(s.as_text().splitlines()[0])
    Example
    """

    title: str
    info: Mapping[str, Any] = field(default_factory=dict)
    tables: list[tuple[str, pd.DataFrame]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    digits: int = 4

    def add_table(self, title: str, frame: pd.DataFrame) -> Summary:
        """Append a titled table and return ``self``.

        Parameters
        ----------
        title : str
            Heading of the table (may be empty).
        frame : DataFrame
            The table; its index is shown as the first column.

        Returns
        -------
        Summary

        Examples
        --------
        >>> import pandas as pd
        >>> from binaryeval import Summary
        >>> s = Summary("Example").add_table("rates", pd.DataFrame({"rho": [0.8]}))
        >>> s.tables[0][0]
        'rates'
        """
        self.tables.append((title, frame))
        return self

    def add_note(self, note: str) -> Summary:
        """Append a note and return ``self``.

        Parameters
        ----------
        note : str
            A free-text remark, printed after the tables.

        Returns
        -------
        Summary

        Examples
        --------
        >>> from binaryeval import Summary
        >>> Summary("Example").add_note("ties dropped").notes
        ['ties dropped']
        """
        self.notes.append(note)
        return self

    def _fact(self, key: Any, value: Any) -> str:
        """A fact above the tables; a p-value or probability by the tables' rule (no e-notation)."""
        if is_probability_name(key) and isinstance(value, (float, np.floating)) \
                and not isinstance(value, bool):
            return format_probability(value, self.digits, na="NaN",
                                      exact_one=is_p_value_name(key))
        if key in _ROW_COUNTS and isinstance(value, (int, np.integer)) \
                and not isinstance(value, (bool, np.bool_)):
            return f"{int(value):,}"   # as the reports and the excluded rows write them
        return _format_fact(value, self.digits)

    # -- text -----------------------------------------------------------------------------
    def as_text(self) -> str:
        """Plain-text rendering (what ``print`` shows).

        Returns
        -------
        str

        Examples
        --------
        >>> from binaryeval import Summary
        >>> print(Summary("Example", {"n": 3}).as_text())
        Example
        ========================================
        n: 3
        ========================================
        """
        blocks: list[str] = []
        table_texts = [(t, _format_frame(f, self.digits).to_string(index=_shows_index(f)))
                       for t, f in self.tables]
        width = max([len(self.title)] + [len(line) for _, txt in table_texts
                                         for line in txt.splitlines()] + [40])
        width = min(width, 120)
        blocks.append(self.title)
        blocks.append("=" * width)
        if self.info:
            keyw = max(len(str(k)) for k in self.info)
            for key, value in self.info.items():
                blocks.append(f"{str(key) + ':':<{keyw + 1}} {self._fact(key, value)}")
        for title, txt in table_texts:
            blocks.append("-" * width)
            if title:
                blocks.append(title)
            blocks.append(txt)
        if self.notes:
            blocks.append("-" * width)
            for note in self.notes:
                # flags and names stay whole (--n-human, lower_is_better, lower-is-better)
                blocks.extend(textwrap.wrap(f"Note: {note}", width=max(width, 100),
                                            subsequent_indent="      ",
                                            break_on_hyphens=False))
        blocks.append("=" * width)
        return "\n".join(blocks)

    # -- html -----------------------------------------------------------------------------
    def as_html(self) -> str:
        """HTML rendering (what notebooks and rendered reports show).

        Returns
        -------
        str

        Examples
        --------
        >>> from binaryeval import Summary
        >>> Summary("Example").as_html().splitlines()[0]
        '<div class="binaryeval-summary"><p class="binaryeval-summary-title"><b>Example</b></p>'
        """
        # the title is a caption, not a heading: a page's headings stay in order (h2 then h3)
        # wherever a summary is shown
        parts = ['<div class="binaryeval-summary"><p class="binaryeval-summary-title">'
                 f'<b>{html.escape(self.title)}</b></p>']
        if self.info:
            parts.append('<table class="binaryeval-info">')
            for key, value in self.info.items():
                parts.append(f"<tr><th style=\"text-align:left\">{html.escape(str(key))}</th>"
                             f"<td>{html.escape(self._fact(key, value))}</td></tr>")
            parts.append("</table>")
        for title, frame in self.tables:
            if title:
                parts.append(f"<p><b>{html.escape(title)}</b></p>")
            parts.append(_format_frame(frame, self.digits).to_html(
                border=0, escape=True, index=_shows_index(frame)))
        for note in self.notes:
            parts.append(f"<p><i>Note:</i> {html.escape(note)}</p>")
        parts.append("</div>")
        return "\n".join(parts)

    # -- latex ----------------------------------------------------------------------------
    def as_latex(self) -> str:
        r"""LaTeX rendering: a fact list and one ``tabular`` per table.

        Returns
        -------
        str

        Examples
        --------
        >>> from binaryeval import Summary
        >>> print(Summary("Example", {"n": 3}).as_latex().splitlines()[0])
        \textbf{Example}\\
        """
        out = [f"\\textbf{{{_latex_escape(self.title)}}}\\\\"]
        if self.info:
            out.append("\\begin{tabular}{ll}")
            for key, value in self.info.items():
                out.append(f"{_latex_escape(key)} & {_latex_escape(self._fact(key, value))} \\\\")
            out.append("\\end{tabular}\\\\")
        for title, frame in self.tables:
            f = _format_frame(frame, self.digits)
            shown = _shows_index(frame)
            cols = ((["" if f.index.name is None else str(f.index.name)] if shown else [])
                    + [str(c) for c in f.columns])
            if title:
                out.append(f"\\textit{{{_latex_escape(title)}}}\\\\")
            out.append("\\begin{tabular}{" + ("l" if shown else "") + "r" * len(f.columns) + "}")
            out.append("\\hline")
            out.append(" & ".join(_latex_escape(c) for c in cols) + " \\\\")
            out.append("\\hline")
            for idx, row in f.iterrows():
                cells = [idx, *row.tolist()] if shown else row.tolist()
                out.append(" & ".join(_latex_escape(x) for x in cells) + " \\\\")
            out.append("\\hline")
            out.append("\\end{tabular}\\\\")
        for note in self.notes:
            out.append(f"\\emph{{Note:}} {_latex_escape(note)}\\\\")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.as_text()

    def __repr__(self) -> str:
        return self.as_text()

    def _repr_html_(self) -> str:
        return self.as_html()

    def _repr_latex_(self) -> str:
        return self.as_latex()


def frame_from_records(records: Iterable[Mapping[str, Any]], index: str | None = None) -> pd.DataFrame:
    """Build a DataFrame from records, optionally setting ``index``."""
    frame = pd.DataFrame(list(records))
    if index is not None and index in frame.columns:
        frame = frame.set_index(index)
    return frame
