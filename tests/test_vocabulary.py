"""One name per concept, one kind of value per name (the list: binaryeval._vocabulary).

The tests walk every public function and every public method of every public class, and every
table of every public result (``to_frame()``, the other tables a result gives, the summary's
tables, their index names and ``attrs`` keys), and check them against the vocabulary:

(a) every argument name is in the list;
(b) every result column, index name and ``attrs`` key is in the list;
(c) every argument fits its name's kind (annotation, default and documented meaning) and every
    column's values fit theirs, so a name used for two kinds of value fails;
(d) each check fails on a violation planted for it;

and, as before, no argument keeps an earlier spelling, ``alpha`` is only the model's rate, and row
accounts use ``n_rows``/``n_used``/``n_excluded``.
"""

from __future__ import annotations

import importlib
import inspect
import math
import numbers
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from binaryeval import _vocabulary as vocab
from binaryeval._validate import RENAMED
from binaryeval.errors import ParameterError

PUBLIC_MODULES = ["binaryeval", "binaryeval.plan", "binaryeval.correlation",
                  "binaryeval.favoritism", "binaryeval.binary", "binaryeval.validation",
                  "binaryeval.latent", "binaryeval.datasets", "binaryeval.reports"]

# scipy-compatible methods of the posterior keep scipy's names (code written for scipy.stats works)
SCIPY_METHODS = {"rvs", "pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf", "interval"}
SCIPY_NAMES = {("rvs", "random_state"), ("rvs", "size"), ("interval", "confidence"),
               ("moment", "order"), ("stats", "moments")} | \
    {("expect", a) for a in ("func", "args", "lb", "ub", "conditional", "kwds")} | \
    {(m, "x") for m in SCIPY_METHODS} | {(m, "q") for m in SCIPY_METHODS}

# names a row account may not use (the vocabulary: n_rows, n_used, n_excluded, excluded and,
# for which rows, excluded_rows)
ROW_SPELLINGS = {"rows_used", "rows_excluded", "rows_dropped", "n_dropped", "dropped",
                 "dropped_rows", "excluded_index", "excluded_labels", "left_out_rows",
                 "rows_left_out", "missing_rows"}

NAMES = vocab.by_name()


def _callables():
    seen = {}
    for modname in PUBLIC_MODULES:
        try:
            mod = importlib.import_module(modname)
        except ModuleNotFoundError:
            continue
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name, None)
            if inspect.isfunction(obj):
                seen[f"{obj.__module__}.{obj.__qualname__}"] = (name, obj)
            elif inspect.isclass(obj):
                for meth_name, meth in inspect.getmembers(obj):
                    if meth_name.startswith("_") or not callable(meth):
                        continue
                    if inspect.isfunction(meth) or inspect.ismethod(meth):
                        seen[f"{obj.__module__}.{obj.__qualname__}.{meth_name}"] = (
                            f"{name}.{meth_name}", meth)
    return sorted(seen.values(), key=lambda t: t[0])


CALLABLES = _callables()


def _parameters(func):
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p for p in params if p.name not in ("self", "cls")
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


# -- the documented meaning of an argument ---------------------------------------------------------
def _parameter_docs(func) -> dict[str, str]:
    """``name -> "type line + description"`` from the numpydoc Parameters section."""
    doc = inspect.getdoc(func) or ""
    m = re.search(r"^Parameters\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", doc, re.S | re.M)
    if not m:
        return {}
    out: dict[str, str] = {}
    current: list[str] = []
    text: list[str] = []

    def flush():
        for name in current:
            out[name] = "\n".join(text)

    for line in m.group(1).splitlines():
        if line and not line[0].isspace():
            flush()
            head = line.split(" : ", 1)[0]
            current = [n.strip().lstrip("*") for n in head.split(",")]
            text = [line]
        else:
            text.append(line)
    flush()
    return out


def _delegated(text: str) -> bool:
    # "As in :func:`detectable_difference`": documented once, where it is defined
    return bool(re.search(r"(?i)\b(as in|as for|see)\s+:(func|meth|class):", text))


# -- the kinds: what an annotation, a default and a column of each kind look like ---------------------
def _real(v):
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _whole(v, low):
    return _real(v) and float(v).is_integer() and v >= low


def _wholes(v, low):
    if isinstance(v, (tuple, list)):
        return len(v) > 0 and all(_whole(x, low) for x in v)
    return _whole(v, low)


NONE = (None,)
KIND_RULES = {
    # kind: (annotation words (None: any), default check, column check or None)
    "axes": (None, lambda d: d is None, None),
    "beta_pair": (("tuple", "Sequence"),
                  lambda d: d is None or (isinstance(d, (tuple, list)) and len(d) == 2
                                          and all(_real(x) and x > 0 for x in d)), None),
    "choice": (("str", "Literal"), lambda d: d is None or isinstance(d, str), "text"),
    "column": (("str",), lambda d: d is None, None),
    "columns": (("Sequence", "list"), lambda d: d is None, None),
    "concentration": (("float", "Any", "ndarray"),
                      lambda d: d is None or (_real(d) and d > 0), None),
    "correlation": (("float",), lambda d: d is None or (_real(d) and (math.isnan(d)
                                                                   or -1 <= d <= 1)),
                    "correlation"),
    "count": (("int", "Sequence", "Any"), lambda d: d is None or _wholes(d, 0), "count"),
    "counts": (("Any", "ArrayLike", "dict", "Mapping", "ndarray", "DataFrame"), lambda d: d is None, None),
    "data": (("DataFrame", "Any"), lambda d: False, None),
    "flag": (("bool",), lambda d: d is None or isinstance(d, bool), "flag"),
    "formula": (("str",), lambda d: False, None),
    "label": (("str",), lambda d: d is None, "text"),
    "labels": (("Sequence", "list", "tuple"), lambda d: d is None, None),
    "level": (("float",), lambda d: d is None or (_real(d) and 0 < d < 1), "level"),
    "mapping": (("dict", "Mapping"), lambda d: d is None, None),
    "method": (("str", "Literal"), lambda d: isinstance(d, str), "text"),
    "n_jobs": (("int",), lambda d: d is None, None),
    "number": (("float",), lambda d: d is None or _real(d), "number"),
    "object": (None, lambda d: True, None),
    "order": (("str", "Sequence"), lambda d: d is None or isinstance(d, str), None),
    "pairs": (("str", "Any", "Sequence"), lambda d: d is None or isinstance(d, str), None),
    "path": (("str", "Path"), lambda d: d is None or isinstance(d, (str, Path)), None),
    "probability": (("float",), lambda d: d is None or (_real(d) and 0 <= d <= 1),
                    "probability"),
    "rates": (("str", "Mapping", "Any"), lambda d: d == "estimate", None),
    "score_cut": (("Any", "float", "Mapping", "dict"), lambda d: d is None, "number"),
    "seed": (("Any", "int", "Generator"), lambda d: d is None, None),
    "side": (("Any", "ArrayLike", "str", "ndarray", "Sequence"), lambda d: d is None, "text"),
    "spread": (("float",), lambda d: d is None or (_real(d) and d >= 0), "spread"),
    "terms": (("str", "Sequence", "list"), lambda d: d is None, None),
    "text": (("str",), lambda d: d is None or isinstance(d, str), "text"),
    "tolerance": (("float",), lambda d: d is None or (_real(d) and d >= 0), None),
    "values": (None, lambda d: True, None),
    "whole": (("int", "tuple", "Sequence", "dict", "Any"),
              lambda d: d is None or _wholes(d, 1), "count"),
}


def _column_ok(kind_check: str, values: pd.Series) -> bool:
    v = values.dropna()
    if kind_check == "text":
        return all(isinstance(x, str) for x in v)
    if kind_check == "flag":
        return all(isinstance(x, (bool, np.bool_)) for x in v)
    if not (pd.api.types.is_numeric_dtype(v) or all(_real(x) for x in v)):
        return False
    x = v.astype(float)
    x = x[np.isfinite(x)]
    if kind_check == "probability":
        return bool(((x >= 0) & (x <= 1)).all())
    if kind_check == "level":
        return bool(((x > 0) & (x < 1)).all())
    if kind_check == "correlation":
        return bool(((x >= -1) & (x <= 1)).all())
    if kind_check == "spread":
        return bool((x >= 0).all())
    if kind_check == "count":
        return bool(((x >= 0) & (x == np.round(x))).all())
    return True  # "number"


# -- the checks, as functions of what they check (the API below, planted violations in (d)) ---------
def unlisted_arguments(callables, names=NAMES) -> list[str]:
    """(a) Arguments whose name is not a listed argument."""
    out = []
    for qual, func in callables:
        for p in _parameters(func):
            if (qual.rsplit(".", 1)[-1], p.name) in SCIPY_NAMES:
                continue
            entry = names.get(p.name)
            if entry is None or "argument" not in entry.roles:
                out.append(f"{qual}({p.name}=...): not in the vocabulary as an argument")
    return out


def argument_kind_problems(callables, names=NAMES) -> list[str]:
    """(c) Arguments whose annotation, default or documentation does not fit the name's kind."""
    out = []
    for qual, func in callables:
        docs = _parameter_docs(func)
        for p in _parameters(func):
            if (qual.rsplit(".", 1)[-1], p.name) in SCIPY_NAMES or p.name not in names:
                continue
            entry = names[p.name]
            words, default_ok, _ = KIND_RULES[entry.kind]
            where = f"{qual}({p.name}=...) [{entry.kind}: {vocab.KINDS[entry.kind]}]"
            if p.annotation is not p.empty and words is not None:
                ann = p.annotation if isinstance(p.annotation, str) else str(p.annotation)
                if not any(re.search(rf"\b{w}\b", ann) for w in words):
                    out.append(f"{where}: annotation {ann!r}")
            if p.default is not p.empty and not default_ok(p.default):
                out.append(f"{where}: default {p.default!r}")
            text = docs.get(p.name)
            if entry.doc and text is not None and not _delegated(text) \
                    and not re.search(entry.doc, text):
                out.append(f"{where}: documented as {text.strip()!r}, which does not say "
                           f"{entry.doc!r}")
    return out


def _names_in(frame: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The column and index names of a result table (matrices: their axis names only)."""
    names = [str(n) for n in list(frame.index.names) + [frame.columns.name] if n is not None]
    square = set(map(str, frame.columns)) <= set(map(str, frame.index))
    columns = [] if square or frame.columns.name is not None else \
        [str(c) for c in frame.columns if re.fullmatch(r"[a-z][a-z0-9_]*", str(c))]
    return columns, names


def unlisted_columns(frames: dict[str, pd.DataFrame], names=NAMES) -> list[str]:
    """(b) Columns, index names and attrs keys of result tables that are not listed as such."""
    out = []
    for label, frame in frames.items():
        columns, index_names = _names_in(frame)
        for c in columns + index_names:
            if c not in names or "column" not in names[c].roles:
                out.append(f"{label}: column {c!r} not in the vocabulary")
        for key in frame.attrs:
            if key not in names or "attrs" not in names[key].roles:
                out.append(f"{label}: attrs key {key!r} not in the vocabulary")
    return out


def column_kind_problems(frames: dict[str, pd.DataFrame], names=NAMES) -> list[str]:
    """(c) Columns whose values do not fit the name's kind."""
    out = []
    for label, frame in frames.items():
        columns, _ = _names_in(frame)
        for c in columns:
            entry = names.get(c)
            if entry is None:
                continue
            check = KIND_RULES[entry.kind][2]
            if check is not None and not _column_ok(check, frame[c]):
                out.append(f"{label}: column {c!r} holds {frame[c].head(3).tolist()!r}, not "
                           f"{entry.kind} ({vocab.KINDS[entry.kind]})")
    return out


def old_spellings(callables) -> list[str]:
    """Arguments spelled an earlier way (``RENAMED``), and ``alpha`` for anything but the rate."""
    out = []
    for qual, func in callables:
        params = [p.name for p in _parameters(func)]
        for p in params:
            if (qual.rsplit(".", 1)[-1], p) in SCIPY_NAMES:
                continue
            if p == "draws" and "chains" in params:
                continue  # an MCMC sampler's draws per chain (the vocabulary: draws, chains)
            if p in RENAMED:
                out.append(f"{qual}({p}=...): the vocabulary's name is {RENAMED[p]!r}")
    return out


# -- the tables of every public result ---------------------------------------------------------------
def _result_frames() -> dict[str, pd.DataFrame]:
    sys.path.insert(0, str(Path(__file__).parent))
    from test_protocol import CASES

    frames = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, make in sorted(CASES.items()):
            res = make()
            frames[f"{name}.to_frame()"] = _generic(res.to_frame(), res)
            for meth in ("interval", "rates", "naive", "by_system", "favi", "compare",
                         "favoured", "plan", "dependence"):
                if not callable(getattr(res, meth, None)):
                    continue
                try:
                    got = getattr(res, meth)()
                except TypeError:
                    continue  # needs arguments (a posterior's scipy-style interval)
                except ParameterError:
                    continue  # not for this fit (the dependence check of one metric)
                if hasattr(got, "to_frame") and not isinstance(got, pd.DataFrame):
                    got = got.to_frame()
                if isinstance(got, pd.DataFrame):
                    frames[f"{name}.{meth}()"] = got = _generic(got, res)
                    if isinstance(got.attrs.get("summary"), pd.DataFrame):
                        frames[f"{name}.{meth}().attrs['summary']"] = got.attrs["summary"]
            for title, table in res.summary().tables:
                frames[f"{name}.summary() {title!r}"] = _generic(table, res)
    return frames


def _generic(frame: pd.DataFrame, res) -> pd.DataFrame:
    """A table indexed by the data's grouping column (``group_name``, e.g. ``system``) with
    that index named ``group``: the name comes from the user's data, not the vocabulary."""
    name = getattr(res, "group_name", None)
    if name in (None, "group") or name not in (frame.index.names or []):
        return frame
    out = frame.copy()
    out.index = out.index.set_names(["group" if n == name else n for n in out.index.names])
    out.attrs.update(frame.attrs)
    return out


@pytest.fixture(scope="module")
def result_frames():
    return _result_frames()


# -- the list itself ---------------------------------------------------------------------------------
def test_the_list_is_consistent():
    names = [n.name for n in vocab.NAMES]
    assert len(names) == len(set(names)), "a name is listed twice"
    assert set(KIND_RULES) == set(vocab.KINDS), "every kind needs its rules here"
    for n in vocab.NAMES:
        assert n.kind in vocab.KINDS and n.roles and \
            n.roles <= {"argument", "column", "attrs", "option"}
        for old in n.replaces:
            # an old spelling is no current name, except scipy's and the sampler's own draws
            assert old not in NAMES or old in ("draws", "random_state"), (n.name, old)
    assert RENAMED == vocab.renamed("argument")


def test_the_walk_finds_the_api():
    names = {n for n, _ in CALLABLES}
    assert {"fit", "fit_counts", "favi", "correlate", "BinaryFit.compare", "fit_preferences",
            "LatentFit.ranking", "detectable_difference", "make_report"} <= names


# -- (a) every argument is listed --------------------------------------------------------------------
def test_every_argument_is_in_the_vocabulary():
    problems = unlisted_arguments(CALLABLES)
    assert not problems, "\n".join(problems)


# -- (b) every result column, index name and attrs key is listed -----------------------------------
def test_every_result_column_is_in_the_vocabulary(result_frames):
    assert len(result_frames) > 40  # the walk reaches every result's tables
    problems = unlisted_columns(result_frames)
    assert not problems, "\n".join(problems)


# -- (c) one kind of value per name ------------------------------------------------------------------
def test_every_argument_fits_its_kind():
    problems = argument_kind_problems(CALLABLES)
    assert not problems, "\n".join(problems)


def test_every_result_column_fits_its_kind(result_frames):
    problems = column_kind_problems(result_frames)
    assert not problems, "\n".join(problems)


def test_no_earlier_spelling_and_alpha_is_the_rate():
    problems = old_spellings(CALLABLES)
    assert not problems, "\n".join(problems)
    for qual, func in CALLABLES:
        if "alpha" in [p.name for p in _parameters(func)]:
            doc = _parameter_docs(func).get("alpha", "")
            assert "adequate" in doc or _delegated(doc), (
                f"{qual}: 'alpha' is the model's rate of adequate outputs; a significance "
                "threshold is 'sig_level'")


# -- (d) each check fails on a planted violation ----------------------------------------------------
def _planted_ranking(threshold: float = 0.95):
    """A ranking.

    Parameters
    ----------
    threshold : float
        Posterior probability a win needs.
    """


def _planted_latent(prior: float = 1.0):
    """A latent posterior.

    Parameters
    ----------
    prior : float
        Dirichlet concentration of the class shares.
    """


def _planted_plan(rates: str = "known", n_human: int = 10, confidence: float = 0.9,
                  widget_count: int = 3):
    """A plan."""


def _aspect(problem: str) -> tuple[str, str]:
    """("function.argument", "annotation" | "default" | "documented") of a kind problem."""
    func, rest = problem.split("(", 1)
    return f"{func}.{rest.split('=')[0]}", problem.split("]: ", 1)[1].split(" ")[0]


def test_each_check_fails_on_a_planted_violation():
    # (a) an argument outside the list
    assert unlisted_arguments([("plan", _planted_plan)]) == [
        "plan(confidence=...): not in the vocabulary as an argument",
        "plan(widget_count=...): not in the vocabulary as an argument"]
    # (b) a column and an attrs key outside the list (a misspelt estimate, an unnamed setting)
    frame = pd.DataFrame({"estimate": [0.5], "estimat": [0.5], "std_error": [0.1]})
    frame.attrs["confidence"] = 0.95
    assert unlisted_columns({"planted": frame}) == [
        "planted: column 'estimat' not in the vocabulary",
        "planted: attrs key 'confidence' not in the vocabulary"]
    # (c) a name with a second meaning: a probability called threshold (its documentation is
    # not a score cut), a Dirichlet concentration called prior (annotation, default and
    # documentation are not a Beta pair), a word rates does not take
    problems = argument_kind_problems([("ranking", _planted_ranking),
                                       ("latent", _planted_latent), ("plan", _planted_plan)])
    assert [_aspect(p) for p in problems] == [
        ("ranking.threshold", "default"), ("ranking.threshold", "documented"),
        ("latent.prior", "annotation"), ("latent.prior", "default"),
        ("latent.prior", "documented"), ("plan.rates", "default")]
    # ... and in a result: a p-value above 1, a count that is not whole, an interval bound as text
    bad = pd.DataFrame({"p_value": [0.2, 1.5], "n_human": [10, 2.5], "lower": ["a", "b"]})
    assert [p.split("'")[1] for p in column_kind_problems({"planted": bad})] == [
        "p_value", "n_human", "lower"]
    # an earlier spelling
    assert old_spellings([("plan", _planted_plan)]) == [
        "plan(confidence=...): the vocabulary's name is 'level'"]


def test_the_kind_checks_see_the_real_second_meanings():
    # What the package had before its names were made one meaning each, as the checks see it:
    # the latent model's Dirichlet concentration under the name of fit's Beta prior, and a
    # probability under the name of a score cut.
    def fit_preferences(formula: str, prior=1.0, rate_prior=1.0):
        """Fit.

        Parameters
        ----------
        prior : float or array-like of shape (3,)
            Dirichlet concentration of the preference shares.
        rate_prior : float or array-like of shape (3, J)
            Dirichlet concentration of each row of the confusion matrix.
        """

    def ranking(threshold: float = 0.95):
        """Rank.

        Parameters
        ----------
        threshold : float
            Posterior probability a win needs (0.5 < threshold < 1).
        """

    problems = argument_kind_problems([("fit_preferences", fit_preferences),
                                       ("ranking", ranking)])
    assert {_aspect(p)[0] for p in problems} == {
        "fit_preferences.prior", "fit_preferences.rate_prior", "ranking.threshold"}


# -- the command line speaks the same vocabulary -------------------------------------------------------
def _cli_options():
    import argparse

    from binaryeval.cli import build_parser

    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return [(command, action) for command, parser in sub.choices.items()
            for action in parser._actions
            if action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction)]


def cli_problems(options, names=NAMES) -> list[str]:
    """Options whose name is not in the list, and one option taking different values."""
    out, seen = [], {}
    for command, action in options:
        flag = action.option_strings[0] if action.option_strings else action.dest
        entry = names.get(action.dest)
        if entry is None or not entry.roles & {"argument", "option"}:
            out.append(f"binaryeval {command} {flag}: {action.dest!r} not in the vocabulary")
            continue
        if action.option_strings and flag != "--" + action.dest.replace("_", "-") \
                and not (command == "plan" and action.dest == "what"):
            out.append(f"binaryeval {command} {flag}: spelled unlike {action.dest!r}")
        if action.dest == "method":
            continue  # each command's own methods
        values = (getattr(action.type, "__qualname__", action.type),
                  frozenset(action.choices or ()), action.nargs)
        first = seen.setdefault(action.dest, (command, values))
        if first[1] != values:
            out.append(f"binaryeval {command} {flag} takes other values than in "
                       f"binaryeval {first[0]}: {values} != {first[1]}")
    return out


def test_every_cli_option_is_in_the_vocabulary_and_takes_the_same_values():
    options = _cli_options()
    assert {c for c, _ in options} >= {"fit", "plan", "favi", "correlate", "report"}
    problems = cli_problems(options)
    assert not problems, "\n".join(problems)


def test_the_cli_check_fails_on_a_planted_violation():
    import argparse

    fit, plan = argparse.ArgumentParser(), argparse.ArgumentParser()
    fit.add_argument("--rates", type=str)
    plan.add_argument("--rates", choices=["estimate", "known"])
    plan.add_argument("--n-boot", type=int)
    plan.add_argument("--ties", dest="sign_test_ties")
    options = [("fit", a) for a in fit._actions[1:]] + [("plan", a) for a in plan._actions[1:]]
    problems = cli_problems(options)
    assert [p.split(": ")[0] if "takes" not in p else "takes" for p in problems] == [
        "takes", "binaryeval plan --n-boot", "binaryeval plan --ties"]


# -- the page shows the list -------------------------------------------------------------------------
def test_the_vocabulary_page_shows_the_list():
    page = (Path(__file__).parents[1] / "vignettes" / "vocabulary.qmd").read_text()
    assert "binaryeval._vocabulary" in page and "table(" in page
    # no hand-kept copy of the names beside it
    assert not re.search(r"^\|\s*`", page, re.M)
    t = vocab.table()
    assert list(t.columns) == ["name", "kind", "value", "meaning", "where", "not"]
    assert len(t) == len(vocab.NAMES)
    assert t.set_index("name").loc["prob_greater", "not"] == "prob_1_better"


# -- row accounting and old spellings raise ---------------------------------------------------------
def test_row_accounting_names():
    for modname in PUBLIC_MODULES:
        try:
            mod = importlib.import_module(modname)
        except ModuleNotFoundError:
            continue
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name, None)
            if inspect.isclass(obj):
                attrs = set(dir(obj)) | set(getattr(obj, "__dataclass_fields__", {}))
                assert not attrs & ROW_SPELLINGS, f"{name}: use n_rows/n_used/n_excluded"


def test_every_result_with_a_row_account_says_which_rows_by_one_name():
    # a result that counts the rows it left out also says which: excluded_rows, everywhere
    with_account = set()
    for modname in PUBLIC_MODULES:
        try:
            mod = importlib.import_module(modname)
        except ModuleNotFoundError:
            continue
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name, None)
            if inspect.isclass(obj) and "n_excluded" in dir(obj):
                with_account.add(name)
                assert "excluded_rows" in dir(obj), f"{name}: give excluded_rows"
    assert {"BinaryFit", "LatentFit", "PreferenceFit", "FaviResult", "CorrelationResult",
            "JudgeBias", "RaterFit"} <= with_account


def test_old_spellings_raise_naming_the_new_one():
    import binaryeval as be
    from binaryeval.errors import BinaryEvalError

    with pytest.raises(BinaryEvalError, match="'estimate'"):
        be.plan.detectable_difference(0.6, 0.8, n_human=100, rates="estimated")
    with pytest.raises(BinaryEvalError, match=r"rates=\{'rho': 0.8, 'eta': 0.8\}"):
        be.plan.detectable_difference(0.6, 0.8, n_human=100, rates="known")
    with pytest.raises(TypeError, match="sig_level"):
        be.plan.detectable_difference(0.6, 0.8, n_human=100, gamma=0.05)
    with pytest.raises(TypeError, match="n_resamples"):
        be.plan.simulate(0.6, 0.8, n_human=100, reps=10)
    with pytest.raises(TypeError, match="level"):
        be.williams_test(0.9, 0.8, 0.7, 20).confidence_interval(confidence_level=0.9)
    with pytest.raises(TypeError, match="'prior', which is now 'share_concentration'"):
        be.latent_posterior([[40, 10], [5, 45]], prior=2.0)
    with pytest.raises(TypeError, match="'rate_prior', which is now 'rate_concentration'"):
        be.latent_posterior([[40, 10], [5, 45]], rate_prior=2.0)
    with pytest.raises(TypeError, match="'prior', which is now 'cell_concentration'"):
        be.preference_confusion(list("++=-"), list("+=--")).interval(prior=1.0)


def test_order_takes_the_same_values_in_correlation_and_the_fits():
    # significance_matrix took order="r" / "formula" where every fit takes "estimate" / "input"
    sys.path.insert(0, str(Path(__file__).parent))
    from test_protocol import CASES

    corr, fit = CASES["CorrelationResult"](), CASES["BinaryFit"]()
    by_r = list(corr.r.sort_values(ascending=False).index)
    assert list(corr.significance_matrix().index) == by_r
    assert list(corr.significance_matrix(order="estimate").index) == by_r
    assert list(corr.significance_matrix(order="input").index) == list(corr.metrics)
    for old, new in (("r", "estimate"), ("formula", "input")):
        with pytest.raises(ParameterError, match=f"order='{old}' is now spelled '{new}'"):
            corr.significance_matrix(order=old)
    for bad in ("bogus",):
        for call in (corr.significance_matrix, fit.compare, fit.prob_greater_matrix):
            with pytest.raises(ParameterError, match="use one of 'estimate', 'input'"):
                call(order=bad)


def test_sig_level_takes_the_same_values_everywhere():
    # compare(), favi, correlate's tests and favi's ranking took sig_level=0.95 (a coverage given
    # by mistake) and called nearly every pair significant, while the planners refused it
    sys.path.insert(0, str(Path(__file__).parent))
    from test_protocol import CASES

    import binaryeval as be

    fit, favi, corr = CASES["BinaryFit"](), CASES["FaviResult"](), CASES["CorrelationResult"]()
    scores = pd.DataFrame({"item": np.repeat(np.arange(6), 2), "system": ["A", "B"] * 6,
                           "human": [3, 1, 2, 2, 4, 1, 3, 3, 2, 1, 5, 2],
                           "metric": [0.9, 0.2, 0.5, 0.6, 0.8, 0.1, 0.4, 0.4, 0.7, 0.3, 0.9, 0.5]})
    calls = {"BinaryFit.compare": lambda s: fit.compare(sig_level=s),
             "BinaryFit.plan": lambda s: fit.plan(sig_level=s),
             "FaviResult.favoured": lambda s: favi.favoured(sig_level=s),
             "FaviResult.ranking": lambda s: favi.ranking(sig_level=s),
             "CorrelationResult.pairwise": lambda s: corr.pairwise(sig_level=s),
             "favi": lambda s: be.favi("human ~ metric | system", scores, item="item",
                                       sig_level=s),
             "detectable_difference": lambda s: be.plan.detectable_difference(
                 0.6, 0.8, n_human=100, sig_level=s)}
    for name, call in calls.items():
        call(0.05)
        with pytest.raises(ParameterError, match=r"sig_level=0.95 is a significance level.*"
                           r"give sig_level=0.05"):
            call(0.95)
            pytest.fail(name)
    # the default, 1 - level, is the round number the fit was given
    assert fit.compare().to_frame().attrs["sig_level"] == 0.05
    assert fit.compare().sig_level == 0.05 and fit.plan().to_frame().attrs["sig_level"] == 0.05


def test_adjust_takes_the_same_values_everywhere_and_lists_them():
    # compare() answered adjust="holms" with statsmodels' "method not recognized" (and took any
    # word when no pair had a p-value); favi's ranking gave three examples
    sys.path.insert(0, str(Path(__file__).parent))
    from test_protocol import CASES

    fit, favi = CASES["BinaryFit"](), CASES["FaviResult"]()
    for call in (lambda a: fit.compare(adjust=a), lambda a: favi.ranking(adjust=a)):
        with pytest.raises(ParameterError, match=r"adjust='holms': use None or one of "
                           r"'bonferroni', .*'holm', .*'fdr_bh'"):
            call("holms")
        for ok in ("holm", "fdr_bh", "b"):  # statsmodels' short aliases work as before
            call(ok)
    adjusted = fit.compare(adjust="b").to_frame()
    assert adjusted.attrs["adjust"] == "b" and "p_adjusted" in adjusted


def test_threshold_rules_are_one_list_and_each_error_names_its_argument():
    # RocResult.plot(mark="bogus") said "threshold rule 'bogus' is unknown", naming no argument
    import matplotlib.pyplot as plt

    import binaryeval as be

    rng = np.random.default_rng(2)
    h = rng.integers(0, 2, 60)
    df = pd.DataFrame({"human": h, "score": h + rng.normal(0, 1, 60)})
    roc = be.roc("human ~ score", df)
    for rule in ("balanced", "youden"):
        be.fit("human ~ score", df, threshold=rule)
        be.choose_threshold(df["human"], df["score"], rule=rule)
        roc.plot(mark=rule)
    plt.close("all")
    for name, call in (("threshold", lambda: be.fit("human ~ score", df, threshold="mid")),
                       ("rule", lambda: be.choose_threshold(df["human"], df["score"],
                                                            rule="mid")),
                       ("mark", lambda: roc.plot(mark="mid"))):
        with pytest.raises(ParameterError, match=rf"{name}='mid'.*'balanced', 'youden'"):
            call()
    plt.close("all")


def test_pairs_are_oriented_by_the_two_documented_rules():
    # comparisons of per-group estimates follow the fit's order (highest estimate first);
    # rated pairs (favi) put first the group that comes first in natural order
    import binaryeval as be

    fit = be.fit_counts({"B": {"human_pos": 40, "human_total": 100},
                         "sys10": {"human_pos": 70, "human_total": 100}})
    row = fit.compare().to_frame().iloc[0]
    assert (row.group_1, row.group_2) == ("sys10", "B") and row["diff"] > 0
    row = fit.compare(order="input").to_frame().iloc[0]
    assert (row.group_1, row.group_2) == ("B", "sys10") and row["diff"] < 0
    df = pd.DataFrame({"seg": [0, 0, 1, 1, 2, 2], "system": ["sys10", "B"] * 3,
                       "h": [3, 1, 3, 1, 1, 3], "m": [2, 1, 2, 1, 2, 1]})
    res = be.favi("h ~ m | system", df, item="seg")
    assert [res.systems[i] for i in res.pair_index[0]] == ["B", "sys10"]


def test_rates_is_documented_with_every_value_each_fit_takes():
    # fit_latent and fit_preferences take rates="hierarchical" (partial pooling) but their
    # docstrings listed "estimate", "pooled" or array-like only
    from binaryeval import fit
    from binaryeval._validate import RATES
    from binaryeval.latent import fit_latent, fit_preferences, latent_posterior

    for func in (fit, fit_latent, fit_preferences, latent_posterior):
        (line,) = re.findall(r"^rates : (.*)$", inspect.getdoc(func), flags=re.M)
        for value in RATES:
            assert f'"{value}"' in line, (func.__name__, value, line)
