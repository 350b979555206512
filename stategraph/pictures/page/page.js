// stategraph picture page: draws the support graph from the JSON data block and shows a
// state's details when it is clicked. All text goes in through textContent, never as markup:
// memory texts are untrusted.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("picture-data").textContent);
  var states = new Map();
  data.states.forEach(function (s) { states.set(s.id, s); });
  var nodes = new Map();
  var selected = null;

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
    tag("li", "circles: justifications (all premises hold, no 'unless' holds) · dashed ⊣: unless · " +
      "dotted: candidate premise · double circle: judge or review", legend, "key");
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

  function edge(root, e) {
    var a = nodes.get(e.src), b = nodes.get(e.dst);
    if (!a || !b) { return; }
    var forward = b.x >= a.x;
    var x1 = forward ? a.x + a.w / 2 : a.x - a.w / 2, x2 = forward ? b.x - b.w / 2 : b.x + b.w / 2;
    var bend = Math.max(24, Math.abs(x2 - x1) / 2) * (forward ? 1 : -1);
    var d = "M" + x1 + "," + a.y + " C" + (x1 + bend) + "," + a.y + " " + (x2 - bend) + "," +
      b.y + " " + x2 + "," + b.y;
    var attrs = { d: d, fill: "none", stroke: e.colour, "stroke-width": 1.2,
      "marker-end": e.kind === "unless" ? "url(#tee)" : "url(#arrow)", "data-kind": e.kind };
    if (e.dash) { attrs["stroke-dasharray"] = e.dash; }
    svg("path", attrs, root);
    if (e.label) {
      var t = svg("text", { x: (x1 + x2) / 2, y: (a.y + b.y) / 2 - 3, "text-anchor": "middle",
        "class": "edge-label" }, root);
      t.textContent = e.label;
    }
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
  }

  function support(root, j) {
    var g = svg("g", { "class": "support", "data-key": j.key }, root);
    var shape = { cx: j.x, cy: j.y, r: j.w / 2, fill: j.fill, stroke: j.stroke,
      "stroke-width": j.bold ? 2.2 : 1.2 };
    if (j.dash) { shape["stroke-dasharray"] = j.dash; }
    svg("circle", shape, g);
    if (j.double) {
      svg("circle", { cx: j.x, cy: j.y, r: j.w / 2 - 3, fill: "none", stroke: j.stroke }, g);
    }
    var t = svg("text", { x: j.x, y: j.y + 3, "text-anchor": "middle", fill: j.colour,
      "class": "support-label" }, g);
    t.textContent = j.label;
    svg("title", {}, g).textContent = j.title;
  }

  function draw() {
    var root = svg("svg", { width: data.width, height: data.height,
      viewBox: "0 0 " + data.width + " " + data.height, role: "img" });
    root.setAttribute("aria-label", "support graph of " + data.title);
    markers(root);
    data.states.forEach(function (s) { nodes.set("s:" + s.id, s); });
    data.supports.forEach(function (j) { nodes.set("j:" + j.key, j); });
    var edges = svg("g", { "class": "edges" }, root);
    data.edges.forEach(function (e) { edge(edges, e); });
    data.supports.forEach(function (j) { support(root, j); });
    data.states.forEach(function (s) { state(root, s); });
    document.getElementById("drawing").appendChild(root);
  }

  function section(panel, title, lines, pre) {
    tag("h3", title, panel);
    if (pre) { tag("pre", lines, panel); return; }
    var ul = tag("ul", undefined, panel);
    lines.forEach(function (line) { tag("li", line, ul); });
  }

  function fromHash() {
    try { return decodeURIComponent(location.hash.slice(1)); } catch (err) { return ""; }
  }

  function choose(id) {
    var s = states.get(id);
    if (!s) { return; }
    if (selected) { selected.classList.remove("selected"); }
    selected = document.querySelector("g.state[data-id=\"" + CSS.escape(id) + "\"]");
    if (selected) { selected.classList.add("selected"); }
    var panel = document.getElementById("panel");
    panel.textContent = "";
    panel.setAttribute("data-id", id);
    tag("h2", s.id, panel);
    tag("p", s.meta, panel, "meta");
    tag("blockquote", s.text || "(no text)", panel, "text");
    var d = s.details;
    if (d.verdict.length) { section(panel, "In this revision", d.verdict); }
    section(panel, "Justifications", d.justifications.length ? d.justifications :
      [s.kind === "fact" ? "none: a fact holds while it is active" : "none"]);
    section(panel, "Why it holds", d.why === null ? "It does not hold now." : d.why, true);
    section(panel, "Why not", d.why_not, true);
    if (s.hidden) {
      tag("p", s.hidden === 1 ? "1 of its neighbours is not drawn in this picture." :
        s.hidden + " of its neighbours are not drawn in this picture.", panel, "hint");
    }
    if (fromHash() !== id) {
      location.hash = encodeURIComponent(id);
    }
  }

  header();
  draw();
  window.addEventListener("hashchange", function () { choose(fromHash()); });
  if (location.hash.length > 1) {
    choose(fromHash());
  } else if (data.focus !== null) {
    choose(data.focus);  // a neighbourhood opens on the state it is drawn around
  }
}());
