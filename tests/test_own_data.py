"""A new user's own data: raw MQM penalties, NaN for unrated rows, through fit, compare, plan,
favi and correlate.

The frames are the shipped WMT21 en-de data turned back into what an MQM release holds: raw error
penalties (``mqm = -shipped mqm``: 0 = no error, higher = worse; NaN = not annotated).  Each test
reproduces one call a new user made and checks that the package catches the trap (one warning, at
the caller's line, naming the fix) or that the trap is gone; the numbers are checked against
independent computations (pandas recounts, brute-force threshold search, quadrature, closed forms).
"""

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import binaryeval as be
from binaryeval.cli import main
from binaryeval.errors import BinaryEvalError, DirectionWarning, IdentifiabilityWarning

MT = ["Facebook-AI", "HuaweiTSC", "Nemo", "Online-W", "UEdin", "VolcTrans-AT", "VolcTrans-GLAT",
      "eTranslation"]
SEED = 2021          # the subsample of human ratings for the n_eff table
N_HUMAN = 100        # human ratings kept per system


@pytest.fixture(scope="module")
def raw():
    """All 17 systems, MQM as raw penalties (NaN = not annotated)."""
    df = be.datasets.load_wmt21_ende()
    return df.assign(mqm=-df["mqm"])


@pytest.fixture(scope="module")
def mt(raw):
    """The eight MT systems (human translations and metric-task systems left out, as WMT does)."""
    return raw[raw["system"].isin(MT)].reset_index(drop=True)


@pytest.fixture(scope="module")
def sub(raw):
    """100 MQM ratings per system (a seeded subsample of the rated segments), the rest of the rows
    metric-only (chrF where the dataset has it)."""
    rng = np.random.default_rng(SEED)
    keep = np.zeros(len(raw), dtype=bool)
    for _, idx in raw[raw["mqm"].notna()].groupby("system").groups.items():
        keep[rng.choice(np.asarray(idx), N_HUMAN, replace=False)] = True
    return raw.assign(mqm=raw["mqm"].where(keep))


def _caught(call):
    """Run ``call``; return its result and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, caught


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


# ---------------------------------------------------------------------------------------------
# 1. favi on raw penalties
# ---------------------------------------------------------------------------------------------

def _sign_accuracy(frame: pd.DataFrame, human_sign: int) -> float:
    """System-level sign accuracy by a pandas recount: for each pair of systems, the sign of
    (items where the humans prefer A) - (items where they prefer B) against the same for chrF,
    over the items both systems have both scores for; a pair where both tie agrees."""
    h = frame.pivot(index="seg_id", columns="system", values="mqm") * human_sign
    m = frame.pivot(index="seg_id", columns="system", values="chrf")
    systems = sorted(frame["system"].unique())
    agree = []
    for i, a in enumerate(systems):
        for b in systems[i + 1:]:
            ok = h[[a, b]].notna().all(axis=1) & m[[a, b]].notna().all(axis=1)
            mar_h = np.sign(h.loc[ok, a] - h.loc[ok, b]).sum()
            mar_m = np.sign(m.loc[ok, a] - m.loc[ok, b]).sum()
            agree.append(np.sign(mar_h) == np.sign(mar_m))
    return float(np.mean(agree))


def test_favi_on_penalties_warns_once_and_lower_is_better_restores_the_sign(mt):
    res, caught = _caught(lambda: be.favi("mqm ~ chrf | system", mt, item="seg_id"))
    assert [w.category for w in caught] == [DirectionWarning]
    assert caught[0].filename == __file__
    assert "lower_is_better=['mqm']" in str(caught[0].message)
    # penalties read as higher-is-better: the metric agrees with the humans on 4 of 28 pairs
    assert res.system_sign_accuracy == pytest.approx(_sign_accuracy(mt, +1), abs=1e-12)
    assert res.system_sign_accuracy == pytest.approx(4 / 28, abs=1e-12)
    fixed, caught = _caught(lambda: be.favi("mqm ~ chrf | system", mt, item="seg_id",
                                            lower_is_better=["mqm"]))
    assert caught == []
    assert fixed.system_sign_accuracy == pytest.approx(_sign_accuracy(mt, -1), abs=1e-12)
    assert fixed.system_sign_accuracy == pytest.approx(23 / 28, abs=1e-12)
    # the same as the shipped (negated) scores, and the summary states the direction it used
    shipped = be.favi("mqm ~ chrf | system", mt.assign(mqm=-mt["mqm"]), item="seg_id")
    pd.testing.assert_frame_equal(fixed.to_frame(), shipped.to_frame())
    assert re.search(r"direction of mqm:\s+lower is better", str(fixed))


# ---------------------------------------------------------------------------------------------
# 2. correlate on raw penalties, and how sentence scores become system scores
# ---------------------------------------------------------------------------------------------

def test_correlate_on_penalties_warns_once_and_lower_is_better_turns_the_comparisons(mt):
    res, caught = _caught(lambda: be.correlate("mqm ~ chrf + bleu | system", mt))
    assert [w.category for w in caught] == [DirectionWarning]
    assert caught[0].filename == __file__
    assert "lower_is_better=['mqm']" in str(caught[0].message)
    # system scores: means over the segments that have all three scores
    means = mt.dropna(subset=["mqm", "chrf", "bleu"]).groupby("system")[["mqm", "chrf", "bleu"]].mean()
    for metric in ("chrf", "bleu"):
        r = np.corrcoef(means["mqm"], means[metric])[0, 1]
        assert r < 0
        got = res.to_frame().set_index("metric").loc[metric, "estimate"]
        assert got == pytest.approx(r, abs=1e-12)
    fixed, caught = _caught(lambda: be.correlate("mqm ~ chrf + bleu | system", mt,
                                                 lower_is_better=["mqm"]))
    assert caught == []
    pd.testing.assert_series_equal(fixed.to_frame().set_index("metric")["estimate"],
                                   -res.to_frame().set_index("metric")["estimate"])
    # Williams: the raw table says chrF beats BLEU exactly as strongly as the corrected one says
    # BLEU beats chrF (the comparison ran the wrong way)
    wrong = res.pairwise().set_index(["metric_1", "metric_2"])["p_value"]
    right = fixed.pairwise().set_index(["metric_1", "metric_2"])["p_value"]
    assert wrong[("chrf", "bleu")] == pytest.approx(right[("bleu", "chrf")], abs=1e-12)
    assert right[("bleu", "chrf")] < right[("chrf", "bleu")]
    # the summary says how segment scores became system scores, and the directions used
    text = str(fixed)
    assert "system scores: mean of 527 segment scores per system" in text
    assert "lower is better (negated): mqm" in text
    # ready system-level columns need no aggregation and give the same numbers
    ready = be.correlate("mqm ~ chrf + bleu | system", means.reset_index(), aggregate=None,
                         lower_is_better=["mqm"])
    np.testing.assert_allclose(ready.to_frame()["estimate"], fixed.to_frame()["estimate"],
                               atol=1e-12)


# ---------------------------------------------------------------------------------------------
# 3. one warning per fit, with advice that fits the case
# ---------------------------------------------------------------------------------------------

def test_weak_thresholded_metric_gets_one_warning_about_its_auc(raw):
    formula = "I(mqm == 0) ~ chrf | system"
    res, caught = _caught(lambda: be.fit(formula, raw, threshold="balanced"))
    assert [w.category for w in caught] == [IdentifiabilityWarning]
    assert caught[0].filename == __file__
    message = str(caught[0].message)
    auc = be.roc("I(mqm == 0) ~ chrf", raw).auc()["pooled"]
    assert f"AUC {auc:.2f} on the paired rows" in message and "barely separates" in message
    assert "I(1 - " not in message and "flip" not in message
    # every flagged group is listed once, with its P(rho + eta <= 1)
    flagged = {g: p for g, p in res.unidentified.items() if p > 0.05}
    assert flagged
    for g, p in flagged.items():
        assert message.count(f"{g} ({p:.3f})") == 1
    # the summary carries the same message once
    assert sum(message in note for note in res.summary().notes) == 1


def test_metric_running_against_the_humans_gets_one_direction_warning(mt):
    formula = "I(mqm == 0) ~ ter | system"
    res, caught = _caught(lambda: be.fit(formula, mt, threshold="balanced"))
    assert [w.category for w in caught] == [DirectionWarning]
    assert caught[0].filename == __file__
    message = str(caught[0].message)
    assert message.startswith("Higher 'ter' scores go with inadequate outputs")
    assert "lower_is_better=['ter']" in message and "As fitted, alpha is poorly identified" in message
    fixed, caught = _caught(lambda: be.fit(formula, mt, threshold="balanced",
                                           lower_is_better=["ter"]))
    assert DirectionWarning not in [w.category for w in caught]
    assert fixed.diagnostics["auc"] == pytest.approx(1 - res.diagnostics["auc"], abs=1e-12)
    assert fixed.to_frame().attrs["lower_is_better"] == ["ter"]


def test_cli_fit_on_the_readme_example_prints_at_most_one_warning(raw, tmp_path, capsys):
    path = tmp_path / "wmt21.csv"
    be.datasets.load_wmt21_ende().to_csv(path, index=False)
    argv = ["fit", "I(mqm == 0) ~ chrf | system", "--data", str(path), "--threshold",
            "balanced", "--compare"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) <= 1
    assert all(line.startswith("binaryeval fit: warning: alpha is poorly identified")
               for line in lines)
    assert captured.out.startswith("Pairwise comparison of groups")


def test_cli_fit_names_and_takes_the_direction(mt, tmp_path, capsys):
    path = tmp_path / "mt.csv"
    mt.to_csv(path, index=False)
    argv = ["fit", "I(mqm == 0) ~ ter | system", "--data", str(path), "--threshold", "balanced"]
    assert main(argv) == 0
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("binaryeval fit: warning: Higher 'ter' scores go with inadequate")
    assert main([*argv, "--lower-is-better", "ter", "--format", "csv"]) == 0
    captured = capsys.readouterr()
    assert "Higher 'ter'" not in captured.err
    table = pd.read_csv(pd.io.common.StringIO(captured.out), index_col="system")
    api = _quiet(lambda: be.fit("I(mqm == 0) ~ ter | system", mt, threshold="balanced",
                                lower_is_better=["ter"])).to_frame()
    np.testing.assert_allclose(table.loc[api.index, "estimate"], api["estimate"], rtol=1e-12)
    np.testing.assert_allclose(table["threshold"], api["threshold"].iloc[0], rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# 4. the threshold is a number, in the table and in the exports
# ---------------------------------------------------------------------------------------------

def _balanced_by_brute_force(human: np.ndarray, score: np.ndarray) -> float:
    """The papers' balanced rule by trying every observed score: min |rho - eta|, then the larger
    rho + eta, then the larger threshold."""
    best = None
    for t in np.unique(score):
        rho = np.mean(score[human == 1] >= t)
        eta = np.mean(score[human == 0] < t)
        key = (abs(rho - eta), -(rho + eta), -t)
        if best is None or key < best[0]:
            best = (key, t)
    return float(best[1])


def test_threshold_is_a_float_in_the_table_attrs_and_csv(mt, tmp_path, capsys):
    res = _quiet(lambda: be.fit("I(mqm == 0) ~ chrf | system", mt, threshold="balanced"))
    paired = mt[mt["mqm"].notna() & mt["chrf"].notna()]
    expected = _balanced_by_brute_force((paired["mqm"] == 0).to_numpy(),
                                        paired["chrf"].to_numpy())
    assert isinstance(res.threshold, float) and res.threshold == expected
    assert res.threshold_rule == "balanced"
    frame = res.to_frame()
    assert (frame["threshold"] == expected).all()
    assert frame.attrs["threshold_rule"] == "balanced"
    path = tmp_path / "mt.csv"
    mt.to_csv(path, index=False)
    out = tmp_path / "fit.csv"
    assert main(["fit", "I(mqm == 0) ~ chrf | system", "--data", str(path), "--threshold",
                 "balanced", "-o", str(out)]) == 0
    back = pd.read_csv(out, index_col="system")
    np.testing.assert_allclose(back["threshold"], expected, rtol=1e-12)


def test_thresholds_per_group_are_a_series(mt):
    rules = dict.fromkeys(MT, "balanced")
    res = _quiet(lambda: be.fit("I(mqm == 0) ~ chrf | system", mt, threshold=rules))
    assert isinstance(res.threshold, pd.Series) and res.threshold.index.name == "system"
    for g in MT:
        rows = mt[(mt["system"] == g) & mt["mqm"].notna() & mt["chrf"].notna()]
        assert res.threshold[g] == _balanced_by_brute_force((rows["mqm"] == 0).to_numpy(),
                                                            rows["chrf"].to_numpy())
    frame = res.to_frame()
    np.testing.assert_array_equal(frame["threshold"], res.threshold.reindex(frame.index))


# ---------------------------------------------------------------------------------------------
# 5. ordered by estimate everywhere; order= keeps the input order or takes a list
# ---------------------------------------------------------------------------------------------

def test_tables_comparisons_and_heatmap_follow_the_estimates(mt):
    res = be.fit("I(mqm == 0) ~ 1 | system", mt)
    by_estimate = res.to_frame()["estimate"].sort_values(ascending=False).index.tolist()
    assert res.groups == by_estimate == res.to_frame().index.tolist()
    assert res.summary().tables[0][1].index.tolist() == by_estimate
    matrix = res.compare().matrix()
    assert matrix.index.tolist() == matrix.columns.tolist() == by_estimate
    ax = res.compare().plot()
    assert [t.get_text() for t in ax.get_yticklabels()] == by_estimate
    assert [t.get_text() for t in ax.get_xticklabels()] == by_estimate
    first_seen = list(dict.fromkeys(mt["system"]))
    assert be.fit("I(mqm == 0) ~ 1 | system", mt, order="input").groups == first_seen
    assert res.compare(order="input").matrix().index.tolist() == first_seen
    chosen = sorted(MT, key=str.lower)
    assert be.fit("I(mqm == 0) ~ 1 | system", mt, order=chosen).to_frame().index.tolist() == chosen


# ---------------------------------------------------------------------------------------------
# 6. from a fit to a plan; no silent model defaults
# ---------------------------------------------------------------------------------------------

def test_plan_functions_need_the_model():
    with pytest.raises(BinaryEvalError, match="needs the model's alpha and rho"):
        be.plan.required_sample_size(0.03)


def _human_only_more(m1, m2, n, target, z, a_b=2.0):
    """Closed form for a human-only pair: the smallest k with
    z sqrt(m1 (1 - m1) / (n + k + a + b + 1) + m2 (1 - m2) / (n + k + a + b + 1)) <= target."""
    need = (z / target) ** 2 * (m1 * (1 - m1) + m2 * (1 - m2)) - n - a_b - 1
    return max(math.ceil(need - 1e-9), 0)


def test_plan_from_a_human_only_fit_matches_the_closed_form(sub):
    res = be.fit("I(mqm == 0) ~ 1 | system", sub[sub["system"].isin(MT)])
    z = stats.norm.ppf(0.975)
    frame = res.to_frame()
    plan = res.plan(epsilon=0.05, pairs="neighbours").to_frame()
    assert len(plan) == len(MT) - 1
    for _, row in plan.iterrows():
        m1, m2 = frame.loc[row["group_1"], "estimate"], frame.loc[row["group_2"], "estimate"]
        sd1, sd2 = frame.loc[row["group_1"], "std_error"], frame.loc[row["group_2"], "std_error"]
        assert row["separated_now"] == pytest.approx(z * math.hypot(sd1, sd2), rel=1e-12)
        assert row["more_human"] == _human_only_more(m1, m2, N_HUMAN, 0.05, z)


# ---------------------------------------------------------------------------------------------
# 7. what the metric was worth: n_eff
# ---------------------------------------------------------------------------------------------

def _quadrature_n_eff(c: pd.Series, prior=(1.0, 1.0), nodes: int = 120) -> float:
    """n_eff = m (1 - m) / v - 1 - (a + b) of the model's posterior of alpha, by direct
    quadrature: alpha on a fine grid, rho and eta by Gauss-Legendre in the quantiles of their
    Beta posteriors, the metric-only ratings binomial in alpha rho + (1 - alpha)(1 - eta)."""
    a, b = prior
    A = a + c["human_pos"] + c["tp"] + c["fn"]
    B = b + c["human_total"] - c["human_pos"] + c["tn"] + c["fp"]
    k, M = int(c["metric_pos"]), int(c["metric_total"])
    x, w = np.polynomial.legendre.leggauss(nodes)
    u, w = (x + 1) / 2, w / 2
    rho = stats.beta(c["tp"] + 1, c["fn"] + 1).ppf(u)
    eta = stats.beta(c["tn"] + 1, c["fp"] + 1).ppf(u)
    # alpha where the human ratings leave posterior mass (the metric term only reweights it)
    human = stats.beta(A, B)
    alpha = np.linspace(human.ppf(1e-12), human.isf(1e-12), 801)
    log_lik = np.empty_like(alpha)
    log_w = np.log(w[:, None] * w[None, :])
    for i, al in enumerate(alpha):
        q = al * rho[:, None] + (1 - al) * (1 - eta[None, :])
        terms = k * np.log(q) + (M - k) * np.log1p(-q) + log_w
        # log-sum-exp about the largest term (as scipy's logsumexp, without its overhead)
        top = terms.max()
        log_lik[i] = top + np.log(np.exp(terms - top).sum())
    log_post = stats.beta.logpdf(alpha, A, B) + log_lik
    dens = np.exp(log_post - log_post.max())
    dens /= integrate.trapezoid(dens, alpha)
    m = integrate.trapezoid(alpha * dens, alpha)
    v = integrate.trapezoid((alpha - m) ** 2 * dens, alpha)
    return m * (1 - m) / v - 1 - (a + b)


@pytest.fixture(scope="module")
def mixed(sub):
    return _caught(lambda: be.fit("I(mqm == 0) ~ chrf | system", sub, threshold="balanced"))


def test_n_eff_is_n_human_for_human_only_fits(raw, sub):
    for frame, n in ((raw, 527), (sub, N_HUMAN)):
        table = be.fit("I(mqm == 0) ~ 1 | system", frame).to_frame()
        assert (table["n_human"] == n).all() and len(table) == 17
        np.testing.assert_allclose(table["n_eff"], table["n_human"], rtol=0, atol=1e-9)
        np.testing.assert_allclose(table["metric_worth"], 0, atol=1e-9)


def test_n_eff_of_the_mixed_fit_matches_quadrature(mixed):
    res, _ = mixed
    table = res.to_frame()
    with_metric = table.index[table["n_metric"] > 0]
    assert sorted(with_metric) == sorted([*MT, "ref-A", "ref-D"])
    for g in with_metric:
        assert table.loc[g, "n_eff"] == pytest.approx(_quadrature_n_eff(res.counts.loc[g]),
                                                      rel=1e-4)
    # groups without metric ratings: their human ratings alone
    alone = table.drop(with_metric)
    np.testing.assert_allclose(alone["n_eff"], N_HUMAN, atol=1e-9)
    np.testing.assert_allclose(table["metric_worth"], table["n_eff"] - table["n_human"], atol=1e-12)


def test_n_eff_of_the_mixed_fit_is_at_least_n_human_where_the_rates_are_pinned(mixed):
    # Metric ratings cannot widen the posterior on average (the expected posterior variance only
    # falls with more data), but on one data set they can: where the paired rows leave
    # rho + eta <= 1 plausible, the metric-only ratings spread the posterior of alpha.  So
    # n_eff >= n_human holds for every group the identifiability message does not name, and a
    # group below n_human must be named there and in the summary.
    res, caught = mixed
    table = res.to_frame()
    message = str(caught[0].message)
    named = {g for g in table.index if f"{g} (" in message}
    for g, row in table.iterrows():
        if g not in named:
            assert row["n_eff"] >= row["n_human"], g
    below = table.index[table["metric_worth"] < 0].tolist()
    assert set(below) <= named
    if below:
        assert any(note.startswith(f"n_eff < n_human in {', '.join(below)}")
                   for note in res.summary().notes)
    assert table.loc[table["n_metric"] > 0, "metric_worth"].mean() > 0


def test_n_eff_with_known_strong_rates_matches_fisher_information():
    # rho = eta = 0.9 known: each metric-only rating carries Fisher information
    # (rho + eta - 1)^2 / (q (1 - q)) about alpha against 1 / (alpha (1 - alpha)) for a human one
    rho = eta = 0.9
    n, M, alpha = 100, 900, 0.65
    q = alpha * rho + (1 - alpha) * (1 - eta)
    res = be.fit_counts({"human_pos": round(n * alpha), "human_total": n,
                         "metric_pos": round(M * q), "metric_total": M},
                        rates={"rho": rho, "eta": eta})
    worth = M * (rho + eta - 1) ** 2 * alpha * (1 - alpha) / (q * (1 - q))
    assert res.to_frame()["n_eff"].iloc[0] == pytest.approx(n + worth, rel=0.02)


# ---------------------------------------------------------------------------------------------
# 8. names that match
# ---------------------------------------------------------------------------------------------

def test_table_names_match_between_summary_to_frame_and_rates(mixed):
    res, _ = mixed
    frame = res.to_frame()
    assert frame.index.name == "system"
    shown = res.summary().tables[0][1]
    assert shown.index.name == "system"
    assert set(shown.columns) <= set(frame.columns)
    assert {"estimate", "std_error", "n_eff"} <= set(shown.columns)
    assert not {"mean", "sd"} & set(shown.columns)
    rates = res.rates()
    for col in ("rho", "rho_lower", "rho_upper", "eta", "eta_lower", "eta_upper"):
        pd.testing.assert_series_equal(frame[col], rates[col])
    two = be.fit("I(mqm == 0) ~ 1 | system + seg_id", be.datasets.load_wmt21_ende().head(40))
    assert two.to_frame().index.name == "system:seg_id"


# ---------------------------------------------------------------------------------------------
# 9. the report plans from the fit, within a stated cap
# ---------------------------------------------------------------------------------------------

def test_report_plans_with_the_fit_within_a_stated_cap(mixed):
    from binaryeval import reports

    template = reports.report_template()
    assert "result.plan(pairs=\"neighbours\")" in template
    assert "sqrt" not in template
    res, _ = mixed
    mt_fit = _quiet(lambda: be.fit_counts(res.counts.loc[MT]))
    plan = _quiet(lambda: mt_fit.plan(pairs="neighbours")).to_frame()
    cap = plan.attrs["max_human"]
    assert cap == 100_000
    for _, row in plan.iterrows():
        if row["attainable"]:
            assert 0 <= row["more_human"] <= cap
            assert row["achieved"] <= row["epsilon"]
        else:
            assert pd.isna(row["more_human"])
            assert row["note"].startswith(f"not within {cap:,} more human ratings per system: ")


# ---------------------------------------------------------------------------------------------
# 10. the pandas habit df["ok"] = df.mqm == 0
# ---------------------------------------------------------------------------------------------

def test_formula_keeps_unrated_rows_missing_and_the_habit_shows_in_n_human(raw):
    rated = raw.groupby("system")["mqm"].count()
    good = be.fit("I(mqm == 0) ~ 1 | system", raw)
    table = good.to_frame()
    pd.testing.assert_series_equal(table["n_human"], rated.reindex(table.index).rename("n_human"),
                                   check_dtype=False)
    assert (table["n_human"] == 527).all()
    # the habit: unrated rows become False, so every row is a "rating" and alpha drops
    habit = raw.assign(ok=raw["mqm"] == 0)
    bad = be.fit("ok ~ 1 | system", habit).to_frame()
    assert (bad["n_human"] == 1002).all()
    counts = raw.assign(ok=raw["mqm"] == 0).groupby("system")["ok"].sum()
    for g in table.index:
        assert table.loc[g, "estimate"] == pytest.approx((counts[g] + 1) / (527 + 2), rel=1e-12)
        assert bad.loc[g, "estimate"] == pytest.approx((counts[g] + 1) / (1002 + 2), rel=1e-12)
    # the visible clue: n_human in the summary is the number of rows, not of ratings
    assert re.search(r"^Facebook-AI\s+1002\s", str(be.fit("ok ~ 1 | system", habit)), re.M)
    assert re.search(r"^Facebook-AI\s+527\s", str(good), re.M)
    # pandas' nullable comparison keeps the gap, as the formula does
    kept = raw.assign(ok=raw["mqm"].eq(0).where(raw["mqm"].notna()))
    assert (be.fit("ok ~ 1 | system", kept).to_frame()["n_human"] == 527).all()


def test_the_readme_quotes_the_n_eff_the_own_data_page_shows():
    # the README's example of a metric worth less than nothing (Nemo's n_eff below its 100 human
    # ratings) quoted 96.8, where the "Your own data" page, on the same sample, shows 99.9
    from pathlib import Path

    shipped = be.datasets.load_wmt21_ende()
    mt_systems = ["Facebook-AI", "HuaweiTSC", "Nemo", "Online-W", "UEdin", "VolcTrans-AT",
                  "VolcTrans-GLAT", "eTranslation"]
    df = (shipped.assign(mqm=shipped["mqm"].abs())
          .loc[lambda d: d["system"].isin(mt_systems)].reset_index(drop=True))
    rng = np.random.default_rng(2021)   # the page's sample of 100 human ratings per system
    keep = np.zeros(len(df), dtype=bool)
    for _, rows in df[df["mqm"].notna()].groupby("system").groups.items():
        keep[rng.choice(np.asarray(rows), 100, replace=False)] = True
    mine = df.assign(mqm=df["mqm"].where(keep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n_eff = be.fit("I(mqm == 0) ~ chrf | system", mine,
                       threshold="balanced").to_frame(rate_intervals=False).loc["Nemo", "n_eff"]
    assert n_eff < 100
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    quoted = re.search(r"100 human ratings per system, the sample of the \"Your own data\" "
                       r"page: Nemo (\d+\.\d)\)", " ".join(readme.split()))
    assert quoted is not None and quoted.group(1) == f"{n_eff:.1f}"
