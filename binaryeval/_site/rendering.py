"""The site builder's entry point: :func:`render` turns documents or a website into HTML.

Separate documents go through :mod:`.documents` one at a time (or ``quarto render``); a folder in
a Quarto website project becomes the website :mod:`.site` builds (or ``quarto render`` of the
project).  ``binaryeval render`` on the command line is this function; ``make reports`` renders
the showcase site with it::

    from binaryeval._site import render
    render(["vignettes"], output_dir="reports")
"""

from __future__ import annotations

import html
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from .. import _validate
from ..errors import OutputError, ParameterError, RenderError
from .documents import _ENGINES, _split_header, find_documents, project_output_dir, render_document
from .pages import layout
from .site import build_site, find_site_config, read_site_config

__all__ = ["render"]


def _write_index(docs: Sequence[tuple[Path, Path, str]], out_dir: Path) -> Path:
    """A plain ``index.html`` listing the documents (documents rendered outside a website)."""
    items = "\n".join(
        f'<li><a href="{html.escape(target.relative_to(out_dir).as_posix())}">{html.escape(title)}</a>'
        f' <span class="src">({html.escape(src.name)})</span></li>'
        for src, target, title in docs)
    body = f"<header class=\"quarto-title\"><h1 class=\"title\">Reports</h1></header>\n<ul>\n{items}\n</ul>"
    index = out_dir / "index.html"
    index.write_text(layout(title="Reports", body=body), encoding="utf-8")
    return index


def _render_quarto(docs: Sequence[Path], out_dir: Path) -> list[Path]:
    written = []
    for doc in docs:
        cmd = ["quarto", "render", str(doc), "--to", "html", "--output-dir", str(out_dir.resolve()),
               "-M", "embed-resources:true"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RenderError(f"{doc}: quarto render failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
        target = out_dir / f"{doc.stem}.html"
        if not target.exists():
            # inside a project Quarto keeps the document's folder under the output folder
            found = sorted(out_dir.rglob(f"{doc.stem}.html"))
            if not found:
                raise RenderError(f"{doc}: quarto render succeeded but wrote no {doc.stem}.html under {out_dir}")
            target = found[0]
        written.append(target)
    return written


def _render_quarto_site(config_path: Path, out_dir: Path) -> list[Path]:
    """``quarto render`` of the whole website project (after ``quartodoc build`` if present)."""
    root = config_path.parent
    if shutil.which("quartodoc"):
        proc = subprocess.run(["quartodoc", "build"], cwd=root, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RenderError(f"quartodoc build failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    cmd = ["quarto", "render", "--output-dir", str(out_dir.resolve())]
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RenderError(f"quarto render failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    return sorted(out_dir.rglob("*.html"))


def _site_config(site: bool | str | Path | None, paths: list[Path]) -> Path | None:
    """The ``_quarto.yml`` to build a website from, or None for separate documents."""
    if site is False:
        return None
    if site is None or site is True:
        folders = [p for p in paths if p.is_dir()] if site is None else paths
        found = next((c for c in map(find_site_config, folders) if c is not None), None)
        if site is True and found is None:
            raise ParameterError(f"site=True but no _quarto.yml with 'project: type: website' is "
                                 f"in {[str(p) for p in paths]} or their parents")
        return found
    config = Path(site)
    if not config.is_file():
        raise ParameterError(f"site={str(site)!r} is not a file; pass the website's _quarto.yml")
    return config


#: a page whose head names one of these generators was written by a renderer: it may be
#: rendered again (any other file in the way is the user's)
_GENERATORS = ('<meta name="generator" content="binaryeval', '<meta name="generator" content="quarto')


def _foreign(path: Path) -> bool:
    """Whether ``path`` is a file a renderer did not write (see :data:`_GENERATORS`)."""
    if not path.is_file():
        return path.exists()  # a folder where a page goes
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(8192)
    except OSError:
        return True
    return not any(tag in head for tag in _GENERATORS)


def _check_targets(targets: Iterable[Path], overwrite: bool) -> None:
    """Refuse, before any work, to write a page over a file the user made (unless ``overwrite``)."""
    if overwrite:
        return
    theirs = [t for t in targets if _foreign(t)]
    if theirs:
        listed = ", ".join(str(t) for t in theirs[:3]) + (" ..." if len(theirs) > 3 else "")
        raise OutputError(f"render would write over {len(theirs)} file(s) it did not write: "
                          f"{listed}; choose another output folder, or pass overwrite=True "
                          "(--overwrite) to replace them")


def _check_folder(out_dir: Path, given: str | Path) -> None:
    """Refuse, before any work, an output folder that is a file or lies under one."""
    for folder in (out_dir, *out_dir.parents):
        if folder.exists():
            if not folder.is_dir():
                where = "is" if folder == out_dir else f"lies under {str(folder)!r}, which is"
                raise OutputError(f"output_dir={str(given)!r} {where} a file, not a folder; "
                                  "give a folder for the pages")
            return


def render(paths: str | Path | Iterable[str | Path] = "vignettes", output_dir: str | Path | None = None,
           engine: str = "auto", *, timeout: int = 600, kernel_name: str = "python3",
           index: bool = True, site: bool | str | Path | None = None,
           overwrite: bool = False) -> list[Path]:
    r"""Render Quarto documents to HTML: a website when ``_quarto.yml`` describes one.

    Given a folder that sits in a Quarto website project (a ``_quarto.yml`` with
    ``project: type: website`` in it or above it), the documents become that website: navbar,
    sidebar, tables of contents, previous/next links, the landing page from ``index.qmd`` and
    the API reference (:mod:`binaryeval._site.site`).  Given files (or with ``site=False``),
    each document becomes one self-contained page and ``index.html`` lists them.

    Parameters
    ----------
    paths : path or iterable of paths, default "vignettes"
        ``.qmd`` files and/or folders (their ``*.qmd`` files are rendered in name order).
    output_dir : path, optional
        Where the HTML goes.  Default: ``project: output-dir`` of the ``_quarto.yml`` found in the
        current folder or its parents, else ``"reports"``.
    engine : {"auto", "quarto", "jupyter"}, default "auto"
        ``"quarto"`` runs ``quarto render``; ``"jupyter"`` renders with jupytext, nbclient and
        nbconvert; ``"auto"`` uses Quarto when it is on the PATH.
    timeout : int, default 600
        Seconds allowed per chunk (Jupyter engine).
    kernel_name : str, default "python3"
        Jupyter kernel (Jupyter engine).
    index : bool, default True
        Also write ``index.html``: the landing page of a website; for separate documents a list
        of them (unless one of them is ``index.qmd``).
    site : bool or path, optional
        ``None``: a website when a folder among ``paths`` is in a website project; ``True``:
        always (the ``_quarto.yml`` is looked up from ``paths``); ``False``: never; a path: that
        ``_quarto.yml``.
    overwrite : bool, default False
        Replace files in the way that a renderer did not write.  Pages written by ``render``
        (or Quarto) before are rendered again; any other file where a page goes (a website:
        any other ``.html`` file in the output folder) is refused before anything is executed.

    Returns
    -------
    list of pathlib.Path
        The HTML files written: the documents in order (``index.html`` of separate documents not
        included); for a website, then the API reference pages.

    Raises
    ------
    RenderError
        A chunk failed (the message names the file and the chunk label), a link points at no
        page, or Quarto failed.
    ParameterError
        Unknown ``engine``, a missing path, a file that is no ``.qmd`` document, no ``.qmd``
        document found, or two documents of one name for one output folder.
    OutputError
        A page would replace a file the user made, without ``overwrite``.

    Examples
    --------
    >>> from pathlib import Path
    >>> from binaryeval._site.rendering import render
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "note.qmd").write_text("---\ntitle: A note\n---\n\nSome text.\n")
    >>> [p.name for p in render(folder / "note.qmd", output_dir=folder / "html", index=False)]
    ['note.html']
    """
    if engine not in _ENGINES:
        raise ParameterError(f"engine={engine!r} is not one of {_ENGINES}")
    if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout <= 0:
        raise ParameterError(f"timeout={timeout!r} must be a positive number of seconds (int)")
    docs = find_documents(paths)
    given = [Path(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
    config = _site_config(site, given)
    if output_dir is None:
        output_dir = project_output_dir() or Path("reports")
    out_dir = Path(output_dir)
    overwrite = _validate.flag(overwrite, "overwrite")
    _check_folder(out_dir, output_dir)
    if config is not None:
        # a website's pages follow its configuration: every .html file in the folder
        _check_targets(sorted(out_dir.rglob("*.html")) if out_dir.is_dir() else [], overwrite)
    else:
        # one page per document, named by the document: two documents of one name would be
        # written to one page, the second over the first
        pages: dict[str, Path] = {}
        for doc in docs:
            other = pages.setdefault(doc.stem, doc)
            if other is not doc:
                raise ParameterError(
                    f"paths: {str(other)!r} and {str(doc)!r} would both be rendered to "
                    f"{str(out_dir / (doc.stem + '.html'))!r}; render them into separate output "
                    "folders or rename one")
        lists = index and not any(doc.stem == "index" for doc in docs)
        _check_targets([out_dir / f"{doc.stem}.html" for doc in docs]
                       + ([out_dir / "index.html"] if lists else []), overwrite)
    out_dir.mkdir(parents=True, exist_ok=True)
    if engine == "auto":
        engine = "quarto" if shutil.which("quarto") else "jupyter"
    if engine == "quarto" and not shutil.which("quarto"):
        raise ParameterError("engine='quarto' but the quarto command is not on the PATH; "
                             "install Quarto or use engine='jupyter'")
    if config is not None:
        if engine == "quarto":
            return _render_quarto_site(config, out_dir)
        return build_site(read_site_config(config), docs, out_dir, timeout=timeout,
                          kernel_name=kernel_name, index=index)
    if engine == "quarto":
        written = _render_quarto(docs, out_dir)
    else:
        written = [render_document(doc, out_dir, timeout=timeout, kernel_name=kernel_name) for doc in docs]
    if index and not any(doc.stem == "index" for doc in docs):  # an index.qmd is the index
        titles = []
        for doc in docs:
            header, _ = _split_header(doc.read_text(encoding="utf-8"), str(doc))
            titles.append(str(header.get("title") or doc.stem))
        _write_index(list(zip(docs, written, titles, strict=True)), out_dir)
    return written
