"""Issue 9, item 10: the smaller failures."""

import subprocess
import sys
from pathlib import Path

from test_offline_agent import make_corpus
from wikigen.search.index import CorpusIndex

from wikigen.cli import main
from wikigen.wiki.markup import Quote
from wikigen.wiki.quotes import check_quote

REPO = Path(__file__).resolve().parent.parent
ACME = REPO / "corpora" / "acme"


def test_corpus_folder_as_index_does_not_index_its_own_files(tmp_path):
    corpus = make_corpus(tmp_path, docs=3)
    counts = []
    for _ in range(3):
        idx, s = CorpusIndex.build(corpus, corpus)
        counts.append(s.documents)
    assert counts == [3, 3, 3]
    assert all(d.doc_id.startswith("contracts/") for d in idx.documents())


def test_budget_zero_and_negative_k_are_clear_errors(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=2)
    wiki = tmp_path / "wiki"
    assert main(["build", str(corpus), "--wiki", str(wiki), "--quiet", "--sessions", "1"]) == 0
    capsys.readouterr()
    assert main(["ask", "pallets", "--wiki", str(wiki), "--budget", "0"]) == 2
    assert "--budget must be 1 or more (got 0)" in capsys.readouterr().err
    assert main(["search", "pallets", "--index", str(wiki / ".wikigen" / "index"), "-k", "-5"]) == 2
    assert "-k must be 1 or more (got -5)" in capsys.readouterr().err


def test_a_closed_pipe_prints_no_traceback(tmp_path):
    idx = tmp_path / "idx"
    assert main(["index", str(ACME), "--index", str(idx)]) == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "wikigen.cli", "search", "the agreement", "--index", str(idx), "-k", "5000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read().decode()
    proc.wait()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_escaped_script_in_html_stays_literal_verbatim_text(tmp_path):
    """`&lt;script&gt;` becomes the literal text `<script>` (correct data); quotes keep it verbatim, so every
    renderer (the web view included) must escape page text, never execute it."""
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "page.html").write_text(
        "<html><body><p>Tip: never run &lt;script&gt;alert(1)&lt;/script&gt; "
        "from a mail.</p><script>evil()</script></body></html>",
        encoding="utf-8",
    )
    idx, _ = CorpusIndex.build(corpus, tmp_path / "idx")
    text = idx.texts.text("page")
    assert "<script>alert(1)</script>" in text and "evil()" not in text
    start = text.index("<script>")
    q = Quote("page", start, start + len("<script>alert(1)</script>"), "<script>alert(1)</script>")
    assert check_quote(q, idx).status == "ok"


def test_build_prints_skip_and_decoding_counts_without_verbose(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=2)
    (corpus / "notes.xyz").write_text("unsupported", encoding="utf-8")
    (corpus / "legacy.txt").write_bytes(
        "Caf\xe9 cr\xe8me: the supplier\u2019s fee is due in thirty days.\n".encode("cp1252")
    )
    assert main(["build", str(corpus), "--wiki", str(tmp_path / "wiki"), "--quiet", "--sessions", "1"]) == 0
    err = capsys.readouterr().err
    assert "1 files skipped, 1 decoded from a legacy encoding while indexing" in err
    (corpus / "attachment.txt").write_text("The key file follows.\n" + "QUJD" * 2_000 + "\n", encoding="utf-8")
    assert main(["build", str(corpus), "--wiki", str(tmp_path / "wiki"), "--quiet", "--sessions", "1"]) == 0
    err = capsys.readouterr().err
    assert (
        "1 files skipped, 1 tokens too long to index (in no passage) while indexing" in err
    )  # decoded: new files only
    capsys.readouterr()
    assert main(["index", str(corpus), "--index", str(tmp_path / "idx")]) == 0
    out = capsys.readouterr().out
    assert "decoded 1 files that are not valid UTF-8" in out and "legacy.txt" in out
