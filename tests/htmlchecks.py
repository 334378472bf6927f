"""Checks on rendered HTML pages, shared by the site and vignette tests."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

# a column holds probabilities when its header is a p-value, a "prob..." name, "P(...)" or says so
PROBABILITY_HEADER = re.compile(
    r"^\s*(?:p[ _-]?val(?:ue)?s?|p_\w+|prob\w*|p\s*\(.*\)|.*\bprobability\b.*)\s*$", re.I)
E_NOTATION = re.compile(r"\d(?:\.\d*)?[eE][+-]?\d")
_REMOTE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.I)
# elements and attributes through which a page loads something (navigation links are not loads)
_LOADS = {"script": "src", "img": "src", "iframe": "src", "source": "src", "video": "src",
          "audio": "src", "embed": "src", "object": "data", "link": "href", "track": "src"}


def soup(page: str) -> BeautifulSoup:
    return BeautifulSoup(page, "html.parser")


def _doc(page: str | BeautifulSoup) -> BeautifulSoup:
    """The page parsed (a page parsed already is read as it is: the checks only read it)."""
    return page if isinstance(page, BeautifulSoup) else soup(page)


def external_resources(page: str | BeautifulSoup) -> list[str]:
    """URLs of scripts, styles, images, frames and fonts that the page would fetch remotely."""
    doc = _doc(page)
    found = []
    for tag, attr in _LOADS.items():
        for el in doc.find_all(tag):
            url = el.get(attr)
            if url and _REMOTE.match(url):
                found.append(f"<{tag} {attr}={url}>")
            for src in (el.get("srcset") or "").split(","):
                if src.strip() and _REMOTE.match(src.strip()):
                    found.append(f"<{tag} srcset={src.strip()}>")
    css = " ".join(s.get_text() for s in doc.find_all("style"))
    css += " ".join(el.get("style", "") for el in doc.find_all(style=True))
    found += [m for m in re.findall(r"url\(\s*['\"]?([^'\")]+)", css) if _REMOTE.match(m)]
    found += re.findall(r"@import\s+['\"]((?:[a-z]+:)?//[^'\"]+)", css, re.I)
    return found


def _positions(row) -> list[tuple[int, object]]:
    """(column position, cell) for each th/td of a table row, honouring colspan."""
    out, pos = [], 0
    for cell in row.find_all(["th", "td"], recursive=False):
        out.append((pos, cell))
        pos += int(cell.get("colspan", 1) or 1)
    return out


def e_notation_in_probability_columns(page: str | BeautifulSoup) -> list[str]:
    """Cells of rendered tables, in a column whose header names a probability, written with e+/e-.

    Returns "header: cell" for each offending cell.
    """
    bad = []
    for table in _doc(page).find_all("table"):
        rows = table.find_all("tr")
        head_rows = table.thead.find_all("tr") if table.thead else rows[:1]
        columns = {}
        for row in head_rows:
            for pos, cell in _positions(row):
                # a column name may hold <wbr> break opportunities: its parts are joined as is
                text = "".join(cell.stripped_strings)
                if PROBABILITY_HEADER.match(text):
                    columns[pos] = text
        if not columns:
            continue
        body = table.tbody.find_all("tr") if table.tbody else rows[len(head_rows):]
        for row in body:
            for pos, cell in _positions(row):
                text = cell.get_text(" ", strip=True)
                if pos in columns and E_NOTATION.search(text):
                    bad.append(f"{columns[pos]}: {text}")
    return bad


def local_links(page: str | BeautifulSoup) -> list[str]:
    """Every relative href/src of a page (anchors within the page included as '#x'); ``page`` is
    its text or its parsed document."""
    doc = _doc(page)
    links = [a["href"] for a in doc.find_all(["a", "link"], href=True)]
    links += [el["src"] for el in doc.find_all(src=True)]
    return [u for u in links if not _REMOTE.match(u) and not re.match(r"^[a-z]+:", u, re.I)]


def parsed(path: Path) -> BeautifulSoup:
    """The page at ``path`` parsed, once per file and test process (a site's pages are parsed
    by several checks; the files are written once, by a fixture, and only read after)."""
    return _parsed(*_key(path))


@cache
def _parsed(path: Path, mtime_ns: int, size: int) -> BeautifulSoup:
    return soup(path.read_text(encoding="utf-8"))


def ids(path: Path) -> frozenset:
    """The ``id`` of every element of the page at ``path``."""
    return _ids(*_key(path))


def _key(path: Path) -> tuple[Path, int, int]:
    """A file's cache key: rewritten in place, it is parsed anew."""
    path = Path(path).resolve()
    stat = path.stat()
    return path, stat.st_mtime_ns, stat.st_size


@cache
def _ids(path: Path, mtime_ns: int, size: int) -> frozenset:
    return frozenset(el.get("id") for el in _parsed(path, mtime_ns, size).find_all(id=True))


def broken_links(path: Path) -> list[str]:
    """Relative links of the page at ``path`` whose file, or whose #anchor, does not exist."""
    broken = []
    for link in local_links(parsed(path)):
        parts = urlsplit(link)
        target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
        if not target.is_file():
            broken.append(link)
            continue
        if parts.fragment and target.suffix == ".html":
            if unquote(parts.fragment) not in ids(target):
                broken.append(link)
    return broken


# elements that never come from the package's own writers: one in a page came from data
_FOREIGN = {"iframe", "object", "embed", "base", "form", "frame", "frameset", "applet", "svg",
            "math", "template", "audio", "video", "source", "input", "button", "textarea"}


def live_markup(page: str, *, images: str = "data:image/", scripts=frozenset()) -> list[str]:
    """Everything in ``page`` through which text from the data could act as markup.

    Script elements, event-handler attributes (``on...``), ``javascript:``/``vbscript:``/
    ``data:text/html`` URLs in any attribute (entities are decoded by the parser first), elements
    the package never writes (``iframe``, ``svg``, ``form``, ``base``, ...), images not embedded
    as data URIs, and ``<meta http-equiv="refresh">``.  The package writes none of these, so the
    list of a page made from hostile names is empty.  ``scripts``: the file names of the site's
    own script files, which a page may load (``<script src>`` without inline code).
    """
    found = []
    doc = soup(page)
    for el in doc.find_all("script"):
        src = str(el.get("src") or "")
        own = src and not re.match(r"^[a-z][a-z0-9+.-]*:|^//", src, re.I) \
            and src.rsplit("/", 1)[-1] in scripts and not el.get_text().strip()
        if not own:
            found.append(f"<script> {str(el)[:60]}")
    for el in doc.find_all(True):
        for attr, value in el.attrs.items():
            text = " ".join(value) if isinstance(value, list) else str(value)
            if attr.lower().startswith("on"):
                found.append(f"<{el.name} {attr}={text[:40]!r}>")
            squeezed = re.sub(r"[\s\x00-\x1f]+", "", text).lower()
            if re.search(r"(javascript|vbscript):|data:text/html", squeezed):
                found.append(f"<{el.name} {attr}={text[:40]!r}>")
        if el.name in _FOREIGN:
            found.append(f"<{el.name}>")
        if el.name == "img" and not str(el.get("src", "")).startswith(images):
            found.append(f"<img src={el.get('src')!r}>")
        if el.name == "meta" and str(el.get("http-equiv", "")).lower() == "refresh":
            found.append("<meta http-equiv=refresh>")
    return found


def content_security_policy(page: str) -> str | None:
    """The policy of the page's ``<meta http-equiv="Content-Security-Policy">``, if it has one
    before any other element of ``<head>`` but ``<meta charset>`` (a policy applies only to what
    follows it)."""
    head = soup(page).head
    if head is None:
        return None
    for el in head.find_all(True, recursive=False):
        if el.name == "meta" and el.get("charset"):
            continue
        if el.name == "meta" and str(el.get("http-equiv", "")).lower() == \
                "content-security-policy":
            return el.get("content")
        return None
    return None
