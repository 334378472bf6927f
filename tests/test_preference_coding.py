"""Preference columns of the numbers 0 and 1 alone are refused on every path that reads them.

Preferences are read as 1 (the first system is better), 0 (a tie), -1 (the second is better).
A winner is commonly coded 0/1 (1: the first wins, 0: the second wins); read as -1/0/1 every win
of the second system became a tie (diff 0.158 instead of 0.42 on the data below, half the
Favi-Score), with no warning.  A column with a -1, or with its ties written ``'='``, reads one
way only and is accepted as before.  The expected counts come from pandas crosstabs of the same
ratings (an independent tally); the expected fits are those of the same ratings written as
words, a path the check never touches.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import binaryeval as be
from binaryeval.cli import main
from binaryeval.errors import ConvergenceWarning, DataError

FIT = {"first": "first", "second": "second", "seed": 1, "draws": 200, "chains": 2}


def _battles(seed=3, n=300):
    """Three systems, preferences 1/0/-1 from a latent difference; 60% of humans missing."""
    rng = np.random.default_rng(seed)
    a = rng.choice(["x", "y", "z"], n)
    b = np.array([rng.choice([s for s in "xyz" if s != x]) for x in a])
    q = {"x": 0.5, "y": 0.0, "z": -0.5}
    d = np.array([q[i] - q[j] for i, j in zip(a, b, strict=True)]) + rng.normal(0, 1, n)
    h = np.where(d > 0.3, 1, np.where(d < -0.3, -1, 0)).astype(float)
    m = np.where(rng.random(n) < 0.8, h, rng.choice([-1, 0, 1], n))
    h[rng.random(n) < 0.6] = np.nan
    return pd.DataFrame({"item": np.arange(n), "first": a, "second": b, "human": h, "metric": m})


def _winners():
    """The battles without ties, the winner coded 1/-1 and the same winner coded 1/0."""
    df = _battles()
    signed = df[(df["human"] != 0) & (df["metric"] != 0)].reset_index(drop=True)
    binary = signed.assign(human=(signed["human"] == 1).astype(float).where(signed["human"].notna()),
                           metric=(signed["metric"] == 1).astype(int))
    return signed, binary


def _fit(formula, data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return be.fit_preferences(formula, data, **{**FIT, **kw})


def _counts(h, m, first, second, pairs):
    """Paired (human x metric) counts per pair from pandas, oriented as the fit's pairs."""
    out = []
    for g1, g2 in pairs:
        fwd = (first == g1) & (second == g2)
        back = (first == g2) & (second == g1)
        hh = pd.concat([h[fwd], -h[back]])
        mm = pd.concat([m[fwd], -m[back]])
        ok = hh.notna() & mm.notna()
        ct = pd.crosstab(pd.Categorical(hh[ok], [1, 0, -1]), pd.Categorical(mm[ok], [1, 0, -1]),
                         dropna=False)
        out.append(ct.to_numpy())
    return np.array(out)


# -- fit_preferences ---------------------------------------------------------------------------

def test_winner_coded_0_1_is_refused_naming_column_counts_and_both_fixes():
    _, binary = _winners()
    with pytest.raises(DataError) as err:
        _fit("human ~ metric", binary)
    msg = str(err.value)
    h = binary["human"].dropna()
    assert f"column 'human' (human preference) holds only the numbers 0 and 1 " \
           f"({int((h == 0).sum())} zeros, {int((h == 1).sum())} ones, no -1)" in msg
    assert "1 = the first system is better, 0 = a tie, -1 = the second is better" in msg
    assert "I(2 * human - 1) in the formula" in msg           # a winner coded 0/1
    assert "I(1 - 2 * human)" in msg                          # the index of the winner
    assert "write the ties as '=' in the data, e.g. data['human'].replace(0, '=')" in msg
    # the metric is checked as well (human recoded, metric still 0/1)
    with pytest.raises(DataError, match=r"column 'metric' \(metric preference\) holds only the "
                                        r"numbers 0 and 1 \(\d+ zeros, \d+ ones, no -1\)"):
        _fit("I(2 * human - 1) ~ metric", binary)


def test_the_recoded_winners_give_the_answer_of_1_minus_1():
    signed, binary = _winners()
    truth = _fit("human ~ metric", signed)
    recoded = _fit("I(2 * human - 1) ~ I(2 * metric - 1)", binary)
    pd.testing.assert_frame_equal(recoded.to_frame(), truth.to_frame())
    # the audit's pair: no second-system win is lost (it was diff 0.158 read as ties)
    assert truth.to_frame().loc[("x", "y"), "diff"] == pytest.approx(0.42, abs=0.08)


def test_minus_1_0_1_reads_as_before():
    df = _battles()
    res = _fit("human ~ metric", df)
    pairs = [(res.systems[i], res.systems[j]) for i, j in res.pair_index]
    want = _counts(df["human"], df["metric"], df["first"], df["second"], pairs)
    np.testing.assert_array_equal(res.latent.paired, want)
    assert want[:, 1, :].sum() > 0 and want[:, 2, :].sum() > 0   # ties and second-system wins
    # the same ratings as words: the same fit
    words = {1: "first", 0: "tie", -1: "second"}
    worded = _fit("human ~ metric", df.assign(human=df["human"].map(words),
                                              metric=df["metric"].map(words)))
    pd.testing.assert_frame_equal(worded.to_frame(), res.to_frame())


def test_ties_written_as_symbols_say_that_0_is_a_tie():
    # humans who never prefer the second system: 0 is a tie, said with '=' (or 'tie')
    df = _battles()
    df = df.assign(human=df["human"].replace(-1.0, np.nan))
    with pytest.raises(DataError, match="holds only the numbers 0 and 1"):
        _fit("human ~ metric", df)
    eq = _fit("human ~ metric", df.assign(human=df["human"].replace(0, "=")))
    tie = _fit("human ~ metric", df.assign(human=df["human"].map({1: "first", 0: "tie"})))
    pd.testing.assert_frame_equal(eq.to_frame(), tie.to_frame())
    pairs = [(eq.systems[i], eq.systems[j]) for i, j in eq.pair_index]
    np.testing.assert_array_equal(eq.latent.paired, _counts(df["human"], df["metric"],
                                                            df["first"], df["second"], pairs))


def test_a_column_without_0_reads_one_way_and_is_kept():
    df = _battles()
    only_first = df.assign(human=df["human"].where(df["human"] == 1))   # 1 or missing
    res = _fit("human ~ metric", only_first)
    pairs = [(res.systems[i], res.systems[j]) for i, j in res.pair_index]
    want = _counts(only_first["human"], df["metric"], df["first"], df["second"], pairs)
    np.testing.assert_array_equal(res.latent.paired, want)
    assert want[:, 1, :].sum() == 0 and want.sum() > 0   # no tie (rows (b, a) turn into -1s)


def test_numbers_written_as_text_are_numbers():
    # a CSV column read as text: "0"/"1" are as ambiguous as 0/1
    _, binary = _winners()
    text = binary.assign(human=binary["human"].map({1.0: "1", 0.0: "0"}))
    with pytest.raises(DataError, match=r"column 'human' \(human preference\) holds only"):
        _fit("human ~ I(2 * metric - 1)", text)


def test_an_expression_term_gets_a_fix_in_the_formula():
    _, binary = _winners()
    with pytest.raises(DataError) as err:
        _fit("I(human + 0) ~ I(2 * metric - 1)", binary)
    assert "I(2 * I(human + 0) - 1) in the formula" in str(err.value)
    assert "write the ties as '=' in the data the term is computed from" in str(err.value)


def test_judge_bias_refuses_0_1_preferences():
    _, binary = _winners()
    with pytest.raises(DataError, match=r"column 'metric' \(judge preference\) holds only"):
        be.judge_bias("I(2 * human - 1) ~ metric", binary, first="first", second="second",
                      shown_first="first")


# -- favi and preference_confusion ---------------------------------------------------------------

def test_favi_refuses_0_1_and_the_recoded_winners_give_the_1_minus_1_scores():
    signed, binary = _winners()
    formula = "human ~ metric | first + second"
    with pytest.raises(DataError) as err:
        be.favi(formula, binary, item="item")
    used = binary.dropna(subset=["human"])
    assert (f"column 'human' (human preference) holds only the numbers 0 and 1 "
            f"({int((used['human'] == 0).sum())} zeros, {int((used['human'] == 1).sum())} ones, "
            "no -1)") in str(err.value)
    truth = be.favi(formula, signed, item="item")
    recoded = be.favi("I(2 * human - 1) ~ I(2 * metric - 1) | first + second", binary, item="item")
    np.testing.assert_array_equal(recoded.counts, truth.counts)
    np.testing.assert_array_equal(recoded.to_frame()["favi"], truth.to_frame()["favi"])


def test_favi_on_scores_keeps_0_1_scores():
    # one row per (item, system): 0/1 are scores (adequate or not), compared per item
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"item": np.repeat(np.arange(100), 2), "system": ["a", "b"] * 100,
                       "human": rng.integers(0, 2, 200), "metric": rng.integers(0, 2, 200)})
    res = be.favi("human ~ metric | system", df, item="item")
    h = df.pivot(index="item", columns="system", values="human")
    m = df.pivot(index="item", columns="system", values="metric")
    want = pd.crosstab(pd.Categorical(np.sign(h["a"] - h["b"]), [1, 0, -1]),
                       pd.Categorical(np.sign(m["a"] - m["b"]), [1, 0, -1]), dropna=False)
    np.testing.assert_array_equal(res.counts[0], want.to_numpy())


def test_favi_ties_written_as_symbols():
    df = _battles().dropna(subset=["human"])
    df = df[df["human"] >= 0]
    symbols = df.assign(human=df["human"].map({1.0: "+", 0.0: "="}))
    res = be.favi("human ~ metric | first + second", symbols, item="item")
    # the same counts as the human column mixed with '=' for its ties
    mixed = df.assign(human=df["human"].replace(0.0, "="))
    np.testing.assert_array_equal(
        be.favi("human ~ metric | first + second", mixed, item="item").counts, res.counts)
    assert res.counts[:, 1, :].sum() == int((df["human"] == 0).sum())


def test_favi_on_dask_checks_the_whole_column():
    dd = pytest.importorskip("dask.dataframe")
    signed, binary = _winners()
    formula = "human ~ metric | first + second"
    # some partitions hold no -1: the column as a whole decides
    part = dd.from_pandas(signed.sort_values("human", na_position="first"), npartitions=6,
                          sort=False)
    assert any((p["human"] == -1).sum() == 0 and (p["human"] == 1).sum() > 0
               for p in (part.get_partition(i).compute() for i in range(part.npartitions)))
    got = be.favi(formula, part, item="item")
    np.testing.assert_array_equal(got.counts, be.favi(formula, signed, item="item").counts)
    with pytest.raises(DataError) as pandas_err:
        be.favi(formula, binary, item="item")
    with pytest.raises(DataError) as dask_err:
        be.favi(formula, dd.from_pandas(binary, npartitions=4, sort=False), item="item")
    assert str(dask_err.value) == str(pandas_err.value)


def test_preference_confusion_refuses_0_1_lists():
    with pytest.raises(DataError) as err:
        be.preference_confusion([1, 0, 1, 1, 0], [1, 0, -1, 1, 0])
    msg = str(err.value)
    assert "column 'human' (human preference) holds only the numbers 0 and 1 (2 zeros, 3 ones, " \
           "no -1)" in msg
    assert "2 * np.asarray(human) - 1" in msg and "pd.Series(human).replace(0, '=')" in msg
    with pytest.raises(DataError, match=r"column 'metric' \(metric preference\)"):
        be.preference_confusion(np.array([1, -1, 0]), np.array([1, 0, 0]))
    # ties written '=' (here with the numbers), or the recoded winner: accepted
    c = be.preference_confusion([1, "=", 1, 1, "="], [1, 0, -1, 1, 0])
    np.testing.assert_array_equal(c.counts, [[2, 0, 1], [0, 2, 0], [0, 0, 0]])
    c = be.preference_confusion(2 * np.asarray([1, 0, 1, 1, 0]) - 1, [1, 0, -1, 1, 0])
    np.testing.assert_array_equal(c.counts, [[2, 0, 1], [0, 0, 0], [0, 2, 0]])


# -- the command line and the report -------------------------------------------------------------

def _err(capsys):
    return re.sub(r"\s+", " ", capsys.readouterr().err)


def test_command_line_refuses_0_1_preferences(tmp_path, capsys):
    signed, binary = _winners()
    path = tmp_path / "battles.csv"
    binary.to_csv(path, index=False)
    assert main(["preferences", "human ~ metric", "--data", str(path), "--first", "first",
                 "--second", "second", "--seed", "1", "--draws", "100"]) == 1
    err = _err(capsys)
    assert "binaryeval preferences: error: column 'human' (human preference) holds only the " \
           "numbers 0 and 1" in err and "I(2 * human - 1) in the formula" in err
    assert main(["favi", "human ~ metric | first + second", "--data", str(path),
                 "--item", "item"]) == 1
    assert "binaryeval favi: error: column 'human' (human preference)" in _err(capsys)
    assert main(["report", str(path), "--formula", "human ~ metric", "--first", "first",
                 "--second", "second", "-o", str(tmp_path / "r.html")]) == 1
    assert "binaryeval report: error: column 'human' (human preference)" in _err(capsys)
    assert not (tmp_path / "r.html").exists()
    # the recoded formula runs and gives the numbers of the 1/-1 coding
    out = tmp_path / "favi.csv"
    assert main(["favi", "I(2 * human - 1) ~ I(2 * metric - 1) | first + second", "--data",
                 str(path), "--item", "item", "-o", str(out)]) == 0
    want = be.favi("human ~ metric | first + second", signed, item="item").to_frame()
    np.testing.assert_allclose(pd.read_csv(out)["favi"], want["favi"], rtol=1e-12)


def test_make_report_refuses_0_1_preferences(tmp_path):
    from binaryeval.reports import make_report

    _, binary = _winners()
    with pytest.raises(DataError, match=r"column 'human' \(human preference\) holds only"):
        make_report(binary, "human ~ metric", first="first", second="second",
                    output=tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()
