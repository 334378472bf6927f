"""``binaryeval render``: render .qmd documents (the showcase site) to HTML."""

from __future__ import annotations

import argparse

from ._common import subcommand


@subcommand
def add_render_parser(subparsers) -> None:
    """Add the ``render`` subcommand to ``subparsers`` (see ``binaryeval render --help``)."""
    p = subparsers.add_parser(
        "render", help="render Quarto (.qmd) documents to HTML",
        description="Render .qmd documents to HTML. A folder inside a Quarto website project "
                    "(_quarto.yml with project: type: website) becomes that website: navbar, "
                    "sidebar, tables of contents, the landing page and the API reference; files "
                    "become self-contained pages plus an index.html. Uses `quarto render` when "
                    "Quarto is installed (--engine auto), otherwise executes the chunks with "
                    "Jupyter (jupytext, nbclient, nbconvert). No page loads anything from the "
                    "network.")
    p.add_argument("paths", nargs="*", default=["vignettes"], metavar="PATH",
                   help=".qmd files or folders holding them (default: vignettes)")
    p.add_argument("--output-dir", default=None, metavar="DIR",
                   help="output folder (default: output-dir of _quarto.yml, else reports)")
    p.add_argument("--engine", choices=["auto", "quarto", "jupyter"], default="auto",
                   help="auto: Quarto when on the PATH, else Jupyter (default: auto)")
    p.add_argument("--timeout", type=int, default=600, metavar="SECONDS",
                   help="time allowed per chunk, Jupyter engine (default: 600)")
    p.add_argument("--no-index", action="store_true", help="do not write index.html")
    p.add_argument("--overwrite", action="store_true",
                   help="replace files where pages go that a renderer did not write (pages "
                        "rendered before are rendered again without it)")

    def run(args: argparse.Namespace) -> int:
        from .._site import render

        written = render(args.paths, output_dir=args.output_dir, engine=args.engine,
                         timeout=args.timeout, index=not args.no_index,
                         overwrite=args.overwrite)
        for path in written:
            print(path)
        return 0

    p.set_defaults(func=run)
