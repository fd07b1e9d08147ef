// Source view: highlight the span in #chars=START-END and scroll to it.
// START and END are the wiki's offsets: characters (code points) into the extracted text. The page shows that
// text edited: CRLF line ends as LF, each secret as its mark; it lists every edit as [raw start, raw end,
// shown length] (a dropped CR is [i, i + 1, 0]), in order, so raw offsets map to shown ones exactly.
// The DOM is changed with text nodes only (splitText, createElement, textContent): no HTML from data.
(function () {
  "use strict";
  var pre = document.getElementById("doc-text");
  var status = document.getElementById("span-status");
  if (!pre) { return; }
  var edits = JSON.parse(document.getElementById("doc-edits").textContent);
  var full = pre.textContent;

  function shown(raw, isEnd) {       // the shown offset of a raw one; inside a mark, its start or end
    var d = 0;
    for (var i = 0; i < edits.length; i++) {
      var s = edits[i][0], e = edits[i][1], n = edits[i][2];
      if (e <= raw) { d += (e - s) - n; continue; }
      if (s < raw) { return s - d + (isEnd ? n : 0); }
      break;
    }
    return raw - d;
  }
  function units(s, cp) {            // code points -> UTF-16 units of s
    var i = 0, n = 0;
    while (n < cp && i < s.length) {
      var c = s.charCodeAt(i);
      i += (c >= 0xD800 && c <= 0xDBFF && i + 1 < s.length) ? 2 : 1;
      n++;
    }
    return n < cp ? -1 : i;
  }
  function say(text, bad) {
    status.textContent = text;
    status.className = bad ? "span-status error" : "span-status";
  }
  function highlight() {
    pre.textContent = full;          // one text node again
    var m = /^#chars=(\d+)-(\d+)$/.exec(window.location.hash);
    if (!m) { return; }
    var start = parseInt(m[1], 10), end = parseInt(m[2], 10);
    var a = units(full, shown(start, false)), b = units(full, shown(end, true));
    if (a < 0 || b < 0 || b < a) {
      say("chars " + start + "-" + end + " is outside this document's text.", true);
      return;
    }
    var mid = pre.firstChild.splitText(a);
    mid.splitText(b - a);
    var mark = document.createElement("mark");
    mark.id = "highlight";
    pre.replaceChild(mark, mid);
    mark.appendChild(mid);
    say("Highlighted chars " + start + "-" + end + " (" + (end - start) + " characters).", false);
    mark.scrollIntoView({block: "center"});
  }
  window.addEventListener("hashchange", highlight);
  highlight();
})();
