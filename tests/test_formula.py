import numpy as np
import pandas as pd
import pytest

from binaryeval.errors import DataError, FormulaError
from binaryeval.formula import parse_formula


@pytest.fixture
def df():
    return pd.DataFrame({"mqm": [0.0, -1.0, np.nan, 0.0], "chrf": [0.6, 0.2, 0.9, np.nan],
                         "system": ["a", "b", "a", "b"], "lang": ["x", "x", "y", "y"]})


def test_split_sides_and_groups():
    f = parse_formula("I(mqm == 0) ~ I(chrf > 0.5) | system + lang")
    assert f.lhs_names == ["I(mqm == 0)"]
    assert f.rhs_names == ["I(chrf > 0.5)"]
    assert f.group_names == ["system", "lang"]


def test_bar_inside_call_is_not_grouping():
    f = parse_formula("h ~ I(a | b)")
    assert f.rhs_names == ["I(a | b)"] and f.group_names == []


def test_intercept_rhs_means_no_metric():
    assert parse_formula("h ~ 1 | s").rhs == []


def test_missing_propagates_through_expressions(df):
    mf = parse_formula("I(mqm == 0) ~ I(chrf > 0.5) | system").evaluate(df)
    lhs = mf.lhs.iloc[:, 0]
    rhs = mf.rhs.iloc[:, 0]
    # NaN == 0 would be False in plain pandas; here it stays missing
    assert lhs.isna().tolist() == [False, False, True, False]
    assert rhs.isna().tolist() == [False, False, False, True]
    assert bool(lhs[0]) and not bool(lhs[1])


def test_multiple_groups_are_joined(df):
    mf = parse_formula("mqm ~ chrf | system + lang").evaluate(df)
    assert mf.group.tolist() == ["a:x", "b:x", "a:y", "b:y"]


@pytest.mark.parametrize("text, fragment, caret", [
    ("human ~ metrc | system", "unknown name 'metrc'", "^^^^^"),
    ("human metric", "no '~'", None),
    ("human ~ metric | a | b", "more than one top-level '|'", None),
    ("human ~ (metric | system", "unclosed '('", None),
    ("human ~ | system", "nothing right of '~'", None),
    ("human ~ metric |", "nothing after '|'", None),
    ("human ~ metric + ", "empty term", None),
])
def test_bad_formulas(text, fragment, caret):
    data = pd.DataFrame({"human": [1], "metric": [1], "system": ["a"], "a": [1], "b": [1]})
    with pytest.raises(FormulaError) as info:
        parse_formula(text).evaluate(data)
    assert fragment in str(info.value)
    if caret:
        lines = str(info.value).splitlines()
        assert lines[-1].strip() == caret
        # the caret stands under the misspelt name
        assert lines[-2].index("metrc") == lines[-1].index("^")


def test_close_match_suggestion():
    with pytest.raises(FormulaError, match="did you mean 'Metric'"):
        parse_formula("human ~ metric").evaluate(pd.DataFrame({"human": [1], "Metric": [1]}))


def test_data_must_be_frame():
    with pytest.raises(DataError, match="DataFrame"):
        parse_formula("h ~ m").evaluate({"h": [1], "m": [1]})
