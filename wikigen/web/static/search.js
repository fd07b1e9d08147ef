// Static site search over the pages: the words of the query (lower-cased; CJK matched as substrings)
// against each page's title and aliases (x3), description (x1.5) and body words (x1).
// Results are built with createElement/textContent: no HTML from data.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("search-data").textContent);
  var list = document.getElementById("page-results-list");
  var status = document.getElementById("page-results-status");
  var params = new URLSearchParams(window.location.search);
  var query = (params.get("q") || "").trim();
  document.getElementById("q").value = query;
  if (!query) { status.textContent = "Type a query above."; return; }
  var words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) || [];

  function has(hay, w) {
    if (/[\u1100-\u11ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]/.test(w)) { return hay.indexOf(w) >= 0; }
    return (" " + hay + " ").indexOf(" " + w + " ") >= 0 || hay.split(/[^\p{L}\p{N}_]+/u).indexOf(w) >= 0;
  }
  var hits = [];
  data.forEach(function (p) {
    var head = (p.title + " " + p.aliases.join(" ")).toLowerCase();
    var desc = p.description.toLowerCase();
    var score = 0;
    words.forEach(function (w) {
      if (has(head, w)) { score += 3; }
      if (has(desc, w)) { score += 1.5; }
      if (has(p.terms, w)) { score += 1; }
    });
    if (score > 0) { hits.push({page: p, score: score}); }
  });
  hits.sort(function (x, y) { return y.score - x.score || (x.page.slug < y.page.slug ? -1 : 1); });
  status.textContent = hits.length ? hits.length + " page(s) match." : "No page matches.";
  hits.slice(0, 50).forEach(function (h) {
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.href = "pages/" + encodeURIComponent(h.page.slug) + ".html";
    a.textContent = h.page.title;
    var type = document.createElement("span");
    type.className = "type";
    type.textContent = h.page.type;
    var desc = document.createElement("span");
    desc.className = "description";
    desc.textContent = h.page.description;
    li.appendChild(a);
    li.appendChild(document.createTextNode(" "));
    li.appendChild(type);
    li.appendChild(document.createElement("br"));
    li.appendChild(desc);
    list.appendChild(li);
  });
})();
