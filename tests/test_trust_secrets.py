"""Issue 9, item 7: secrets never enter a page, the log or an answer; check scans existing pages."""

import subprocess
from pathlib import Path

import pytest
from test_offline_agent import make_corpus

from wikigen.cli import main
from wikigen.wiki.secrets import find_secrets, redact

AWS = "AKIAIOSFODNN7EXAMPLE"
CARD = "4111 1111 1111 1111"
KEYLINE = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8Q5l1b0mZ7Xh8Yc9Jk2LpQ4rS"
RUNBOOK = f"""Database Runbook: aws_access_key_id = {AWS} and password: hunter2

1. Access. The operator connects with the service account. Since 1 March 2024 the key is
aws_access_key_id = {AWS}. The database password: hunter2 for the primary.

2. Billing. Charges go to the corporate card {CARD} every month for the hosting fees.

3. Keys. The deploy key follows.
-----BEGIN RSA PRIVATE KEY-----
{KEYLINE}
-----END RSA PRIVATE KEY-----

4. Rotation. The operator rotates pallets weekly and keeps the pallet rotation log for one year.
"""
SECRETS = [AWS, "hunter2", CARD, KEYLINE]


def test_detector_finds_each_kind_and_leaves_contract_text_alone():
    kinds = {s.kind for s in find_secrets(RUNBOOK)}
    assert {"AWS Access Key", "Secret Keyword", "Payment Card Number", "Private Key"} <= kinds
    red = redact(RUNBOOK)
    assert not any(s in red for s in SECRETS)
    plain = "Either party may terminate this Agreement upon ninety (90) days' written notice, dated March 3, 2024."
    assert find_secrets(plain) == []


def _all_wiki_text(wiki: Path) -> str:
    out = []
    for p in wiki.rglob("*"):
        if p.is_file() and ".git/" not in str(p) and "/index/" not in str(p) and "/cache/" not in str(p):
            out.append(p.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(out)


def test_build_keeps_secrets_out_of_pages_log_git_and_answers(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=3, schedule=20)
    (corpus / "runbooks").mkdir()
    (corpus / "runbooks" / "db.txt").write_text(RUNBOOK, encoding="utf-8")
    wiki = tmp_path / "wiki"
    rc = main(["build", str(corpus), "--wiki", str(wiki), "--quiet", "--sessions", "2", "--max-ratio", "3"])
    assert rc == 0
    text = _all_wiki_text(wiki)
    leaked = [s for s in SECRETS if s in text]
    assert not leaked
    history = subprocess.run(["git", "log", "-p", "--all"], cwd=wiki, capture_output=True, text=True).stdout
    assert not [s for s in SECRETS if s in history]
    log = (wiki / ".wikigen" / "progress.jsonl").read_text(encoding="utf-8")
    # the document page's key facts quote the dated sentence, which holds the key: that quote is kept out
    # (the sentence is short, so the page of this short document has room for it)
    assert "kept out of the wiki, a quote holding AWS Access Key at chars" in log and "runbooks/db" in log
    assert (wiki / "doc-runbooks-db.md").is_file()  # the document still has its page
    capsys.readouterr()
    main(["ask", "What is the database password and access key?", "--wiki", str(wiki), "--json"])
    out = capsys.readouterr().out
    assert not [s for s in SECRETS if s in out]
    assert main(["check", str(wiki)]) in (0, 1)
    assert "secret" not in capsys.readouterr().out


def test_check_reports_a_secret_in_an_existing_page(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=2)
    wiki = tmp_path / "wiki"
    assert main(["build", str(corpus), "--wiki", str(wiki), "--quiet", "--sessions", "1"]) == 0
    page = wiki / "doc-contracts-supply-acme.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nReviewer note: password: hunter2\n", encoding="utf-8")
    assert main(["check", str(wiki)]) == 1
    out = capsys.readouterr().out
    assert "secret" in out and "doc-contracts-supply-acme.md:" in out and "hunter2" not in out


def test_store_refuses_a_page_with_a_secret_naming_the_span(tmp_path):
    from wikigen.search.sources import open_wiki

    from wikigen.core.errors import SecretError
    from wikigen.wiki.page import Page

    corpus = make_corpus(tmp_path, docs=2)
    wiki = tmp_path / "wiki"
    assert main(["build", str(corpus), "--wiki", str(wiki), "--quiet", "--sessions", "1"]) == 0
    w = open_wiki(wiki)
    with pytest.raises(SecretError) as e:
        w.write(Page("notes", "Notes", "agent-1", "d", body=f"key {AWS}\n"), agent="agent-1", session=9)
    assert "AWS Access Key" in str(e.value) and AWS not in str(e.value)
    assert not (wiki / "notes.md").exists()
