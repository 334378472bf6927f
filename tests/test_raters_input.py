"""What the rater-noise model takes as one rating, and which rating columns it reads.

A rating is one rater's reading of one item, the item value within its group: one reading
entered twice (two rows of a rater and item that agree in every other column: the same row read
in twice, or a changed rating) is refused, naming the rater, the item and the counts, while
readings told apart by another column are taken; the fix the message names gives back the fit
of the data without repeats, draw for draw.  A two-valued rating other than 0/1 is refused as ``binaryeval.fit`` refuses it,
and a stray value beside a 0/1 rating is named in one warning.  Numbers are counts of the data
built here and invariants of the fit (identical draws, the mean rating as the shares' mean).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import binaryeval as be
from binaryeval.errors import BinaryEvalWarning, ConvergenceWarning, DataError, ParameterError
from binaryeval.raters import fit_raters

KW = {"rater": "rater", "item": "item", "seed": 2, "draws": 100, "chains": 2}


def _crowd(seed=7, n=60):
    """Two systems, 60 items each, 3 of 5 raters per item; every rater rates item i of both."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, a in (("A", 0.4), ("B", 0.7)):
        for i in range(n):
            t = rng.random() < a
            m = int(t if rng.random() < 0.85 else not t)
            for r in rng.choice(5, 3, replace=False):
                acc = (0.9, 0.85, 0.8, 0.75, 0.6)[r]
                rows.append({"system": system, "item": i, "rater": f"r{r}", "metric": m,
                             "rating": float(t if rng.random() < acc else not t)})
    return pd.DataFrame(rows)


def _fit(df, formula="rating ~ metric | system", **kw):
    """The fit and the package's own warnings other than the sampler's."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fit_raters(formula, df, **{**KW, **kw})
    return res, [w for w in caught if issubclass(w.category, BinaryEvalWarning)
                 and not issubclass(w.category, ConvergenceWarning)]


@pytest.fixture(scope="module")
def crowd():
    return _crowd()


# ----------------------------------------------------------------------------------------------
# one rating per rater and item
# ----------------------------------------------------------------------------------------------

def test_the_data_twice_is_refused_naming_the_rater_item_and_counts(crowd):
    twice = pd.concat([crowd, crowd])
    with pytest.raises(DataError) as err:
        fit_raters("rating ~ metric | system", twice, **KW)
    text = str(err.value)
    first = crowd.iloc[0]
    # the first repeat in the data's order: its rater, item and system, and both rows (the
    # index repeats, so by position)
    assert (f"rater {first['rater']!r} rates item '{first['item']}' of {first['system']!r} "
            "2 times, with the same rating, on rows that agree in every other column (rows at "
            f"positions 0, {len(crowd)})") in text
    assert f"in all {len(crowd)} row(s) repeat" in text
    assert f"{len(crowd)} (rater, item) pair(s): {len(crowd)} with the same rating, 0 with " \
           "different ratings" in text
    assert "drop the exact repeats with data.drop_duplicates()" in text
    assert "decide which rating to keep" not in text
    # through the front door too
    with pytest.raises(DataError, match="rates item '0' of 'A' 2 times"):
        be.fit("rating ~ metric | system", twice, **KW)


def test_the_named_fix_gives_back_the_fit_of_the_data_draw_for_draw(crowd):
    twice = pd.concat([crowd, crowd])
    fixed = twice.drop_duplicates()
    a, _ = _fit(crowd)
    b, _ = _fit(fixed)
    np.testing.assert_array_equal(a.draws.pi, b.draws.pi)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    assert int(a.to_frame()["n_ratings"].sum()) == len(crowd) == b.n_rows


def test_a_rater_changing_their_rating_is_refused(crowd):
    row = crowd.iloc[[5]]
    changed = pd.concat([crowd, row.assign(rating=1 - row["rating"])], ignore_index=True)
    with pytest.raises(DataError) as err:
        fit_raters("rating ~ metric | system", changed, **KW)
    text = str(err.value)
    r = row.iloc[0]
    assert (f"rater {r['rater']!r} rates item '{r['item']}' of {r['system']!r} 2 times, with "
            f"different ratings, on rows that agree in every other column (rows 5, "
            f"{len(crowd)})") in text
    assert "1 (rater, item) pair(s): 0 with the same rating, 1 with different ratings" in text
    assert "decide which rating to keep" in text and "drop_duplicates" not in text
    # both kinds at once: the exact repeats and the one to decide are counted apart
    both = pd.concat([crowd, crowd, row.assign(rating=1 - row["rating"])], ignore_index=True)
    with pytest.raises(DataError, match=f"in all {len(crowd) + 1} row\\(s\\) repeat .*"
                                        f"\\({len(crowd)} \\(rater, item\\) pair\\(s\\): "
                                        f"{len(crowd) - 1} with the same rating, 1 with "
                                        "different ratings\\)"):
        fit_raters("rating ~ metric | system", both, **KW)
    # without a grouping term, and a rating term that reads the column: still one reading
    one = changed[changed["system"] == r["system"]]
    with pytest.raises(DataError, match=f"rates item '{r['item']}' 2 times.*for each of the 1 "):
        fit_raters("I(rating) ~ metric", one, **KW)


def test_what_is_not_a_repeat_is_taken(crowd):
    # the same rater on the same item id under two systems: two items (the audit data has it)
    both = crowd.groupby(["rater", "item"])["system"].nunique()
    assert (both == 2).any()
    res, caught = _fit(crowd)
    assert caught == [] and res.n_used == len(crowd)
    # rows without a rating repeated (the metric given again, a rater named) change nothing
    extra = crowd.iloc[:40].assign(rating=np.nan)
    again, _ = _fit(pd.concat([crowd, extra, extra], ignore_index=True))
    np.testing.assert_array_equal(again.draws.pi, res.draws.pi)
    assert again.excluded == {} and again.n_rows == len(crowd) + 80


def test_separate_readings_told_apart_by_a_column_are_taken(crowd):
    # a second session: every rater reads their items again.  The rows differ in "session", so
    # they are separate readings (the same rating twice, or another one), not a repeat
    second = crowd.assign(session=2, rating=crowd["rating"].where(crowd.index % 7 > 0,
                                                                  1 - crowd["rating"]))
    both = pd.concat([crowd.assign(session=1), second], ignore_index=True)
    res, caught = _fit(both)
    assert caught == [] and int(res.to_frame()["n_ratings"].sum()) == 2 * len(crowd)
    # without the column telling them apart, the same rows are refused
    with pytest.raises(DataError, match=f"in all {len(crowd)} row\\(s\\) repeat"):
        fit_raters("rating ~ metric | system", both.drop(columns="session"), **KW)


# ----------------------------------------------------------------------------------------------
# which rating columns: 0/1, binned levels, a stray value
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("shift", "scale", "lo", "hi"), [(1, 1, "1", "2"), (-1, 2, "-1", "1")])
def test_a_two_valued_rating_other_than_0_1_is_refused_like_fit(crowd, shift, scale, lo, hi):
    coded = crowd.assign(rating=crowd["rating"] * scale + shift)
    with pytest.raises(DataError) as err:
        fit_raters("rating ~ metric | system", coded, **KW)
    text = str(err.value)
    assert f"column 'rating' (human rating) holds the two values {lo} and {hi}" in text
    assert f"mean rating (here between {lo} and {hi}), not a rate" in text
    assert f"'I(rating == {hi}) ~ ...'" in text
    with pytest.raises(DataError, match="must be binary"):
        be.fit("rating ~ metric | system", coded)
    # the fix the message names is the binary fit, draw for draw
    a, _ = _fit(crowd)
    b, _ = _fit(coded, formula=f"I(rating == {hi}) ~ metric | system")
    np.testing.assert_array_equal(a.draws.pi, b.draws.pi)


def test_a_stray_value_beside_a_0_1_rating_is_named_once(crowd):
    stray = crowd.copy()
    stray.loc[0, "rating"] = 0.5
    res, caught = _fit(stray)
    assert len(caught) == 1 and caught[0].category is BinaryEvalWarning
    assert caught[0].filename == __file__      # points at the caller's line
    n0, n1 = int((stray["rating"] == 0).sum()), int((stray["rating"] == 1).sum())
    text = str(caught[0].message)
    assert (f"holds 0.5 (1 rating) beside 0 ({n0}) and 1 ({n1}), of {len(stray)} ratings"
            in text)
    assert "3 classes and its estimate is the mean rating, not alpha" in text
    assert "data[data['rating'].isin([0, 1])]" in text
    # the output says what the estimate is: the classes' shares weighted by their values
    frame = res.to_frame()
    assert frame.attrs["estimand"].startswith("mean rating")
    assert res.summary().title.endswith("mean rating when human raters err")
    np.testing.assert_allclose(frame["estimate"], frame[["share_0", "share_0.5", "share_1"]]
                               @ np.array([0.0, 0.5, 1.0]), atol=1e-12)
    # two stray values, one warning naming both
    stray.loc[1, "rating"] = 2.0
    _, caught = _fit(stray)
    assert len(caught) == 1
    assert "holds 0.5 (1 rating), 2 (1 rating) beside 0 " in str(caught[0].message)


def test_a_level_with_its_share_of_the_ratings_is_no_stray(crowd):
    # 0.5 on 5% of the ratings is a level of the rating (threshold 2%): no warning
    level = crowd.copy()
    level.loc[level.index[::20], "rating"] = 0.5
    res, caught = _fit(level)
    assert caught == [] and res.levels == (0.0, 0.5, 1.0)
    # a Likert scale whose rarest level is rare, beside three common ones: no warning
    rng = np.random.default_rng(0)
    likert = crowd.assign(rating=rng.choice([1, 2, 3, 4], len(crowd), p=[0.01, 0.3, 0.3, 0.39]))
    likert.loc[0, "rating"] = 1
    res, caught = _fit(likert)
    assert caught == [] and res.levels == (1.0, 2.0, 3.0, 4.0)


def test_raters_named_by_number_one_chain_and_a_scalar_metric_are_answered_plainly():
    # Guards: error_free=1 raised a raw TypeError, and with metric-only rows (no rater) the
    # ids became '1.0' so that error_free=[1] and plan(rater=1) were refused; chains=1 left
    # R-hat NaN without a word; a scalar metric was advised bins=5, which this model refuses
    rng = np.random.default_rng(0)
    rows = []
    for i in range(60):
        t = int(rng.random() < 0.4)
        for r in (1, 2, 3):
            rows.append(dict(item=i, annotator=r, rating=t if rng.random() < 0.85 else 1 - t,
                             metric=t))
    df = pd.concat([pd.DataFrame(rows),
                    pd.DataFrame(dict(item=range(60, 80), annotator=np.nan, rating=np.nan,
                                      metric=1))], ignore_index=True)
    assert df["annotator"].dtype == float
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for given in (1, [1], "1", np.int64(1)):
            fit = be.fit("rating ~ metric", df, rater="annotator", item="item",
                         error_free=given, draws=100, chains=2, seed=1)
            assert fit.error_free == ("1.0",)
        assert fit.plan(rater=2).to_frame().attrs is not None
    with pytest.raises(ParameterError, match="error_free=7 is not a rater"):
        be.fit("rating ~ metric", df, rater="annotator", item="item", error_free=7, draws=100,
               chains=2, seed=1)
    with pytest.warns(be.ConvergenceWarning, match=r"R-hat needs at least two chains"):
        be.fit("rating ~ metric", df, rater="annotator", item="item", draws=100, chains=1,
               seed=1)
    scalar = df.assign(metric=rng.random(len(df)))
    with pytest.raises(DataError, match=r"thresholded in the formula for this model, e.g. "
                                        r"I\(metric > 0.5\)"
                       ) as info:
        be.fit("rating ~ metric", scalar, rater="annotator", item="item", seed=1)
    assert "bins=" not in str(info.value)


def test_repeated_readings_told_apart_by_another_column_are_counted_in_the_summary():
    # Guards: 30 % of the ratings exported twice with a new annotation id were fitted as
    # independent readings, and nothing said how many (rater, item) pairs had more than one
    from binaryeval.raters._simulate import simulate_crowd

    df, _ = simulate_crowd(0, alphas=[0.4, 0.7], n_items=60,
                           competence=[0.9, 0.8, 0.7, 0.85])
    df["annotation_id"] = np.arange(len(df))
    dup = df.sample(frac=0.3, random_state=1).copy()
    dup["annotation_id"] += 10_000
    both = pd.concat([df, dup], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_raters("rating ~ metric | system", both, rater="annotator", item="item",
                         seed=1, draws=100, chains=2)
        clean = fit_raters("rating ~ metric | system", df, rater="annotator", item="item",
                           seed=1, draws=100, chains=2)
    pairs = both.groupby(["system", "item", "annotator"]).size()
    assert fit.ratings.repeated == int((pairs > 1).sum()) == len(dup)
    assert any(n.startswith(f"{len(dup):,} (rater, item) pairs have more than one reading")
               for n in fit.summary().notes)
    assert clean.ratings.repeated == 0
    assert not any("more than one reading" in n for n in clean.summary().notes)


# ----------------------------------------------------------------------------------------------
# values the columns may hold
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_an_infinite_rating_is_refused_by_row_not_made_a_level(crowd, bad):
    # an infinity used to become one more class of a binned rating: every estimate was inf
    df = crowd.copy()
    df.loc[5, "rating"] = bad
    with pytest.raises(DataError, match=r"human rating 'rating' holds an infinite value "
                                        r"-?inf \(row 5\); replace it with NaN"):
        _fit(df)


def test_a_float_metric_with_a_missing_output_reads_its_direction_by_position(crowd):
    # one missing metric output makes the column float (0.0, 1.0); the check for a metric read
    # the wrong way round looked its outputs up as '0' and '1' (KeyError), and they are now
    # labelled '0' and '1' as an integer column's are.  Here
    # the metric is reversed on purpose: rho + eta of the fit is 2 - (0.85 + 0.85) on the
    # data's construction, well under 0.9, and the warning must say so
    df = crowd.copy()
    df["metric"] = 1.0 - df["metric"]
    df.loc[df["item"] == 3, "metric"] = np.nan
    res, caught = _fit(df)
    assert res.metric_levels == ("0", "1")
    th = res.draws.theta.reshape(-1, 2, 2, 2).mean(axis=0)
    assert np.all(th[:, 1, 1] + th[:, 0, 0] < 0.6)
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and "the metric 'metric' in 'A' (rho + eta = 0." in said[0]
    assert "worse than chance" in said[0]


def test_a_text_metric_is_fitted_without_a_direction_check(crowd):
    # outputs 'bad' / 'good' have no direction the model knows of: the fit answers (it raised
    # KeyError) and equals the fit of the same metric coded 0/1 draw for draw (the outputs
    # sort the same way)
    df = crowd.copy()
    df["metric"] = df["metric"].map({0: "bad", 1: "good"})
    res, _ = _fit(df)
    ref, _ = _fit(crowd)
    assert res.metric_levels == ("bad", "good")
    np.testing.assert_array_equal(res.draws.pi, ref.draws.pi)


def test_missing_labels_are_named_by_their_row_as_typed_and_by_what_the_row_holds(crowd):
    # Guards: the row was shown as np.int64(120) (numpy 2's repr), and a row with the metric's
    # output alone was told that "every rating needs its item"
    df = crowd.copy()
    extra = pd.DataFrame({"system": "A", "item": [np.nan], "rater": [None], "metric": [1],
                          "rating": [np.nan]}, index=[900])
    with pytest.raises(DataError, match=r"column 'item' is missing on row 900; a row with the "
                                        r"metric's output alone is an item too and needs its "
                                        r"item: fill it in or drop the row"):
        _fit(pd.concat([df, extra]))
    df.loc[7, "item"] = np.nan
    with pytest.raises(DataError, match=r"column 'item' is missing on row 7; every rating "
                                        r"needs its item"):
        _fit(df)
    df = crowd.copy()
    df.loc[4, "rater"] = None
    with pytest.raises(DataError, match=r"^row 4 has a rating but no 'rater'"):
        _fit(df)


def test_rater_and_item_naming_one_column_is_refused(crowd):
    # Guards: rater="item", item="item" was fitted: every item's ratings read as three
    # readings by one rater named after the item
    with pytest.raises(ParameterError, match="rater= and item= both name the column 'item'"):
        fit_raters("rating ~ metric | system", crowd, **{**KW, "rater": "item"})


def test_a_likert_rating_read_in_as_text_is_the_levels_it_writes(crowd):
    # Guards: '1', '2', '3' (a CSV column read as text) were refused as "must be binary" with
    # the advice I(rating >= 3), which text cannot answer; the fit of the text equals the fit
    # of the numbers draw for draw
    df = crowd.copy()
    rng = np.random.default_rng(0)
    df["rating"] = df["rating"] + rng.integers(0, 2, len(df)) + 1      # levels 1, 2, 3
    text = df.assign(rating=df["rating"].map(lambda x: f" {x:.0f}"))
    a, _ = _fit(df, formula="rating ~ 1 | system")
    b, _ = _fit(text, formula="rating ~ 1 | system")
    assert b.levels == a.levels == (1.0, 2.0, 3.0)
    np.testing.assert_array_equal(a.draws.pi, b.draws.pi)
    # a categorical of the numbers (from R or parquet) too: it was refused as "must be binary"
    c, _ = _fit(df.assign(rating=df["rating"].astype("category")), formula="rating ~ 1 | system")
    np.testing.assert_array_equal(a.draws.pi, c.draws.pi)
    # text that is not all numbers keeps the binary check's message
    bad = text.copy()
    bad.loc[3, "rating"] = "n/a"
    with pytest.raises(be.errors.BinaryEvalError, match="'n/a'"):
        _fit(bad, formula="rating ~ 1 | system")


def test_readings_told_apart_name_the_column_that_tells_them_apart(crowd):
    # Guards: without '| system', item 3 of system A and item 3 of B (different outputs) were
    # one item read twice by each rater, and the summary said only "told apart by another
    # column, e.g. an id or a time"; the column is now named, with what it means if it names
    # different outputs
    fit, _ = _fit(crowd, formula="rating ~ 1")
    pairs = crowd.groupby(["item", "rater"]).size()
    assert fit.ratings.repeated == int((pairs > 1).sum()) > 0
    assert fit.told_apart == ("system", "metric")      # the metric differs between systems too
    note = [n for n in fit.summary().notes if "more than one reading" in n]
    assert len(note) == 1
    assert "told apart by columns 'system', 'metric'" in note[0]
    assert "the item is too coarse" in note[0]
    grouped, _ = _fit(crowd, formula="rating ~ 1 | system")
    assert grouped.ratings.repeated == 0 and grouped.told_apart == ()


def test_an_item_with_two_metric_outputs_names_its_rows_and_a_missing_grouping():
    # The same item ids under two systems, fitted without '| system': item 0 of A and of B
    # became one item with two metric outputs, refused as "item '0' of np.str_('all') has
    # different metric outputs", naming neither the rows nor the grouping left out
    df = _crowd()
    per = df.groupby(["item", "system"])["metric"].first().unstack()
    i = int(per.index[per["A"] != per["B"]][0])
    first = df.index[(df["system"] == "A") & (df["item"] == i)][0]
    clash = df.index[(df["system"] == "B") & (df["item"] == i)][0]
    assert i == 0 or (per.loc[:i - 1, "A"] == per.loc[:i - 1, "B"]).all()
    with pytest.raises(DataError) as err:
        fit_raters("rating ~ metric", df, **KW)
    text = str(err.value)
    assert text.startswith(f"item '{i}' has different metric outputs on its rows (rows {first} "
                           f"and {clash}, for one)")
    assert "group by the system (e.g. 'rating ~ metric | system')" in text
    assert "np.str_" not in text
    # with the grouping, the item within its group, named plainly
    bad = df.copy()
    bad.loc[first + 1, "metric"] = 1 - bad.loc[first, "metric"]
    with pytest.raises(DataError) as err:
        fit_raters("rating ~ metric | system", bad, **KW)
    text = str(err.value)
    assert text.startswith(f"item '{i}' of 'A' has different metric outputs on its rows (rows "
                           f"{first} and {first + 1}, for one)")
    assert "without a grouping" not in text


def test_ratings_without_a_rater_say_when_one_name_for_them_would_be_refused():
    # Two of five raters left unnamed: the refusal advised "one name for an unknown rater pools
    # their ratings"; one name then made every item the two rated a repeated reading, refused
    # with the advice to drop the exact repeats (genuine ratings of two raters).  The refusal
    # now counts the unnamed rows and the items that carry two or more of them
    df = _crowd()
    df["rater"] = df["rater"].astype(object).where(~df["rater"].isin(["r3", "r4"]), None)
    nameless = df[df["rater"].isna()]
    shared = int((nameless.groupby(["system", "item"]).size() > 1).sum())
    assert shared > 0
    with pytest.raises(DataError) as err:
        fit_raters("rating ~ metric | system", df, **KW)
    text = str(err.value)
    assert text.startswith(f"row {nameless.index[0]} has a rating but no 'rater' "
                           f"({len(nameless)} such row(s))")
    assert (f": {shared} item(s) carry two or more ratings without a rater, which one name "
            "would make one rater's repeated readings (refused)") in text
    # one unnamed rating per item: one name pools them, and the fit takes it
    once = df.drop(nameless.index[nameless.duplicated(["system", "item"])])
    with pytest.raises(DataError) as err:
        fit_raters("rating ~ metric | system", once, **KW)
    assert "such row(s)): " in str(err.value) and "carry two or more" not in str(err.value)
    named = once.assign(rater=once["rater"].fillna("unknown"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)   # 100 draws, two chains
        fit = fit_raters("rating ~ metric | system", named, **KW)
    assert "unknown" in fit.rater_names


def test_excluded_rows_name_each_row_left_out_by_its_label_and_reason(crowd):
    data = crowd.copy()
    data.index = pd.Index(np.arange(len(data))[::-1] * 2, name="line")
    lines = data.index
    data.loc[lines[3], "system"] = None
    data.loc[lines[[10, 11]], ["rating", "metric"]] = np.nan
    res, _ = _fit(data)
    rows = res.excluded_rows
    assert rows.index.name == "line"
    assert rows.to_dict() == {int(lines[3]): "missing group",
                              int(lines[10]): "no rating (human and metric missing)",
                              int(lines[11]): "no rating (human and metric missing)"}
    assert rows.value_counts().to_dict() == res.excluded
    whole, _ = _fit(crowd)
    assert whole.excluded == {} and whole.excluded_rows.empty
