"""Many writers at once, in threads and in separate processes: no fact lost, no foreign page changed."""

import json
import multiprocessing as mp
import re
import threading

from wiki_helpers import FACT_NEEDLE, make_index, page, process_writer, quote_body, quote_of, writer

from wikigen.wiki.store import Wiki

ROUNDS = 25


def test_concurrent_writers_processes_and_threads(tmp_path):
    index = make_index(tmp_path)
    wiki = Wiki.create(tmp_path / "wiki", index, max_ratio=50.0)
    proc_agents = [[f"p{i}-a", f"p{i}-b"] for i in range(3)]  # 3 processes x 2 threads
    thread_agents = ["t-a", "t-b", "t-c"]  # 3 threads in this process
    everyone = [a for grp in proc_agents for a in grp] + thread_agents
    q = quote_of(index, "contracts/acme-msa", FACT_NEEDLE, nth=3)
    for a in everyone:
        wiki.write(page(a, owner=a, body=quote_body(q, text="Facts:")), agent=a, session=0)

    results_dir = tmp_path / "results"
    results_dir.mkdir()
    ctx = mp.get_context("spawn")
    procs = [
        ctx.Process(
            target=process_writer, args=(str(wiki.root), str(index.root), grp, everyone, ROUNDS, str(results_dir))
        )
        for grp in proc_agents
    ]
    for p in procs:
        p.start()
    local: list[dict] = []
    threads = [
        threading.Thread(
            target=lambda a=a: local.append(
                writer(str(wiki.root), str(index.root), a, [x for x in everyone if x != a], ROUNDS)
            )
        )
        for a in thread_agents
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p in procs:
        p.join(timeout=240)
        assert p.exitcode == 0

    results = local + [json.loads(f.read_text()) for f in sorted(results_dir.glob("*.json"))]
    assert len(results) == len(everyone) >= 8
    assert sum(r["wrongly_allowed"] for r in results) == 0
    assert sum(r["refused"] for r in results) == 2 * ROUNDS * len(everyone)
    for a in everyone:
        p = wiki.read(a)
        facts = re.findall(rf"^- fact {re.escape(a)} (\d+)$", p.body, flags=re.M)
        assert [int(x) for x in facts] == list(range(ROUNDS)), a  # every fact, in order, none lost
        assert "stolen" not in p.body and p.owner == a
        assert p.quotes() == [q]
    assert not list(wiki.root.glob(".*.tmp"))
