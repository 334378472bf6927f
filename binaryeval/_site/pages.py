"""The HTML around a rendered document: page layout, stylesheet, links, tables and contents.

A document's cells come out of nbconvert as a fragment (``templates/nbconvert/binaryeval``); the
functions here turn the fragment into a page:

- :func:`finish_body` wraps every table in a box that scrolls sideways on a narrow screen,
  resolves links (``other.qmd#part`` becomes ``other.html#part``; an API link written as Quarto's
  interlinks filter reads it, ``[](`binaryeval.fit`)``, becomes a link to the reference page),
  drops ``@import`` of web fonts from inline styles, and lists the ``h2``/``h3`` headings for
  the table of contents;
- :func:`layout` puts navbar, sidebar, contents and page navigation around it;
- :func:`site_css` is the one stylesheet (``assets/site.css`` plus the code-highlighting rules),
  linked as a file by the site's pages and inlined in a single self-contained document.
"""

from __future__ import annotations

import copy
import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from posixpath import relpath
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import RenderError

__all__ = ["CONTENT_SECURITY_POLICY", "SEARCH_CONTENT_SECURITY_POLICY",
           "SITE_CONTENT_SECURITY_POLICY", "Heading", "finish_body", "layout", "relative_href",
           "site_css", "site_js"]

#: the Content-Security-Policy of a single document and of the user report: no script at all,
#: nothing loaded but the page's own stylesheet and images (and inline styles and data: images),
#: no forms, no <base>.  So a name from the data that slipped through unescaped could not run.
CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'none'; img-src 'self' data:; "
                           "style-src 'self' 'unsafe-inline'; font-src 'self' data:; "
                           "base-uri 'none'; form-action 'none'; object-src 'none'")
#: the policy of a website page: the same, but scripts from the site's own files may run (the
#: copy buttons, the navbar menus that close); an inline script, an event-handler attribute or
#: ``eval`` still cannot, so text from data cannot run either.  The pages work without them.
SITE_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace("script-src 'none'",
                                                               "script-src 'self'")
#: the search page's: Pagefind's search runs as WebAssembly and fetches its index
SEARCH_CONTENT_SECURITY_POLICY = (
    SITE_CONTENT_SECURITY_POLICY.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")
    + "; connect-src 'self'")

# quartodoc's interlinks syntax: the link target is a Python name in backticks; "~" shows only
# the last part of the name ([](`~binaryeval.fit`) reads "fit")
_INTERLINK = re.compile(r"^`(~?)([A-Za-z_][\w.]*)`$")
_FONT_IMPORT = re.compile(r"@import\s+url\(\s*['\"]?(?:https?:)?//[^)]*\)\s*;?", re.I)
_EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)


@dataclass
class Heading:
    """One ``h2``/``h3`` heading of a page: its level, anchor and text."""

    level: int
    anchor: str
    text: str
    children: list[Heading] = field(default_factory=list)


@lru_cache(maxsize=1)
def site_css() -> str:
    """The stylesheet of every page: ``assets/site.css`` and Pygments' code colours.

    Examples
    --------
    >>> from binaryeval._site.pages import site_css
    >>> ".navbar" in site_css() and ".highlight .k" in site_css()
    True
    """
    from pygments.formatters import HtmlFormatter

    own = (files("binaryeval._site") / "assets" / "site.css").read_text(encoding="utf-8")
    code = HtmlFormatter(style="friendly").get_style_defs(".highlight")
    code = code.replace(".highlight { background: #f0f0f0; }", ".highlight { background: none; }")
    # Pygments names each token type in a comment ("Generic.Traceback", "Generic.Error"); a
    # page's text is searched for such words when it is checked for failed chunks
    code = re.sub(r"\s*/\*.*?\*/", "", code)
    return own + "\n/* code highlighting (Pygments, style 'friendly') */\n" + code + "\n"


def site_js() -> str:
    """The script of the website's pages (``assets/site.js``): navbar menus, copy buttons.

    Examples
    --------
    >>> "clipboard" in site_js()
    True
    """
    return (files("binaryeval._site") / "assets" / "site.js").read_text(encoding="utf-8")


def relative_href(target: str, page: str) -> str:
    """The link from the page at ``page`` to ``target`` (both relative to the site's root).

    Examples
    --------
    >>> from binaryeval._site.pages import relative_href
    >>> relative_href("reference/fit.html", "getting-started.html")
    'reference/fit.html'
    >>> relative_href("index.html", "reference/fit.html")
    '../index.html'
    """
    target, _, fragment = target.partition("#")
    start = page.rsplit("/", 1)[0] if "/" in page else "."
    href = relpath(target, start) if target else ""
    return href + (f"#{fragment}" if fragment else "")


def _soup(fragment: str):
    from bs4 import BeautifulSoup

    return BeautifulSoup(fragment, "html.parser")


def _heading_text(tag) -> str:
    for anchor in tag.find_all("a", class_="anchor-link"):
        anchor.extract()
    text = tag.get_text(" ", strip=True)
    return text


def finish_body(fragment: str, *, where: str,
                resolve_page: Callable[[str], str | None] | None = None,
                api_link: Callable[[str], str | None] | None = None,
                base: Path | None = None) -> tuple[str, list[Heading]]:
    """Post-process a document's HTML fragment (see the module's docstring).

    Parameters
    ----------
    fragment : str
        The cells' HTML.
    where : str
        The document, for messages.
    resolve_page : callable, optional
        Maps a local ``.qmd`` link target (as written, without ``#fragment``) to the ``href`` of
        the rendered page, or None when the page is not part of the site (a
        :class:`~binaryeval.errors.RenderError` then names the broken link).  Without it,
        ``x.qmd`` becomes ``x.html`` beside the page.
    api_link : callable, optional
        Maps a Python name (``binaryeval.fit``) to the ``href`` of its reference page, or None
        when there is no page (the name is then shown as code, unlinked).  Without it, names
        are shown as code.
    base : Path, optional
        The document's folder: a markdown image with a relative path is read from there and
        embedded as a data URI.

    Returns
    -------
    (str, list of Heading)
        The fragment and its ``h2`` headings, each with its ``h3`` children.

    Examples
    --------
    >>> from binaryeval._site.pages import finish_body
    >>> body, toc = finish_body('<h2 id="a">A</h2><p><a href="b.qmd#x">b</a></p>', where="doc")
    >>> body
    '<h2 id="a">A</h2><p><a href="b.html#x">b</a></p>'
    >>> [(h.level, h.anchor, h.text) for h in toc]
    [(2, 'a', 'A')]
    """
    soup = _soup(fragment)
    _pandoc_ids(soup)
    for link in soup.find_all("a", href=True):
        href = unquote(link["href"])
        inter = _INTERLINK.match(href)
        if inter:
            _interlink(soup, link, inter.group(2), short=bool(inter.group(1)), where=where,
                       api_link=api_link)
            continue
        if _EXTERNAL.match(href) or href.startswith("#"):
            continue
        path = urlsplit(href).path
        if path.endswith((".qmd", ".ipynb")):
            fragment_id = urlsplit(href).fragment
            if resolve_page is None:
                target = re.sub(r"\.(qmd|ipynb)$", ".html", path)
            else:
                target = resolve_page(path)
                if target is None:
                    raise RenderError(f"{where}: the link to {href!r} points at no page of the "
                                      "site; fix the file name or add the document to the site")
            link["href"] = target + (f"#{fragment_id}" if fragment_id else "")
    for anchor in soup.find_all("a", class_="anchor-link"):  # not part of the searched text
        anchor["data-pagefind-ignore"] = ""
    for img in soup.find_all("img"):
        src = unquote(img.get("src", ""))
        if src and base is not None and not _EXTERNAL.match(src) and not src.startswith("data:"):
            img["src"] = _data_uri(base / src, where)
        if not img.has_attr("alt"):  # the words nbconvert's HTML exporter gives such an image
            img["alt"] = "No description has been provided for this image"
    for table in soup.find_all("table"):
        _breakable_headers(soup, table)
        parent = table.parent
        if parent is not None and "table-wrap" in (parent.get("class") or []):
            continue
        box = soup.new_tag("div", attrs={"class": "table-wrap"})
        table.wrap(box)
    for style in soup.find_all("style"):
        if style.string and _FONT_IMPORT.search(style.string):
            style.string = _FONT_IMPORT.sub("", style.string)
    headings: list[Heading] = []
    for tag in soup.find_all(["h2", "h3"]):
        if not tag.get("id") or "no-toc" in (tag.get("class") or []):
            continue
        text = _heading_text(copy.copy(tag))  # a copy: the page keeps its anchor links
        item = Heading(int(tag.name[1]), tag["id"], text)
        if item.level == 3 and headings:
            headings[-1].children.append(item)
        elif item.level == 2:
            headings.append(item)
    return str(soup), headings


def _breakable_headers(soup, table) -> None:
    """Let a column name break after its underscores (``prob_1_<wbr>better``) when space is short.

    A wide table's headers are mostly snake_case names longer than the numbers below them; a
    break opportunity there lets the table fit the text column instead of scrolling sideways.
    """
    from bs4 import NavigableString

    for cell in table.find_all("th"):
        for text in list(cell.find_all(string=True)):
            if "_" not in text or type(text) is not NavigableString:
                continue
            parts = re.split(r"(?<=_)", str(text))
            nodes = []
            for i, part in enumerate(parts):
                if i:
                    nodes.append(soup.new_tag("wbr"))
                nodes.append(NavigableString(part))
            text.replace_with(*nodes)


def _data_uri(file: Path, where: str) -> str:
    import base64
    import mimetypes

    if not file.is_file():
        raise RenderError(f"{where}: the image {file} does not exist")
    kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    return f"data:{kind};base64," + base64.b64encode(file.read_bytes()).decode()


def pandoc_id(text: str) -> str:
    """The identifier Pandoc (and so Quarto) gives a heading with this text.

    Non-alphanumeric characters other than ``_``, ``-`` and ``.`` are dropped, spaces become
    hyphens, letters lower case, and everything before the first letter goes.

    Examples
    --------
    >>> from binaryeval._site.pages import pandoc_id
    >>> pandoc_id("2. The fit: what it means!")
    'the-fit-what-it-means'
    """
    text = "".join(c for c in text if c.isalnum() or c in "_-. \n\t")
    text = re.sub(r"\s+", "-", text.strip()).lower()
    text = re.sub(r"^[^a-z]+", "", text) if re.search(r"[a-z]", text) else ""
    return text or "section"


def _pandoc_ids(soup) -> None:
    """Give markdown headings Pandoc's identifiers; links to the old identifiers follow.

    So ``page.qmd#the-fit`` links the same heading with Quarto and here.
    """
    renamed, seen = {}, set()
    for tag in soup.find_all(["h1", "h2", "h3", "h4", "h5", "h6"]):
        anchor = tag.find("a", class_="anchor-link")
        if anchor is None or not tag.get("id"):
            continue
        text = _heading_text(copy.copy(tag))  # a copy: the page keeps its anchor links
        new, n = pandoc_id(text), 0
        while new in seen:
            n += 1
            new = f"{pandoc_id(text)}-{n}"
        seen.add(new)
        renamed[tag["id"]] = new
        tag["id"] = new
        anchor["href"] = f"#{new}"
    if renamed:
        for link in soup.find_all("a", href=True):
            if link["href"].startswith("#") and link["href"][1:] in renamed:
                link["href"] = "#" + renamed[link["href"][1:]]


def _interlink(soup, link, name: str, *, short: bool, where: str, api_link) -> None:
    if not name.split(".")[0] == "binaryeval":
        raise RenderError(f"{where}: the API link [](`{name}`) names no binaryeval object; write "
                          "the full name, e.g. [](`binaryeval.fit`)")
    _check_name(name, where)
    href = api_link(name) if api_link is not None else None
    label = link.get_text() or (name.rsplit(".", 1)[-1] if short else name)
    code = soup.new_tag("code")
    code.string = label
    if href is None:
        link.replace_with(code)
    else:
        link.clear()
        link.append(code)
        link["href"] = href
        link["class"] = ["api-link"]


def import_object(path: str) -> Any:
    """The object named ``path`` (``module.object.attribute``), imported.

    The longest importable prefix is the module; the rest are attributes.

    Raises
    ------
    ImportError
        No prefix of ``path`` is an importable module.
    AttributeError
        The module (or an object in it) lacks the next name; the message names both.

    Examples
    --------
    >>> from binaryeval._site.pages import import_object
    >>> import_object("binaryeval.plan.sample_size").__name__
    'binaryeval.plan.sample_size'
    """
    import importlib

    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                raise AttributeError(f"{'.'.join(parts[:cut])} has no attribute {attr!r}")
            obj = getattr(obj, attr)
        return obj
    raise ImportError(path)


def _check_name(name: str, where: str) -> None:
    """Import ``name`` (``module.object.attribute``) or raise a RenderError saying why not."""
    try:
        import_object(name)
    except AttributeError as exc:
        raise RenderError(f"{where}: the API link [](`{name}`) names nothing: {exc}") from None
    except ImportError:
        raise RenderError(f"{where}: the API link [](`{name}`) names no importable module") from None


def toc_html(headings: list[Heading]) -> str:
    """The nested list of a page's headings."""
    def items(hs: list[Heading]) -> str:
        out = []
        for h in hs:
            sub = f"<ul>{items(h.children)}</ul>" if h.children else ""
            out.append(f'<li><a href="#{html.escape(h.anchor)}">{html.escape(h.text)}</a>{sub}</li>')
        return "".join(out)

    return f"<ul>{items(headings)}</ul>" if headings else ""


@lru_cache(maxsize=1)
def _template():
    import jinja2

    text = (files("binaryeval._site") / "templates" / "page.html.j2").read_text(encoding="utf-8")
    env = jinja2.Environment(autoescape=False, trim_blocks=True, lstrip_blocks=True)
    return env.from_string(text)


def layout(*, title: str, body: str, headings: list[Heading] | None = None,
           css_href: str | None = None, navbar: str = "", sidebar: str = "",
           sidebar_inline: str = "", page_nav: str = "", site_title: str = "",
           footer: str = "", description: str = "", scripts: tuple[str, ...] = (),
           styles: tuple[str, ...] = (), csp: str | None = None) -> str:
    """The full HTML page around a finished body.

    ``css_href`` links the stylesheet file (site pages); without it the stylesheet is inlined
    (a single self-contained document).  Every page carries ``csp``, by default
    :data:`CONTENT_SECURITY_POLICY` (no script).  ``navbar``, ``sidebar`` and ``page_nav`` are
    HTML made by :mod:`binaryeval._site.site`; empty strings leave them out.  ``scripts`` and
    ``styles`` are the links of script files and further stylesheets (a website's pages).

    Examples
    --------
    >>> from binaryeval._site.pages import layout
    >>> page = layout(title="T", body="<p>x</p>")
    >>> "<title>T</title>" in page and "<style>" in page and "<script" not in page
    True
    >>> "Content-Security-Policy" in page
    True
    """
    toc = toc_html(headings or [])
    return _template().render(
        title=html.escape(title), page_title=html.escape(f"{title} – {site_title}" if site_title
                                                          and site_title != title else title),
        body=body, toc=toc, css_href=css_href, css=None if css_href else site_css(),
        navbar=navbar, sidebar=sidebar, sidebar_inline=sidebar_inline, page_nav=page_nav,
        footer=footer, description=html.escape(description),
        csp=csp or CONTENT_SECURITY_POLICY, scripts=[html.escape(src) for src in scripts],
        styles=[html.escape(href) for href in styles])
