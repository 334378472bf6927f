/* binaryeval site: the little the pages do with a script. Everything works without it.
   - navbar menus: one open at a time; a click elsewhere or Escape closes them;
   - a copy button on every code block: Python prompts (>>>, ...) and the output lines of an
     example are left out of what is copied;
   - the search page: Pagefind's index searched as one types (?q= gives the first query). */
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
      if (pre.closest(".jp-OutputArea") || pre.closest(".copyable") || pre.hidden ||
          pre.classList.contains("api-signature")) { return; }
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

  /* The search page: Pagefind's engine (pagefind/pagefind.js, built with the site) answers; the
     page lists the results, each a link with its title and the passage that matched. */
  function excerpt(html) {
    /* Pagefind's excerpt is escaped text with <mark> around the matches: kept as such, and
       nothing else */
    var doc = new DOMParser().parseFromString("<p>" + html + "</p>", "text/html");
    var p = document.createElement("p");
    p.className = "search-excerpt";
    doc.body.firstChild.childNodes.forEach(function (node) {
      if (node.nodeName === "MARK") {
        var mark = document.createElement("mark");
        mark.textContent = node.textContent;
        p.appendChild(mark);
      } else {
        p.appendChild(document.createTextNode(node.textContent));
      }
    });
    return p;
  }

  function search() {
    var box = document.getElementById("search");
    if (!box) { return; }
    if (location.protocol === "file:") {
      document.getElementById("search-offline").hidden = false;
      return;
    }
    var root = new URL(box.getAttribute("data-root") || ".", location.href).href;
    var engine = null;
    import(root + "pagefind/pagefind.js").then(function (pagefind) {
      engine = pagefind;
      /* the results' links are relative to where the site is served */
      return pagefind.options({baseUrl: new URL(root).pathname}).then(function () {
        return pagefind.init();
      });
    }).then(function () {
      var pagefind = engine;
      var input = document.createElement("input");
      input.type = "search";
      input.className = "search-input";
      input.placeholder = "Search the documentation";
      input.setAttribute("aria-label", "Search the documentation");
      var status = document.createElement("p");
      status.className = "search-status";
      status.setAttribute("aria-live", "polite");
      var list = document.createElement("ol");
      list.className = "search-results";
      box.appendChild(input);
      box.appendChild(status);
      box.appendChild(list);
      var latest = 0;
      function run(query) {
        var ticket = ++latest;
        if (!query.trim()) { list.textContent = ""; status.textContent = ""; return; }
        pagefind.search(query).then(function (found) {
          return Promise.all(found.results.slice(0, 20).map(function (r) { return r.data(); }))
            .then(function (pages) {
              if (ticket !== latest) { return; }
              list.textContent = "";
              status.textContent = found.results.length + (found.results.length === 1 ?
                " page" : " pages") + " for \u201c" + query + "\u201d";
              pages.forEach(function (page) {
                var item = document.createElement("li");
                var link = document.createElement("a");
                link.href = page.url;
                link.className = "search-title";
                link.textContent = (page.meta && page.meta.title) || page.url;
                item.appendChild(link);
                item.appendChild(excerpt(page.excerpt || ""));
                list.appendChild(item);
              });
            });
        }).catch(function (error) {
          status.textContent = "The search failed: " + error;
        });
      }
      var timer = null;
      input.addEventListener("input", function () {
        window.clearTimeout(timer);
        timer = window.setTimeout(function () {
          run(input.value);
          history.replaceState(null, "", "?q=" + encodeURIComponent(input.value));
        }, 200);
      });
      var query = new URLSearchParams(location.search).get("q");
      if (query) { input.value = query; run(query); }
      input.focus();
    }, function () {
      document.getElementById("search-missing").hidden = false;
    });
  }

  ready(function () {
    menus();
    copyButtons();
    search();
  });

  /* for the tests: the text a copy button puts on the clipboard */
  window.binaryevalCodeOf = codeOf;
}());
