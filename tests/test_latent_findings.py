"""Two of the latent path's findings seen from where a user meets them: the direction of a raw
MQM penalty decides the sign of every preference (WMT21 en-de, 30 % of the human ratings kept),
and metrics that are copies of each other fitted as independent are reported loudly on the
command line too, while the default is the joint model.

Numbers: the humans' own wins on the paired items, counted here from the raw rows; the
dependence check's Bayes factor of the fit itself.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import binaryeval as be
from binaryeval import datasets
from binaryeval.cli import main
from binaryeval.errors import ConvergenceWarning, DependenceWarning


def _wmt21_ende_30_percent() -> pd.DataFrame:
    """The shipped WMT21 en-de data, the ten systems with MQM and chrF, 30 % of the MQM kept,
    with the raw penalty (higher = worse) beside it (as in tests/test_latent_protocol.py)."""
    data = datasets.load_wmt21_ende()
    has_metric = data.groupby("system")["chrf"].count() > 0
    data = data[data["system"].isin(has_metric[has_metric].index)].reset_index(drop=True)
    keep = np.random.default_rng(0).random(len(data)) <= 0.3
    data.loc[~keep, "mqm"] = np.nan
    return data.assign(penalty=-data["mqm"])


def _quiet(func, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kw)


def test_the_direction_of_a_penalty_decides_every_clear_pair_on_wmt21():
    data = _wmt21_ende_30_percent()
    kw = {"item": "seg_id", "draws": 200, "chains": 2, "seed": 1}
    fixed = _quiet(be.fit_preferences, "penalty ~ chrf | system", data,
                   lower_is_better=["penalty"], **kw).to_frame()
    raw = _quiet(be.fit_preferences, "penalty ~ chrf | system", data, **kw).to_frame()
    # the humans' wins on the items where both systems have an MQM score, counted here
    wide = data.pivot(index="seg_id", columns="system", values="penalty")
    clear = []
    for a, b in fixed.index:
        both = wide[[a, b]].dropna()
        wins_a = int((both[a] < both[b]).sum())   # a lower penalty is better
        wins_b = int((both[a] > both[b]).sum())
        if wins_a + wins_b >= 20 and max(wins_a, wins_b) >= 0.7 * (wins_a + wins_b):
            clear.append(((a, b), np.sign(wins_a - wins_b)))
    assert len(clear) >= 5
    for pair, sign in clear:
        # the declared direction agrees with the humans' own majority; the raw run reverses it
        assert np.sign(fixed.loc[pair, "diff"]) == sign, pair
        assert np.sign(raw.loc[pair, "diff"]) == -sign, pair
    # and it is the model's whole answer that turns round, not just the clear pairs
    np.testing.assert_allclose(raw["diff"].corr(fixed["diff"]), -1.0, atol=0.2)


def _copies(seed=0, n=500, rated=150) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for system, alpha in (("A", 0.7), ("B", 0.5)):
        truth = rng.random(n) < alpha
        m1 = np.where(truth, rng.random(n) < 0.8, rng.random(n) < 0.3).astype(int)
        rows.append(pd.DataFrame({"system": system,
                                  "human": np.where(np.arange(n) < rated, truth, np.nan),
                                  "m1": m1, "copy": m1}))
    return pd.concat(rows, ignore_index=True)


@pytest.mark.parametrize("command", ["fit", "preferences"])
def test_independent_copies_are_said_loudly_on_the_command_line(tmp_path, capsys, command):
    if command == "fit":
        data, formula, extra = _copies(), "human ~ m1 + copy | system", []
    else:
        rng = np.random.default_rng(3)
        human = rng.choice([1, 0, -1], 600, p=[0.5, 0.1, 0.4]).astype(float)
        metric = np.where(rng.random(600) < 0.75, human, -human)
        human[200:] = np.nan
        data = pd.DataFrame({"a": "x", "b": "y", "human": human, "m1": metric,
                             "copy": metric})
        formula, extra = "human ~ m1 + copy", ["--first", "a", "--second", "b"]
    path = tmp_path / "copies.csv"
    data.to_csv(path, index=False)
    base = [command, formula, "--data", str(path), *extra, "--seed", "1", "--draws", "100",
            "--chains", "2"]
    assert main([*base, "--dependence", "independent"]) == 0
    out, err = capsys.readouterr()
    said = [line for line in err.splitlines() if "err together" in line]
    assert len(said) == 1 and "warning:" in said[0] and "--dependence joint" in said[0], err
    assert "dependence=" not in said[0] and "Bayes factor" in said[0]
    assert "WARNING: the metrics err together" in " ".join(out.split())
    # the same data without --dependence: the joint model, and nothing to warn about
    assert main(base) == 0
    out, err = capsys.readouterr()
    assert "err together" not in err and "WARNING: the metrics err together" not in out
    fit = _quiet((be.fit if command == "fit" else be.fit_preferences), formula, data,
                 **({} if command == "fit" else {"first": "a", "second": "b"}),
                 seed=1, draws=100, chains=2)
    assert fit.latent.dependence == "joint"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ConvergenceWarning)
        (be.fit if command == "fit" else be.fit_preferences)(
            formula, data, **({} if command == "fit" else {"first": "a", "second": "b"}),
            dependence="independent", seed=1, draws=100, chains=2)
    assert [w.category for w in caught].count(DependenceWarning) == 1


def test_rows_one_metric_rated_are_said_as_such_and_count_in_the_naive_reading():
    # Guards: with m2 missing on 80 of the 400 rows m1 rated, the 60 of them without a human
    # rating were excluded as "no rating (human and metrics missing)", the note said 20 rows
    # were rated by some metrics only, and naive() counted 340 rows of m1 instead of 400
    rng = np.random.default_rng(0)
    n = 400
    truth = rng.random(n) < 0.6
    df = pd.DataFrame({"human": np.where(np.arange(n) < 100, truth, np.nan),
                       "m1": np.where(truth, rng.random(n) < 0.8,
                                      rng.random(n) < 0.3).astype(int),
                       "m2": np.where(truth, rng.random(n) < 0.7,
                                      rng.random(n) < 0.3).astype(float)})
    df.loc[df.index % 5 == 0, "m2"] = np.nan
    df.loc[395:, ["m1", "m2"]] = np.nan  # five rows with nothing at all
    human_missing = df["human"].isna()
    partial = int((human_missing & df["m1"].notna() & df["m2"].isna()).sum())
    kept_partial = int((~human_missing & df["m1"].notna() & df["m2"].isna()).sum())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = be.fit("human ~ m1 + m2", df, seed=1, draws=100, chains=2)
    assert fit.excluded == {"no rating (human and metrics missing)": 5,
                            "rated by some metrics only, no human rating": partial}
    assert fit.n_used == n - 5 - partial
    note = next(x for x in fit.summary().notes if "some metrics only" in x)
    assert note.startswith(f"{partial + kept_partial} rows rated by some metrics only")
    assert f"({kept_partial} of them count for their human rating)" in note
    # naive(): every row m1 rated, and its share of positives, by hand
    naive = fit.naive()
    assert int(naive["n_metric_all"].iloc[0]) == int(df["m1"].notna().sum())
    assert naive["estimate"].iloc[0] == pytest.approx(df["m1"].mean(), abs=1e-12)


def test_a_naive_reading_that_reads_every_bin_alike_is_said():
    # Guards: with four bins of chrF each mostly adequate on the paired rows, naive() was 1.0
    # for every system and every naive rank 1, without a word
    d = datasets.load_wmt21_ende()
    d = d[d.chrf.notna() & d.system.isin(["Facebook-AI", "Nemo", "eTranslation", "ref-A"])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = be.fit("I(mqm == 0) ~ chrf | system", d, bins=4, seed=1, draws=100, chains=2)
    assert all(fit.naive_positive) and (fit.naive()["estimate"] == 1.0).all()
    notes = [x for x in fit.summary().notes if "reads every level as adequate" in x]
    assert len(notes) == 1 and "naive() is 1 for every group" in notes[0]
    # a reading that tells levels apart says nothing of the kind
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        two = be.fit("I(mqm == 0) ~ I(chrf > 60) + I(chrf > 40) | system", d, seed=1,
                     draws=100, chains=2)
    assert not any("reads every level" in x for x in two.summary().notes)


@pytest.mark.filterwarnings("ignore::binaryeval.errors.ConvergenceWarning")  # 100 draws suffice here
def test_a_system_sharing_no_item_with_the_others_is_said_and_its_rows_accounted():
    # Guards: fit_preferences reported every row used and gave no warning when one system's
    # item ids matched nobody's, and ranked that system from the prior alone (favi warns)
    rng = np.random.default_rng(5)
    rows = []
    for s, q in {"good": 1.0, "mid": 0.5, "bad": 0.0}.items():
        qual = q + rng.normal(0, 1, 120)
        rows.append(pd.DataFrame({
            "seg": [("b" if s == "bad" else "") + str(i) for i in range(120)], "system": s,
            "pen": np.where(np.arange(120) < 60, np.round(np.clip(3 - qual, 0, None)), np.nan),
            "ter": 0.5 - 0.1 * qual + rng.normal(0, 0.1, 120)}))
    df = pd.concat(rows, ignore_index=True)
    with pytest.warns(be.UnpairedItemsWarning, match=r"'bad' share no item") as caught:
        fit = be.fit_preferences("pen ~ ter | system", df, item="seg",
                                 lower_is_better=["pen", "ter"], seed=1, draws=100, chains=2)
    assert sum("share no item" in str(w.message) for w in caught) == 1
    assert fit.excluded == {"item rated for no other system (in no pair)": 120}
    assert fit.n_used == 240
