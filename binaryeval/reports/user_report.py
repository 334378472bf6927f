"""A report of a fit on the user's own data, rendered from a Quarto template.

:func:`make_report` fits the binary evaluation model once (so that a bad formula or option is
reported as such, not as a failed chunk), writes the template ``templates/report.qmd`` with the
options in a parameter file beside it and the data with the fitted result in a second file (in a
temporary folder only this call uses), and renders it to one self-contained HTML file with the
site builder's document renderer (:mod:`binaryeval._site`).  ``binaryeval report`` on the
command line is this function.
"""

from __future__ import annotations

import json
import pickle
import shutil
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._output import check_output, input_paths, write_atomic
from .._partition import grouping_columns
from .._site.documents import _split_header
from .._site.rendering import render
from .._validate import flag
from .._warnings import warn
from ..api import fit
from ..errors import BinaryEvalWarning, ParameterError
from ..formula import parse_formula
from ..io import names_as_read, read_table, select_rows
from ..latent import fit_preferences

if TYPE_CHECKING:  # names used only in type hints
    import numpy as np

__all__ = ["make_report", "report_template"]

#: name of the parameter file the report template reads from its own folder
REPORT_PARAMS = "report-params.json"
#: name of the file with the data and the fitted result, beside the parameter file
REPORT_INPUTS = "report-inputs.pkl"


def report_template(kind: str = "fit") -> str:
    """The text of a report template shipped in ``binaryeval/reports/templates/``.

    Parameters
    ----------
    kind : {"fit", "preferences"}
        The report of :func:`binaryeval.fit` (``report.qmd``) or of
        :func:`binaryeval.fit_preferences` (``preferences.qmd``).

    Returns
    -------
    str

    Examples
    --------
    >>> from binaryeval.reports import report_template
    >>> report_template().startswith("---")
    True
    >>> "corrected ranking" in report_template("preferences")
    True
    """
    from .._validate import choice

    name = {"fit": "report.qmd", "preferences": "preferences.qmd"}[
        choice(kind, "kind", ("fit", "preferences"))]
    return (files("binaryeval.reports") / "templates" / name).read_text(encoding="utf-8")


def left_out_html(result, limit: int = 20) -> str:
    """The rows a result left out as a small HTML table: the first ``limit`` and how many more.

    Each row's label (in the data's index) and its reason, in data order; every label, reason
    and the index name are escaped, since they come from the data.  Empty text when no row was
    left out or the result cannot say which (``excluded_rows`` is None).

    Parameters
    ----------
    result : object
        A result with ``excluded_rows`` (e.g. :class:`binaryeval.BinaryFit`).
    limit : int
        Rows shown; the others are counted ("and 3 more").

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import binaryeval as be
    >>> from binaryeval.reports.user_report import left_out_html
    >>> df = pd.DataFrame({"human": [1, 0, np.nan, 1], "metric": [1, 0, np.nan, 1]},
    ...                   index=["a", "b", "<i>c</i>", "d"])
    >>> print(left_out_html(be.fit("human ~ metric", df)))  # doctest: +NORMALIZE_WHITESPACE
    <p>Rows left out (by their label in the data):</p>
    <table class="table table-sm left-out"><thead><tr><th>row</th><th>reason</th></tr></thead>
    <tbody><tr><td><code>&lt;i&gt;c&lt;/i&gt;</code></td><td>no rating (human and metric
    missing)</td></tr></tbody></table>
    """
    import html

    rows = getattr(result, "excluded_rows", None)
    if rows is None or not len(rows):
        return ""
    shown = rows.iloc[:limit]
    name = rows.index.name if rows.index.name is not None else "row"
    names = rows.index.names if rows.index.nlevels > 1 else None
    if names is not None:
        name = ", ".join("row" if n is None else str(n) for n in names)
    body = "".join(f"<tr><td><code>{html.escape(str(label), quote=True)}</code></td>"
                   f"<td>{html.escape(str(reason), quote=True)}</td></tr>"
                   for label, reason in zip(shown.index, shown.to_numpy(), strict=True))
    more = len(rows) - len(shown)
    return ("<p>Rows left out (" + ("by their label in the data" if not more else
                                    f"the first {len(shown):,} of {len(rows):,}, in data order")
            + "):</p>\n"
            '<table class="table table-sm left-out"><thead><tr>'
            f"<th>{html.escape(str(name), quote=True)}</th><th>reason</th></tr></thead>\n"
            f"<tbody>{body}</tbody></table>"
            + (f"\n<p>and {more:,} more (all of them: <code>excluded_rows</code> of the "
               "fit)</p>" if more else ""))


def _report_document(template: str, title: str, subtitle: str) -> str:
    """The template with ``title`` and ``subtitle`` set in its YAML header."""
    import yaml

    header, body = _split_header(template, "report template")
    header.update(title=title, subtitle=subtitle)
    return "---\n" + yaml.safe_dump(header, sort_keys=False, allow_unicode=True) + "---\n" + body


def _seed_for_page(seed):
    """The seed as the page's parameters hold it (JSON): a whole number as it is, else its text.

    A NumPy Generator or SeedSequence is shown as text (its state is not a number the
    Reproduce code can give back; the fit itself used the object).
    """
    if seed is None or isinstance(seed, (bool, int)):
        return seed
    if isinstance(seed, np.integer):
        return int(seed)
    return repr(seed)


def make_report(data: pd.DataFrame | str | Path, formula: str, *, name: str | None = None,
                query: str | None = None,
                threshold: float | str | Mapping | None = None,
                lower_is_better: str | Sequence[str] | None = None,
                rates: str | Mapping = "estimate",
                prior: Sequence[float] = (1, 1), rate_prior: Sequence[float] = (1, 1),
                level: float = 0.95, title: str | None = None,
                output: str | Path | None = None, overwrite: bool = False,
                engine: str = "jupyter",
                timeout: int = 600, command: str | None = None,
                item: str | None = None, first: str | None = None, second: str | None = None,
                tolerance: float | dict[str, float] = 0.0,
                seed: int | np.random.SeedSequence | np.random.Generator | None = None,
                draws: int = 1000, chains: int = 4,
                include_prior_dominated: bool = False) -> Path:
    """Fit the model on ``data`` once and write an HTML report of the fit.

    With ``item=`` (scores per item and system) or ``first=``/``second=`` (ready preferences
    per row) the data are preference data: the report is of
    :func:`binaryeval.fit_preferences` (per-pair differences, the corrected ranking, the
    metric's confusion matrix and Favi-Scores, and what more human ratings would decide);
    otherwise of :func:`binaryeval.fit`.

    Parameters
    ----------
    data : DataFrame, str or Path
        The ratings: a pandas DataFrame in memory, or a table file (CSV, TSV, Parquet, JSON, a
        folder of Parquet files) or the name of a shipped dataset, read with
        :func:`binaryeval.read_table`.
    formula : str
        ``"human ~ metric | system"`` as for :func:`binaryeval.fit`.
    name : str, optional
        How the data are named in the report (default: the file's or dataset's name, or "data
        frame").
    query : str, optional
        A pandas query selecting the rows to use.
    threshold, lower_is_better, rates, prior, rate_prior, level
        As for :func:`binaryeval.fit` (``lower_is_better`` also orients the ROC curve); for
        preference data ``lower_is_better``, ``rates`` and ``level`` as for
        :func:`binaryeval.fit_preferences` (``threshold``, ``prior`` and ``rate_prior`` are then
        refused).
    title : str, optional
        The report's title.
    output : str or Path, optional
        The HTML file to write (default: the data's name + ``-report.html``, or ``report.html``
        for a data frame).  Never the data file itself; its folder must exist.  Written to a
        temporary file and renamed into place once rendered, so a failed rendering leaves no file.
    overwrite : bool
        Replace ``output`` when it exists (``binaryeval report --overwrite``); by default an
        existing file is refused, as on the command line.
    engine : {"jupyter", "quarto", "auto"}
        The renderer.
    timeout : int
        Seconds allowed per chunk.
    command : str, optional
        The command line shown in the report's "Reproduce" section; a ``binaryeval ...`` command
        makes the report's advice name the command line's flags (``--rates pooled``), otherwise
        Python arguments (``rates='pooled'``).
    item, first, second, tolerance
        Preference data, as for :func:`binaryeval.fit_preferences`.
    seed, draws, chains
        The preference model's sampler.
    include_prior_dominated : bool
        Preference report: keep the pairs whose posterior is essentially the prior in the
        ranking (by default they are named and left out, as in
        :meth:`binaryeval.PreferenceFit.ranking`).

    Returns
    -------
    Path
        The written HTML file.

    Examples
    --------
    A report of a small table of human ratings in memory (a file or a shipped dataset's name
    works as ``data`` too, e.g. ``make_report("wmt21_ende", "I(mqm == 0) ~ chrf | system",
    threshold="balanced")``):

    >>> from pathlib import Path
    >>> from binaryeval.reports import make_report
    >>> import tempfile
    >>> import pandas as pd
    >>> folder = Path(tempfile.mkdtemp())
    >>> ratings = pd.DataFrame({"system": ["A"] * 20 + ["B"] * 20,
    ...                         "human": [1, 0, 1, 1] * 5 + [0, 1, 0, 0] * 5})
    >>> make_report(ratings, "human ~ 1 | system", output=folder / "r.html").name
    'r.html'
    """
    if isinstance(data, pd.DataFrame):
        source = None
        stem = None
    else:
        source = Path(str(data))
        stem = source.name.split(".")[0] if source.is_file() else str(data)
    target = Path(output) if output else Path(f"{stem}-report.html" if stem else "report.html")
    # before any work: never over the data, an existing report only with overwrite
    check_output(target, inputs=[] if source is None else input_paths(data), force=overwrite,
                 option="output", force_hint="overwrite=True (--overwrite)")
    if source is None:
        n_read = len(data)
        table = select_rows(data, query) if query else data
    else:
        # the grouping columns (and the item and system columns of preferences) hold names:
        # read as written (systems 007 and 7 stay two)
        names = list(dict.fromkeys([*grouping_columns(parse_formula(formula)),
                                    *(c for c in (item, first, second) if isinstance(c, str))]))
        # read whole, then queried as read_table(data, query) would: the report says how many
        # rows the query left out
        table = read_table(data, string_columns=names)
        n_read = len(table)
        if query:
            table = select_rows(table, query, as_read=names_as_read(data, names))
    lower = [lower_is_better] if isinstance(lower_is_better, str) else list(lower_is_better or [])
    preference = item is not None or first is not None or second is not None
    keep_all = flag(include_prior_dominated, "include_prior_dominated")
    if keep_all and not preference:
        raise ParameterError("include_prior_dominated=True belongs to the preference report "
                             "(item= or first=/second=); the binary report has no such option")
    if preference:
        for option, value, default in (("threshold", threshold, None),
                                       ("prior", tuple(prior), (1, 1)),
                                       ("rate_prior", tuple(rate_prior), (1, 1))):
            if value != default:
                raise ParameterError(f"{option}={value!r} belongs to the binary model; the "
                                     "preference report (item= or first=/second=) fits "
                                     "binaryeval.fit_preferences, which has no such option")
        options = {"item": item, "first": first, "second": second, "tolerance": tolerance,
                   "lower_is_better": lower or None, "rates": rates, "level": level,
                   "seed": seed, "draws": draws, "chains": chains}
    else:
        # the binary report shows the exact binary model's fit: several metrics and partially
        # pooled rates are fitted by the latent-truth sampler, whose fit it does not show
        terms = parse_formula(formula).rhs_names
        latent = (f"several metrics ({', '.join(map(repr, terms))})" if len(terms) > 1
                  else "rates='hierarchical'" if isinstance(rates, str) and rates == "hierarchical"
                  else None)
        if latent:
            raise ParameterError(f"the report covers one metric with rates 'estimate', 'pooled' "
                                 f"or known values; {latent} are fitted by the latent-truth "
                                 "sampler, whose fit the report does not show yet: call "
                                 "binaryeval.fit(formula, data, ..., seed=...) in Python and "
                                 "read its summary() and to_frame()")
        options = {"threshold": threshold, "lower_is_better": lower or None, "rates": rates,
                   "prior": tuple(prior), "rate_prior": tuple(rate_prior), "level": level}
    with warnings.catch_warnings(record=True) as caught:
        # the report shows the fit's warnings (its summary notes and a section of their own)
        warnings.simplefilter("always")
        if preference:
            result = fit_preferences(formula, table, eval_env={}, **{
                k: v for k, v in options.items() if v is not None or k == "seed"})
        else:
            result = fit(formula, table, eval_env={}, **options)
    said = list(dict.fromkeys(str(w.message) for w in caught
                              if issubclass(w.category, BinaryEvalWarning)))
    # said once more to the caller (the command line prints them on stderr), not only inside
    # the page: a direction or dependence warning must not wait for someone to open the report
    shown = set()
    for w in caught:
        if issubclass(w.category, BinaryEvalWarning) and str(w.message) not in shown:
            shown.add(str(w.message))
            warn(str(w.message), w.category)
    is_file = source is not None and source.is_file()
    if source is None:
        name = name or "data frame"
    else:
        name = name or (source.name if is_file else str(data))
    if "seed" in options:
        options["seed"] = _seed_for_page(options["seed"])
    params = {"data": None if source is None else str(source.resolve()) if is_file else str(data),
              "string_columns": [] if source is None else names,
              "n_rows_read": n_read,
              "name": name, "query": query, "formula": formula, **options,
              "prior": list(prior), "rate_prior": list(rate_prior), "warnings": said,
              "include_prior_dominated": keep_all,
              "advice": "cli" if (command or "").startswith("binaryeval ") else "python",
              "command": command or (f"make_report({str(data)!r}, {formula!r})" if source
                                     else f"make_report(data, {formula!r})")}
    title = title or (f"Preference report: {name}" if preference
                      else f"Binary evaluation report: {name}")
    subtitle = formula + (f" (rows where {query})" if query else "")
    with tempfile.TemporaryDirectory(prefix="binaryeval-report-") as tmp:
        folder = Path(tmp)
        doc = folder / "report.qmd"
        doc.write_text(_report_document(report_template("preferences" if preference else "fit"),
                                        title, subtitle), encoding="utf-8")
        (folder / REPORT_PARAMS).write_text(json.dumps(params, indent=2), encoding="utf-8")
        with open(folder / REPORT_INPUTS, "wb") as inputs:
            pickle.dump((table, result), inputs, protocol=pickle.HIGHEST_PROTOCOL)
        written = render([doc], output_dir=folder / "html", engine=engine, timeout=timeout,
                         index=False)
        write_atomic(target, lambda tmp: shutil.copyfile(written[0], tmp))
    return target
