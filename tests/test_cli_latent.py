"""The command line reaches the latent-truth model: ``fit --bins``, several metric terms, the
``preferences`` command, the preference report; advice names the command line's flags."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import binaryeval as be
from binaryeval._advice import as_flags
from binaryeval.cli import main
from binaryeval.errors import ConvergenceWarning


def _ratings(seed=0, n=400, rated=120):
    rng = np.random.default_rng(seed)
    rows = []
    for system, alpha in (("A", 0.7), ("B", 0.5)):
        truth = rng.random(n) < alpha
        rows.append(pd.DataFrame({
            "system": system, "human": np.where(np.arange(n) < rated, truth, np.nan),
            "m1": np.where(truth, rng.random(n) < 0.8, rng.random(n) < 0.3).astype(int),
            "m2": np.where(truth, rng.random(n) < 0.75, rng.random(n) < 0.3).astype(int),
            "score": truth + rng.normal(0, 0.8, n)}))
    return pd.concat(rows, ignore_index=True)


def _scores(seed=1, items=150, rated=50):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        for s, q in (("A", 0.4), ("B", 0.0), ("C", -0.3)):
            h = np.round(q + rng.normal(), 0)
            rows.append({"seg": i, "sys": s, "penalty": -h if i < rated else np.nan,
                         "met": q + rng.normal(0, 0.8)})
    return pd.DataFrame(rows)


@pytest.fixture()
def table(tmp_path):
    path = tmp_path / "ratings.csv"
    _ratings().to_csv(path, index=False)
    return path


@pytest.fixture()
def scores(tmp_path):
    path = tmp_path / "scores.csv"
    _scores().to_csv(path, index=False)
    return path


def _quiet_api(func, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return func(*args, **kw)


def test_fit_bins_and_several_metrics_are_the_api(table, tmp_path, capsys):
    data = pd.read_csv(table)
    for formula, extra, api in (
            ("human ~ score | system", ["--bins", "3"], {"bins": 3}),
            ("human ~ m1 + m2 | system", [], {}),
            ("human ~ m1 + score | system", ["--bins", "score=4"], {"bins": {"score": 4}})):
        out = tmp_path / "fit.csv"
        code = main(["fit", formula, "--data", str(table), "--seed", "2", "--draws", "200",
                     "-o", str(out), "--overwrite", *extra])
        assert code == 0, capsys.readouterr().err
        got = pd.read_csv(out).set_index("system")
        want = _quiet_api(be.fit, formula, data, seed=2, draws=200, **api).to_frame()
        np.testing.assert_allclose(got["estimate"], want["estimate"], rtol=1e-12)
    # --compare and --plan of a binned fit
    assert main(["fit", "human ~ score | system", "--data", str(table), "--bins", "3",
                 "--seed", "2", "--draws", "200", "--compare", "-f", "csv"]) == 0
    comp = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert {"group_1", "group_2", "diff", "lower", "upper", "prob_greater"} <= set(comp.columns)
    assert main(["fit", "human ~ score | system", "--data", str(table), "--bins", "3",
                 "--seed", "2", "--draws", "200", "--plan", "-f", "csv"]) == 0
    plan = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert list(plan.columns[:3]) == ["group_1", "group_2", "diff"]


def test_preferences_command_is_fit_preferences(scores, tmp_path, capsys):
    data = pd.read_csv(scores)
    out = tmp_path / "pairs.csv"
    code = main(["preferences", "penalty ~ met | sys", "--data", str(scores), "--item", "seg",
                 "--lower-is-better", "penalty", "--tolerance", "met=0.2", "--seed", "3",
                 "--draws", "200", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    got = pd.read_csv(out).set_index(["group_1", "group_2"])
    want = _quiet_api(be.fit_preferences, "penalty ~ met | sys", data, item="seg",
                      lower_is_better=["penalty"], tolerance={"met": 0.2}, seed=3,
                      draws=200).to_frame()
    np.testing.assert_allclose(got["diff"], want["diff"], rtol=1e-12)
    assert list(got.index) == list(want.index)
    # ready preferences and pooled rates
    ready = pd.DataFrame({"a": ["x", "y"] * 60, "b": ["y", "x"] * 60,
                          "h": ([1, -1, 0, np.nan] * 30), "m": [1, -1, 1, 1] * 30})
    path = tmp_path / "ready.csv"
    ready.to_csv(path, index=False)
    assert main(["preferences", "h ~ m", "--data", str(path), "--first", "a", "--second", "b",
                 "--rates", "pooled", "--seed", "1", "--draws", "200"]) == 0
    text = capsys.readouterr().out
    assert "Preference ratings corrected for metric errors" in text and "pooled" in text


def test_advice_names_the_flags_on_the_command_line(scores, table, capsys):
    # raw penalties without --lower-is-better: the direction warning says the flag
    assert main(["preferences", "penalty ~ met | sys", "--data", str(scores), "--item", "seg",
                 "--seed", "1", "--draws", "100"]) == 0
    err = capsys.readouterr().err
    assert "warning:" in err and "--lower-is-better penalty" in err
    assert "lower_is_better=" not in err
    # a scalar metric without --bins: the error says --bins, not bins=
    assert main(["fit", "human ~ m1 + score | system", "--data", str(table)]) == 1
    err = capsys.readouterr().err
    assert "--bins 5" in err and "bins=5" not in err
    # sampler settings on the exact binary path are refused, naming the flag
    assert main(["fit", "human ~ m1 | system", "--data", str(table), "--seed", "1"]) == 1
    err = capsys.readouterr().err
    assert "--seed 1" in err and "exact" in err


def test_as_flags_rewrites_only_what_the_command_line_has():
    assert as_flags("use rates='pooled' or rate_concentration=[[1, 2]]") == \
        "use --rates pooled or rate_concentration=[[1, 2]]"
    assert as_flags("lower_is_better=['mqm', 'ter']") == "--lower-is-better mqm ter"
    assert as_flags('use dependence="joint"') == "use --dependence joint"
    assert as_flags("I(score > 0.5) and threshold=0.5") == "I(score > 0.5) and --threshold 0.5"
    assert as_flags("prior=(5, 2)") == "--prior 5,2"
    assert as_flags("no arguments here: a = 1, b=2") == "no arguments here: a = 1, b=2"


def test_preference_report_from_the_command_line(scores, tmp_path, capsys):
    out = tmp_path / "report.html"
    code = main(["report", str(scores), "--formula", "penalty ~ met | sys", "--item", "seg",
                 "--seed", "1", "--draws", "200", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    page = out.read_text(encoding="utf-8")
    for heading in ("Per-pair differences", "The corrected ranking",
                    "The metric&#x27;s confusion matrix and Favi-Score",
                    "What more human ratings would decide", "Reproduce"):
        assert heading in page or heading.replace("&#x27;", "'") in page, heading
    # the fit's direction warning, worded for the command line
    assert "--lower-is-better penalty" in page and "lower_is_better=[" not in page
    assert "fit_preferences" in page   # the Python equivalent in the reproduce section
    # binary-model options are refused for preference data, naming them
    assert main(["report", str(scores), "--formula", "penalty ~ met | sys", "--item", "seg",
                 "--threshold", "0.5", "-o", str(tmp_path / "r2.html")]) == 1
    assert "--threshold 0.5 belongs to the binary model" in capsys.readouterr().err


def test_scores_options_on_ready_preferences_are_refused_by_flag(tmp_path, capsys):
    # the message named the Python arguments ("lower_is_better and tolerance") on the command
    # line, and neither which was given nor how to go on
    ready = pd.DataFrame({"a": ["x", "y"] * 60, "b": ["y", "x"] * 60,
                          "h": ([1, -1, 0, np.nan] * 30), "m": [1, -1, 1, 1] * 30})
    path = tmp_path / "ready.csv"
    ready.to_csv(path, index=False)
    base = ["preferences", "h ~ m", "--data", str(path), "--first", "a", "--second", "b"]
    assert main([*base, "--tolerance", "0.5"]) == 1
    err = capsys.readouterr().err
    assert "error: --tolerance 0.5: it turns scores per (item, system) into preferences (with " \
           "--item)" in err and "leave it out" in err
    assert "tolerance=" not in err and "lower_is_better" not in err
    assert main([*base, "--lower-is-better", "m", "--tolerance", "m=0.2"]) == 1
    err = capsys.readouterr().err
    assert "--lower-is-better m and --tolerance m=0.2: they turn" in err
    with pytest.raises(be.errors.ParameterError, match=r"^lower_is_better='m': it turns .* "
                                                       r"\(first=, second=\): leave it out$"):
        be.fit_preferences("h ~ m", ready, first="a", second="b", lower_is_better="m")


def test_latent_fit_errors_name_the_flags_as_typed(table, capsys):
    # "--order A,Z" came back as "--order A Z" (the words of --lower-is-better; --order takes
    # one word with commas), "--bins x=3" as "bins names 'x'", and "--rate-prior 2,2" was
    # told to "leave rate_prior at (1, 1)"
    base = ["fit", "human ~ m1 + score | system", "--data", str(table), "--seed", "1",
            "--draws", "50"]
    assert main([*base, "--bins", "score=3", "--order", "A,Z"]) == 1
    err = capsys.readouterr().err
    assert "error: --order A,Z must list every group once: ['A', 'B']" in err
    assert main([*base, "--bins", "x=3"]) == 1
    err = capsys.readouterr().err
    assert "error: --bins x=3 names 'x', which is not a metric term" in err
    assert main([*base, "--bins", "score=3", "--rate-prior", "2,2"]) == 1
    err = capsys.readouterr().err
    assert "or leave --rate-prior out" in err and "rate_prior" not in err
    assert as_flags("order=['B', 'A'] must list") == "--order B,A must list"
    assert as_flags("lower_is_better=['a', 'b']") == "--lower-is-better a b"


def test_comparison_options_without_compare_are_refused(table, tmp_path, capsys):
    # --adjust holm or --compare-method z without --compare printed the fit's summary as if
    # they had not been given (the plan's options are refused without --plan)
    base = ["fit", "human ~ m1 + m2 | system", "--data", str(table), "--seed", "1",
            "--draws", "50"]
    assert main([*base, "--adjust", "holm"]) == 1
    assert "error: --adjust holm: it sets the comparison of --compare; add --compare or " \
           "leave it out" in capsys.readouterr().err
    assert main([*base, "--compare-method", "z", "--adjust", "holm"]) == 1
    assert "error: --compare-method z --adjust holm: they set" in capsys.readouterr().err
    # with --compare they are the API's compare(method="z", adjust="holm")
    out = tmp_path / "cmp.csv"
    assert main([*base, "--compare", "--compare-method", "z", "--adjust", "holm",
                 "-o", str(out)]) == 0
    got = pd.read_csv(out)
    want = _quiet_api(be.fit, "human ~ m1 + m2 | system", _ratings(), seed=1,
                      draws=50).compare("z", adjust="holm").to_frame()
    np.testing.assert_allclose(got["p_value"], want["p_value"], rtol=1e-9)


def test_preferences_command_takes_the_comparison_and_plan_options(scores, tmp_path, capsys):
    # PreferenceFit.compare(method=, adjust=) and plan(epsilon=, pairs=, ...) had no flags on
    # the command line ("unrecognized arguments: --adjust holm"), though binaryeval fit has them
    data = pd.read_csv(scores)
    base = ["preferences", "penalty ~ met | sys", "--data", str(scores), "--item", "seg",
            "--lower-is-better", "penalty", "--seed", "3", "--draws", "100", "--chains", "2"]
    fit = _quiet_api(be.fit_preferences, "penalty ~ met | sys", data, item="seg",
                     lower_is_better=["penalty"], seed=3, draws=100, chains=2)
    out = tmp_path / "cmp.csv"
    assert main([*base, "--compare", "--compare-method", "z", "--adjust", "holm",
                 "-o", str(out)]) == 0, capsys.readouterr().err
    want = fit.compare("z", adjust="holm").to_frame()
    np.testing.assert_allclose(pd.read_csv(out)["p_value"], want["p_value"], rtol=1e-9)
    out = tmp_path / "plan.csv"
    assert main([*base, "--plan", "--pairs", "A:C", "--power", "0.8", "-o", str(out)]) == 0
    got = pd.read_csv(out)
    want = fit.plan(pairs=[("A", "C")], power=0.8).to_frame()
    assert list(zip(got["group_1"], got["group_2"], strict=True)) == [("A", "C")]
    np.testing.assert_array_equal(got["n_human"], want["n_human"])
    capsys.readouterr()
    assert main([*base, "--adjust", "holm"]) == 1
    assert "--adjust holm: it sets the comparison of --compare" in capsys.readouterr().err
    assert main([*base, "--power", "0.8"]) == 1
    assert "add --plan" in capsys.readouterr().err
