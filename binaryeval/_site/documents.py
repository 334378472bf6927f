"""Render one Quarto document (``.qmd``) to HTML that loads nothing from the network.

With the ``quarto`` command on the PATH, :func:`~binaryeval._site.rendering.render` hands the files
to ``quarto render``.  Without it, each document is rendered here with the Jupyter stack:

1. the YAML header is read (``title``, ``subtitle``, ``author``, ``date``, ``execute``, ``toc``,
   ``description``);
2. the body is read as R Markdown with jupytext (``fmt="Rmd"``; jupytext's own ``qmd`` reader calls
   the quarto binary); every ```` ```{python} ```` chunk becomes a code cell; Quarto's fenced divs
   (``::: {.callout-note}`` ... ``:::``) become ``<div>`` blocks;
3. the Quarto chunk options written as ``#| key: value`` lines are taken out of the code and mapped
   to cell tags: ``include: false`` removes the cell, ``echo: false`` its code, ``output: false`` its
   output, ``eval: false`` leaves it unexecuted, ``warning: false`` drops its stderr stream (where
   Python warnings go), ``error: true`` lets it fail, ``fig-cap`` adds a caption under its output,
   ``fig-alt`` is the alt text of its figures (default: the caption), ``label`` names the chunk in
   error messages, ``code-fold: true`` (or ``show``) puts its code in a folded (open) box titled
   ``code-summary``; document-level ``execute:`` options are defaults, and so are ``code-fold``
   and ``code-summary`` in the project's or the document's ``format: html:``;
4. the notebook is executed with nbclient in a ``python3`` kernel whose matplotlib backend is the
   inline one (set through ``MPLBACKEND`` in the kernel's environment), so figures are embedded;
   on Linux the kernel is forked from a warm process that imported the kernel and the usual
   modules once (:mod:`binaryeval._site.kernels`; ``BINARYEVAL_COLD_KERNELS=1`` starts every
   kernel anew);
   before the first chunk the kernel runs :func:`binaryeval._site.theme.set_theme`, the one figure
   theme of every page; an error in a chunk stops the rendering with a :class:`RenderError`
   naming file and chunk; a document with no chunk to run (text only, or every chunk
   ``eval: false``) starts no kernel;
5. nbconvert's ``HTMLExporter`` with the template ``templates/nbconvert/binaryeval`` (cells only:
   no require.js, MathJax or mermaid from a CDN) and a ``TagRemovePreprocessor`` writes the cells;
   :mod:`binaryeval._site.pages` puts the page around them (stylesheet, table of contents, tables
   that scroll in their own box, ``.qmd`` links made ``.html``, API links).

A folder inside a website project (a ``_quarto.yml`` with ``project: type: website``) becomes that
website (:mod:`binaryeval._site.site`, which also explains how to link pages and the API
reference); single files each become one self-contained page, the stylesheet inlined.  Math is not
typeset (no MathJax): write formulas as code, e.g. ``rho + eta <= 1``.

Examples
--------
The showcase site, as ``make reports`` builds it (the functions' own examples render small
documents and run as doctests)::

    from binaryeval._site import render
    render(["vignettes"], output_dir="reports")
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable
from contextlib import ExitStack
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import ParameterError, RenderError

__all__ = ["execute_document", "find_documents", "project_output_dir", "read_qmd", "render_document"]

_HEADER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_OPTION = re.compile(r"^#\|\s?(.*)$")
_ENGINES = ("auto", "quarto", "jupyter")
# chunk options understood here; anything else after "#|" is kept in the metadata and ignored
_KNOWN = {"label", "echo", "include", "output", "eval", "warning", "error", "fig-cap", "fig-alt",
          "code-fold", "code-summary"}
_INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


# ---------------------------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------------------------

def _yaml(text: str, where: str) -> dict[str, Any]:
    import yaml

    try:
        value = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        raise RenderError(f"{where}: invalid YAML ({exc}); fix the syntax") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RenderError(f"{where}: expected 'key: value' lines, got {value!r}")
    return value


def _split_header(text: str, where: str) -> tuple[dict[str, Any], str]:
    match = _HEADER.match(text)
    if not match:
        return {}, text
    return _yaml(match.group(1), f"{where} (YAML header)"), text[match.end():]


def _chunk_options(source: str, where: str) -> tuple[dict[str, Any], str]:
    """Split the leading ``#|`` lines of a chunk from its code."""
    lines = source.split("\n")
    opts: list[str] = []
    i = 0
    while i < len(lines):
        m = _OPTION.match(lines[i])
        if not m:
            break
        opts.append(m.group(1))
        i += 1
    options = _yaml("\n".join(opts), where) if opts else {}
    return options, "\n".join(lines[i:]).strip("\n")


def _truthy(value: Any, key: str, where: str) -> bool:
    if isinstance(value, bool):
        return value
    # Quarto's "echo: fenced" shows the code and "output: asis" shows the output
    if (key, value) in (("echo", "fenced"), ("output", "asis")):
        return True
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise RenderError(f"{where}: chunk option {key}: {value!r} must be true or false")


def read_qmd(path: str | Path, text: str | None = None, *,
             format_defaults: dict[str, Any] | None = None):
    r"""Read a ``.qmd`` file into an nbformat notebook ready to execute.

    Code cells carry their chunk options in ``cell.metadata["quarto"]`` and the tags
    ``remove_cell`` (include: false), ``remove_input`` (echo: false), ``remove_output``
    (output: false) and ``skip-execution`` (eval: false).  The header is in
    ``nb.metadata["quarto"]`` and the title in ``nb.metadata["title"]``.

    Parameters
    ----------
    path : str or Path
        The document (used for messages and, when ``text`` is None, read from disk).
    text : str, optional
        The document's text.
    format_defaults : dict, optional
        The project's ``format: html:`` options (``_quarto.yml``); ``code-fold`` and
        ``code-summary`` there are the defaults of the document's chunks.

    Returns
    -------
    nbformat.NotebookNode

    Examples
    --------
    >>> from binaryeval._site.documents import read_qmd
    >>> nb = read_qmd("x.qmd", text="---\ntitle: T\n---\n\n```{python}\n#| echo: false\n1 + 1\n```\n")
    >>> nb.cells[-1].source, nb.cells[-1].metadata["tags"]
    ('1 + 1', ['remove_input'])
    """
    import jupytext
    import nbformat

    path = Path(path)
    if text is None:
        text = path.read_text(encoding="utf-8")
    header, body = _split_header(text, str(path))
    defaults = header.get("execute") or {}
    if not isinstance(defaults, dict):
        raise RenderError(f"{path}: 'execute' in the YAML header must be a mapping, got {defaults!r}")
    fold_defaults = _fold_defaults(format_defaults, header, str(path))
    nb = jupytext.reads(body, fmt="Rmd")
    nb.metadata.pop("jupytext", None)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["quarto"] = header
    title = header.get("title")
    if title:
        nb.metadata["title"] = str(title)
        nb.cells.insert(0, nbformat.v4.new_markdown_cell(_title_block(header)))

    n_code = 0
    n_fig = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = _fenced_divs(cell.source)
        if cell.cell_type != "code":
            continue
        n_code += 1
        where = f"{path} (chunk {n_code})"
        options, code = _chunk_options(cell.source, where)
        opts = {k: v for k, v in defaults.items() if k in _KNOWN - {"label", "fig-cap"}}
        opts.update(options)
        label = str(opts.get("label", f"chunk-{n_code}"))
        where = f"{path} (chunk '{label}')"
        flags = {k: _truthy(opts[k], k, where)
                 for k in ("echo", "include", "output", "eval", "warning", "error") if k in opts}
        tags: list[str] = []
        if not flags.get("include", True):
            tags.append("remove_cell")
        if not flags.get("echo", True):
            tags.append("remove_input")
        if not flags.get("output", True):
            tags.append("remove_output")
        if not flags.get("eval", True):
            tags.append("skip-execution")
        for key, value in fold_defaults.items():
            opts.setdefault(key, value)
        if "code-fold" in opts:
            opts["code-fold"] = _fold_value(opts["code-fold"], where)
        cell.source = code
        cell.metadata = {"tags": tags, "quarto": {**opts, "label": label}}
        if "fig-cap" in opts:
            n_fig += 1
            cell.metadata["quarto"]["figure_number"] = n_fig
    return nb


def _fold_value(value: Any, where: str) -> bool | str:
    """``code-fold``: true (folded), false (shown) or "show" (shown, foldable)."""
    if isinstance(value, bool) or value == "show":
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise RenderError(f"{where}: code-fold: {value!r} must be true, false or show")


def _fold_defaults(project: dict[str, Any] | None, header: dict[str, Any],
                   where: str) -> dict[str, Any]:
    """``code-fold`` / ``code-summary`` for the chunks of a document, as Quarto reads them.

    The project's ``format: html:``, then the document's own (top level or under
    ``format: html:``); a chunk's ``#| code-fold:`` wins over all.
    """
    out: dict[str, Any] = {}
    doc_format = (header.get("format") or {}) if isinstance(header.get("format"), dict) else {}
    doc_html = doc_format.get("html") if isinstance(doc_format.get("html"), dict) else {}
    for source in (project or {}, header, doc_html):
        for key in ("code-fold", "code-summary"):
            if key in source:
                out[key] = source[key]
    if "code-fold" in out:
        out["code-fold"] = _fold_value(out["code-fold"], where)
    return out


_DIV_OPEN = re.compile(r"^(:{3,})\s*(?:\{([^}]*)\}|([\w-]+))\s*$")
_DIV_CLOSE = re.compile(r"^:{3,}\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def _div_attributes(spec: str) -> str:
    """Pandoc's ``{#id .class key="value"}`` as HTML attributes."""
    ids, classes, attrs = [], [], []
    for token in re.findall(r'[#.][\w-]+|[\w-]+="[^"]*"|[\w-]+=\S+', spec):
        if token.startswith("#"):
            ids.append(token[1:])
        elif token.startswith("."):
            classes.append(token[1:])
        else:
            key, _, value = token.partition("=")
            attrs.append(f' {key}="{html.escape(value.strip(chr(34)))}"')
    out = f' id="{html.escape(ids[0])}"' if ids else ""
    out += f' class="{html.escape(" ".join(classes))}"' if classes else ""
    return out + "".join(attrs)


def _fenced_divs(text: str) -> str:
    """Quarto's fenced divs (``::: {.callout-note}`` ... ``:::``) as HTML ``<div>`` blocks.

    The blank lines around the tags keep the markdown between them markdown.
    """
    out: list[str] = []
    depth = 0
    fence = None
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if m:
            fence = None if fence and m.group(1).startswith(fence) else (fence or m.group(1))
        if fence:
            out.append(line)
            continue
        opened = _DIV_OPEN.match(line)
        if opened:
            spec = opened.group(2) if opened.group(2) is not None else f".{opened.group(3)}"
            out += ["", f"<div{_div_attributes(spec)}>", ""]
            depth += 1
        elif _DIV_CLOSE.match(line) and depth:
            out += ["", "</div>", ""]
            depth -= 1
        else:
            out.append(line)
    return "\n".join(out)


def _title_block(header: dict[str, Any]) -> str:
    parts = [f"<h1 class=\"title\">{html.escape(str(header['title']))}</h1>"]
    if header.get("subtitle"):
        parts.append(f"<p class=\"subtitle\">{html.escape(str(header['subtitle']))}</p>")
    author = header.get("author")
    if author:
        if isinstance(author, list):
            author = ", ".join(a.get("name", str(a)) if isinstance(a, dict) else str(a) for a in author)
        elif isinstance(author, dict):
            author = author.get("name", str(author))
        parts.append(f"<p class=\"author\">{html.escape(str(author))}</p>")
    if header.get("date"):
        parts.append(f"<p class=\"date\">{html.escape(str(header['date']))}</p>")
    return "<header class=\"quarto-title\">\n" + "\n".join(parts) + "\n</header>"


# ---------------------------------------------------------------------------------------------
# executing
# ---------------------------------------------------------------------------------------------

def _kernel_env() -> dict[str, str]:
    env = dict(os.environ)
    env["MPLBACKEND"] = _INLINE_BACKEND
    # the kernel imports the same binaryeval as the process that renders
    # (the folder holding the package; relative PYTHONPATH entries are made absolute, as the
    # kernel runs in the document's folder)
    here = str(Path(__file__).resolve().parents[2])
    paths = [str(Path(p).resolve()) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    installed = Path(here).name in ("site-packages", "dist-packages")
    if here not in paths and not installed:
        paths.insert(0, here)
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def _execute(nb, path: Path, timeout: int, kernel_name: str) -> None:
    from jupyter_client.kernelspec import NoSuchKernel
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    if all("skip-execution" in cell.metadata["tags"] for cell in code):
        # nothing to run (text only, or every chunk eval: false): no kernel is started
        for cell in code:
            cell.outputs = []
        return
    from .kernels import kernel_manager_class

    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name, allow_errors=False,
                            resources={"metadata": {"path": str(path.parent.resolve())}},
                            kernel_manager_class=kernel_manager_class())
    with ExitStack() as stack:
        try:
            # the kernel's own log (e.g. its notice about local TCP ports) is not the reader's
            # business; errors in the documents still arrive through the cells
            client.extra_arguments = ["--IPKernelApp.log_level=ERROR"]
            stack.enter_context(client.setup_kernel(env=_kernel_env()))
        except NoSuchKernel:
            raise RenderError(f"{path}: no Jupyter kernel named {kernel_name!r}; install one with "
                              "`python -m pip install ipykernel && python -m ipykernel install --user`"
                              ) from None
        _setup_kernel(client, path)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            meta = cell.metadata["quarto"]
            if "skip-execution" in cell.metadata["tags"]:
                cell.outputs = []
                continue
            allow = bool(meta.get("error") is True)
            try:
                client.execute_cell(cell, index)
            except CellTimeoutError as exc:
                raise RenderError(f"{path}: chunk '{meta['label']}' did not finish within {timeout} s "
                                  f"(raise timeout=)") from exc
            except CellExecutionError as exc:
                if not allow:
                    raise RenderError(f"{path}: chunk '{meta['label']}' failed:\n{_error_text(cell)}"
                                      ) from exc
            errors = [o for o in cell.outputs if o.get("output_type") == "error"]
            if errors and not allow:
                raise RenderError(f"{path}: chunk '{meta['label']}' failed:\n{_error_text(cell)}")
            if meta.get("warning") is False:
                cell.outputs = [o for o in cell.outputs
                                if not (o.get("output_type") == "stream" and o.get("name") == "stderr")]
            if "fig-cap" in meta:
                _add_caption(cell, meta)


# run in the kernel before a document's first chunk: the package's figure theme
# (figures drawn at twice their size, and warnings shown by class and text, not by the path of
# the kernel's temporary file).  The theme module is loaded from its file: importing it through
# the package would import all of binaryeval first, which a page that never uses it need not pay
_THEME = Path(__file__).resolve().parent / "theme.py"
_KERNEL_SETUP = """\
import importlib.util as _binaryeval_util
_binaryeval_spec = _binaryeval_util.spec_from_file_location("_binaryeval_theme", {theme!r})
_binaryeval_theme = _binaryeval_util.module_from_spec(_binaryeval_spec)
_binaryeval_spec.loader.exec_module(_binaryeval_theme)
_binaryeval_theme.set_theme()
_binaryeval_theme.sharp_figures()
del _binaryeval_util, _binaryeval_spec, _binaryeval_theme
import warnings as _binaryeval_warnings
_binaryeval_warnings.formatwarning = (
    lambda message, category, filename, lineno, line=None: f"{{category.__name__}}: {{message}}\\n")
del _binaryeval_warnings
"""


def _setup_kernel(client, path: Path) -> None:
    import nbformat
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    # nbclient stores an executed cell at its index in the notebook: the setup cell is appended
    # for its run and taken out again
    cell = nbformat.v4.new_code_cell(_KERNEL_SETUP.format(theme=str(_THEME)))
    client.nb.cells.append(cell)
    try:
        client.execute_cell(cell, len(client.nb.cells) - 1, store_history=False)
    except CellTimeoutError as exc:
        raise RenderError(f"{path}: the kernel did not set up its figure theme within "
                          f"{client.timeout} s (its first chunk, which imports the plotting "
                          "libraries; raise timeout=, --timeout on the command line)") from exc
    except CellExecutionError as exc:
        raise RenderError(f"{path}: the kernel could not set up the figure theme:\n"
                          f"{_error_text(cell)}") from exc
    finally:
        client.nb.cells.pop()


def _error_text(cell) -> str:
    for out in cell.outputs:
        if out.get("output_type") == "error":
            return f"{out.get('ename')}: {out.get('evalue')}"
    return "(no error output)"


def _add_caption(cell, meta: dict[str, Any]) -> None:
    import nbformat

    caption = html.escape(str(meta["fig-cap"]))
    number = meta.get("figure_number")
    text = f"Figure {number}: {caption}" if number else caption
    cell.outputs.append(nbformat.v4.new_output(
        "display_data",
        data={"text/html": f"<figcaption class=\"figure-caption\">{text}</figcaption>",
              "text/plain": text}))


# ---------------------------------------------------------------------------------------------
# exporting
# ---------------------------------------------------------------------------------------------

_TEMPLATES = Path(__file__).resolve().parent / "templates" / "nbconvert"


def export_cells(nb, path: Path) -> str:
    """The executed notebook's cells as an HTML fragment (no ``<head>``, nothing loaded).

    The nbconvert template ``templates/nbconvert/binaryeval`` extends JupyterLab's cell markup,
    writes no page frame (so none of nbconvert's require.js, MathJax or mermaid ``<script>``
    tags) and gives each figure the chunk's ``fig-alt`` (or ``fig-cap``) as alt text.
    """
    body, _ = _exporter().from_notebook_node(nb, resources={"metadata": {"name": path.stem,
                                                                          "path": str(path.parent)}})
    return body


@lru_cache(maxsize=1)
def _exporter():
    """The one HTML exporter of the process, its templates compiled once.

    It keeps no state between notebooks: each call registers its own code highlighter.
    nbconvert's ``HTMLExporter`` ends by parsing its whole output with BeautifulSoup to give
    images without alt text one and to make the cells of a ``.jp-Notebook`` focusable; a
    fragment of cells has no such container, and :func:`binaryeval._site.pages.finish_body`,
    which parses every fragment anyway, gives those images the same alt text.  So the fragment
    is the template's output, parsed once.
    """
    from nbconvert import HTMLExporter
    from nbconvert.exporters.templateexporter import TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
    from nbconvert.preprocessors import TagRemovePreprocessor

    class CellsExporter(HTMLExporter):
        def from_notebook_node(self, nb, resources=None, **kw):
            # HTMLExporter's filters for this notebook (its language is always Python here,
            # read_qmd says so), then the template, without the parse that follows it there;
            # an nbconvert whose exporter lacks the two names used here converts its own way
            if not (callable(getattr(self, "_init_resources", None))
                    and isinstance(getattr(self, "_nb_metadata", None), dict)):
                return super().from_notebook_node(nb, resources, **kw)
            resources = self._init_resources(resources)
            self.register_filter("highlight_code", Highlight2HTML(pygments_lexer="python",
                                                                  parent=self))
            self.register_filter("filter_data_type", WidgetsDataTypeFilter(
                notebook_metadata=self._nb_metadata, parent=self, resources=resources))
            return TemplateExporter.from_notebook_node(self, nb, resources, **kw)

    # images of markdown cells are embedded afterwards (pages.finish_body): nbconvert's own
    # embedding re-parses every raw HTML block alone, which closes a fenced div's <div> at once
    exporter = CellsExporter(template_name="binaryeval", extra_template_basedirs=[str(_TEMPLATES)],
                             embed_images=False, exclude_input_prompt=True,
                             exclude_output_prompt=True)
    remove = TagRemovePreprocessor(remove_cell_tags={"remove_cell"}, remove_input_tags={"remove_input"},
                                   remove_all_outputs_tags={"remove_output"}, enabled=True)
    exporter.register_preprocessor(remove, enabled=True)
    return exporter


def execute_document(path: str | Path, *, timeout: int = 600, kernel_name: str = "python3",
                     format_defaults: dict[str, Any] | None = None):
    r"""Read and execute one ``.qmd`` document; returns ``(notebook, HTML fragment of its cells)``.

    Examples
    --------
    >>> from pathlib import Path
    >>> from binaryeval._site.documents import execute_document
    >>> import tempfile
    >>> doc = Path(tempfile.mkdtemp()) / "calc.qmd"
    >>> _ = doc.write_text("---\ntitle: Calc\n---\n\n```{python}\n#| label: sum\n1 + 1\n```\n")
    >>> nb, cells = execute_document(doc)
    >>> nb.cells[-1].outputs[0]["data"]["text/plain"]
    '2'
    """
    path = Path(path)
    if not path.is_file():
        raise ParameterError(f"path={str(path)!r} is not a file; pass an existing .qmd document")
    nb = read_qmd(path, format_defaults=format_defaults)
    _execute(nb, path, timeout=timeout, kernel_name=kernel_name)
    return nb, export_cells(nb, path)


def render_document(path: str | Path, output_dir: str | Path = "reports", *, timeout: int = 600,
                    kernel_name: str = "python3") -> Path:
    r"""Render one ``.qmd`` file with the Jupyter stack into a single self-contained HTML page.

    The page has the site's stylesheet inlined, its figures embedded and a table of contents
    when it has headings; it loads nothing.  Links to other ``.qmd`` files point at the ``.html``
    file of the same name; API links (``[](`binaryeval.fit`)``) are checked and shown as code.

    Parameters
    ----------
    path : str or Path
        The ``.qmd`` document.
    output_dir : str or Path, default "reports"
        Folder for ``<stem>.html`` (created if needed).
    timeout : int, default 600
        Seconds allowed per chunk.
    kernel_name : str, default "python3"
        Jupyter kernel that runs the chunks.

    Returns
    -------
    pathlib.Path
        The written HTML file.

    Raises
    ------
    RenderError
        When a chunk raises (the message names the file and the chunk label), runs over
        ``timeout``, or the YAML header / a chunk option is invalid.

    Examples
    --------
    >>> from pathlib import Path
    >>> from binaryeval._site.documents import render_document
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "note.qmd").write_text("---\ntitle: A note\n---\n\nSome text.\n")
    >>> render_document(folder / "note.qmd", folder / "html").name
    'note.html'
    """
    from .pages import finish_body, layout

    path = Path(path)
    nb, cells = execute_document(path, timeout=timeout, kernel_name=kernel_name)
    body, headings = finish_body(cells, where=str(path), base=path.parent)
    header = nb.metadata["quarto"]
    show_toc = header.get("toc", True) is not False
    page = layout(title=str(header.get("title") or path.stem), body=body,
                  headings=headings if show_toc else [],
                  description=str(header.get("description") or ""))
    out_dir = Path(output_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{path.stem}.html"
    target.write_text(page, encoding="utf-8")
    return target


# ---------------------------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------------------------

def find_documents(paths: str | Path | Iterable[str | Path]) -> list[Path]:
    r"""Expand files and folders into the sorted list of ``.qmd`` documents they hold.

    Examples
    --------
    >>> from pathlib import Path
    >>> from binaryeval._site.documents import find_documents
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> for name in ("b.qmd", "a.qmd", "_draft.qmd"):
    ...     _ = (folder / name).write_text("---\ntitle: x\n---\n")
    >>> [p.name for p in find_documents(folder)]
    ['a.qmd', 'b.qmd']
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found.extend(sorted(q for q in p.glob("*.qmd") if not q.name.startswith("_")))
        elif p.is_file():
            if p.suffix.lower() != ".qmd":
                raise ParameterError(f"{str(p)!r} is not a .qmd document; pass .qmd files or "
                                     "folders holding them")
            found.append(p)
        else:
            raise ParameterError(f"{str(p)!r} does not exist; pass .qmd files or folders "
                                 "holding them")
    if not found:
        raise ParameterError(f"no .qmd document found in {[str(p) for p in map(Path, paths)]}; "
                             "pass .qmd files or folders holding them")
    # a document named twice (as a file and through its folder) is rendered once
    unique: dict[Path, Path] = {}
    for doc in found:
        unique.setdefault(doc.resolve(), doc)
    return list(unique.values())


def project_output_dir(start: str | Path = ".") -> Path | None:
    r"""``project: output-dir`` from the ``_quarto.yml`` in ``start`` or its parents, if any.

    Parameters
    ----------
    start : str or Path, default "."
        The folder to start looking in.

    Returns
    -------
    Path or None
        The output folder, or None without a ``_quarto.yml`` or an ``output-dir`` in it.

    Examples
    --------
    >>> from pathlib import Path
    >>> from binaryeval._site.documents import project_output_dir
    >>> import tempfile
    >>> project = Path(tempfile.mkdtemp())
    >>> _ = (project / "_quarto.yml").write_text("project:\n  output-dir: site\n")
    >>> project_output_dir(project) == project / "site"
    True
    """
    start = Path(start).resolve()
    for folder in [start, *start.parents]:
        cfg = folder / "_quarto.yml"
        if cfg.is_file():
            conf = _yaml(cfg.read_text(encoding="utf-8"), str(cfg))
            out = (conf.get("project") or {}).get("output-dir")
            return (folder / out) if out else None
    return None
