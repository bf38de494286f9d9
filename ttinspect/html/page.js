// ttinspect html: the stage panes' tabs and the Python line <-> instruction links.
// Line N of a pane is the N-th child of its <pre class="code">; the attribution of each kernel is the JSON
// block named by its section's data-json: per stage, "to" (stage line -> Python line, 0: none) and "from"
// (Python line -> stage lines).
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("js");
  var NAMES = {ttir: "TTIR", ttgir: "TTGIR", llir: "LLIR", ptx: "PTX", sass: "SASS"};
  var onTab = document.querySelector(".tabs button.on");
  var activeStage = onTab ? onTab.dataset.stage : "ptx";
  var kernels = Array.prototype.map.call(document.querySelectorAll("section.kernel"), setUp);

  function setUp(section) {
    var k = {section: section, data: JSON.parse(document.getElementById(section.dataset.json).textContent),
             panes: {}, lines: {}, marked: [], first: {}, loop: {}, status: section.querySelector(".status")};
    section.querySelectorAll(".pane").forEach(function (pane) {
      var stage = pane.dataset.stage, pre = pane.querySelector("pre.code");
      k.panes[stage] = pane;
      k.lines[stage] = pre ? pre.children : [];
      if (pre) pre.addEventListener("click", function (event) { clicked(k, stage, event); });
      var jump = pane.querySelector(".jump");
      if (jump) {
        k.loop[stage] = [+jump.dataset.line, +jump.dataset.end];
        jump.addEventListener("click", function () { reveal(k, stage, k.loop[stage][0]); });
      }
    });
    section.querySelectorAll(".tabs button").forEach(function (button) {
      button.addEventListener("click", function () { showStage(button.dataset.stage); });
    });
    return k;
  }

  function showStage(stage) {
    activeStage = stage;
    kernels.forEach(function (k) {
      k.section.querySelectorAll(".tabs button").forEach(function (b) {
        b.classList.toggle("on", b.dataset.stage === stage);
      });
      k.section.querySelectorAll(".stages .pane").forEach(function (p) {
        p.classList.toggle("active", p.dataset.stage === stage);
      });
      opened(k, stage);
    });
  }

  // A pane just shown: at the selection's first line, else (first time) at the main loop.
  function opened(k, stage) {
    var box = k.panes[stage] && k.panes[stage].querySelector(".scroll");
    if (k.first[stage]) scrollTo(k, stage, k.first[stage]);
    else if (box && !box.scrollTop && k.loop[stage]) scrollTo(k, stage, k.loop[stage][0]);
  }

  function scrollTo(k, stage, line) {
    var el = k.lines[stage][line - 1], box = k.panes[stage].querySelector(".scroll");
    if (el && box) box.scrollTop = Math.max(0, el.offsetTop - box.clientHeight / 3);
  }

  function clear(k) {
    k.marked.forEach(function (el) { el.classList.remove("hit", "sel", "cur"); });
    k.marked = [];
    k.first = {};
  }

  function mark(k, el, css) {
    if (!el) return;
    el.classList.add(css);
    k.marked.push(el);
  }

  // Python line `py` selected: it and every line it produced, in every stage.
  function selectPython(k, py, scrollStages) {
    clear(k);
    mark(k, k.lines.python && k.lines.python[py - 1], "sel");
    var counts = [];
    Object.keys(k.data.stages).forEach(function (stage) {
      var produced = k.data.stages[stage].from[py] || [];
      produced.forEach(function (line) { mark(k, k.lines[stage][line - 1], "hit"); });
      if (produced.length) k.first[stage] = firstInLoop(k.loop[stage], produced);
      counts.push(NAMES[stage] + " " + produced.length);
    });
    k.status.textContent = "Python line " + py + " → " + counts.join(" · ") + " lines";
    if (scrollStages && k.first[activeStage]) scrollTo(k, activeStage, k.first[activeStage]);
  }

  // Where to show a Python line's code: its first line in the main loop (what the reader is after), else
  // its first line.
  function firstInLoop(loop, lines) {
    if (loop) {
      for (var i = 0; i < lines.length; i++) if (lines[i] >= loop[0] && lines[i] <= loop[1]) return lines[i];
    }
    return lines[0];
  }

  function clicked(k, stage, event) {
    var el = event.target.closest(".l");
    if (!el || window.getSelection().toString()) return;  // selecting text is not a click on a line
    var line = Array.prototype.indexOf.call(k.lines[stage], el) + 1;
    if (stage === "python") {
      selectPython(k, line, true);
      return;
    }
    pick(k, stage, line);
  }

  // A stage line picked: its Python line (and what else that line produced) is marked.
  function pick(k, stage, line) {
    var py = (k.data.stages[stage] || {to: []}).to[line - 1] || 0;
    if (py) {
      selectPython(k, py, false);
      if (k.lines.python) scrollTo(k, "python", py);
    } else {
      clear(k);
      k.status.textContent = NAMES[stage] + " line " + line + ": no Python line (not code, or no source location)";
    }
    mark(k, k.lines[stage][line - 1], "cur");
  }

  function reveal(k, stage, line) {
    pick(k, stage, line);
    scrollTo(k, stage, line);
  }

  // Evidence of a finding: open its stage at its line.
  document.querySelectorAll(".go").forEach(function (link) {
    link.addEventListener("click", function () {
      var k = kernels[+link.dataset.k];
      if (!k || !k.panes[link.dataset.stage]) return;  // a stage left out of the page (--stages)
      showStage(link.dataset.stage);
      reveal(k, link.dataset.stage, +link.dataset.line);
      k.section.scrollIntoView();
    });
  });

  window.ttinspectReady = performance.now();
  root.dataset.ready = "1";
  // Where to look first: the kernel's lines in the Python file, the main loop in the stage. After the
  // page is interactive: this costs a layout.
  setTimeout(function () {
    kernels.forEach(function (k) {
      var first = k.panes.python && k.panes.python.querySelector("pre.code > .l.a");
      if (first) scrollTo(k, "python", Array.prototype.indexOf.call(k.lines.python, first) + 1);
      opened(k, activeStage);
    });
  }, 0);
})();
