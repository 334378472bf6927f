"""The ``binaryeval`` command line: exit codes, help, datasets, render, the subcommand registry."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from binaryeval import cli, datasets
from binaryeval.cli import main

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("argv", [["--help"], ["render", "--help"], ["datasets", "--help"]])
def test_help_exits_zero(argv, capsys):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: binaryeval")
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


def test_render_missing_path_exits_one(tmp_path, capsys):
    assert main(["render", str(tmp_path / "missing"), "--engine", "jupyter"]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_python_dash_m():
    # `python -m binaryeval` is the entry point used by `make reports`
    env_path = str(REPO)
    proc = subprocess.run([sys.executable, "-m", "binaryeval", "render", "--help"], capture_output=True,
                          text=True, env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert "usage: binaryeval render" in proc.stdout


def test_registry_makes_a_new_subcommand_short(tmp_path, capsys, monkeypatch):
    # a stand-in for fit/plan/...: a formula-free command built from the shared helpers
    monkeypatch.setattr(cli, "SUBCOMMANDS", list(cli.SUBCOMMANDS))

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
