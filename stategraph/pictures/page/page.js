// stategraph picture page: lists the memories a revision touched, by verdict, sized so that
// all of them fit on the first screen; draws the support graph (justifications folded into
// lines that meet at a junction); finds memories by id or text; and shows a memory's details
// when it is clicked. All text goes in through textContent, never as markup: memory texts
// are untrusted.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  // Tile sizes for the board, richest first: the first with which every tile fits on the
  // screen is used (a few memories get cards with their text, hundreds get chips).
  var MODES = [["card", 250], ["line", 240], ["chip", 170], ["chip", 136], ["chip", 112],
    ["id", 96], ["id", 84], ["id", 76], ["id", 64, "small"], ["id", 56, "small"]];
  var SUPPORTS = 60;  // memories resting on the chosen one listed in the panel (a hub has 1000s)
  var data = JSON.parse(document.getElementById("picture-data").textContent);
  var states = new Map();
  var order = [];  // every memory, the touched ones first: what Enter in the search picks from
  var tiles = new Map();
  var marks = new Map();  // id -> the graph node, and the lines and junctions touching it
  var supports = new Map();  // id -> the memories resting on it
  var selected = null;
  var board = document.getElementById("board");

  data.states.forEach(function (s) {
    s.hay = (s.id + "\n" + s.text).toLowerCase();
    states.set(s.id, s);
    marks.set(s.id, { node: null, lines: [] });
    s.rests.forEach(function (r) {
      r.inputs.forEach(function (i) {
        if (!supports.has(i.id)) { supports.set(i.id, []); }
        if (supports.get(i.id).indexOf(s.id) < 0) { supports.get(i.id).push(s.id); }
      });
    });
  });

  function svg(name, attrs, parent) {
    var e = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    if (parent) { parent.appendChild(e); }
    return e;
  }

  function tag(name, text, parent, cls) {
    var e = document.createElement(name);
    if (text !== undefined && text !== null) { e.textContent = text; }
    if (cls) { e.className = cls; }
    if (parent) { parent.appendChild(e); }
    return e;
  }

  function paint(e, s) {
    e.style.background = s.fill;
    e.style.borderColor = s.stroke;
    e.style.color = s.textColour;
  }

  function header() {
    document.getElementById("title").textContent = data.title;
    document.getElementById("change").textContent = data.change ? "Change: " + data.change : "";
    var scope = "Drawn: " + data.scope;
    if (data.leftOut) { scope += "; " + data.leftOut + " more next to these not drawn"; }
    document.getElementById("scope").textContent = scope;
    var legend = document.getElementById("legend");
    data.legend.forEach(function (c) {
      var li = tag("li", c.meaning, legend);
      li.setAttribute("data-fill", c.fill);
      li.style.background = c.fill;
      li.style.borderColor = c.stroke;
    });
    tag("li", "a line: what a memory rests on · lines meeting at a dot: one justification, " +
      "all needed · two dots: two ways to hold · dashed ⊣: unless · dotted: candidate · " +
      "red: lost in this revision · green: carries it · hover a dot for its rules",
      legend, "key");
  }

  // ---- the board: the memories the revision touched, grouped by verdict -------------------

  function tile(parent, s) {
    var b = tag("button", undefined, parent, "tile");
    b.type = "button";
    b.setAttribute("data-id", s.id);
    paint(b, s);
    if (s.double) { b.classList.add("consequence"); }
    var head = tag("span", undefined, b, "head");
    tag("b", s.id, head);
    tag("span", " · " + s.kind + (s.marks ? " · " + s.marks : ""), head, "marks");
    tag("span", " " + (s.text || "(no text)"), b, "text");
    b.title = s.id + " · " + s.meta + (s.marks ? " · " + s.marks : "") + "\n" + s.text;
    b.addEventListener("click", function () { choose(s.id); });
    tiles.set(s.id, b);
  }

  function drawBoard() {
    if (!data.groups.length) { board.hidden = true; return; }
    data.groups.forEach(function (g) {
      var section = tag("section", undefined, board, "group");
      section.setAttribute("data-group", g.name);
      var h = tag("h2", undefined, section);
      var swatch = tag("span", undefined, h, "swatch");
      swatch.style.background = g.fill;
      swatch.style.borderColor = g.stroke;
      tag("span", g.label, h, "label");
      tag("span", String(g.ids.length), h, "count");
      tag("span", g.note, h, "note");
      var box = tag("div", undefined, section, "tiles");
      g.ids.forEach(function (id) { tile(box, states.get(id)); order.push(id); });
    });
  }

  function fits() {  // every tile on the first screen, and every id whole
    if (board.getBoundingClientRect().bottom + window.scrollY > window.innerHeight) {
      return false;
    }
    for (var t of tiles.values()) {
      if (t.scrollWidth > t.clientWidth) { return false; }
    }
    return true;
  }

  function size(mode) {
    board.setAttribute("data-mode", mode[0]);
    board.style.setProperty("--tile", mode[1] + "px");
    board.toggleAttribute("data-small", mode[2] === "small");
  }

  function hopeless(mode, width, room) {
    // Known without laying the board out (which takes long with thousands of tiles): the
    // rows this tile width needs, at the smallest row height, are more than the room.
    var across = Math.max(1, Math.floor((width + 2) / (mode[1] + 2)));
    var rows = data.groups.reduce(function (n, g) {
      return n + Math.ceil(g.ids.length / across);
    }, 0);
    return rows * 15 > room;
  }

  function fit() {
    if (board.hidden) { return; }
    var width = board.querySelector(".tiles").clientWidth;
    var room = window.innerHeight - board.getBoundingClientRect().top - window.scrollY;
    for (var i = 0; i < MODES.length; i++) {
      if (i < MODES.length - 1 && hopeless(MODES[i], width, room)) { continue; }
      size(MODES[i]);
      if (fits()) { return; }
    }
  }

  // ---- the graph ---------------------------------------------------------------------------

  function outline(s) {
    var l = s.x - s.w / 2, r = s.x + s.w / 2, t = s.y - s.h / 2, b = s.y + s.h / 2, k;
    if (s.shape === "hexagon") {
      k = 12;
      return "M" + l + "," + s.y + " L" + (l + k) + "," + t + " L" + (r - k) + "," + t +
        " L" + r + "," + s.y + " L" + (r - k) + "," + b + " L" + (l + k) + "," + b + " Z";
    }
    if (s.shape === "flag") {
      k = 14;
      return "M" + l + "," + t + " L" + (r - k) + "," + t + " L" + r + "," + s.y +
        " L" + (r - k) + "," + b + " L" + l + "," + b + " Z";
    }
    if (s.shape === "octagon") {
      k = 8;
      return "M" + (l + k) + "," + t + " L" + (r - k) + "," + t + " L" + r + "," + (t + k) +
        " L" + r + "," + (b - k) + " L" + (r - k) + "," + b + " L" + (l + k) + "," + b +
        " L" + l + "," + (b - k) + " L" + l + "," + (t + k) + " Z";
    }
    var rx = s.shape === "round" ? Math.min(s.h / 2, 18) : 2;
    return "M" + (l + rx) + "," + t + " H" + (r - rx) + " Q" + r + "," + t + " " + r + "," +
      (t + rx) + " V" + (b - rx) + " Q" + r + "," + b + " " + (r - rx) + "," + b + " H" +
      (l + rx) + " Q" + l + "," + b + " " + l + "," + (b - rx) + " V" + (t + rx) + " Q" + l +
      "," + t + " " + (l + rx) + "," + t + " Z";
  }

  function markers(root) {
    var defs = svg("defs", {}, root);
    var arrow = svg("marker", { id: "arrow", viewBox: "0 0 8 8", refX: 8, refY: 4,
      markerWidth: 7, markerHeight: 7, orient: "auto" }, defs);
    svg("path", { d: "M0,0 L8,4 L0,8 Z", fill: "#566573" }, arrow);
    var tee = svg("marker", { id: "tee", viewBox: "0 0 4 10", refX: 3, refY: 5,
      markerWidth: 5, markerHeight: 10, orient: "auto" }, defs);
    svg("path", { d: "M2,0 V10", stroke: "#566573", "stroke-width": 2 }, tee);
  }

  function edge(root, e, nodes) {
    var a = nodes.get(e.src), b = nodes.get(e.dst);
    if (!a || !b) { return; }
    var forward = b.x >= a.x;
    var x1 = forward ? a.x + a.w / 2 : a.x - a.w / 2, x2 = forward ? b.x - b.w / 2 : b.x + b.w / 2;
    var bend = Math.max(16, Math.abs(x2 - x1) / 2) * (forward ? 1 : -1);
    var d = "M" + x1 + "," + a.y + " C" + (x1 + bend) + "," + a.y + " " + (x2 - bend) + "," +
      b.y + " " + x2 + "," + b.y;
    var attrs = { d: d, fill: "none", stroke: e.colour, "class": "line", "data-kind": e.kind };
    if (e.kind === "head") { attrs["marker-end"] = "url(#arrow)"; }
    if (e.kind === "unless") { attrs["marker-end"] = "url(#tee)"; }
    if (e.dash) { attrs["stroke-dasharray"] = e.dash; }
    var p = svg("path", attrs, root);
    new Set([a.id, b.id, a.head, b.head]).forEach(function (id) {
      if (marks.has(id)) { marks.get(id).lines.push(p); }
    });
  }

  function state(root, s) {
    var g = svg("g", { "class": "state", "data-id": s.id, tabindex: 0, role: "button" }, root);
    g.setAttribute("aria-label", s.id + ": " + s.text);
    var shape = { d: outline(s), fill: s.fill, stroke: s.stroke, "class": "shape",
      "stroke-width": s.bold ? 2.2 : 1.2 };
    if (s.dashed) { shape["stroke-dasharray"] = "6 4"; }
    svg("path", shape, g);
    if (s.double) {
      svg("path", { d: outline({ x: s.x, y: s.y, w: s.w + 8, h: s.h + 8, shape: s.shape }),
        fill: "none", stroke: s.stroke, "stroke-width": 1.2 }, g);
    }
    var top = s.y - (s.lines.length * 14) / 2 + 11;
    s.lines.forEach(function (line, i) {
      var t = svg("text", { x: s.x, y: top + i * 14, "text-anchor": "middle", fill: s.textColour,
        "class": i === 0 ? "head" : "body" }, g);
      t.textContent = line;
    });
    svg("title", {}, g).textContent = s.text;
    g.addEventListener("click", function () { choose(s.id); });
    g.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); choose(s.id); }
    });
    marks.get(s.id).node = g;
  }

  function join(root, j) {
    var g = svg("g", { "class": "join", "data-key": j.key, "data-head": j.head }, root);
    var dot = { cx: j.x, cy: j.y, r: j.w / 2, fill: j.fill, stroke: j.stroke,
      "stroke-width": j.role ? 2 : 1.2 };
    if (j.dash) { dot["stroke-dasharray"] = "1.5 1.5"; }
    svg("circle", dot, g);
    if (j.double) {
      svg("circle", { cx: j.x, cy: j.y, r: j.w / 2 + 2.5, fill: "none", stroke: j.stroke }, g);
    }
    svg("title", {}, g).textContent = j.title;
    marks.get(j.head).lines.push(g);
  }

  function drawGraph() {
    var nodes = new Map();
    var root = svg("svg", { width: data.width, height: data.height,
      viewBox: "0 0 " + data.width + " " + data.height, role: "img" });
    root.setAttribute("aria-label", "support graph of " + data.title);
    markers(root);
    data.states.forEach(function (s) { nodes.set("s:" + s.id, s); });
    data.joins.forEach(function (j) { nodes.set("j:" + j.key, j); });
    var lines = svg("g", { "class": "edges" }, root);
    data.edges.forEach(function (e) { edge(lines, e, nodes); });
    data.joins.forEach(function (j) { join(root, j); });
    data.states.forEach(function (s) {
      state(root, s);
      if (!tiles.has(s.id)) { order.push(s.id); }
    });
    document.getElementById("drawing").appendChild(root);
  }

  // ---- finding -----------------------------------------------------------------------------

  function find() {
    var q = document.getElementById("search").value.trim().toLowerCase();
    var n = 0;
    data.states.forEach(function (s) {
      var hit = !q || s.hay.indexOf(q) >= 0;
      if (hit) { n += 1; }
      if (tiles.has(s.id)) { tiles.get(s.id).hidden = !hit; }
      marks.get(s.id).node.classList.toggle("miss", !hit);
    });
    data.groups.forEach(function (g) {
      var shown = g.ids.filter(function (id) { return !tiles.get(id).hidden; }).length;
      var count = board.querySelector("[data-group=\"" + g.name + "\"] .count");
      count.textContent = shown === g.ids.length ? String(shown) : shown + " of " + g.ids.length;
    });
    document.getElementById("found").textContent = q ?
      (n === 1 ? "1 memory matches" : n + " memories match") : "";
  }

  function first() {
    var q = document.getElementById("search").value.trim().toLowerCase();
    for (var i = 0; i < order.length; i++) {
      if (!q || states.get(order[i]).hay.indexOf(q) >= 0) { choose(order[i]); return; }
    }
  }

  // ---- the panel ---------------------------------------------------------------------------

  function chip(parent, id, note) {
    var s = states.get(id);
    if (!s) { tag("span", id, parent, "chip off"); return; }
    var b = tag("button", undefined, parent, "chip");
    b.type = "button";
    b.setAttribute("data-id", id);
    paint(b, s);
    if (note) { tag("i", note + " ", b); }
    tag("b", id, b);
    tag("span", " " + (s.text || ""), b);
    b.title = s.id + " · " + s.meta + "\n" + s.text;
    b.addEventListener("click", function () { choose(id); });
  }

  function section(panel, title, lines, pre) {
    tag("h3", title, panel);
    if (pre) { tag("pre", lines, panel); return; }
    var ul = tag("ul", undefined, panel);
    lines.forEach(function (line) { tag("li", line, ul); });
  }

  function rests(panel, s) {
    tag("h3", "Rests on", panel);
    if (!s.rests.length) {
      tag("p", s.kind === "fact" ? "nothing: a fact holds while it is active" :
        "no justification", panel, "hint");
      return;
    }
    var ul = tag("ul", undefined, panel, "rests");
    s.rests.forEach(function (r) {
      var li = tag("li", undefined, ul);
      tag("span", r.text, li, "line");
      if (!r.inputs.length) { return; }
      var row = tag("div", undefined, li, "chips");
      r.inputs.forEach(function (i) {
        chip(row, i.id, i.kind === "premise" ? "" : i.kind);
      });
    });
  }

  function fromHash() {
    try { return decodeURIComponent(location.hash.slice(1)); } catch (err) { return ""; }
  }

  function highlight(id, on) {
    var m = marks.get(id);
    if (tiles.has(id)) { tiles.get(id).classList.toggle("selected", on); }
    m.node.classList.toggle("selected", on);
    m.lines.forEach(function (e) { e.classList.toggle("on", on); });
  }

  function choose(id) {
    var s = states.get(id);
    if (!s) { return; }
    if (selected) { highlight(selected, false); }
    selected = id;
    highlight(id, true);
    var panel = document.getElementById("panel");
    panel.textContent = "";
    panel.setAttribute("data-id", id);
    tag("h2", s.id, panel);
    tag("p", s.meta, panel, "meta");
    tag("blockquote", s.text || "(no text)", panel, "text");
    var d = s.details;
    if (d.verdict.length) { section(panel, "In this revision", d.verdict); }
    if (s.verdict === "needs_confirmation") {
      tag("p", "Settle it: stategraph confirm STORE " + s.id + " --by NAME, or stategraph " +
        "reject STORE " + s.id + " --by NAME (a revision of its own).", panel, "hint");
    }
    rests(panel, s);
    var up = supports.get(id) || [];
    if (up.length) {
      tag("h3", "Supports (" + up.length + " drawn)", panel);
      var row = tag("div", undefined, panel, "chips");
      up.slice(0, SUPPORTS).forEach(function (h) { chip(row, h, ""); });
      if (up.length > SUPPORTS) {
        tag("p", "and " + (up.length - SUPPORTS) + " more, with their lines in the graph",
          panel, "hint");
      }
    }
    section(panel, "Why it holds", d.why === null ? "It does not hold now." : d.why, true);
    section(panel, "Why not", d.why_not, true);
    if (s.hidden) {
      tag("p", s.hidden === 1 ? "1 of its neighbours is not drawn in this picture." :
        s.hidden + " of its neighbours are not drawn in this picture.", panel, "hint");
    }
    var show = tag("button", "Show in the graph", panel, "show");
    show.type = "button";
    show.addEventListener("click", function () {
      marks.get(id).node.scrollIntoView({ block: "center", inline: "center" });
      marks.get(id).node.focus({ preventScroll: true });
    });
    panel.scrollTop = 0;
    if (fromHash() !== id) {
      history.replaceState(null, "", "#" + encodeURIComponent(id));
    }
  }

  function summary() {
    var panel = document.getElementById("panel");
    if (!data.groups.length) { return; }
    panel.textContent = "";
    tag("h2", "Revision " + data.revision, panel);
    tag("p", data.change, panel, "meta");
    var ul = tag("ul", undefined, panel, "summary");
    data.groups.forEach(function (g) {
      var li = tag("li", undefined, ul);
      tag("b", g.ids.length + " " + g.label, li);
      tag("span", ": " + g.note, li);
    });
    tag("p", "Click a memory (or Tab to it and press Enter) for its text, what it rests on, " +
      "why it holds or why not, and what the revision decided. An underlined memory is an " +
      "action to cancel or to review.", panel, "hint");
    var keys = tag("p", undefined, panel, "hint");
    tag("kbd", "/", keys);
    tag("span", " finds a memory by id or text; ", keys);
    tag("kbd", "Enter", keys);
    tag("span", " opens the first match.", keys);
  }

  header();
  summary();
  drawBoard();
  fit();  // before the graph is drawn: each try lays out the board alone
  drawGraph();
  var search = document.getElementById("search");
  search.addEventListener("input", find);
  search.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") { ev.preventDefault(); first(); }
    if (ev.key === "Escape") { search.value = ""; find(); }
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "/" && document.activeElement !== search) { ev.preventDefault(); search.focus(); }
  });
  var refit = null;
  window.addEventListener("resize", function () {
    clearTimeout(refit);
    refit = setTimeout(fit, 150);
  });
  window.addEventListener("hashchange", function () { choose(fromHash()); });
  if (location.hash.length > 1) {
    choose(fromHash());
  } else if (data.focus !== null) {
    choose(data.focus);  // a neighbourhood opens on the state it is drawn around
  }
}());
