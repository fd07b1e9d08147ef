"""The wiki: pages, quotes, the store, links, the index page, the progress log, size, history, lint.

Depends only on the kernel; the corpus reaches it through the `Sources` protocol."""
