"""The web view of a wiki: `wikigen serve WIKI` (live, on 127.0.0.1) and `wikigen site WIKI --out DIR`
(a static site that opens from disk). Both render the same pages from the same templates:

    model.py      SiteData: one read of the wiki, its corpus index, the documents table and its progress log
    render.py     bodies and answers to HTML (markdown-it-py, raw HTML off; [[links]]; quotes; callouts; citations)
    layout.py     graph positions computed once in Python (the browser draws a thousand pages without a layout)
    growth.py     per-session figures (the build's "session summary" entries, else git history) and the chart
    views.py      the pages (jinja2, autoescaped), addressed by relative paths shared by both modes
    site.py       write_site: every page to a folder, plus a small JSON index for client-side page search
    server.py     serve: the same pages live, plus search over pages and corpus and `ask`
    screenshots.py  PNGs of the demo wiki's home, a page, an answer, the graph and growth views (docs/)

Text from documents and pages is data: jinja2 escapes it, markdown is rendered with raw HTML off, and
the scripts in static/ build the DOM with textContent, never innerHTML. Every page carries the
Content-Security-Policy (views.CSP) in a <meta>, and the server sends it as a header too.
"""
