"""``binaryeval judge-bias``: the command line prints what ``binaryeval.judge_bias`` computes.

Every number compared comes from the Python API on the same file (the command line computes
nothing of its own); the simulated judge leans towards the output shown first at a true tie
(P(first) = 0.5, P(second) = 0.2, so the true lean is +0.3) and errs more on long outputs.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import binaryeval as be
from binaryeval.cli import main


@pytest.fixture(scope="module")
def battles(tmp_path_factory):
    rng = np.random.default_rng(7)
    n = 1200
    human = rng.choice([1, 0, -1], size=n, p=[0.4, 0.2, 0.4])
    shown_a, long = rng.random(n) < 0.5, rng.random(n) < 0.5
    h_pos, u = np.where(shown_a, human, -human), rng.random(n)
    correct = np.where(long, 0.6, 0.85)
    j_pos = np.where(h_pos == 0, np.where(u < 0.5, 1, np.where(u < 0.8, 0, -1)),
                     np.where(u < correct, h_pos, np.where(u < correct + 0.1, 0, -h_pos)))
    df = pd.DataFrame({"a": "x", "b": "y", "human": human,
                       "judge": np.where(shown_a, j_pos, -j_pos),
                       "shown": np.where(shown_a, "x", "y"),
                       "length": np.where(long, "long", "short")})
    path = tmp_path_factory.mktemp("judge") / "battles.csv"
    df.to_csv(path, index=False)
    return path


def _api(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return be.judge_bias("human ~ judge", pd.read_csv(path), first="a", second="b", **kw)


def test_table_equals_the_api(battles, tmp_path, capsys):
    out = tmp_path / "bias.csv"
    code = main(["judge-bias", "human ~ judge", "--data", str(battles), "--first", "a",
                 "--second", "b", "--shown-first", "shown", "--by", "length", "-o", str(out)])
    assert code == 0
    got = pd.read_csv(out)
    want = _api(battles, shown_first="shown", by="length").to_frame().reset_index()
    assert got[["factor", "stratum", "class"]].astype(str).values.tolist() == \
        want[["factor", "stratum", "class"]].astype(str).values.tolist()
    for col in ("n_paired", "judge_first", "judge_tie", "judge_second", "lean", "lean_lower",
                "lean_upper", "agreement"):
        np.testing.assert_allclose(got[col], want[col], rtol=1e-12, atol=1e-15)
    tie = got[(got.factor == "position") & (got["class"] == "tie")].iloc[0]
    assert tie.lean_lower < 0.3 < tie.lean_upper  # the simulated lean lies inside
    # the warning is said once, on stderr, naming the lean
    err = capsys.readouterr().err
    assert err.count("binaryeval judge-bias: warning:") == 1
    assert "leans towards the output shown first" in err


def test_text_is_the_api_summary(battles, capsys):
    code = main(["judge-bias", "human ~ judge", "--data", str(battles), "--first", "a",
                 "--second", "b", "--by", "length", "--level", "0.9"])
    assert code == 0
    want = _api(battles, by="length", level=0.9).summary().as_text()
    assert capsys.readouterr().out.strip() == want.strip()


def test_errors_name_the_flag(battles, capsys):
    assert main(["judge-bias", "human ~ judge", "--data", str(battles), "--first", "a",
                 "--second", "b", "--by", "length", "--bins", "1"]) == 1
    assert "--bins 1" in capsys.readouterr().err
    assert main(["judge-bias", "human ~ judge", "--data", str(battles), "--first", "a"]) == 1
    assert "--shown-first" in capsys.readouterr().err   # the library's words, as flags
    assert main(["judge-bias", "human ~ judge", "--data", str(battles), "--first", "a",
                 "--by", "length"]) == 1
    assert "--second" in capsys.readouterr().err


def test_messages_about_the_human_column_say_what_to_pass(battles, tmp_path, capsys):
    # Guards: a human column missing in every row was told "drop it from the formula" (it
    # cannot be left out); "1 ~ judge" (no human column) ran and measured the judge against a
    # constant; a formula without '~' was shown 'human ~ metric | system', whose '| system'
    # judge-bias refuses; the formula and --shown-first were named as Python arguments
    frame = pd.read_csv(battles)
    unrated = tmp_path / "unrated.csv"
    frame.assign(human=np.nan).to_csv(unrated, index=False)
    no_human = tmp_path / "no_human.csv"
    frame.drop(columns="human").to_csv(no_human, index=False)
    pairs = ["--first", "a", "--second", "b"]

    def error(formula, path, *flags):
        assert main(["judge-bias", formula, "--data", str(path), *flags]) == 1
        err = capsys.readouterr().err
        assert err.startswith("binaryeval judge-bias: error: ")
        assert "Traceback" not in err and "=" not in err.split("\n")[0].replace("==", "")
        return err

    err = error("human ~ judge", unrated, *pairs, "--shown-first", "shown")
    assert "column 'human' (the human rating, left of '~') is missing (NaN) in every row: " \
           "the judge's errors are measured on the rows rated by both, so the humans' " \
           "ratings are needed on some rows; name the column that holds them" in err
    assert "drop it" not in err
    err = error("human ~ judge", unrated, "--by", "length")  # ratings of single outputs
    assert "column 'human' (the human rating, left of '~') is missing (NaN)" in err
    err = error("1 ~ judge", no_human, *pairs, "--shown-first", "shown")
    assert "'1' reads no column: the judge is measured against the humans on the rows both " \
           "rated, so the left of '~' names the column of the human ratings, e.g. " \
           "'human ~ judge'\n    1 ~ judge\n    ^\n" in err
    err = error("human ~ judge", no_human, *pairs, "--shown-first", "shown")
    assert "unknown name 'human' in the formula (not a column of data)" in err
    err = error("judge", no_human, *pairs, "--shown-first", "shown")
    assert "the formula has no '~'; write it like 'human ~ judge'" in err and "|" not in err
    err = error("human ~ judge | a", battles, *pairs, "--shown-first", "shown")
    assert "error: the formula 'human ~ judge | a': give one human and one judge term, " \
           "'human ~ judge', with no '| group' part (the systems of a preference come from " \
           "--first and --second, a covariate from --by)" in err
    err = error("human ~ judge", battles, *pairs, "--shown-first", "length")
    assert "error: --shown-first length names 'long' in row 0, which is neither --first a " \
           "('x') nor --second b ('y'); give --shown-first the column naming, in each row, the " \
           "one of its two systems whose output was shown first" in err
    # --bins of judge-bias is one number (its message showed --rates' rho=0.7,eta=0.8)
    assert main(["judge-bias", "human ~ judge", "--data", str(battles), "--by", "length",
                 "--bins", "x"]) == 2
    err = capsys.readouterr().err
    assert "--bins 'x': give a whole number of bins, e.g. --bins 4 (fit and ranks also take " \
           "TERM=K per metric term, e.g. --bins score=5,ter=3)" in err and "rho" not in err
    # fit's TERM=K form: refused before the data are read (there is no file here)
    assert main(["judge-bias", "human ~ judge", "--data", str(tmp_path / "absent.csv"), "--by",
                 "length", "--bins", "length=3"]) == 1
    err = capsys.readouterr().err
    assert "error: --bins length=3: judge-bias bins one column, the --by covariate: give one " \
           "whole number, e.g. --bins 4" in err


def test_formula_reads_no_variable_of_the_process(battles, capsys):
    # on the command line a formula is data: it reads columns, never the program's variables
    code = main(["judge-bias", "human ~ I(judge * args)", "--data", str(battles), "--first",
                 "a", "--second", "b", "--by", "length"])
    assert code == 1
    assert "args" in capsys.readouterr().err


def test_shown_first_names_are_read_as_written(battles, tmp_path, capsys):
    # systems named "NA" and "07": --first/--second were read as text but --shown-first was
    # not, so "NA" there became missing (all its rows "missing shown_first") and "07" became 7
    frame = pd.read_csv(battles)
    frame = frame.assign(a="NA", b="07", shown=np.where(frame["shown"] == "x", "NA", "07"))
    path = tmp_path / "named.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "bias.csv"
    assert main(["judge-bias", "human ~ judge", "--data", str(path), "--first", "a",
                 "--second", "b", "--shown-first", "shown", "-o", str(out)]) == 0
    capsys.readouterr()
    got = pd.read_csv(out)
    want = _api(battles, shown_first="shown").to_frame().reset_index()
    assert int(got["n_paired"].sum()) == int(want["n_paired"].sum())
    np.testing.assert_allclose(got["lean"], want["lean"], rtol=1e-12, atol=1e-15)


def test_a_by_column_keeps_its_levels_as_written_and_bins_numbers(tmp_path, capsys):
    # Guards: --by read domains 01 and 1 as one stratum and a domain named NA as missing; a
    # numeric covariate (more than 12 values) is still binned, as from pandas
    rng = np.random.default_rng(2)
    n = 600
    human = (rng.random(n) < 0.6).astype(int)
    judge = np.where(rng.random(n) < 0.8, human, 1 - human)
    domain = rng.choice(["01", "1", "NA"], n)
    length = rng.integers(20, 400, n)
    path = tmp_path / "ratings.csv"
    pd.DataFrame({"domain": domain, "length": length, "human": human,
                  "judge": judge}).to_csv(path, index=False)
    out = tmp_path / "by.csv"
    assert main(["judge-bias", "human ~ judge", "--data", str(path), "--by", "domain",
                 "-o", str(out)]) == 0
    strata = set(pd.read_csv(out, dtype=str, keep_default_na=False)["stratum"])
    assert {"01", "1", "NA"} <= strata
    table = pd.read_csv(path, dtype={"domain": str}, keep_default_na=False)
    want = _quiet_api(table, by="domain").to_frame().reset_index()
    got = pd.read_csv(out, dtype={"stratum": str}, keep_default_na=False)
    np.testing.assert_array_equal(got["n_paired"], want["n_paired"])
    # the numeric covariate: the same quantile bins as the API on pandas' reading
    assert main(["judge-bias", "human ~ judge", "--data", str(path), "--by", "length",
                 "-o", str(tmp_path / "length.csv")]) == 0
    got = pd.read_csv(tmp_path / "length.csv")
    want = _quiet_api(pd.read_csv(path), by="length").to_frame().reset_index()
    assert got["stratum"].astype(str).tolist() == want["stratum"].astype(str).tolist()
    np.testing.assert_array_equal(got["n_paired"], want["n_paired"])


def _quiet_api(frame, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return be.judge_bias("human ~ judge", frame, **kw)
