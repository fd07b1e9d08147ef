// The home page's documents table: sort by a column (click its head; again to reverse) and filter by
// words (every word must appear in the row, any script, case-folded) and by kind. Rows carry their sort
// keys in data-sort; only rows are moved and hidden, nothing is built from data: no HTML from data.
(function () {
  "use strict";
  var table = document.getElementById("documents");
  if (!table) { return; }
  var tbody = table.tBodies[0];
  var rows = Array.prototype.slice.call(tbody.rows);
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var filter = document.getElementById("doc-filter");
  var kind = document.getElementById("kind-filter");
  var count = document.getElementById("doc-count");
  var texts = rows.map(function (r) { return r.textContent.toLowerCase().replace(/\s+/g, " "); });
  var collator = new Intl.Collator(undefined, {numeric: true, sensitivity: "base"});

  function key(row, col) {
    var cell = row.cells[col];
    return cell ? (cell.getAttribute("data-sort") || "") : "";
  }
  function sortBy(col, dir) {
    var order = rows.map(function (r, i) { return i; });
    order.sort(function (a, b) {
      var ka = key(rows[a], col), kb = key(rows[b], col);
      if (!ka !== !kb) { return ka ? -1 : 1; }      // empty cells last, either way
      return dir * collator.compare(ka, kb) || a - b;
    });
    var frag = document.createDocumentFragment();
    order.forEach(function (i) { frag.appendChild(rows[i]); });
    tbody.appendChild(frag);
    heads.forEach(function (h, i) {
      if (i === col) { h.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending"); }
      else { h.removeAttribute("aria-sort"); }
    });
  }
  heads.forEach(function (h, col) {
    var button = h.querySelector("button");
    if (!button) { return; }
    button.addEventListener("click", function () {
      sortBy(col, h.getAttribute("aria-sort") === "ascending" ? -1 : 1);
    });
  });

  function apply() {
    var words = (filter.value || "").toLowerCase().split(/\s+/).filter(Boolean);
    var want = kind ? kind.value : "";
    var shown = 0;
    rows.forEach(function (r, i) {
      var ok = (!want || r.getAttribute("data-kind") === want) &&
        words.every(function (w) { return texts[i].indexOf(w) >= 0; });
      r.hidden = !ok;
      if (ok) { shown++; }
    });
    count.textContent = shown === rows.length ? rows.length + " documents" : shown + " of " + rows.length + " documents";
  }
  // The further columns shown: a box per column under "Columns" (the first few are shown at first).
  Array.prototype.forEach.call(document.querySelectorAll("#columns input[data-col]"), function (box) {
    box.addEventListener("change", function () {
      var col = +box.getAttribute("data-col");
      heads[col].classList.toggle("col-off", !box.checked);
      rows.forEach(function (r) { if (r.cells[col]) { r.cells[col].classList.toggle("col-off", !box.checked); } });
    });
  });

  filter.addEventListener("input", apply);
  if (kind) { kind.addEventListener("change", apply); }
  apply();
  window.wikigenTable = {sortBy: sortBy, apply: apply};
})();
