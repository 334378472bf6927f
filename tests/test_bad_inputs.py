"""Catalogue of bad inputs: each raises the package's own error (a ValueError/TypeError subclass)
whose message names the argument or column, shows the offending value and says what to do."""

import numpy as np
import pandas as pd
import pytest

import binaryeval as be
from binaryeval._validate import MAX_COUNT
from binaryeval.errors import BinaryEvalError

D = pd.DataFrame

#: paired binary ratings and one metric-only row
PAIRED = D({"h": [1, 0, 1, 0, np.nan], "m": [1, 0, 1, 0, 1]})
#: paired ratings of a scalar metric, scores from 0.1 to 0.9
SCORES = D({"h": [1, 0, 1, 0, np.nan], "m": [0.9, 0.1, 0.8, 0.3, 0.5]})


def _fit(formula, frame, **kw):
    return lambda: be.fit(formula, frame, **kw)


# (id, call, fragments that must all appear in the message)
CASES = [
    # -- fit: formulas -------------------------------------------------------------------------
    ("fit unknown column", _fit("h ~ metrc", D({"h": [1, 0], "metric": [1, 0]})),
     ["metrc", "did you mean 'metric'"]),
    ("fit no tilde", _fit("h metric", D({"h": [1]})), ["no '~'", "human ~ metric"]),
    ("fit syntax error", _fit("h ~ m + (", D({"h": [1], "m": [1]})), ["unclosed '('"]),
    ("fit two bars", _fit("h ~ m | a | b", D({"h": [1], "m": [1], "a": [1], "b": [1]})),
     ["more than one top-level '|'"]),
    ("fit two metrics with a threshold", _fit("h ~ m + n", D({"h": [1, 0], "m": [.2, .7],
                                                              "n": [1, 0]}), threshold=0.5),
     ["threshold=0.5", "several metric terms", "bins="]),
    # -- fit: data -----------------------------------------------------------------------------
    ("fit empty frame", _fit("h ~ m", D({"h": [], "m": []})), ["no rows"]),
    ("fit not a frame", lambda: be.fit("h ~ m", {"h": [1], "m": [1]}), ["DataFrame"]),
    ("fit non-binary human", _fit("h ~ 1", D({"h": [0, 3]})), ["'h'", "3.0", "I(h == 0)"]),
    ("fit string human", _fit("h ~ 1", D({"h": ["good", "bad"]})), ["'h'", "'good'", "0/1"]),
    ("fit infinite human", _fit("h ~ 1", D({"h": [1.0, np.inf]})), ["'h'", "inf"]),
    ("fit all-NaN human", _fit("h ~ m", D({"h": [np.nan, np.nan], "m": [1, 0]})),
     ["'h'", "every row"]),
    ("fit scalar metric without threshold", _fit("h ~ m", D({"h": [1, 0], "m": [0.2, 0.7]})),
     ["'m'", "0.2", "threshold="]),
    ("fit string metric with threshold",
     _fit("h ~ m", D({"h": [1, 0], "m": ["x", "y"]}), threshold=0.5), ["'m'", "'x'", "numeric"]),
    ("fit infinite metric", _fit("h ~ m", D({"h": [1, 0], "m": [1.0, np.inf]}), threshold=0.5),
     ["'m'", "infinite"]),
    ("fit empty group", _fit("h ~ m | s", D({"h": [1, 0, np.nan], "m": [1, 0, np.nan],
                                             "s": ["a", "a", "b"]})), ["group 'b'", "no rated rows"]),
    ("fit group without paired rows", _fit("h ~ m | s", D({"h": [1, 0, np.nan], "m": [1, 0, 1],
                                                          "s": ["a", "a", "b"]})),
     ["group 'b'", "no paired rows", "rates='pooled'"]),
    ("fit unknown rates mode", _fit("h ~ 1", D({"h": [1, 0]}), rates="learned"),
     ["rates='learned'", "'estimate'"]),
    ("fit unknown threshold rule", _fit("h ~ m", D({"h": [1, 0], "m": [0.1, 0.3]}),
                                        threshold="median"), ["threshold='median'", "balanced"]),
    ("fit known rate out of range", _fit("h ~ m", D({"h": [1, 0, np.nan], "m": [1, 0, 1]}),
                                         rates={"rho": 1.4, "eta": 0.8}), ["rho=1.4", "[0, 1]"]),
    ("fit level out of range", _fit("h ~ 1", D({"h": [1, 0]}), level=95), ["level=95"]),
    ("fit bad prior", _fit("h ~ 1", D({"h": [1, 0]}), prior=(0, 1)), ["prior=(0, 1)", "positive"]),
    ("fit known rates typo", _fit("h ~ m", PAIRED, rates={"rh0": 0.9, "eta": 0.8}),
     ["unknown key 'rh0'", "{'rho': .., 'eta': ..}"]),
    ("fit known rates both misspelt", _fit("h ~ m", PAIRED, rates={"Rho": 0.9, "Eta": 0.8}),
     ["unknown keys ['Eta', 'Rho']", "{'rho': .., 'eta': ..}"]),
    ("fit known rate as text", _fit("h ~ m", PAIRED, rates={"rho": "0.9", "eta": 0.8}),
     ["rho='0.9'", "is a str", "number"]),
    ("fit rates as a pair", _fit("h ~ m", PAIRED, rates=(0.9, 0.8)),
     ["rates=(0.9, 0.8)", "{'rho': 0.8, 'eta': 0.8}"]),
    ("fit known rates without the group", _fit("h ~ m | g", PAIRED.assign(g="a"),
                                              rates={"b": {"rho": 0.9, "eta": 0.8}}),
     ["no entry for group 'a'"]),
    ("fit level as text", _fit("h ~ 1", D({"h": [1, 0]}), level="0.95"),
     ["level='0.95'", "is a str", "e.g. level=0.95"]),
    ("fit order unknown", _fit("h ~ 1 | g", D({"h": [1, 0], "g": ["a", "b"]}), order="alphabetical"),
     ["order='alphabetical'", "'estimate', 'input'"]),
    ("fit order incomplete", _fit("h ~ 1 | g", D({"h": [1, 0], "g": ["a", "b"]}), order=["a"]),
     ["order=['a']", "every group once"]),
    ("fit threshold NaN", _fit("h ~ m", SCORES, threshold=float("nan")),
     ["threshold=nan", "'m'", "not finite", "'balanced'"]),
    ("fit threshold infinite", _fit("h ~ m", SCORES, threshold=np.inf),
     ["threshold=inf", "not finite"]),
    ("fit threshold minus infinity", _fit("h ~ m", SCORES, threshold=-np.inf),
     ["threshold=-inf", "not finite"]),
    ("fit threshold boolean", _fit("h ~ m", SCORES, threshold=True),
     ["threshold=True", "'m'", "give a number, 'balanced' or 'youden'"]),
    ("fit threshold as text", _fit("h ~ m", SCORES, threshold="0.5"),
     ["threshold='0.5'", "number", "'balanced'"]),
    ("fit threshold above every score", _fit("h ~ m", SCORES, threshold=5.0),
     ["threshold 5", "'m'", "every rating in one class", "from 0.1 to 0.9", "'balanced'"]),
    ("fit threshold below every score", _fit("h ~ m", SCORES, threshold=-3),
     ["threshold -3", "every rating in one class", "from 0.1 to 0.9"]),
    ("fit threshold at the lowest score", _fit("h ~ m", SCORES, threshold=0.1),
     ["threshold 0.1", "every rating in one class"]),
    ("fit threshold per group NaN", _fit("h ~ m | g", SCORES.assign(g="a"), threshold={"a": np.nan}),
     ["threshold=nan", "not finite"]),
    ("fit threshold per group missing", _fit("h ~ m | g", SCORES.assign(g=list("aaabb")),
                                             threshold={"a": 0.5}), ["no entry for group 'b'"]),
    ("fit threshold without a metric", _fit("h ~ 1", D({"h": [1, 0]}), threshold=0.5),
     ["threshold given", "no metric"]),
    ("fit lower_is_better on the human side", _fit("h ~ m", SCORES, threshold=0.5,
                                                   lower_is_better=["h"]),
     ["lower_is_better='h'", "I(h == 0)"]),
    ("fit lower_is_better unknown term", _fit("h ~ m", SCORES, threshold=0.5,
                                              lower_is_better=["mqm"]),
     ["'mqm'", "not a term", "['h', 'm']"]),
    ("fit lower_is_better on a binary metric", _fit("h ~ m", PAIRED, lower_is_better="m"),
     ["lower_is_better='m'", "threshold=", "I(1 - m)"]),
    ("fit old direction argument", _fit("h ~ m", SCORES, threshold=0.5, higher_is_better=False),
     ["'higher_is_better'", "now 'lower_is_better'"]),
    ("fit old level name", _fit("h ~ 1", D({"h": [1, 0]}), confidence_level=0.9),
     ["'confidence_level'", "level=0.9"]),
    ("fit duplicated metric column", _fit("h ~ m", pd.concat([PAIRED, D({"m": [0, 1, 0, 1, 0]})],
                                                            axis=1)),
     ["2 columns named 'm'", "rename or drop", "duplicated()"]),
    ("fit duplicated human column in an expression", _fit(
        "I(h == 1) ~ m", pd.concat([PAIRED, D({"h": [0, 1, 0, 1, 0]})], axis=1)),
     ["2 columns named 'h'"]),
    ("fit duplicated group column", _fit("h ~ m | g", pd.concat(
        [PAIRED.assign(g="a"), D({"g": ["a"] * 5})], axis=1)), ["2 columns named 'g'"]),
    # -- fit_counts --------------------------------------------------------------------------------
    ("counts negative", lambda: be.fit_counts({"human_pos": -2, "human_total": 5}),
     ["human_pos", "-2", "non-negative"]),
    ("counts inconsistent", lambda: be.fit_counts({"metric_pos": 9, "metric_total": 5}),
     ["metric_pos=9", "metric_total=5"]),
    ("counts fractional", lambda: be.fit_counts({"tp": 2.5}), ["tp", "2.5", "whole"]),
    ("counts infinite", lambda: be.fit_counts({"human_pos": np.inf, "human_total": 3}),
     ["human_pos", "inf"]),
    ("counts unknown column", lambda: be.fit_counts({"positives": 3}),
     ["'positives'", "human_pos"]),
    ("counts wrong type", lambda: be.fit_counts([1, 2, 3]), ["DataFrame or a mapping", "list"]),
    ("counts NaN", lambda: be.fit_counts(D({"human_pos": [1, np.nan], "human_total": [3, 3]},
                                           index=["A", "B"])),
     ["counts['human_pos']", "group 'B'", "missing (nan)", "0 if there are none"]),
    ("counts None", lambda: be.fit_counts({"A": {"human_pos": None, "human_total": 3}}),
     ["counts['human_pos']", "group 'A'", "missing (None)"]),
    ("counts boolean", lambda: be.fit_counts(D({"tp": [True], "fn": [False]}, index=["A"])),
     ["counts['tp']", "group 'A'", "True is a bool", "whole numbers"]),
    ("counts as text", lambda: be.fit_counts({"human_pos": "3", "human_total": 5}),
     ["counts['human_pos']", "'3' is a str", "whole numbers"]),
    ("counts duplicated group", lambda: be.fit_counts(
        D({"group": ["A", "B", "A"], "human_pos": [1, 2, 3], "human_total": [5, 5, 5]})),
     ["group 'A'", "more than once", "groupby(level=0).sum()"]),
    ("counts beyond the limit", lambda: be.fit_counts(
        {"metric_pos": 6 * 10**14, "metric_total": 10**15, "tp": 80, "fn": 20, "tn": 80, "fp": 20}),
     ["counts['metric_pos']", "600,000,000,000,000", f"largest supported count {MAX_COUNT:,}"]),
    ("engine counts beyond the limit", lambda: be.alpha_posterior(
        metric_pos=6 * 10**14, metric_total=10**15, tp=80, fn=20, tn=80, fp=20),
     ["metric_pos=600,000,000,000,000", f"{MAX_COUNT:,}"]),
    ("counts level as text", lambda: be.fit_counts({"human_pos": 3, "human_total": 5}, level="0.95"),
     ["level='0.95'", "is a str", "number"]),
    # -- results -----------------------------------------------------------------------------------
    ("compare one group", lambda: be.fit("h ~ 1", D({"h": [1, 0]})).compare(),
     ["two groups", "| system"]),
    ("interval kind", lambda: be.fit("h ~ 1", D({"h": [1, 0]})).interval(kind="median"),
     ["kind='median'", "'hdi'"]),
    ("posterior unknown group", lambda: be.fit("h ~ 1 | g", D({"h": [1, 0], "g": ["a", "b"]}))
     .posterior("c"), ["group 'c'", "['a', 'b']"]),
    # -- roc -----------------------------------------------------------------------------------------
    ("roc single class", lambda: be.roc("h ~ s", D({"h": [1, 1], "s": [0.1, 0.2]})),
     ["both human classes", "0 negative"]),
    ("roc non-binary human", lambda: be.roc("h ~ s", D({"h": [1, 3], "s": [0.1, 0.2]})),
     ["'h'", "3.0"]),
    ("roc text score", lambda: be.roc("h ~ s", D({"h": [1, 0, 1], "s": [0.1, "high", 0.3]})),
     ["'s'", "'high'", "row 1"]),
    ("roc direction of the human side", lambda: be.roc("h ~ s", D({"h": [1, 0], "s": [.1, .2]}),
                                                       lower_is_better="h"),
     ["lower_is_better='h'", "binary"]),
    # -- favi ------------------------------------------------------------------------------------------
    ("favi unknown symbol", lambda: be.preference_confusion(["+", "x"], ["+", "-"]),
     ["'x'", "'+', '=', '-'"]),
    ("favi length mismatch", lambda: be.preference_confusion(["+", "-"], ["+"]),
     ["2 human", "1 metric"]),
    ("favi not 3x3", lambda: be.favi_score([[1, 2], [3, 4]]), ["3 x 3", "(2, 2)"]),
    ("favi negative counts", lambda: be.favi_score([[1, 2, 3], [3, -4, 1], [1, 1, 1]]),
     ["negative", "-4"]),
    ("favi duplicated item", lambda: be.favi("h ~ m | s", D({"h": [1, 2, 1], "m": [1, 2, 3],
                                                             "s": ["a", "a", "b"], "i": [1, 1, 1]}),
                                             item="i"), ["item 1", "system 'a'", "one row per"]),
    ("favi infinite human score", lambda: be.favi("h ~ m | s", D({"h": [1, np.inf, 2, 3], "m": [1, 2, 3, 4],
                                                                 "s": ["a", "b"] * 2, "i": [1, 1, 2, 2]},
                                                                index=[10, 11, 12, 13]), item="i"),
     ["human column 'h'", "inf", "row 11", "finite"]),
    ("favi infinite metric score", lambda: be.favi("h ~ m | s", D({"h": [1, 2, 2, 3], "m": [1, 2, -np.inf, 4],
                                                                  "s": ["a", "b"] * 2, "i": [1, 1, 2, 2]}),
                                                   item="i"), ["metric column 'm'", "-inf", "row 2"]),
    ("favi counts beyond int64", lambda: be.favi_score([[0, 0, 0], [0, 0, 0], [2**62, 0, 0]]),
     ["2**61", "overflow", "int64"]),
    ("favi confusion beyond int64", lambda: be.PreferenceConfusion.from_counts(
        [[2**60, 0, 0], [0, 2**60, 0], [0, 0, 2**60]]), ["counts", "2**61"]),
    ("favi duplicated column", lambda: be.favi("h ~ m | s", pd.DataFrame(
        [[1, 2, 3, "a", 1]], columns=["h", "m", "m", "s", "i"]), item="i"),
     ["2 columns named 'm'", "rename or drop"]),
    ("favi duplicated item column", lambda: be.favi("h ~ m | s", pd.DataFrame(
        [[1, 2, "a", 1, 1]], columns=["h", "m", "s", "i", "i"]), item="i"), ["columns named 'i'"]),
    ("favi lower_is_better unknown term", lambda: be.favi(
        "h ~ m | s", D({"h": [1, 2], "m": [1, 2], "s": ["a", "b"], "i": [1, 1]}), item="i",
        lower_is_better=["mqm"]), ["'mqm'", "not a term", "['h', 'm']"]),
    ("favi old direction argument", lambda: be.favi(
        "h ~ m | s", D({"h": [1, 2], "m": [1, 2], "s": ["a", "b"], "i": [1, 1]}), item="i",
        human_higher_is_better=False), ["human_higher_is_better", "lower_is_better"]),
    ("favi alpha is sig_level", lambda: be.favi(
        "h ~ m | s", D({"h": [1, 2], "m": [1, 2], "s": ["a", "b"], "i": [1, 1]}), item="i", alpha=0.01),
     ["'alpha'", "sig_level=0.01"]),
    ("favi draws is n_resamples", lambda: be.PreferenceConfusion.from_counts(np.eye(3) * 5).interval(
        draws=100), ["'draws'", "n_resamples=100"]),
    ("favi lower_is_better on preferences", lambda: be.favi(
        "h ~ m | a + b", D({"h": ["+"], "m": ["-"], "a": ["x"], "b": ["y"], "i": [1]}), item="i",
        lower_is_better="h"), ["lower_is_better=['h']", "no direction"]),
    # -- correlation ------------------------------------------------------------------------------------
    ("williams n too small", lambda: be.williams_test(0.5, 0.4, 0.3, 3), ["n = 3", "n >= 4"]),
    ("fisher r out of range", lambda: be.fisher_ci(1.2, 10), ["r = 1.2", "<= 1"]),
    ("williams invalid matrix", lambda: be.williams_test(0.9, -0.9, 0.9, 20),
     ["not a valid correlation matrix", "determinant"]),
    ("correlate constant column", lambda: be.correlate(
        "h ~ a + b", D({"h": [1, 2, 3, 4, 5], "a": [1] * 5, "b": [1, 3, 2, 5, 4]})),
     ["'a'", "constant", "1.0"]),
    ("correlate unknown column", lambda: be.correlate(
        "h ~ a + zz", D({"h": [1, 2, 3, 4, 5], "a": [1, 2, 1, 1, 1]})), ["'zz'"]),
    ("fisher level", lambda: be.fisher_ci(0.5, 10, level=1.5), ["level", "1.5"]),
    ("correlate infinite metric", lambda: be.correlate(
        "h ~ a + b", D({"h": [1, 2, 3, 4, 5.0], "a": [1, 3, 2, np.inf, 4], "b": [2, 1, 4, 3, 5.0]})),
     ["'a'", "inf", "row 3", "NaN"]),
    ("correlate infinite human", lambda: be.correlate(
        "h ~ a", D({"h": [1, -np.inf, 3, 4, 5.0], "a": [1, 3, 2, 5, 4.0]})),
     ["'h'", "-inf", "row 1", "finite"]),
    ("correlate duplicated column names", lambda: be.correlate(
        "h ~ a", pd.concat([D({"h": [1, 2, 3, 4, 5.0], "a": [1, 3, 2, 5, 4.0]}),
                            D({"a": [0, 1, 0, 1, 0.0]})], axis=1)),
     ["duplicated column names ['a']", "rename or drop"]),
    ("correlate lower_is_better unknown term", lambda: be.correlate(
        "h ~ a", D({"h": [1, 2, 3, 4, 5.0], "a": [1, 3, 2, 5, 4.0]}), lower_is_better=["mqm"]),
     ["lower_is_better", "'mqm'", "['h', 'a']"]),
    ("correlate several rows with aggregate=None", lambda: be.correlate(
        "h ~ a | s", D({"h": range(10), "a": [1, 3, 2, 5, 4] * 2, "s": list("abcde") * 2}),
        aggregate=None), ["system 'a'", "2 rows", "aggregate='mean'"]),
    ("correlate unknown aggregate", lambda: be.correlate(
        "h ~ a | s", D({"h": range(10), "a": [1, 3, 2, 5, 4] * 2, "s": list("abcde") * 2}),
        aggregate="sum"), ["aggregate='sum'", "'mean', 'median'"]),
    ("correlate text score", lambda: be.correlate(
        "h ~ a", D({"h": [1, 2, 3, 4, 5.0], "a": ["1", "3", "x", "5", "4"]})),
     ["'a'", "not numeric", "row 2", "'x'"]),
    ("pairwise alpha", lambda: be.correlate(
        "h ~ a + b", D({"h": [1, 2, 3, 4, 5.0], "a": [1, 3, 2, 5, 4.0], "b": [2, 1, 4, 3, 5.0]}))
     .pairwise(alpha=0.01), ["'alpha'", "sig_level=0.01"]),
    ("williams confidence_level", lambda: be.williams_test(0.9, 0.8, 0.7, 20)
     .confidence_interval(confidence_level=0.9), ["'confidence_level'", "level=0.9"]),
    ("hybrid duplicated column names", lambda: be.hybrid_supersample(
        D([[1, 1, 1, 1, 1]], columns=["s", "i", "h", "m", "m"]), system="s", item="i", human="h",
        metrics=["m"]), ["duplicated column names ['m']"]),
    # -- plan ----------------------------------------------------------------------------------------
    ("plan without the model", lambda: be.plan.required_sample_size(0.03),
     ["alpha and rho", "alpha=", "rho=", "fit"]),
    ("plan old rates spelling", lambda: be.plan.detectable_difference(0.6, 0.8, n_human=100,
                                                                      rates="estimated"),
     ["rates='estimated'", "'estimate'"]),
    ("plan rates='known'", lambda: be.plan.detectable_difference(0.6, 0.8, n_human=100,
                                                                 rates="known"),
     ["rates='known'", "rates={'rho': 0.8, 'eta': 0.8}"]),
    ("plan known rates unlike rho", lambda: be.plan.detectable_difference(
        0.6, 0.8, n_human=100, rates={"rho": 0.9, "eta": 0.8}), ["rho=0.8", "differ", "rates="]),
    ("plan known rates per group", lambda: be.plan.detectable_difference(
        0.6, 0.8, n_human=100, rates={"A": {"rho": 0.9, "eta": 0.8}}), ["one system", "both"]),
    ("plan old significance name", lambda: be.plan.detectable_difference(0.6, 0.8, gamma=0.1),
     ["'gamma'", "sig_level=0.1"]),
    ("plan old resample name", lambda: be.plan.simulate(0.6, 0.8, n_human=10, reps=5),
     ["'reps'", "n_resamples=5"]),
    ("plan unidentified metric", lambda: be.plan.detectable_difference(0.6, 0.5, 0.4),
     ["rho + eta", "0.9", "swap"]),
    ("plan paired set without psi", lambda: be.plan.detectable_difference(
        0.6, 0.8, n_human=10, n_paired=50), ["n_paired (50)", "n_human (10)", "psi"]),
    ("plan size as text", lambda: be.plan.detectable_difference(0.6, 0.8, n_human="100"),
     ["n_human='100'", "whole number"]),
    ("plan target out of range", lambda: be.plan.required_sample_size(2, alpha=0.6, rho=0.8),
     ["epsilon=2", "(0, 1]"]),
    ("plan paired sizes with known rates", lambda: be.plan.required_sample_size(
        0.05, "n_paired", alpha=0.6, rates={"rho": 0.8, "eta": 0.8}), ["vary='n_paired'", "known rates"]),
    ("plan budget negative", lambda: be.plan.optimal_allocation(-5, 1.0, 0.1, 0.6, 0.8),
     ["budget=-5", "positive"]),
    ("hybrid duplicated rows", lambda: be.hybrid_supersample(
        D({"s": ["a", "a", "b", "b"], "i": [1, 1, 1, 2], "h": [1, 2, 3, 4], "m": [1, 2, 3, 4]}),
        system="s", item="i", human="h", metrics=["m"], n_systems=10, seed=1),
     ["('a', 1)", "more than once"]),
]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name, call, fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_package_error(name, call, fragments):
    with pytest.raises(BinaryEvalError) as info:
        call()
    assert isinstance(info.value, (ValueError, TypeError))
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_catalogue_is_large_enough():
    assert len(CASES) > 60
    assert len({c[0] for c in CASES}) == len(CASES)
