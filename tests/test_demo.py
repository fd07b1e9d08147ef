"""`make demo` is the first thing a user runs: it must work end to end on the shipped corpus."""

from wikigen.demo import main


def test_the_demo_runs_end_to_end(tmp_path, capsys):
    assert main(tmp_path / "demo") == 0
    out = capsys.readouterr().out
    assert "indexed 43 documents" in out
    assert "session 2:" in out
    for mode in ("search", "wiki", "wiki+search"):
        assert f"Ask ({mode})" in out
    assert "doc_id,title," in out  # the provisions table as CSV
    assert "contracts have Governing law: England" in out  # answered from the table, each with its quote
    assert (tmp_path / "demo" / "wiki" / "index.md").is_file()
    site = tmp_path / "demo" / "site" / "index.html"
    assert site.is_file() and f"Read it in a browser: open {site.resolve().as_uri()}" in out
