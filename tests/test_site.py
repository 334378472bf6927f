"""The documentation website: a tiny site rendered from its own _quarto.yml, and the real
configuration checked without executing the vignettes.

The structure expected is Quarto's website (quarto.org, "Websites"): a navbar and sidebar from
`website:`, a table of contents of the h2/h3 headings (`format: html: toc: true`), previous/next
page links in sidebar order (`page-navigation: true`), `.qmd` links resolved to the rendered
pages, and quartodoc's interlinks syntax ``[](`binaryeval.fit`)`` for API links.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pandas as pd
import pytest
from browsercheck import browser, evaluate, measure, open_served, serve, waiting_copy
from htmlchecks import (
    broken_links,
    content_security_policy,
    e_notation_in_probability_columns,
    external_resources,
    ids,
    live_markup,
    parsed,
    soup,
)

import binaryeval as be
from binaryeval._site import build_site, read_site_config, render
from binaryeval._site.apiref import api_pages, read_api_sections
from binaryeval._site.pages import finish_body
from binaryeval._site.rendering import _site_config
from binaryeval.errors import RenderError

ROOT = Path(__file__).resolve().parents[1]

CONFIG = """\
project:
  type: website
  output-dir: out
website:
  title: Tiny site
  page-navigation: true
  navbar:
    left:
      - text: Pages
        menu:
          - docs/a.qmd
          - docs/missing.qmd
      - href: docs/b.qmd
        text: Bee
      - text: Reference
        href: reference/index.qmd
  sidebar:
    contents:
      - docs/index.qmd
      - section: Both
        contents: [docs/a.qmd, docs/b.qmd, docs/missing.qmd]
format:
  html:
    toc: true
quartodoc:
  package: binaryeval
  dir: reference
  sections:
    - title: Fitting
      desc: Fit with [](`~binaryeval.fit`).
      contents: [fit, BinaryFit, FAVI_WEIGHTS]
    - title: Not there yet
      contents: [no_such_module]
"""

INDEX = """\
---
title: Tiny home
jupyter: python3
listing:
  id: cards
  contents: [a.qmd, b.qmd, missing.qmd]
---

Welcome. Start with [page A](a.qmd).

::: {#cards}
:::
"""

PAGE_A = """\
---
title: Page A
description: The first page, with a figure.
jupyter: python3
---

## First part

Links: [B's second part](b.qmd#second-part), [](`binaryeval.fit`), [](`~binaryeval.BinaryFit.compare`),
[fit the model](`binaryeval.fit`).

::: {.callout-note}
A *note* in a callout.
:::

### A sub-part

```{python}
#| label: fig-noise
#| fig-cap: "Noise"
#| fig-alt: "A histogram of 100 normal draws"
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(3, 2))
ax.hist(range(10))
plt.show()
```

## Second part

Text.
"""

PAGE_B = """\
---
title: Page B
subtitle: Tables of p-values.
jupyter: python3
---

## First part

```{python}
#| label: tables
import pandas as pd
pd.DataFrame({"system": ["a", "b"], "p_value": [1e-16, 0.5], "count": [3, 4]})
```

## Second part

Back to [the start](index.qmd). ![A tiny picture](pic.png)
"""


# wide things: a printed summary of a fit (about 105 characters a line), a line of code of 99
# characters, a table of eleven snake_case columns; a folded chunk; an example with prompts
PAGE_C = """\
---
title: Page C
jupyter: python3
code-summary: "Code that builds the table"
---

## Wide things

```{python}
#| label: wide-summary
import numpy as np
import pandas as pd
import binaryeval as be

rng = np.random.default_rng(7)
truth = rng.random(900) < 0.6
data = pd.DataFrame({"system": np.repeat(["system-alpha-one", "system-beta-two"], 450),
                     "metric": np.where(rng.random(900) < 0.85, truth, ~truth)})
data["human"] = np.where(np.arange(900) % 3 == 0, truth, np.nan)
res = be.fit("human ~ metric | system", data)
print(res)
```

```{python}
#| label: wide-table
#| code-fold: true
from binaryeval._site.tables import format_table

cols = ["n_human", "n_paired", "n_metric", "estimate", "std_error", "mode", "lower", "upper",
        "naive", "n_eff", "metric_worth"]
format_table(res.to_frame()[cols], decimals={"n_eff": 1, "metric_worth": 1})
```

```{python}
#| label: long-line
long_name_for_a_value = sum([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18])
```

An example as the reference pages show them:

```python
>>> import binaryeval as be
>>> print(1 +
...       1)
2
```
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    (root / "_quarto.yml").write_text(CONFIG, encoding="utf-8")
    (root / "docs").mkdir()
    for name, text in (("index", INDEX), ("a", PAGE_A), ("b", PAGE_B), ("c", PAGE_C)):
        (root / "docs" / f"{name}.qmd").write_text(text, encoding="utf-8")
    from PIL import Image

    Image.new("RGB", (2, 2), "red").save(root / "docs" / "pic.png")
    notices: list[str] = []
    written = build_site(read_site_config(root / "_quarto.yml"),
                         sorted((root / "docs").glob("*.qmd")), root / "out", timeout=120,
                         notice=notices.append)
    return root / "out", written, notices


def _page(out: Path, name: str) -> str:
    return (out / name).read_text(encoding="utf-8")


def test_pages_written_and_missing_pages_named(site):
    out, written, notices = site
    names = sorted(p.relative_to(out).as_posix() for p in written)
    assert names == ["a.html", "b.html", "c.html", "index.html", "reference/BinaryFit.html",
                     "reference/FAVI_WEIGHTS.html", "reference/fit.html", "reference/index.html",
                     "search.html"]
    assert (out / "site.css").is_file() and (out / "site.js").is_file()
    # the page listed in the navbar, the sidebar and the listing, and the module, are named
    assert sum("docs/missing.qmd is listed in the navigation" in n for n in notices) == 1
    assert any("listing names missing.qmd" in n for n in notices)
    assert any("binaryeval.no_such_module cannot be imported" in n for n in notices)


def test_navbar_on_every_page_and_every_link_resolves(site):
    out, written, _ = site
    for path in written:
        page = path.read_text(encoding="utf-8")
        nav = soup(page).find("header", class_="navbar")
        assert nav is not None, path
        texts = [a.get_text(strip=True) for a in nav.find_all("a")]
        assert texts == ["Tiny site", "Page A", "Bee", "Reference", "Search"], (path, texts)
        # the documented package's version beside the title
        assert nav.find(class_="version").get_text() == be.__version__
        assert "missing" not in str(nav)
        assert broken_links(path) == [], path


def test_table_of_contents_and_page_navigation(site):
    out, _, _ = site
    page = soup(_page(out, "a.html"))
    toc = page.find("aside", class_="toc-side")
    assert [a["href"] for a in toc.find_all("a")] == ["#first-part", "#a-sub-part", "#second-part"]
    # the sub-part nests under its part
    assert toc.find("li").find("ul").find("a")["href"] == "#a-sub-part"
    # previous/next follow the sidebar: index, a, b
    nav = page.find("nav", class_="page-nav")
    assert nav.find("a", class_="prev")["href"] == "index.html"
    assert nav.find("a", class_="next")["href"] == "b.html"
    assert soup(_page(out, "b.html")).find("nav", class_="page-nav").find("a", class_="next") is None
    # the current page is marked in the sidebar; the landing page has no TOC
    assert page.find("nav", class_="sidebar").find("li", class_="active").a["href"] == "a.html"
    assert soup(_page(out, "index.html")).find("aside", class_="toc-side") is None


def test_links_between_pages_and_to_the_api(site):
    out, _, _ = site
    page = soup(_page(out, "a.html"))
    hrefs = {a.get_text(strip=True): a["href"] for a in page.find("main").find_all("a")}
    assert hrefs["B's second part"] == "b.html#second-part"
    assert hrefs["binaryeval.fit"] == "reference/fit.html"
    assert hrefs["compare"] == "reference/BinaryFit.html#binaryeval.BinaryFit.compare"
    assert hrefs["fit the model"] == "reference/fit.html"
    assert page.find("div", class_="callout-note").em.get_text() == "note"
    # API pages link back with paths relative to their folder
    ref = soup(_page(out, "reference/index.html"))
    assert ref.find("a", class_="brand")["href"] == "../index.html"


def test_figure_alt_text_caption_and_cards(site):
    out, _, _ = site
    page = soup(_page(out, "a.html"))
    img = page.find("img")
    assert img["src"].startswith("data:image/png;base64,")
    assert img["alt"] == "A histogram of 100 normal draws"
    assert "Figure 1: Noise" in page.get_text()
    index = soup(_page(out, "index.html"))
    cards = index.find("div", id="cards").find_all("a", class_="card")
    assert [c["href"] for c in cards] == ["a.html", "b.html"]
    # a card shows the page's title, its description (else subtitle), and its first figure
    assert [c.find(class_="card-text").get_text() for c in cards] == [
        "The first page, with a figure.", "Tables of p-values."]
    assert cards[0].find("img")["src"].startswith("data:image/jpeg;base64,")
    assert cards[1].find("img") is None


def test_nothing_loaded_from_the_network(site):
    out, written, _ = site
    for path in written:
        page, doc = path.read_text(encoding="utf-8"), parsed(path)
        assert external_resources(doc) == [], path
        assert "mathjax" not in page.lower()
        # scripts only from the site's own files, none inline
        scripts = doc.find_all("script")
        assert scripts and all(s.get("src") and not s.get_text().strip() for s in scripts), path
        assert {s["src"].rsplit("/", 1)[-1] for s in scripts} == {"site.js"}
        assert doc.find("link", rel="stylesheet")["href"].endswith("site.css")
    assert external_resources(f"<style>{(out / 'site.css').read_text()}</style>") == []


def test_tables_scroll_in_their_box_and_e_notation_is_found(site):
    out, _, _ = site
    page = _page(out, "b.html")
    # a markdown image is embedded
    assert soup(page).find("img", alt="A tiny picture")["src"].startswith("data:image/png;base64,")
    tables = soup(page).find_all("table")
    assert tables and all("table-wrap" in t.parent.get("class", []) for t in tables)
    # the checker used on the vignettes finds the probabilities pandas writes in e-notation
    assert e_notation_in_probability_columns(page) == ["p_value: 1.000000e-16",
                                                       "p_value: 5.000000e-01"]


def test_external_resource_checker():
    page = ('<link rel="stylesheet" href="https://cdn.example/x.css"><script src="//cdn/x.js">'
            '</script><img src="pic.png"><a href="https://doi.org/10.1/x">paper</a>'
            "<style>@import url('https://fonts.example/css');</style>")
    assert external_resources(page) == ["<script src=//cdn/x.js>",
                                        "<link href=https://cdn.example/x.css>",
                                        "https://fonts.example/css"]


def test_e_notation_checker():
    page = ("<table><thead><tr><th></th><th>estimate</th><th>P(A &gt; B)</th><th>prob_greater"
            "</th></tr></thead><tbody><tr><th>x</th><td>1e-05</td><td>&lt; 0.001</td>"
            "<td>2.5E+00</td></tr></tbody></table>")
    assert e_notation_in_probability_columns(page) == ["prob_greater: 2.5E+00"]


def test_broken_links_are_errors():
    with pytest.raises(RenderError, match=r"doc\.qmd: the link to 'nowhere\.qmd' points at no page"):
        finish_body('<a href="nowhere.qmd">x</a>', where="doc.qmd", resolve_page=lambda p: None)
    with pytest.raises(RenderError, match="binaryeval has no attribute 'fitt'"):
        finish_body('<a href="%60binaryeval.fitt%60"></a>', where="doc.qmd")
    with pytest.raises(RenderError, match="names no binaryeval object"):
        finish_body('<a href="%60numpy.mean%60"></a>', where="doc.qmd")
    # without a site, an API link is shown as code
    body, _ = finish_body('<a href="%60~binaryeval.fit%60"></a>', where="doc.qmd")
    assert body == "<code>fit</code>"


def test_site_or_separate_documents(tmp_path):
    (tmp_path / "_quarto.yml").write_text("project:\n  type: website\n")
    (tmp_path / "docs").mkdir()
    doc = tmp_path / "docs" / "x.qmd"
    doc.write_text("---\ntitle: X\n---\n")
    assert _site_config(None, [tmp_path / "docs"]) == tmp_path / "_quarto.yml"
    assert _site_config(None, [doc]) is None  # a file alone is rendered as one document
    assert _site_config(True, [doc]) == tmp_path / "_quarto.yml"
    assert _site_config(False, [tmp_path / "docs"]) is None


# ---------------------------------------------------------------------------------------------
# the repository's site, without executing its vignettes
# ---------------------------------------------------------------------------------------------

# pages other branches add; the navigation lists them and the renderer skips them while absent
PLANNED = {"vignettes/preferences.qmd", "vignettes/your-own-data.qmd"}


@pytest.fixture(scope="module")
def config():
    return read_site_config(ROOT / "_quarto.yml")


def _hrefs(items) -> list[str]:
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            if item.get("href"):
                out.append(item["href"])
            out += _hrefs(item.get("menu") or item.get("contents") or [])
    return out


def test_real_configuration(config):
    assert config.raw["project"]["type"] == "website"
    assert config.output_dir == ROOT / "reports"
    assert config.toc and config.page_navigation
    navbar = config.website["navbar"]["left"]
    assert [n["text"] for n in navbar] == ["Get started", "Showcases", "Planning", "Validation",
                                           "Reference"]
    links = set(_hrefs(navbar)) | set(_hrefs(config.website["sidebar"]["contents"]))
    existing = {p.relative_to(ROOT).as_posix() for p in (ROOT / "vignettes").glob("*.qmd")}
    missing = {h for h in links if h.endswith(".qmd") and h not in existing
               and not h.startswith("reference/")}
    assert missing <= PLANNED
    # every vignette is reachable from the navbar (the landing page from the brand)
    assert existing - {"vignettes/index.qmd"} <= set(_hrefs(navbar))
    assert "vignettes/vocabulary.qmd" in _hrefs(navbar[-1]["menu"])
    listing = _yaml_header(ROOT / "vignettes" / "index.qmd")["listing"]["contents"]
    assert {f"vignettes/{c}" for c in listing} - existing <= PLANNED
    # the landing page's cards show every showcase of the navbar's menu (one was left out)
    showcases = next(n for n in navbar if n["text"] == "Showcases")
    assert set(_hrefs(showcases["menu"])) <= {f"vignettes/{c}" for c in listing}


def test_a_printed_summary_adds_no_heading():
    # a summary shown in a page (h2 sections) once brought an h4 in: headings out of order
    fit = be.fit_counts(pd.DataFrame({"human_pos": [3, 5], "human_total": [10, 10]},
                                     index=pd.Index(["A", "B"], name="system")))
    page = soup(fit.summary().as_html())
    assert page.find(re.compile(r"^h[1-6]$")) is None
    assert page.find(class_="binaryeval-summary-title").get_text() == fit.summary().title


def _yaml_header(path: Path) -> dict:
    from binaryeval._site.documents import _split_header

    return _split_header(path.read_text(encoding="utf-8"), str(path))[0]


def test_api_reference_covers_the_public_names(config):
    sections = read_api_sections(config.api, notice=lambda m: None)
    documented = set()
    for sec in sections:
        for entry in sec.entries:
            documented.add(entry.path)
            documented.update(m.path for m in entry.members)
    public = {f"binaryeval.{n}" for n in be.__all__ if not n.startswith("__")}
    for module in ("plan", "datasets", "latent"):
        try:
            mod = importlib.import_module(f"binaryeval.{module}")
        except ImportError:
            continue
        # a name the package also exports at the top documents it there (the same object)
        public |= {f"binaryeval.{n}" if n in be.__all__ else f"binaryeval.{module}.{n}"
                   for n in mod.__all__}
    assert public - documented == set()


def test_api_pages_from_docstrings(config):
    sections = read_api_sections(config.api, notice=lambda m: None)
    pages = api_pages(sections)
    assert len(pages) == 1 + sum(1 + len(e.members) for s in sections for e in s.entries)
    fit = soup(pages["reference/fit.html"][1])
    assert fit.find("pre", class_="api-signature").get_text().startswith("binaryeval.fit(")
    params = [dt.strong.get_text() for dt in fit.find("dl", class_="api-params").find_all("dt")]
    assert params[:3] == ["formula", "data", "prior"]
    assert fit.find("h2", id="examples").find_next("div", class_="highlight")
    bf = soup(pages["reference/BinaryFit.html"][1])
    assert bf.find("h3", id="binaryeval.BinaryFit.compare") is not None
    # the index lists every page with its one-line summary
    index = soup(pages["reference/index.html"][1])
    rows = {r.find("code").get_text(): r.find_all("td")[1].get_text(" ", strip=True)
            for r in index.find_all("tr")}
    assert rows["fit"] == "Fit the binary evaluation model with a formula."
    assert rows["FAVI_WEIGHTS"].startswith("The weight matrix W of the Favi-Score")
    assert set(rows) == {Path(p).stem for p in pages} - {"index"}
    # every function and class page has its summary and signature, and no stray backticks (a
    # ``literal`` that runs over a line break in the docstring is still one literal)
    for page, (_, body) in pages.items():
        if page.endswith("index.html"):
            continue
        doc = soup(body)
        assert doc.find("h1").get_text(), page
        assert doc.find("pre", class_="api-signature"), page
        for par in doc.find_all(["p", "dd", "li"]):
            assert "`" not in par.get_text(), (page, par.get_text()[:120])
    cw = soup(pages["reference/ContradictionWarning.html"][1])
    assert "alpha rho + (1 - alpha) (1 - eta)" in [c.get_text() for c in cw.find_all("code")]


def test_render_checks_a_site_link_with_its_own_message(tmp_path):
    # the CLI renders a folder of a website project as the site; a link to a missing page is
    # an error that names the document and the link
    (tmp_path / "_quarto.yml").write_text("project:\n  type: website\nwebsite:\n  title: T\n")
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "p.qmd").write_text("---\ntitle: P\n---\n\nSee [q](q.qmd).\n")
    with pytest.raises(RenderError, match=re.escape("p.qmd: the link to 'q.qmd' points at no page")):
        render([tmp_path / "v"], output_dir=tmp_path / "out", engine="jupyter", timeout=60)


FAKE_QUARTO = """#!/usr/bin/env python3
import sys
from pathlib import Path
args = sys.argv[1:]
assert args[:2] == ["render", "--output-dir"], args
out = Path(args[2])
(out / "vignettes").mkdir(parents=True, exist_ok=True)
(out / "index.html").write_text("<html>site from " + str(Path.cwd()) + "</html>")
(out / "vignettes" / "p.html").write_text("<html>p</html>")
"""


def test_quarto_renders_the_whole_project(tmp_path, monkeypatch):
    # with Quarto on the PATH, a website is rendered by `quarto render` in the project's folder
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "quarto").write_text(FAKE_QUARTO)
    (bindir / "quarto").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{__import__('os').environ['PATH']}")
    (tmp_path / "_quarto.yml").write_text("project:\n  type: website\n")
    (tmp_path / "vignettes").mkdir()
    (tmp_path / "vignettes" / "p.qmd").write_text("---\ntitle: P\n---\n")
    written = render([tmp_path / "vignettes"], output_dir=tmp_path / "out")
    assert written == [tmp_path / "out" / "index.html", tmp_path / "out" / "vignettes" / "p.html"]
    assert (tmp_path / "out" / "index.html").read_text() == f"<html>site from {tmp_path}</html>"


def test_every_page_carries_a_policy_that_runs_only_the_sites_scripts(site):
    out, written, _ = site
    for path in written:
        page = path.read_text(encoding="utf-8")
        policy = content_security_policy(page)
        assert policy is not None, path
        rules = dict(rule.strip().split(" ", 1) for rule in policy.split(";"))
        # scripts from the site's files only: no inline script, no eval (the search page alone
        # may compile Pagefind's WebAssembly), nothing else relaxed
        assert rules["script-src"] == ("'self' 'wasm-unsafe-eval'" if path.name == "search.html"
                                       else "'self'"), path
        assert rules["default-src"] == "'none'" and rules["object-src"] == "'none'"
        assert rules["base-uri"] == "'none'" and rules["form-action"] == "'none'"
        assert live_markup(page, scripts={"site.js"}) == [], path


def _browser() -> str | None:
    import shutil

    return next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(b)), None)


def _policy_violations(browser: str, page: Path) -> list[str]:
    """What a headless browser's console says against the page's Content-Security-Policy."""
    import subprocess

    run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    return [line for line in run.stderr.splitlines() if "Content Security Policy" in line]


@pytest.mark.skipif(_browser() is None, reason="no Chromium on this machine to open the pages "
                                                "(apt-get install chromium)")
def test_pages_work_under_their_policy_in_a_browser(site, tmp_path):
    """Opened in headless Chromium, no page breaks its policy: the linked stylesheet, the
    embedded images and the inline styles all load (a control page that does break it is
    reported, so the check can fail)."""
    out, written, _ = site
    browser = _browser()
    for path in [p for p in written if p.suffix == ".html"][:4]:
        assert _policy_violations(browser, path) == [], path
    control = out / "control.html"
    control.write_text(path.read_text(encoding="utf-8").replace(
        "</body>", "<script>document.title = 'ran'</script></body>"), encoding="utf-8")
    try:
        assert any("inline script" in v for v in _policy_violations(browser, control))
    finally:
        control.unlink()


# ---------------------------------------------------------------------------------------------
# the repository's site, built without executing its chunks: every public name has its entry,
# every link and #anchor resolves
# ---------------------------------------------------------------------------------------------

def _unexecuted(path, **_):
    """A document's cells as HTML, code shown, nothing run (the links are in the prose)."""
    from binaryeval._site import documents

    nb = documents.read_qmd(path)
    return nb, documents.export_cells(nb, Path(path))


@pytest.fixture(scope="module")
def real_site(tmp_path_factory, config):
    from binaryeval._site import documents

    out = tmp_path_factory.mktemp("real_site")
    patch = pytest.MonkeyPatch()
    patch.setattr(documents, "execute_document", _unexecuted)
    try:
        written = build_site(config, sorted((ROOT / "vignettes").glob("*.qmd")), out,
                             notice=lambda m: None)
    finally:
        patch.undo()
    return out, written


def _own_members(cls) -> set[str]:
    """The public methods, properties and fields of a class that the package defines (not those
    of ``object``, ``Exception`` or ``Warning``)."""
    import dataclasses

    names = set()
    for klass in cls.__mro__:
        if not (klass.__module__ or "").startswith("binaryeval"):
            continue
        names |= {n for n in vars(klass) if not n.startswith("_")}
    if dataclasses.is_dataclass(cls):
        names |= {f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")}
    return names


def test_every_public_name_has_a_reference_entry_with_an_anchor(real_site, config):
    import inspect

    out, _ = real_site
    missing = []
    for sec in read_api_sections(config.api, notice=lambda m: None):
        for entry in sec.entries:
            for e in [entry, *entry.members]:
                page = out / e.page
                assert page.is_file(), e.page
                anchors = ids(page)
                obj = importlib.import_module("binaryeval._site.pages").import_object(e.path)
                if not inspect.isclass(obj):
                    continue
                missing += [f"{e.path}.{m}" for m in sorted(_own_members(obj))
                            if f"{e.path}.{m}" not in anchors]
    assert missing == []
    # the names a reader follows from the guides
    bf = soup(_page(out, "reference/BinaryFit.html"))
    for name in ("plan", "diagnostics", "compare", "rates"):
        assert bf.find(id=f"binaryeval.BinaryFit.{name}") is not None, name


def test_every_link_and_anchor_of_the_site_resolves(real_site):
    out, written = real_site
    assert len(written) > 60
    dangling = {p.relative_to(out).as_posix(): broken_links(p) for p in written}
    assert {p: links for p, links in dangling.items() if links} == {}


def test_reference_pages_render_examples_as_code_and_real_types(real_site):
    out, written = real_site
    # a module's Examples are code blocks, not ">>>" read as nested quotes
    for name in ("plan", "datasets"):
        page = soup(_page(out, f"reference/{name}.html"))
        assert page.find("blockquote") is None, name
        assert ">>>" in page.find("h2", id="examples").find_next("div", class_="highlight").get_text()
    # a parameter group written without a type ("rho, eta, ..., rates, method") shows each name's
    # own type from the signature, not the group's first
    page = soup(_page(out, "reference/plan.detectable_difference_table.html"))
    types = {dt.strong.get_text(): dt.find("span", class_="annotation").get_text()
             for dt in page.find("dl", class_="api-params").find_all("dt")
             if dt.find("span", class_="annotation")}
    assert types["rates"] == "str" and types["method"] == "str" and types["rounding"] == "str"
    assert types["alpha"] == "float"
    # `Any` only where anything goes: keyword arguments passed on, free-form mappings, and the
    # `loc` of a table (pandas' indexer, whose class pandas keeps private)
    bare = []
    for path in written:
        if "reference" not in path.parts:
            continue
        page = parsed(path)
        texts = [pre.get_text() for pre in page.find_all("pre", class_="api-signature")]
        texts += [dt.get_text() for dt in page.find_all("dt")]
        for text in texts:
            bare += [f"{path.name}: {m}" for m in re.findall(r"(?<!\*\*)\b\w+\s*:\s*Any\b|->\s*Any\b",
                                                              text)]
    assert bare == ["plan.DetectableDifferenceTable.html: loc : Any"]


def test_folded_code_and_its_summary(site):
    out, _, _ = site
    page = soup(_page(out, "c.html"))
    folded = page.find_all("details", class_="code-fold")
    # only the chunk that asks for it; the title from the document's code-summary
    assert len(folded) == 1 and folded[0].get("open") is None
    assert folded[0].summary.get_text() == "Code that builds the table"
    assert "n_paired" in folded[0].get_text()
    assert "print(res)" not in folded[0].get_text()


def test_code_fold_options_are_read_as_quarto_reads_them(tmp_path):
    from binaryeval._site import read_qmd

    doc = ("---\ntitle: T\nformat:\n  html:\n    code-fold: show\n---\n\n"
           "```{python}\n#| label: a\n1\n```\n\n```{python}\n#| label: b\n#| code-fold: false\n2\n```\n")
    nb = read_qmd("t.qmd", text=doc, format_defaults={"code-fold": True, "code-summary": "Show"})
    opts = [c.metadata["quarto"] for c in nb.cells if c.cell_type == "code"]
    # the document's format wins over the project's, the chunk's over both
    assert [o["code-fold"] for o in opts] == ["show", False]
    assert opts[0]["code-summary"] == "Show"
    with pytest.raises(RenderError, match="code-fold: 'maybe' must be true, false or show"):
        read_qmd("t.qmd", text="---\ntitle: T\ncode-fold: maybe\n---\n")


def test_figures_drawn_at_twice_their_size(site):
    import base64
    import io

    from PIL import Image

    out, _, _ = site
    img = soup(_page(out, "a.html")).find("img", alt="A histogram of 100 normal draws")
    with Image.open(io.BytesIO(base64.b64decode(img["src"].split(",", 1)[1]))) as png:
        width, height = png.size
    # shown at half its pixels; the figure is 3 inches at 96 px per inch (before the tight
    # bounding box trims its margins)
    assert abs(width - 2 * int(img["width"])) <= 1 and abs(height - 2 * int(img["height"])) <= 1
    assert 200 <= int(img["width"]) <= 3 * 96
    # its smallest text: tick labels of seaborn's notebook context, 11 pt at 96 px per inch
    assert float(img["data-text-px"]) == pytest.approx(11 * 96 / 72, abs=0.01)


def test_search_index_and_page(site):
    out, _, _ = site
    assert (out / "pagefind" / "pagefind-ui.js").is_file()
    assert (out / "pagefind" / "pagefind-entry.json").is_file()
    page = soup(_page(out, "search.html"))
    assert page.find(id="search") is not None
    assert [s["src"] for s in page.find_all("script")] == ["site.js"]
    # only the text of the pages is indexed, not their navigation
    assert soup(_page(out, "a.html")).find("main").has_attr("data-pagefind-body")
    assert soup(_page(out, "a.html")).find("nav", class_="page-nav").has_attr("data-pagefind-ignore")


needs_chromium = pytest.mark.skipif(
    browser() is None, reason="no Chromium on this machine to open the pages (apt-get install "
                              "chromium); studies/site_layout.py measures the real site the same way")


@needs_chromium
def test_nothing_scrolls_sideways_at_1280_px_and_no_page_overflows_at_420_px(site):
    """scrollWidth <= clientWidth for every printed output, table and code block at 1280 px,
    and for the page at 420 px (before the stylesheet's fix a printed summary and a 99-character
    line of code scrolled at 1280 px)."""
    out, written, _ = site
    wide = measure(out / "c.html", 1280)
    assert wide["boxes"] == []
    # the measurement sees an overflow when there is one: the same page in a narrow window
    narrow = {out / "c.html": measure(out / "c.html", 420)}
    assert {b["kind"] for b in narrow[out / "c.html"]["boxes"]} >= {"output", "code"}
    for path in [out / "index.html", out / "a.html", out / "c.html", out / "reference/fit.html"]:
        page = (narrow.get(path) or measure(path, 420))["page"]  # c.html: measured just above
        assert page["scroll"] <= page["client"] == 420, path


_COPY_AND_MENUS_JS = r"""
window.addEventListener("load", function () {
  var out = {};
  var pres = Array.prototype.slice.call(document.querySelectorAll("main pre"));
  var example = pres.filter(function (p) { return p.textContent.indexOf(">>> print") >= 0; })[0];
  out.example = window.binaryevalCodeOf(example);
  out.example_button = !!example.parentNode.querySelector(".copy-button");
  var code = pres.filter(function (p) { return p.textContent.indexOf("long_name_for") >= 0; })[0];
  out.code = window.binaryevalCodeOf(code);
  out.output_buttons = document.querySelectorAll(".jp-OutputArea .copy-button").length;
  var menu = document.querySelector(".navbar details");
  menu.open = true;
  document.body.dispatchEvent(new MouseEvent("click", {bubbles: true}));
  out.closed_by_click = !menu.open;
  menu.open = true;
  document.dispatchEvent(new KeyboardEvent("keydown", {key: "Escape", bubbles: true}));
  out.closed_by_escape = !menu.open;
  menu.open = true;
  menu.querySelector("ul").dispatchEvent(new MouseEvent("click", {bubbles: true}));
  out.open_after_click_inside = menu.open;
  var pre = document.createElement("pre");
  pre.id = "layout-report"; pre.hidden = true; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
"""


@needs_chromium
def test_copy_buttons_and_menus_in_a_browser(site):
    out, _, _ = site
    got = evaluate(out / "c.html", _COPY_AND_MENUS_JS)
    # the prompts and the output line are left out; plain code is copied as it is
    assert got["example"] == "import binaryeval as be\nprint(1 +\n      1)\n"
    assert got["code"].startswith("long_name_for_a_value = sum(") and got["code"].endswith(")\n")
    assert got["example_button"] and got["output_buttons"] == 0
    assert got["closed_by_click"] and got["closed_by_escape"]
    assert got["open_after_click_inside"]


@needs_chromium
def test_search_finds_a_page_when_served(site):
    """The search page, served over HTTP under its own policy, lists the page that holds a word
    with the passage that matched (opened as a file, the page says how to serve it)."""
    out, _, _ = site
    copy = waiting_copy(out / "search.html")
    try:
        with serve(out) as root:
            dom = open_served(f"{root}/{copy.name}?q=callout")
    finally:
        copy.unlink()
    found = soup(dom).find("ol", class_="search-results")
    assert found is not None, dom[-2000:]
    assert [(a.get_text(), a["href"]) for a in found.find_all("a")] == [("Page A", "/a.html")]
    assert found.find("mark").get_text().startswith("callout")
    # the heading anchors' pilcrows are not part of the text
    assert "\u00b6" not in found.get_text()
    offline = evaluate(out / "search.html", """
window.addEventListener("load", function () {
  var pre = document.createElement("pre"); pre.id = "layout-report"; pre.hidden = true;
  pre.textContent = JSON.stringify({note: !document.getElementById("search-offline").hidden});
  document.body.appendChild(pre);
});""")
    assert offline["note"]


@needs_chromium
def test_long_unbreakable_names_do_not_widen_a_phone_page(tmp_path):
    """A title or a previous/next link holding one long name without spaces (an API page such as
    plan.detectable_difference_table) breaks inside the name at 420 px; it once made ten
    reference pages scroll sideways."""
    long_a = "binaryeval.plan.detectable_difference_table_of_a_long_name"
    long_b = "binaryeval.datasets.load_stb_convai2_ratings_of_a_long_name"
    (tmp_path / "_quarto.yml").write_text(
        "project:\n  type: website\n  output-dir: out\nwebsite:\n  title: Long\n"
        "  page-navigation: true\n  sidebar:\n    contents: [docs/a.qmd, docs/b.qmd]\n",
        encoding="utf-8")
    (tmp_path / "docs").mkdir()
    for name, title in (("a", long_a), ("b", long_b)):
        (tmp_path / "docs" / f"{name}.qmd").write_text(
            f"---\ntitle: {title}\n---\n\n## Part\n\nText.\n", encoding="utf-8")
    build_site(read_site_config(tmp_path / "_quarto.yml"), sorted((tmp_path / "docs").glob("*.qmd")),
               tmp_path / "out", timeout=120, notice=lambda _: None)
    for name, neighbour in (("a", long_b), ("b", long_a)):
        page = tmp_path / "out" / f"{name}.html"
        assert neighbour in soup(page.read_text(encoding="utf-8")).find("nav", class_="page-nav").get_text()
        got = measure(page, 420)["page"]
        assert got["scroll"] <= got["client"] == 420, name


def test_a_long_api_name_in_the_sidebar_breaks_after_its_dots_and_underscores():
    # the API sidebar broke "plan.DetectableDifferenceTable" inside the word ("...Ta" / "ble")
    from binaryeval._site.site import NavItem, _sidebar_items

    items = [NavItem("plan.DetectableDifferenceTable",
                     "reference/plan.DetectableDifferenceTable.html"),
             NavItem("plan.detectable_difference_table", "reference/plan.x.html"),
             NavItem("Getting started", "getting-started.html")]
    html_text = _sidebar_items(items, "reference/index.html")
    assert ">plan.<wbr>DetectableDifferenceTable</a>" in html_text
    assert ">plan.<wbr>detectable_<wbr>difference_<wbr>table</a>" in html_text
    assert ">Getting started</a>" in html_text
    assert 'href="plan.DetectableDifferenceTable.html"' in html_text   # the link itself unchanged
