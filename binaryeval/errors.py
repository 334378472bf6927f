"""The error hierarchy of binaryeval.

Every error the package raises on bad input is a subclass of :class:`BinaryEvalError` and of the
matching built-in (``ValueError`` or ``TypeError``), so ``except ValueError`` keeps working while
``except binaryeval.BinaryEvalError`` catches exactly the package's own complaints.  Messages name
the argument or column, the offending value and how to fix it.
"""

from __future__ import annotations

__all__ = [
    "BinaryEvalError",
    "BinaryEvalWarning",
    "ConvergenceWarning",
    "CountsError",
    "DataError",
    "DirectionWarning",
    "FaviUndefinedWarning",
    "FormulaError",
    "IdentifiabilityWarning",
    "InputTypeError",
    "OutputError",
    "ParameterError",
    "PoolingWarning",
    "RenderError",
    "SmallSampleWarning",
    "UnpairedItemsWarning",
]


class BinaryEvalError(Exception):
    """Base class of every error raised by binaryeval.

    Examples
    --------
    >>> import binaryeval as be
    >>> try:
    ...     be.alpha_posterior(human_pos=5, human_total=3)
    ... except be.BinaryEvalError as err:
    ...     print(type(err).__name__)
    CountsError
    """


class DataError(BinaryEvalError, ValueError):
    """A data frame, column or value cannot be used as given.

    Examples
    --------
    >>> import pandas as pd
    >>> import binaryeval as be
    >>> be.fit("h ~ m", pd.DataFrame({"h": [1, 2], "m": [1, 0]}))
    Traceback (most recent call last):
    ...
    binaryeval.errors.DataError: column 'h' (human rating) must be binary (1 = adequate, 0 = not, or booleans) but holds 2.0 (row 1); binarise it in the formula: I(h == 1) if 1 marks an adequate output, or a cut of the scale (1 to 2), e.g. I(h >= 2)
    """


class InputTypeError(BinaryEvalError, TypeError):
    """An argument has the wrong type (e.g. a string where a number is needed).

    Examples
    --------
    >>> import binaryeval as be
    >>> be.alpha_posterior(human_pos="6", human_total=10)
    Traceback (most recent call last):
    ...
    binaryeval.errors.InputTypeError: human_pos='6' is a str; counts are whole numbers of ratings, e.g. human_pos=12
    """


class ParameterError(BinaryEvalError, ValueError):
    """A scalar parameter (probability, level, size, option) is out of range or unknown.

    Examples
    --------
    >>> import binaryeval as be
    >>> be.alpha_posterior(human_pos=6, human_total=10).interval(95)
    Traceback (most recent call last):
    ...
    binaryeval.errors.ParameterError: level=95 must lie strictly between 0 and 1; for a 95% interval pass level=0.95
    """


class CountsError(BinaryEvalError, ValueError):
    """Sufficient statistics are negative, non-integer or inconsistent.

    Examples
    --------
    >>> import binaryeval as be
    >>> be.fit_counts({"human_pos": 5, "human_total": 3})
    Traceback (most recent call last):
    ...
    binaryeval.errors.CountsError: group 'all': human_pos=5 exceeds human_total=3; positives cannot outnumber ratings
    """


class FormulaError(BinaryEvalError, ValueError):
    """A model formula cannot be parsed or names unknown columns.

    Parameters
    ----------
    message : str
        What is wrong and how to fix it.
    formula : str, optional
        The formula text; shown with a caret under the offending part.
    position : int or tuple of (start, end), optional
        Character offset(s) of the offending part in ``formula``.

    Examples
    --------
    >>> import pandas as pd
    >>> import binaryeval as be
    >>> be.fit("h ~ metirc", pd.DataFrame({"h": [1, 0], "metric": [1, 0]}))
    Traceback (most recent call last):
    ...
    binaryeval.errors.FormulaError: unknown name 'metirc' in the formula (not a column of data); did you mean 'metric'?
        h ~ metirc
            ^^^^^^
    """

    def __init__(self, message: str, formula: str | None = None,
                 position: int | tuple[int, int] | None = None) -> None:
        self.formula = formula
        self.position = position
        text = message
        if formula is not None:
            if position is None:
                text = f"{message}\n    {formula}"
            else:
                start, end = (position, position + 1) if isinstance(position, int) else position
                end = max(end, start + 1)
                text = f"{message}\n    {formula}\n    {' ' * start}{'^' * (end - start)}"
        super().__init__(text)


class BinaryEvalWarning(UserWarning):
    """Base class of the package's warnings.

    Examples
    --------
    >>> import warnings
    >>> import binaryeval as be
    >>> issubclass(be.IdentifiabilityWarning, be.BinaryEvalWarning)
    True
    >>> warnings.simplefilter("error", be.BinaryEvalWarning)  # turn them into errors
    >>> warnings.resetwarnings()
    """


class IdentifiabilityWarning(BinaryEvalWarning):
    """The metric's rates leave alpha (nearly) unidentified: P(rho + eta <= 1) is high.

    One warning per fit lists the groups concerned, with advice that fits the case.

    Examples
    --------
    >>> import warnings
    >>> import binaryeval as be
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = be.fit_counts({"metric_pos": 500, "metric_total": 1000, "tp": 20, "fn": 30,
    ...                          "tn": 20, "fp": 30})
    >>> caught[0].category.__name__, len(caught)
    ('IdentifiabilityWarning', 1)
    """


class PoolingWarning(BinaryEvalWarning):
    """Rates pooled over groups (``rates="pooled"``) that the paired items say differ.

    The metric errs differently between the groups, so one confusion matrix misreads some.

    The check before pooling is an exact conditional test of homogeneity of the groups' paired
    confusion counts (:mod:`binaryeval._pooling`); when it rejects at ``sig_level`` 0.01 the
    warning names the groups that deviate most and the fix, ``rates="estimate"``.

    Examples
    --------
    >>> import warnings
    >>> import binaryeval as be
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = be.fit_counts({"A": {"metric_pos": 60, "metric_total": 100, "tp": 40,
    ...                                "fn": 10, "tn": 40, "fp": 10},
    ...                          "B": {"metric_pos": 60, "metric_total": 100, "tp": 40,
    ...                                "fn": 10, "tn": 15, "fp": 35}}, rates="pooled")
    >>> [w.category.__name__ for w in caught]
    ['PoolingWarning']
    """


class ContradictionWarning(BinaryEvalWarning):
    """The metric-only ratings contradict the paired rows: no alpha reconciles them.

    For any ``alpha`` the metric accepts an output with probability ``alpha rho + (1 - alpha)
    (1 - eta)``, which lies between ``rho`` and ``1 - eta``.  When the metric-only acceptance rate
    is outside that range (each end at its 99.9 % credible bound from the paired rows), the two
    sets of ratings disagree about the metric itself: different metric versions or thresholds, a
    label coded the other way round, or metric-only items from another population.  The posterior
    then rests on rates far from the paired rows' and can have two modes, near 0 and near 1.

    With known rates the same warning names a known rate that the group's own paired rows rule
    out (an exact binomial test rejects it at 0.001: ``rho = 1`` beside a paired adequate output
    the metric rejected, say): known rates are used as given, so such paired rows would
    otherwise be ignored without a word.

    Examples
    --------
    >>> import warnings
    >>> import binaryeval as be
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = be.fit_counts({"metric_pos": 1000, "metric_total": 1000, "tp": 40, "fn": 60,
    ...                          "tn": 90, "fp": 10})
    >>> caught[0].category.__name__
    'ContradictionWarning'
    """


class DirectionWarning(BinaryEvalWarning):
    """Human and metric scores point in opposite directions.

    A lower-is-better score was probably read as higher-is-better; the message names the likely
    fix, ``lower_is_better=[...]``.

    Examples
    --------
    >>> import binaryeval as be
    >>> issubclass(be.DirectionWarning, be.BinaryEvalWarning)
    True
    """


class FaviUndefinedWarning(BinaryEvalWarning):
    """The Favi-Score is undefined (NaN): the metric never disagrees with the humans (E = 0).

    Examples
    --------
    >>> import warnings
    >>> import binaryeval as be
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     score = be.favi_score([[5, 0, 0], [0, 3, 0], [0, 0, 4]])
    >>> score, caught[0].category.__name__
    (nan, 'FaviUndefinedWarning')
    """


class UnpairedItemsWarning(BinaryEvalWarning):
    """Some items are rated for only one system of a pair; they are skipped and counted.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> import binaryeval as be
    >>> df = pd.DataFrame({"seg": [1, 1, 2], "system": ["a", "b", "a"], "h": [2, 1, 3],
    ...                    "m": [0.5, 0.1, 0.9]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = be.favi("h ~ m | system", df, item="seg")
    >>> caught[0].category.__name__, int(res.n_skipped[0])
    ('UnpairedItemsWarning', 1)
    """


class SmallSampleWarning(BinaryEvalWarning):
    """Too few observations for the requested method to keep its stated coverage.

    The message names the count and the method used instead.

    Examples
    --------
    >>> import binaryeval as be
    >>> issubclass(be.SmallSampleWarning, be.BinaryEvalWarning)
    True
    """


class DependenceWarning(BinaryEvalWarning):
    """Metrics fitted as independent although the paired items say they err together.

    ``dependence="independent"`` treats several metrics as conditionally independent.

    The product model then counts the same evidence more than once and its intervals are too
    narrow; the message gives the dependence check's Bayes factor and the fix,
    ``dependence="joint"`` (the default).

    Examples
    --------
    >>> import binaryeval as be
    >>> issubclass(be.DependenceWarning, be.BinaryEvalWarning)
    True
    """


class JudgeBiasWarning(BinaryEvalWarning):
    """A judge errs differently by position or across a covariate's levels.

    Said by :func:`binaryeval.judge_bias`: one confusion matrix for all items would mis-correct
    the judge.

    Examples
    --------
    >>> import binaryeval as be
    >>> issubclass(be.JudgeBiasWarning, be.BinaryEvalWarning)
    True
    """


class ConvergenceWarning(BinaryEvalWarning):
    """A sampler's diagnostics (R-hat, effective sample size) say its draws are not yet reliable.

    Examples
    --------
    >>> import binaryeval as be
    >>> issubclass(be.ConvergenceWarning, be.BinaryEvalWarning)
    True
    """


class OutputError(ParameterError):
    """A file the package will not write (an input, an existing file, a folder).

    An input is never written over; an existing file only with leave to replace it; a folder,
    or a file in a folder that does not exist, is refused.  The command line exits with code 2 on it, as on any other usage error.

    Examples
    --------
    >>> from binaryeval.reports import make_report
    >>> make_report("wmt15", "human ~ 1", output="no/such/folder/r.html")
    Traceback (most recent call last):
    ...
    binaryeval.errors.OutputError: output 'no/such/folder/r.html': the folder 'no/such/folder' does not exist; create it first or write elsewhere
    """


class RenderError(BinaryEvalError, RuntimeError):
    """A document could not be rendered (a chunk raised, or the header or an option is invalid).

    Examples
    --------
    >>> import binaryeval as be
    >>> issubclass(be.RenderError, RuntimeError)
    True
    """
