"""The API reference: one page per documented object, read from its numpydoc docstring with griffe.

The pages are described by the ``quartodoc:`` section of ``_quarto.yml``, as quartodoc reads it::

    quartodoc:
      package: binaryeval
      dir: reference
      sections:
        - title: The binary evaluation model
          desc: Fit the model, compare systems.
          contents:
            - fit                 # binaryeval.fit -> reference/fit.html
            - BinaryFit
        - title: Planning
          contents:
            - name: plan          # the module's page, and one page per public member
              children: separate  # (reference/plan.html, reference/plan.sample_size.html, ...)

An entry names an object relative to ``package``; a module entry with ``children: separate``
also documents every name in the module's ``__all__``.  A page shows the signature, the summary,
the parameters, returns, raises, notes and examples (as code); a class page lists its public
methods, each with its own signature and sections.  :func:`api_pages` builds them all, with the
index page ``reference/index.html`` listing every object with its one-line summary.
"""

from __future__ import annotations

import functools
import html
import importlib
import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import RenderError
from .pages import import_object, relative_href

__all__ = ["ApiEntry", "ApiSection", "api_pages", "read_api_sections"]


@dataclass
class ApiEntry:
    """One documented object: its name as written in the configuration and where its page goes."""

    name: str                 # relative to the package: "fit", "plan.sample_size"
    path: str                 # "binaryeval.fit"
    page: str                 # "reference/fit.html"
    kind: str = ""            # function, class, module, attribute
    summary: str = ""         # first line of the docstring
    members: list[ApiEntry] = field(default_factory=list)  # a module's separate pages


@dataclass
class ApiSection:
    """A titled group of entries (a section of the reference index)."""

    title: str
    desc: str
    entries: list[ApiEntry]


# ---------------------------------------------------------------------------------------------
# configuration
# ---------------------------------------------------------------------------------------------

def _kind(obj: Any) -> str:
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return "attribute"


def read_api_sections(config: dict[str, Any], directory: str | None = None,
                      *, notice=print) -> list[ApiSection]:
    """Read the ``quartodoc:`` mapping of ``_quarto.yml`` into sections of entries.

    Parameters
    ----------
    config : dict
        The ``quartodoc`` mapping (``package``, ``dir``, ``sections``).
    directory : str, optional
        The pages' folder in the site (default: ``config["dir"]``, else ``"reference"``).
    notice : callable
        Called with a message when a listed module cannot be imported (it is left out).

    Returns
    -------
    list of ApiSection

    Examples
    --------
    >>> from binaryeval._site.apiref import read_api_sections
    >>> secs = read_api_sections({"package": "binaryeval", "sections": [
    ...     {"title": "Fit", "contents": ["fit", {"name": "plan", "children": "separate"}]}]})
    >>> [(e.name, e.page, e.kind) for e in secs[0].entries]
    [('fit', 'reference/fit.html', 'function'), ('plan', 'reference/plan.html', 'module')]
    >>> secs[0].entries[1].members[0].page
    'reference/plan.AllocationResult.html'
    """
    package = str(config.get("package") or "binaryeval")
    folder = (directory or str(config.get("dir") or "reference")).strip("/")
    sections = []
    for number, sec in enumerate(config.get("sections") or [], 1):
        if not isinstance(sec, dict) or "contents" not in sec:
            raise RenderError(f"_quarto.yml quartodoc: section {number} needs 'title' and 'contents'")
        entries = []
        for item in sec["contents"]:
            spec = {"name": item} if isinstance(item, str) else dict(item)
            name = str(spec["name"])
            pkg = str(sec.get("package") or package)
            path = f"{pkg}.{name}"
            try:
                obj = import_object(path)
            except (ImportError, AttributeError):
                if "." not in name:  # a module that is not (yet) part of the package
                    notice(f"API reference: {path} cannot be imported; its pages are left out")
                    continue
                raise RenderError(f"_quarto.yml quartodoc: {path} does not exist; fix the name in "
                                  f"section {sec.get('title')!r}") from None
            entry = ApiEntry(name, path, f"{folder}/{name}.html", _kind(obj), _first_line(obj))
            if entry.kind == "module" and spec.get("children") == "separate":
                for member in getattr(obj, "__all__", []):
                    sub = getattr(obj, member)
                    entry.members.append(ApiEntry(f"{name}.{member}", f"{path}.{member}",
                                                  f"{folder}/{name}.{member}.html", _kind(sub),
                                                  _first_line(sub)))
            entries.append(entry)
        if entries:  # a section whose modules are all missing is left out
            sections.append(ApiSection(str(sec.get("title", "")), str(sec.get("desc", "") or ""),
                                       entries))
    return sections


def _first_line(obj: Any) -> str:
    doc = inspect.getdoc(obj) if not isinstance(obj, (int, float, str, tuple, list, dict)) else None
    if not doc or (not callable(obj) and not inspect.ismodule(obj)):
        return ""
    return doc.strip().split("\n\n")[0].replace("\n", " ")


# ---------------------------------------------------------------------------------------------
# griffe objects
# ---------------------------------------------------------------------------------------------

class _Docs:
    """The package read once by griffe (numpydoc docstrings), looked up by runtime names."""

    def __init__(self, package: str = "binaryeval"):
        top = importlib.import_module(package)
        folder = Path(top.__file__).resolve().parent
        self.package = package
        self.stamp = _sources_stamp(folder)
        self.root = _load(package, str(folder.parent), self.stamp)

    def get(self, path: str):
        """The griffe object documenting the runtime object ``path`` (follows re-exports)."""
        obj = import_object(path)
        rest = None
        if inspect.ismodule(obj):
            rest = obj.__name__
        elif getattr(obj, "__module__", None) and getattr(obj, "__qualname__", None):
            rest = f"{obj.__module__}.{obj.__qualname__}"
        candidates = [rest] if rest else []
        candidates.append(path)
        for cand in candidates:
            if not cand.startswith(self.package):
                continue
            inner = cand[len(self.package) + 1:]
            try:
                found = self.root[inner] if inner else self.root
                while found.is_alias:
                    found = found.final_target
                return found
            except Exception:  # noqa: BLE001 - griffe raises several kinds of lookup errors
                continue
        raise RenderError(f"API reference: griffe finds no source for {path}")


def _sources_stamp(folder: Path) -> tuple:
    """Name, size and modification time of every source file of the package."""
    return tuple(sorted((str(p.relative_to(folder)), st.st_size, st.st_mtime_ns)
                        for p in folder.rglob("*.py") for st in [p.stat()]))


@functools.lru_cache(maxsize=2)
def _load(package: str, search: str, stamp: tuple):
    """The package as griffe reads it, once per process while its sources stay as they were.

    A site and a second build of its reference read it once; an edit reads it anew.
    """
    import griffe

    return griffe.load(package, docstring_parser="numpy", search_paths=[search],
                       resolve_aliases=False)


# ---------------------------------------------------------------------------------------------
# docstring text to HTML
# ---------------------------------------------------------------------------------------------

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const):`(~?)([^`<]+?)`")
# a literal may run over a line break within its paragraph (reST allows it), never across one
_LITERAL = re.compile(r"``((?:(?!``|\n\s*\n).)+?)``", re.S)
_MATH = re.compile(r":math:`([^`]+)`")


def _markdown(text: str, module: str) -> str:
    """The prose of a numpydoc docstring (reST roles and literals) as HTML, names as interlinks."""
    import mistune

    def role(m: re.Match) -> str:
        short, name = m.group(1), m.group(2).strip()
        full = _qualify(name, module)
        if full is None:
            return f"`{name.rsplit('.', 1)[-1] if short else name}`"
        label = name.rsplit(".", 1)[-1] if short else name.lstrip(".")
        return f"[{label}](`{full}`)"

    text = _MATH.sub(lambda m: f"`{m.group(1)}`", text)
    text = _ROLE.sub(role, text)
    text = _LITERAL.sub(lambda m: "`" + " ".join(m.group(1).split("\n")) + "`", text)
    render = mistune.create_markdown(escape=True, plugins=["table"])
    out = render(text)
    # an interlink keeps its label in code, as the site's pages write it
    return re.sub(r'<a href="(%60[^"]+%60)">([^<]+)</a>', r'<a href="\1"><code>\2</code></a>', out)


def _qualify(name: str, module: str) -> str | None:
    """The full dotted name that ``name`` means inside ``module``, if it can be imported."""
    for cand in (name, f"binaryeval.{name}", f"{module}.{name.lstrip('.')}"):
        try:
            import_object(cand)
        except (ImportError, AttributeError):
            continue
        return cand if cand.startswith("binaryeval") else None
    return None


def _code(text: str, console: bool) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonConsoleLexer, PythonLexer

    text = re.sub(r"\s*#\s*doctest:[^\n]*", "", text)
    lexer = PythonConsoleLexer() if console else PythonLexer()
    return highlight(text, lexer, HtmlFormatter(cssclass="highlight"))


def _anchor(text: str) -> str:
    return re.sub(r"[^\w.-]+", "-", text.lower()).strip("-")


# ---------------------------------------------------------------------------------------------
# pages
# ---------------------------------------------------------------------------------------------

def _signature(obj, display: str) -> str:
    params = getattr(obj, "parameters", None)
    if params is None:
        return display
    parts, star_done = [], False
    for p in params:
        if p.name in ("self", "cls"):
            continue
        kind = str(getattr(p.kind, "value", p.kind))
        if kind == "keyword-only" and not star_done:
            parts.append("*")
            star_done = True
        if kind == "variadic positional":
            star_done = True
            parts.append(f"*{p.name}")
            continue
        if kind == "variadic keyword":
            parts.append(f"**{p.name}")
            continue
        text = p.name
        if p.annotation is not None:
            text += f": {p.annotation}"
        if p.default is not None:
            text += f" = {p.default}" if p.annotation is not None else f"={p.default}"
        parts.append(text)
    returns = getattr(obj, "returns", None)
    tail = f" -> {returns}" if returns is not None and obj.kind.value == "function" else ""
    one = f"{display}({', '.join(parts)}){tail}"
    if len(one) <= 88:
        return one
    return f"{display}(\n" + "".join(f"    {p},\n" for p in parts) + f"){tail}"


def _param_list(items, module: str, defaults: dict[str, str], *, anchor: str | None = None,
                types: dict[str, str] | None = None) -> str:
    """A ``<dl>`` of documented names.

    ``anchor`` prefixes an ``id`` on each (``cls.name``); ``types`` replaces the type of a name
    the docstring gives none of.
    """
    rows = []
    for it in items:
        raw_name = str(getattr(it, "name", "") or "")
        name = html.escape(raw_name)
        ann = getattr(it, "annotation", None)
        if types and raw_name in types:
            ann = types[raw_name]
        ann_text = f' : <span class="annotation">{html.escape(str(ann))}</span>' if ann else ""
        default = defaults.get(str(getattr(it, "name", "")))
        dflt = f' = <span class="annotation">{html.escape(default)}</span>' if default else ""
        head = f"<strong>{name}</strong>{ann_text}{dflt}" if name else ann_text.lstrip(" :")
        # a group ("n_rows, n_used") gives each of its names an anchor
        names = [n.strip() for n in raw_name.split(",") if n.strip()] if anchor else []
        ident = f' id="{html.escape(f"{anchor}.{names[0]}")}"' if names else ""
        head += "".join(f'<span id="{html.escape(f"{anchor}.{n}")}"></span>' for n in names[1:])
        rows.append(f"<dt{ident}>{head}</dt><dd>{_markdown(it.description or '', module)}</dd>")
    return '<dl class="api-params">' + "".join(rows) + "</dl>"


_SECTION_TITLES = {"parameters": "Parameters", "other parameters": "Other parameters",
                   "returns": "Returns", "yields": "Yields", "receives": "Receives",
                   "raises": "Raises", "warns": "Warns", "attributes": "Attributes",
                   "examples": "Examples", "deprecated": "Deprecated"}


def _untyped_names(raw: str) -> set[str]:
    """Names of the docstring's Parameters written without a type (``rho, eta`` alone on a line).

    griffe gives each name of such a group the type of the group's first name; the signature
    knows the type of each.
    """
    out: set[str] = set()
    for m in re.finditer(r"(?m)^([ \t]*)(\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*)[ \t]*(:[^\n]*)?$", raw):
        if m.group(3) is None or not m.group(3)[1:].strip():
            out |= {n.strip().lstrip("*") for n in m.group(2).split(",")}
    return out


def _signature_types(obj) -> dict[str, str]:
    """Each parameter's annotation in the signature, for the names the docstring gives no type."""
    params = getattr(obj, "parameters", None) or []
    if obj.docstring is None:
        return {}
    untyped = _untyped_names(obj.docstring.value)
    return {p.name: str(p.annotation) for p in params
            if p.annotation is not None and p.name in untyped}


def _sections(obj, module: str, level: int, prefix: str,
              owner: str | None = None) -> tuple[str, str]:
    """(summary HTML, sections HTML) of a griffe object's parsed docstring.

    ``owner`` (a class's dotted name) gives each documented attribute its ``id``.
    """
    doc = obj.docstring
    if doc is None:
        return "", ""
    defaults = {p.name: str(p.default) for p in (getattr(obj, "parameters", None) or [])
                if p.default is not None}
    types = _signature_types(obj)
    summary, out = [], []
    h = f"h{level}"
    for section in doc.parsed:
        kind = section.kind.value
        if kind == "text":
            (out if out else summary).append(_markdown(section.value, module))
            continue
        title = section.title or _SECTION_TITLES.get(kind, kind.title())
        if kind == "admonition":
            title = section.title or str(section.value.annotation or "").title()
        anchor = _anchor(f"{prefix}{title}")
        out.append(f'<{h} id="{anchor}">{html.escape(title)}</{h}>')
        if kind in ("parameters", "other parameters"):
            out.append(_param_list(section.value, module, defaults, types=types))
        elif kind == "attributes":
            out.append(_param_list(section.value, module, {}, anchor=owner))
        elif kind in ("returns", "yields", "receives", "raises", "warns"):
            out.append(_param_list(section.value, module, {}))
        elif kind == "examples":
            for sub_kind, text in section.value:
                if sub_kind.value == "examples":
                    out.append(_code(text, console=True))
                else:
                    out.append(_markdown(text, module))
        elif kind == "admonition":
            body = section.value.contents
            if title.lower() == "see also":
                body = re.sub(r"(?m)^(\S[^:\n]*?)(\s*:|$)", lambda m: _see_also(m, module), body)
            out.append(_markdown(body, module))
        elif kind == "deprecated":
            out.append(_markdown(f"{section.value.version}: {section.value.description}", module))
        else:
            out.append(_markdown(str(getattr(section, "value", "")), module))
    return "".join(summary), "".join(out)


def _see_also(m: re.Match, module: str) -> str:
    names = [n.strip() for n in m.group(1).split(",")]
    links = []
    for name in names:
        full = _qualify(name, module)
        links.append(f"[{name}](`{full}`)" if full else f"`{name}`")
    return "- " + ", ".join(links) + m.group(2)


def _attribute_doc(obj) -> str:
    """An attribute's docstring, or the ``#:`` comment above its assignment."""
    if obj.docstring is not None:
        return obj.docstring.value
    try:
        lines = Path(obj.filepath).read_text(encoding="utf-8").split("\n")
    except (OSError, TypeError):
        return ""
    comments, i = [], (obj.lineno or 1) - 2
    while i >= 0 and lines[i].lstrip().startswith("#:"):
        comments.insert(0, lines[i].lstrip()[2:].strip())
        i -= 1
    return " ".join(comments)


def _object_body(docs: _Docs, entry: ApiEntry) -> str:
    obj = docs.get(entry.path)
    module = obj.module.path if hasattr(obj, "module") else docs.package
    kind = entry.kind
    display = f"{docs.package}.{entry.name}"
    parts = [f'<header class="quarto-title"><p class="api-kind">{kind}</p>'
             f'<h1 class="title">{html.escape(entry.name)}</h1></header>']
    if kind == "attribute":
        value = getattr(obj, "value", None)
        parts.append(f'<pre class="api-signature"><code>{html.escape(display)}'
                     f'{" = " + html.escape(str(value)) if value is not None else ""}</code></pre>')
        parts.append(_markdown(_attribute_doc(obj), module))
        return "\n".join(parts)
    if kind == "module":
        parts.append(f'<pre class="api-signature"><code>import {html.escape(display)}</code></pre>')
        summary, sections = _sections(obj, module, 2, "")  # Examples as code, not as quotes
        parts += [summary, sections]
        if entry.members:
            parts.append('<h2 id="members">Members</h2>')
            parts.append(_member_table(entry.members, entry.page))
        return "\n".join(parts)
    documented_init = kind in ("class", "exception") and obj.docstring is not None and any(
        s.kind.value == "parameters" for s in obj.docstring.parsed)
    if kind == "function" or documented_init:
        parts.append(f'<pre class="api-signature"><code>{html.escape(_signature(obj, display))}'
                     "</code></pre>")
    else:
        bases = ", ".join(str(b) for b in getattr(obj, "bases", []))
        parts.append(f'<pre class="api-signature"><code>class {html.escape(display)}'
                     f'{"(" + html.escape(bases) + ")" if bases else ""}</code></pre>')
    summary, sections = _sections(obj, module, 2, "", owner=entry.path)
    parts += [summary, sections]
    if kind in ("class", "exception"):
        documented = {n.strip() for sec in (obj.docstring.parsed if obj.docstring else [])
                      if sec.kind.value == "attributes" for it in sec.value
                      for n in str(it.name).split(",")}
        parts.append(_members(docs, obj, entry, module, documented))
    return "\n".join(p for p in parts if p)


def _runtime_members(runtime) -> dict[str, str]:
    """The public members of a class that the package defines: ``name -> kind``.

    Kinds are method, property and attribute (dataclass fields included); what ``object``,
    ``Exception`` or ``Warning`` define is left out.  A method attached after the class
    (``BinaryFit.plan``) is found too.
    """
    import dataclasses

    out: dict[str, str] = {}
    for klass in reversed(runtime.__mro__):
        if not (klass.__module__ or "").startswith("binaryeval"):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_"):
                continue
            if isinstance(value, (property, functools.cached_property)):
                out[name] = "property"
            elif inspect.isfunction(value) or isinstance(value, (staticmethod, classmethod)):
                out[name] = "method"
            else:
                out[name] = "attribute"
    if dataclasses.is_dataclass(runtime):
        for f in dataclasses.fields(runtime):
            if not f.name.startswith("_"):
                out.setdefault(f.name, "attribute")
    return dict(sorted(out.items()))


def _griffe_member(docs: _Docs, cls, runtime, name: str):
    """The griffe object of ``runtime.name``.

    The class's member, else (a function attached after the class) the function itself.
    """
    members = cls.all_members if hasattr(cls, "all_members") else cls.members
    member = members.get(name)
    if member is not None:
        try:
            while member.is_alias:
                member = member.final_target
            return member
        except Exception:  # noqa: BLE001 - an unresolvable inherited name: look at the runtime
            pass
    value = inspect.getattr_static(runtime, name, None)
    value = getattr(value, "__func__", value)
    value = getattr(value, "fget", value)
    path = f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"
    if path.startswith(docs.package + "."):
        try:
            return docs.root[path[len(docs.package) + 1:]]
        except Exception:  # noqa: BLE001 - griffe raises several kinds of lookup errors
            return None
    return None


def _members(docs: _Docs, cls, entry: ApiEntry, module: str, documented: set[str]) -> str:
    """The class's properties, its other attributes and its methods.

    Each has an anchor ``<class path>.<name>`` (attributes the class's docstring documents have
    theirs there).
    """
    runtime = import_object(entry.path)
    kinds = _runtime_members(runtime)
    short = entry.name.rsplit(".", 1)[-1]
    out = []
    props = [n for n, k in kinds.items() if k == "property"]
    if props:
        out.append('<h2 id="properties">Properties</h2>')
        for name in props:
            member = _griffe_member(docs, cls, runtime, name)
            anchor = f"{entry.path}.{name}"
            ann = getattr(member, "annotation", None) if member is not None else None
            sig = f"{short}.{name}" + (f" : {ann}" if ann is not None else "")
            summary, sections = (_sections(member, module, 4, f"{name}-")
                                 if member is not None else ("", ""))
            out.append(f'<section class="api-member"><h3 id="{html.escape(anchor)}">{name}</h3>'
                       f'<pre class="api-signature"><code>{html.escape(sig)}</code></pre>'
                       f"{summary}{sections}</section>")
    fields = [n for n, k in kinds.items() if k == "attribute" and n not in documented]
    if fields:
        rows = []
        for name in fields:
            member = _griffe_member(docs, cls, runtime, name)
            ann = getattr(member, "annotation", None) if member is not None else None
            ann_text = f' : <span class="annotation">{html.escape(str(ann))}</span>' if ann else ""
            text = _attribute_doc(member) if member is not None else ""
            rows.append(f'<dt id="{html.escape(f"{entry.path}.{name}")}"><strong>{name}</strong>'
                        f"{ann_text}</dt><dd>{_markdown(text, module)}</dd>")
        title = "Other attributes" if documented else "Attributes"
        out.append(f'<h2 id="{_anchor(title)}">{title}</h2>'
                   f'<dl class="api-params">{"".join(rows)}</dl>')
    methods = []
    for name in (n for n, k in kinds.items() if k == "method"):
        member = _griffe_member(docs, cls, runtime, name)
        if member is not None and member.kind.value == "function":
            methods.append((name, member))
    if methods:
        rows = "".join(
            f'<tr><td><a href="#{html.escape(entry.path)}.{name}"><code>{name}</code></a></td>'
            f"<td>{_markdown(_summary_line(m), module)}</td></tr>" for name, m in methods)
        out += ['<h2 id="methods">Methods</h2>',
                f'<table class="api-index"><tbody>{rows}</tbody></table>']
        for name, member in methods:
            anchor = f"{entry.path}.{name}"
            summary, sections = _sections(member, module, 4, f"{name}-")
            out.append(f'<section class="api-member"><h3 id="{html.escape(anchor)}">{name}</h3>'
                       f'<pre class="api-signature"><code>'
                       f"{html.escape(_signature(member, short + '.' + name))}"
                       f"</code></pre>{summary}{sections}</section>")
    return "\n".join(out)


def _summary_line(obj) -> str:
    if obj.docstring is None:
        return ""
    return obj.docstring.value.strip().split("\n\n")[0].replace("\n", " ")


def _member_table(entries: list[ApiEntry], page: str) -> str:
    rows = "".join(
        f'<tr><td><a href="{html.escape(relative_href(e.page, page))}"><code>{html.escape(e.name)}'
        f"</code></a></td><td>{_markdown(e.summary, 'binaryeval')}</td></tr>" for e in entries)
    return f'<table class="api-index"><tbody>{rows}</tbody></table>'


def _index_body(sections: list[ApiSection], page: str, title: str) -> str:
    parts = [f'<header class="quarto-title"><h1 class="title">{html.escape(title)}</h1>'
             "<p class=\"subtitle\">Every public function and class, from its docstring.</p>"
             "</header>"]
    for sec in sections:
        parts.append(f'<h2 id="{_anchor(sec.title)}">{html.escape(sec.title)}</h2>')
        if sec.desc:
            parts.append(_markdown(sec.desc, "binaryeval"))
        flat = []
        for e in sec.entries:
            flat.append(e)
            flat.extend(e.members)
        parts.append(_member_table(flat, page))
    return "\n".join(parts)


def api_pages(sections: list[ApiSection], index_page: str = "reference/index.html",
              title: str = "API reference", package: str = "binaryeval") -> dict[str, tuple[str, str]]:
    """The reference pages: ``{page path: (title, HTML fragment)}``, index first.

    The fragments still hold interlinks (``<a href="`binaryeval.fit`">``) for
    :func:`binaryeval._site.pages.finish_body` to resolve.

    Examples
    --------
    >>> from binaryeval._site.apiref import api_pages, read_api_sections
    >>> secs = read_api_sections({"sections": [{"title": "Fit", "contents": ["fit"]}]})
    >>> pages = api_pages(secs)
    >>> list(pages)
    ['reference/index.html', 'reference/fit.html']
    >>> "Parameters" in pages["reference/fit.html"][1]
    True
    """
    docs = _Docs(package)
    key = (docs.stamp, package, index_page, title, repr(sections))
    entries = [e for sec in sections for entry in sec.entries for e in [entry, *entry.members]]
    if key in _LAST_PAGES:  # the same reference of the same sources, built before
        summaries, pages = _LAST_PAGES[key]
        for e in entries:
            e.summary = summaries.get(e.path, e.summary)
        return dict(pages)
    summaries = {}
    for e in entries:
        if e.kind == "attribute" and not e.summary:
            e.summary = summaries[e.path] = _attribute_doc(docs.get(e.path)).split("\n\n")[0]
    pages = {index_page: (title, _index_body(sections, index_page, title))}
    for e in entries:
        pages[e.page] = (e.name, _object_body(docs, e))
    _LAST_PAGES.clear()
    _LAST_PAGES[key] = (summaries, dict(pages))
    return pages


#: the pages :func:`api_pages` built last, by what they were built from (the package's sources
#: among it): a site and a second look at its reference (a test, a rebuild) build them once
_LAST_PAGES: dict[tuple, tuple[dict[str, str], dict[str, tuple[str, str]]]] = {}
