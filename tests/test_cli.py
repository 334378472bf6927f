"""The ``binaryeval`` command line: exit codes, help, datasets, render, the subcommand registry,
fit, favi, correlate."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import binaryeval as be
from binaryeval import cli, datasets
from binaryeval._advice import as_flags
from binaryeval.cli import main

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("argv", [["--help"], *([command, "--help"] for command in (
    "correlate", "datasets", "favi", "fit", "judge-bias", "plan", "preferences", "ranks",
    "render", "report"))])
def test_help_exits_zero(argv, capsys):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: binaryeval")
    assert "Traceback" not in out and "%(" not in out
    if argv[0] == "render":
        assert "--output-dir" in out and "--engine" in out and "{auto,quarto,jupyter}" in out
    if argv[0] == "datasets":
        assert "--stdout" in out


def test_usage_errors_exit_two(capsys):
    assert main([]) == 2  # no subcommand: help on stderr
    assert "COMMAND" in capsys.readouterr().err
    assert main(["no-such-command"]) == 2
    assert "invalid choice" in capsys.readouterr().err
    assert main(["render", "--engine", "pdf"]) == 2


def test_version(capsys):
    from binaryeval import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"binaryeval {__version__}"


def test_datasets_listing(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    for name in datasets.names():
        assert name in out
    assert "17034" in out and "Apache-2.0" in out


def test_datasets_export(tmp_path, capsys):
    assert main(["datasets", "wmt15", "stb_convai2", "--output-dir", str(tmp_path)]) == 0
    written = capsys.readouterr().out.split()
    assert written == [str(tmp_path / "wmt15.csv"), str(tmp_path / "stb_convai2.csv")]
    back = pd.read_csv(tmp_path / "wmt15.csv")
    pd.testing.assert_frame_equal(back, datasets.load_wmt15(), check_dtype=False)


def test_datasets_stdout(capsys):
    assert main(["datasets", "stb_convai2", "--stdout"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "system,segment_length,annotators,n,judged_human,fluent,specific,sensible"
    assert len(lines) == 1 + 42


def test_datasets_errors_exit_one(capsys):
    assert main(["datasets", "nope"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("binaryeval datasets: error: unknown dataset(s) ['nope']")
    assert main(["datasets", "all", "--stdout"]) == 1
    assert "--stdout prints one dataset" in capsys.readouterr().err


def test_render_command(tmp_path, capsys, monkeypatch):
    (tmp_path / "vignettes").mkdir()
    (tmp_path / "vignettes" / "one.qmd").write_text(
        '---\ntitle: "One"\n---\n\n```{python}\n#| label: hello\nprint("hello-" + "cli")\n```\n')
    monkeypatch.chdir(tmp_path)
    # default PATH argument: ./vignettes
    assert main(["render", "--output-dir", "site", "--engine", "jupyter", "--timeout", "60"]) == 0
    assert capsys.readouterr().out.split() == [str(Path("site") / "one.html")]
    page = (tmp_path / "site" / "one.html").read_text()
    assert "hello-cli" in page and "<title>One</title>" in page
    assert (tmp_path / "site" / "index.html").exists()


def test_render_never_replaces_a_file_it_did_not_write(tmp_path, capsys):
    # Guards: `render notes.qmd --output-dir .` replaced the user's own notes.html and
    # index.html; its own pages are rendered again, a website's folder too
    doc = tmp_path / "notes.qmd"
    doc.write_text("---\ntitle: Notes\n---\n\nHello.\n")
    mine = {"notes.html": "MY OWN NOTES", "index.html": "MY OWN INDEX"}
    for name, text in mine.items():
        (tmp_path / name).write_text(text)
    argv = ["render", str(doc), "--output-dir", str(tmp_path), "--engine", "jupyter"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "would write over 2 file(s) it did not write" in err and "--overwrite" in err
    assert {n: (tmp_path / n).read_text() for n in mine} == mine  # untouched
    (tmp_path / "index.html").unlink()
    assert main(argv + ["--no-index"]) == 2  # notes.html is still theirs
    assert main(argv + ["--overwrite"]) == 0
    assert "Hello." in (tmp_path / "notes.html").read_text()
    assert main(argv) == 0  # its own pages, rendered again
    # a website: any other page in its output folder is the user's
    site = tmp_path / "site"
    (site / "v").mkdir(parents=True)
    (site / "_quarto.yml").write_text("project:\n  type: website\n  output-dir: out\n")
    (site / "v" / "a.qmd").write_text("---\ntitle: A\n---\n\nA page.\n")
    (site / "out").mkdir()
    (site / "out" / "theirs.html").write_text("<p>theirs</p>")
    capsys.readouterr()
    assert main(["render", str(site / "v"), "--output-dir", str(site / "out"),
                 "--engine", "jupyter"]) == 2
    assert "theirs.html" in capsys.readouterr().err


def test_render_missing_path_exits_one(tmp_path, capsys):
    assert main(["render", str(tmp_path / "missing"), "--engine", "jupyter"]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_render_refuses_a_file_that_is_no_qmd_document(tmp_path, capsys):
    # Guards: `binaryeval render ratings.csv` turned the table into reports/ratings.html
    table = tmp_path / "ratings.csv"
    table.write_text("human,metric\n1,0\n")
    out = tmp_path / "out"
    assert main(["render", str(table), "--output-dir", str(out), "--engine", "jupyter"]) == 1
    err = capsys.readouterr().err
    assert f"{str(table)!r} is not a .qmd document" in err
    assert not out.exists()


def test_render_refuses_two_documents_of_one_name(tmp_path, capsys):
    # Guards: a/x.qmd and b/x.qmd were both written to out/x.html, the second over the first,
    # and index.html listed two links to it
    for folder, text in (("a", "first"), ("b", "second")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.qmd").write_text(f"---\ntitle: {text}\n---\n\n{text}\n")
    out = tmp_path / "out"
    argv = ["render", str(tmp_path / "a" / "x.qmd"), str(tmp_path / "b" / "x.qmd"),
            "--output-dir", str(out), "--engine", "jupyter"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"would both be rendered to {str(out / 'x.html')!r}" in err
    assert not out.exists()
    from binaryeval._site import find_documents

    # one document named as a file and through its folder is one document
    doc = tmp_path / "a" / "x.qmd"
    assert find_documents([doc, tmp_path / "a"]) == [doc]


def test_render_refuses_an_output_folder_that_is_a_file(tmp_path, capsys):
    # Guards: --output-dir naming a file ended in a FileExistsError (NotADirectoryError for a
    # folder under it) traceback
    doc = tmp_path / "x.qmd"
    doc.write_text("---\ntitle: X\n---\n\nText.\n")
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine\n")
    for out, says in ((a_file, "is a file"),
                      (a_file / "sub", f"lies under {str(a_file)!r}, which is a file")):
        assert main(["render", str(doc), "--output-dir", str(out), "--engine", "jupyter"]) == 2
        assert capsys.readouterr().err == (f"binaryeval render: error: --output-dir {out} {says}, "
                                           "not a folder; give a folder for the pages\n")
    assert a_file.read_text() == "mine\n"


def test_python_dash_m():
    # `python -m binaryeval` is the entry point used by `make reports`
    env_path = str(REPO)
    proc = subprocess.run([sys.executable, "-m", "binaryeval", "render", "--help"], capture_output=True,
                          text=True, env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert "usage: binaryeval render" in proc.stdout


def test_warnings_are_printed_whatever_the_environment_filters(tmp_path):
    # Guards: with PYTHONWARNINGS=error the command's own warnings (here: alpha poorly
    # identified) became a traceback and exit code 1 instead of a line on stderr
    path = tmp_path / "r.csv"
    path.write_text("system,human,metric\nA,1,1\nA,0,0\nA,1,1\nA,,1\nA,,0\n"
                    "B,1,0\nB,0,1\nB,1,0\nB,0,1\nB,,1\n")
    proc = subprocess.run([sys.executable, "-m", "binaryeval", "fit", "human ~ metric | system",
                           "--data", str(path)], capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin",
                               "PYTHONWARNINGS": "error"})
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("binaryeval fit: warning: alpha is poorly identified in 2 of 2")


def test_registry_makes_a_new_subcommand_short(tmp_path, capsys, monkeypatch):
    # a stand-in for fit/plan/...: a formula-free command built from the shared helpers
    monkeypatch.setattr(cli._common, "SUBCOMMANDS", list(cli.SUBCOMMANDS))

    @cli.subcommand
    def add_mean_parser(subparsers):
        p = subparsers.add_parser("mean", help="column means")
        cli.add_data_arguments(p)
        cli.add_output_arguments(p)
        p.add_argument("columns", nargs="+")

        def run(args):
            df = cli.read_data(args)
            return cli.write_result(df[args.columns].mean().rename("mean").reset_index(), args)

        p.set_defaults(func=run)

    assert main(["mean", "human", "bleu", "--data", "wmt15", "--query", "lp == 'de-en'",
                 "--format", "csv"]) == 0
    out = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    de = datasets.load_wmt15("de-en")
    assert out["mean"].tolist() == pytest.approx([de["human"].mean(), de["bleu"].mean()])

    table = tmp_path / "t.tsv"
    pd.DataFrame({"x": [1.0, 2.0, 6.0]}).to_csv(table, sep="\t", index=False)
    target = tmp_path / "out.json"
    assert main(["mean", "x", "--data", str(table), "--format", "json", "--output", str(target)]) == 0
    assert '"mean": 3.0' in target.read_text()
    assert main(["mean", "x", "--data", "nowhere.csv"]) == 1
    assert "neither a file nor a shipped dataset" in capsys.readouterr().err
    assert main(["mean", "x", "--data", str(table), "--query", "y >"]) == 1
    assert "--query 'y >' failed" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# fit, favi, correlate
# ---------------------------------------------------------------------------------------------
# The expected outputs below are the Python API's own summaries/tables on the same data: the
# commands must print exactly what binaryeval.fit / favi / correlate give, read from CSV or Parquet.


def _rating_table(seed: int = 1) -> pd.DataFrame:
    """Three systems, 60 outputs each: binary human ratings (half missing), a score in [0, 1]."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, alpha in (("A", 0.7), ("B", 0.5), ("C", 0.35)):
        good = rng.random(60) < alpha
        score = np.clip(np.where(good, 0.65, 0.4) + rng.normal(0, 0.15, 60), 0, 1).round(3)
        human = np.where(np.arange(60) < 30, good.astype(float), np.nan)
        rows.append(pd.DataFrame({"system": system, "seg": np.arange(60), "human": human,
                                  "score": score, "mqm": np.where(good, 0.0, -rng.integers(1, 6, 60))}))
    return pd.concat(rows, ignore_index=True)


def _system_table() -> pd.DataFrame:
    """Six systems with a human score and three metrics (one where lower is better)."""
    return pd.DataFrame({"system": list("abcdef"), "human": [0.1, 0.4, 0.35, 0.8, 0.9, 0.2],
                         "bleu": [20.0, 24, 23, 27, 30, 22], "chrf": [50.0, 49, 55, 58, 57, 52],
                         "ter": [0.8, 0.6, 0.65, 0.4, 0.5, 0.7]})


def _write(frame: pd.DataFrame, path: Path) -> str:
    if path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return str(path)


def _api(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


@pytest.mark.parametrize("command, options", [
    ("fit", ["--threshold", "--rates", "--prior", "--compare", "--data", "--output", "--format"]),
    ("favi", ["--item", "--pairs", "--tolerance", "--lower-is-better", "--sign-test-ties",
              "--sig-level"]),
    ("correlate", ["--method", "--lower-is-better", "--aggregate", "--absolute", "--pairwise"]),
    ("report", ["DATA", "--formula", "--threshold", "--rates", "--output", "--engine"]),
])
def test_new_subcommands_help(command, options, capsys):
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: binaryeval {command}")
    for option in options:
        assert option in out
    assert "example: binaryeval " + command in out


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_fit_prints_the_api_summary(tmp_path, capsys, suffix):
    table = _rating_table()
    path = _write(table, tmp_path / f"ratings{suffix}")
    formula = "human ~ score | system"
    assert main(["fit", formula, "--data", path, "--threshold", "balanced"]) == 0
    captured = capsys.readouterr()
    expected = _api(be.fit, formula, table, threshold="balanced")
    assert captured.out == expected.summary().as_text() + "\n"
    assert "threshold:" in captured.out and "(balanced rule;" in captured.out
    assert "rows used:        180" in captured.out


def test_fit_options_reach_the_api(tmp_path, capsys):
    table = _rating_table(2)
    path = _write(table, tmp_path / "r.csv")
    argv = ["fit", "human ~ I(score > 0.5) | system", "--data", path, "--rates", "rho=0.8,eta=0.7",
            "--prior", "2,3", "--level", "0.9"]
    assert main(argv) == 0
    expected = _api(be.fit, "human ~ I(score > 0.5) | system", table, rates={"rho": 0.8, "eta": 0.7},
                    prior=(2, 3), level=0.9)
    out = capsys.readouterr().out
    assert out == expected.summary().as_text() + "\n"
    assert "Beta(2, 3)" in out and "90% equal-tailed" in out
    assert re.search(r"^rates: +known$", out, re.M)
    # pooled rates and the pairwise comparison (its summary replaces the fit's)
    assert main(["fit", "human ~ I(score > 0.5) | system", "--data", path, "--rates", "pooled",
                 "--compare", "--adjust", "holm"]) == 0
    cmp = _api(be.fit, "human ~ I(score > 0.5) | system", table, rates="pooled").compare(adjust="holm")
    assert capsys.readouterr().out == cmp.summary().as_text() + "\n"


def test_fit_n_jobs_gives_the_sequential_table(tmp_path, capsys):
    import joblib

    table = _rating_table(2)
    path = _write(table, tmp_path / "r.csv")
    formula = "human ~ I(score > 0.5) | system"
    assert main(["fit", formula, "--data", path, "-o", str(tmp_path / "one.csv")]) == 0
    # joblib's threads: the same dealing out as its processes, none started
    with joblib.parallel_config(backend="threading"):
        assert main(["fit", formula, "--data", path, "--n-jobs", "2",
                     "-o", str(tmp_path / "two.csv")]) == 0
    assert (tmp_path / "two.csv").read_text() == (tmp_path / "one.csv").read_text()
    assert main(["fit", formula, "--data", path, "--n-jobs", "0"]) == 1
    err = capsys.readouterr().err
    assert "error: --n-jobs 0: " in err  # the flag, as typed
    # ... and the way out in the command's words, not the Python argument's
    assert "without --n-jobs it runs in this process" in err and "None" not in err
    # the latent-truth model (two metric terms) has no such columns: said, not ignored
    assert main(["fit", "human ~ I(score > 0.5) + I(score > 0.3) | system", "--data", path,
                 "--n-jobs", "2", "--seed", "1", "--draws", "50", "--chains", "2"]) == 1
    assert "--n-jobs 2" in capsys.readouterr().err


@pytest.mark.parametrize(("path_flags", "reason"), [
    (["human ~ I(score > 0.5) + I(score > 0.3) | system"],
     "with 2 metric terms (I(score > 0.5) + I(score > 0.3)) the fit is the latent-truth model"),
    (["human ~ score | system", "--bins", "3"], "with --bins 3 the fit is the latent-truth model"),
    (["human ~ I(score > 0.5) | system", "--rates", "hierarchical"],
     "with --rates hierarchical the fit is the latent-truth model"),
    (["human ~ I(score > 0.5) | system", "--dependence", "independent"],
     "with --dependence independent the fit is the latent-truth model")])
def test_fit_refuses_binary_table_flags_on_the_latent_path_before_reading(
        path_flags, reason, tmp_path, capsys, monkeypatch):
    # Expected: --n-jobs and --no-rate-intervals shape the binary model's rho and eta columns;
    # on the latent path (several metric terms, --bins, --dependence, --rates hierarchical)
    # they are refused before the data are read, not after minutes of sampling
    from binaryeval.cli import fit as fit_command

    path = _write(_rating_table(2), tmp_path / "r.csv")
    read = []
    monkeypatch.setattr(fit_command, "read_data", lambda args: read.append(args) or 1 / 0)
    formula, *flags = path_flags
    assert main(["fit", formula, "--data", path, *flags, "--n-jobs", "2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("binaryeval fit: error: --n-jobs 2 spreads the binary model's rho and "
                          "eta of many groups over parallel jobs; " + reason)
    assert "leave it out, or fit one 0/1 or thresholded metric (--threshold) without --bins, " \
           "--dependence and --rates hierarchical for the binary model" in err
    assert "n_jobs" not in err
    assert main(["fit", formula, "--data", path, *flags, "--no-rate-intervals", "--n-jobs",
                 "-1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("binaryeval fit: error: --n-jobs -1 spreads the binary model's rho "
                          "and eta of many groups over parallel jobs and --no-rate-intervals "
                          "leaves the intervals of rho and eta out of the binary model's "
                          "table; " + reason)
    assert "leave them out" in err and "rate_intervals" not in err
    assert read == []  # neither call read the table (nor sampled)


def test_fit_without_rate_intervals_writes_the_lean_table(tmp_path, capsys):
    # Expected: --no-rate-intervals writes to_frame(rate_intervals=False) (the table less the
    # rates' interval columns, the rest as the full table); refused with a latent fit and
    # beside --compare or --plan, which write other tables
    table = _rating_table(2)
    path = _write(table, tmp_path / "r.csv")
    formula = "human ~ I(score > 0.5) | system"
    assert main(["fit", formula, "--data", path, "-o", str(tmp_path / "full.csv")]) == 0
    assert main(["fit", formula, "--data", path, "--no-rate-intervals",
                 "-o", str(tmp_path / "lean.csv")]) == 0
    full = pd.read_csv(tmp_path / "full.csv")
    lean = pd.read_csv(tmp_path / "lean.csv")
    dropped = ["rho_lower", "rho_upper", "eta_lower", "eta_upper"]
    assert set(dropped) <= set(full.columns)
    assert list(lean.columns) == [c for c in full.columns if c not in dropped]
    want = _api(be.fit, formula, table).to_frame(rate_intervals=False)
    np.testing.assert_allclose(lean[["rho", "eta"]].to_numpy(), want[["rho", "eta"]].to_numpy(),
                               rtol=1e-14, atol=0)
    np.testing.assert_allclose(lean[["rho", "eta"]].to_numpy(), full[["rho", "eta"]].to_numpy(),
                               rtol=0, atol=1e-11)
    for extra in (["--compare"], ["--plan"]):
        assert main(["fit", formula, "--data", path, "--no-rate-intervals", *extra]) == 1
        assert "--no-rate-intervals" in capsys.readouterr().err
    assert main(["fit", "human ~ I(score > 0.5) + I(score > 0.3) | system", "--data", path,
                 "--no-rate-intervals", "--seed", "1", "--draws", "50", "--chains", "2"]) == 1
    assert "latent-truth model" in capsys.readouterr().err


def test_fit_human_only_matches_the_beta_closed_form(tmp_path, capsys):
    # "human ~ 1": the posterior of alpha is Beta(1 + k, 1 + n - k); its mean is (k + 1) / (n + 2)
    table = _rating_table(3)
    path = _write(table, tmp_path / "r.csv")
    out_csv = tmp_path / "fit.csv"
    assert main(["fit", "human ~ 1 | system", "--data", path, "-o", str(out_csv)]) == 0
    assert capsys.readouterr().out == ""
    # one row per system, named after the grouping column, ordered by estimate
    back = pd.read_csv(out_csv).sort_values("system")
    assert back["system"].tolist() == ["A", "B", "C"]
    assert pd.read_csv(out_csv)["estimate"].is_monotonic_decreasing
    rated = table.dropna(subset=["human"]).groupby("system")["human"].agg(["sum", "count"])
    k, n = rated["sum"].to_numpy(), rated["count"].to_numpy()
    assert back["estimate"].to_numpy() == pytest.approx((k + 1) / (n + 2), rel=1e-9)
    var = (k + 1) * (n - k + 1) / ((n + 2) ** 2 * (n + 3))
    assert back["std_error"].to_numpy() == pytest.approx(np.sqrt(var), rel=1e-9)
    assert back["n_human"].tolist() == [30, 30, 30]


def test_fit_output_formats_follow_the_extension(tmp_path, capsys):
    table = _rating_table()
    path = _write(table, tmp_path / "r.parquet")
    formula = "human ~ score | system"
    expected = _api(be.fit, formula, table, threshold=0.55)
    frame = expected.to_frame().reset_index()
    for name in ("fit.csv", "fit.json", "fit.html", "fit.tex", "fit.txt"):
        assert main(["fit", formula, "--data", path, "--threshold", "0.55", "-o", str(tmp_path / name)]) == 0
    assert capsys.readouterr().out == ""
    back = pd.read_csv(tmp_path / "fit.csv")
    assert list(back.columns) == [*frame.columns, "level"] and set(back["level"]) == {0.95}
    np.testing.assert_allclose(back["estimate"], frame["estimate"], rtol=1e-12)
    records = json.loads((tmp_path / "fit.json").read_text())
    assert [r["system"] for r in records] == frame["system"].tolist()
    assert records[1]["upper"] == pytest.approx(frame.loc[1, "upper"], rel=1e-12)
    page = (tmp_path / "fit.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and expected.summary().as_html() in page
    assert (tmp_path / "fit.tex").read_text() == expected.summary().as_latex() + "\n"
    assert (tmp_path / "fit.txt").read_text() == expected.summary().as_text() + "\n"
    # an explicit --format wins over the extension
    assert main(["fit", formula, "--data", path, "--threshold", "0.55", "--format", "csv",
                 "-o", str(tmp_path / "table.out")]) == 0
    assert pd.read_csv(tmp_path / "table.out")["system"].tolist() == frame["system"].tolist()


def test_output_format_rule():
    import argparse

    def fmt(**kw):
        return cli.output_format(argparse.Namespace(**{"format": None, "output": None, **kw}))

    assert fmt() == "text"
    assert fmt(output="x.CSV") == "csv"
    assert fmt(output="x.htm") == "html"
    assert fmt(output="x.tex") == "latex"
    assert fmt(output="x.dat") == "text"
    assert fmt(output="-") == "text"
    assert fmt(output="x.csv", format="json") == "json"
    # text under the name of a binary file would not open as one: refused with the fix
    with pytest.raises(be.errors.ParameterError, match=r"--output 'r.xlsx'.*name it 'r.csv'"):
        fmt(output="r.xlsx")
    assert fmt(output="r.xlsx", format="csv") == "csv"  # asked for by name


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_favi_prints_the_api_summary(tmp_path, capsys, suffix):
    table = _rating_table()
    path = _write(table, tmp_path / f"scores{suffix}")
    assert main(["favi", "mqm ~ score | system", "--data", path, "--item", "seg"]) == 0
    expected = _api(be.favi, "mqm ~ score | system", table, item="seg")
    out = capsys.readouterr().out
    assert out == expected.summary().as_text() + "\n"
    assert "Favi-Score: metric favouritism across system pairs" in out
    # options: pairs, tolerance per side, direction, tie rule; CSV table = to_frame()
    target = tmp_path / "favi.csv"
    assert main(["favi", "mqm ~ score | system", "--data", path, "--item", "seg", "--pairs", "C:A,B:C",
                 "--tolerance", "human=1,metric=0.05", "--sign-test-ties", "split", "-o",
                 str(target)]) == 0
    expected = _api(be.favi, "mqm ~ score | system", table, item="seg", pairs=[("C", "A"), ("B", "C")],
                    tolerance={"human": 1, "metric": 0.05}, sign_test_ties="split")
    back = pd.read_csv(target)
    want = expected.to_frame()
    assert back[["group_1", "group_2"]].values.tolist() == [["C", "A"], ["B", "C"]]
    np.testing.assert_allclose(back["favi"], want["favi"], rtol=1e-12)
    assert back["n_disagreements"].tolist() == want["n_disagreements"].tolist()
    # the old spelling of the tie option is refused with the new one
    assert main(["favi", "mqm ~ score | system", "--data", path, "--item", "seg", "--ties",
                 "split"]) == 2
    assert "--ties is now --sign-test-ties: use --sign-test-ties split" in capsys.readouterr().err


def test_favi_direction_flags(tmp_path, capsys):
    table = _rating_table(4)
    path = _write(table, tmp_path / "s.csv")
    assert main(["favi", "mqm ~ score | system", "--data", path, "--item", "seg",
                 "--lower-is-better", "mqm", "score"]) == 0
    expected = _api(be.favi, "mqm ~ score | system", table, item="seg", lower_is_better=["mqm", "score"])
    assert capsys.readouterr().out == expected.summary().as_text() + "\n"


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_correlate_prints_the_api_summary(tmp_path, capsys, suffix):
    table = _system_table()
    path = _write(table, tmp_path / f"systems{suffix}")
    formula = "human ~ bleu + chrf + ter"
    def as_typed(summary):  # the notes' advice names the command's flags
        summary.notes = [as_flags(note, {"absolute": "--absolute"}) for note in summary.notes]
        return summary.as_text() + "\n"

    assert main(["correlate", formula, "--data", path, "--lower-is-better", "ter"]) == 0
    expected = be.correlate(formula, table, lower_is_better=["ter"])
    out = capsys.readouterr().out
    assert out == as_typed(expected.summary())
    assert "lower is better (negated): ter" in out
    assert main(["correlate", formula, "--data", path, "--method", "spearman", "--absolute",
                 "--level", "0.9"]) == 0
    expected = be.correlate(formula, table, method="spearman", absolute=True, level=0.9)
    out = capsys.readouterr().out
    assert out == as_typed(expected.summary())
    assert "(--absolute applies the WMT |r| convention)" in " ".join(out.split())


def test_correlate_tables(tmp_path, capsys):
    table = _system_table()
    path = _write(table, tmp_path / "systems.csv")
    formula = "human ~ bleu + chrf"
    res = be.correlate(formula, table)
    assert main(["correlate", formula, "--data", path, "--format", "csv"]) == 0
    back = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    np.testing.assert_allclose(back["estimate"], res.to_frame()["estimate"], rtol=1e-12)
    assert main(["correlate", formula, "--data", path, "--pairwise", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    want = res.pairwise()
    assert [(r["metric_1"], r["metric_2"]) for r in records] == list(zip(want["metric_1"], want["metric_2"], strict=True))
    # the docstring example of correlate.pairwise: bleu beats chrf with p = 0.049
    assert records[0]["p_value"] == pytest.approx(want["p_value"].iloc[0], rel=1e-12)
    assert round(records[0]["p_value"], 3) == 0.049


def _error_of(func, *args, **kwargs) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(be.BinaryEvalError) as info:
            func(*args, **kwargs)
    return str(info.value)


def test_bad_input_exits_one_with_the_package_message(tmp_path, capsys):
    table = _rating_table()
    path = _write(table, tmp_path / "r.csv")
    cases = [
        (["fit", "human ~ scor | system", "--data", path],
         _error_of(be.fit, "human ~ scor | system", table), "fit"),
        (["fit", "human ~ score | system", "--data", path],
         _error_of(be.fit, "human ~ score | system", table), "fit"),  # scalar metric, no threshold
        (["fit", "human ~ score | system", "--data", path, "--threshold", "median"],
         _error_of(be.fit, "human ~ score | system", table, threshold="median"), "fit"),
        (["fit", "human ~ score", "--data", path, "--threshold", "0.5", "--level", "1.5"],
         _error_of(be.fit, "human ~ score", table, threshold=0.5, level=1.5), "fit"),
        (["favi", "mqm ~ score | system", "--data", path, "--item", "segment"],
         _error_of(be.favi, "mqm ~ score | system", table, item="segment"), "favi"),
        (["correlate", "human ~ score | system", "--data", path],
         _error_of(be.correlate, "human ~ score | system", table), "correlate"),
    ]
    for argv, message, command in cases:
        assert main(argv) == 1, argv
        err = capsys.readouterr().err
        # the package's message, its advice written as the command line's flags
        assert err.endswith(f"binaryeval {command}: error: {as_flags(message)}\n"), (argv, err)
    assert "did you mean 'score'" in cases[0][1]
    assert "fewer than 4 systems" in cases[-1][1] or "at least 4 systems" in cases[-1][1]


def test_flag_errors_name_the_flag_and_the_fix_before_the_data_are_read(tmp_path, capsys,
                                                                          monkeypatch):
    # Guards, one erroneous call per subcommand: fit's --n-jobs 0 and --adjust were refused
    # after the fit (--adjust offering "None"); --tolerance x and --bins x showed the example
    # of --rates (rho=0.7,eta=0.8); correlate --pairwise with one metric printed an empty
    # table; --lower-is-better, render's paths and preferences' --rates were named as Python
    # arguments; plan's own advice --rates rho=0.7,eta=0.7 became "--rates --rho 0.7,--eta 0.7"
    from binaryeval.cli import correlate as correlate_command
    from binaryeval.cli import fit as fit_command

    read = []
    for module in (fit_command, correlate_command):
        monkeypatch.setattr(module, "read_data", lambda args: read.append(args) or 1 / 0)
    path = _write(_rating_table(2), tmp_path / "r.csv")
    formula = "human ~ I(score > 0.5) | system"

    def error(argv, code=1):
        assert main(argv) == code, argv
        err = capsys.readouterr().err
        assert "Traceback" not in err
        return err.splitlines()[-1]

    assert error(["fit", formula, "--data", path, "--n-jobs", "0"]) == (
        "binaryeval fit: error: --n-jobs 0: give a positive whole number of workers or -1 for "
        "all cores (without --n-jobs it runs in this process)")
    assert error(["fit", formula, "--data", path, "--compare", "--adjust", "BH"]) == (
        "binaryeval fit: error: --adjust BH: use one of bonferroni, sidak, holm-sidak, holm, "
        "simes-hochberg, hommel, fdr_bh, fdr_by, fdr_tsbh, fdr_tsbky, fdr_gbs (R's p.adjust "
        "method BH is --adjust fdr_bh here), or leave --adjust out for no adjustment")
    assert error(["fit", formula, "--data", path, "--bins", "x"], 2) == (
        "binaryeval fit: error: argument --bins: --bins 'x': give a whole number of bins, "
        "e.g. --bins 4 (fit and ranks also take TERM=K per metric term, e.g. --bins "
        "score=5,ter=3)")
    assert error(["correlate", "human ~ score", "--data", path, "--pairwise"]) == (
        "binaryeval correlate: error: --pairwise tests metrics against each other; the formula "
        "'human ~ score' has 1 metric term: add another, e.g. 'human ~ bleu + chrf', or leave "
        "--pairwise out")
    assert read == []
    monkeypatch.undo()
    assert error(["favi", "mqm ~ score | system", "--data", path, "--item", "segment",
                  "--tolerance", "x"], 2) == (
        "binaryeval favi: error: argument --tolerance: --tolerance 'x': give a number T (score "
        "differences up to T are ties, e.g. --tolerance 0.5) or TERM=T pairs (e.g. --tolerance "
        "chrf=0.5,bleu=1)")
    assert error(["favi", "mqm ~ score | system", "--data", path, "--item", "seg",
                  "--lower-is-better", "mqm", "ter"]) == (
        "binaryeval favi: error: --lower-is-better mqm ter names 'ter', which is not a term of "
        "the formula; the terms are ['mqm', 'score']")
    err = error(["fit", formula, "--data", path, "--draws", "50"])
    assert err.startswith("binaryeval fit: error: --draws 50: a sampler setting of the "
                          "latent-truth model; ")
    assert err.endswith("leave it out (or add metric terms or --bins for the latent-truth model)")
    assert error(["render", str(tmp_path / "missing.qmd")]) == (
        f"binaryeval render: error: {str(tmp_path / 'missing.qmd')!r} does not exist; pass .qmd "
        "files or folders holding them")
    assert error(["plan", "difference", "--alpha", "0.6"]) == (
        "binaryeval plan: error: plan needs the metric's true-positive rate: --rho 0.7, or "
        "known rates --rates rho=0.7,eta=0.7")
    battles = pd.DataFrame({"a": ["x", "y"] * 30, "b": ["y", "z"] * 30,
                            "h": [1, 0, -1] * 20, "j": [1, -1, 0] * 20})
    battles_path = _write(battles, tmp_path / "battles.csv")
    assert error(["preferences", "h ~ j", "--data", battles_path, "--first", "a", "--second",
                  "b", "--rates", "[[1, 2]]"]) == (
        "binaryeval preferences: error: --rates has shape (1, 2); known rates are a 3 x 3 "
        "matrix (rows: human classes ['first', 'tie', 'second'], columns: metric outputs "
        "['first', 'tie', 'second'])")


def test_a_query_that_keeps_no_row_is_named(tmp_path, capsys):
    # Guards: every command said "data has no rows: nothing to fit" when --query matched
    # nothing (correlate and judge-bias fit nothing; the table had 180 rows)
    path = _write(_rating_table(), tmp_path / "r.csv")
    for argv in (["correlate", "human ~ score | system"], ["ranks", "human ~ score | system",
                                                          "--threshold", "0.5"],
                 ["judge-bias", "human ~ I(score > 0.5)", "--by", "system"]):
        assert main([*argv, "--data", path, "--query", "system == 'D'"]) == 1, argv
        assert capsys.readouterr().err == (
            f"binaryeval {argv[0]}: error: --query \"system == 'D'\" kept none of the 180 rows "
            f"of --data {path!r}; check the column names and values (text in quotes, e.g. "
            "\"lp == 'de-en'\")\n")
    # a query that keeps rows: the API's result on those rows
    assert main(["correlate", "human ~ bleu + chrf", "--data",
                 _write(_system_table(), tmp_path / "s.csv"), "--query", "system != 'a'",
                 "-f", "csv"]) == 0
    back = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    want = be.correlate("human ~ bleu + chrf", _system_table().iloc[1:]).to_frame()
    np.testing.assert_allclose(back["estimate"], want["estimate"], rtol=1e-12)
    assert int(back["n"].iloc[0]) == 5


def test_unreadable_and_malformed_inputs(tmp_path, capsys):
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not a parquet file")
    assert main(["fit", "human ~ 1", "--data", str(broken)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"binaryeval fit: error: --data {str(broken)!r} could not be read as a table")
    # malformed option values are usage errors (exit 2), caught before any data are read
    for argv in (["fit", "h ~ 1", "--data", "x.csv", "--rates", "rho:0.7"],
                 ["fit", "h ~ 1", "--data", "x.csv", "--prior", "1"],
                 ["favi", "h ~ m | s", "--data", "x.csv", "--item", "i", "--pairs", "A-B"],
                 ["favi", "h ~ m | s", "--data", "x.csv", "--item", "i", "--tolerance", "x"]):
        assert main(argv) == 2, argv
        assert "error: argument" in capsys.readouterr().err


def test_rates_json_per_group(tmp_path, capsys):
    table = _rating_table()
    path = _write(table, tmp_path / "r.csv")
    rates = {"A": {"rho": 0.8, "eta": 0.7}, "B": {"rho": 0.75, "eta": 0.75}, "C": {"rho": 0.9, "eta": 0.6}}
    assert main(["fit", "human ~ I(score > 0.5) | system", "--data", path, "--rates", json.dumps(rates),
                 "--format", "csv"]) == 0
    back = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert back["rho"].tolist() == [0.8, 0.75, 0.9] and back["eta"].tolist() == [0.7, 0.75, 0.6]


def test_package_warnings_are_one_line_on_stderr(tmp_path, capsys):
    # a metric that is pure noise: rho + eta <= 1 is likely, so fit warns (IdentifiabilityWarning)
    rng = np.random.default_rng(5)
    n = 200
    table = pd.DataFrame({"human": np.where(np.arange(n) < 60, rng.integers(0, 2, n), np.nan),
                          "metric": rng.integers(0, 2, n)})
    path = _write(table, tmp_path / "noise.csv")
    with pytest.warns(be.IdentifiabilityWarning) as record:
        be.fit("human ~ metric", table)
    assert main(["fit", "human ~ metric", "--data", path]) == 0
    err = capsys.readouterr().err
    assert err == f"binaryeval fit: warning: {record[0].message}\n"


def test_known_rates_the_paired_rows_rule_out_are_named_with_the_flag(tmp_path, capsys):
    # rho = 1 given, but in the paired rows the metric rejected 2 of 5 adequate outputs: the
    # command line says so on stderr, with its own flag for the fix
    human = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0] + [np.nan] * 10
    metric = [1, 1, 1, 0, 0, 0, 0, 0, 0, 1] + [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    path = _write(pd.DataFrame({"human": human, "metric": metric}), tmp_path / "r.csv")
    assert main(["fit", "human ~ metric", "--data", path, "--rates", "rho=1,eta=0.9"]) == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == 1
    assert "all: rho = 1 given, but the metric accepted 3 of 5 adequate paired outputs" in err
    assert "--rates estimate" in err and "rates='estimate'" not in err


# ---------------------------------------------------------------------------------------------
# plan
# ---------------------------------------------------------------------------------------------

def test_plan_help(capsys):
    assert main(["plan", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: binaryeval plan")
    for option in ("{difference,table,size}", "--alpha", "--rho", "--n-human", "--n-metric", "--epsilon",
                   "--vary", "--rates"):
        assert option in out


def test_plan_difference_paper_table_1(capsys):
    # von Däniken et al. (2022) Table 1 (known rates): alpha 0.6, rho = eta 0.7, 1000 human ratings -> 0.043
    from binaryeval import plan

    assert main(["plan", "difference", "--alpha", "0.6", "--n-human", "1000",
                 "--rates", "rho=0.7,eta=0.7", "--format", "csv"]) == 0
    row = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out)).iloc[0]
    assert round(row["epsilon"], 3) == 0.043
    known = {"rho": 0.7, "eta": 0.7}
    assert row["epsilon"] == pytest.approx(plan.detectable_difference(0.6, n_human=1000,
                                                                      rates=known), rel=1e-12)
    assert (row["n_paired"], row["rho"], row["eta"], row["rates"]) == (1000, 0.7, 0.7,
                                                                        "rho=0.7,eta=0.7")
    # --rates takes what 'binaryeval fit --rates' takes; the word 'known' names the fix
    assert main(["plan", "difference", "--alpha", "0.6", "--rho", "0.7", "--rates", "known"]) == 2
    assert "--rates rho=0.7,eta=0.8" in capsys.readouterr().err


def test_plan_table_and_size_print_the_api_summaries(capsys):
    from binaryeval import plan

    # paper Table 1 corner: [[1.0, 0.109], [0.134, 0.085]] (rows n_human 0, 100; columns n_metric 0, 1000)
    assert main(["plan", "table", "--alpha", "0.6", "--rho", "0.7", "--n-human", "0,100",
                 "--n-metric", "0,1000", "--rates", "rho=0.7,eta=0.7"]) == 0
    table = plan.detectable_difference_table(0.6, 0.7, n_human=[0, 100], n_metric=[0, 1000],
                                             rates={"rho": 0.7, "eta": 0.7})

    def as_typed(summary):  # the notes' advice as typed on the command line
        summary.notes = [as_flags(note, {"power": "--power", "variance": "--variance",
                                         "simulate": "--simulate"})
                         for note in summary.notes]
        return summary.as_text() + "\n"

    out = capsys.readouterr().out
    assert out == as_typed(table.summary())
    assert "--power 0.8 plans for four times in five" in out and "power=" not in out
    assert table.table.round(3).values.tolist() == [[1.0, 0.109], [0.134, 0.085]]
    assert main(["plan", "size", "--alpha", "0.6", "--rho", "0.7", "--epsilon", "0.02",
                 "--rates", "rho=0.7,eta=0.7"]) == 0
    size = plan.required_sample_size(0.02, vary="n_human", alpha=0.6, rho=0.7,
                                     rates={"rho": 0.7, "eta": 0.7})
    out = capsys.readouterr().out
    assert out == as_typed(size.summary())
    assert f"n_human = {size.size} per system gives eps" in out and size.size > 2000


def test_plan_errors(capsys):
    assert main(["plan", "size", "--alpha", "0.6", "--rho", "0.7"]) == 1
    assert capsys.readouterr().err == ("binaryeval plan: error: plan size needs --epsilon, the target "
                                       "detectable difference, e.g. --epsilon 0.05\n")
    assert main(["plan", "difference", "--alpha", "0.6", "--rho", "0.7", "--n-human", "10,20"]) == 1
    assert "several sizes are for 'binaryeval plan table'" in capsys.readouterr().err
    from binaryeval import plan

    # the package's message, naming the command's flags (it said alpha=1.6, n_human=-100, ...)
    flags = {"alpha": "--alpha", "rho": "--rho", "n_human": "--n-human", "psi": "--psi"}
    for argv, message, typed in [
            (["--alpha", "1.6"], _error_of(plan.detectable_difference, 1.6, 0.7),
             "--alpha 1.6 is outside [0, 1]; a rate is a probability"),
            (["--alpha", "0.6", "--n-human", "-100"],
             _error_of(plan.detectable_difference, 0.6, 0.7, n_human=-100),
             "--n-human -100 must be a whole number >= 0"),
            (["--alpha", "0.6", "--psi", "2", "--n-paired", "20"],
             _error_of(plan.detectable_difference, 0.6, 0.7, psi=2.0, n_paired=20),
             "--psi 2 is outside [0, 1]; a rate is a probability"),
            (["--alpha", "0.6", "--rates", "rho=0.8,eta=0.8"],
             _error_of(plan.detectable_difference, 0.6, 0.7, rates={"rho": 0.8, "eta": 0.8}),
             "--rho 0.7 and --rates rho=0.8,eta=0.8 differ")]:
        assert main(["plan", "difference", "--rho", "0.7", *argv]) == 1
        err = capsys.readouterr().err
        assert err == f"binaryeval plan: error: {as_flags(message, flags)}\n"
        assert err.startswith(f"binaryeval plan: error: {typed}"), err
    # advice the command line can follow: it said "pass psi (e.g. --psi alpha ...)", which
    # --psi refuses (a number); the suggested value runs
    assert main(["plan", "difference", "--alpha", "0.6", "--rho", "0.8", "--n-human", "100",
                 "--n-paired", "150"]) == 1
    err = capsys.readouterr().err
    assert "give it, e.g. --psi 0.5 (the value of alpha for a random calibration sample" in err
    assert "--psi alpha" not in err
    assert main(["plan", "difference", "--alpha", "0.6", "--rho", "0.8", "--n-human", "100",
                 "--n-paired", "150", "--psi", "0.5", "-f", "csv"]) == 0
    row = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out)).iloc[0]
    assert row["epsilon"] == pytest.approx(plan.detectable_difference(
        0.6, 0.8, n_human=100, n_paired=150, psi=0.5), rel=1e-12)
    assert main(["render", "notes.qmd", "--timeout", "0"]) == 1
    assert capsys.readouterr().err == ("binaryeval render: error: --timeout 0 must be a positive "
                                       "number of seconds (int)\n")
    assert main(["plan", "table", "--alpha", "0.6", "--rho", "0.7", "--n-human", "x"]) == 2


def test_plan_difference_as_html_and_latex_has_the_csv_columns(tmp_path, capsys):
    # Guards: the one-row table of 'plan difference' (and correlate --pairwise) came as HTML
    # and LaTeX with the row number 0 as a first column, and as a bare <table> written to a
    # .html file (no page, no content security policy), unlike the summaries
    from htmlchecks import content_security_policy

    from binaryeval import plan

    argv = ["plan", "difference", "--alpha", "0.6", "--rho", "0.8", "--n-human", "100"]
    eps = plan.detectable_difference(0.6, 0.8, n_human=100)
    assert main([*argv, "-f", "csv"]) == 0
    csv = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert main([*argv, "-f", "latex"]) == 0
    latex = capsys.readouterr().out
    assert latex.splitlines()[2].split(" & ")[0] == "alpha"  # no row-number column
    assert f"{eps:.6f}" in latex
    page = tmp_path / "plan.html"
    assert main([*argv, "-o", str(page)]) == 0
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and content_security_policy(html)
    assert "<title>binaryeval plan</title>" in html
    back = pd.read_html(pd.io.common.StringIO(html))[0]
    assert back.columns.tolist() == csv.columns.tolist()
    assert back["epsilon"].iloc[0] == pytest.approx(eps, rel=1e-5)


def test_plan_refuses_an_option_its_kind_does_not_use(capsys):
    # Guards: `plan size --simulate sample --seed 3` printed the expected-count size as if
    # simulated, `plan difference --epsilon 0.1` ignored the target; both silently
    from binaryeval import plan

    base = ["--alpha", "0.6", "--rho", "0.8"]
    for what, extra, message in [
            ("size", ["--epsilon", "0.1", "--simulate", "sample"],
             "--simulate sample: an option of 'binaryeval plan difference' and "
             "'binaryeval plan table'; 'size' does not use it: leave it out"),
            ("size", ["--epsilon", "0.1", "--seed", "3"], "--seed 3: an option of"),
            ("difference", ["--epsilon", "0.1"],
             "--epsilon 0.1: an option of 'binaryeval plan size'; 'difference' does not use it"),
            ("table", ["--vary", "n_metric"], "--vary n_metric: an option of 'binaryeval plan size'"),
            ("difference", ["--n-jobs", "2"], "--n-jobs 2: an option of 'binaryeval plan table'")]:
        assert main(["plan", what, *base, *extra]) == 1, extra
        assert capsys.readouterr().err.startswith(f"binaryeval plan: error: {message}"), extra
    # what each kind takes still runs, and equals the API
    assert main(["plan", "size", *base, "--epsilon", "0.1", "--max-size", "5000", "-f", "csv"]) == 0
    row = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out)).iloc[0]
    assert row["size"] == plan.required_sample_size(0.1, alpha=0.6, rho=0.8, max_size=5000).size == 182


# ---------------------------------------------------------------------------------------------
# nothing lost: never over an input, never over a file without --overwrite, never half a file
# ---------------------------------------------------------------------------------------------

def _victim(tmp_path: Path) -> tuple[Path, bytes]:
    path = tmp_path / "victim.csv"
    _write(_rating_table(), path)
    return path, path.read_bytes()


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


@pytest.mark.parametrize("command", [
    ["fit", "human ~ score | system", "--threshold", "0.5"],
    ["fit", "human ~ score | system", "--threshold", "0.5", "--overwrite"],  # --overwrite: never inputs
    ["favi", "human ~ score | system", "--item", "seg"],
    ["correlate", "human ~ score | system"],
])
def test_output_over_the_input_is_refused(command, tmp_path, capsys):
    victim, before = _victim(tmp_path)
    link = tmp_path / "link.csv"
    link.symlink_to(victim)
    hard = tmp_path / "hard.csv"
    os.link(victim, hard)
    for target in (victim, link, hard, tmp_path / "." / "victim.csv"):
        assert main([*command, "--data", str(victim), "-o", str(target)]) == 2, target
        err = capsys.readouterr().err
        assert "is an input of this command" in err and "Traceback" not in err
        assert victim.read_bytes() == before
    # reading through the link, writing to the file: refused as well
    assert main([*command, "--data", str(link), "-o", str(victim)]) == 2
    assert victim.read_bytes() == before and _leftovers(tmp_path) == []


def test_report_over_its_data_is_refused(tmp_path, capsys):
    victim, before = _victim(tmp_path)
    for extra in ([], ["--overwrite"]):
        code = main(["report", str(victim), "--formula", "human ~ 1 | system", "-o", str(victim),
                     *extra])
        assert code == 2 and "is an input of this command" in capsys.readouterr().err
        assert victim.read_bytes() == before
    # the default name (DATA's stem + -report.html) exists: refused before any work
    existing = tmp_path / "victim-report.html"
    existing.write_text("an earlier report")
    with pytest.raises(be.errors.OutputError, match=r"exists; pass overwrite=True \(--overwrite\)"):
        from binaryeval.reports import make_report

        make_report(victim, "human ~ 1 | system", output=existing, overwrite=False)
    assert existing.read_text() == "an earlier report"


def test_existing_output_needs_force_and_is_replaced_whole(tmp_path, capsys):
    victim, _ = _victim(tmp_path)
    target = tmp_path / "fit.csv"
    target.write_text("keep me\n")
    os.chmod(target, 0o640)
    argv = ["fit", "human ~ 1 | system", "--data", str(victim), "-o", str(target)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"--output {str(target)!r} exists; pass --overwrite to replace it" in err
    assert target.read_text() == "keep me\n"
    # the option is named as the library's argument (overwrite=); the old --force says so
    assert main([*argv, "--force"]) == 2
    assert "--force is now --overwrite: use --overwrite" in capsys.readouterr().err
    assert target.read_text() == "keep me\n"
    assert main([*argv, "--overwrite"]) == 0
    assert pd.read_csv(target)["system"].tolist() == ["A", "B", "C"]
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # a replaced file keeps its mode
    # a symbolic link at the destination is replaced by the file, not written through
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("untouched\n")
    link = tmp_path / "out.csv"
    link.symlink_to(elsewhere)
    assert main(["fit", "human ~ 1 | system", "--data", str(victim), "-o", str(link)]) == 2
    assert main(["fit", "human ~ 1 | system", "--data", str(victim), "-o", str(link),
                 "--overwrite"]) == 0
    assert elsewhere.read_text() == "untouched\n" and not link.is_symlink()
    assert _leftovers(tmp_path) == []


def test_missing_folder_and_folder_outputs_are_usage_errors(tmp_path, capsys):
    victim, _ = _victim(tmp_path)
    folder = tmp_path / "some_dir"
    folder.mkdir()
    cases = {str(tmp_path / "nodir" / "out.csv"): "the folder", str(folder): "is a folder"}
    for target, message in cases.items():
        for command in (["fit", "human ~ 1 | system", "--data", str(victim)],
                        ["report", str(victim), "--formula", "human ~ 1 | system"]):
            assert main([*command, "-o", target]) == 2
            err = capsys.readouterr().err
            assert message in err and "Traceback" not in err, err
    assert not (tmp_path / "nodir").exists() and list(folder.iterdir()) == []
    # into the input folder of Parquet files: refused
    parts = tmp_path / "parts"
    parts.mkdir()
    _rating_table().to_parquet(parts / "part0.parquet", index=False)
    assert main(["fit", "human ~ 1 | system", "--data", str(parts), "-o",
                 str(parts / "part0.parquet"), "--overwrite"]) == 2
    assert "inside the input folder" in capsys.readouterr().err
    pd.testing.assert_frame_equal(pd.read_parquet(parts / "part0.parquet"), _rating_table())


def test_a_failed_run_leaves_nothing_half_written(tmp_path, capsys, monkeypatch):
    victim, _ = _victim(tmp_path)
    target = tmp_path / "fit.csv"
    # the command fails: no file at all
    assert main(["fit", "human ~ nosuch | system", "--data", str(victim), "-o", str(target)]) == 1
    assert not target.exists()
    # the write is interrupted after the content was written, before the rename: the old file
    # is intact and the temporary file is gone
    target.write_text("old\n")
    import binaryeval._output as output

    def interrupted(src, dst):
        assert Path(src).read_text().startswith("system,")  # the whole table was in the temp file
        raise KeyboardInterrupt

    monkeypatch.setattr(output.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        main(["fit", "human ~ 1 | system", "--data", str(victim), "-o", str(target), "--overwrite"])
    assert target.read_text() == "old\n" and _leftovers(tmp_path) == []


def test_datasets_export_refuses_existing_files_without_force(tmp_path, capsys):
    (tmp_path / "stb_convai2.csv").write_text("mine\n")
    assert main(["datasets", "wmt15", "stb_convai2", "--output-dir", str(tmp_path)]) == 2
    assert "stb_convai2.csv' exists; pass --overwrite" in capsys.readouterr().err
    # all or nothing: wmt15.csv was not written either
    assert not (tmp_path / "wmt15.csv").exists()
    assert (tmp_path / "stb_convai2.csv").read_text() == "mine\n"
    assert main(["datasets", "wmt15", "stb_convai2", "--output-dir", str(tmp_path),
                 "--overwrite"]) == 0
    assert pd.read_csv(tmp_path / "stb_convai2.csv").shape == (42, 8)
    a_file = tmp_path / "wmt15.csv"
    assert main(["datasets", "wmt15", "--output-dir", str(a_file)]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    # a folder under a file: named, not a NotADirectoryError traceback
    assert main(["datasets", "wmt15", "--output-dir", str(a_file / "sub")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"binaryeval datasets: error: --output-dir {str(a_file / 'sub')!r}: "
                          "the folder cannot be made (") and err.endswith("give another folder\n")
    assert "Traceback" not in err


def test_datasets_export_names_the_file_and_the_folder(tmp_path, capsys, monkeypatch):
    # Guards: in the default folder the message read "--output-dir 'wmt15.csv' exists", the
    # file named as if it were the folder; a name given twice was written and listed twice
    monkeypatch.chdir(tmp_path)
    assert main(["datasets", "wmt15", "wmt15"]) == 0
    assert capsys.readouterr().out.split() == ["wmt15.csv"]
    assert main(["datasets", "wmt15"]) == 2
    assert capsys.readouterr().err == (
        "binaryeval datasets: error: --output-dir '.': the file 'wmt15.csv' exists; pass "
        "--overwrite to replace it, or choose another name\n")
    pd.testing.assert_frame_equal(pd.read_csv("wmt15.csv"), datasets.load_wmt15(),
                                  check_dtype=False)
    # 'all' beside a name is every dataset (it was refused as an unknown dataset 'all'), and
    # an unknown name beside it is still named
    assert main(["datasets", "all", "nope", "--output-dir", "every"]) == 1
    assert "unknown dataset(s) ['nope']" in capsys.readouterr().err
    assert main(["datasets", "all", "wmt15", "--output-dir", "every"]) == 0
    assert capsys.readouterr().out.split() == [str(Path("every") / f"{name}.csv")
                                               for name in datasets.names()]


def test_summary_page_of_hostile_names_is_inert(tmp_path, capsys):
    from htmlchecks import content_security_policy, live_markup, soup

    table = _rating_table().replace({"system": {"A": "<script>alert(1)</script>",
                                                "B": "<img src=x onerror=alert(2)>"}})
    path = _write(table, tmp_path / "r.csv")
    target = tmp_path / "fit.html"
    assert main(["fit", "human ~ 1 | system", "--data", path, "-o", str(target)]) == 0
    page = target.read_text()
    assert live_markup(page) == [] and "script-src 'none'" in content_security_policy(page)
    assert "<script>alert(1)</script>" in soup(page).get_text()


def test_plan_says_the_paired_share_and_refuses_draw_options_without_draws(capsys):
    # Guards: `plan difference --n-paired 150 --psi 0.5` wrote a row without psi, so the csv did
    # not say the paired set was a separate calibration set of share 0.5; and `--n-resamples 5`
    # or `--seed 3` without --simulate sample were ignored silently (expected counts draw none)
    from binaryeval import plan

    base = ["plan", "difference", "--alpha", "0.6", "--rho", "0.8", "--n-human", "100"]
    assert main([*base, "--n-paired", "150", "--psi", "0.5", "-f", "csv"]) == 0
    row = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out)).iloc[0]
    assert (row["n_paired"], row["psi"]) == (150, 0.5)
    assert row["epsilon"] == pytest.approx(plan.detectable_difference(
        0.6, 0.8, n_human=100, n_paired=150, psi=0.5), rel=1e-12)
    assert main([*base, "-f", "csv"]) == 0
    row = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out)).iloc[0]
    assert (row["n_paired"], row["psi"]) == (100, 0.6)   # the human-rated items: share alpha
    for what in ("difference", "table"):
        for extra in (["--n-resamples", "5"], ["--seed", "3"]):
            argv = ["plan", what, "--alpha", "0.6", "--rho", "0.8", "--n-human", "100", *extra]
            assert main(argv) == 1, argv
            err = capsys.readouterr().err
            assert err.startswith(f"binaryeval plan: error: {' '.join(extra)}: it sets the "
                                  "simulated experiments of --simulate sample"), err
            assert main([*argv, "--simulate", "sample", "-f", "csv"]) == 0
            capsys.readouterr()


def test_plan_size_refuses_a_value_for_the_size_it_chooses(capsys):
    # Guards: `plan size --vary n_human --n-human 500 --epsilon 0.05` ignored the 500 and
    # printed n_human = 735, the total per system, which reads as 735 more; the size searched
    # for is refused when given, the other sizes still hold
    from binaryeval import plan

    base = ["plan", "size", "--alpha", "0.6", "--rates", "rho=0.7,eta=0.7", "--epsilon", "0.05"]
    for extra, flag in ((["--n-human", "500"], "--n-human 500"),
                        (["--vary", "n_paired", "--n-human", "2000", "--n-paired", "300",
                          "--rates", "estimate", "--rho", "0.8"], "--n-paired 300")):
        assert main([*base, *extra]) == 1, extra
        err = capsys.readouterr().err
        assert err.startswith(f"binaryeval plan: error: {flag}: 'plan size --vary "), err
    assert main([*base, "-f", "csv"]) == 0
    row = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out)).iloc[0]
    assert row["size"] == plan.required_sample_size(
        0.05, alpha=0.6, rates={"rho": 0.7, "eta": 0.7}).size == 735
    assert main([*base, "--vary", "n_metric", "--n-human", "500", "-f", "csv"]) == 0
    row = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out)).iloc[0]
    assert row["size"] == plan.required_sample_size(
        0.05, "n_metric", alpha=0.6, rates={"rho": 0.7, "eta": 0.7}, n_human=500).size


def test_correlate_pairwise_help_says_the_p_value_is_one_sided(tmp_path, capsys):
    # Guards: --pairwise wrote one-sided Williams p-values (one row per direction) with nothing
    # saying so.  Invariant of one-sided p-values: the two directions of a pair add up to 1.
    assert main(["correlate", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "p_value is one-sided (metric_1 correlates more strongly than metric_2" in text
    assert "Zou's two-sided interval" in text
    path = _write(_system_table(), tmp_path / "systems.csv")
    assert main(["correlate", "human ~ bleu + chrf", "--data", path, "--pairwise",
                 "--format", "json"]) == 0
    p = [r["p_value"] for r in json.loads(capsys.readouterr().out)]
    assert p[0] + p[1] == pytest.approx(1.0, abs=1e-12)


def test_fit_plan_takes_the_arguments_of_plan(tmp_path, capsys):
    # Guards: `fit --plan` planned at plan()'s defaults only (power 0.5, each pair's estimated
    # difference); --epsilon, --sig-level, --power and --max-human now give plan()'s arguments,
    # and are refused without --plan (they would be ignored)
    table = _rating_table(4)
    path = _write(table, tmp_path / "r.csv")
    formula = "human ~ I(score > 0.5) | system"
    options = ["--epsilon", "0.2", "--sig-level", "0.1", "--power", "0.8", "--max-human", "5000"]
    assert main(["fit", formula, "--data", path, "--plan", *options, "-f", "csv"]) == 0
    got = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    fit = _api(be.fit, formula, table)
    want = fit.plan(epsilon=0.2, sig_level=0.1, power=0.8, max_human=5000).to_frame()
    default = fit.plan().to_frame()
    assert got["group_1"].tolist() == want["group_1"].tolist() == default["group_1"].tolist()
    assert got["more_human"].tolist() == want["more_human"].astype(float).tolist()
    assert got["epsilon"].tolist() == [0.2, 0.2]
    # another plan than the defaults' (each pair's estimated difference at power 0.5)
    assert got["more_human"].tolist() != default["more_human"].astype(float).tolist()
    assert main(["fit", formula, "--data", path, "--power", "0.8", "--epsilon", "0.1"]) == 1
    err = capsys.readouterr().err
    assert "error: --epsilon 0.1 --power 0.8: these set the plan of --plan" in err


@pytest.mark.parametrize("option, message", [
    (["--epsilon", "2"], "--epsilon 2 must lie in (0, 1]"),
    (["--power", "1.2"], "--power 1.2 must lie in [0.5, 1)"),
    (["--max-human", "-3"], "--max-human -3 must be a whole number >= 1"),
    (["--sig-level", "0.7"], "give --sig-level 0.3"),
])
def test_fit_plan_checks_its_flags_before_reading_the_data(tmp_path, capsys, option, message):
    # Guards: a bad --plan value was found only after the whole fit (minutes on a large
    # table); it is now refused before the data is read: here there is no data file at all,
    # and the error is the flag's, not the missing file's
    missing = str(tmp_path / "absent.csv")
    assert main(["fit", "human ~ metric | system", "--data", missing, "--plan", *option]) == 1
    err = capsys.readouterr().err
    assert message in err
    assert "absent.csv" not in err


def test_fit_plan_takes_listed_pairs(tmp_path, capsys):
    # --pairs gives plan()'s pairs= (a word or SYSTEM1:SYSTEM2 pairs, as favi's --pairs): the
    # same rows as the API's plan of those pairs
    table = _rating_table(4)
    path = _write(table, tmp_path / "r.csv")
    formula = "human ~ I(score > 0.5) | system"
    fit = _api(be.fit, formula, table)
    a, b, c = fit.groups[:3]
    assert main(["fit", formula, "--data", path, "--plan", "--pairs", f"{c}:{a},{b}:{c}",
                 "-f", "csv"]) == 0
    got = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    want = fit.plan(pairs=[(c, a), (b, c)]).to_frame()
    assert list(zip(got["group_1"], got["group_2"], strict=True)) == [(a, c), (b, c)]
    np.testing.assert_allclose(got["diff"], want["diff"], rtol=1e-12)
    assert got["more_human"].tolist() == want["more_human"].astype(float).tolist()
    assert main(["fit", formula, "--data", path, "--plan", "--pairs", "neighbours",
                 "-f", "csv"]) == 0
    got = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert got["group_1"].tolist() == fit.groups[:-1]
    # a group the fit lacks is named with the flag; without --plan the flag is refused
    assert main(["fit", formula, "--data", path, "--plan", "--pairs", f"{a}:nosuch"]) == 1
    assert "error: group 'nosuch' in --pairs is not a group of the fit" in capsys.readouterr().err
    assert main(["fit", formula, "--data", path, "--pairs", "all"]) == 1
    assert "--pairs all: these set the plan of --plan" in capsys.readouterr().err
    # favi has no order of systems: its --pairs refuses 'neighbours', naming the flag
    scores = pd.DataFrame({"seg": [0, 0, 1, 1, 2, 2], "system": ["x", "y"] * 3,
                           "h": [3, 1, 3, 1, 1, 3], "m": [2, 1, 2, 1, 2, 1]})
    favi_path = _write(scores, tmp_path / "s.csv")
    assert main(["favi", "h ~ m | system", "--data", favi_path, "--item", "seg",
                 "--pairs", "neighbours"]) == 1
    err = capsys.readouterr().err
    # in the command's words: SYSTEM1:SYSTEM2 pairs, not the library's list of tuples
    assert "error: --pairs neighbours: favi compares rated pairs, which have no order of " \
           "systems to take neighbours in; give --pairs all (every pair, the default) or " \
           "SYSTEM1:SYSTEM2 pairs separated by commas, e.g. --pairs A:B,A:C" in err
    assert "(group_1, group_2)" not in err


def test_errors_of_a_paired_set_and_a_tolerance_name_the_flags(tmp_path, capsys):
    # Guards: `plan ... --n-paired 300` said "n_paired (300) exceeds n_human (100)" and `favi
    # --tolerance -1` "tolerance for the human scores must be ...": Python's names, not the
    # flags the user typed
    assert main(["plan", "difference", "--alpha", "0.6", "--rho", "0.8", "--n-human", "100",
                 "--n-paired", "300"]) == 1
    assert "error: --n-paired 300 exceeds --n-human 100" in capsys.readouterr().err
    scores = pd.DataFrame({"seg": [0, 0, 1, 1, 2, 2], "system": ["x", "y"] * 3,
                           "h": [3, 1, 3, 1, 1, 3], "m": [2, 1, 2, 1, 2, 1]})
    path = _write(scores, tmp_path / "s.csv")
    assert main(["favi", "h ~ m | system", "--data", path, "--item", "seg",
                 "--tolerance", "-1"]) == 1
    assert ("error: --tolerance -1 for the human scores: give a finite number >= 0"
            in capsys.readouterr().err)


def test_a_per_group_rates_entry_missing_names_the_flag(tmp_path, capsys):
    # Guards: `fit --rates '{"A": {...}}'` without an entry for group B said "rates has no
    # entry for group 'B'", Python's name for --rates
    table = _rating_table(3)
    path = _write(table, tmp_path / "r.csv")
    first = sorted(table["system"].astype(str).unique())[0]
    rates = json.dumps({first: {"rho": 0.8, "eta": 0.8}})
    assert main(["fit", "human ~ I(score > 0.5) | system", "--data", path,
                 "--rates", rates]) == 1
    assert "error: --rates has no entry for group" in capsys.readouterr().err


def test_a_table_of_intervals_written_to_a_file_keeps_their_level(tmp_path, capsys):
    # Guards: `fit --level 0.9 -f csv` (and ranks, compare, JSON) wrote lower and upper without
    # the level they hold (a file keeps no attrs); it is now the last column, and a table
    # without intervals (a plan) gets none
    table = _rating_table(3)
    path = _write(table, tmp_path / "r.csv")
    formula = "human ~ I(score > 0.5) | system"
    assert main(["fit", formula, "--data", path, "--level", "0.9", "-f", "csv"]) == 0
    got = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    want = _api(be.fit, formula, table, level=0.9).to_frame()
    assert list(got.columns) == [want.index.name, *want.columns, "level"]
    assert got["level"].tolist() == [0.9] * len(want)
    np.testing.assert_allclose(got["lower"], want["lower"], rtol=1e-12)
    assert main(["ranks", formula, "--data", path, "--level", "0.8", "-f", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["level"] for r in rows} == {0.8}
    assert main(["fit", formula, "--data", path, "--plan", "-f", "csv"]) == 0
    assert "level" not in pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out)).columns


def test_fit_writes_the_rows_left_out_with_the_output_rules(tmp_path, capsys):
    table = _rating_table()
    table.loc[[4, 70], "system"] = None
    table.loc[[100, 101], ["human", "score"]] = np.nan
    data = tmp_path / "ratings.csv"
    _write(table, data)
    rows = tmp_path / "left-out.csv"
    base = ["fit", "human ~ score | system", "--threshold", "0.5", "--data", str(data)]
    assert main([*base, "--excluded-rows", str(rows)]) == 0, capsys.readouterr().err
    written = pd.read_csv(rows)
    assert written.to_dict("records") == [
        {"row": 4, "reason": "missing group"}, {"row": 70, "reason": "missing group"},
        {"row": 100, "reason": "no rating (human and metric missing)"},
        {"row": 101, "reason": "no rating (human and metric missing)"}]
    out = capsys.readouterr().out
    assert "2 missing group; 2 no rating (human and metric missing)" in out
    # an existing file needs --overwrite; never the data, nor the --output file
    before = data.read_bytes()
    assert main([*base, "--excluded-rows", str(rows)]) == 2
    assert "--excluded-rows" in capsys.readouterr().err and len(pd.read_csv(rows)) == 4
    assert main([*base, "--excluded-rows", str(data), "--overwrite"]) == 2
    assert "is an input of this command" in capsys.readouterr().err
    assert data.read_bytes() == before
    fit_csv = tmp_path / "fit.csv"
    assert main([*base, "-o", str(fit_csv), "--excluded-rows", str(fit_csv)]) == 2
    assert "is an input of this command" in capsys.readouterr().err and not fit_csv.exists()
    # with --query the rows are numbered among those it kept
    assert main([*base, "--query", "system != 'A'", "--excluded-rows", str(rows),
                 "--overwrite"]) == 0, capsys.readouterr().err
    # (row 4, without a system, passes "system != 'A'"; rows 60.. follow it)
    assert pd.read_csv(rows)["row"].tolist() == [0, 11, 41, 42]
    # a Dask frame cannot say which rows: refused before the data are read
    assert main([*base, "--dask", "--excluded-rows", str(tmp_path / "dask.csv")]) == 1
    assert "--excluded-rows with --dask" in capsys.readouterr().err
    assert not (tmp_path / "dask.csv").exists()
