"""Audit of hostile and odd inputs against every entry point (pandas, Dask, command line, report).

Classes of input a user, or a file from someone else, brings: dtypes (categorical, nullable
``Int64``/``boolean``, Python objects, text that looks like numbers or booleans, datetimes),
codings (-1/+1, a 1-5 scale, 0.5), shapes (empty, one row, repeated index, MultiIndex, duplicated
columns, not a frame), values (infinite, huge, negative, missing everywhere), labels (``1`` and
``"1"``, ``":"`` inside names, ``NA``/``None`` as names), text files (ids such as ``007``, a text
value further down for Dask).  Each is fed to each entry point that reads it, and each outcome is
one of two:

- a right answer, checked against an independent computation of the same quantity from the
  plain data (counts by pandas boolean sums, AUC as the Mann-Whitney U statistic of scipy, a
  threshold by brute force over the observed scores, Favi confusion counts by item, preference
  counts by item, correlations by scipy, Beta posterior means in closed form, Zou's interval from
  Fisher's);
- a refusal: an error of the package's hierarchy (a ``ValueError``/``TypeError``) whose message
  contains the fragments listed with the case: the column or argument, the value, the fix.

``test_audit_size`` states how many inputs there are and how many of each outcome.
"""

from __future__ import annotations

import itertools
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import binaryeval as be
from binaryeval.errors import BinaryEvalError

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")

D = pd.DataFrame


@pytest.fixture(autouse=True)
def _quiet_and_synchronous():
    # one thread (fast, deterministic); Dask's own string conversion of object columns is left
    # on, as users have it.  Warnings (identifiability, convergence of short chains) are not what
    # is audited here.
    with dask.config.set({"scheduler": "synchronous"}), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ----------------------------------------------------------------------------------------------
# the plain data and independent computations on it
# ----------------------------------------------------------------------------------------------
H = [1, 0, 1, 0, 1, 1, 0, np.nan, np.nan, np.nan, 1, 0]
M = [1, 0, 1, 0, 1, 0, 0, 1, 0, np.nan, np.nan, np.nan]
GROUPS = ("A", "B", "C")


def plain(k: int = 2) -> pd.DataFrame:
    """Three groups of 12 k rows: paired rows of both classes, human-only, metric-only, unrated;
    a second binary metric, a scalar score that separates the classes (no ties), an item id."""
    n = 12 * k * len(GROUPS)
    human = np.array(H * k * len(GROUPS), dtype=float)
    score = 0.6 * np.nan_to_num(human, nan=0.5) + np.linspace(0.0, 0.3, n)
    return D({"human": human, "m1": np.array(M * k * len(GROUPS), dtype=float),
              "m2": np.array([1.0, 0, 1, 1, 0, 0] * (n // 6)), "score": score,
              "system": np.repeat(list(GROUPS), 12 * k)})


def hand_counts(h, m, g) -> pd.DataFrame:
    """The binary model's eight counts per group by pandas boolean sums."""
    d = D({"h": np.asarray(h, dtype=float), "m": np.asarray(m, dtype=float),
           "g": np.asarray(g, dtype=object)}).dropna(subset=["g"])
    out = {}
    for name, p in d.groupby("g", sort=True):
        hh, mm = p["h"], p["m"]
        out[str(name)] = [int(((hh == 1) & mm.isna()).sum()), int((hh.notna() & mm.isna()).sum()),
                          int(((mm == 1) & hh.isna()).sum()), int((mm.notna() & hh.isna()).sum()),
                          int(((hh == 1) & (mm == 1)).sum()), int(((hh == 1) & (mm == 0)).sum()),
                          int(((hh == 0) & (mm == 0)).sum()), int(((hh == 0) & (mm == 1)).sum())]
    cols = ["human_pos", "human_total", "metric_pos", "metric_total", "tp", "fn", "tn", "fp"]
    return D(out, index=cols).T.sort_index()


def hand_auc(h, s, g) -> dict[str, float]:
    """AUC per group: the Mann-Whitney U statistic over n_pos n_neg (scipy)."""
    d = D({"h": np.asarray(h, dtype=float), "s": np.asarray(s, dtype=float),
           "g": np.asarray(g, dtype=object)}).dropna()
    out = {}
    for name, p in d.groupby("g"):
        pos, neg = p.s[p.h == 1], p.s[p.h == 0]
        out[str(name)] = stats.mannwhitneyu(pos, neg).statistic / (len(pos) * len(neg))
    return out


def hand_balanced(h, s) -> float:
    """The balanced threshold by brute force: min |rho - eta|, then max rho + eta, then max t."""
    h, s = np.asarray(h, dtype=float), np.asarray(s, dtype=float)
    ok = ~np.isnan(h) & ~np.isnan(s)
    h, s = h[ok], s[ok]
    best = None
    for t in np.unique(s):
        rho = np.mean(s[h == 1] >= t)
        eta = np.mean(s[h == 0] < t)
        key = (abs(rho - eta), -(rho + eta), -t)
        if best is None or key < best[0]:
            best = (key, t)
    return float(best[1])


def latent_counts(f: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Paired counts (group, human class, m1/m2 pattern) and human-only counts, by hand."""
    paired = np.zeros((3, 2, 4), dtype=np.int64)
    human = np.zeros((3, 2), dtype=np.int64)
    for gi, g in enumerate(GROUPS):
        p = f[f.system == g]
        both = p.m1.notna() & p.m2.notna()
        for _, r in p[p.human.notna() & both].iterrows():
            paired[gi, int(r.human), int(2 * r.m1 + r.m2)] += 1
        for _, r in p[p.human.notna() & ~both].iterrows():
            human[gi, int(r.human)] += 1
    return paired, human


# ----------------------------------------------------------------------------------------------
# entry points: each returns what is compared with the independent computation
# ----------------------------------------------------------------------------------------------
def _counts(res) -> pd.DataFrame:
    return res.counts.rename(index=str).sort_index().astype(np.int64)


def fit_pandas(f, formula="human ~ m1 | system", **kw):
    return _counts(be.fit(formula, f, **kw))


def fit_dask(f, formula="human ~ m1 | system", **kw):
    return _counts(be.fit(formula, dd.from_pandas(f, npartitions=3), **kw))


def fit_cli(f, formula="human ~ m1 | system", tmp=None, **kw):
    from binaryeval.cli import main

    csv = tmp / "in.csv"
    out = tmp / "out.csv"
    f.to_csv(csv, index=False)
    extra = [f"--threshold={kw['threshold']}"] if "threshold" in kw else []
    code = main(["fit", formula, "--data", str(csv), "-o", str(out), "--overwrite", *extra])
    if code != 0:
        raise RuntimeError(f"exit {code}")
    t = pd.read_csv(out, dtype={0: str}, keep_default_na=False).set_index(
        pd.read_csv(out, nrows=0).columns[0])
    return t


def latent(f):
    res = be.fit_latent("human ~ m1 + m2 | system", f, draws=30, chains=1, seed=1, warmup=30)
    return res.latent.paired, res.latent.human


def roc_auc(f, formula="human ~ score | system"):
    return be.roc(formula, f, pooled=False).auc().to_dict()


# ----------------------------------------------------------------------------------------------
# classes of input
# ----------------------------------------------------------------------------------------------
OK = "ok"


def _bools(x):
    return x.map({1.0: True, 0.0: False})


#: the human rating column: (id, transform of the plain 0/1/NaN column, OK or fragments)
HUMAN = [
    ("float 0/1", lambda h: h, OK),
    ("float32", lambda h: h.astype("float32"), OK),
    ("Int64 with NA", lambda h: h.astype("Int64"), OK),
    ("nullable boolean", lambda h: h.astype("boolean"), OK),
    ("object bools with None", lambda h: _bools(h).astype(object).where(h.notna(), None), OK),
    ("category of 0/1", lambda h: h.astype("category"), OK),
    ("category of bools", lambda h: _bools(h).astype("category"), OK),
    ("text True/False", lambda h: h.map({1.0: "True", 0.0: "False"}), OK),
    ("text TRUE/FALSE", lambda h: h.map({1.0: "TRUE", 0.0: "FALSE"}), OK),
    ("string dtype true/false", lambda h: h.map({1.0: "true", 0.0: "false"}).astype("string"), OK),
    ("arrow booleans", lambda h: h.astype("boolean").astype("bool[pyarrow]"), OK),
    ("negative zero", lambda h: h.where(h != 0, -0.0), OK),
    ("coded -1/+1", lambda h: 2 * h - 1, ["'human' (human rating)", "-1.0", "I(human == 1)"]),
    ("Likert 1-5", lambda h: 1 + 4 * h, ["'human'", "5.0", "scale (1 to 5)", "I(human >= 5)"]),
    ("0/100 percent", lambda h: 100 * h, ["'human'", "100.0", "I(human >= 100)"]),
    ("fractional", lambda h: h.where(h != 1, 0.5), ["'human'", "0.5", "I(human > 0.5)"]),
    ("text yes/no", lambda h: h.map({1.0: "yes", 0.0: "no"}),
     ["'human'", "non-numeric value 'yes'", "I(human == 'yes')"]),
    # the advice compares with the value that reads as adequate, not with the first one met
    # (copied, I(human == 'no') would read every rating the wrong way round)
    ("text no/yes, 'no' first", lambda h: h.map({1.0: "yes", 0.0: "no"}).iloc[::-1]
     .set_axis(h.index), ["non-numeric value 'no'", "I(human == 'yes')",
                          " if 'yes' marks the adequate outputs (the text values: 'no', 'yes')"]),
    ("text bad/good", lambda h: h.map({1.0: "good", 0.0: "bad"}),
     ["I(human == 'good')", " if 'good' marks the adequate outputs"]),
    ("text with no positive word", lambda h: h.map({1.0: "fluent", 0.0: "garbled"}),
     ["I(human == <the value that marks adequate outputs>)", " (the text values: "]),
    ("numbers written as text", lambda h: h.map({1.0: "1", 0.0: "0.0"}), OK),
    ("mixed 1 and '1'", lambda h: h.astype(object).where(h != 1, "1").where(h.index % 2 == 0, h),
     OK),
    ("text -1/+1", lambda h: h.map({1.0: "+1", 0.0: "-1"}), ["'human'", "-1.0", "I(human == 1)"]),
    ("text nan", lambda h: h.map({1.0: "1", 0.0: "nan"}), ["'human'", "non-numeric value 'nan'"]),
    ("datetimes", lambda h: pd.to_datetime(h * 86400, unit="s"),
     ["'human'", "non-numeric value Timestamp('1970-01-0"]),
    ("timedeltas", lambda h: pd.to_timedelta(h, unit="D"), ["'human'", "non-numeric value Timedelta"]),
    ("infinite", lambda h: h.where(h.index != 4, np.inf), ["'human'", "inf", "row 4"]),
    ("huge", lambda h: h.where(h.index != 4, 1e300), ["'human'", "1e+300"]),
    ("missing everywhere", lambda h: h * np.nan, ["'human'", "missing (NaN) in every row"]),
    # (Dask stores the list as its text, '[1]')
    ("lists in cells", lambda h: h.astype(object).where(h.index != 0, None).where(
        h.index != 1, pd.Series([[1]] * len(h))), ["'human'", "non-numeric value ", "[1]"]),
]


def _human_entries(tmp):
    return {
        "fit": lambda f: fit_pandas(f),
        "fit dask": lambda f: fit_dask(f),
        "fit latent": lambda f: latent(f),
        "roc": lambda f: roc_auc(f),
        "choose_threshold": lambda f: be.choose_threshold(f["human"], f["score"]),
    }


def _human_expected(name, base):
    h, m, s, g = base["human"], base["m1"], base["score"], base["system"]
    return {"fit": lambda: hand_counts(h, m, g), "fit dask": lambda: hand_counts(h, m, g),
            "fit latent": lambda: latent_counts(base), "roc": lambda: hand_auc(h, s, g),
            "choose_threshold": lambda: hand_balanced(h, s)}[name]()


#: the binary metric: (id, transform of the plain column, OK or fragments)
METRIC = [
    ("float 0/1", lambda m: m, OK),
    ("Int64", lambda m: m.astype("Int64"), OK),
    ("nullable boolean", lambda m: m.astype("boolean"), OK),
    ("category of 0/1", lambda m: m.astype("category"), OK),
    ("text True/False", lambda m: m.map({1.0: "True", 0.0: "False"}), OK),
    ("object bools", lambda m: _bools(m).astype(object), OK),
    ("scalar scores", lambda m: m.where(m != 1, 0.7), ["'m1'", "is scalar", "threshold="]),
    ("coded -1/+1", lambda m: 2 * m - 1, ["'m1'", "-1", "threshold=", "I(m1 > 0.5)"]),
    ("text good/bad", lambda m: m.map({1.0: "good", 0.0: "bad"}),
     ["'m1' (metric rating)", "'good'", "I(m1 == 'good')"]),
    ("infinite", lambda m: m.where(m.index != 0, np.inf), ["'m1'", "inf"]),
    ("missing everywhere", lambda m: m * np.nan, ["'m1'", "missing (NaN) in every row"]),
]

#: the scalar score with a threshold: (id, transform, OK or fragments)
SCORE = [
    ("float", lambda s: s, OK),
    ("float32 exact", lambda s: (s * 64).round() / 64, OK),
    ("negated", lambda s: -s, OK),
    ("huge scale", lambda s: s * 1e300, OK),
    ("tiny scale", lambda s: s * 1e-300, OK),
    ("shifted", lambda s: s + 1e6, OK),
    ("object numbers", lambda s: s.astype(object), OK),
    ("numbers written as text", lambda s: s.astype(str), OK),
    ("a text value among numbers", lambda s: s.astype(object).where(s.index != 5, "high"),
     ["'score'", "non-numeric value 'high'", "row 5"]),
    ("infinite", lambda s: s.where(s.index != 3, np.inf), ["'score'", "inf"]),
    ("missing everywhere", lambda s: s * np.nan, ["'score'", "missing (NaN) in every row"]),
    ("datetimes", lambda s: pd.to_datetime(s * 1e9), ["'score'", "dates or durations",
                                                       "Timestamp"]),
]

#: the grouping column: (id, transform of the plain labels A/B/C, expected labels, OK or fragments)
GROUP = [
    ("text", lambda g: g, OK),
    ("integers", lambda g: g.map({"A": 1, "B": 2, "C": 3}), OK),
    ("floats", lambda g: g.map({"A": 1.5, "B": 2.5, "C": 3.5}), OK),
    ("category", lambda g: g.astype("category"), OK),
    ("Int64 with NA", lambda g: g.map({"A": 1, "B": 2, "C": None}).astype("Int64"), OK),
    ("mixed 1 and '1'", lambda g: g.map({"A": 1, "B": "1", "C": 3}).astype(object), OK),
    ("booleans and text", lambda g: g.map({"A": True, "B": False, "C": "x"}).astype(object), OK),
    ("datetimes", lambda g: pd.to_datetime(g.map({"A": "2024-01-01", "B": "2024-01-02",
                                                  "C": "2024-01-03"})), OK),
    ("names NA/None/null", lambda g: g.map({"A": "NA", "B": "None", "C": "null"}), OK),
    ("HTML and quotes", lambda g: g.map({"A": "<b>x</b>", "B": "it's", "C": 'say "hi"'}), OK),
    ("empty text", lambda g: g.map({"A": "", "B": " ", "C": "c"}), OK),
    ("missing everywhere", lambda g: g.map(lambda _: None), ["'system'", "missing (NaN) in every row"]),
]


def _group_labels(transformed: pd.Series) -> pd.Series:
    """The labels the independent count expects: each value's text as pandas writes it
    (``Series.astype(str)``: a date at midnight is ``2024-01-01``), missing stays missing."""
    if transformed.dtype == object:
        text = transformed.map(lambda v: None if pd.isna(v) else str(v))
    else:
        text = transformed.astype(str).astype(object)
    return text.where(transformed.notna().to_numpy(), None)


#: shapes of the frame: (id, transform of the plain frame, expected counts from the plain frame
#: (a function) or fragments)
SHAPE = [
    ("repeated index", lambda f: f.set_axis([0] * len(f)), lambda f: f),
    ("MultiIndex rows", lambda f: f.set_axis(pd.MultiIndex.from_arrays(
        [np.arange(len(f)) % 2, np.arange(len(f))])), lambda f: f),
    ("rows reversed", lambda f: f.iloc[::-1], lambda f: f),
    ("one row", lambda f: f.iloc[:1], lambda f: f.iloc[:1]),
    ("integer column names elsewhere", lambda f: f.assign(**{"5": 1}).rename(columns={"5": 5}),
     lambda f: f),
    ("odd objects in other columns", lambda f: f.assign(other=[{"a": 1}] * len(f)), lambda f: f),
    ("empty", lambda f: f.iloc[:0], ["no rows"]),
    ("duplicated column", lambda f: pd.concat([f, f[["m1"]]], axis=1),
     ["2 columns named 'm1'", "rename or drop"]),
    ("MultiIndex columns", lambda f: f.set_axis(pd.MultiIndex.from_product([["x"], f.columns]),
                                                axis=1), ["'human'", "not"]),
    ("a dict", lambda f: f.to_dict("list"), ["DataFrame", "dict"]),
    ("a numpy array", lambda f: f.to_numpy(), ["DataFrame", "ndarray"]),
    ("a Series", lambda f: f["human"], ["DataFrame", "Series"]),
]

#: counts tables for fit_counts: (id, counts, expected posterior means per group or fragments)
COUNTS = [
    ("text index", D({"human_pos": [3, 4], "human_total": [5, 6]}, index=["a", "b"]),
     {"a": 4 / 7, "b": 5 / 8}),
    ("integer index", D({"human_pos": [3, 4], "human_total": [5, 6]}, index=[1, 2]),
     {"1": 4 / 7, "2": 5 / 8}),
    ("MultiIndex", D({"human_pos": [3, 4], "human_total": [5, 6]},
                     index=pd.MultiIndex.from_tuples([("a", "x:y"), ("a", "z")])),
     {"a:'x:y'": 4 / 7, "a:z": 5 / 8}),
    ("whole floats", D({"human_pos": [3.0], "human_total": [5.0]}, index=["a"]), {"a": 4 / 7}),
    ("object numbers", D({"human_pos": [3], "human_total": [5]}, index=["a"], dtype=object),
     {"a": 4 / 7}),
    ("Int64", D({"human_pos": [3], "human_total": [5]}, index=["a"]).astype("Int64"), {"a": 4 / 7}),
    ("numpy integers in a mapping", {"a": {"human_pos": np.int64(3), "human_total": np.uint8(5)}},
     {"a": 4 / 7}),
    ("group column", D({"group": ["a"], "human_pos": [3], "human_total": [5]}), {"a": 4 / 7}),
    ("1 and '1'", D({"human_pos": [3, 4], "human_total": [5, 6]}, index=[1, "1"]),
     ["group '1'", "more than once", "1 and '1' are one"]),
    ("missing label", D({"human_pos": [3, 4], "human_total": [5, 6]}, index=["a", np.nan]),
     ["missing group label"]),
    ("Int64 with NA", D({"human_pos": [3, None], "human_total": [5, 6]}, index=["a", "b"]
                        ).astype("Int64"), ["counts['human_pos']", "group 'b'", "missing"]),
    ("negative", D({"human_pos": [-3], "human_total": [5]}, index=["a"]), ["human_pos", "-3"]),
    ("fractional", D({"human_pos": [2.5], "human_total": [5]}, index=["a"]), ["human_pos", "2.5"]),
    ("booleans", D({"human_pos": [True], "human_total": [5]}, index=["a"]), ["True is a bool"]),
    ("infinite", D({"human_pos": [np.inf], "human_total": [5]}, index=["a"]), ["human_pos", "inf"]),
    ("text", D({"human_pos": ["3"], "human_total": [5]}, index=["a"]), ["'3' is a str"]),
    ("beyond the limit", D({"human_pos": [10**11], "human_total": [10**11]}, index=["a"]),
     ["100,000,000,000", "largest supported count"]),
    ("positives above total", D({"human_pos": [6], "human_total": [5]}, index=["a"]),
     ["human_pos=6", "human_total=5"]),
    ("empty", D({"human_pos": [], "human_total": []}), ["no rows"]),
    ("a list", [[3, 5]], ["DataFrame or a mapping", "list"]),
]

#: scalar correlation arguments: (id, call, expected (low, high) from Fisher's intervals, or fragments)
_Q = stats.norm.ppf(0.975)


def _fisher(r, n):
    return np.tanh(np.arctanh(r) + np.array([-1.0, 1.0]) * _Q / math.sqrt(n - 3))


SCALARS = [
    ("zou r12 = 1", lambda: be.zou_ci(1.0, 0.5, 0.5, 20), tuple(1 - _fisher(0.5, 20)[::-1])),
    ("zou r12 = -1", lambda: be.zou_ci(-1.0, 0.4, -0.4, 30), tuple(-1 - _fisher(0.4, 30)[::-1])),
    ("zou r13 = 1", lambda: be.zou_ci(0.5, 1.0, 0.5, 20), tuple(_fisher(0.5, 20) - 1)),
    ("zou both 1", lambda: be.zou_ci(1.0, 1.0, 1.0, 20), (0.0, 0.0)),
    ("fisher r = 1", lambda: be.fisher_ci(1.0, 10), (1.0, 1.0)),
    ("fisher numpy scalars", lambda: be.fisher_ci(np.float32(0.5), np.int64(20)),
     tuple(_fisher(0.5, 20))),
    ("fisher r NaN", lambda: be.fisher_ci(np.nan, 10), ["r", "nan"]),
    ("fisher r inf", lambda: be.fisher_ci(np.inf, 10), ["r", "inf"]),
    ("fisher r text", lambda: be.fisher_ci("0.5", 10), ["r", "'0.5'"]),
    ("fisher n text", lambda: be.fisher_ci(0.5, "10"), ["n", "'10'"]),
    ("zou n too small", lambda: be.zou_ci(0.5, 0.4, 0.3, 3), ["n = 3", "n >= 4"]),
    ("williams r out of range", lambda: be.williams_test(1.5, 0.4, 0.3, 20), ["r12", "1.5"]),
]

#: array arguments: (id, call, expected value or fragments)
ARRAYS = [
    ("preferences lists", lambda: be.preferences([3, 1, 2], [1, 1, 3]).tolist(), [1, 0, -1]),
    ("preferences Series with index", lambda: be.preferences(
        pd.Series([3.0, 1], index=[10, 5]), pd.Series([1.0, 2], index=[0, 1])).tolist(), [1, -1]),
    ("preferences Int64", lambda: be.preferences(pd.Series([3, 1], dtype="Int64"),
                                                 [2, 2]).tolist(), [1, -1]),
    ("preferences text", lambda: be.preferences(["a"], ["b"]), ["'scores_1'", "'a'", "position 0"]),
    ("preferences 2-D", lambda: be.preferences([[1, 2], [3, 4]], [1, 2, 3, 4]),
     ["scores_1", "one-dimensional", "(2, 2)"]),
    ("preferences a string", lambda: be.preferences("12", "21"), ["scores_1", "single value '12'"]),
    ("preferences NaN", lambda: be.preferences([1, np.nan], [0, 0]), ["missing scores (NaN)"]),
    ("preferences inf", lambda: be.preferences([1, np.inf], [0, 0]), ["scores_1", "inf"]),
    ("preferences lengths", lambda: be.preferences([1, 2], [1]), ["same length", "2 and 1"]),
    ("preference_confusion symbols", lambda: be.preference_confusion(
        ["+", "=", "-"], ["+", "-", "-"]).counts.tolist(),
     [[1, 0, 0], [0, 0, 1], [0, 0, 1]]),
    ("preference_confusion unknown", lambda: be.preference_confusion(["+", "?"], ["+", "+"]),
     ["'?'", "position 1"]),
    ("choose_threshold booleans", lambda: be.choose_threshold([True, False, True, False],
                                                              [0.9, 0.1, 0.6, 0.7]),
     hand_balanced([1, 0, 1, 0], [0.9, 0.1, 0.6, 0.7])),
    ("choose_threshold tuple", lambda: be.choose_threshold((1, 0, 1, 0), (0.9, 0.1, 0.6, 0.7)),
     hand_balanced([1, 0, 1, 0], [0.9, 0.1, 0.6, 0.7])),
    ("choose_threshold -1/+1", lambda: be.choose_threshold([1, -1, 1, -1], [0.9, 0.1, 0.6, 0.7]),
     ["'human'", "-1", "np.asarray(human) == 1"]),
    ("choose_threshold yes/no", lambda: be.choose_threshold(["yes", "no"], [0.2, 0.5]),
     ["'human'", "'yes'"]),
    ("choose_threshold one class", lambda: be.choose_threshold([1, 1], [0.2, 0.5]),
     ["both human classes", "0 negative"]),
    ("choose_threshold a number", lambda: be.choose_threshold(1, [0.2]), ["human", "single value 1"]),
    ("choose_threshold lengths", lambda: be.choose_threshold([1, 0], [0.2]), ["2 values", "1 values"]),
]


# ----------------------------------------------------------------------------------------------
# running a case
# ----------------------------------------------------------------------------------------------
def _refused(call, fragments):
    with pytest.raises(BinaryEvalError) as info:
        call()
    assert isinstance(info.value, (ValueError, TypeError))
    message = str(info.value)
    missing = [f for f in fragments if f not in message]
    assert not missing, f"{missing} not in {message!r}"


def _same(got, expected):
    if isinstance(expected, pd.DataFrame):
        got = got[expected.columns] if isinstance(got, pd.DataFrame) else got
        pd.testing.assert_frame_equal(got, expected, check_names=False, check_dtype=False)
    elif isinstance(expected, tuple) and expected and isinstance(expected[0], np.ndarray):
        for a, b in zip(got, expected, strict=True):
            np.testing.assert_array_equal(a, b)
    elif isinstance(expected, dict):
        assert set(got) == set(expected)
        for k in expected:
            assert got[k] == pytest.approx(expected[k], abs=1e-12), k
    elif isinstance(expected, list) and expected and isinstance(expected[0], list):
        assert got == expected
    elif isinstance(expected, (tuple, list)) and all(isinstance(v, (int, float)) for v in expected):
        assert list(got) == pytest.approx(list(expected), abs=1e-12)
    else:
        assert got == pytest.approx(expected, abs=1e-12)


HUMAN_ENTRIES = ["fit", "fit dask", "fit latent", "roc", "choose_threshold"]


@pytest.mark.parametrize(("case", "entry"), list(itertools.product(HUMAN, HUMAN_ENTRIES)),
                         ids=[f"{c[0]}-{e}" for c, e in itertools.product(HUMAN, HUMAN_ENTRIES)])
def test_human_ratings(case, entry, tmp_path):
    name, transform, expect = case
    base = plain()
    frame = base.assign(human=transform(base["human"]))
    call = lambda: _human_entries(tmp_path)[entry](frame)  # noqa: E731
    if expect == OK:
        _same(call(), _human_expected(entry, base))
    else:
        fragments = list(expect)
        if entry == "choose_threshold":
            # an argument, not a formula term: positions, and numpy in the fix
            fragments = [re.sub(r"^I\(human (.*)\)$", r"np.asarray(human) \1", f)
                         .replace("'human' (human rating)", "argument 'human' (human rating)")
                         .replace("row 4", "position 4")
                         .replace("in every row", "everywhere") for f in fragments]
        _refused(call, fragments)


METRIC_ENTRIES = ["fit", "fit dask", "fit latent"]


@pytest.mark.parametrize(("case", "entry"), list(itertools.product(METRIC, METRIC_ENTRIES)),
                         ids=[f"{c[0]}-{e}" for c, e in itertools.product(METRIC, METRIC_ENTRIES)])
def test_binary_metric(case, entry):
    name, transform, expect = case
    base = plain()
    frame = base.assign(m1=transform(base["m1"]))
    if entry == "fit latent":
        # several metrics take categorical outputs: text or scalar levels are outputs there
        call = lambda: latent(frame)  # noqa: E731
        if expect == OK or name in ("scalar scores", "coded -1/+1", "text good/bad"):
            got = call()
            assert got[0].sum() == latent_counts(base)[0].sum()
            return
        _refused(call, [f for f in expect if "(metric rating)" not in f][:2])
        return
    run = fit_pandas if entry == "fit" else fit_dask
    call = lambda: run(frame)  # noqa: E731
    if expect == OK:
        _same(call(), hand_counts(base["human"], base["m1"], base["system"]))
    else:
        _refused(call, expect)


SCORE_ENTRIES = ["fit threshold", "fit dask threshold", "fit balanced", "roc", "choose_threshold"]


@pytest.mark.parametrize(("case", "entry"), list(itertools.product(SCORE, SCORE_ENTRIES)),
                         ids=[f"{c[0]}-{e}" for c, e in itertools.product(SCORE, SCORE_ENTRIES)])
def test_scalar_score(case, entry):
    name, transform, expect = case
    base = plain()
    score = transform(base["score"])
    frame = base.assign(score=score)
    plain_score = pd.to_numeric(score, errors="coerce") if expect == OK else None
    cut = None if expect != OK else float(np.median(plain_score))
    calls = {
        "fit threshold": lambda: fit_pandas(frame, "human ~ score | system", threshold=cut or 0.5),
        "fit dask threshold": lambda: fit_dask(frame, "human ~ score | system",
                                               threshold=cut or 0.5),
        "fit balanced": lambda: be.fit("human ~ score", frame, threshold="balanced").threshold,
        "roc": lambda: roc_auc(frame),
        "choose_threshold": lambda: be.choose_threshold(frame["human"], frame["score"]),
    }
    if expect != OK:
        fragments = [f.replace("'score'", "argument 'score'").replace("row ", "position ")
                     if entry == "choose_threshold" else f for f in expect]
        if entry == "choose_threshold" and "missing (NaN) in every row" in fragments:
            fragments = ["both human classes"]
        _refused(calls[entry], fragments)
        return
    h, g = base["human"], base["system"]
    metric = np.where(plain_score.isna(), np.nan, plain_score >= cut)
    expected = {"fit threshold": lambda: hand_counts(h, metric, g),
                "fit dask threshold": lambda: hand_counts(h, metric, g),
                "fit balanced": lambda: hand_balanced(h, plain_score),
                "roc": lambda: hand_auc(h, plain_score, g),
                "choose_threshold": lambda: hand_balanced(h, plain_score)}[entry]()
    _same(calls[entry](), expected)


GROUP_ENTRIES = ["fit", "fit dask", "roc", "correlate"]


@pytest.mark.parametrize(("case", "entry"), list(itertools.product(GROUP, GROUP_ENTRIES)),
                         ids=[f"{c[0]}-{e}" for c, e in itertools.product(GROUP, GROUP_ENTRIES)])
def test_grouping_column(case, entry):
    name, transform, expect = case
    base = plain()
    system = transform(base["system"])
    frame = base.assign(system=system)
    labels = _group_labels(system) if expect == OK else None
    if entry == "correlate":
        # system-level correlation of the mean scores: 3 systems are too few, so items become
        # the systems within each group (12 systems), joined with the group as a second column
        frame = frame.assign(sub=np.arange(len(frame)) % 4)
        call = lambda: be.correlate("score ~ m2 | system + sub", frame).r["m2"]  # noqa: E731
        if expect != OK:
            _refused(call, expect)
            return
        means = D({"g": labels, "sub": frame["sub"], "score": frame["score"],
                   "m2": frame["m2"]}).dropna(subset=["g"]).groupby(["g", "sub"]).mean()
        _same(call(), stats.pearsonr(means["score"], means["m2"]).statistic)
        return
    calls = {"fit": lambda: fit_pandas(frame), "fit dask": lambda: fit_dask(frame),
             "roc": lambda: roc_auc(frame)}
    if expect != OK:
        _refused(calls[entry], expect)
        return
    if name == "mixed 1 and '1'":
        # 1 and "1" are one label (the text rule): A and B are one group "1"
        assert set(labels.dropna()) == {"1", "3"}
    expected = (hand_counts(base["human"], base["m1"], labels) if entry != "roc"
                else hand_auc(base["human"], base["score"], labels))
    _same(calls[entry](), expected)


SHAPE_ENTRIES = ["fit", "fit dask", "roc", "favi", "correlate"]


def _shape_applies(name: str, entry: str) -> bool:
    """Whether an entry point meets this shape: no Dask frame is made of what is no frame (or
    has MultiIndex columns); the duplicated column is one the formula of fit reads."""
    if entry == "fit dask" and name in ("a dict", "a numpy array", "a Series", "MultiIndex columns"):
        return False
    return not (name == "duplicated column" and entry in ("roc", "favi", "correlate"))


SHAPE_CASES = [(c, e) for c, e in itertools.product(SHAPE, SHAPE_ENTRIES) if _shape_applies(c[0], e)]


@pytest.mark.parametrize(("case", "entry"), SHAPE_CASES,
                         ids=[f"{c[0]}-{e}" for c, e in SHAPE_CASES])
def test_frame_shape(case, entry):
    name, transform, expect = case
    base = plain().assign(item=lambda d: np.arange(len(d)) % 24)
    data = transform(base)
    if entry == "fit dask" and name == "odd objects in other columns":
        data = data.drop(columns="other")  # Dask cannot hash dicts into partitions
    calls = {
        "fit": lambda: fit_pandas(data),
        "fit dask": lambda: fit_dask(data.reset_index(drop=True) if isinstance(
            data.index, pd.MultiIndex) else data),
        "roc": lambda: roc_auc(data, "human ~ score"),
        "favi": lambda: be.favi("score ~ m2 | system", data, item="item").counts.sum(),
        "correlate": lambda: be.correlate("score ~ m2 | item", data).r["m2"],
    }
    if not callable(expect):
        fragments = list(expect)
        if name == "MultiIndex columns":
            fragments = ["'human'" if entry in ("fit", "fit dask", "roc") else "'score'"]
        _refused(calls[entry], fragments)
        return
    ref = expect(base)
    if name == "one row" and entry in ("roc", "favi", "correlate"):
        # one row has no pair, no second class, no second system: refused with the reason
        _refused(calls[entry], {"roc": ["both human classes"], "favi": ["one system"],
                                "correlate": ["systems"]}[entry])
        return
    expected = {
        "fit": lambda: hand_counts(ref["human"], ref["m1"], ref["system"]),
        "fit dask": lambda: hand_counts(ref["human"], ref["m1"], ref["system"]),
        "roc": lambda: {"pooled": hand_auc(ref["human"], ref["score"], ["all"] * len(ref))["all"]},
        "favi": lambda: sum(_pairs_of(ref, i) for i in ref.item.unique()),
        "correlate": lambda: stats.pearsonr(*ref.groupby("item")[["score", "m2"]].mean()
                                            .to_numpy().T).statistic,
    }[entry]()
    _same(calls[entry](), expected)


def _pairs_of(frame, item):
    """System pairs an item is compared in (both systems rated it)."""
    k = frame[frame.item == item].system.nunique()
    return k * (k - 1) // 2


@pytest.mark.parametrize(("name", "counts", "expect"), COUNTS, ids=[c[0] for c in COUNTS])
def test_counts_tables(name, counts, expect):
    call = lambda: be.fit_counts(counts).to_frame()["estimate"].to_dict()  # noqa: E731
    if isinstance(expect, dict):
        _same(call(), expect)   # Beta(1 + pos, 1 + total - pos) posterior means
    else:
        _refused(call, expect)


@pytest.mark.parametrize(("name", "call", "expect"), SCALARS + ARRAYS,
                         ids=[c[0] for c in SCALARS + ARRAYS])
def test_arguments(name, call, expect):
    if isinstance(expect, list) and expect and isinstance(expect[0], str):
        _refused(call, expect)
    else:
        _same(call(), expect)


# ----------------------------------------------------------------------------------------------
# items and systems of preference data (favi, fit_preferences), pandas and Dask
# ----------------------------------------------------------------------------------------------
def preference_data() -> pd.DataFrame:
    """Scores of three systems on 30 items; humans rate the first 20."""
    rng = np.random.default_rng(7)
    rows = [{"item": i, "system": s, "human": q + rng.normal() if i < 20 else np.nan,
             "metric": q + rng.normal()}
            for i in range(30) for s, q in (("s1", 0.5), ("s2", 0.0), ("s3", -0.3))]
    return D(rows)


def hand_favi(frame: pd.DataFrame, a, b) -> np.ndarray:
    """3 x 3 counts (rows human +/=/-, columns metric) of system a against b, by item."""
    out = np.zeros((3, 3), dtype=np.int64)
    wide = frame.pivot(index="item", columns="system")
    for _, r in wide.iterrows():
        ha, hb, ma, mb = r[("human", a)], r[("human", b)], r[("metric", a)], r[("metric", b)]
        if np.isnan([ha, hb, ma, mb]).any():
            continue
        out[1 - int(np.sign(ha - hb)), 1 - int(np.sign(ma - mb))] += 1
    return out


ITEMS = [
    ("integers", lambda i, s: i, OK),
    ("text", lambda i, s: i.astype(str), OK),
    ("ints for one system, text for another", lambda i, s: i.astype(object).where(
        s != "s2", i.astype(str)), OK),
    ("floats", lambda i, s: i.astype(float) + 0.5, OK),
    ("category", lambda i, s: i.astype("category"), OK),
    ("Int64", lambda i, s: i.astype("Int64"), OK),
    ("names NA and None", lambda i, s: i.map(lambda v: {0: "NA", 1: "None"}.get(v, str(v))), OK),
    ("one item twice for a system", lambda i, s: i.where(~((s == "s1") & (i == 1)), 0),
     ["item ", "0", "more than one row", "system 's1'"]),
]

SYSTEMS = [
    ("integers", lambda s: s.map({"s1": 1, "s2": 2, "s3": 3}), OK),
    ("category", lambda s: s.astype("category"), OK),
    ("names with ':'", lambda s: s.map({"s1": "a:b", "s2": "a", "s3": "b:c"}), OK),
    ("1 and '1'", lambda s: s.map({"s1": 1, "s2": "1", "s3": 3}).astype(object),
     ["more than one row for system '1'", "1 and '1' are one"]),
]

PREFERENCE_ENTRIES = ["favi", "favi dask", "fit_preferences"]


def _preference_entry(entry, frame):
    if entry == "favi":
        res = be.favi("human ~ metric | system", frame, item="item")
    elif entry == "favi dask":
        res = be.favi("human ~ metric | system", dd.from_pandas(frame, npartitions=3), item="item")
    else:
        res = be.fit_preferences("human ~ metric | system", frame, item="item", draws=30,
                                 chains=1, warmup=30, seed=1)
        t = res.to_frame().reset_index()
        return {(str(a), str(b)): (int(p), float(d)) for a, b, p, d in
                zip(t.group_1, t.group_2, t.n_paired, t.naive_diff, strict=True)}
    return {(str(res.systems[i]), str(res.systems[j])): res.counts[k]
            for k, (i, j) in enumerate(res.pair_index)}


def _preference_expected(entry, frame, labels_of):
    """Independent counts, with system and item labels as text."""
    f = frame.assign(system=labels_of(frame["system"]), item=frame["item"].astype(str))
    systems = sorted(f.system.unique())
    out = {}
    for a, b in itertools.combinations(systems, 2):
        if entry.startswith("favi"):
            out[(a, b)] = hand_favi(f, a, b)
        else:
            wide = f.pivot(index="item", columns="system")
            ma, mb = wide[("metric", a)], wide[("metric", b)]
            ha, hb = wide[("human", a)], wide[("human", b)]
            both_m = ma.notna() & mb.notna()
            paired = int((both_m & ha.notna() & hb.notna()).sum())
            sign = np.sign(ma[both_m] - mb[both_m])
            out[(a, b)] = (paired, float((sign > 0).mean() - (sign < 0).mean()))
    return out


@pytest.mark.parametrize(("case", "entry"), list(itertools.product(ITEMS, PREFERENCE_ENTRIES)),
                         ids=[f"{c[0]}-{e}" for c, e in itertools.product(ITEMS, PREFERENCE_ENTRIES)])
def test_items(case, entry):
    name, transform, expect = case
    base = preference_data()
    frame = base.assign(item=transform(base["item"], base["system"]))
    if expect != OK:
        _refused(lambda: _preference_entry(entry, frame), expect)
        return
    got = _preference_entry(entry, frame)
    expected = _preference_expected(entry, base, lambda s: s)
    assert set(got) == set(expected)
    for k in expected:
        if entry.startswith("favi"):
            np.testing.assert_array_equal(got[k], expected[k])
        else:
            assert got[k][0] == expected[k][0] and got[k][1] == pytest.approx(expected[k][1])


@pytest.mark.parametrize(("case", "entry"), list(itertools.product(SYSTEMS, PREFERENCE_ENTRIES)),
                         ids=[f"{c[0]}-{e}" for c, e in itertools.product(SYSTEMS, PREFERENCE_ENTRIES)])
def test_systems(case, entry):
    name, transform, expect = case
    base = preference_data()
    frame = base.assign(system=transform(base["system"]))
    if expect != OK:
        _refused(lambda: _preference_entry(entry, frame), expect)
        return
    got = _preference_entry(entry, frame)
    labels = dict(zip(base["system"], frame["system"].astype(str), strict=True))
    expected = _preference_expected(entry, base, lambda s: s)
    # the result's pairs are in natural order of the labels; orient the expected ones alike
    for (a, b), value in expected.items():
        key = (labels[a], labels[b])
        if key in got:
            ref = value
        else:
            key = key[::-1]
            ref = (value[::-1, ::-1] if entry.startswith("favi")
                   else (value[0], -value[1]))
        if entry.startswith("favi"):
            np.testing.assert_array_equal(got[key], ref)
        else:
            assert got[key][0] == ref[0] and got[key][1] == pytest.approx(ref[1])


#: scores of favi (human side) and correlate (metric side): (id, transform, OK or fragments)
SCORES_OF_PAIRS = [
    ("float", lambda x: x, OK),
    ("Int64 with NA", lambda x: x.round().astype("Int64"), OK),
    ("category", lambda x: x.round().astype("category"), OK),
    ("numbers written as text", lambda x: x.astype(str).where(x.notna(), None), OK),
    ("object numbers", lambda x: x.astype(object), OK),
    ("dates", lambda x: pd.to_datetime(x.fillna(0) * 1e9 + 1e12),
     ["dates or durations", "not scores"]),
    ("a text value", lambda x: x.astype(object).where(x.index != 3, "x"), ["'x'"]),
    ("preference symbols", lambda x: x.map(lambda v: "+" if v > 0 else "-"), ["'+'"]),
    ("infinite", lambda x: x.where(x.index != 3, np.inf), ["inf"]),
]
PAIR_SCORE_ENTRIES = ["favi", "favi dask", "correlate", "correlate dask"]


@pytest.mark.parametrize(("case", "entry"), list(itertools.product(SCORES_OF_PAIRS,
                                                                   PAIR_SCORE_ENTRIES)),
                         ids=[f"{c[0]}-{e}" for c, e in itertools.product(SCORES_OF_PAIRS,
                                                                          PAIR_SCORE_ENTRIES)])
def test_scores_of_favi_and_correlate(case, entry):
    name, transform, expect = case
    base = preference_data()
    if entry.startswith("favi"):
        frame = base.assign(human=transform(base["human"]))
        if entry == "favi dask":
            frame = dd.from_pandas(frame, npartitions=3)
        call = lambda: _preference_entry("favi", frame) if entry == "favi" else {  # noqa: E731
            (str(r.systems[i]), str(r.systems[j])): r.counts[k]
            for r in [be.favi("human ~ metric | system", frame, item="item")]
            for k, (i, j) in enumerate(r.pair_index)}
        fragments = ["human column 'human'", *expect] if expect != OK else None
    else:
        # system level: the items are the systems, the mean over the three systems' rows
        frame = base.assign(metric=transform(base["metric"]))
        if entry == "correlate dask":
            frame = dd.from_pandas(frame, npartitions=3)
        call = lambda: be.correlate("human ~ metric | item", frame).r["metric"]  # noqa: E731
        fragments = ["'metric'", *expect] if expect != OK else None
    if expect != OK:
        _refused(call, fragments)
        return
    plain_values = transform(base["human" if entry.startswith("favi") else "metric"])
    numbers = pd.to_numeric(plain_values.astype(object), errors="coerce").astype(float)
    if entry.startswith("favi"):
        ref = base.assign(human=numbers)
        expected = {(a, b): hand_favi(ref, a, b)
                    for a, b in itertools.combinations(sorted(ref.system.unique()), 2)}
        got = call()
        assert set(got) == set(expected)
        for k in expected:
            np.testing.assert_array_equal(got[k], expected[k])
    else:
        means = base.assign(metric=numbers).groupby("item")[["human", "metric"]].mean().dropna()
        _same(call(), stats.pearsonr(means["human"], means["metric"]).statistic)


# ----------------------------------------------------------------------------------------------
# text files through the command line and the report (pandas and --dask)
# ----------------------------------------------------------------------------------------------
def _csv_rows(systems):
    """12 paired rows per system: human 0/1 alternating, the metric agreeing on 2 rows of 3."""
    return "".join(f"{s},{i % 2},{i % 2 if i % 3 else 1 - i % 2}\n"
                   for s in systems for i in range(12))


FILES = [
    ("ids that look numeric", "system,human,metric\n" + _csv_rows(["007", "7", "07.0"]),
     {"007": 12, "7": 12, "07.0": 12}),
    ("names NA None null", "system,human,metric\n" + _csv_rows(["NA", "None", "null"]),
     {"NA": 12, "None": 12, "null": 12}),
    ("booleans TRUE/FALSE", "system,human,metric\n" + _csv_rows(["a", "b"]).replace(
        ",1,", ",TRUE,").replace(",0,", ",FALSE,"), {"a": 12, "b": 12}),
    ("a rating missing further down", "system,human,metric\n" + _csv_rows(["a"] * 3)
     + "a,,1\nb,1,\n" + _csv_rows(["b"]), {"a": 36, "b": 12}),
    ("empty system cells", "system,human,metric\n" + _csv_rows(["a", ""]), {"a": 12}),
    ("a text value further down", "system,human,metric\n" + _csv_rows(["a"] * 3)
     + "a,1,high\n", {False: ["'metric'", "'high' (row 36) among numbers written as text"],
                      True: ["'metric'", "further down", "without Dask"]}),
    ("header only", "system,human,metric\n", ["no rows"]),
    ("wrong separator", "system;human;metric\n" + _csv_rows(["a"]).replace(",", ";"),
     ["one column 'system;human;metric'", "separated by ';'"]),
]


@pytest.mark.parametrize(("case", "dask_flag"), list(itertools.product(FILES, [False, True])),
                         ids=[f"{c[0]}-{'dask' if d else 'pandas'}"
                              for c, d in itertools.product(FILES, [False, True])])
def test_text_files_on_the_command_line(case, dask_flag, tmp_path, capsys):
    from binaryeval.cli import main

    name, text, expect = case
    if isinstance(expect, dict) and set(expect) == {False, True}:
        expect = expect[dask_flag]   # the same refusal, worded for the reader that met it
    csv = tmp_path / "in.csv"
    csv.write_text(text)
    out = tmp_path / "out.csv"
    argv = ["fit", "human ~ metric | system", "--data", str(csv), "-o", str(out),
            "--rates", "pooled"]
    if dask_flag:
        # --dask starts a cluster; the library's Dask path on the same file is what it runs
        # (read inside the call: a file the reader refuses is refused there)
        call = lambda: be.fit("human ~ metric | system",  # noqa: E731
                              be.read_table(csv, dask=True, string_columns=["system"]),
                              rates="pooled")
        if isinstance(expect, dict):
            c = call().counts
            assert (c["tp"] + c["fn"] + c["tn"] + c["fp"]).to_dict() == expect
        else:
            _refused(call, expect)
        return
    code = main(argv)
    if isinstance(expect, dict):
        assert code == 0, capsys.readouterr().err
        table = pd.read_csv(out, dtype={"system": str}, keep_default_na=False)
        assert table.set_index("system")["n_paired"].to_dict() == expect
    else:
        assert code == 1
        err = capsys.readouterr().err
        assert all(f in err for f in expect), err


REPORT_REFUSALS = [(c[0], c[1]) for c in HUMAN if c[2] != OK][:6]


@pytest.mark.parametrize(("name", "transform"), REPORT_REFUSALS,
                         ids=[c[0] for c in REPORT_REFUSALS])
def test_report_refuses_before_rendering(name, transform, tmp_path):
    # make_report fits before it renders: a refused input writes nothing
    from binaryeval.reports import make_report

    base = plain()
    frame = base.assign(human=transform(base["human"]))
    target = tmp_path / "r.html"
    with pytest.raises(BinaryEvalError) as info:
        make_report(frame, "human ~ m1 | system", output=target)
    assert "'human'" in str(info.value)
    assert not target.exists()


# ----------------------------------------------------------------------------------------------
# the audit's size
# ----------------------------------------------------------------------------------------------
def _outcomes():
    """(inputs, refused, right answers) over every parametrised case above."""
    def count(cases, entries, refused_of):
        n = len(cases) * entries
        refused = sum(entries for c in cases if refused_of(c))
        return n, refused

    parts = [
        count(HUMAN, len(HUMAN_ENTRIES), lambda c: c[2] != OK),
        count(METRIC, len(METRIC_ENTRIES), lambda c: c[2] != OK),
        count(SCORE, len(SCORE_ENTRIES), lambda c: c[2] != OK),
        count(GROUP, len(GROUP_ENTRIES), lambda c: c[2] != OK),
        (len(SHAPE_CASES), sum(not callable(c[2]) for c, _ in SHAPE_CASES)),
        count(COUNTS, 1, lambda c: not isinstance(c[2], dict)),
        count(SCALARS + ARRAYS, 1, lambda c: isinstance(c[2], list) and c[2]
              and isinstance(c[2][0], str)),
        count(ITEMS, len(PREFERENCE_ENTRIES), lambda c: c[2] != OK),
        count(SYSTEMS, len(PREFERENCE_ENTRIES), lambda c: c[2] != OK),
        count(SCORES_OF_PAIRS, len(PAIR_SCORE_ENTRIES), lambda c: c[2] != OK),
        count(FILES, 2, lambda c: not isinstance(c[2], dict) or set(c[2]) == {False, True}),
        (len(REPORT_REFUSALS), len(REPORT_REFUSALS)),
    ]
    n = sum(p[0] for p in parts)
    refused = sum(p[1] for p in parts)
    return n, refused, n - refused


def test_audit_size():
    n, refused, right = _outcomes()
    print(f"audit: {n} inputs, {refused} refused clearly, {right} right answers")
    assert n >= 300 and refused >= 100 and right >= 150
