"""`binaryeval report`: the template, its parameters, the planning table and a full rendering."""

from __future__ import annotations

import html
import json
import pickle
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import binaryeval as be
from binaryeval import _site, reports
from binaryeval._advice import as_flags
from binaryeval.cli import main


def _human_only(spec: dict[str, tuple[int, int]]) -> pd.DataFrame:
    """k adequate outputs of n per system, human ratings only."""
    rows = [pd.DataFrame({"system": s, "human": np.r_[np.ones(k), np.zeros(n - k)]})
            for s, (k, n) in spec.items()]
    return pd.concat(rows, ignore_index=True)


def _beta_moments(k: int, n: int) -> tuple[float, float]:
    a, b = k + 1, n - k + 1  # Beta(1, 1) prior
    return a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))


def test_template_follows_the_document_rules():
    text = reports.report_template()
    nb = _site.read_qmd("report.qmd", text=text)
    assert nb.metadata["quarto"]["jupyter"] == "python3"
    assert nb.metadata["quarto"]["execute"] == {"echo": False, "warning": False}
    labels = [c.metadata["quarto"]["label"] for c in nb.cells if c.cell_type == "code"]
    assert not any(label.startswith("chunk-") for label in labels)  # every chunk is labelled
    assert len(labels) == len(set(labels))
    assert {"setup", "fit-summary", "plot-posterior", "plot-interval", "plot-compare", "plot-roc",
            "planning"} <= set(labels)
    doc = reports.user_report._report_document(text, "My title", "h ~ m | s")
    header, _ = _site.documents._split_header(doc, "doc")
    assert header["title"] == "My title" and header["subtitle"] == "h ~ m | s"
    assert header["jupyter"] == "python3"


def test_report_parameters_and_default_output(tmp_path, capsys, monkeypatch):
    # render is replaced by a stand-in that records the filled template and its parameters
    seen = {}

    def fake_render(paths, output_dir, engine, timeout, index):
        doc = Path(paths[0])
        seen["doc"] = doc.read_text()
        seen["params"] = json.loads((doc.parent / reports.user_report.REPORT_PARAMS).read_text())
        seen["engine"], seen["index"] = engine, index
        Path(output_dir).mkdir(parents=True, exist_ok=True)
        target = Path(output_dir) / "report.html"
        target.write_text("<html>stand-in</html>")
        return [target]

    monkeypatch.setattr(reports.user_report, "render", fake_render)
    data = _human_only({"A": (30, 50), "B": (20, 50)}).assign(score=np.linspace(0, 1, 100))
    data.to_csv(tmp_path / "ratings.csv", index=False)
    monkeypatch.chdir(tmp_path)
    assert main(["report", "ratings.csv", "--formula", "human ~ score | system", "--threshold", "0.5",
                 "--rates", "pooled", "--prior", "2,2", "--query", "system != 'C'"]) == 0
    assert capsys.readouterr().out == "ratings-report.html\n"
    assert (tmp_path / "ratings-report.html").read_text() == "<html>stand-in</html>"
    params = seen["params"]
    assert params["data"] == str(tmp_path / "ratings.csv")  # absolute
    assert params["formula"] == "human ~ score | system" and params["threshold"] == 0.5
    assert params["rates"] == "pooled" and params["prior"] == [2.0, 2.0]
    assert params["query"] == "system != 'C'" and params["level"] == 0.95
    assert params["command"] == ("binaryeval report ratings.csv --formula 'human ~ score | system' "
                                 "--query 'system != '\"'\"'C'\"'\"'' --threshold 0.5 --rates pooled "
                                 "--prior 2,2")
    assert seen["engine"] == "jupyter" and seen["index"] is False
    assert "title: 'Binary evaluation report: ratings.csv'" in seen["doc"]


def test_reports_exports_the_user_report_only():
    # the site builder is a tool (binaryeval render), not beside fit in the API
    assert reports.__all__ == ["make_report", "report_template"]
    assert not any(name in dir(be) for name in ("render", "build_site", "read_qmd"))
    with pytest.raises(AttributeError, match=r"binaryeval\.reports\.render belongs to the site "
                                             r"builder.*binaryeval render.*binaryeval\._site\.render"):
        reports.render  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        reports.nothing  # noqa: B018


def test_report_fits_once_on_a_data_frame_in_memory(tmp_path, monkeypatch):
    # make_report fits the model once, in the calling process, and hands the rows it used and
    # the fitted result to the template (which does not fit again: see the next test)
    fits = []
    real_fit = reports.user_report.fit

    def counting_fit(*args, **kwargs):
        fits.append(args[0])
        return real_fit(*args, **kwargs)

    seen = {}

    def fake_render(paths, output_dir, engine, timeout, index):
        doc = Path(paths[0])
        seen["params"] = json.loads((doc.parent / reports.user_report.REPORT_PARAMS).read_text())
        with open(doc.parent / reports.user_report.REPORT_INPUTS, "rb") as inputs:
            seen["data"], seen["result"] = pickle.load(inputs)
        Path(output_dir).mkdir(parents=True, exist_ok=True)
        target = Path(output_dir) / "report.html"
        target.write_text("<html>stand-in</html>")
        return [target]

    monkeypatch.setattr(reports.user_report, "fit", counting_fit)
    monkeypatch.setattr(reports.user_report, "render", fake_render)
    data = _human_only({"A": (30, 50), "B": (20, 50), "C": (5, 10)})
    out = reports.make_report(data, "human ~ 1 | system", query="system != 'C'",
                              output=tmp_path / "r.html")
    assert out == tmp_path / "r.html" and out.read_text() == "<html>stand-in</html>"
    assert fits == ["human ~ 1 | system"]
    pd.testing.assert_frame_equal(seen["data"], data[data.system != "C"].reset_index(drop=True))
    # human ratings only, Beta(1, 1) prior: the posterior of alpha is Beta(k + 1, n - k + 1)
    frame = seen["result"].to_frame()
    for system, (k, n) in {"A": (30, 50), "B": (20, 50)}.items():
        assert frame.loc[system, "estimate"] == pytest.approx(_beta_moments(k, n)[0], abs=1e-12)
    params = seen["params"]
    assert params["data"] is None and params["name"] == "data frame"
    assert params["command"] == "make_report(data, 'human ~ 1 | system')"


def test_report_template_reads_the_fit_it_is_given():
    # no chunk of the template fits a model or reads the data itself: the kernel gets both from
    # make_report, so a report costs one fit, and a data frame in memory works as well as a file
    import ast

    nb = _site.read_qmd("report.qmd", text=reports.report_template())
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    called = {node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
              for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Call)}
    assert "roc" in called and "load" in called  # the walk sees the template's calls
    assert not called & {"fit", "fit_counts", "fit_latent", "fit_preferences", "read_table",
                         "read_csv", "read_parquet", "read_json"}


def test_report_of_a_data_frame_in_memory(tmp_path):
    # a frame with dtypes a file would not keep (nullable integers, a categorical system)
    rng = np.random.default_rng(5)
    n = 240
    good = rng.random(n) < 0.6
    data = pd.DataFrame({
        "system": pd.Categorical(np.repeat(["sysA", "sysB"], n // 2)),
        "human": pd.array(np.where(np.arange(n) % 3 == 0, good, pd.NA), dtype="Int64"),
        "metric": np.where(good, rng.random(n) < 0.85, rng.random(n) < 0.2).astype(int)})
    target = reports.make_report(data, "human ~ metric | system", output=tmp_path / "mem.html")
    page = target.read_text()
    _assert_clean(page)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = be.fit("human ~ metric | system", data)
    assert _text(fit.summary().as_html()) in _text(page)
    assert "<title>Binary evaluation report: data frame</title>" in page
    assert "the pandas DataFrame the report was made from" in _text(page)
    assert f"rows used</strong>: {fit.n_used:,}" in page


def test_report_bad_input_fails_before_rendering(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(reports.user_report, "render", lambda *a, **k: pytest.fail("render must not run"))
    data = _human_only({"A": (30, 50), "B": (20, 50)})
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    with pytest.raises(be.FormulaError) as info:
        be.fit("human ~ 1 | sytem", data)
    assert main(["report", str(path), "--formula", "human ~ 1 | sytem", "-o", str(tmp_path / "r.html")]) == 1
    assert capsys.readouterr().err == f"binaryeval report: error: {info.value}\n"
    assert main(["report", str(tmp_path / "none.csv"), "--formula", "human ~ 1"]) == 1
    assert "none.csv' is neither a file nor a shipped dataset" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


# ---------------------------------------------------------------------------------------------
# full renderings (Jupyter kernel)
# ---------------------------------------------------------------------------------------------

def _text(markup: str) -> str:
    """Visible text of HTML: tags dropped, whitespace collapsed (nbconvert re-indents tables)."""
    import html

    # a column name may carry a break opportunity after its underscores (<wbr>): no space there
    markup = re.sub(r"<wbr\s*/?>", "", markup)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


_IMG = re.compile(r'<img[^>]+src="data:image/png;base64,')


def _assert_clean(page: str) -> None:
    # nbconvert marks each output with its MIME type; stderr streams and errors must not be there
    kinds = set(re.findall(r'data-mime-type="([^"]+)"', page))
    assert kinds and kinds <= {"text/html", "text/markdown", "image/png", "text/plain"}, kinds
    assert "Traceback" not in page and "Error:" not in page


@pytest.mark.slow
def test_report_on_wmt21(tmp_path, capsys):
    # WMT21 en-de MQM ratings, without the five metric-only "metricsystem" groups so that the
    # pairwise comparison (a quadrature per pair) stays short: 12 systems, 66 pairs, ~20 s in all
    data = be.datasets.load_wmt21_ende()
    path = tmp_path / "wmt21.csv"
    data.to_csv(path, index=False)
    query = "system not in " + str([f"metricsystem{i}" for i in range(1, 6)])
    data = data.query(query).reset_index(drop=True)
    target = tmp_path / "out" / "report.html"
    target.parent.mkdir()  # the report's folder must exist (a missing one is a usage error)
    formula = "I(mqm == 0) ~ chrf | system"
    assert main(["report", str(path), "--formula", formula, "--threshold", "balanced", "--query", query,
                 "-o", str(target)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"{target}\n" and "error" not in captured.err
    page = target.read_text()
    _assert_clean(page)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = be.fit(formula, data, threshold="balanced")
    # the fit's summary tables, as the Python API renders them (its notes' advice written as
    # the command line's flags: the report was made by `binaryeval report`)
    summary = fit.summary()
    summary.notes = [as_flags(note) for note in summary.notes]
    assert _text(summary.as_html()) in _text(page)
    assert "rates='pooled'" not in page and "--rates pooled" in page
    # the counts table's sum row, with thousands separators as in the text
    total = fit.to_frame(rate_intervals=False)[["n_human", "n_metric"]].sum()
    assert int(total.n_metric) > 999
    assert f"{int(total.n_human):,}" in page and f"{int(total.n_metric):,}" in page
    assert "<title>Binary evaluation report: wmt21.csv</title>" in page
    # interval (forest) plot, comparison heatmap, ROC; no density plot for 12 groups (their
    # curves would overlap)
    assert len(_IMG.findall(page)) == 3
    for caption in ("Figure 1: Posterior means", "Figure 2: Posterior probability",
                    "Figure 3: ROC curve of the metric"):
        assert caption in page
    assert "Posterior densities" not in page
    # the identifiability note is explained for the groups the fit flags
    flagged = [g for g, p in fit.unidentified.items() if p > 0.05]
    assert flagged and "About the identifiability note" in page
    assert all(f"{g} ({fit.unidentified[g]:.2f})" in page for g in flagged)
    # the Reproduce code is a code block; the page loads nothing from elsewhere
    reproduce = page[page.index("The same fit in Python"):]
    block = re.search(r"<pre>(.*?)</pre>", reproduce, re.S)
    assert block and "binaryeval.fit(" in html.unescape(re.sub(r"<[^>]+>", "", block.group(1)))
    assert not re.search(r"<(?:script|link|img|iframe)[^>]+(?:src|href)=\"(?:https?:)?//", page)
    assert "<style>" in page and ".navbar" in page  # the site's stylesheet, inlined
    assert "ROC of a scalar metric against binary human ratings" in page
    assert f"rows used</strong>: {fit.n_used:,}" in page
    assert f"rows</strong>: {len(data):,}" in page and "12 by <code>system</code>" in page
    excluded = fit.excluded["no rating (human and metric missing)"]
    assert f"{excluded:,} no rating (human and metric missing)" in page
    assert "Planning: how many more human ratings?" in page and "more per system" in page
    assert "About the contradiction note" not in page   # real data: the two kinds of rows agree


@pytest.mark.slow
def test_report_one_group_binary_metric_parquet(tmp_path, capsys):
    # one group and a binary metric: no comparison, no ROC, no planning table
    rng = np.random.default_rng(7)
    n = 300
    good = rng.random(n) < 0.6
    data = pd.DataFrame({"human": np.where(np.arange(n) < 80, good, None),
                         "metric": np.where(good, rng.random(n) < 0.85, rng.random(n) < 0.2).astype(int)})
    path = tmp_path / "one.parquet"
    data.to_parquet(path)
    target = tmp_path / "one.html"
    assert main(["report", str(path), "--formula", "human ~ metric", "--title", "One group",
                 "-o", str(target)]) == 0
    page = target.read_text()
    _assert_clean(page)
    assert "<title>One group</title>" in page
    assert _text(be.fit("human ~ metric", data).summary().as_html()) in _text(page)
    assert len(_IMG.findall(page)) == 2  # interval and posterior only
    assert "nothing to compare" in page and "no systems to separate" in page
    assert "ROC of a scalar metric" not in page
    assert "Figure 1: Posterior means" in page and "Figure 2: Posterior densities" in page
    assert "Figure 3" not in page


STAND_IN_QUARTO = """#!/usr/bin/env python3
import html
import json
import sys
from pathlib import Path
args = sys.argv[1:]
doc = Path(args[1])
params = json.loads((doc.parent / "report-params.json").read_text())
out = Path(args[args.index("--output-dir") + 1])
out.mkdir(parents=True, exist_ok=True)
(out / (doc.stem + ".html")).write_text("<html>quarto:" + params["formula"] + "</html>")
"""


def test_report_quarto_engine(tmp_path, capsys, monkeypatch):
    # a stand-in quarto on PATH reads the parameters beside the document it is given
    import os

    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "quarto"
    script.write_text(STAND_IN_QUARTO)
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    path = tmp_path / "d.csv"
    _human_only({"A": (30, 50), "B": (20, 50)}).to_csv(path, index=False)
    target = tmp_path / "sub" / "r.html"
    target.parent.mkdir()
    assert main(["report", str(path), "--formula", "human ~ 1 | system", "--engine", "quarto",
                 "-o", str(target)]) == 0
    assert target.read_text() == "<html>quarto:human ~ 1 | system</html>"


def test_report_of_a_lower_is_better_score(tmp_path, capsys):
    # a TER-like penalty (lower is better): the report's fit, ROC curve, wording and the code
    # that reproduces it all carry the direction; the result equals the API's
    rng = np.random.default_rng(11)
    n = 400
    human = rng.integers(0, 2, n).astype(float)
    penalty = np.round(1.0 - 0.6 * human + rng.normal(0, 0.5, n), 3)
    human[n // 2:] = np.nan  # half the outputs have a metric rating only
    data = pd.DataFrame({"system": np.repeat(["sys2", "sys10"], n // 2)[rng.permutation(n)],
                         "ok": human, "ter": penalty})
    path = tmp_path / "ter.csv"
    data.to_csv(path, index=False)
    target = tmp_path / "ter.html"
    formula = "ok ~ ter | system"
    assert main(["report", str(path), "--formula", formula, "--threshold", "balanced",
                 "--lower-is-better", "ter", "-o", str(target)]) == 0
    assert "DirectionWarning" not in capsys.readouterr().err
    page = target.read_text()
    fit = be.fit(formula, pd.read_csv(path), threshold="balanced", lower_is_better="ter")
    assert _text(fit.summary().as_html()) in _text(page)
    assert f"positive when the score is at most {fit.threshold:.6g}" in page
    assert "score &lt;= threshold" in page  # the ROC summary and the fit's threshold line
    plain = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "lower_is_better=['ter']" in plain
    assert "--lower-is-better ter" in page


@pytest.mark.slow
def test_report_explains_a_contradiction(tmp_path, capsys):
    # system B's metric-only rows are all positive although its paired rows show the metric
    # rejecting most outputs: the summary's note and the report's explanation name B, not A
    rng = np.random.default_rng(3)
    parts = []
    for system, metric_only in (("A", None), ("B", 1)):
        good = rng.random(400) < 0.5
        metric = np.where(good, rng.random(400) < 0.4, rng.random(400) < 0.1).astype(int)
        human = np.where(np.arange(400) < 100, good.astype(float), np.nan)
        if metric_only is not None:
            metric[100:] = metric_only
        parts.append(pd.DataFrame({"system": system, "human": human, "metric": metric}))
    data = pd.concat(parts, ignore_index=True)
    path = tmp_path / "odd.csv"
    data.to_csv(path, index=False)
    target = tmp_path / "odd.html"
    with pytest.warns(be.ContradictionWarning, match=r"In 1 of 2 groups .* B: 100% of 300"):
        be.fit("human ~ metric | system", data)
    assert main(["report", str(path), "--formula", "human ~ metric | system", "-o",
                 str(target)]) == 0
    page = _text(target.read_text())
    assert "About the contradiction note." in page
    assert "In B the share it accepted among the metric-only outputs" in page


def test_report_of_hostile_names_has_no_live_markup(tmp_path, capsys):
    """System names, column names and the file name are HTML/JS payloads: the page shows them
    as text, in the summary, the notes, the planning table and the Reproduce code, and holds no
    script, event handler, javascript: URL or foreign element; it carries a policy that runs no
    script."""
    from htmlchecks import content_security_policy, live_markup, soup

    rng = np.random.default_rng(3)
    s_script, s_svg = "<script>alert('sys')</script>", "<svg onload=alert('svg')>"
    s_tick = "`x`<img src=x onerror=alert('tick')>**b** [l](javascript:alert('md')) $\\frac$"
    human = "human<script>alert('col')</script>"
    metric = "score`<img src=x onerror=alert('mcol')>`"
    parts = []
    # s_svg: metric-only rows all above the threshold (a contradiction note); s_tick: 6 paired
    # rows (an identifiability note); three groups (a planning table)
    for system, contradiction, n_human in ((s_script, False, 100), (s_svg, True, 100),
                                           (s_tick, False, 6)):
        good = rng.random(400) < 0.5
        score = np.where(good, rng.normal(0.7, 0.2, 400), rng.normal(0.4, 0.2, 400))
        if contradiction:
            score[100:] = 0.99
        parts.append(pd.DataFrame({"system": system, metric: score,
                                   human: np.where(np.arange(400) < n_human, good * 1.0, np.nan)}))
    path = tmp_path / "data`<img src=x onerror=alert('file')>`.csv"
    pd.concat(parts, ignore_index=True).to_csv(path, index=False)
    target = tmp_path / "report.html"
    formula = f'Q("{human}") ~ Q("{metric}") | system'
    assert main(["report", str(path), "--formula", formula, "--threshold", "balanced",
                 "-o", str(target)]) == 0, capsys.readouterr().err
    page = target.read_text()
    assert live_markup(page) == []
    policy = content_security_policy(page)
    assert policy is not None and "script-src 'none'" in policy and "default-src 'none'" in policy
    text = " ".join(soup(page).get_text(" ").split())
    for name in (s_script, s_svg, s_tick, human, metric, path.name):
        assert name in text, name  # shown as text
    for raw in ("<script>alert", "<svg onload", "<img src=x"):
        assert raw not in page, raw  # never written as markup
    assert "&lt;script&gt;alert(" in page and "&lt;svg onload=" in page  # written escaped
    # the places that once took names unescaped each show them
    note = text[text.index("About the contradiction note"):]
    assert f"In {s_svg} the share it accepted" in note
    note = text[text.index("About the identifiability note"):]
    assert f"(here: {s_tick} (" in note
    planning = text[text.index("Planning: how many more human ratings?"):]
    assert s_script in planning and s_tick in planning
    reproduce = soup(page).find("div", class_="highlight").get_text("")
    assert path.name in reproduce and f"binaryeval.fit(\n    {formula!r},\n    data," in reproduce
    # one argument a line: no line of the call runs far beyond the formula's
    call = reproduce[reproduce.index("binaryeval.fit("):].split("print(")[0]
    assert max(map(len, call.splitlines())) <= max(80, len(repr(formula)) + 6)
    assert len(_IMG.findall(page)) == 4  # every figure drawn ("$" in a name is no TeX)


def test_a_group_called_total_keeps_its_row_and_an_existing_report_is_kept(tmp_path):
    # the counts table's sum row was written over a group named "total"; and make_report
    # replaced an existing file by default (the command line refuses it without --overwrite)
    rng = np.random.default_rng(4)
    parts = []
    for system in ("total", "B"):
        good = rng.random(60) < 0.6
        metric = np.where(good, rng.random(60) < 0.85, rng.random(60) < 0.2).astype(int)
        human = np.where(np.arange(60) < 20, good * 1.0, np.nan)   # 20 paired, 40 metric-only
        parts.append(pd.DataFrame({"system": system, "human": human, "metric": metric}))
    data = pd.concat(parts, ignore_index=True)
    target = tmp_path / "r.html"
    target.write_text("keep me")
    with pytest.raises(be.OutputError, match="overwrite=True"):
        reports.make_report(data, "human ~ metric | system", output=target)
    assert target.read_text() == "keep me"
    reports.make_report(data, "human ~ metric | system", output=target, overwrite=True)
    from htmlchecks import soup

    text = " ".join(soup(target.read_text()).get_text(" ").split())
    assert "total 20 20 40" in text and "B 20 20 40" in text and "(total) 40 40 80" in text


def test_the_reproduce_code_reads_the_file_as_the_report_did(tmp_path):
    # systems "007", "7" and "NA" in a CSV: the report reads the grouping column as written
    # (three systems); its Reproduce code read the file with pd.read_csv (one system "7.0" and
    # the "NA" rows dropped).  Run, the code now gives the report's fit.
    from htmlchecks import soup

    rng = np.random.default_rng(5)
    parts = []
    for system in ("007", "7", "NA"):
        good = rng.random(80) < 0.6
        metric = np.where(good, rng.random(80) < 0.85, rng.random(80) < 0.2).astype(int)
        parts.append(pd.DataFrame({"system": system, "metric": metric,
                                   "human": np.where(np.arange(80) < 30, good * 1.0, np.nan)}))
    path = tmp_path / "ratings.csv"
    pd.concat(parts, ignore_index=True).to_csv(path, index=False)
    formula = "human ~ metric | system"
    target = reports.make_report(path, formula, output=tmp_path / "r.html")
    code = soup(target.read_text()).find("div", class_="highlight").get_text("")
    assert "string_columns=['system']" in code and "read_csv" not in code
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code.replace("print(", "str("), namespace)  # noqa: S102 (the page's own code)
        want = be.fit(formula, be.read_table(path, string_columns=["system"])).to_frame()
    got = namespace["result"].to_frame()
    assert sorted(got.index) == ["007", "7", "NA"]
    pd.testing.assert_frame_equal(got, want)


def test_reports_of_what_the_binary_report_cannot_show_are_refused_up_front(tmp_path):
    # several metrics and rates='hierarchical' give the latent sampler's fit, which the binary
    # report's template cannot read (it failed after the fit, with an AttributeError)
    data = pd.DataFrame({"system": ["A", "B"] * 20, "human": [1, 0, np.nan, 1] * 10,
                         "m1": [1, 0, 1, 1] * 10, "m2": [0, 0, 1, 1] * 10})
    for formula, kw, said in (("human ~ m1 + m2 | system", {}, "several metrics ('m1', 'm2')"),
                              ("human ~ m1 | system", {"rates": "hierarchical"},
                               "rates='hierarchical'")):
        with pytest.raises(be.ParameterError, match=re.escape(said)):
            reports.make_report(data, formula, output=tmp_path / "r.html", **kw)
    assert not (tmp_path / "r.html").exists()


def test_a_numpy_seed_is_written_to_the_page_parameters():
    # a Generator or SeedSequence seed made json.dumps fail after the fit (raw TypeError)
    from binaryeval.reports.user_report import _seed_for_page

    assert _seed_for_page(np.int64(3)) == 3 and _seed_for_page(None) is None
    assert _seed_for_page(7) == 7
    for seed in (np.random.default_rng(1), np.random.SeedSequence(2)):
        text = _seed_for_page(seed)
        assert isinstance(text, str) and json.loads(json.dumps(text)) == text
        assert type(seed).__name__ in text


@pytest.mark.parametrize("height", [2.6, 5.2])
def test_interval_plot_legend_sits_below_the_axis_label(height):
    # the forest plot of the report and the site: a legend inside the axes once covered the end
    # of an interval (no corner of such a plot is free of markers), so it hangs below the label
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from binaryeval._site.theme import set_theme

    set_theme()
    frame = pd.DataFrame({"human_pos": [30, 60, 45], "human_total": [100, 100, 100],
                          "metric_pos": [300, 700, 500], "metric_total": [1000] * 3,
                          "tp": [20, 50, 35], "fn": [10, 10, 10], "tn": [60, 30, 45],
                          "fp": [10, 10, 10]},
                         index=pd.Index(["A", "B", "C"], name="system"))
    fig, ax = plt.subplots(figsize=(7.2, height))
    try:
        be.fit_counts(frame).plot(ax, kind="interval")
        fig.tight_layout()
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        legend = ax.get_legend().get_window_extent(renderer)
        axis = ax.xaxis.get_tightbbox(renderer)  # tick labels and the axis label
        assert legend.y1 <= axis.y0 < ax.get_window_extent(renderer).y0
        assert {t.get_text() for t in ax.get_legend().get_texts()} == {
            "posterior mean, 95% credible interval", "naive (metric share)"}
    finally:
        plt.close(fig)


def test_a_query_says_what_it_left_out_and_the_reproduce_code_runs_it_as_the_report_did(tmp_path):
    # systems 1, 2 and 3 in a CSV and --query "system != 3": the report said "rows: 160" with
    # no word of the 240 rows in the file, and its Reproduce code ran DataFrame.query on the
    # systems read as text, where "system != 3" keeps every row (a fit of three systems)
    from htmlchecks import soup

    rng = np.random.default_rng(8)
    parts = []
    for system in (1, 2, 3):
        good = rng.random(80) < 0.6
        metric = np.where(good, rng.random(80) < 0.85, rng.random(80) < 0.2).astype(int)
        parts.append(pd.DataFrame({"system": system, "metric": metric,
                                   "human": np.where(np.arange(80) < 30, good * 1.0, np.nan)}))
    path = tmp_path / "ratings.csv"
    pd.concat(parts, ignore_index=True).to_csv(path, index=False)
    formula = "human ~ metric | system"
    target = reports.make_report(path, formula, query="system != 3", output=tmp_path / "r.html")
    page = soup(target.read_text())
    text = " ".join(page.get_text("").split())
    assert "rows: 160 of 240 (the query left out 80)" in text
    # the planning table's columns are named as the sentence above it explains them (the
    # header was "separated now from", which nothing explained)
    plan = next(t for t in page.find_all("table")
                if "more per system" in [th.get_text() for th in t.find_all("th")])
    heads = [th.get_text() for th in plan.find("thead").find_all("th")]
    assert "smallest difference separated now" in heads
    # its numbers right-aligned with their headers, the names and notes left
    css = " ".join(s.get_text() for s in page.find_all("style"))
    for column, side in (("higher", "left"), ("difference", "right"), ("more per system", "right"),
                         ("note", "left")):
        i = heads.index(column)
        for cell in ("td", "th"):
            rule = re.search(rf"#{plan['id']} {cell}\.col{i} \{{\s*text-align: (\w+);", css)
            assert (rule.group(1) if rule else "left") == side, (column, cell)
    assert "smallest difference separated now the difference the ratings at hand would " \
        "already separate" in " ".join(page.get_text(" ").split())
    code = page.find("div", class_="highlight").get_text("")
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code.replace("print(", "str("), namespace)  # noqa: S102 (the page's own code)
    assert sorted(namespace["result"].groups) == ["1", "2"]


def test_posterior_plot_legend_covers_no_curve():
    # five posteriors side by side: the legend inside the axes covered the tops of the curves
    # that peak near its corner; it now hangs below the axis label
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from binaryeval._site.theme import set_theme

    set_theme()
    pos = [52, 55, 58, 61, 64]
    frame = pd.DataFrame({"human_pos": pos, "human_total": [100] * 5},
                         index=pd.Index([f"system {i}" for i in range(5)], name="system"))
    fig, ax = plt.subplots(figsize=(7.2, 4))
    try:
        be.fit_counts(frame).plot(ax, kind="posterior")
        fig.tight_layout()
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        legend = ax.get_legend().get_window_extent(renderer)
        assert legend.y1 <= ax.xaxis.get_tightbbox(renderer).y0
        assert len(ax.get_legend().get_texts()) == 5
    finally:
        plt.close(fig)


def test_the_report_says_why_a_group_without_metric_ratings_shows_nan(tmp_path):
    # WMT21 en-de's reference translations and metric-task systems have MQM but no chrF: the
    # summary showed NaN under naive, rho and eta for them, and no sentence said why
    rng = np.random.default_rng(6)
    good = rng.random(120) < 0.6
    rated = pd.DataFrame({"system": "A", "human": np.where(np.arange(120) < 60, good * 1.0, np.nan),
                          "metric": np.where(good, rng.random(120) < 0.85,
                                             rng.random(120) < 0.2).astype(float)})
    unrated = _human_only({"B <i>": (30, 50), "C": (20, 50)}).assign(metric=np.nan)
    data = pd.concat([rated, unrated], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        target = reports.make_report(data, "human ~ metric | system",
                                     output=tmp_path / "r.html")
    page = target.read_text()
    _assert_clean(page)
    assert "NaN under naive, rho and eta: these 2 groups have no metric rating" in _text(page)
    assert "their human ratings alone: B &lt;i&gt;, C." in page
    # every figure says what it shows (its alt text was "Figure"), names escaped
    from htmlchecks import soup

    alts = [img["alt"] for img in soup(page).find_all("img")]
    assert len(alts) == 3 and "Figure" not in alts, alts
    assert alts[0].startswith("Interval plot of alpha for 3 groups, highest first: ")
    assert alts[1] == ("Density curves of the posterior of alpha, one per group, peaking "
                       "between 0.40 and 0.60.")
    assert alts[2].startswith("Heatmap of the probability")


def test_the_comparison_heatmap_writes_probabilities_by_the_package_rule():
    # a pair whose P(alpha_1 > alpha_2) is 0.99999 read "1.00" in the heatmap (and its mirror
    # "0.00"), as if certain; the cells now read "> 0.99" and "< 0.01", the others two decimals
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fit = be.fit_counts({"A": {"human_pos": 62, "human_total": 100},
                         "B": {"human_pos": 40, "human_total": 100},
                         "C": {"human_pos": 42, "human_total": 100}})
    p = fit.compare().matrix()
    assert 0.995 < p.loc["A", "B"] < 1 and 0.005 < p.loc["B", "C"] < 0.995
    fig, ax = plt.subplots()
    try:
        fit.compare().plot(ax)
        cells = [t.get_text() for t in ax.texts]
        assert "> 0.99" in cells and "< 0.01" in cells and "1.00" not in cells
        assert f"{p.loc['B', 'C']:.2f}" in cells and "0.00" not in cells
    finally:
        plt.close(fig)


# ---------------------------------------------------------------------------------------------
# which rows were left out
# ---------------------------------------------------------------------------------------------

def _left_out_data(n_unrated: int) -> pd.DataFrame:
    """Two systems of 60 rows; the first ``n_unrated`` rows of B rated by no one, one row of A
    without a system; hostile row labels among them."""
    rng = np.random.default_rng(8)
    good = rng.random(120) < 0.6
    data = pd.DataFrame({
        "system": np.repeat(["A", "B"], 60),
        "human": np.where(np.arange(120) % 2 == 0, good, np.nan),
        "metric": np.where(good, rng.random(120) < 0.85, rng.random(120) < 0.2).astype(float)},
        index=pd.Index([f"id{i}" for i in range(120)], name="<i>row</i>"))
    data.loc[data.index[60:60 + n_unrated], ["human", "metric"]] = np.nan
    data.loc[data.index[3], "system"] = None
    labels = data.index.tolist()
    labels[3], labels[61] = "<script>alert('row')</script>", "<img src=x onerror=alert(1)>"
    data.index = pd.Index(labels, name="<i>row</i>")
    return data


def test_the_left_out_rows_table_lists_the_first_rows_escaped_and_counts_the_rest():
    from htmlchecks import live_markup, soup

    from binaryeval.reports.user_report import left_out_html

    fit = be.fit("human ~ metric | system", _left_out_data(25))
    table = left_out_html(fit)
    assert live_markup(table) == []
    cells = [[td.get_text() for td in tr.find_all("td")] for tr in soup(table).find_all("tr")[1:]]
    rows = fit.excluded_rows
    assert cells == [[str(k), v] for k, v in rows.iloc[:20].items()]
    assert cells[0] == ["<script>alert('row')</script>", "missing group"]
    assert cells[2] == ["<img src=x onerror=alert(1)>", "no rating (human and metric missing)"]
    assert soup(table).find("th").get_text() == "<i>row</i>"
    assert "and 6 more" in soup(table).get_text() and len(rows) == 26
    assert "the first 20 of 26" in soup(table).get_text()
    # all of them fit: no "more"; none left out: no table
    few = left_out_html(be.fit("human ~ metric | system", _left_out_data(2)))
    assert "more" not in few and len(soup(few).find_all("tr")) == 4
    assert left_out_html(be.fit("human ~ metric | system", _left_out_data(0).iloc[4:])) == ""
    assert left_out_html(be.fit_counts({"human_pos": 6, "human_total": 10})) == ""


def test_the_report_lists_the_rows_left_out_as_text(tmp_path):
    from htmlchecks import live_markup, soup

    data = _left_out_data(25)
    target = reports.make_report(data, "human ~ metric | system", output=tmp_path / "rows.html")
    page = target.read_text()
    _assert_clean(page)
    assert live_markup(page) == []
    for raw in ("<script>alert('row')", "<img src=x", "<i>row</i>"):
        assert raw not in page, raw
    text = " ".join(soup(page).get_text(" ").split())
    assert "Rows left out (the first 20 of 26, in data order)" in text
    assert "<script>alert('row')</script> missing group" in text
    assert "<img src=x onerror=alert(1)> no rating (human and metric missing)" in text
    assert "and 6 more" in text
    assert "id78" in text and "id79" not in text     # the 20th left-out row shown, not the 21st
