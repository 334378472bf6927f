"""The built site read in headless Chromium: what scrolls sideways, how large the figures are.

Run from the repository root after ``make reports``::

    python studies/site_layout.py                       # reports/, 1280 and 420 px
    python studies/site_layout.py --site /tmp/site --screenshots /tmp/shots

For every page of the guides and showcases (the API reference with ``--all``) it counts, at
1280 px, the code blocks, printed outputs and tables whose content is wider than their box
(``scrollWidth > clientWidth``), and at 420 px whether the page itself is wider than the screen;
it also lists the figures whose smallest text is under 9 px high as shown at 1280 px.  With ``--screenshots`` it saves
the landing page, a showcase, an API page and the search page's results (the site
served on 127.0.0.1) at both widths.  It exits with
status 1 when a table or printed output scrolls at 1280 px or a page overflows at 420 px.

It lives here rather than in the tests because it needs the whole rendered site (minutes to
build); ``tests/test_site.py`` runs the same measurement on a tiny site built in the test.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from browsercheck import (  # noqa: E402
    browser,
    measure,
    open_served,
    screenshot,
    serve,
    waiting_copy,
)

SHOTS = {"landing": "index.html", "showcase": "wmt21-binary.html",
         "api": "reference/BinaryFit.html"}
SEARCH_QUERY = "identifiability"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default="reports", type=Path)
    parser.add_argument("--all", action="store_true", help="the API reference pages too")
    parser.add_argument("--screenshots", type=Path, default=None)
    args = parser.parse_args(argv)
    chromium = browser()
    if chromium is None:
        print("no Chromium on this machine (apt-get install chromium)", file=sys.stderr)
        return 2
    pages = sorted(p for p in args.site.glob("*.html") if not p.name.startswith("_"))
    if args.all:
        pages += sorted((args.site / "reference").glob("*.html"))
    failed = False
    total = Counter()
    for page in pages:
        wide = measure(page, 1280, chromium=chromium)
        narrow = measure(page, 420, chromium=chromium)
        kinds = Counter(b["kind"] for b in wide["boxes"])
        total.update(kinds)
        shrunk = [i for i in wide["images"] if i["text_px"] is not None and i["text_px"] < 9]
        over = narrow["page"]["scroll"] > narrow["page"]["client"]
        total["pages overflowing at 420 px"] += over
        total["figures with text under 9 px"] += len(shrunk)
        total["figures"] += len(wide["images"])
        total["figures drawn at 2x"] += sum(i["natural"] >= 1.9 * i["width"] for i in wide["images"])
        print(f"{page.relative_to(args.site)}: at 1280 px {kinds['code']} code, "
              f"{kinds['output']} output, {kinds['table']} table boxes scroll; "
              f"at 420 px the page is {narrow['page']['scroll']} px wide"
              f"{' (overflows)' if over else ''}; {len(wide['images'])} figures, "
              f"{len(shrunk)} with text under 9 px")
        for img in shrunk:
            print(f"    figure, smallest text {img['text_px']:.1f} px: {img['alt'][:50]!r}")
        for box in wide["boxes"]:
            if box["kind"] != "code":
                print(f"    {box['kind']} {box['scroll']} > {box['client']}: "
                      f"{box['text'][:60]!r}")
        failed |= bool(kinds["output"] or kinds["table"] or over)
    print("total:", dict(total))
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
        for name, rel in SHOTS.items():
            if (args.site / rel).is_file():
                for width in (1280, 420):
                    shot = screenshot(args.site / rel, args.screenshots / f"{name}-{width}.png",
                                      width, chromium=chromium)
                    print("screenshot", shot)
        # the search page works when the site is served: its results, for one query
        if (args.site / "search.html").is_file():
            copy = waiting_copy(args.site / "search.html")
            frame = args.site / "_frame_search.html"
            frame.write_text(f'<!DOCTYPE html><body style="margin:0"><iframe style="border:0;'
                             f'width:420px;height:1200px" src="{copy.name}?q={SEARCH_QUERY}">'
                             "</iframe></body>", encoding="utf-8")
            try:
                with serve(args.site) as root:
                    for width, page in ((1280, copy.name), (420, frame.name)):
                        shot = args.screenshots / f"search-{width}.png"
                        open_served(f"{root}/{page}?q={SEARCH_QUERY}", chromium=chromium,
                                    screenshot_to=shot, width=width)
                        print("screenshot", shot)
            finally:
                copy.unlink()
                frame.unlink()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
