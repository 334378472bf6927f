"""Catalogue of bad inputs: each raises the package's own error (a ValueError/TypeError subclass)
whose message names the argument or column, shows the offending value and says what to do."""

import numpy as np
import pandas as pd
import pytest

import binaryeval as be
from binaryeval._validate import MAX_COUNT
from binaryeval.errors import BinaryEvalError, DirectionWarning

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
    # -- fit_latent: bins of a metric that is already a rating (the message spoke of "3 distinct
    # quantile bins" for a 0/1 metric) and of a score with heavy ties ----------------------------
    ("fit_latent bins of a 0/1 metric", lambda: be.fit_latent(
        "h ~ m + n", D({"h": [1, 0] * 6, "m": [1, 0, 1, 1, 0, 0] * 2, "n": range(12)}),
        bins={"m": 4}),
     ["term 'm'", "take only 2 values (0, 1), fewer than 4 bins", "needs no bins"]),
    ("fit_latent bins of a tied score", lambda: be.fit_latent(
        "h ~ m", D({"h": [1, 0] * 10, "m": [0.5] * 16 + [0.1, 0.2, 0.3, 0.4] + [0.0] * 0}),
        bins={"m": 4}),
     ["term 'm'", "too many ties for 4 bins", "use fewer bins"]),
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
    # a score without threshold=: the fix for a score comes first (it said "a binary metric
    # has no direction to turn")
    ("fit lower_is_better on a score without a threshold", _fit("h ~ m", SCORES,
                                                                lower_is_better="m"),
     ["lower_is_better='m'", "if 'm' is a score, add threshold= (a number, 'balanced' or "
      "'youden')", "I(1 - m)"]),
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
        0.6, 0.8, n_human=10, n_paired=50), ["n_paired=50 exceeds n_human=10", "psi"]),
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


# ==================================================================================================
# Silent wrong answers and raw crashes on realistic input: each test fails on the code before the
# change it guards (the comment says which) and checks the answer against an independent count.
# ==================================================================================================
import json  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

from scipy import stats  # noqa: E402

from binaryeval.errors import CountsError, DataError, InputTypeError, ParameterError  # noqa: E402

REFERENCE = Path(__file__).parent / "reference"


def _paired_frame(n_per_group=24, groups=("A", "B", "C")):
    """Three groups, each with paired rows of both human classes, human-only, metric-only and
    unrated rows (a 12-row pattern repeated), a scalar score, and a second binary metric."""
    h = [1, 0, 1, 0, 1, 1, 0, np.nan, np.nan, np.nan, 1, 0]
    m = [1, 0, 1, 0, 1, 0, 0, 1, 0, np.nan, np.nan, np.nan]
    k = n_per_group // 12
    n = k * 12 * len(groups)
    human = np.array(h * k * len(groups), dtype=float)
    # a score that separates the human classes (AUC > 0.5), ties broken by the row
    score = 0.6 * np.nan_to_num(human, nan=0.5) + np.linspace(0.0, 0.3, n)
    return D({"human": human, "m1": m * k * len(groups),
              "m2": [1.0, 0, 1, 1, 0, 0] * (n // 6), "score": score,
              "system": np.repeat(list(groups), k * 12)})


def _counts_by_hand(h, m, g):
    """The eight counts per group from 0/1/NaN arrays, by pandas boolean sums (not the package)."""
    d = D({"h": np.asarray(h, dtype=float), "m": np.asarray(m, dtype=float), "g": g})
    rows = {}
    for name, part in d.groupby("g", sort=True):
        hh, mm = part["h"], part["m"]
        rows[str(name)] = {
            "human_pos": int(((hh == 1) & mm.isna()).sum()), "human_total": int((hh.notna() & mm.isna()).sum()),
            "metric_pos": int(((mm == 1) & hh.isna()).sum()), "metric_total": int((mm.notna() & hh.isna()).sum()),
            "tp": int(((hh == 1) & (mm == 1)).sum()), "fn": int(((hh == 1) & (mm == 0)).sum()),
            "tn": int(((hh == 0) & (mm == 0)).sum()), "fp": int(((hh == 0) & (mm == 1)).sum())}
    return D(rows).T.sort_index()


def _assert_counts(res, expected):
    got = res.counts.rename(index=str).sort_index()[expected.columns]
    pd.testing.assert_frame_equal(got.astype(np.int64), expected.astype(np.int64), check_names=False)


def _sklearn_roc_data():
    df = pd.read_csv(REFERENCE / "roc_threshold_data.csv")
    ref = json.loads((REFERENCE / "roc_threshold_sklearn.json").read_text())
    return df, ref["drop_intermediate=False"]["threshold"]


# -- 4. one check of human ratings --------------------------------------------------------------
def test_choose_threshold_refuses_minus_one_plus_one_and_scales():
    # Guards: choose_threshold(2*h - 1, s) returned another threshold (the -1 rows counted as
    # negative positives) and a 1/5 Likert coding a third one; roc refused the same data.  The
    # 0/1 answer is sklearn's (tests/reference/roc_threshold_sklearn.json: 0.6).
    df, expected = _sklearn_roc_data()
    h, s = df["human"].to_numpy(), df["score"].to_numpy()
    assert be.choose_threshold(h, s) == expected
    with pytest.raises(DataError, match=r"'human'.*holds -1.0 \(position 0\).*-1/\+1.*"
                                        r"np.asarray\(human\) == 1"):
        be.choose_threshold(2 * h - 1, s)
    with pytest.raises(DataError, match=r"'human'.*holds 5.0.*scale \(1 to 5\)"):
        be.choose_threshold(np.where(h == 1, 5, 1), s)
    with pytest.raises(DataError, match=r"'h' \(human rating\).*-1.0.*I\(h == 1\)"):
        be.roc("h ~ s", D({"h": 2 * h - 1, "s": s}))
    with pytest.raises(DataError, match=r"'h' \(human rating\).*-1.0.*I\(h == 1\)"):
        be.fit("h ~ s", D({"h": 2 * h - 1, "s": s}), threshold="balanced")
    # the fix the message names gives the 0/1 answer
    assert be.choose_threshold(np.asarray(2 * h - 1) == 1, s) == expected


def test_choose_threshold_text_and_lengths_are_refused_clearly():
    # Guards: choose_threshold(['yes', 'no'], ...) raised numpy's "could not convert string to
    # float"; different lengths, a text score and a single string are named too
    with pytest.raises(InputTypeError, match=r"'human'.*'yes' \(position 0\).*== 'yes'"):
        be.choose_threshold(["yes", "no"], [0.2, 0.5])
    with pytest.raises(DataError, match=r"human \(3 values\) and score \(2 values\)"):
        be.choose_threshold([1, 0, 1], [0.2, 0.5])
    with pytest.raises(DataError, match=r"'score'.*'high' \(position 1\)"):
        be.choose_threshold([1, 0], [0.2, "high"])
    with pytest.raises(InputTypeError, match="single value '10'"):
        be.choose_threshold("10", [0.2, 0.5])


@pytest.mark.filterwarnings("ignore::binaryeval.errors.ConvergenceWarning")
@pytest.mark.parametrize("coding", ["bool", "Int64", "boolean", "category", "category of bools",
                                    "object bools", "text booleans"])
def test_human_codings_give_the_answer_of_zero_one(coding):
    # Guards: a categorical human column crashed with IndexError in data.py (fit, roc, Dask,
    # fit_latent); every accepted coding of the same ratings gives the 0/1 answer everywhere
    df, expected = _sklearn_roc_data()
    h = df["human"]
    coded = {"bool": h.astype(bool), "Int64": h.astype("Int64"), "boolean": h.astype("boolean"),
             "category": h.astype("category"), "category of bools": h.astype(bool).astype("category"),
             "object bools": h.astype(bool).astype(object),
             "text booleans": h.astype(bool).astype(str)}[coding]
    assert be.choose_threshold(coded, df["score"]) == expected
    data = D({"h": coded, "s": df["score"]})
    assert be.roc("h ~ s", data).auc()["pooled"] == pytest.approx(
        stats.mannwhitneyu(df.score[h == 1], df.score[h == 0]).statistic / (288 * 212), abs=1e-12)
    frame = _paired_frame()
    canonical = frame["human"]
    recoded = {"bool": canonical.map({1.0: True, 0.0: False}),
               "Int64": canonical.astype("Int64"), "boolean": canonical.astype("boolean"),
               "category": canonical.astype("category"),
               "category of bools": canonical.map({1.0: True, 0.0: False}).astype("category"),
               "object bools": canonical.map({1.0: True, 0.0: False}).astype(object),
               "text booleans": canonical.map({1.0: "True", 0.0: "False"})}[coding]
    res = be.fit("human ~ m1 | system", frame.assign(human=recoded))
    _assert_counts(res, _counts_by_hand(canonical, frame["m1"], frame["system"]))
    # m2 runs against the human ratings in this frame: said alike for every coding
    with pytest.warns(DirectionWarning, match=r"'m2' runs against the human ratings"):
        latent = be.fit("human ~ m1 + m2 | system", frame.assign(human=recoded), draws=50,
                        chains=1, seed=1)
    with pytest.warns(DirectionWarning, match=r"'m2' runs against the human ratings"):
        reference = be.fit("human ~ m1 + m2 | system", frame, draws=50, chains=1, seed=1)
    np.testing.assert_array_equal(latent.latent.paired, reference.latent.paired)
    np.testing.assert_array_equal(latent.latent.human, reference.latent.human)


def test_categorical_and_boolean_metrics_are_ratings_not_scalars():
    # Guards: a 0/1 categorical metric was called "scalar"; the answer is the 0/1 metric's
    frame = _paired_frame()
    expected = _counts_by_hand(frame["human"], frame["m1"], frame["system"])
    for metric in (frame["m1"].astype("category"), frame["m1"].astype("Int64"),
                   frame["m1"].map({1.0: True, 0.0: False}).astype("category")):
        _assert_counts(be.fit("human ~ m1 | system", frame.assign(m1=metric)), expected)
    with pytest.raises(InputTypeError, match=r"'m1' \(metric rating\).*'good'.*I\(m1 == 'good'\)"):
        be.fit("human ~ m1", frame.assign(m1=np.where(frame.m1 == 1, "good", "bad")))


@pytest.mark.filterwarnings("ignore::binaryeval.errors.ConvergenceWarning")
# -- 5. a term missing everywhere ----------------------------------------------------------------
def test_an_all_missing_metric_term_is_refused_by_name():
    # Guards: fit("human ~ m1 + m2 | system", df.assign(m2=nan)) reported the rows rated by m1 as
    # "no rating" (the joint pattern was missing everywhere) and fitted the human ratings alone;
    # a thresholded scalar metric missing everywhere gave a fit of the human ratings alone too
    frame = _paired_frame()
    with pytest.raises(DataError, match=r"column 'm2' \(metric rating\) is missing \(NaN\) in every row"):
        be.fit("human ~ m1 + m2 | system", frame.assign(m2=np.nan), draws=50, chains=1)
    with pytest.raises(DataError, match=r"'score' \(metric score\) is missing \(NaN\) in every row"):
        be.fit("human ~ score | system", frame.assign(score=np.nan), threshold=0.5)
    with pytest.raises(DataError, match=r"'score' \(metric score\) is missing"):
        be.roc("human ~ score | system", frame.assign(score=np.nan))
    dd = pytest.importorskip("dask.dataframe")
    with pytest.raises(DataError, match=r"'score' \(metric score\) is missing"):
        be.fit("human ~ score | system", dd.from_pandas(frame.assign(score=np.nan), npartitions=3),
               threshold=0.5)
    prefs = D({"item": np.repeat(np.arange(30), 2), "system": ["a", "b"] * 30,
               "human": np.arange(60.0) % 7, "m1": np.arange(60.0) % 5, "m2": np.nan})
    with pytest.raises(DataError, match=r"column 'm2' \(rating\) is missing"):
        be.fit_preferences("human ~ m1 + m2 | system", prefs, item="item", draws=50, chains=1)


# -- 7. several grouping columns -----------------------------------------------------------------
def test_values_holding_the_separator_never_merge_groups():
    # Guards: ("x:y", "z") and ("x", "y:z") were one group "x:y:z" in fit, on Dask (across
    # partitions), in roc and in correlate
    frame = _paired_frame(groups=("g1", "g2"))
    frame["a"] = np.where(frame["system"] == "g1", "x:y", "x")
    frame["b"] = np.where(frame["system"] == "g1", "z", "y:z")
    expected = _counts_by_hand(frame["human"], frame["m1"], frame["system"]).rename(
        index={"g1": "'x:y':z", "g2": "x:'y:z'"}).sort_index()
    res = be.fit("human ~ m1 | a + b", frame)
    _assert_counts(res, expected)
    dd = pytest.importorskip("dask.dataframe")
    _assert_counts(be.fit("human ~ m1 | a + b", dd.from_pandas(frame, npartitions=2)), expected)
    # roc groups through the formula's own evaluation (the latent-truth model takes one column)
    assert sorted(be.roc("human ~ score | a + b", frame, pooled=False).curves) == sorted(expected.index)
    scores = D({"h": np.arange(8.0), "m": np.arange(8.0) ** 1.5, "a": ["x:y", "x"] * 4,
                "b": ["z", "y:z"] * 4, "s": np.repeat(np.arange(4), 2)})
    res = be.correlate("h ~ m | s + a + b", scores)
    assert res.n == 8  # eight systems, none merged (before: four, each the mean of two rows)
    assert res.r["m"] == pytest.approx(stats.pearsonr(scores.h, scores.m).statistic, abs=1e-12)


@pytest.mark.filterwarnings("ignore::binaryeval.errors.ConvergenceWarning")
# -- 8. one rule for labels: text ---------------------------------------------------------------
def test_items_written_as_numbers_and_text_meet():
    # Guards: fit_preferences with item 1 (int) for one system and "1" (str) for the other gave
    # the pair no shared item and a prior-only answer, silently; items are told apart by text
    rng = np.random.default_rng(3)
    rows = [{"item": i if s == "A" else str(i), "system": s,
             "human": q + rng.normal() if i < 60 else np.nan, "metric": q + rng.normal()}
            for i in range(150) for s, q in (("A", 0.5), ("B", 0.0))]
    mixed = D(rows)
    text = mixed.assign(item=mixed["item"].astype(str))
    a = be.fit_preferences("human ~ metric | system", mixed, item="item", draws=200, seed=1)
    b = be.fit_preferences("human ~ metric | system", text, item="item", draws=200, seed=1)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    # the human preferences counted by hand: 60 items rated by both systems
    assert int(a.to_frame()["n_paired"].iloc[0]) == 60
    # favi counts the same pairs with mixed items
    fa = be.favi("human ~ metric | system", mixed, item="item").to_frame()
    fb = be.favi("human ~ metric | system", text, item="item").to_frame()
    pd.testing.assert_frame_equal(fa, fb)


def test_favi_systems_one_and_text_one_are_one_system():
    # Guards: favi with systems 1 and "1" in one column crashed in numpy (bincount of -1); they
    # are one system by the text rule, so an item has two rows for it: a clear error
    df = D({"item": np.repeat(np.arange(10), 3), "system": [1, "1", "B"] * 10,
            "human": np.arange(30.0), "metric": np.arange(30.0) % 4})
    with pytest.raises(DataError, match=r"item 0 has more than one row for system '1'.*1 and '1' are one"):
        be.favi("human ~ metric | system", df, item="item")


def test_counts_tables_keyed_by_text():
    # Guards: fit_counts with index [1, "1"] crashed ("truth value of a Series is ambiguous") and
    # a MultiIndex crashed in pandas; the MultiIndex names groups as fit names several columns
    with pytest.raises(CountsError, match=r"group '1' appears more than once.*1 and '1' are one"):
        be.fit_counts(D({"human_pos": [3, 4], "human_total": [5, 6]}, index=[1, "1"]))
    index = pd.MultiIndex.from_tuples([("a", "news"), ("a", "x:y")], names=["system", "domain"])
    res = be.fit_counts(D({"human_pos": [3, 4], "human_total": [5, 6]}, index=index))
    table = res.to_frame()
    assert sorted(table.index) == ["a:'x:y'", "a:news"]
    assert table.index.name == "system:domain"
    # Beta(1 + 3, 1 + 2) and Beta(1 + 4, 1 + 2): posterior means 4/7 and 5/8
    assert table.loc["a:news", "estimate"] == pytest.approx(4 / 7, abs=1e-9)
    assert table.loc["a:'x:y'", "estimate"] == pytest.approx(5 / 8, abs=1e-9)


def test_per_group_known_rates_and_thresholds_keyed_by_numbers():
    # Guards: rates={1: {...}, 2: {...}} for systems 1 and 2 said "rates has no entry for group
    # '1'" (integer keys never matched the text labels); thresholds per group alike
    frame = _paired_frame(groups=("1", "2")).assign(system=lambda d: d["system"].astype(int))
    known = {"rho": 0.8, "eta": 0.7}
    by_int = be.fit("human ~ m1 | system", frame, rates={1: known, 2: known}).to_frame()
    by_text = be.fit("human ~ m1 | system", frame, rates={"1": known, "2": known}).to_frame()
    pd.testing.assert_frame_equal(by_int, by_text)
    cut = be.fit("human ~ score | system", frame, threshold={1: 0.5, 2: 0.25})
    assert cut.to_frame()["threshold"].to_dict() == {"1": 0.5, "2": 0.25}
    with pytest.raises(ParameterError, match=r"two entries for group '1' \(1 and '1'\)"):
        be.fit("human ~ m1 | system", frame, rates={1: known, "1": known, 2: known})


# -- crashes and misleading messages -------------------------------------------------------------
def test_preferences_of_text_scores_are_refused():
    # Guards: preferences(['a'], ['b']) raised numpy's "could not convert string to float"
    with pytest.raises(DataError, match=r"'scores_1' holds a non-numeric value 'a' \(position 0\)"):
        be.preferences(["a"], ["b"])


def test_latent_model_on_dask_says_dask():
    # Guards: fit_latent(ddf) said "must be a pandas DataFrame, got DataFrame"
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(_paired_frame(), npartitions=2)
    for call in (lambda: be.fit_latent("human ~ m1 + m2 | system", ddf),
                 lambda: be.fit_preferences("human ~ m1 | system", ddf, item="score"),
                 lambda: be.roc("human ~ score | system", ddf)):
        with pytest.raises(DataError, match=r"data is a Dask DataFrame.*\.compute\(\)"):
            call()


def test_dask_string_booleans_are_booleans():
    # Guards: Dask turns an object column of Python booleans into strings ('True'), which fit
    # called a "scalar" metric; the text of a boolean is read as the boolean (pandas' CSV rule)
    dd = pytest.importorskip("dask.dataframe")
    frame = _paired_frame()
    booleans = frame.assign(m1=frame["m1"].map({1.0: True, 0.0: False}).astype(object))
    expected = _counts_by_hand(frame["human"], frame["m1"], frame["system"])
    _assert_counts(be.fit("human ~ m1 | system", dd.from_pandas(booleans, npartitions=3)), expected)


# -- 6. names in text files ---------------------------------------------------------------------
_IDS_CSV = ("system,item,human,metric\n"
            + "".join(f"{s},{i},{h},{m}\n" for i in range(6)
                      for s, h, m in (("007", 1, 1), ("7", 0, 0), ("07.0", 1, 0), ("NA", 0, 1),
                                      ("None", 1, 1), ("null", 0, 0), ("", 1, 1)))
            + "A,9,1,NA\n")


def test_read_table_keeps_names_as_written(tmp_path):
    # Guards: reading a CSV merged systems 007, 7 and 07.0 into one group 7.0, and read systems
    # named NA, None and null as missing; with string_columns only an empty cell is missing, and
    # the other columns keep pandas' reading (the metric "NA" of system A is missing)
    csv = tmp_path / "ratings.csv"
    csv.write_text(_IDS_CSV)
    plain = be.read_table(csv)
    assert plain["system"].nunique() < 6  # pandas' own reading: the merge this guards against
    table = be.read_table(csv, string_columns=["system", "item", "absent"])
    assert table["system"].value_counts(dropna=False).to_dict() == {
        "007": 6, "7": 6, "07.0": 6, "NA": 6, "None": 6, "null": 6, np.nan: 6, "A": 1}
    assert table["metric"].isna().sum() == 1 and table["metric"].dtype == float
    tsv = tmp_path / "ratings.tsv"
    tsv.write_text(_IDS_CSV.replace(",", "\t"))
    assert be.read_table(tsv, string_columns="system")["system"].nunique() == 7
    js = tmp_path / "ratings.json"
    table.to_json(js, orient="records")
    assert set(be.read_table(js, string_columns=["system"])["system"].dropna()) == {
        "007", "7", "07.0", "NA", "None", "null", "A"}
    pytest.importorskip("dask.dataframe")
    lazy = be.read_table(csv, dask=True, string_columns=["system"]).compute()
    assert sorted(lazy["system"].dropna().unique()) == ["007", "07.0", "7", "A", "NA", "None", "null"]
    with pytest.raises(ParameterError, match=r"string_columns holds 3"):
        be.read_table(csv, string_columns=["system", 3])


def test_command_line_keeps_system_names(tmp_path, capsys):
    # Guards: `binaryeval fit ... --data file.csv` fitted one group "7.0" for systems 007, 7 and
    # 07.0 and dropped systems NA, None and null as missing; the counts are checked by hand
    from binaryeval.cli import main

    csv = tmp_path / "ratings.csv"
    csv.write_text(_IDS_CSV)
    out = tmp_path / "fit.csv"
    assert main(["fit", "human ~ metric | system", "--data", str(csv), "-o", str(out)]) == 0
    result = pd.read_csv(out, dtype={"system": str}, keep_default_na=False).set_index("system")
    assert sorted(result.index) == sorted(["007", "7", "07.0", "NA", "None", "null", "A"])
    # 007: six paired rows human 1 / metric 1; A: one human-only row
    assert result.loc["007", "n_paired"] == 6 and result.loc["A", "n_human"] == 1
    # favi's --item is a column of names too: items 0..5 shared by every system
    assert main(["favi", "human ~ metric | system", "--data", str(csv), "--item", "item",
                 "--format", "csv"]) == 0


def test_a_query_sees_name_columns_as_pandas_reads_them(tmp_path):
    # Guards: with the name columns read as text, --query "system != 3" kept system 3 (text
    # "3" is not the number 3), "system == 3" kept nothing and "system < 3" failed; the query
    # now means what it means on pandas' own reading, and the rows kept keep the names
    csv = tmp_path / "ratings.csv"
    csv.write_text("system,item,human,metric\n" + "".join(
        f"{s},{i},{(i + j) % 2},{i % 2}\n" for i in range(6)
        for j, s in enumerate(("007", "7", "07.0", "3", "12", "NA", "None", ""))))
    pandas_reading = pd.read_csv(csv)
    assert pandas_reading["system"].dtype == float  # pandas: numbers, NA and None missing
    for query in ("system != 3", "system == 3", "system < 8", "system in [7, 12]",
                  "item > 2 and system != 7"):
        got = be.read_table(csv, query, string_columns=["system", "item"])
        want = pandas_reading.query(query)
        # the same rows as pandas' query picks ...
        assert len(got) == len(want), query
        assert got["human"].tolist() == want["human"].tolist(), query
        # ... with the names as written
        assert all(isinstance(v, str) for v in got["system"].dropna()), query
    assert sorted(be.read_table(csv, "system == 7", string_columns=["system"])["system"]
                  .unique()) == ["007", "07.0", "7"]  # pandas reads each as 7
    pytest.importorskip("dask.dataframe")
    lazy = be.read_table(csv, "system < 8", dask=True, string_columns=["system"]).compute()
    assert sorted(lazy["system"].unique()) == ["007", "07.0", "3", "7"]
    # a column that is not all numbers stays text for the query too, as in pandas
    mixed = tmp_path / "mixed.csv"
    mixed.write_text(_IDS_CSV)
    assert len(be.read_table(mixed, "system != 7", string_columns=["system"])) == len(
        pd.read_csv(mixed).query("system != 7"))


def test_a_grouping_term_that_names_or_joins_columns_reads_them_as_written(tmp_path, capsys):
    # Guards: "| I(system)" read systems 007 and 7 as one group 7.0 and dropped NA and None as
    # missing; "| I(system + '/' + lp)" failed inside numpy (int plus text)
    from binaryeval.cli import main

    csv = tmp_path / "ratings.csv"
    csv.write_text(_IDS_CSV)
    out = tmp_path / "fit.csv"
    assert main(["fit", "human ~ metric | I(system)", "--data", str(csv), "-o", str(out)]) == 0
    result = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert sorted(result.iloc[:, 0]) == sorted(["007", "7", "07.0", "NA", "None", "null", "A"])
    joined = tmp_path / "joined.csv"
    joined.write_text("system,lp,human,metric\n007,de,1,1\n7,de,0,1\n007,de,1,0\n7,de,,1\n")
    out2 = tmp_path / "fit2.csv"
    assert main(["fit", 'human ~ metric | I(system + "/" + lp)', "--data", str(joined),
                 "--rates", "rho=0.8,eta=0.8", "-o", str(out2)]) == 0
    assert sorted(pd.read_csv(out2, dtype=str).iloc[:, 0]) == ["007/de", "7/de"]


def test_make_report_reads_grouping_columns_as_written(tmp_path, monkeypatch):
    # Guards: make_report read its data file as the command line did before (systems merged);
    # the table it fits is checked, the rendering is not needed for that
    from binaryeval.reports import user_report

    csv = tmp_path / "ratings.csv"
    csv.write_text(_IDS_CSV)
    seen = {}

    class Stop(Exception):
        pass

    def fit(formula, table, **kw):
        seen["systems"] = sorted(table["system"].dropna().unique())
        raise Stop

    monkeypatch.setattr(user_report, "fit", fit)
    with pytest.raises(Stop):
        user_report.make_report(csv, "human ~ metric | system", output=tmp_path / "r.html")
    assert seen["systems"] == ["007", "07.0", "7", "A", "NA", "None", "null"]


def test_parquet_folder_with_a_missing_column_reads_on_dask(tmp_path):
    # Guards: --dask on a folder whose files lack a column raised KeyError (pandas reads it,
    # missing where a file lacks it); the Dask fit equals the pandas fit and the hand counts
    dd = pytest.importorskip("dask.dataframe")
    frame = _paired_frame()
    folder = tmp_path / "parts"
    folder.mkdir()
    frame.iloc[:24].to_parquet(folder / "a.parquet")
    frame.iloc[24:48].drop(columns=["score"]).to_parquet(folder / "b.parquet")
    frame.iloc[48:].drop(columns=["m1"]).to_parquet(folder / "c.parquet")
    lazy = be.read_table(folder, dask=True)
    eager = be.read_table(folder)
    assert list(lazy.columns) == list(eager.columns)
    score = frame["score"].where(np.arange(len(frame)) // 24 != 1)
    m1 = frame["m1"].where(np.arange(len(frame)) // 24 != 2)
    for formula, kw, metric in (("human ~ score | system", {"threshold": 0.5},
                                 np.where(score.isna(), np.nan, score >= 0.5)),
                                ("human ~ m1 | system", {}, m1)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = be.fit(formula, lazy, **kw)
            b = be.fit(formula, eager, **kw)
        pd.testing.assert_frame_equal(a.counts, b.counts)
        _assert_counts(a, _counts_by_hand(frame["human"], metric, frame["system"]))
    assert isinstance(lazy, dd.DataFrame)


def test_a_not_rated_code_beside_0_and_1_is_advised_as_missing_not_as_a_rating():
    # Guards: human ratings 0/1 with -1 for "not rated" were refused with the advice
    # I(human == 1), which turns every unrated row into an inadequate human rating (the
    # estimates fell from about 0.59 to 0.19); and a 2/5 scale was advised I(human == 1),
    # a value it does not hold.  The advice given now gives the intended fit.
    rng = np.random.default_rng(1)
    n = 900
    truth = rng.random(n) < 0.6
    metric = np.where(truth, rng.random(n) < 0.75, rng.random(n) > 0.75).astype(int)
    rated = rng.random(n) < 0.3
    df = pd.DataFrame({"system": np.repeat(["A", "B", "C"], 300), "metric": metric,
                       "human": np.where(rated, truth, -1).astype(int)})
    with pytest.raises(DataError) as info:
        be.fit("human ~ metric | system", df)
    message = str(info.value)
    assert f"besides 0 and 1 it holds -1 ({int((~rated).sum()):,} rows)" in message
    advice = "where(human == -1, np.nan, human)"
    assert advice in message
    intended = be.fit("human ~ metric | system", df.replace({"human": {-1: np.nan}}))
    followed = be.fit(f"{advice} ~ metric | system", df)
    pd.testing.assert_frame_equal(followed.counts, intended.counts)
    with pytest.raises(DataError) as info:
        be.fit("human ~ metric", pd.DataFrame({"human": [2, 5, 5], "metric": [1, 0, 1]}))
    assert "== 1" not in str(info.value) and "I(human >= 5)" in str(info.value)


def test_group_values_that_print_alike_are_one_group_and_said_once():
    # Guards: a system column holding 1 (int) and '1' (str), two batches concatenated, was
    # fitted as one group without a word (the package's rule: groups are told apart by their
    # text); the merge is now said, with the values, once per call and at the caller's line
    b1 = pd.DataFrame({"system": [1] * 50 + [2] * 50,
                       "human": [1] * 40 + [0] * 10 + [1] * 20 + [0] * 30})
    b2 = pd.DataFrame({"system": ["1"] * 50 + ["2"] * 50,
                       "human": [0] * 40 + [1] * 10 + [0] * 20 + [1] * 30})
    df = pd.concat([b1, b2], ignore_index=True)
    with pytest.warns(be.BinaryEvalWarning) as caught:
        res = be.fit("human ~ 1 | system", df)
    said = [w for w in caught if "print alike" in str(w.message)]
    assert len(said) == 1 and said[0].filename == __file__
    assert "1 (int) and '1' (str)" in str(said[0].message)
    assert sorted(res.groups) == ["1", "2"]
    assert res.counts.loc["1", "human_total"] == 100  # one group, as the rule says
    # distinct texts: nothing said
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        be.fit("human ~ 1 | system", df.assign(system=df["system"].astype(str) + "x"))


@pytest.mark.parametrize("sep, shown", [(";", "';'"), ("\t", "a tab")])
def test_a_csv_separated_by_another_character_is_named(tmp_path, sep, shown):
    # a European CSV (';') read with commas gave one column 'system;seg_id;...', and every later
    # error named that column; the reader now says what separates the fields
    path = tmp_path / "table.csv"
    path.write_text(sep.join(["system", "seg_id", "mqm"]) + "\n" + sep.join(["A", "1", "0"]) + "\n")
    with pytest.raises(DataError, match=rf"reads as one column .*separated by {shown}"):
        be.read_table(path)
    with pytest.raises(DataError, match=rf"separated by {shown}"):
        be.read_table(path, dask=True)
    # a comma-separated file whose values hold ';' reads as it is
    path.write_text("system,seg_id\nA;x,1\n")
    assert be.read_table(path).columns.tolist() == ["system", "seg_id"]


def test_a_level_above_one_is_read_as_a_percentage_only_where_it_can_be_one():
    # Guards: level=1.5 was answered "for a 1.5% interval pass level=0.015", an interval no
    # one asks for; 95 still reads as 95 %, anything else gets the usual example
    from binaryeval import _validate

    with pytest.raises(be.errors.ParameterError, match=r"for a 95% interval pass level=0\.95"):
        _validate.level(95)
    for bad in (1.5, 2, 150):
        with pytest.raises(be.errors.ParameterError) as info:
            _validate.level(bad)
        assert str(info.value).endswith(", e.g. level=0.95"), str(info.value)
