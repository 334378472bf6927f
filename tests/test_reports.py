"""Rendering .qmd documents with the Jupyter stack (no Quarto binary needed).

Expected values are the documented mapping of Quarto chunk options (quarto.org, "Execution
Options"): include:false hides code and output, echo:false hides code, output:false hides output,
eval:false shows code without running it, warning:false drops warnings, fig-cap captions a figure.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from binaryeval._site import find_documents, project_output_dir, read_qmd, render
from binaryeval.errors import ParameterError, RenderError

DOC = '''---
title: "Tiny <report>"
subtitle: "Chunk options"
author: "Test Author"
date: "2026-01-02"
jupyter: python3
execute:
  echo: true
  warning: false
---

Some *markdown* text.

```{python}
#| label: setup
#| include: false
import warnings
SETUP_MARK = "setup-code-" + "zzz"
print("setup-output-" + "zzz")
```

```{python}
#| label: echo-off
#| echo: false
print("echo-off-output-" + "abc")
```

```{python}
#| label: output-off
#| output: false
print("output-off-" + "result")
```

```{python}
#| label: eval-off
#| eval: false
print("eval-off-" + "result")
```

```{python}
#| label: warns
warnings.warn("warning-" + "text")
print("after-" + "warning")
```

```{python}
#| label: fig-noise
#| fig-cap: "Histogram of normal noise"
import matplotlib.pyplot as plt
import numpy as np
fig, ax = plt.subplots(figsize=(3, 2))
ax.hist(np.random.default_rng(0).normal(size=100))
plt.show()
```
'''

BAD = '''---
title: Broken
---

```{python}
#| label: ok-chunk
x = 1
```

```{python}
#| label: failing-chunk
x / 0
```
'''


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    root = tmp_path_factory.mktemp("render")
    (root / "docs").mkdir()
    (root / "docs" / "tiny.qmd").write_text(DOC, encoding="utf-8")
    written = render([root / "docs"], output_dir=root / "out", engine="jupyter", timeout=120)
    return root, written


def test_render_writes_html_and_index(rendered):
    root, written = rendered
    assert written == [root / "out" / "tiny.html"]
    index = (root / "out" / "index.html").read_text()
    assert 'href="tiny.html"' in index and "Tiny &lt;report&gt;" in index


def test_title_block_and_figure(rendered):
    root, _ = rendered
    page = (root / "out" / "tiny.html").read_text()
    assert "<title>Tiny &lt;report&gt;</title>" in page
    for text in ["Tiny &lt;report&gt;", "Chunk options", "Test Author", "2026-01-02"]:
        assert text in page
    # the matplotlib figure is embedded, followed by its caption
    img = re.search(r'<img[^>]*src="data:image/png;base64,', page)
    assert img is not None
    cap = page.find("Figure 1: Histogram of normal noise")
    assert cap > img.start()


def test_chunk_options(rendered):
    root, _ = rendered
    page = (root / "out" / "tiny.html").read_text()
    assert "#|" not in page
    # include: false -> neither code nor output
    assert "setup-code-" not in page and "setup-output-zzz" not in page
    # echo: false -> output shown, code hidden
    assert "echo-off-output-abc" in page
    assert "echo-off-output-" not in page.replace("echo-off-output-abc", "")
    # output: false -> code shown, output hidden
    assert "output-off-" in page and "output-off-result" not in page
    # eval: false -> code shown, never run
    assert "eval-off-" in page and "eval-off-result" not in page
    # warning: false (document default) -> the warning text is only in the code
    assert page.count("warning-") == 1 and "after-warning" in page


def test_error_names_file_and_chunk(tmp_path):
    doc = tmp_path / "broken.qmd"
    doc.write_text(BAD, encoding="utf-8")
    with pytest.raises(RenderError, match=r"broken\.qmd: chunk 'failing-chunk' failed:\nZeroDivisionError"):
        render([doc], output_dir=tmp_path / "out", engine="jupyter", timeout=60)
    assert not (tmp_path / "out" / "broken.html").exists()


def test_read_qmd_maps_options_without_executing():
    nb = read_qmd("x.qmd", text=DOC)
    assert nb.metadata["title"] == "Tiny <report>"
    code = [c for c in nb.cells if c.cell_type == "code"]
    tags = {c.metadata["quarto"]["label"]: c.metadata["tags"] for c in code}
    assert tags == {"setup": ["remove_cell"], "echo-off": ["remove_input"], "output-off": ["remove_output"],
                    "eval-off": ["skip-execution"], "warns": [], "fig-noise": []}
    assert all(not c.source.startswith("#|") for c in code)
    # document-level execute options are the defaults of every chunk
    assert all(c.metadata["quarto"]["warning"] is False for c in code)
    assert code[-1].metadata["quarto"]["figure_number"] == 1


def test_document_level_echo_false():
    text = "---\ntitle: T\nexecute:\n  echo: false\n---\n\n```{python}\n1\n```\n\n```{python}\n#| echo: true\n2\n```\n"
    nb = read_qmd("y.qmd", text=text)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.metadata["tags"] for c in code] == [["remove_input"], []]
    assert [c.metadata["quarto"]["label"] for c in code] == ["chunk-1", "chunk-2"]


def test_bad_option_value_is_reported():
    text = "```{python}\n#| label: odd\n#| echo: maybe\n1\n```\n"
    with pytest.raises(RenderError, match=r"z\.qmd \(chunk 'odd'\): chunk option echo: 'maybe' must be true or false"):
        read_qmd("z.qmd", text=text)


def test_arguments_are_checked(tmp_path):
    with pytest.raises(ParameterError, match="engine='pdf'"):
        render([tmp_path], engine="pdf")
    with pytest.raises(ParameterError, match="no .qmd document"):
        find_documents(tmp_path)
    with pytest.raises(ParameterError, match="does not exist"):
        find_documents(tmp_path / "missing.qmd")


def test_output_dir_from_quarto_project(tmp_path, monkeypatch):
    (tmp_path / "_quarto.yml").write_text("project:\n  type: website\n  output-dir: site\n")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert project_output_dir() == tmp_path / "site"


def test_repository_quarto_config():
    # the repository's own _quarto.yml sends reports to reports/
    root = Path(__file__).resolve().parents[1]
    assert project_output_dir(root) == root / "reports"


# The repository's datasets vignette (labelled chunks, setup hidden, one captioned figure) is
# checked on its one rendering in test_vignettes.py (PAGE_CHECKS there).


def test_error_true_chunk_and_missing_kernel(tmp_path):
    # error: true lets a chunk fail and shows the error; an unknown kernel is a RenderError
    doc = tmp_path / "err.qmd"
    doc.write_text('---\ntitle: E\n---\n\n```{python}\n#| label: may-fail\n#| error: true\n'
                   'raise KeyError("shown-" + "error")\n```\n\n```{python}\n#| label: later\n'
                   'print("later-" + "ran")\n```\n', encoding="utf-8")
    (page,) = render([doc], output_dir=tmp_path / "out", engine="jupyter", timeout=60)
    text = page.read_text()
    assert "shown-error" in text and "later-ran" in text
    with pytest.raises(RenderError, match="no Jupyter kernel named 'no-such-kernel'"):
        render([doc], output_dir=tmp_path / "out2", engine="jupyter", kernel_name="no-such-kernel")


FAKE_QUARTO = """#!/usr/bin/env python3
import sys
from pathlib import Path
args = sys.argv[1:]
assert args[0] == "render" and args[2:4] == ["--to", "html"], args
doc = Path(args[1])
out = Path(args[args.index("--output-dir") + 1]) / "vignettes"
out.mkdir(parents=True, exist_ok=True)
(out / (doc.stem + ".html")).write_text("<html>quarto:" + " ".join(args[2:]) + "</html>")
"""


def test_auto_engine_uses_quarto_when_on_path(tmp_path, monkeypatch):
    # a stand-in quarto on PATH records the command line; inside a project Quarto keeps the
    # document's folder under the output folder, which render() finds and links from index.html
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "quarto"
    script.write_text(FAKE_QUARTO)
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    (tmp_path / "doc.qmd").write_text("---\ntitle: Q\n---\n")
    (written,) = render([tmp_path / "doc.qmd"], output_dir=tmp_path / "out")
    assert written == tmp_path / "out" / "vignettes" / "doc.html"
    assert "--output-dir" in written.read_text() and "embed-resources:true" in written.read_text()
    assert 'href="vignettes/doc.html"' in (tmp_path / "out" / "index.html").read_text()


def test_a_document_with_nothing_to_run_starts_no_kernel(tmp_path):
    # text only, or every chunk eval: false: rendered without a kernel, so an unknown kernel
    # name is no error (with a chunk to run it is, above), and the eval: false code is shown
    doc = tmp_path / "text.qmd"
    doc.write_text('---\ntitle: Text\n---\n\nJust *text*.\n\n```{python}\n#| label: shown\n'
                   '#| eval: false\nprint("never-" + "run")\n```\n', encoding="utf-8")
    (page,) = render([doc], output_dir=tmp_path / "out", engine="jupyter",
                     kernel_name="no-such-kernel")
    text = page.read_text()
    assert "<em>text</em>" in text and "never-" in text and "never-run" not in text


# ---------------------------------------------------------------------------------------------
# kernels forked from the warm process (binaryeval._site.kernels)
# ---------------------------------------------------------------------------------------------

KERNEL_STATE = '''---
title: Kernel state
---

```{python}
#| label: state
import json, os, sys, warnings
import matplotlib as mpl, numpy as np, pandas as pd
shell = get_ipython()
print(json.dumps({
    "pid": os.getpid(), "parent": os.getppid(), "cwd": os.getcwd(),
    "argv": [a if not a.endswith(".json") else "CONNECTION" for a in sys.argv[1:]],
    "launcher": os.path.basename(sys.argv[0]), "path": sys.path, "main": sys.modules["__main__"] is shell.user_module,
    "stdin": sys.stdin.read() if hasattr(sys.stdin, "read") else None, "names": sorted(globals()),
    "env": {k: v for k, v in os.environ.items()
            if k not in ("BINARYEVAL_COLD_KERNELS", "PYTEST_CURRENT_TEST")},
    "pandas": repr(pd._config.config._global_config), "rc": repr(sorted(mpl.rcParams.items())),
    "backend": mpl.get_backend(), "filters": sorted(map(repr, warnings.filters)),
    "hooks": {k: len(v) for k, v in shell.events.callbacks.items()},
    "png": sorted(map(repr, shell.display_formatter.formatters["image/png"].type_printers)),
    "draw": float(np.random.rand())}))
```
'''


def test_a_forked_kernel_is_the_kernel_a_cold_start_gives(tmp_path, monkeypatch):
    """A document sees the same kernel, forked or started cold: the same arguments, path, folder,
    environment, pandas options, matplotlib settings, warnings filters (as a set: the shell adds
    one for Trio's messages after the preloaded modules' own, which match other messages) and
    IPython hooks; only the process and numpy's unseeded draws differ."""
    import json

    from binaryeval._site import kernels
    from binaryeval._site.documents import execute_document

    if not kernels.warm_kernels_enabled():
        pytest.skip("no forked kernels here (Linux only, and BINARYEVAL_COLD_KERNELS=1 turns them off): "
                    "every kernel starts cold, so there is no fork to compare")
    doc = tmp_path / "state.qmd"
    doc.write_text(KERNEL_STATE, encoding="utf-8")

    def state() -> dict:
        nb, _ = execute_document(doc, timeout=120)
        (cell,) = [c for c in nb.cells if c.cell_type == "code"]
        return json.loads("".join(o["text"] for o in cell.outputs if o.get("name") == "stdout"))

    forked = [state(), state()]  # the process's first kernel of an environment starts cold
    monkeypatch.setenv("BINARYEVAL_COLD_KERNELS", "1")
    cold = state()
    assert cold["parent"] == os.getpid()
    assert forked[-1]["parent"] == kernels._warm.proc.pid != os.getpid()
    draws = {cold.pop("draw"), *(s.pop("draw") for s in forked)}
    assert len(draws) == 3  # numpy's global generator is seeded anew in each kernel
    assert len({cold.pop("pid"), *(s.pop("pid") for s in forked)}) == 3
    for s in (cold, *forked):
        del s["parent"]
    assert cold["stdin"] == "" and cold["main"] is True
    assert forked[-1] == cold


def test_a_kernel_starts_cold_where_the_warm_process_would_differ(tmp_path, monkeypatch):
    # a module of the document's folder named like one the warm process imported, or a
    # matplotlibrc there, is read by a kernel that starts in that folder: such a kernel starts cold
    from binaryeval._site import kernels

    modules = frozenset({"pandas", "seaborn", "json", "html"})
    assert not kernels._shadowed(str(tmp_path), modules)
    # the folder of a report as make_report lays it out forks its kernel
    for name in ("report.qmd", "report-params.json", "report-inputs.pkl"):
        (tmp_path / name).write_text("")
    (tmp_path / "html").mkdir()
    assert not kernels._shadowed(str(tmp_path), modules)
    # a module of another name, a folder that is no package, a standard library's name (the
    # folder comes after the standard library on the kernel's path): nothing shadowed
    (tmp_path / "notes.py").write_text("")
    (tmp_path / "pandas").mkdir()
    (tmp_path / "html" / "__init__.py").write_text("")
    (tmp_path / "json.py").write_text("")
    assert not kernels._shadowed(str(tmp_path), modules)
    for name in ("pandas.py", "seaborn/__init__.py", "pandas.cpython-311-x86_64-linux-gnu.so",
                 "matplotlibrc"):
        path = tmp_path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text("")
        assert kernels._shadowed(str(tmp_path), modules), name
        path.unlink()
    # another Python's kernel, or options a fork cannot honour
    cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", "c.json"]
    assert kernels._fork_kernel(["/other/python", *cmd[1:]], {"env": {}, "cwd": str(tmp_path)}) is None
    assert kernels._fork_kernel(cmd, {"env": {}, "cwd": str(tmp_path), "independent": True}) is None
    monkeypatch.setenv("BINARYEVAL_COLD_KERNELS", "1")
    assert kernels.warm_kernels_enabled() is False


def test_a_kernel_too_slow_to_set_up_is_a_render_error_naming_the_timeout(tmp_path):
    # Guards: `report --timeout 1` printed nbclient's CellTimeoutError traceback: the kernel's
    # setup cell caught only a failing cell, not one out of time
    import nbformat
    from nbclient.exceptions import CellTimeoutError

    from binaryeval._site.documents import _setup_kernel
    from binaryeval.errors import RenderError

    class Slow:
        timeout = 1
        nb = nbformat.v4.new_notebook()

        def execute_cell(self, cell, index, store_history=True):
            raise CellTimeoutError("Cell execution timed out")

    client = Slow()
    with pytest.raises(RenderError, match=r"within 1 s .*raise timeout=, --timeout"):
        _setup_kernel(client, tmp_path / "report.qmd")
    assert client.nb.cells == []  # the setup cell is taken out again
