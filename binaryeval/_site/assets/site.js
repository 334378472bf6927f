/* binaryeval site: the little the pages do with a script. Everything works without it.
   - navbar menus: one open at a time; a click elsewhere or Escape closes them;
   - a copy button on every code block: Python prompts (>>>, ...) and the output lines of an
     example are left out of what is copied;
   - the search page: Pagefind's interface, with ?q= as the first query. */
(function () {
  "use strict";

  function ready(fn) {
    if (document.readyState !== "loading") { fn(); } else {
      document.addEventListener("DOMContentLoaded", fn);
    }
  }

  function menus() {
    var all = Array.prototype.slice.call(document.querySelectorAll(".navbar details"));
    all.forEach(function (menu) {
      menu.addEventListener("toggle", function () {
        if (menu.open) {
          all.forEach(function (other) { if (other !== menu) { other.open = false; } });
        }
      });
    });
    document.addEventListener("click", function (event) {
      all.forEach(function (menu) {
        if (menu.open && !menu.contains(event.target)) { menu.open = false; }
      });
    });
    document.addEventListener("keydown", function (event) {
      if (event.key !== "Escape") { return; }
      all.forEach(function (menu) {
        if (menu.open) {
          menu.open = false;
          menu.querySelector("summary").focus();
        }
      });
    });
  }

  var PROMPT = /^(>>>|\.\.\.)( |$)/;

  /* The code of a block as it should be pasted: for an example written with prompts, the
     lines after ">>> " and "... " only (the others are its output); otherwise the block. */
  function codeOf(pre) {
    var lines = pre.textContent.replace(/\s+$/, "").split("\n");
    if (lines.some(function (line) { return PROMPT.test(line); })) {
      lines = lines.filter(function (line) { return PROMPT.test(line); })
        .map(function (line) { return line.replace(PROMPT, ""); });
    }
    return lines.join("\n") + "\n";
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(area);
      if (ok) { resolve(); } else { reject(new Error("copy refused")); }
    });
  }

  function copyButtons() {
    document.querySelectorAll("main pre").forEach(function (pre) {
      if (pre.closest(".jp-OutputArea") || pre.closest(".copyable") || pre.hidden) { return; }
      var box = document.createElement("div");
      box.className = "copyable";
      pre.parentNode.insertBefore(box, pre);
      box.appendChild(pre);
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy-button";
      button.textContent = "Copy";
      button.setAttribute("aria-label", "Copy the code");
      button.addEventListener("click", function () {
        copyText(codeOf(pre)).then(function () {
          button.textContent = "Copied";
        }, function () {
          button.textContent = "Select and copy";
        });
        window.setTimeout(function () { button.textContent = "Copy"; }, 2000);
      });
      box.appendChild(button);
    });
  }

  function search() {
    var box = document.getElementById("search");
    if (!box) { return; }
    if (location.protocol === "file:") {
      var note = document.getElementById("search-offline");
      if (note) { note.hidden = false; }
      return;
    }
    if (typeof window.PagefindUI !== "function") {
      var missing = document.getElementById("search-missing");
      if (missing) { missing.hidden = false; }
      return;
    }
    var ui = new window.PagefindUI({element: "#search", showSubResults: true,
                                    showImages: false, resetStyles: false});
    var query = new URLSearchParams(location.search).get("q");
    if (query) { ui.triggerSearch(query); }
  }

  ready(function () {
    menus();
    copyButtons();
    search();
  });

  /* for the tests: the text a copy button puts on the clipboard */
  window.binaryevalCodeOf = codeOf;
}());
