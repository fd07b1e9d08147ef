// Graph view: the pages and their links, drawn by cytoscape (vendored in static/, no CDN).
// Positions come from the page (wikigen/web/layout.py: computed once in Python), so the browser only draws
// ("preset" layout): a force layout in the browser takes tens of seconds at a thousand pages.
// Readable at any size by filtering: page types on and off, a search that picks a page, and a page's
// neighbourhood (1 or 2 links away) laid out around it. Labels are data, never HTML.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var colors = {document: "#2f7ed8", collection: "#e08a1e", topic: "#3a9d5d", figure: "#c0508a"};
  var OTHER = "#8a63c7";
  var n = data.nodes.length;
  var big = n > 600;
  var status = document.getElementById("graph-status");
  var search = document.getElementById("graph-search");
  var depthSel = document.getElementById("graph-depth");
  var boxes = Array.prototype.slice.call(document.querySelectorAll("#type-filter input[type=checkbox]"));
  var maxDeg = 1, byTitle = {};
  data.nodes.forEach(function (d) { maxDeg = Math.max(maxDeg, d.deg); });
  var hubDeg = data.nodes.map(function (d) { return d.deg; }).sort(function (a, b) { return b - a; })[Math.min(n - 1, 7)] || 1;
  // stretch the drawing to the container's shape, so it fills the box instead of a circle in its middle
  var box = document.getElementById("graph").getBoundingClientRect();
  var xs = data.nodes.map(function (d) { return d.x; }), ys = data.nodes.map(function (d) { return d.y; });
  var w = Math.max.apply(null, xs) - Math.min.apply(null, xs) || 1, h = Math.max.apply(null, ys) - Math.min.apply(null, ys) || 1;
  var stretch = Math.max(1, Math.min(3, (box.width / Math.max(1, box.height)) / (w / h)));
  var elements = [];
  data.nodes.forEach(function (d) {
    var label = d.title.length > 40 ? d.title.slice(0, 39) + "…" : d.title;
    byTitle[d.title.toLowerCase()] = byTitle[d.title.toLowerCase()] || d.id;
    var short = d.title.length > 24 ? d.title.slice(0, 23) + "…" : d.title;
    elements.push({group: "nodes", data: {id: d.id, label: label, short: short, title: d.title, type: d.type, deg: d.deg,
                   color: colors[d.type] || OTHER, size: 8 + 22 * Math.sqrt(d.deg / maxDeg)},
                   position: {x: d.x * stretch, y: d.y}, classes: d.deg >= hubDeg ? "hub" : ""});
  });
  data.edges.forEach(function (e, i) {
    elements.push({group: "edges", data: {id: "e" + i, source: e.source, target: e.target}});
  });
  var cy = cytoscape({
    container: document.getElementById("graph"),
    elements: elements,
    layout: {name: "preset", fit: true, padding: 20},
    minZoom: 0.02, maxZoom: 4, pixelRatio: big ? 1 : "auto",
    hideEdgesOnViewport: n > 1500, textureOnViewport: n > 1500,
    style: [
      {selector: "node", style: {"background-color": "data(color)", "width": "data(size)", "height": "data(size)",
        "label": "", "font-size": 11, "color": "#222",
        "text-valign": "bottom", "text-margin-y": 2, "text-background-color": "#fff",
        "text-background-opacity": 0.8, "text-background-padding": 1}},
      {selector: "node.hub", style: {"label": "data(short)", "font-size": 13, "font-weight": "bold"}},
      {selector: "node.zoomed", style: {"label": "data(label)"}},
      {selector: "edge", style: {"width": 0.7, "line-color": "#b9c2d0", "opacity": big ? 0.35 : 0.7,
        "curve-style": "haystack", "haystack-radius": 0}},
      {selector: ".hidden", style: {"display": "none"}},
      {selector: ".faded", style: {"opacity": 0.12}},
      {selector: "edge.near", style: {"line-color": "#56627a", "opacity": 0.9, "width": 1.2}},
      {selector: "node.near", style: {"label": "data(label)"}},
      {selector: "node.focus", style: {"border-width": 3, "border-color": "#111", "label": "data(label)",
        "font-size": 15, "font-weight": "bold", "z-index": 10}}
    ]
  });
  var focused = null;
  var zoomedIn = false;
  function labels() {             // every label once zoomed in past the overview; hubs' labels always
    var want = cy.zoom() * (big ? 0.55 : 0.9) >= 1;
    if (want !== zoomedIn) {
      zoomedIn = want;
      cy.batch(function () { cy.nodes().toggleClass("zoomed", want); });
    }
  }
  cy.on("zoom", labels);

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
  // Apply the type filter, and the neighbourhood of the focused page when one is asked for.
  function apply(relayout) {
    var on = shownTypes();
    var depth = parseInt(depthSel.value, 10);
    var hood = focused && depth > 0 ? neighbourhood(focused, depth) : null;
    cy.batch(function () {
      cy.elements().removeClass("faded near focus hidden");
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
    if (hood && relayout && visible.length <= 40) {   // a few pages: in rings around the chosen one
      visible.layout({name: "concentric", animate: false, fit: true, padding: 30, minNodeSpacing: 40,
        concentric: function (x) { return x.same(focused) ? 3 : (focused.edgesWith(x).length ? 2 : 1); },
        levelWidth: function () { return 1; }}).run();
    } else if (hood && relayout) {                       // many: rows by type and title, the chosen one first
      var rank = {document: 3, collection: 1, topic: 2, figure: 2};
      visible.layout({name: "grid", animate: false, fit: true, padding: 20, avoidOverlapPadding: 4,
        cols: Math.max(2, Math.floor(box.width / 240)),
        sort: function (a, b) {
          if (a.same(focused) || b.same(focused)) { return a.same(focused) ? -1 : 1; }
          return (rank[a.data("type")] || 4) - (rank[b.data("type")] || 4) ||
            (a.data("title") < b.data("title") ? -1 : 1);
        }}).run();
    } else if (relayout) {
      cy.nodes().forEach(function (x) { x.position(x.scratch("home")); });
      if (focused) { cy.fit(focused.closedNeighborhood(), 60); } else { cy.fit(visible.length ? visible : cy.nodes(), 20); }
    }
    if (relayout && cy.zoom() > 1.3) {   // a few pages: not blown up to fill the box
      cy.zoom(1.3);
      cy.center(hood ? visible : focused ? focused.closedNeighborhood() : visible);
    }
    labels();
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
    say();
  }
  window.wikigenGraph = cy;
  window.wikigenGraphView = {focus: focus, apply: apply, find: find};
})();
