"""``binaryeval datasets``: list or export the shipped datasets."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import OutputError, ParameterError
from ._common import add_force_argument, subcommand


@subcommand
def add_datasets_parser(subparsers) -> None:
    """Add the ``datasets`` subcommand to ``subparsers`` (see ``binaryeval datasets --help``)."""
    p = subparsers.add_parser(
        "datasets", help="list the shipped datasets or export them to CSV",
        description="Without NAME: list the shipped datasets (rows, columns, licence). With NAME(s): "
                    "write each as NAME.csv into --output-dir, or to stdout with --stdout.")
    p.add_argument("names", nargs="*", metavar="NAME", help="datasets to export; 'all' for every one")
    p.add_argument("--output-dir", default=".", metavar="DIR",
                   help="folder for NAME.csv (default: .; created if missing); an existing "
                        "NAME.csv is replaced only with --overwrite")
    add_force_argument(p)
    p.add_argument("--stdout", action="store_true", help="print the CSV of one dataset instead")

    def run(args: argparse.Namespace) -> int:
        from .. import datasets

        if not args.names:
            if args.stdout:
                raise ParameterError("--stdout needs a dataset NAME")
            shown = datasets.describe()[["name", "rows", "columns", "licence", "title"]]
            print(shown.to_string(index=False))
            return 0
        available = datasets.names()
        # 'all' beside names is every dataset too (it was an unknown dataset 'all')
        names = available if "all" in args.names else list(dict.fromkeys(args.names))
        unknown = [n for n in args.names if n not in available and n != "all"]
        if unknown:
            raise ParameterError(f"unknown dataset(s) {unknown}; use one of {available} or 'all'")
        if args.stdout:
            if len(names) != 1:
                raise ParameterError(f"--stdout prints one dataset, got {len(names)}: {names}")
            sys.stdout.write(datasets.load(names[0], every_row=True).to_csv(index=False))
            return 0
        from .._output import check_output, write_atomic

        out = Path(args.output_dir)
        if out.exists() and not out.is_dir():
            raise OutputError(f"--output-dir {args.output_dir!r} is a file, not a folder")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file on the way, no permission
            raise OutputError(f"--output-dir {args.output_dir!r}: the folder cannot be made "
                              f"({exc.strerror}); give another folder") from None
        # every file checked before the first is written: all are written, or none
        # (the message names the folder as given and the file in it)
        targets = [check_output(out / f"{name}.csv", force=args.overwrite,
                                option=f"--output-dir {args.output_dir!r}: the file")
                   for name in names]
        for name, target in zip(names, targets, strict=True):
            frame = datasets.load(name, every_row=True)
            write_atomic(target, lambda tmp, frame=frame: frame.to_csv(tmp, index=False))
            print(target)
        return 0

    p.set_defaults(func=run)
