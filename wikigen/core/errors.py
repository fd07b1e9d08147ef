"""The project's exceptions: one tree. The CLI catches WikigenError and prints one line; anything else is a bug.

WikigenError
 ├── UsageError           a bad argument or option (the CLI exits 2)
 │    └── SchemaError     a schema file of document fields that cannot be used (wikigen.search.values.schema)
 ├── CorpusError          a corpus folder that cannot be used at all
 ├── ExtractError         one file that cannot be used; str(e) is its skip reason
 ├── SearchIndexError     a missing or unusable search index
 ├── PageError            a page that cannot be parsed or has a bad slug / front matter
 │    ├── QuoteError      a quote that is not verbatim in its source
 │    └── SecretError     a page that would hold a secret (wikigen.wiki.secrets)
 ├── OwnershipError       writing a page that another agent owns
 ├── SizeLimitError       a write or a build that would make the wiki larger than allowed
 ├── ToolError            an agent's tool call that cannot be done as asked
 ├── BackendError         a model backend that cannot be used (no key, fatal API error)
 ├── OutsideRootError     a write, move or delete that would leave its folder through a symlink
 ├── EngineError          the cluster of `--engine ray` cannot be reached, lacks what a stage needs, or lost its workers
 └── LockedError          another process holds the lock (its pid is in the message; the CLI exits 3)
      ├── BuildLockedError    another build holds the wiki
      └── IndexLockedError    another `index` or build writes the search index
"""


class WikigenError(Exception):
    exit_code = 1


class UsageError(WikigenError):
    exit_code = 2


class SchemaError(UsageError):
    pass


class CorpusError(WikigenError):
    pass


class ExtractError(WikigenError):
    pass


class SearchIndexError(WikigenError):
    pass


class PageError(WikigenError):
    pass


class QuoteError(PageError):
    pass


class SecretError(PageError):
    pass


class OwnershipError(WikigenError):
    pass


class SizeLimitError(WikigenError):
    pass


class ToolError(WikigenError):
    pass


class BackendError(WikigenError):
    pass


class OutsideRootError(WikigenError):
    pass


class EngineError(WikigenError):
    pass


class LockedError(WikigenError):
    exit_code = 3


class BuildLockedError(LockedError):
    pass


class IndexLockedError(LockedError):
    pass
