"""The check before pooling (binaryeval._pooling) and its warning in every pooled fit.

Numbers come from independent computations: Pearson's statistic from
``scipy.stats.chi2_contingency(correction=False)``, the exact conditional p-value by enumerating
the hypergeometric laws of small tables (scipy.stats.hypergeom), the calibration from seeded
simulations in this file, and the miscoverage on the shipped WMT21 en-de data against the
all-MQM truth of each system (the share of its 527 rated segments without an MQM error).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

import binaryeval as be
from binaryeval import _pooling, datasets
from binaryeval.errors import ConvergenceWarning, DataError, IdentifiabilityWarning, PoolingWarning


def _caught(fn, *args, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kw)
    return out, caught


def _of(caught, category):
    return [w for w in caught if w.category is category]


# -- the statistic and its p-value against independent computations ----------------------------
def test_statistic_and_df_are_pearsons_summed_over_classes():
    rng = np.random.default_rng(11)
    paired = rng.integers(1, 30, size=(5, 3, 3))
    res = _pooling.check(paired, list("abcde"))
    tests = [stats.chi2_contingency(paired[:, c, :], correction=False) for c in range(3)]
    assert res.attrs["statistic"] == pytest.approx(sum(t.statistic for t in tests), rel=1e-12)
    assert res.attrs["df"] == sum(t.dof for t in tests) == 3 * 4 * 2


def test_each_group_against_the_rest_is_pearsons_two_row_table():
    rng = np.random.default_rng(12)
    paired = rng.integers(1, 30, size=(4, 2, 3))
    res = _pooling.check(paired, list("abcd"))
    for g in range(4):
        rest = np.delete(paired, g, axis=0).sum(axis=0)
        tests = [stats.chi2_contingency(np.stack([paired[g, c], rest[c]]), correction=False)
                 for c in range(2)]
        assert res["statistic"].iloc[g] == pytest.approx(sum(t.statistic for t in tests),
                                                         rel=1e-10)
        assert res["df"].iloc[g] == 4
        assert res["p_value"].iloc[g] == pytest.approx(
            stats.chi2.sf(sum(t.statistic for t in tests), 4), rel=1e-9)


def _exact_2x2_law(a_plus_b: int, c_plus_d: int, col: int):
    """Pearson's X^2 of every 2 x 2 table with these margins and its hypergeometric chance."""
    n = a_plus_b + c_plus_d
    law = stats.hypergeom(n, col, a_plus_b)
    out = []
    for a in range(max(0, col - c_plus_d), min(col, a_plus_b) + 1):
        t = np.array([[a, a_plus_b - a], [col - a, c_plus_d - col + a]], dtype=float)
        e = np.outer(t.sum(1), t.sum(0)) / n
        out.append((float(((t - e) ** 2 / e).sum()), float(law.pmf(a))))
    return out


def test_p_value_is_the_exact_conditional_one_within_monte_carlo_error():
    # binary model, two groups: per human class a 2 x 2 table; under homogeneity the two
    # tables are independent hypergeometric given their margins, so the exact p-value is the
    # chance that the sum of their statistics reaches the observed one (enumerated here)
    paired = np.array([[[30, 10], [12, 28]], [[22, 18], [20, 20]]])
    res = _pooling.check(paired, ["a", "b"])
    laws = []
    for c in range(2):
        t = paired[:, c, :]
        laws.append(_exact_2x2_law(int(t[0].sum()), int(t[1].sum()), int(t[:, 0].sum())))
    observed = res.attrs["statistic"]
    exact = sum(p1 * p2 for (x1, p1), (x2, p2) in itertools.product(*laws)
                if x1 + x2 >= observed * (1 - 1e-9))
    mc_sd = np.sqrt(exact * (1 - exact) / _pooling.N_RESAMPLES)
    assert 0.005 < exact < 0.2      # a case where the Monte Carlo error matters
    assert abs(res.attrs["p_value"] - exact) < 4 * mc_sd + 1 / (1 + _pooling.N_RESAMPLES)


def test_one_deviating_group_among_many_is_seen_by_the_group_statistic():
    # one pair of 190 whose judge is poor, 30 paired items each: the omnibus X^2 spreads the
    # signal over 760 degrees of freedom (its own Monte Carlo p-value stays large), the check's
    # combined statistic finds the pair
    rng = np.random.default_rng(31)
    hits_combined = hits_omnibus = 0
    for _ in range(10):
        tables = _preference_tables(rng, [GOOD] * 189 + [POOR], 30)
        res = _pooling.check(tables, [str(i) for i in range(190)], n_resamples=500)
        hits_combined += not _pooling.passes(res)
        hits_omnibus += stats.chi2.sf(res.attrs["statistic"], res.attrs["df"]) < 0.01
        if not _pooling.passes(res):
            assert _pooling.deviations(res, 1) == ["189"]
    assert hits_combined >= 4 and hits_combined > hits_omnibus


def test_nothing_to_check_with_one_group_or_no_shared_class():
    one = _pooling.check([[[5, 5], [5, 5]]], ["a"])
    assert np.isnan(one.attrs["p_value"]) and not _pooling.passes(one)
    apart = _pooling.check([[[5, 5], [0, 0]], [[0, 0], [5, 5]]], ["a", "b"])
    assert np.isnan(apart.attrs["p_value"]) and "nothing to check" in apart.attrs["verdict"]


def test_the_check_is_reproducible():
    paired = np.array([[[30, 10], [12, 28]], [[22, 18], [20, 20]], [[25, 15], [15, 25]]])
    assert _pooling.check(paired, "abc").attrs["p_value"] == \
        _pooling.check(paired, "abc").attrs["p_value"]


# -- calibration: quiet on equal rates, fires on unequal ---------------------------------------
def _binary_tables(rng, rho, eta, n_paired):
    """Paired (tp, fn / fp, tn) tables of groups with their own rates and shares of positives."""
    g = len(rho)
    alpha = rng.uniform(0.3, 0.8, g)
    pos = rng.binomial(n_paired, alpha)
    tp = rng.binomial(pos, rho)
    tn = rng.binomial(n_paired - pos, eta)
    return np.stack([np.stack([tp, pos - tp], 1), np.stack([n_paired - pos - tn, tn], 1)], 1)


def _preference_tables(rng, theta, n_paired):
    """Paired 3 x 3 tables of pairs (human preference by metric preference)."""
    out = []
    for th in theta:
        cls = rng.multinomial(n_paired, [0.4, 0.2, 0.4])
        out.append([rng.multinomial(cls[c], th[c]) for c in range(3)])
    return np.array(out)


GOOD = np.array([[0.8, 0.15, 0.05], [0.2, 0.6, 0.2], [0.05, 0.15, 0.8]])
POOR = np.array([[0.45, 0.2, 0.35], [0.3, 0.4, 0.3], [0.35, 0.2, 0.45]])


def test_the_smallest_group_p_value_is_taken_at_the_largest_statistic_per_df():
    # the check takes, per drawn table, the smallest chi-square p-value over the groups from
    # one chdtrc per distinct df: the same numbers as chdtrc of every group and the minimum
    rng = np.random.default_rng(4)
    df = np.array([1, 2, 1, 1, 3, 2, 1, 2])
    stat = rng.gamma(1.5, 2.0, (5000, 8)) * rng.uniform(0.2, 5.0, 8)
    stat[:10] = 0.0
    np.testing.assert_array_equal(_pooling._smallest_p(df, stat),
                                  special.chdtrc(df, stat).min(axis=1))


def test_quiet_on_equal_rates_in_at_least_95_percent_of_simulations():
    # 200 binary designs (8 systems, 40 paired rows each, equal rho = 0.8, eta = 0.7, shares of
    # adequate outputs differing) and 100 preference designs (10 pairs, 30 paired items each,
    # one 3 x 3 confusion matrix); the check's own settings (2000 draws, sig_level 0.01)
    rng = np.random.default_rng(2026)
    p_binary = np.array([_pooling.check(_binary_tables(rng, [0.8] * 8, [0.7] * 8, 40),
                                        list("abcdefgh")).attrs["p_value"]
                         for _ in range(200)])
    p_pref = np.array([_pooling.check(_preference_tables(rng, [GOOD] * 10, 30),
                                      [str(i) for i in range(10)]).attrs["p_value"]
                       for _ in range(100)])
    quiet_binary = np.mean(p_binary >= _pooling.SIG_LEVEL)
    quiet_pref = np.mean(p_pref >= _pooling.SIG_LEVEL)
    assert quiet_binary >= 0.95 and quiet_pref >= 0.95       # 0.985 and 0.98 with this seed
    # the p-values are (super-)uniform: at most about 10% below 0.1 (3 binomial sds of slack)
    assert np.mean(p_binary < 0.1) <= 0.1 + 3 * np.sqrt(0.09 / 200)
    assert np.mean(p_pref < 0.1) <= 0.1 + 3 * np.sqrt(0.09 / 100)


def test_fires_on_unequal_rates_and_names_the_groups_that_differ():
    # two of 8 systems whose metric misses adequate outputs far more often (rho 0.5, not 0.85)
    rng = np.random.default_rng(7)
    rho = [0.85] * 6 + [0.5, 0.5]
    fired, named = 0, 0
    for _ in range(100):
        res = _pooling.check(_binary_tables(rng, rho, [0.75] * 8, 60), list("abcdefgh"))
        if not _pooling.passes(res):
            fired += 1
            named += _pooling.deviations(res, 1)[0] in {"g", "h"}
    assert fired >= 90      # 93 of 100 with this seed
    assert named >= 0.9 * fired
    # a judge that is poor on one pair of ten (preference model), 100 paired items per pair
    # (with 60 it fired on 39 of 50: a single deviating pair needs more paired items)
    fired_pref = sum(not _pooling.passes(_pooling.check(
        _preference_tables(rng, [GOOD] * 9 + [POOR], 100), [str(i) for i in range(10)]))
        for _ in range(50))
    assert fired_pref >= 45      # 50 of 50 with this seed


# -- the warning in the fits ---------------------------------------------------------------------
UNEQUAL = {"A": {"metric_pos": 600, "metric_total": 1000, "tp": 40, "fn": 10, "tn": 40, "fp": 10},
           "B": {"metric_pos": 600, "metric_total": 1000, "tp": 40, "fn": 10, "tn": 40, "fp": 10},
           "C": {"metric_pos": 600, "metric_total": 1000, "tp": 40, "fn": 10, "tn": 12, "fp": 38}}


def test_binary_fit_warns_once_at_the_users_line_only_when_pooled():
    res, caught = _caught(be.fit_counts, UNEQUAL, rates="pooled")
    pooling = _of(caught, PoolingWarning)
    assert len(pooling) == 1 and pooling[0].filename == __file__
    text = str(pooling[0].message)
    # the most deviating group first, with its rates against the pooled ones, and the fix
    assert "Most different: C: rho 0.80 (40 of 50) against 0.80 pooled, eta 0.24 (12 of 50)" \
        in text
    assert "rates='estimate'" in text
    assert res.pooling_check().attrs["p_value"] < _pooling.SIG_LEVEL
    note = [n for n in res.summary().notes if n.startswith("check before pooling")]
    assert len(note) == 1 and "WARNING" in note[0] and "most: C" in note[0]
    _, caught = _caught(be.fit_counts, UNEQUAL, rates="estimate")
    assert not _of(caught, PoolingWarning)


def test_binary_fit_stays_quiet_and_notes_the_caveat_when_the_rates_agree():
    same = {g: dict(UNEQUAL["A"]) for g in "ABC"}
    res, caught = _caught(be.fit_counts, same, rates="pooled")
    assert not _of(caught, PoolingWarning)
    note = [n for n in res.summary().notes if n.startswith("check before pooling")]
    # the check passes; what it could miss moves alpha by more than the intervals' half-width
    assert len(note) == 1 and "the pooled intervals assume no such difference" in note[0]


# counts whose rates are poorly identified (rho + eta near 1 on few paired rows)
WEAK = {"human_pos": 5, "human_total": 10, "metric_pos": 500, "metric_total": 1000,
        "tp": 4, "fn": 3, "tn": 3, "fp": 3}


def test_advice_recommends_pooling_only_when_the_check_passes():
    same = {g: dict(WEAK) for g in "AB"}
    _, caught = _caught(be.fit_counts, same)
    text = str(_of(caught, IdentifiabilityWarning)[0].message)
    assert "rates='pooled' (the check before pooling finds no difference" in text
    differ = {"A": dict(WEAK, tp=30, fn=0, tn=30, fp=0), "B": dict(WEAK, tp=0, fn=30, tn=30,
                                                                      fp=0),
              "C": dict(WEAK)}
    _, caught = _caught(be.fit_counts, differ)
    assert len(caught) == 1      # the contradiction in B leads; identifiability follows it
    text = str(caught[0].message)
    assert "poorly identified" in text
    assert "(not rates='pooled': the paired rows say the groups' rates differ" in text
    assert "rates='pooled' (the" not in text
    # one group: nothing to pool, no pooling advice at all
    _, caught = _caught(be.fit_counts, WEAK)
    assert "pooled" not in str(_of(caught, IdentifiabilityWarning)[0].message)


def test_missing_class_error_gives_pooling_only_with_its_caveat():
    counts = {"A": {"metric_pos": 5, "metric_total": 10, "tp": 0, "fn": 0, "tn": 5, "fp": 5},
              "B": {"metric_pos": 5, "metric_total": 10, "tp": 5, "fn": 5, "tn": 5, "fp": 5}}
    with pytest.raises(DataError, match=r"if the metric errs alike in every group, use "
                                        r"rates='pooled' \(the pooled fit checks that"):
        be.fit_counts(counts)


def test_no_message_or_report_recommends_pooling_without_the_check():
    # every place the package's text names rates='pooled' as advice goes through the check
    import pathlib

    root = pathlib.Path(be.__file__).parent
    advice = []
    for path in list(root.rglob("*.py")) + list(root.rglob("*.qmd")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if ("use rates='pooled'" in line or "pooled rates (<code>" in line
                    or "or use --rates pooled" in line):
                advice.append(f"{path.name}: {line.strip()}")
    allowed = ("_advice.py", "model.py", "report.qmd")  # a doctest; the caveat; the checked branch
    assert all(a.split(":")[0] in allowed for a in advice), advice


# -- the shipped WMT21 data: a setting where pooling miscovers -----------------------------------
def test_fires_on_wmt21_where_pooled_intervals_miss_the_all_human_truth():
    # en-de, human = no MQM error, chrF at one balanced threshold for all ten systems (the human
    # translations ref-A and ref-D among them); MQM kept on a random 30% of the segments (seed
    # 0), the rest metric-only.  Over 8 such splits the pooled 95% intervals covered the all-MQM
    # truth on 90% of the systems, per-system rates on 97.5%, and the check fired on all 8.
    d = datasets.load_wmt21_ende().dropna(subset=["mqm", "chrf"])
    truth = (d["mqm"] == 0).groupby(d["system"]).mean()
    rng = np.random.default_rng(0)
    segs = d["seg_id"].unique()
    kept = rng.choice(segs, int(0.3 * len(segs)), replace=False)
    x = d.assign(human=np.where(d["seg_id"].isin(kept), (d["mqm"] == 0).astype(float), np.nan))
    pooled, caught = _caught(be.fit, "human ~ chrf | system", x, threshold="balanced",
                             rates="pooled")
    fr = pooled.to_frame()
    covered = (fr["lower"] <= truth[fr.index]) & (truth[fr.index] <= fr["upper"])
    assert not covered["ref-A"]          # truth 0.653, pooled interval ends at 0.639
    assert truth["ref-A"] == pytest.approx(344 / 527)
    warned = _of(caught, PoolingWarning)
    assert len(warned) == 1 and warned[0].filename == __file__
    assert "Most different: ref-A: rho 0.25 (24 of 95) against 0.55 pooled" in \
        str(warned[0].message)
    assert pooled.pooling_check().attrs["p_value"] < _pooling.SIG_LEVEL
    # per system, chrf's rates leave alpha poorly identified in half the systems: said
    with pytest.warns(be.IdentifiabilityWarning, match=r"poorly identified in 5 of 10 groups"):
        per_system = be.fit("human ~ chrf | system", x, threshold="balanced").to_frame()
    assert per_system.loc["ref-A", "lower"] <= truth["ref-A"] <= per_system.loc["ref-A", "upper"]


# -- the latent model: preferences and several metrics --------------------------------------------
def _preference_rows(rng, theta, n_paired, n_metric):
    pairs = [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")]
    value = np.array([1, 0, -1])          # first, tie, second
    rows = []
    for (a, b), th in zip(pairs, theta, strict=True):
        h = rng.choice(3, size=n_paired + n_metric, p=[0.4, 0.2, 0.4])
        m = np.array([rng.choice(3, p=th[c]) for c in h])
        human = value[h].astype(float)
        human[n_paired:] = np.nan
        rows.append(pd.DataFrame({"a": a, "b": b, "human": human, "metric": value[m]}))
    return pd.concat(rows, ignore_index=True)


def test_fit_preferences_pooled_warns_naming_the_pair_whose_judge_differs():
    rng = np.random.default_rng(3)
    df = _preference_rows(rng, [GOOD] * 5 + [POOR], 60, 300)
    res, caught = _caught(be.fit_preferences, "human ~ metric", df, first="a", second="b",
                          rates="pooled", draws=200, seed=1)
    warned = _of(caught, PoolingWarning)
    assert len(warned) == 1 and warned[0].filename == __file__
    assert "Most different: C vs D: metric preference 'first' where the human preference " \
           "is 'second' in 11 of 28 paired items (0.39) against 0.10 pooled" in \
        str(warned[0].message)
    assert "rates='estimate' (rates per pair" in str(warned[0].message)
    assert any(n.startswith("check before pooling") and "WARNING" in n
               for n in res.summary().notes)
    df = _preference_rows(rng, [GOOD] * 6, 60, 300)
    res, caught = _caught(be.fit_preferences, "human ~ metric", df, first="a", second="b",
                          rates="pooled", draws=200, seed=1)
    assert not _of(caught, PoolingWarning)
    assert res.pooling_check().attrs["p_value"] >= _pooling.SIG_LEVEL


def test_fit_latent_pooled_warns_when_a_metric_errs_otherwise_in_one_group():
    rng = np.random.default_rng(5)
    frames = []
    n = 600
    for system, (rho, eta) in {"A": (0.85, 0.8), "B": (0.85, 0.8), "C": (0.4, 0.8)}.items():
        truth = rng.random(n) < 0.6
        m1 = np.where(truth, rng.random(n) < rho, rng.random(n) > eta).astype(int)
        m2 = np.where(truth, rng.random(n) < 0.8, rng.random(n) > 0.8).astype(int)
        human = truth.astype(float)
        human[150:] = np.nan
        frames.append(pd.DataFrame({"system": system, "h": human, "m1": m1, "m2": m2}))
    df = pd.concat(frames, ignore_index=True)
    res, caught = _caught(be.fit_latent, "h ~ m1 + m2 | system", df, rates="pooled",
                          draws=200, seed=2)
    warned = _of(caught, PoolingWarning)
    assert len(warned) == 1 and "Most different: C" in str(warned[0].message)
    assert res.pooling_check()["p_value"].idxmin() == "C"
    _, caught = _caught(be.fit_latent, "h ~ m1 + m2 | system", df, draws=200, seed=2)
    assert not _of(caught, PoolingWarning)


def test_pooled_rates_say_what_the_binary_path_computes():
    # Guards: the summary said "estimated once from all groups' paired rows" while each group's
    # model updates rho and eta with its own metric-only rows (its rho/eta columns differ), and
    # compare() took the posteriors as independent without a word although they share the
    # paired rows.  Each group's posterior is checked against the engine with the pooled paired
    # counts, and the shared rows are said in the comparison and absent without pooling.
    counts = {"A": {"metric_pos": 300, "metric_total": 500, "tp": 8, "fn": 2, "tn": 7, "fp": 3},
              "B": {"metric_pos": 275, "metric_total": 500, "tp": 8, "fn": 2, "tn": 7,
                    "fp": 3}}
    res = be.fit_counts(counts, rates="pooled")
    for g, c in counts.items():
        # its own paired rows' human ratings inform its alpha; all groups' inform the rates
        want = be.alpha_posterior(human_pos=c["tp"] + c["fn"], human_total=20,
                                  metric_pos=c["metric_pos"], metric_total=c["metric_total"],
                                  tp=16, fn=4, tn=14, fp=6)
        assert res.posteriors[g].mean() == pytest.approx(want.mean(), rel=1e-12)
    frame = res.to_frame()
    assert frame.loc["A", "rho"] != pytest.approx(frame.loc["B", "rho"], abs=1e-3)
    rates_line = res.summary().info["rates"]
    assert rates_line.startswith("pooled: every group's model takes all groups' paired rows")
    assert "own metric-only rows update them" in rates_line
    assert "share the paired rows" in res.compare().summary().info["interval"]
    alone = be.fit_counts(counts)
    assert "share the paired rows" not in alone.compare().summary().info["interval"]


# -- what a passing check leaves possible (binary fits) -----------------------------------------
def _shifted_tables(rng, n1, n0, rho, eta):
    tp, tn = rng.binomial(n1, rho), rng.binomial(n0, eta)
    return np.stack([np.stack([tp, n1 - tp], 1), np.stack([n0 - tn, tn], 1)], 1)


def test_unseen_shift_is_a_difference_the_exact_check_misses_about_half_the_time():
    # eight groups of 200 paired rows (110 adequate), rho 0.8 and eta 0.7: one group whose
    # metric calls d more (or fewer) outputs positive in both classes; the exact check, run on
    # data drawn so, fires about half the time at d and nearly always at 2 d
    rng = np.random.default_rng(77)
    base = np.array([[[88, 22], [27, 63]]] * 8)
    d, shift = _pooling.unseen_shift(base, 0)
    rho, eta = 88 / 110, 63 / 90
    # the move of alpha read from the metric-only ratings: (a d + (1 - a) d) / (rho + eta - 1)
    assert shift == pytest.approx(abs(d) / (rho + eta - 1), rel=1e-12)
    assert 0.08 < abs(d) < 0.14

    def fired(move, sims=150):
        hits = 0
        for _ in range(sims):
            r, e = np.full(8, rho), np.full(8, eta)
            r[0], e[0] = np.clip(rho + move, 0, 1), np.clip(eta - move, 0, 1)
            res = _pooling.check(_shifted_tables(rng, 110, 90, r, e), list("abcdefgh"),
                                 n_resamples=500)
            hits += not _pooling.passes(res)
        return hits / sims
    assert 0.3 <= fired(d) <= 0.65
    assert fired(2 * d) >= 0.9


def test_unseen_shift_shrinks_as_one_over_the_root_of_the_paired_rows():
    # the same shares at 20, 200 and 2000 paired rows a group: far from the edges of [0, 1]
    # the move the check can miss falls by about sqrt(10) per tenfold (the statistic's
    # non-centrality grows with the rows), and never grows
    moves = [abs(_pooling.unseen_shift(np.array([[[9 * k, 2 * k], [3 * k, 6 * k]]] * 8), 0)[0])
             for k in (10, 100, 1000)]
    assert moves[0] > moves[1] > moves[2]
    assert moves[1] / moves[2] == pytest.approx(np.sqrt(10), rel=0.05)
    # beyond 40,000 outcomes the normal law of the counts answers: within 1.5 % of the
    # enumeration where both can (about 200 paired rows a class), and at 10^4 rows a class
    base = np.array([[[180, 40], [60, 120]]] * 8)
    exact = _pooling.unseen_shift(base, 0)
    try:
        _pooling._EXACT_OUTCOMES, saved = 1, _pooling._EXACT_OUTCOMES
        normal = _pooling.unseen_shift(base, 0)
    finally:
        _pooling._EXACT_OUTCOMES = saved
    assert normal[1] == pytest.approx(exact[1], rel=0.015)
    big = _pooling.unseen_shift(np.array([[[9000, 2000], [3000, 6000]]] * 8), 0)
    assert big[1] == pytest.approx(normal[1] / np.sqrt(50), rel=0.02)
    # nothing shared: no answer
    apart = np.array([[[5, 5], [0, 0]], [[0, 0], [5, 5]]])
    assert np.isnan(_pooling.unseen_shift(apart, 0)).all()


def test_a_pooled_summary_says_what_the_passing_check_can_miss_and_points_to_hierarchical():
    # Guards: eight systems whose metric's rates differ (sd 0.12) with 20 paired rows each; the
    # check passes and the summary said only "a check with little power", while the pooled
    # intervals (half-width 0.11) missed by more than that.  The note now gives the median
    # group's unseen move of alpha, from unseen_shift, and names rates='hierarchical'.
    rng = np.random.default_rng(1)
    rows = []
    for g in range(8):
        rho = np.clip(rng.normal(0.8, 0.12), 0.01, 0.99)
        eta = np.clip(rng.normal(0.75, 0.12), 0.01, 0.99)
        truth = rng.random(1000) < rng.uniform(0.4, 0.8)
        metric = np.where(truth, rng.random(1000) < rho, rng.random(1000) > eta)
        human = np.where(np.arange(1000) < 20, truth.astype(float), np.nan)
        rows.append(pd.DataFrame({"system": f"s{g}", "human": human, "metric": metric.astype(int)}))
    res, caught = _caught(be.fit, "human ~ metric | system", pd.concat(rows), rates="pooled")
    assert not _of(caught, PoolingWarning) and _pooling.passes(res.pooling_check())
    c = res.counts.loc[res.groups]
    paired = np.stack([c[["tp", "fn"]].to_numpy(float), c[["fp", "tn"]].to_numpy(float)], 1)
    d, shift = _pooling.unseen_shift(paired, (len(res.groups) - 1) // 2)
    note = next(n for n in res.summary().notes if n.startswith("check before pooling"))
    assert f"calling {abs(d):.2f} fewer of a group's outputs positive" in note
    assert f"moves that group's alpha by {shift:.2f}" in note and shift > 0.4
    assert "rates='hierarchical' estimates how far the groups' rates differ" in note
    assert "little power" not in note
    ranks_notes = " ".join(res.ranks(n_resamples=200, seed=1).notes)
    assert f"moves that group's alpha by {shift:.2f}" in ranks_notes


def test_the_latent_path_says_the_same_unseen_move_as_the_binary_path():
    # one metric with two outputs through fit_latent(rates="pooled"): its classes and outputs
    # run (inadequate, adequate), and its note gives the binary fit's numbers for the same rows
    rng = np.random.default_rng(1)
    rows = []
    for g in range(4):
        truth = rng.random(400) < 0.6
        metric = np.where(truth, rng.random(400) < 0.8, rng.random(400) > 0.7)
        human = np.where(np.arange(400) < 30, truth.astype(float), np.nan)
        rows.append(pd.DataFrame({"system": f"s{g}", "human": human, "metric": metric.astype(int)}))
    df = pd.concat(rows)
    with warnings.catch_warnings():
        # (its convergence is not what this asks about: numpy 1.26 on AVX-512 rounds the
        # sampler's steps otherwise, and 500 draws can then miss R-hat 1.01)
        warnings.simplefilter("ignore", ConvergenceWarning)
        latent = be.fit_latent("human ~ metric | system", df, rates="pooled", draws=500,
                               seed=1)
    binary = be.fit("human ~ metric | system", df, rates="pooled")
    [a] = [n for n in latent.summary().notes if n.startswith("check before pooling")]
    [b] = [n for n in binary.summary().notes if n.startswith("check before pooling")]
    same = "with 30 paired rows (the median group, s1) it misses half the time or more a " \
           "metric calling 0.26 fewer of a group's outputs positive in both human classes, " \
           "which moves that group's alpha by 0.46"
    assert same in a and same in b
    assert "rates='hierarchical' estimates how far" in a


# -- what a passing check leaves possible: bins, several metrics, preferences --------------------
def _fired(rng, theta, n_class, n_groups, move, sims=150):
    """Share of data sets, group 0's metric moved by ``move`` (each class as far as it can),
    on which the exact check fires."""
    size = float(np.sqrt((move ** 2).sum()))
    unit = move / size
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(unit < 0, theta / -unit,
                        np.where(unit > 0, (1 - theta) / unit, np.inf)).min(axis=1)
    hits = 0
    for _ in range(sims):
        tables = np.array([[rng.multinomial(n_class[c], np.clip(
            theta[c] + (min(size, room[c]) * unit if g == 0 else 0.0), 0.0, 1.0))
            for c in range(theta.shape[0])] for g in range(n_groups)])
        res = _pooling.check(tables, [f"g{g}" for g in range(n_groups)], n_resamples=400)
        hits += not _pooling.passes(res)
    return hits / sims


def test_unseen_move_is_the_binary_normal_law_on_two_by_two_tables():
    # one binary metric, no share at its bounds: the general move is unseen_shift's normal law
    # (the metric calling d more outputs positive in both classes, alpha moved d / (rho + eta
    # - 1)) to rounding
    base = np.array([[[180, 40], [60, 120]]] * 8)
    try:
        _pooling._EXACT_OUTCOMES, saved = 1, _pooling._EXACT_OUTCOMES
        d, shift = _pooling.unseen_shift(base, 0)
    finally:
        _pooling._EXACT_OUTCOMES = saved
    v, move = _pooling.unseen_move(base, 0, [1.0, 0.0])
    assert v[0] == pytest.approx(d, rel=1e-12) and v[1] == pytest.approx(-d, rel=1e-12)
    assert move == pytest.approx(shift, rel=1e-12)
    assert move == pytest.approx(d / (180 / 220 + 120 / 180 - 1), rel=1e-12)
    # its reading of alpha is the weighted least squares of the metric-only shares: moving
    # them by v moves the shares that explain them by move / d per unit of d
    theta = base.sum(axis=0) / base.sum(axis=(0, 2))[:, None]
    pi = base[0].sum(axis=1) / base[0].sum()
    q = theta.T @ pi + v
    alpha = np.linalg.lstsq(np.vstack([theta.T[:, 0] - theta.T[:, 1]]).T,
                            q - theta.T[:, 1], rcond=None)[0][0]
    assert alpha - pi[0] == pytest.approx(move, rel=1e-9)
    # nothing shared: no answer; shape errors name the shapes
    apart = np.array([[[5, 5], [0, 0]], [[0, 0], [5, 5]]])
    assert np.isnan(_pooling.unseen_move(apart, 0, [1.0, 0.0])[1])
    with pytest.raises(ValueError, match=r"got \(2, 2, 2\) and \(3,\)"):
        _pooling.unseen_move(apart, 0, [1.0, 0.0, 0.0])


@pytest.mark.parametrize("design", ["preferences", "bins"])
def test_unseen_move_is_missed_half_the_time_or_more_and_seen_at_twice_it(design):
    # ten pairs of preference ratings (first, tie, second) or eight groups of a metric with
    # four bins; one group's metric moved by unseen_move's answer: the exact check fires on at
    # most about half of the data sets drawn so (the sentence says "misses half the time or
    # more"; measured 0.21-0.30 over five designs of 16 to 100 items a class) and on nearly
    # all at twice the move (0.82-1.0)
    rng = np.random.default_rng(8)
    if design == "preferences":
        theta = np.array([[0.75, 0.125, 0.125], [0.15, 0.7, 0.15], [0.125, 0.125, 0.75]])
        n_class, n_groups, gradient = np.array([40, 20, 40]), 10, [1.0, 0.0, -1.0]
    else:
        theta = np.array([[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]])
        n_class, n_groups, gradient = np.array([60, 60]), 8, [0.0, 1.0]
    paired = np.array([theta * n_class[:, None]] * n_groups)
    v, move = _pooling.unseen_move(paired, 0, gradient)
    assert abs(v.sum()) < 1e-12 and move > 0
    assert 0.1 <= _fired(rng, theta, n_class, n_groups, v) <= 0.5
    assert _fired(rng, theta, n_class, n_groups, 2 * v) >= 0.75
    # the move the check can miss falls by about sqrt(10) with ten times the paired items
    small = _pooling.unseen_move(paired * 10, 0, gradient)[1]
    assert move / small == pytest.approx(np.sqrt(10), rel=0.05)


def test_pooled_preferences_and_bins_say_what_the_passing_check_can_miss():
    # Guards: a pooled preference fit (or a latent fit of a binned metric) said only "a check
    # with little power"; its note now gives the median pair's (group's) unseen move of diff
    # (alpha), from unseen_move at the fit's pooled confusion matrix
    rng = np.random.default_rng(3)
    df = _preference_rows(rng, [GOOD] * 6, 40, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = be.fit_preferences("human ~ metric", df, first="a", second="b", rates="pooled",
                                 draws=200, seed=1)
    post = res.latent
    assert _pooling.passes(res.pooling_check())
    paired = np.asarray(post.paired, dtype=float)
    n = paired.sum(axis=(1, 2))
    at = int(np.argsort(n, kind="stable")[(len(n) - 1) // 2])
    v, move = _pooling.unseen_move(paired, at, [1.0, 0.0, -1.0],
                                   theta=post.theta_mean().to_numpy(dtype=float))
    [note] = [x for x in res.summary().notes if x.startswith("check before pooling")]
    assert f"(the median pair, {post.groups[at]})" in note
    assert f"moves that pair's diff by {move:.2f}" in note and move > 0.2
    assert f"up to {v[v > 0].sum():.2f} of a pair's ratings" in note
    diff = (post.draws.pi[..., 0] - post.draws.pi[..., 2]).reshape(-1, len(post.groups))
    lo, hi = np.quantile(diff, [0.025, 0.975], axis=0)
    width = float(np.median((hi - lo) / 2))
    assert f"(the median interval's half-width is {width:.2f})" in note and move > width
    assert "rates='hierarchical' estimates how far the pairs' rates differ" in note
    assert "little power" not in note
    assert any(f"moves that pair's diff by {move:.2f}" in x for x in res.ranks().notes)
    # a metric scored in bins (three groups, one metric of four levels)
    frames = []
    for system in "ABC":
        truth = rng.random(500) < 0.6
        score = np.where(truth, rng.choice(4, 500, p=[0.1, 0.2, 0.3, 0.4]),
                         rng.choice(4, 500, p=[0.4, 0.3, 0.2, 0.1]))
        human = np.where(np.arange(500) < 60, truth.astype(float), np.nan)
        frames.append(pd.DataFrame({"system": system, "h": human, "m": score}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = be.fit_latent("h ~ C(m) | system", pd.concat(frames), rates="pooled", draws=200,
                            seed=2)
    post = fit.latent
    assert post.paired.shape[1:] == (2, 4) and _pooling.passes(fit.pooling_check())
    v, move = _pooling.unseen_move(np.asarray(post.paired, float), 1, [0.0, 1.0],
                                   theta=post.theta_mean().to_numpy(dtype=float))
    [note] = [x for x in fit.summary().notes if x.startswith("check before pooling")]
    assert f"moves that group's alpha by {move:.2f}" in note and "(the median group, B)" in note


def test_the_unseen_move_names_the_three_largest_moves_each_way():
    # several metrics' joint patterns make many outputs: the sentence names the three largest
    # moves each way and counts the rest, largest first
    text = _pooling.unseen_move_text("g1", 50, list("abcdef"),
                                     [0.01, 0.2, 0.05, 0.1, -0.3, -0.06], 0.4, estimand="alpha",
                                     unit="group")
    assert "moving up to 0.36 of a group's ratings" in text
    assert "(to 'b' +0.20, 'd' +0.10, 'c' +0.05 and 1 more; from 'e' -0.30, 'f' -0.06)" in text
    assert text.startswith("with 50 paired rows (the median group, g1)")
    assert text.endswith("which moves that group's alpha by 0.40")
    whole = _pooling.unseen_move_text("p", 9, ["first", "tie", "second"], [0.5, 0, -0.5], 2.3,
                                      estimand="diff", unit="pair", whole=2.0)
    assert whole.endswith("moves that pair's diff by as much as its whole range")
    assert "9 paired items" in whole
