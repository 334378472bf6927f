"""`binaryeval report`: the template, its parameters, the planning table and a full rendering."""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import binaryeval as be
from binaryeval import cli, reports
from binaryeval.cli import main, separation_sample_sizes


def _human_only(spec: dict[str, tuple[int, int]]) -> pd.DataFrame:
    """k adequate outputs of n per system, human ratings only."""
    rows = [pd.DataFrame({"system": s, "human": np.r_[np.ones(k), np.zeros(n - k)]})
            for s, (k, n) in spec.items()]
    return pd.concat(rows, ignore_index=True)


def _beta_moments(k: int, n: int) -> tuple[float, float]:
    a, b = k + 1, n - k + 1  # Beta(1, 1) prior
    return a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))


# ---------------------------------------------------------------------------------------------
# planning table
# ---------------------------------------------------------------------------------------------

def test_separation_sample_sizes_closed_form():
    # human ratings only: posteriors Beta(1 + k, 1 + n - k), so means and sds are closed forms;
    # z = Phi^-1(0.975); factor = (z sqrt(v1 + v2) / diff)^2; n_needed = ceil(factor * n)
    spec = {"A": (30, 50), "B": (27, 50), "C": (10, 50)}
    res = be.fit("human ~ 1 | system", _human_only(spec))
    plan = separation_sample_sizes(res)
    # B vs C is separated (difference ~0.33, ~3.7 sds); A vs B is not
    assert plan[["system_1", "system_2"]].values.tolist() == [["A", "B"]]
    (ma, va), (mb, vb) = _beta_moments(*spec["A"]), _beta_moments(*spec["B"])
    z = stats.norm.ppf(0.975)
    factor = (z * math.sqrt(va + vb) / (ma - mb)) ** 2
    row = plan.iloc[0]
    assert row["diff"] == pytest.approx(ma - mb, rel=1e-9)
    assert row["std_error"] == pytest.approx(math.sqrt(va + vb), rel=1e-9)
    assert row["factor"] == pytest.approx(factor, rel=1e-8)
    assert row["n_needed_1"] == row["n_needed_2"] == math.ceil(factor * 50)
    assert row["more_1"] == math.ceil(factor * 50) - 50
    assert row["prob_greater"] == pytest.approx(res.posterior("A").prob_greater(res.posterior("B")))
    assert plan.attrs["z"] == pytest.approx(1.959963984540054)
    assert plan.attrs["n_pairs_not_separated"] == 1 and plan.attrs["level"] == 0.95


def test_separation_sample_sizes_level_unequal_n_and_ties():
    spec = {"A": (40, 60), "B": (30, 50), "C": (30, 50)}
    res = be.fit("human ~ 1 | system", _human_only(spec))
    cmp = res.compare(level=0.8)
    plan = separation_sample_sizes(res, level=0.8, comparison=cmp)
    assert plan.attrs["z"] == pytest.approx(stats.norm.ppf(0.9))
    # B and C hold the same counts: identical posteriors, a zero difference needs infinitely many
    tie = plan[(plan["system_1"] != "A")].iloc[0]
    assert tie["diff"] == 0 and math.isinf(tie["factor"]) and np.isnan(tie["n_needed_1"])
    first = plan.iloc[0]
    assert (first["system_1"], first["n_human_1"], first["n_human_2"]) == ("A", 60, 50)
    (ma, va), (mb, vb) = _beta_moments(40, 60), _beta_moments(30, 50)
    factor = (stats.norm.ppf(0.9) * math.sqrt(va + vb) / (ma - mb)) ** 2
    assert first["n_needed_1"] == math.ceil(60 * factor) and first["n_needed_2"] == math.ceil(50 * factor)
    with pytest.raises(be.ParameterError, match="comparison was made at level 0.8"):
        separation_sample_sizes(res, comparison=cmp)
    with pytest.raises(be.ParameterError, match="level=1.2"):
        separation_sample_sizes(res, level=1.2)


# ---------------------------------------------------------------------------------------------
# template and parameters
# ---------------------------------------------------------------------------------------------

def test_template_follows_the_document_rules():
    text = cli.report_template()
    nb = reports.read_qmd("report.qmd", text=text)
    assert nb.metadata["quarto"]["jupyter"] == "python3"
    assert nb.metadata["quarto"]["execute"] == {"echo": False, "warning": False}
    labels = [c.metadata["quarto"]["label"] for c in nb.cells if c.cell_type == "code"]
    assert not any(label.startswith("chunk-") for label in labels)  # every chunk is labelled
    assert len(labels) == len(set(labels))
    assert {"setup", "fit-summary", "plot-posterior", "plot-interval", "plot-compare", "plot-roc",
            "planning"} <= set(labels)
    doc = cli._report_document(text, "My title", "h ~ m | s")
    header, _ = reports._split_header(doc, "doc")
    assert header["title"] == "My title" and header["subtitle"] == "h ~ m | s"
    assert header["jupyter"] == "python3"


def test_report_parameters_and_default_output(tmp_path, capsys, monkeypatch):
    # render is replaced by a stand-in that records the filled template and its parameters
    seen = {}

    def fake_render(paths, output_dir, engine, timeout, index):
        doc = Path(paths[0])
        seen["doc"] = doc.read_text()
        seen["params"] = json.loads((doc.parent / cli.REPORT_PARAMS).read_text())
        seen["engine"], seen["index"] = engine, index
        Path(output_dir).mkdir(parents=True, exist_ok=True)
        target = Path(output_dir) / "report.html"
        target.write_text("<html>stand-in</html>")
        return [target]

    monkeypatch.setattr(reports, "render", fake_render)
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


def test_report_bad_input_fails_before_rendering(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(reports, "render", lambda *a, **k: pytest.fail("render must not run"))
    data = _human_only({"A": (30, 50), "B": (20, 50)})
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    with pytest.raises(be.FormulaError) as info:
        be.fit("human ~ 1 | sytem", data)
    assert main(["report", str(path), "--formula", "human ~ 1 | sytem", "-o", str(tmp_path / "r.html")]) == 1
    assert capsys.readouterr().err == f"binaryeval report: error: {info.value}\n"
    assert main(["report", str(tmp_path / "none.csv"), "--formula", "human ~ 1"]) == 1
    assert "DATA" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


# ---------------------------------------------------------------------------------------------
# full renderings (Jupyter kernel)
# ---------------------------------------------------------------------------------------------

def _text(markup: str) -> str:
    """Visible text of HTML: tags dropped, whitespace collapsed (nbconvert re-indents tables)."""
    import html

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
    # the fit's summary tables, as the Python API renders them
    assert _text(fit.summary().as_html()) in _text(page)
    assert "<title>Binary evaluation report: wmt21.csv</title>" in page
    # posterior, interval, comparison heatmap, ROC
    assert len(_IMG.findall(page)) == 4
    for caption in ("Figure 1: Posterior densities", "Figure 2: Posterior means", "Figure 3: Posterior probability",
                    "Figure 4: ROC curve of the metric"):
        assert caption in page
    assert "ROC of a scalar metric against binary human ratings" in page
    assert f"rows used</strong>: {fit.n_used:,}" in page
    assert f"rows</strong>: {len(data):,}" in page and "12 by <code>system</code>" in page
    excluded = fit.excluded["no rating (human and metric missing)"]
    assert f"{excluded:,} (no rating (human and metric missing))" in page
    assert "Planning: how many more human ratings?" in page and "human ratings needed per system" in page


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
    assert len(_IMG.findall(page)) == 2  # posterior and interval only
    assert "nothing to compare" in page and "no systems to separate" in page
    assert "ROC of a scalar metric" not in page
    assert "Figure 2: Posterior means" in page and "Figure 3" not in page


STAND_IN_QUARTO = """#!/usr/bin/env python3
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
    assert main(["report", str(path), "--formula", "human ~ 1 | system", "--engine", "quarto",
                 "-o", str(target)]) == 0
    assert target.read_text() == "<html>quarto:human ~ 1 | system</html>"
