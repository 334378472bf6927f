"""One orientation for every pair of systems (binaryeval._pairs), in every table of pairs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import binaryeval as be
from binaryeval._pairs import orient_codes, orient_pair, pair_indices, system_order


def test_system_order_is_natural_and_case_insensitive():
    # by hand: digits compare as numbers, letters without regard to case, spelling breaks ties
    names = ["sys10", "eTranslation", "Nemo", "sys2", "ref-A", "Facebook-AI", "Sys2"]
    assert system_order(names) == ("eTranslation", "Facebook-AI", "Nemo", "ref-A", "Sys2",
                                   "sys2", "sys10")
    # ASCII order would put every capitalised name first
    assert sorted(names)[:3] == ["Facebook-AI", "Nemo", "Sys2"]


@pytest.mark.parametrize("a,b", [("sys10", "sys2"), ("Nemo", "eTranslation"), ("ref-A", "UEdin"),
                                 ("x", "X")])
def test_orient_pair_agrees_with_system_order_either_way_round(a, b):
    first, second = system_order([a, b])
    assert orient_pair(a, b) == (first, second, a != first)
    assert orient_pair(b, a) == (first, second, b != first)
    with pytest.raises(ValueError, match="two different systems"):
        orient_pair(a, a)


def test_orient_codes_and_pair_indices_follow_the_same_rule():
    systems = system_order(["c", "B", "a10", "a9"])
    a = np.array([0, 3, 2, 1])
    b = np.array([3, 0, 1, 2])
    lo, hi, swapped = orient_codes(a, b)
    for i in range(a.size):
        g1, g2, sw = orient_pair(systems[a[i]], systems[b[i]])
        assert (systems[lo[i]], systems[hi[i]], bool(swapped[i])) == (g1, g2, sw)
    ia, ib = pair_indices(len(systems))
    assert [orient_pair(systems[i], systems[j])[2] for i, j in zip(ia, ib, strict=True)] == \
        [False] * 6


def _wmt21_ende_30_percent():
    ende = be.datasets.load_wmt21_ende()
    rated = ende.groupby("system")[["mqm", "chrf"]].count().min(axis=1) > 0
    data = ende[ende["system"].isin(rated[rated].index)].copy()
    keep = np.random.default_rng(0).random(len(data)) <= 0.3
    data.loc[~keep, "mqm"] = np.nan
    return data


def test_favi_and_fit_preferences_orient_pairs_alike_on_wmt21():
    # The shipped WMT21 en-de MQM data (10 systems with MQM and chrF, 30 % of the MQM ratings
    # kept): favi and fit_preferences list the same 45 pairs, in the same order and orientation.
    # Before one rule oriented both, 13 of the 45 came out the other way round (favi ordered the
    # names case-insensitively, fit_preferences in ASCII order: 'eTranslation' vs 'Nemo').
    data = _wmt21_ende_30_percent()
    fv = be.favi("mqm ~ chrf | system", data, item="seg_id", unpaired="count")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a short sampler run: convergence is not the point here
        pf = be.fit_preferences("mqm ~ chrf | system", data, item="seg_id", draws=50, chains=1,
                                seed=1)
    frame = fv.to_frame()
    favi_pairs = list(zip(frame["group_1"], frame["group_2"], strict=True))
    assert len(favi_pairs) == 45
    assert favi_pairs == pf.pairs
    assert pf.pairs == [orient_pair(a, b)[:2] for a, b in pf.pairs]
    assert ("eTranslation", "Nemo") in pf.pairs
    pref = pf.to_frame()
    assert pref.index.names == ["group_1", "group_2"]
    assert list(pref.index) == favi_pairs
    # both accept a pair either way round and orient the answer as asked
    assert fv.confusion("Nemo", "eTranslation").favi == -fv.confusion("eTranslation", "Nemo").favi
    d = pf.pair_draws("Nemo", "eTranslation")["diff"]
    np.testing.assert_array_equal(d, -pf.pair_draws("eTranslation", "Nemo")["diff"])


def test_old_pair_argument_names_say_the_new_ones():
    data = _wmt21_ende_30_percent()
    fv = be.favi("mqm ~ chrf | system", data, item="seg_id", unpaired="count")
    with pytest.raises(be.InputTypeError, match="'group_1'"):
        fv.confusion(system_1="Nemo", group_2="eTranslation")
