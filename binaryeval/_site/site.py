"""Build the documentation website described by ``_quarto.yml``, without Quarto.

``quarto render`` builds the site from ``_quarto.yml`` when Quarto is installed; without it,
:func:`build_site` reads the same file and builds the same structure with the Jupyter stack:

- ``website: title`` and ``navbar`` (``left``/``right`` lists of pages, ``menu`` dropdowns) give
  the navbar of every page; ``sidebar`` (``section`` / ``contents``) the sidebar; the order of the
  sidebar gives the previous/next links (``page-navigation: true``);
- ``format: html: toc: true`` gives each page a table of contents of its ``h2``/``h3``
  headings (a page's ``toc: false`` header key turns it off);
- ``quartodoc:`` gives the API reference (:mod:`binaryeval._site.apiref`), with its own sidebar;
- ``vignettes/index.qmd`` becomes the landing page ``index.html``; its header's ``listing:``
  (``contents`` = the showcase files, as Quarto's grid listings read them) becomes cards with the
  showcase's title, its ``description`` and a thumbnail: the page's ``image:`` header key, or
  else the first figure of the rendered page, shrunk.

Pages are written flat into the output folder (``vignettes/x.qmd`` -> ``reports/x.html``,
API pages into ``reports/reference/``), with one stylesheet ``site.css`` beside them; a page
loads nothing else, so the site reads offline.  A page listed in ``_quarto.yml`` whose file is
missing is left out of the navigation, with a message.

Links between pages are written as in Quarto: ``[the planning page](planning.qmd#budgets)``
links the rendered page.  Link to the API reference as quartodoc's interlinks filter reads it:
``[](`binaryeval.fit`)`` (shows ``binaryeval.fit``), ``[](`~binaryeval.fit`)`` (shows ``fit``),
``[fit the model](`binaryeval.fit`)`` (shows the text); a method links into its class's page,
e.g. ``[](`~binaryeval.BinaryFit.compare`)``.  A name that does not exist stops the rendering.
"""

from __future__ import annotations

import base64
import html
import io
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._validate import renamed
from ..errors import RenderError
from .apiref import ApiSection, api_pages, read_api_sections
from .pages import (
    SEARCH_CONTENT_SECURITY_POLICY,
    SITE_CONTENT_SECURITY_POLICY,
    Heading,
    finish_body,
    import_object,
    layout,
    relative_href,
    site_css,
    site_js,
)

__all__ = ["SiteConfig", "build_site", "find_site_config", "read_site_config"]

CSS_FILE = "site.css"
JS_FILE = "site.js"
SEARCH_PAGE = "search.html"


@dataclass
class NavItem:
    """A navigation entry: a page (``href``), an external link, or a menu/section of entries."""

    text: str
    href: str | None = None           # the page's path in the site, or an external URL
    items: list[NavItem] = field(default_factory=list)


@dataclass
class SiteConfig:
    """What ``_quarto.yml`` says about the website."""

    path: Path
    raw: dict[str, Any]

    @property
    def root(self) -> Path:
        """The project's folder (where ``_quarto.yml`` is)."""
        return self.path.parent

    @property
    def website(self) -> dict[str, Any]:
        """The ``website:`` mapping."""
        return self.raw.get("website") or {}

    @property
    def title(self) -> str:
        """The site's title (navbar brand)."""
        return str(self.website.get("title") or "Documentation")

    @property
    def output_dir(self) -> Path:
        """``project: output-dir`` (default ``_site``), relative to the project."""
        return self.root / str((self.raw.get("project") or {}).get("output-dir") or "_site")

    @property
    def toc(self) -> bool:
        """``format: html: toc``."""
        fmt = (self.raw.get("format") or {}).get("html") or {}
        return bool(fmt.get("toc", False)) if isinstance(fmt, dict) else False

    @property
    def html_format(self) -> dict[str, Any]:
        """``format: html:`` (the options a document inherits, e.g. ``code-fold``)."""
        fmt = (self.raw.get("format") or {}).get("html") or {}
        return fmt if isinstance(fmt, dict) else {}

    @property
    def version(self) -> str | None:
        """The version shown beside the title.

        ``website: version``, else the documented package's ``__version__`` (``quartodoc:
        package``).
        """
        if self.website.get("version"):
            return str(self.website["version"])
        package = (self.api or {}).get("package")
        if not package:
            return None
        try:
            import importlib

            return str(getattr(importlib.import_module(str(package)), "__version__", "")) or None
        except ImportError:
            return None

    @property
    def page_navigation(self) -> bool:
        """``website: page-navigation``."""
        return bool(self.website.get("page-navigation", False))

    @property
    def api(self) -> dict[str, Any] | None:
        """The ``quartodoc:`` mapping, if any."""
        return self.raw.get("quartodoc")


def find_site_config(start: str | Path) -> Path | None:
    r"""The ``_quarto.yml`` of a website project in ``start`` (a folder or file) or its parents.

    Examples
    --------
    >>> from pathlib import Path
    >>> from binaryeval._site.site import find_site_config
    >>> import tempfile
    >>> project = Path(tempfile.mkdtemp())
    >>> _ = (project / "_quarto.yml").write_text("project:\n  type: website\n")
    >>> (project / "pages").mkdir()
    >>> find_site_config(project / "pages") == project / "_quarto.yml"
    True
    """
    from .documents import _yaml

    start = Path(start).resolve()
    for folder in [start if start.is_dir() else start.parent, *start.parents]:
        cfg = folder / "_quarto.yml"
        if cfg.is_file():
            conf = _yaml(cfg.read_text(encoding="utf-8"), str(cfg))
            kind = (conf.get("project") or {}).get("type")
            return cfg if kind == "website" else None
    return None


def read_site_config(path: str | Path) -> SiteConfig:
    r"""Read a ``_quarto.yml``.

    Examples
    --------
    >>> from pathlib import Path
    >>> from binaryeval._site.site import read_site_config
    >>> import tempfile
    >>> project = Path(tempfile.mkdtemp())
    >>> _ = (project / "_quarto.yml").write_text(
    ...     "project:\n  type: website\nwebsite:\n  title: Demo\n")
    >>> read_site_config(project / "_quarto.yml").title
    'Demo'
    """
    from .documents import _yaml

    path = Path(path).resolve()
    return SiteConfig(path, _yaml(path.read_text(encoding="utf-8"), str(path)))


# ---------------------------------------------------------------------------------------------
# the site's pages
# ---------------------------------------------------------------------------------------------

@dataclass
class _Page:
    out: str                      # path in the site, e.g. "planning.html"
    title: str
    source: Path | None = None    # the .qmd document (None: an API page)
    header: dict[str, Any] = field(default_factory=dict)
    fragment: str = ""
    body: str = ""
    headings: list[Heading] = field(default_factory=list)


class _Site:
    """The pages of one build and the links between them."""

    def __init__(self, config: SiteConfig, docs: Sequence[Path], notice):
        from .documents import _split_header

        self.config = config
        said: set[str] = set()

        def once(message: str) -> None:  # a page missing from navbar and sidebar is said once
            if message not in said:
                said.add(message)
                notice(message)

        self.notice = once
        self.pages: dict[str, _Page] = {}
        self.by_source: dict[Path, str] = {}
        for doc in docs:
            out = f"{doc.stem}.html"
            if out in self.pages:
                raise RenderError(f"{doc} and {self.pages[out].source} would both be written to "
                                  f"{out}; rename one")
            header, _ = _split_header(doc.read_text(encoding="utf-8"), str(doc))
            self.pages[out] = _Page(out, str(header.get("title") or doc.stem), doc.resolve(), header)
            self.by_source[doc.resolve()] = out
        self.api_sections: list[ApiSection] = []
        self.api_index: str | None = None
        self.api_names: dict[str, str] = {}
        if config.api:
            self._add_api(config.api)
        self.navbar_left = self._nav_list((config.website.get("navbar") or {}).get("left") or [])
        self.navbar_right = self._nav_list((config.website.get("navbar") or {}).get("right") or [])
        sidebar = config.website.get("sidebar") or {}
        if isinstance(sidebar, list):  # several sidebars: the first is the site's
            sidebar = sidebar[0] if sidebar else {}
        self.sidebar = self._nav_list(sidebar.get("contents") or [])

    # -- the API reference ---------------------------------------------------------------------
    def _add_api(self, api: dict[str, Any]) -> None:
        folder = str(api.get("dir") or "reference").strip("/")
        self.api_sections = read_api_sections(api, folder, notice=self.notice)
        self.api_index = f"{folder}/index.html"
        title = str(api.get("title") or "API reference")
        self.pages[self.api_index] = _Page(self.api_index, title)
        self.by_source[(self.config.root / folder / "index.qmd").resolve()] = self.api_index
        for sec in self.api_sections:
            for entry in sec.entries:
                for e in [entry, *entry.members]:
                    self.pages[e.page] = _Page(e.page, e.name)
                    self.by_source[(self.config.root / folder / f"{e.name}.qmd").resolve()] = e.page
                    self.api_names[e.path] = e.page

    def api_link(self, name: str, page: str) -> str | None:
        """The link from ``page`` to the reference of ``name`` (a method: its class's page)."""
        import inspect

        target = self.api_names.get(name)
        if target is None:
            # a method or attribute of a documented class, or a name re-exported elsewhere
            head, _, tail = name.rpartition(".")
            if head in self.api_names and tail:
                try:  # a member has its anchor on the page; a module below has no page
                    target = (None if inspect.ismodule(import_object(name))
                              else f"{self.api_names[head]}#{name}")
                except (ImportError, AttributeError):
                    target = None
            else:
                try:
                    obj = import_object(name)
                except (ImportError, AttributeError):
                    return None
                for path, out in self.api_names.items():
                    try:
                        same = import_object(path) is obj and not inspect.ismodule(obj) or path == name
                    except (ImportError, AttributeError):
                        same = False
                    if same:
                        target = out
                        break
        return relative_href(target, page) if target else None

    # -- navigation ----------------------------------------------------------------------------
    def _nav_list(self, entries: list[Any]) -> list[NavItem]:
        items = []
        for entry in entries:
            item = self._nav_item(entry)
            if item is not None:
                items.append(item)
        return items

    def _nav_item(self, entry: Any) -> NavItem | None:
        if isinstance(entry, str):
            entry = {"href": entry}
        if not isinstance(entry, dict):
            raise RenderError(f"{self.config.path}: a navigation entry must be a path or a mapping, "
                              f"got {entry!r}")
        children = entry.get("menu") or entry.get("contents")
        if children is not None:
            text = str(entry.get("text") or entry.get("section") or "")
            sub = self._nav_list(children if isinstance(children, list) else [children])
            if not sub:
                return None
            href = self._resolve(entry["href"]) if entry.get("href") else None
            return NavItem(text, href, sub)
        href = entry.get("href") or entry.get("file")
        if not href:
            return None
        href = str(href)
        if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I):
            return NavItem(str(entry.get("text") or href), href)
        target = self._resolve(href)
        if target is None:
            self.notice(f"{self.config.path.name}: {href} is listed in the navigation but there is "
                        "no such document; it is left out")
            return None
        return NavItem(str(entry.get("text") or self.pages[target].title), target)

    def _resolve(self, href: str) -> str | None:
        path, _, fragment = href.partition("#")
        target = self.by_source.get((self.config.root / path).resolve())
        if target is None and path.endswith(".html"):
            target = path if path in self.pages else None
        return target

    def resolver(self, page: _Page):
        """Maps a ``.qmd`` link written in ``page`` to its ``href`` (None: not in the site)."""
        def resolve(path: str) -> str | None:
            base = page.source.parent if page.source else self.config.root
            target = self.by_source.get((base / path).resolve())
            if target is None:
                target = self.by_source.get((self.config.root / path).resolve())
            return relative_href(target, page.out) if target else None

        return resolve


# ---------------------------------------------------------------------------------------------
# HTML of the navigation
# ---------------------------------------------------------------------------------------------

def _flat(items: list[NavItem]) -> list[NavItem]:
    out = []
    for item in items:
        if item.href and not re.match(r"^[a-z][a-z0-9+.-]*:", item.href, re.I):
            out.append(item)
        out.extend(_flat(item.items))
    return out


def _contains(item: NavItem, page: str) -> bool:
    return item.href == page or any(_contains(i, page) for i in item.items)


def _navbar(site: _Site, page: str) -> str:
    def link(item: NavItem) -> str:
        href = item.href if re.match(r"^[a-z][a-z0-9+.-]*:", item.href or "", re.I) else \
            relative_href(item.href, page)
        return f'<a class="nav-link" href="{html.escape(href)}">{html.escape(item.text)}</a>'

    def entries(items: list[NavItem]) -> str:
        out = []
        for item in items:
            active = ' class="active"' if _contains(item, page) else ""
            if item.items:
                menu = "".join(f'<li{" class=" + chr(34) + "active" + chr(34) if i.href == page else ""}>'
                               f"{link(i)}</li>" for i in _flat(item.items))
                out.append(f"<li{active}><details><summary>{html.escape(item.text)}</summary>"
                           f'<ul class="menu">{menu}</ul></details></li>')
            else:
                out.append(f"<li{active}>{link(item)}</li>")
        return "".join(out)

    home = relative_href("index.html", page)
    search = relative_href(SEARCH_PAGE, page)
    active = ' class="active"' if page == SEARCH_PAGE else ""
    right = (f'<ul class="nav-right">{entries(site.navbar_right)}'
             f'<li{active}><a class="nav-link nav-search" href="{html.escape(search)}">Search</a>'
             "</li></ul>")
    version = site.config.version
    version = f'<span class="version" title="version">{html.escape(version)}</span>' if version \
        else ""
    return (f'<header class="navbar"><nav class="navbar-inner" aria-label="Site">'
            f'<a class="brand" href="{home}">{html.escape(site.config.title)}</a>{version}'
            f'<ul class="nav-left">{entries(site.navbar_left)}</ul>{right}</nav></header>')


def _sidebar_items(items: list[NavItem], page: str) -> str:
    out = []
    for item in items:
        if item.items:
            out.append(f'<p class="section-title">{html.escape(item.text)}</p>'
                       f"<ul>{_sidebar_items(item.items, page)}</ul>")
        elif item.href:
            active = ' class="active"' if item.href == page else ""
            href = item.href if re.match(r"^[a-z][a-z0-9+.-]*:", item.href, re.I) else \
                relative_href(item.href, page)
            # an API name breaks after its dots and underscores (plan.<wbr>DetectableDifference
            # Table), not wherever the column ends ("plan.DetectableDifferenceTa" / "ble")
            text = re.sub(r"([._])(?=\w)", r"\1<wbr>", html.escape(item.text))
            out.append(f'<li{active}><a href="{html.escape(href)}">{text}</a></li>')
    return "".join(out)


def _api_sidebar(site: _Site) -> list[NavItem]:
    items = [NavItem(site.pages[site.api_index].title, site.api_index)] if site.api_index else []
    for sec in site.api_sections:
        entries = []
        for entry in sec.entries:
            entries.append(NavItem(entry.name, entry.page))
            entries.extend(NavItem(m.name, m.page) for m in entry.members)
        items.append(NavItem(sec.title, None, entries))
    return items


def _page_nav(order: list[NavItem], page: str, site: _Site) -> str:
    pages = [i.href for i in order]
    if page not in pages:
        return ""
    at = pages.index(page)
    parts = []
    if at > 0:
        prev = order[at - 1]
        parts.append(f'<a class="prev" href="{html.escape(relative_href(prev.href, page))}">'
                     f"<small>&larr; Previous</small>{html.escape(prev.text)}</a>")
    if at + 1 < len(pages):
        nxt = order[at + 1]
        parts.append(f'<a class="next" href="{html.escape(relative_href(nxt.href, page))}">'
                     f"<small>Next &rarr;</small>{html.escape(nxt.text)}</a>")
    return (f'<nav class="page-nav" aria-label="Previous and next page" data-pagefind-ignore>'
            f'{"".join(parts)}</nav>') \
        if parts else ""


# ---------------------------------------------------------------------------------------------
# the landing page's cards
# ---------------------------------------------------------------------------------------------

_FIRST_IMG = re.compile(r'<img[^>]*\ssrc="(data:image/(?:png|jpeg);base64,[^"]+)"')


def _thumbnail(page: _Page) -> str | None:
    """A small data URI: the page's ``image:`` header file, else its first figure."""
    image = page.header.get("image")
    raw = None
    if image and page.source is not None:
        file = (page.source.parent / str(image)).resolve()
        if not file.is_file():
            raise RenderError(f"{page.source}: image: {image} does not exist")
        raw = file.read_bytes()
    else:
        m = _FIRST_IMG.search(page.fragment)
        if m:
            raw = base64.b64decode(m.group(1).split(",", 1)[1])
    if raw is None:
        return None
    try:
        from PIL import Image
    except ImportError:  # pillow comes with matplotlib; keep the full image otherwise
        return "data:image/png;base64," + base64.b64encode(raw).decode()
    img = Image.open(io.BytesIO(raw)).convert("RGB")
    img.thumbnail((480, 480))
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=85)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode()


def _listing(site: _Site, index: _Page) -> tuple[str, str]:
    """The listing's element id and its cards' HTML."""
    spec = index.header.get("listing")
    if not spec:
        return "", ""
    if isinstance(spec, list):
        spec = spec[0]
    ident = str(spec.get("id") or "listing")
    contents = spec.get("contents") or []
    cards = []
    for item in contents if isinstance(contents, list) else [contents]:
        source = (index.source.parent / str(item)).resolve()
        out = site.by_source.get(source)
        if out is None:
            site.notice(f"{index.source.name}: the listing names {item}, which is not rendered; "
                        "no card for it")
            continue
        page = site.pages[out]
        thumb = _thumbnail(page)
        img = (f'<div class="thumb"><img src="{thumb}" alt="Preview: first figure of '
               f'{html.escape(page.title)}"></div>' if thumb else "")
        text = page.header.get("description") or page.header.get("subtitle") or ""
        cards.append(f'<a class="card" href="{html.escape(relative_href(out, index.out))}">{img}'
                     f'<div class="card-body"><p class="card-title">{html.escape(page.title)}</p>'
                     f'<p class="card-text">{html.escape(str(text))}</p></div></a>')
    return ident, f'<div class="cards">{"".join(cards)}</div>'


def _insert_listing(body: str, ident: str, cards: str) -> str:
    marker = re.compile(rf'(<div[^>]*\sid="{re.escape(ident)}"[^>]*>)(\s*</div>)')
    if marker.search(body):
        return marker.sub(lambda m: m.group(1) + cards + m.group(2), body, count=1)
    return body + cards


# ---------------------------------------------------------------------------------------------
# the build
# ---------------------------------------------------------------------------------------------

def _notice(message: str) -> None:
    print(f"binaryeval render: {message}", file=sys.stderr)


@renamed(out_dir="output_dir")
def build_site(config: SiteConfig, docs: Sequence[Path], output_dir: Path, *, timeout: int = 600,
               kernel_name: str = "python3", index: bool = True, notice=_notice) -> list[Path]:
    r"""Render ``docs`` and the API reference as the website ``config`` describes.

    Parameters
    ----------
    config : SiteConfig
        The website (:func:`read_site_config`).
    docs : sequence of Path
        The ``.qmd`` documents; one named ``index.qmd`` is the landing page.
    output_dir : Path
        Where the pages go.
    timeout, kernel_name
        As for :func:`binaryeval._site.documents.render_document`.
    index : bool, default True
        Render the landing page (``index.qmd``).
    notice : callable
        Receives the messages about pages left out (default: printed to stderr).

    Returns
    -------
    list of Path
        Every page written: the documents in the order given, then the API reference.

    Examples
    --------
    >>> from pathlib import Path
    >>> from binaryeval._site.site import build_site, read_site_config
    >>> import tempfile
    >>> project = Path(tempfile.mkdtemp())
    >>> _ = (project / "_quarto.yml").write_text(
    ...     "project:\n  type: website\nwebsite:\n  title: Demo\n  navbar:\n    left:\n"
    ...     "      - href: index.qmd\n        text: Home\n")
    >>> _ = (project / "index.qmd").write_text("---\ntitle: Home\n---\n\nWelcome.\n")
    >>> pages = build_site(read_site_config(project / "_quarto.yml"), [project / "index.qmd"],
    ...                    project / "site")
    >>> [p.name for p in pages]   # the page and the search page
    ['index.html', 'search.html']
    """
    from .documents import execute_document

    docs = [d for d in docs if index or d.stem != "index"]
    site = _Site(config, docs, notice)
    # the landing page last: its cards show the other pages' first figures
    for doc in sorted(docs, key=lambda d: d.stem == "index"):
        page = site.pages[site.by_source[doc.resolve()]]
        nb, page.fragment = execute_document(doc, timeout=timeout, kernel_name=kernel_name,
                                             format_defaults=config.html_format)
    if site.api_index:
        for out, (title, fragment) in api_pages(site.api_sections, site.api_index,
                                                site.pages[site.api_index].title,
                                                str(config.api.get("package") or "binaryeval")).items():
            site.pages[out].title = site.pages[out].title or title
            site.pages[out].fragment = fragment
    output_dir.mkdir(parents=True, exist_ok=True)
    (output_dir / CSS_FILE).write_text(site_css(), encoding="utf-8")
    (output_dir / JS_FILE).write_text(site_js(), encoding="utf-8")
    site.pages[SEARCH_PAGE] = _Page(SEARCH_PAGE, "Search", fragment=_SEARCH_BODY)
    order = _flat(site.sidebar)
    api_side = _api_sidebar(site)
    api_order = _flat(api_side)
    written = []
    for out, page in site.pages.items():
        where = str(page.source or f"API reference page {out}")
        body, headings = finish_body(page.fragment, where=where, resolve_page=site.resolver(page),
                                     api_link=lambda name, _p=out: site.api_link(name, _p),
                                     base=page.source.parent if page.source else None)
        if page.source is not None and page.source.stem == "index":
            ident, cards = _listing(site, page)
            if ident:
                body = _insert_listing(body, ident, cards)
        is_api = page.source is None and out != SEARCH_PAGE
        side_items = api_side if is_api else site.sidebar
        sidebar = _sidebar_items(side_items, out)
        show_toc = config.toc and page.header.get("toc", True) is not False and out != "index.html"
        html_page = layout(
            title=page.title, body=body, headings=headings if show_toc else [],
            css_href=relative_href(CSS_FILE, out), navbar=_navbar(site, out), sidebar=sidebar,
            sidebar_inline=sidebar,
            page_nav=_page_nav(api_order if is_api else order, out, site)
            if config.page_navigation else "",
            site_title=config.title, footer=_footer(config),
            description=str(page.header.get("description") or ""),
            scripts=(relative_href(JS_FILE, out),),
            csp=SEARCH_CONTENT_SECURITY_POLICY if out == SEARCH_PAGE
            else SITE_CONTENT_SECURITY_POLICY)
        target = output_dir / out
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html_page, encoding="utf-8")
        written.append(target)
    _search_index(output_dir, notice)
    return written


_SEARCH_BODY = """<header class="quarto-title"><h1 class="title">Search</h1></header>
<div id="search" class="search" data-root="."></div>
<div id="search-offline" class="callout-note" hidden>
<p>The search runs in the browser from an index beside the pages, which a browser does not load
for pages opened as files. Serve the folder, e.g. <code>python -m http.server -d reports</code>,
and open <code>http://localhost:8000/search.html</code>.</p></div>
<div id="search-missing" class="callout-note" hidden>
<p>This copy of the site was built without its search index (install <code>pagefind[bin]</code>
and render it again).</p></div>
<noscript><p>The search needs JavaScript.</p></noscript>
"""


def _search_index(output_dir: Path, notice) -> None:
    """Pagefind's full-text index of the pages' text, in ``pagefind/`` beside them.

    ``pagefind`` (PyPI ``pagefind[bin]``, in the ``reports`` extra) indexes the ``<main>`` of
    every page (navigation, contents and page links left out); without it the search page says
    so, and the rest of the site is unchanged.
    """
    import importlib.util
    import subprocess

    if importlib.util.find_spec("pagefind") is None:
        notice("no search index: install pagefind (pip install 'pagefind[bin]') and render again")
        return
    run = subprocess.run([sys.executable, "-m", "pagefind", "--site", str(output_dir),
                          "--keep-index-url", "--include-characters", "_", "--quiet"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RenderError(f"pagefind could not index {output_dir} (exit {run.returncode}):\n"
                          f"{(run.stderr or run.stdout)[-2000:]}")


def _footer(config: SiteConfig) -> str:
    footer = config.website.get("page-footer")
    if isinstance(footer, dict):
        footer = footer.get("center") or footer.get("left") or ""
    return html.escape(str(footer)) if footer else ""
