"""The ``binaryeval`` command.

``binaryeval <subcommand> [options]``; ``python -m binaryeval`` is the same.  Exit codes: 0 success,
1 the command failed (a :class:`~binaryeval.errors.BinaryEvalError`; the message is printed on
stderr), 2 bad command-line usage (argparse), or an output the command will not write
(:class:`~binaryeval.errors.OutputError`: an input, an existing file without ``--overwrite``, a folder,
a file in a missing folder; checked before any work, so nothing is computed in vain).  Output
files are written to a temporary file and renamed into place, so a failed run leaves none half
written.  Warnings raised while a command runs are printed on
stderr, one line each (``binaryeval fit: warning: ...``).

Subcommands
-----------
``render``     render ``.qmd`` documents to HTML (the site builder, :mod:`binaryeval._site`)
``datasets``   list or export the shipped datasets
``fit``        :func:`binaryeval.fit` (one metric, several metric terms, ``--bins``; with
               ``--rater`` and ``--item`` the rater-noise model, :func:`binaryeval.fit_raters`);
               ``--compare`` for ``result.compare()``, ``--plan`` for ``result.plan()``
``preferences`` :func:`binaryeval.fit_preferences`: preference rates per system pair
``ranks``      a leaderboard: ``result.ranks()`` of :func:`binaryeval.fit` or (with ``--item``
               or ``--first/--second``) of :func:`binaryeval.fit_preferences`
``judge-bias`` :func:`binaryeval.judge_bias`: the judge's confusion by position and covariate
``favi``       :func:`binaryeval.favi`
``correlate``  :func:`binaryeval.correlate`; ``--pairwise`` for the Williams tests
``plan``       detectable differences and sample sizes (:mod:`binaryeval.plan`)
``report``     an HTML report of :func:`binaryeval.fit` on the user's data (or of
               :func:`binaryeval.fit_preferences` with ``--item`` or ``--first/--second``),
               rendered from ``binaryeval/reports/templates/``

``fit``, ``preferences``, ``ranks``, ``favi`` and ``correlate`` print ``result.summary().as_text()``, as the
Python API does, with advice naming the command line's flags (``--bins 5``, not ``bins=5``); ``--output FILE`` writes the summary as text (``.txt``), HTML (``.html``) or LaTeX (``.tex``),
or the tidy table ``to_frame()`` as CSV (``.csv``) or JSON records (``.json``).  Input tables are
read by extension: CSV, TSV, Parquet, JSON.

Adding a subcommand
-------------------
Add a module ``binaryeval/cli/<name>.py`` with a function that adds a parser to the sub-parsers
and sets ``func`` (the code that runs it, returning an exit code), decorate it with
:func:`subcommand`, and import the module in ``binaryeval/cli/__init__.py``.  Import the package's heavy modules
inside ``run`` so ``binaryeval --help`` stays fast.  The helpers :func:`add_data_arguments`,
:func:`read_data`, :func:`add_output_arguments` and :func:`write_result` cover the usual "formula
on a table" command::

    @subcommand
    def add_fit_parser(subparsers):
        p = subparsers.add_parser("fit", help="fit the binary evaluation model",
                                  description="Fit FORMULA on the table in DATA.")
        p.add_argument("formula", help='e.g. "I(mqm == 0) ~ I(chrf > 50) | system"')
        add_data_arguments(p)
        add_output_arguments(p)
        p.add_argument("--level", type=float, default=0.95)

        def run(args):
            from binaryeval import fit
            result = fit(args.formula, read_data(args), level=args.level)
            return write_result(result, args)

        p.set_defaults(func=run)

Examples
--------
>>> from binaryeval.cli import main
>>> main(["--version"])
binaryeval 0.1.0
0
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence

from .._advice import as_flags
from ..errors import BinaryEvalError, BinaryEvalWarning, OutputError
from . import (  # noqa: F401  (registers them)
    _common,
    correlate,
    datasets,
    favi,
    fit,
    judge_bias,
    plan,
    preferences,
    ranks,
    render,
    report,
)
from ._common import (
    PROG,
    SUBCOMMANDS,
    add_data_arguments,
    add_output_arguments,
    check_destination,
    output_format,
    read_data,
    read_table,
    subcommand,
    write_result,
)

__all__ = ["main", "build_parser", "command_flags", "subcommand", "add_data_arguments", "read_data", "read_table",
           "add_output_arguments", "output_format", "write_result", "PROG", "SUBCOMMANDS"]


def build_parser():
    """The ``binaryeval`` parser with every registered subcommand."""
    import argparse

    from .. import __version__

    parser = argparse.ArgumentParser(
        prog=PROG, description="Evaluating the evaluation of text-generation systems.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in _common.SUBCOMMANDS:
        add(subparsers)
    for sub in subparsers.choices.values():
        # messages name the arguments of the library (alpha=1.5): the command's own flags
        sub.set_defaults(_flags=command_flags(sub))
    return parser


#: options whose destination is no argument of the library the messages could name
_NOT_ARGUMENTS = frozenset({"help", "data", "query", "format", "dask", "scheduler", "stdout"})


def command_flags(parser) -> dict[str, str]:
    """``argument -> --flag`` for the options of one subcommand spelled as their argument.

    Examples
    --------
    >>> import argparse
    >>> from binaryeval.cli import command_flags
    >>> p = argparse.ArgumentParser()
    >>> _ = p.add_argument("--n-human", type=int)
    >>> command_flags(p)
    {'n_human': '--n-human'}
    """
    import argparse

    out = {}
    for action in parser._actions:
        flag = "--" + action.dest.replace("_", "-")
        if (flag in action.option_strings and action.dest not in _NOT_ARGUMENTS
                and action.help is not argparse.SUPPRESS):
            out[action.dest] = flag
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``binaryeval`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit code.

    Examples
    --------
    >>> from binaryeval.cli import main
    >>> code = main(["datasets"])  # doctest: +ELLIPSIS
    name...wmt21_ende...
    >>> code
    0
    """
    parser = build_parser()
    try:
        args = parser.parse_args(None if argv is None else list(argv))
    except SystemExit as exc:  # --help, --version, usage errors
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    with warnings.catch_warnings(record=True) as caught:
        # the package's warnings are messages of the command, whatever filters the
        # environment sets (PYTHONWARNINGS=error would turn them into tracebacks)
        warnings.simplefilter("always", BinaryEvalWarning)
        try:
            check_destination(args)
            code = int(args.func(args) or 0)
        except BinaryEvalError as exc:
            code = 2 if isinstance(exc, OutputError) else 1
            message = f"{PROG} {args.command}: error: {as_flags(str(exc), args._flags)}"
        else:
            message = None
    # warnings (identifiability, unpaired items, ...) go to stderr as one line each
    # advice names the options as typed here: --bins 5, not bins=5
    for w in caught:
        print(f"{PROG} {args.command}: warning: {as_flags(str(w.message), args._flags)}",
              file=sys.stderr)
    if message:
        print(message, file=sys.stderr)
    return code
