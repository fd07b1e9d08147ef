"""The project's exceptions. The CLI catches WikigenError and prints one line; anything else is a bug.

WikigenError
 ├── CorpusError          a corpus folder that cannot be used at all
 ├── SearchIndexError     a missing or unusable search index
 ├── PageError            a page that cannot be parsed or has a bad slug / front matter
 │    └── QuoteError      a quote that is not verbatim in its source
 ├── OwnershipError       writing a page that another agent owns
 ├── SizeLimitError       a write or a build that would make the wiki larger than allowed
 └── BackendError         a model backend that cannot be used (no key, fatal API error)
"""


class WikigenError(Exception):
    exit_code = 1


class CorpusError(WikigenError):
    pass


class SearchIndexError(WikigenError):
    pass


class PageError(WikigenError):
    pass


class QuoteError(PageError):
    pass


class OwnershipError(WikigenError):
    pass


class SizeLimitError(WikigenError):
    pass


class BackendError(WikigenError):
    pass
