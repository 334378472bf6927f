"""Open built pages in headless Chromium and measure what scrolls sideways.

Used by the site tests (a tiny site) and by ``studies/site_layout.py`` (the real site).  Each
page is copied beside a small measuring script; the copy's Content-Security-Policy gets
``script-src 'self'`` so the script (a file, not inline) may run, and the script writes its
findings into the page, which ``chromium --dump-dom`` prints.  Measured, after the load event:

- every ``pre`` (code and printed output), every ``.table-wrap`` (the box a table scrolls in)
  and every notebook output box: ``scrollWidth > clientWidth``;
- the page itself: ``document.documentElement.scrollWidth > innerWidth``;
- every figure: the width it is shown at against the width it was drawn for, and the height of
  its smallest text as shown (the renderer records that text's height at the drawn width in
  ``data-text-px``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

MEASURE_JS = r"""
window.addEventListener("load", function () {
  var out = {boxes: [], page: null, images: []};
  var sel = "pre, .table-wrap, .jp-OutputArea-output";
  document.querySelectorAll(sel).forEach(function (el) {
    if (el.closest("details:not([open])") || el.offsetParent === null) { return; }
    if (el.scrollWidth > el.clientWidth + 1) {
      var kind = el.matches(".table-wrap") ? "table" :
                 el.closest(".jp-OutputArea") ? "output" : "code";
      if (kind !== "table" && el.tagName !== "PRE" && el.querySelector(".table-wrap")) { return; }
      out.boxes.push({kind: kind, scroll: el.scrollWidth, client: el.clientWidth,
                      text: (el.textContent || "").trim().slice(0, 80)});
    }
  });
  var root = document.documentElement;
  out.page = {scroll: root.scrollWidth, client: window.innerWidth};
  document.querySelectorAll("main img").forEach(function (img) {
    if (!img.naturalWidth) { return; }
    var shown = img.getBoundingClientRect().width;
    var drawn = parseFloat(img.getAttribute("width")) || img.naturalWidth;
    var text = parseFloat(img.getAttribute("data-text-px"));
    out.images.push({natural: img.naturalWidth, width: drawn, shown: shown,
                     text_px: isNaN(text) ? null : text * shown / drawn,
                     alt: (img.alt || "").slice(0, 60)});
  });
  var pre = document.createElement("pre");
  pre.id = "layout-report";
  pre.hidden = true;
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
  if (window.parent !== window) { window.parent.postMessage(JSON.stringify(out), "*"); }
});
"""

_CSP = re.compile(r'(<meta http-equiv="Content-Security-Policy" content=")([^"]*)(")')


def browser() -> str | None:
    """The headless Chromium on this machine, if any."""
    return next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(b)), None)


# headless Chromium's window is at least 500 px wide: a narrower screen is a frame of that width
# in a page of its own, to which the measuring script posts its findings
_FRAME = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>body {{ margin: 0; }}
iframe {{ border: 0; width: {width}px; height: {height}px; display: block; }}</style></head>
<body><iframe src="{src}"></iframe><script>
window.addEventListener("message", function (e) {{
  var pre = document.createElement("pre"); pre.id = "layout-report"; pre.hidden = true;
  pre.textContent = e.data; document.body.appendChild(pre);
}});
</script></body></html>
"""


def _framed(page: Path, width: int, height: int) -> Path:
    frame = page.with_name(f"_frame_{page.name}")
    frame.write_text(_FRAME.format(width=width, height=height, src=page.name), encoding="utf-8")
    return frame


def _instrument(page: Path, script: str) -> Path:
    """A copy of ``page`` beside it that also loads ``script`` (a file beside it)."""
    text = page.read_text(encoding="utf-8")
    text = _CSP.sub(lambda m: m.group(1) + re.sub(r"script-src [^;]*", "script-src 'self'",
                                                  m.group(2)) + m.group(3), text, count=1)
    text = text.replace("</body>", '<script src="_layout_measure.js"></script></body>', 1)
    (page.parent / "_layout_measure.js").write_text(script, encoding="utf-8")
    copy = page.with_name(f"_measured_{page.name}")
    copy.write_text(text, encoding="utf-8")
    return copy


def measure(page: Path, width: int, *, chromium: str | None = None, height: int = 2000) -> dict:
    """What scrolls sideways on ``page`` in a ``width`` px wide window (see the module)."""
    return evaluate(page, MEASURE_JS, width, chromium=chromium, height=height)


def evaluate(page: Path, script: str, width: int = 1280, *, chromium: str | None = None,
             height: int = 2000) -> dict:
    """Run ``script`` in ``page`` in headless Chromium; what it reports.

    The script reports by appending ``<pre id="layout-report" hidden>`` with a JSON text to the
    body (and posting the text to its parent frame), as :data:`MEASURE_JS` does.
    """
    chromium = chromium or browser()
    if chromium is None:
        raise RuntimeError("no Chromium on this machine")
    copy = _instrument(page, script)
    opened = _framed(copy, width, height) if width < 500 else copy
    try:
        run = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                              "--hide-scrollbars", f"--window-size={max(width, 500)},{height}",
                              "--virtual-time-budget=5000", "--dump-dom", opened.as_uri()],
                             capture_output=True, text=True, timeout=180)
    finally:
        for file in {copy, opened}:
            file.unlink()
        (page.parent / "_layout_measure.js").unlink(missing_ok=True)
    m = re.search(r'<pre id="layout-report" hidden="">(.*?)</pre>', run.stdout, re.S)
    if m is None:
        raise RuntimeError(f"{page}: the measuring script did not run:\n{run.stderr[-2000:]}")
    import html

    return json.loads(html.unescape(m.group(1)))


def screenshot(page: Path, target: Path, width: int, *, chromium: str | None = None,
               height: int = 2000) -> Path:
    """A PNG of the top ``height`` px of ``page`` in a ``width`` px wide window."""
    chromium = chromium or browser()
    opened = _framed(page, width, height) if width < 500 else page
    try:
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", f"--window-size={max(width, 500)},{height}",
                        "--virtual-time-budget=5000", f"--screenshot={target}", opened.as_uri()],
                       capture_output=True, text=True, timeout=180, check=True)
    finally:
        if opened != page:
            opened.unlink()
    if width < 500:  # the frame's width, without the blank beside it
        from PIL import Image

        with Image.open(target) as img:
            img.crop((0, 0, width, img.height)).save(target)
    return target


class _Handler:
    """A static file server whose ``/__load_wait__.gif`` answers after ``wait`` seconds (a 1x1 GIF).

    A page that holds ``<img src="/__load_wait__.gif">`` fires its load event only then: headless Chromium
    dumps or screenshots a page at its load event, and the search page's results come from
    requests its script makes after loading.
    """

    GIF = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c000000000100"
                        "01000002024401003b")


def serve(folder: Path, wait: float = 6.0):
    """A context manager: ``folder`` served on 127.0.0.1 (see :class:`_Handler`); yields the URL."""
    import contextlib
    import functools
    import http.server
    import threading
    import time

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path.split("?")[0] == "/__load_wait__.gif":
                time.sleep(wait)
                self.send_response(200)
                self.send_header("Content-Type", "image/gif")
                self.send_header("Content-Length", str(len(_Handler.GIF)))
                self.end_headers()
                self.wfile.write(_Handler.GIF)
                return
            super().do_GET()

    @contextlib.contextmanager
    def running():
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(folder)))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            server.server_close()

    return running()


def waiting_copy(page: Path) -> Path:
    """A copy of ``page`` beside it whose load event waits for ``/__load_wait__.gif`` (see :func:`serve`)."""
    copy = page.with_name(f"_waiting_{page.name}")
    copy.write_text(page.read_text(encoding="utf-8").replace(
        "</body>", '<img src="/__load_wait__.gif" alt="" hidden></body>', 1), encoding="utf-8")
    return copy


def open_served(url: str, *, chromium: str | None = None, screenshot_to: Path | None = None,
                width: int = 1280, height: int = 1200) -> str:
    """The DOM of ``url`` at its load event (or a screenshot of it, cropped to ``width``)."""
    chromium = chromium or browser()
    args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--window-size={max(width, 500)},{height}"]
    args += [f"--screenshot={screenshot_to}"] if screenshot_to else ["--dump-dom"]
    run = subprocess.run(args + [url], capture_output=True, text=True, timeout=180)
    if screenshot_to and width < 500:
        from PIL import Image

        with Image.open(screenshot_to) as img:
            img.crop((0, 0, width, img.height)).save(screenshot_to)
    return run.stdout
