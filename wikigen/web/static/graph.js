// Graph view: the pages and their links, drawn by cytoscape (vendored in static/, no CDN).
// The layout is cytoscape's force-directed "cose" with a seeded random start, so the picture is the
// same on every load. Labels are set as data, never as HTML.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var colors = {document: "#2f7ed8", collection: "#e08a1e", topic: "#3a9d5d"};
  var elements = [];
  data.nodes.forEach(function (n) {
    var label = n.title.length > 32 ? n.title.slice(0, 31) + "…" : n.title;
    elements.push({group: "nodes", data: {id: n.id, label: label, color: colors[n.type] || "#8a63c7"},
                   classes: n.type === "document" ? "doc" : "hub"});
  });
  data.edges.forEach(function (e, i) {
    elements.push({group: "edges", data: {id: "e" + i, source: e.source, target: e.target}});
  });
  var seed = 42;
  var random = Math.random;
  Math.random = function () {          // mulberry32, only while the layout runs
    seed = (seed + 0x6D2B79F5) | 0;
    var t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  var big = data.nodes.length > 150;
  var cy;
  try {
    cy = cytoscape({
      container: document.getElementById("graph"),
      elements: elements,
      style: [
        {selector: "node", style: {"background-color": "data(color)", "label": "",
          "font-size": 14, "color": "#222", "text-valign": "bottom", "text-margin-y": 3, "width": 12, "height": 12,
          "text-background-color": "#fff", "text-background-opacity": 0.75, "text-background-padding": 1}},
        {selector: "node.hub", style: {"label": big ? "" : "data(label)", "width": 18, "height": 18, "font-weight": "bold"}},
        {selector: "node:selected, node.hover", style: {"label": "data(label)", "border-width": 2, "border-color": "#111"}},
        {selector: "edge", style: {"width": 1, "line-color": "#b9c2d0", "target-arrow-color": "#b9c2d0",
          "target-arrow-shape": "triangle", "arrow-scale": 0.6, "curve-style": big ? "haystack" : "straight", "opacity": 0.7}}
      ],
      layout: {name: "cose", animate: false, randomize: true, nodeRepulsion: function () { return 12000; },
               idealEdgeLength: function () { return 50; }, nodeOverlap: 20, gravity: 1.5, numIter: big ? 250 : 1000, fit: true, padding: 20}
    });
  } finally {
    Math.random = random;
  }
  cy.on("tap", "node", function (evt) {
    window.location.href = "pages/" + encodeURIComponent(evt.target.id()) + ".html";
  });
  cy.on("mouseover", "node", function (evt) { evt.target.addClass("hover"); });
  cy.on("mouseout", "node", function (evt) { evt.target.removeClass("hover"); });
  window.wikigenGraph = cy;
})();
