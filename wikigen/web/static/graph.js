// Graph view: the pages and their links, drawn by cytoscape (vendored in static/, no CDN).
// Positions come from the page (wikigen/web/layout.py: computed once in Python), so the browser only draws
// ("preset" layout): a force layout in the browser takes tens of seconds at a thousand pages. The layout
// puts each document in the cluster of its kind (or topic), the cluster's page in its middle.
// Readable at any size: a label is drawn only where it fits (the chosen page and its neighbours first, then
// the clusters' pages, then the best-linked, each label only if its box overlaps no label already drawn nor a
// cluster's page; the rest on hover; zooming in makes room for more), labels keep one size on screen at any zoom, and a page's neighbourhood (#focus=SLUG, a click, or the search)
// shows that page with its neighbours in labelled columns around it. Labels are data, never HTML.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var colors = {document: "#2f7ed8", collection: "#e08a1e", topic: "#3a9d5d", figure: "#c0508a"};
  var OTHER = "#8a63c7";
  var FONT = 'system-ui, "Noto Sans", "Noto Sans CJK KR", sans-serif';
  var LABEL_PX = 12;          // a label's font size on screen, whatever the zoom
  var GAP = 3;                // screen pixels kept free left and right of a label (1 above and below)
  var ROW = 20, COLUMN = 260; // the neighbourhood's rows and widest column, in screen pixels
  var n = data.nodes.length;
  var big = n > 600;
  var status = document.getElementById("graph-status");
  var search = document.getElementById("graph-search");
  var depthSel = document.getElementById("graph-depth");
  var container = document.getElementById("graph");
  var boxes = Array.prototype.slice.call(document.querySelectorAll("#type-filter input[type=checkbox]"));
  var maxDeg = 1, byTitle = {};
  data.nodes.forEach(function (d) { maxDeg = Math.max(maxDeg, d.deg); });
  // stretch the drawing to the container's shape, so it fills the box instead of a circle in its middle
  var box = container.getBoundingClientRect();
  var xs = data.nodes.map(function (d) { return d.x; }), ys = data.nodes.map(function (d) { return d.y; });
  var w = Math.max.apply(null, xs) - Math.min.apply(null, xs) || 1, h = Math.max.apply(null, ys) - Math.min.apply(null, ys) || 1;
  var stretch = Math.max(1, Math.min(3, (box.width / Math.max(1, box.height)) / (w / h)));
  var elements = [];
  data.nodes.forEach(function (d) {
    byTitle[d.title.toLowerCase()] = byTitle[d.title.toLowerCase()] || d.id;
    var short = d.title.length > 30 ? d.title.slice(0, 29) + "…" : d.title;
    var label = d.title.length > 60 ? d.title.slice(0, 59) + "…" : d.title;
    elements.push({group: "nodes", data: {id: d.id, label: label, short: short, title: d.title, type: d.type, deg: d.deg,
                   color: colors[d.type] || OTHER, size: 8 + 22 * Math.sqrt(d.deg / maxDeg), fs: LABEL_PX, fm: 5, fmx: -7, fmt: -6},
                   position: {x: d.x * stretch, y: d.y}, classes: d.type === "document" ? "" : "hub"});
  });
  data.edges.forEach(function (e, i) {
    elements.push({group: "edges", data: {id: "e" + i, source: e.source, target: e.target}});
  });
  var labelStyle = {"font-size": "data(fs)", "font-family": FONT, "color": "#222", "text-margin-y": "data(fm)",
    "text-background-color": "#fff", "text-background-opacity": 1, "text-background-padding": 0};
  var cy = cytoscape({
    container: container,
    elements: elements,
    layout: {name: "preset", fit: true, padding: 20},
    minZoom: 0.02, maxZoom: 4, pixelRatio: big ? 1 : "auto",
    hideEdgesOnViewport: n > 1500, textureOnViewport: n > 1500,
    style: [
      {selector: "node", style: {"background-color": "data(color)", "width": "data(size)", "height": "data(size)",
        "label": "", "text-valign": "bottom", "text-halign": "center"}},
      {selector: "node.lbl", style: Object.assign({"label": "data(short)"}, labelStyle)},
      {selector: "node.hub.lbl", style: {"font-weight": "bold"}},
      {selector: "node.side-r", style: {"text-valign": "center", "text-halign": "right", "text-margin-y": 0,
        "text-margin-x": "data(fm)"}},
      {selector: "node.side-l", style: {"text-valign": "center", "text-halign": "left", "text-margin-y": 0,
        "text-margin-x": "data(fmx)"}},
      {selector: "edge", style: {"width": 0.7, "line-color": "#b9c2d0", "opacity": big ? 0.35 : 0.6,
        "curve-style": "haystack", "haystack-radius": 0}},
      {selector: ".hidden", style: {"display": "none"}},
      {selector: ".faded", style: {"opacity": 0.12}},
      {selector: "edge.near", style: {"line-color": "#56627a", "opacity": 0.9, "width": 1.2}},
      {selector: "node.focus", style: {"border-width": 3, "border-color": "#111", "z-index": 10}},
      {selector: "node.focus.lbl", style: {"label": "data(label)", "font-weight": "bold", "text-valign": "top",
        "text-margin-y": "data(fmt)"}},
      {selector: "node.hover", style: Object.assign({"label": "data(label)", "z-index": 20,
        "text-background-opacity": 1, "text-border-width": 1, "text-border-color": "#98a2b3", "text-border-opacity": 1,
        "text-background-padding": 2}, labelStyle)}
    ]
  });

  // --- labels where they fit -------------------------------------------------------------------------
  var ctx = document.createElement("canvas").getContext("2d");
  var widths = {};
  function textWidth(node, text) {   // the label's width on screen, measured once
    var bold = node.hasClass("hub") || node.hasClass("focus");
    var key = (bold ? "b" : "n") + text;
    if (widths[key] === undefined) {
      ctx.font = (bold ? "bold " : "") + LABEL_PX + "px " + FONT;
      widths[key] = ctx.measureText(text).width;
    }
    return widths[key];
  }
  // where a node's label goes, in screen pixels: below it, above it (the chosen page), or beside it in the
  // neighbourhood's columns; the margins are the data fm, fmx and fmt set in placeLabels. The box is the text's
  // plus the 2 drawing units cytoscape adds around a label, plus GAP (1 above and below) kept free.
  function labelBox(node, z) {
    var p = node.renderedPosition(), r = node.data("size") * z / 2;
    var text = node.hasClass("focus") ? node.data("label") : node.data("short");
    var tw = textWidth(node, text), th = LABEL_PX * 1.15, padX = 2 * z + GAP, padY = 2 * z + 1;
    if (node.hasClass("side-r") || node.hasClass("side-l")) {
      var x1 = node.hasClass("side-r") ? p.x + r + GAP + 2 : p.x - r - GAP - 4 - tw;
      return {x1: x1 - padX, x2: x1 + tw + padX, y1: p.y - th / 2 - padY, y2: p.y + th / 2 + padY};
    }
    var y1 = node.hasClass("focus") ? p.y - r - GAP - 3 - th : p.y + r + GAP + 2;
    return {x1: p.x - tw / 2 - padX, x2: p.x + tw / 2 + padX, y1: y1 - padY, y2: y1 + th + padY};
  }
  function rank(a, b) {   // the chosen page, its neighbours, the clusters' pages, then the best-linked pages
    var fa = a.hasClass("focus") ? 3 : a.hasClass("near") ? 2 : a.hasClass("hub") ? 1 : 0;
    var fb = b.hasClass("focus") ? 3 : b.hasClass("near") ? 2 : b.hasClass("hub") ? 1 : 0;
    return fb - fa || b.data("deg") - a.data("deg") || (a.data("title") < b.data("title") ? -1 : a.data("title") > b.data("title") ? 1 : 0);
  }
  var shownLabels = 0;
  function placeLabels() {
    var z = cy.zoom(), W = cy.width(), H = cy.height();
    var cell = 80, grid = {}, kept = [];
    function overlaps(b) {
      for (var gx = Math.floor(b.x1 / cell); gx <= Math.floor(b.x2 / cell); gx++) {
        for (var gy = Math.floor(b.y1 / cell); gy <= Math.floor(b.y2 / cell); gy++) {
          var list = grid[gx + "," + gy];
          if (!list) { continue; }
          for (var i = 0; i < list.length; i++) {
            var o = list[i];
            if (b.x1 < o.x2 && o.x1 < b.x2 && b.y1 < o.y2 && o.y1 < b.y2) { return true; }
          }
        }
      }
      return false;
    }
    function keep(b) {
      for (var gx = Math.floor(b.x1 / cell); gx <= Math.floor(b.x2 / cell); gx++) {
        for (var gy = Math.floor(b.y1 / cell); gy <= Math.floor(b.y2 / cell); gy++) {
          (grid[gx + "," + gy] = grid[gx + "," + gy] || []).push(b);
        }
      }
    }
    var cands = cy.nodes().filter(function (x) { return !x.hasClass("hidden") && !x.hasClass("faded"); }).sort(rank);
    cands.forEach(function (x) {
      var b = labelBox(x, z);
      if (b.x1 >= 0 && b.y1 >= 0 && b.x2 <= W && b.y2 <= H && !overlaps(b)) {
        keep(b);
        kept.push(x);
      }
      if (x.hasClass("hub") && !x.hasClass("side-l") && !x.hasClass("side-r")) {   // no later label over a cluster's page
        var p = x.renderedPosition(), r = x.data("size") * z / 2;
        keep({x1: p.x - r, x2: p.x + r, y1: p.y - r, y2: p.y + r});
      }
    });
    var want = cy.collection(kept);
    cy.batch(function () {
      cy.nodes(".lbl").not(want).removeClass("lbl");
      want.forEach(function (x) {   // labels one size on screen: the font and margins in drawing units
        x.data({fs: LABEL_PX / z, fm: (GAP + 2) / z, fmx: -(GAP + 4) / z, fmt: -(GAP + 3) / z});
      });
      want.addClass("lbl");
    });
    shownLabels = kept.length;
    container.setAttribute("data-labels", String(kept.length));
    container.setAttribute("data-zoom", z.toFixed(4));   // the zoom these labels were placed for
  }
  var pending = null;
  function labelsSoon() {   // once the view stops moving: a pass over a thousand pages is tens of ms
    window.clearTimeout(pending);
    pending = window.setTimeout(placeLabels, 80);
  }
  cy.on("viewport", labelsSoon);
  cy.on("dragfree", "node", labelsSoon);
  cy.on("mouseover", "node", function (evt) {
    var x = evt.target, z = cy.zoom();
    x.data({fs: LABEL_PX / z, fm: (GAP + 2) / z, fmx: -(GAP + 4) / z, fmt: -(GAP + 3) / z});
    x.addClass("hover");
  });
  cy.on("mouseout", "node", function (evt) { evt.target.removeClass("hover"); });
  container.addEventListener("mouseleave", function () { cy.nodes(".hover").removeClass("hover"); });

  // --- filters and the neighbourhood ----------------------------------------------------------------
  var focused = null;
  function shownTypes() {
    var on = {};
    boxes.forEach(function (b) { on[b.value] = b.checked; });
    return on;
  }
  function typeOf(node) { return colors[node.data("type")] ? node.data("type") : "other"; }
  function say() {
    var shown = cy.nodes().filter(function (x) { return !x.hasClass("hidden"); }).length;
    var text = shown + " of " + n + " pages shown";
    if (focused) {
      text += "; " + focused.data("title") + " (" + focused.data("type") + "): " + focused.degree() + " links";
    }
    status.textContent = text;
    if (focused) {
      var a = document.createElement("a");
      a.href = "pages/" + encodeURIComponent(focused.id()) + ".html";
      a.id = "graph-open";
      a.textContent = "open the page";
      status.appendChild(document.createTextNode(" - "));
      status.appendChild(a);
    }
  }
  function neighbourhood(node, depth) {
    var hood = node.closedNeighborhood();
    for (var i = 1; i < depth; i++) { hood = hood.union(hood.nodes().closedNeighborhood()); }
    return hood;
  }
  // Show these nodes, with padX and padY screen pixels around them, at most at zoom most. The nodes' own box,
  // not cytoscape's fit: that counts the labels as drawn at the zoom before, which may be far off.
  function fit(nodes, padX, padY, most) {
    var b = nodes.boundingBox({includeLabels: false, includeOverlays: false});
    var W = cy.width(), H = cy.height();
    var z = Math.min(most, (W - 2 * padX) / Math.max(b.w, 1), (H - 2 * padY) / Math.max(b.h, 1));
    z = Math.max(cy.minZoom(), z);
    cy.viewport({zoom: z, pan: {x: W / 2 - z * (b.x1 + b.x2) / 2, y: H / 2 - z * (b.y1 + b.y2) / 2}});
  }
  // The chosen page in the middle, its neighbours in columns right and left of it (the nearest, then by
  // type and title), each label on the side away from the middle: every label has its own row.
  function columns(visible) {
    var order = {collection: 0, topic: 1, figure: 2, document: 3};
    var others = visible.not(focused).sort(function (a, b) {
      var da = focused.edgesWith(a).length ? 0 : 1, db = focused.edgesWith(b).length ? 0 : 1;
      return da - db || (order[a.data("type")] === undefined ? 4 : order[a.data("type")]) -
        (order[b.data("type")] === undefined ? 4 : order[b.data("type")]) ||
        (a.data("title") < b.data("title") ? -1 : a.data("title") > b.data("title") ? 1 : 0);
    });
    // laid out on screen: as many columns as fit with their labels, rows as close as labels allow; when they
    // are more than the box holds, zoomed out in height only, so the columns keep their width
    var W = cy.width(), H = cy.height();
    var widest = 0;
    others.forEach(function (x) { widest = Math.max(widest, textWidth(x, x.data("short"))); });
    var colW = Math.min(COLUMN, widest + 2 * GAP + 24);
    var inner = Math.min(COLUMN, textWidth(focused, focused.data("label")) / 2) + 40;
    var perSide = Math.max(1, Math.floor((W / 2 - inner) / colW));
    var rows = Math.max(4, Math.floor((H - 80) / ROW));
    var cols = others.length <= 1 ? 1 : Math.min(2 * perSide, Math.max(2, Math.ceil(others.length / rows)));
    var per = Math.ceil(others.length / cols);
    var z = Math.max(cy.minZoom(), Math.min(1, (H - 80) / Math.max(1, (per - 1) * ROW)));
    cy.batch(function () {
      focused.position({x: 0, y: 0});
      others.forEach(function (x, i) {
        var c = Math.floor(i / per), k = i % per, m = Math.min(per, others.length - c * per);
        var right = c % 2 === 0, dist = (inner + Math.floor(c / 2) * colW) / z;
        x.position({x: right ? dist : -dist, y: (k - (m - 1) / 2) * ROW});
        x.addClass(right ? "side-r" : "side-l");
      });
    });
    cy.viewport({zoom: z, pan: {x: W / 2, y: H / 2 + 10}});
  }
  // Apply the type filter, and the neighbourhood of the focused page when one is asked for.
  function apply(relayout) {
    var on = shownTypes();
    var depth = parseInt(depthSel.value, 10);
    var hood = focused && depth > 0 ? neighbourhood(focused, depth) : null;
    cy.batch(function () {
      cy.elements().removeClass("faded near focus hidden side-l side-r");
      cy.nodes().forEach(function (x) {
        var keep = on[typeOf(x)] !== false && (!hood || hood.contains(x));
        if (focused && x.same(focused)) { keep = true; }
        if (!keep) { x.addClass("hidden"); }
      });
      if (focused) {
        focused.addClass("focus");
        var near = focused.closedNeighborhood();
        near.addClass("near");
        cy.edges().not(near).addClass(hood ? "hidden" : "faded");
        if (!hood) { cy.nodes().not(near).addClass("faded"); }
      }
    });
    var visible = cy.nodes().filter(function (x) { return !x.hasClass("hidden"); });
    if (hood && relayout) {
      columns(visible);
    } else if (relayout) {
      cy.nodes().forEach(function (x) { x.position(x.scratch("home")); });
      // a few pages are not blown up to fill the box
      fit(focused ? focused.closedNeighborhood().nodes() : visible.length ? visible : cy.nodes(), focused ? 60 : 30,
        focused ? 60 : 30, 1.3);
    }
    placeLabels();
    say();
  }
  cy.nodes().forEach(function (x) { x.scratch("home", {x: x.position("x"), y: x.position("y")}); });
  function focus(id) {
    var node = id ? cy.getElementById(id) : null;
    focused = node && node.length ? node : null;
    apply(true);
  }
  function find(text) {
    var t = (text || "").trim().toLowerCase();
    if (!t) { return null; }
    if (byTitle[t]) { return byTitle[t]; }
    var hit = data.nodes.filter(function (d) { return d.id === t || d.title.toLowerCase().indexOf(t) >= 0; });
    return hit.length ? hit[0].id : null;
  }
  boxes.forEach(function (b) { b.addEventListener("change", function () { apply(false); }); });
  depthSel.addEventListener("change", function () { apply(true); });
  search.addEventListener("change", function () { focus(find(search.value)); });
  search.addEventListener("keydown", function (e) { if (e.key === "Enter") { focus(find(search.value)); } });
  document.getElementById("graph-reset").addEventListener("click", function () {
    depthSel.value = "0";
    search.value = "";
    boxes.forEach(function (b) { b.checked = true; });
    focus(null);
  });
  cy.on("tap", "node", function (evt) { focus(evt.target.id()); });
  cy.on("tap", function (evt) { if (evt.target === cy) { focus(null); } });
  cy.on("dbltap", "node", function (evt) {
    window.location.href = "pages/" + encodeURIComponent(evt.target.id()) + ".html";
  });
  var m = /^#focus=(.+)$/.exec(window.location.hash);
  if (m) {
    depthSel.value = "1";
    focus(decodeURIComponent(m[1]));
  } else {
    apply(true);
  }
  window.wikigenGraph = cy;
  window.wikigenGraphView = {focus: focus, apply: apply, find: find, labels: function () { return shownLabels; }};
})();
