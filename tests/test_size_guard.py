import pytest
from wiki_helpers import make_index, page

from wikigen.core.errors import SizeLimitError
from wikigen.core.tokens import CharCounter
from wikigen.wiki.size_guard import SizeTracker, check_size, measure_wiki
from wikigen.wiki.store import Wiki


class CountingCounter(CharCounter):
    def __init__(self):
        self.calls = 0

    def count_many(self, texts):
        texts = list(texts)
        self.calls += len(texts)
        return super().count_many(texts)


def make_wiki(tmp_path, sizes: dict[str, int]):
    for name, n in sizes.items():
        (tmp_path / f"{name}.md").write_text("x" * n, encoding="utf-8")
    (tmp_path / ".wikigen").mkdir(exist_ok=True)
    (tmp_path / ".wikigen" / "ignored.md").write_text("y" * 10_000)
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / ".git" / "ignored.md").write_text("y" * 10_000)
    return tmp_path


def test_counts_every_md_file_but_hidden_folders_and_the_generated_bookkeeping(tmp_path):
    make_wiki(tmp_path, {"a": 10, "index": 5, "log": 7})
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "n.md").write_text("é" * 4)
    (tmp_path / "notes.txt").write_text("not markdown")
    size = measure_wiki(tmp_path, CharCounter())
    assert size.files == {"a.md": 10, "sub/n.md": 4}
    assert size.generated == {"index.md": 5, "log.md": 7}  # reported beside the size, not in it
    assert (size.chars, size.bytes) == (14, 18)
    assert size.tokens == 3 + 1


def test_levels(tmp_path):
    make_wiki(tmp_path, {"big": 600, "small": 100})
    assert check_size(tmp_path, 1000).level == "ok"  # 0.70
    r = check_size(tmp_path, 850)  # 0.82 >= 0.8
    assert r.level == "warn" and r.message.startswith("wiki is approaching the limit: 0.82x the corpus in characters")
    r = check_size(tmp_path, 600, max_ratio=1.0)  # 1.17 > 1.0
    assert r.level == "stop" and not r.ok
    assert r.message == (
        "wiki is larger than allowed: 1.17x the corpus in characters (700 of 600); limit 1.00x; "
        "largest pages: big.md (600 chars), small.md (100 chars) - stop the build, then shorten "
        "or merge the largest pages"
    )
    assert check_size(tmp_path, 600, max_ratio=2.0).level == "ok"


def test_tokens_can_stop_the_build(tmp_path):
    make_wiki(tmp_path, {"a": 400})
    r = check_size(tmp_path, 1000, corpus_tokens=50, counter=CharCounter())
    assert r.level == "stop" and r.ratio_chars == 0.4 and r.ratio_tokens == 2.0
    assert "2.00x the corpus in tokens (100 of 50)" in r.message


def test_token_cache_by_content_hash(tmp_path):
    make_wiki(tmp_path, {"a": 400, "b": 40})
    c = CountingCounter()
    cache = tmp_path / ".wikigen" / "cache" / "tokens.json"
    measure_wiki(tmp_path, c, cache_path=cache)
    assert c.calls == 2
    measure_wiki(tmp_path, c, cache_path=cache)
    assert c.calls == 2
    (tmp_path / "b.md").write_text("changed")
    assert measure_wiki(tmp_path, c, cache_path=cache).tokens == 100 + 2
    assert c.calls == 3


def test_tracker_rereads_only_changed_files(tmp_path):
    make_wiki(tmp_path, {f"p{i}": 50 for i in range(100)})
    t = SizeTracker(tmp_path)
    assert t.total_chars() == 5000
    (tmp_path / "p1.md").write_text("x" * 60)
    (tmp_path / "p2.md").unlink()
    assert t.total_chars() == 5000 + 10 - 50


def test_repeated_size_check_reads_no_unchanged_file(tmp_path, monkeypatch):
    """The check stats every page but reads only the changed ones (its speed is measured in
    bench/scale_bench.py, not timed here)."""
    import wikigen.wiki.size_guard as sg

    make_wiki(tmp_path, {f"p{i:04d}": 2000 for i in range(300)})
    t = SizeTracker(tmp_path)
    assert t.total_chars() == 600_000
    reads = []
    real = sg._read
    monkeypatch.setattr(sg, "_read", lambda path: reads.append(path.name) or real(path))
    for _ in range(5):
        assert t.total_chars() == 600_000
    assert reads == []
    (tmp_path / "p0007.md").write_text("x" * 10)
    assert t.total_chars() == 600_000 - 2000 + 10
    assert reads == ["p0007.md"]


def test_build_stops_and_write_refused(tmp_path):
    index = make_index(tmp_path, {"d": "word " * 400})  # 2,000 characters
    wiki = Wiki.create(tmp_path / "wiki", index, max_ratio=1.0)
    wiki.write(page("a", body="y" * 1500 + "\n"), agent="alice", session=1)
    assert check_size(wiki.root, index.corpus_chars).level == "warn"
    with pytest.raises(SizeLimitError, match=r"the limit is 1.00x"):
        wiki.write(page("b", owner="bob", body="z" * 300 + "\n"), agent="bob", session=1)
    assert not wiki.exists("b")
    (wiki.root / "log.md").write_text("l" * 700)  # generated files are reported beside, not counted
    r = check_size(wiki.root, index.corpus_chars)
    assert r.level == "warn" and "generated bookkeeping not counted: log.md (700 chars)" in r.message
    (wiki.root / "notes.md").write_text("n" * 700)  # a page written by hand counts
    r = check_size(wiki.root, index.corpus_chars)
    assert r.level == "stop" and "largest pages: a.md" in r.message
