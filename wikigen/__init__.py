"""wikigen: compile a document corpus into a wiki of linked, verified markdown pages.

The public API, importable from here (what the command line is a thin layer over):

    CorpusIndex, Hit        the corpus's search index and one search hit (wikigen.search.index)
    open_wiki               a Wiki with the corpus index its config records (wikigen.search.sources)
    Wiki, Page, Quote       the pages, with ownership and quote checks on write (wikigen.wiki)
    build, BuildConfig, BuildReport   the agents' sessions (wikigen.agents.orchestrate)
    Answerer, AskResult     retrieval and answers (wikigen.ask.retrieval)
    WikigenError            the base of every error the project raises (wikigen.core.errors)

Each name is imported on first use (PEP 562), so `import wikigen.core.errors` loads no more than that:
a layer of the project never pulls the layers above it in through the package root.
"""

import importlib as _importlib
import typing as _typing

__version__ = "0.1.0"

if _typing.TYPE_CHECKING:  # what a type checker and an editor see; at run time __getattr__ imports on demand
    from wikigen.agents.orchestrate import BuildConfig, BuildReport, build
    from wikigen.ask.retrieval import Answerer, AskResult
    from wikigen.core.errors import WikigenError
    from wikigen.search.index import CorpusIndex, Hit
    from wikigen.search.sources import open_wiki
    from wikigen.wiki.markup import Quote
    from wikigen.wiki.page import Page
    from wikigen.wiki.store import Wiki

_HOMES = {
    "Answerer": "wikigen.ask.retrieval",
    "AskResult": "wikigen.ask.retrieval",
    "BuildConfig": "wikigen.agents.orchestrate",
    "BuildReport": "wikigen.agents.orchestrate",
    "CorpusIndex": "wikigen.search.index",
    "Hit": "wikigen.search.index",
    "Page": "wikigen.wiki.page",
    "Quote": "wikigen.wiki.markup",
    "Wiki": "wikigen.wiki.store",
    "WikigenError": "wikigen.core.errors",
    "build": "wikigen.agents.orchestrate",
    "open_wiki": "wikigen.search.sources",
}

__all__ = [
    "Answerer",
    "AskResult",
    "BuildConfig",
    "BuildReport",
    "CorpusIndex",
    "Hit",
    "Page",
    "Quote",
    "Wiki",
    "WikigenError",
    "__version__",
    "build",
    "open_wiki",
]


if not _typing.TYPE_CHECKING:  # hidden from type checkers, so a misspelt name stays an error for them

    def __getattr__(name: str) -> object:
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module 'wikigen' has no attribute {name!r}")
        value = getattr(_importlib.import_module(home), name)
        globals()[name] = value  # imported once
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *_HOMES})
