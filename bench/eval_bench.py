"""Benchmark `wikigen ask` on the whole dev corpora: build (or reuse) each offline wiki, then score plain BM25
and every mode on every question, with standard errors beside every score.

    .venv/bin/python bench/eval_bench.py                          # all three corpora and the sample, every question
    .venv/bin/python bench/eval_bench.py --corpora acme           # the shipped sample's plain questions alone
    .venv/bin/python bench/eval_bench.py --limit 300              # quick: a deterministic sample per corpus
    .venv/bin/python bench/eval_bench.py --corpora sec10q-dev     # one corpus
    .venv/bin/python bench/eval_bench.py --index-root .cache/index # indexes (with vectors) from elsewhere
    .venv/bin/python bench/eval_bench.py --set prf_terms=0        # every ask with a RetrievalParams field changed
    .venv/bin/python bench/eval_bench.py --build-set DiscoveryParams.title_weight=0.7  # a build knob

Data: <data-root>/<corpus>/{questions.jsonl,docs/} (default ../shared/eval); `acme`, the shipped sample corpus
(corpora/acme), has no benchmark questions, only its plain set (corpora/plain/acme.jsonl). Each wiki is built with the
offline backend, 4 agents x 4 sessions, into <work>/<corpus>-wiki with its index in <work>/<corpus>-index
(default work folder bench-out/; an index folder there that already holds the passage vectors is reused,
so copy a vector cache there first to skip the one-time embedding). A wiki that exists is reused.

Rows: plain-BM25 (measured in this run: the index's ~1,000-character passages, best first, filling the
budget with whole passages, passage text only counted, as the eval READMEs define it), then `search`,
`wiki`, `wiki+search` as `wikigen eval` scores them (their token count includes the context's headers).
Columns, per kind of question: cuad-dev single accuracy and aggregate recall and precision of the cited
documents; sec10q-dev key facts of multi and single questions (questions whose answer has no key fact are
left out, and counted); contractnli-dev character recall and precision of the context and of the answer's
own spans (LegalBench-RAG's metric; a span counts only where the document's text at its offsets is the
text returned). Each cell is the mean over the corpus's questions and its standard error (sample standard
deviation / sqrt(n)). The dev corpora are wholes: there are no halves. The targets of the open issues are
checked at the end and each is printed as holding or not; per-question scores go to
<out>/bench-summary.json, so two runs can be compared question by question (bench/compare_eval.py).
Plain wording, beside the benchmark's: every set of plain questions found for a corpus (its
plain-questions.jsonl beside questions.jsonl, and bench/data/plain/<corpus>.jsonl or corpora/plain/<corpus>.jsonl
in this repository) is answered in the same run with the same wiki and printed as a second table. Its kinds: `plain-single` (one
document named the way people name it) and `template-single` (the same clause in the benchmark's wording):
the context holds the gold clause ("ctx"), the answer's own spans cover it ("found"), and the share of the
answer's spans that lie in the document asked about ("in doc"); `values` (a list over the collection asked
plainly): recall, precision and F1 of the documents the answer's spans cite (wikigen.ask.evaluate).
`--set NAME=VALUE` (repeatable) overrides one field of `RetrievalParams` for every ask, typed from the
field's type; the overrides are printed first and kept in each corpus's entry of bench-summary.json, so a run
that measures a knob says which.
`--build-set [CLASS.]NAME=VALUE` (repeatable) does the same for the build: the wikis are built with that field of
`DiscoveryParams`, `OfflineParams`, `FigureParams` or `DreamParams` (wikigen.agents.params) changed, `none` for
an Optional field, `key:value,...` for a mapping. The class's default itself is changed before any module that
takes it as a default argument is imported, so every `params=DiscoveryParams()` of the build sees it (and the
processes forked from this one). The overrides are printed, kept in bench-summary.json as `build_overrides`,
and named in the wiki's folder (<corpus>-wiki@CLASS.NAME=VALUE+...), so a wiki built with one setting is never
reused for another. `--build-only` builds (or finds) the wikis and stops: a knob whose wikis are the same as the
defaults' needs no eval.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import sys
import time
import typing
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)

from wikigen.ask.evaluate import run_eval, score_question, spread_sample, text_reader  # noqa: E402
from wikigen.ask.modes import MODES  # noqa: E402
from wikigen.ask.params import DEFAULT_PARAMS, RetrievalParams  # noqa: E402
from wikigen.ask.questions import read_questions  # noqa: E402

BM25 = "plain-BM25"
KINDS = {
    "cuad-dev": ("single", "aggregate"),
    "sec10q-dev": ("multi", "single"),
    "contractnli-dev": ("spans-contractnli",),
}
PLAIN_KINDS = ("plain-single", "template-single", "values")  # the plain sets' kinds, in the order printed
SAMPLE = (
    "acme"  # the shipped sample corpus (corpora/acme): no benchmark questions, its plain set corpora/plain/acme.jsonl
)


_TRUE, _FALSE = {"true", "1", "yes", "on"}, {"false", "0", "no", "off"}


def _typed(kind: Any, raw: str) -> Any:
    """raw as a value of the type `kind`: int, float, str, bool (true/false/1/0/yes/no/on/off), X | None
    (`none`), or Mapping[K, V] (`key:value,key:value`, read-only like the defaults). ValueError otherwise."""
    args = typing.get_args(kind)
    if type(None) in args:
        if raw.lower() == "none":
            return None
        (kind,) = [a for a in args if a is not type(None)]
        args = typing.get_args(kind)
    if typing.get_origin(kind) in (Mapping, dict):
        key_t, value_t = args
        pairs = [p.partition(":") for p in raw.split(",") if p.strip()]
        if any(not sep for _, sep, _ in pairs):
            raise ValueError(raw)
        return MappingProxyType({_typed(key_t, k.strip()): _typed(value_t, v.strip()) for k, _, v in pairs})
    if kind is bool:
        if raw.lower() not in _TRUE | _FALSE:
            raise ValueError(raw)
        return raw.lower() in _TRUE
    if kind in (int, float, str):
        return kind(raw)
    raise ValueError(raw)


def _type_name(kind: Any) -> str:
    return getattr(kind, "__name__", None) or str(kind).replace("typing.", "")


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """NAME=VALUE pairs -> {field: value} for `RetrievalParams`, each value typed from its field's type
    (int, float, or bool as true/false/1/0/yes/no/on/off); an unknown name or a value of the wrong type is
    an argparse-style error (ValueError) that names the fields there are."""
    hints = typing.get_type_hints(RetrievalParams)
    names = [f.name for f in dataclasses.fields(RetrievalParams)]
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        name, raw = name.strip(), raw.strip()
        if not sep or not name:
            raise ValueError(f"--set {pair!r}: expected NAME=VALUE")
        if name not in hints or name not in names:
            raise ValueError(f"--set {pair!r}: RetrievalParams has no field {name!r} (fields: {', '.join(names)})")
        try:
            out[name] = _typed(hints[name], raw)
        except ValueError:
            raise ValueError(f"--set {pair!r}: {name} is {_type_name(hints[name])}, not {raw!r}") from None
    return out


BUILD_CLASSES = ("DiscoveryParams", "OfflineParams", "FigureParams", "DreamParams")  # in wikigen.agents.params


def parse_build_overrides(pairs: list[str]) -> dict[str, dict[str, Any]]:
    """[CLASS.]NAME=VALUE pairs -> {class: {field: value}} for the build's parameter classes, typed like
    `--set`. An unqualified NAME must be a field of exactly one class. ValueError for anything else."""
    from wikigen.agents import params

    fields = {c: [f.name for f in dataclasses.fields(getattr(params, c))] for c in BUILD_CLASSES}
    out: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        name, raw = name.strip(), raw.strip()
        if not sep or not name:
            raise ValueError(f"--build-set {pair!r}: expected [CLASS.]NAME=VALUE")
        cls, dot, field = name.rpartition(".")
        owners = [cls] if dot else [c for c in BUILD_CLASSES if field in fields[c]]
        if dot and cls not in fields:
            raise ValueError(f"--build-set {pair!r}: no parameter class {cls!r} (classes: {', '.join(BUILD_CLASSES)})")
        if len(owners) > 1:
            raise ValueError(f"--build-set {pair!r}: {field!r} is a field of {' and '.join(owners)}: say which")
        if not owners or field not in fields[owners[0]]:
            raise ValueError(f"--build-set {pair!r}: no build parameter {name!r}")
        kind = typing.get_type_hints(getattr(params, owners[0]))[field]
        try:
            out.setdefault(owners[0], {})[field] = _typed(kind, raw)
        except ValueError:
            raise ValueError(f"--build-set {pair!r}: {field} is {_type_name(kind)}, not {raw!r}") from None
    return out


def _shown(value: Any) -> str:
    if isinstance(value, Mapping):
        return ",".join(f"{k}:{v}" for k, v in value.items())
    return str(value)


def build_overrides_label(overrides: dict[str, dict[str, Any]]) -> str:
    """`CLASS.NAME=VALUE+...`, sorted: what a wiki folder built with these overrides is named after."""
    parts = sorted(f"{c}.{n}={_shown(v)}" for c, fs in overrides.items() for n, v in fs.items())
    return "+".join(parts).replace("/", "_")


def _same(value: Any) -> Any:
    return value


def apply_build_overrides(overrides: dict[str, dict[str, Any]]) -> None:
    """Make each overridden field's value the default of its class in wikigen.agents.params, before any
    other wikigen.agents module is imported: their default arguments (`params: DiscoveryParams =
    DiscoveryParams()`) are made when they are imported, so then every one of them holds the override. A
    RuntimeError when one is already imported (its defaults would keep the old values)."""
    if not overrides:
        return
    early = sorted(m for m in sys.modules if m.startswith("wikigen.agents.") and m != "wikigen.agents.params")
    if early:
        raise RuntimeError(f"build overrides must be applied before these are imported: {', '.join(early)}")
    from wikigen.agents import params

    for name, values in overrides.items():
        base = getattr(params, name)
        hints = typing.get_type_hints(base)
        namespace: dict[str, Any] = {
            "__module__": base.__module__,
            "__qualname__": base.__qualname__,
            "__doc__": base.__doc__,
            "__annotations__": {f: hints[f] for f in values},
        }
        for f, v in values.items():
            namespace[f] = dataclasses.field(default_factory=functools.partial(_same, v))
        setattr(params, name, dataclasses.dataclass(frozen=True)(type(name, (base,), namespace)))


CLAUSE_CORPUS = "cuad-dev"  # the corpus the shipped clause model was trained on (bench/train_clauses.py)


def honest_clauses(wiki: Path, data: Path) -> None:
    """The shipped clause model saw every cuad-dev contract's labels: its table would be read in-sample. The
    presence cells are read instead by models that never saw each contract (5-fold cross-validation), when the
    training's scikit-learn is installed; else the run says its presence cells are in-sample."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        print(
            f"warning: {wiki.name}: presence cells read by a model trained on these contracts (in-sample); "
            "pip install -e '.[train]' to read them cross-validated",
            file=sys.stderr,
        )
        return
    from train_clauses import cross_validated_table

    t0 = time.perf_counter()
    n = cross_validated_table(wiki, data, log=lambda m: None)
    print(f"{wiki.name}: {n} presence cells read by cross-validated clause models ({time.perf_counter() - t0:.0f} s)")


def build_wiki(corpus: Path, wiki: Path, index_dir: Path, agents: int, sessions: int, dense: bool = True) -> float:
    from wikigen.agents.orchestrate import BuildConfig, build

    t0 = time.perf_counter()
    config = BuildConfig(
        corpus=corpus,
        wiki=wiki,
        agents=agents,
        sessions=sessions,
        backend="offline",
        model=None,
        max_ratio=1.0,
        index_dir=index_dir,
        quiet=True,
        dense=dense,
    )
    report = build(
        config,
        on_session=lambda line: print("  " + line.text(), flush=True),
        on_warning=lambda text: print(f"warning: {text}", file=sys.stderr),
    )
    if not report.ok:
        print(f"warning: the build reported problems: {report}", file=sys.stderr)
    return time.perf_counter() - t0


def fill(hits, budget: int, tokens_of) -> list[dict]:
    """Whole passages, best first, while they fit in the budget (one that does not fit is skipped)."""
    out, used = [], 0
    for h in hits:
        t = tokens_of(h)
        if used + t > budget:
            continue
        used += t
        out.append({"text": h.text, "spans": [{"doc_id": h.doc_id, "start": h.start, "end": h.end}], "tokens": t})
    return out


def plain_bm25_rows(index, questions: list[dict], budget: int, counter, text_of) -> list[dict]:
    rows = []
    for q in questions:
        t0 = time.perf_counter()
        ctx = fill(index.search(q["question"], k=100), budget, lambda h: counter.count(h.text))
        s = score_question(q, ctx, text_of)
        rows.append(
            {
                "id": q["id"],
                "mode": BM25,
                "kind": q.get("kind", "single"),
                "score": s["score"],
                "precision": s["precision"],
                "answer_score": None,
                "answer_precision": None,
                "f1": s.get("f1"),
                "answer_f1": None,
                "tokens": sum(c["tokens"] for c in ctx),
                "latency_ms": (time.perf_counter() - t0) * 1000.0,
            }
        )
    return rows


def mean_se(values: list[float]) -> tuple[float | None, float | None]:
    """The mean and its standard error (sample standard deviation / sqrt(n)); None where undefined."""
    if not values:
        return None, None
    m = sum(values) / len(values)
    if len(values) < 2:
        return m, None
    var = sum((v - m) ** 2 for v in values) / (len(values) - 1)
    return m, math.sqrt(var / len(values))


METRICS = ("score", "precision", "answer_score", "answer_precision", "f1", "answer_f1")


def summarize(rows: list[dict]) -> dict:
    """{(mode, kind): {n, unscored, tokens, <metric>: (mean, se) for each of METRICS}}."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["mode"], r["kind"]), []).append(r)
    out = {}
    for key, rs in groups.items():
        scored = [r for r in rs if r["score"] is not None]
        cell: dict[str, Any] = {"n": len(scored), "unscored": len(rs) - len(scored)}
        for m in METRICS:
            cell[m] = mean_se([r[m] for r in scored if r.get(m) is not None])
        cell["tokens"] = sum(r["tokens"] for r in scored) / len(scored) if scored else None
        out[key] = cell
    return out


def _cell(v: tuple[float | None, float | None] | None) -> str:
    if not v or v[0] is None:
        return "-"
    return f"{v[0]:.3f}" + (f" ±{v[1]:.3f}" if v[1] is not None else "")


def columns(kinds) -> list[tuple[str, str, str]]:
    """(header, kind, metric) of the table's columns."""
    cols = []
    for k in kinds:
        if k == "values":
            cols += [("values ctx", k, "score"), ("values rec", k, "answer_score")]
            cols += [("values prec", k, "answer_precision"), ("values F1", k, "answer_f1")]
        elif k in PLAIN_KINDS:
            short = k.split("-")[0]
            cols += [(f"{short} ctx", k, "score"), (f"{short} found", k, "answer_score")]
            cols += [(f"{short} in doc", k, "answer_precision")]
        elif k.startswith("spans"):
            cols += [("recall", k, "score"), ("precision", k, "precision")]
            cols += [("answer rec", k, "answer_score"), ("answer prec", k, "answer_precision")]
        elif k == "aggregate":
            cols += [("aggregate", k, "score"), ("agg prec", k, "precision")]
        else:
            cols.append((k, k, "score"))
    return cols


def format_table(name: str, table: dict, modes: list[str], kinds) -> str:
    cols = columns(kinds)
    head = f"{'mode':<12}" + "".join(f" {c[0]:>14}" for c in cols) + f" {'tokens':>7}"
    lines = [f"== {name}", head, "-" * len(head)]
    lines.append(f"{'':<12}" + "".join(f" {'n=' + str((table.get((BM25, c[1])) or {}).get('n', 0)):>14}" for c in cols))
    for m in modes:
        cells = "".join(f" {_cell((table.get((m, c[1])) or {}).get(c[2])):>14}" for c in cols)
        toks = [table.get((m, k)) for k in kinds]
        n = sum(t["n"] for t in toks if t)
        mean_t = sum(t["tokens"] * t["n"] for t in toks if t and t["n"]) / n if n else 0.0
        lines.append(f"{m:<12}{cells} {mean_t:>7.0f}")
    return "\n".join(lines)


def checks(name: str, table: dict, kinds) -> list[tuple[str, bool, str]]:
    """The open issues' targets for one corpus: (what, holds, detail)."""
    out = []

    def v(mode, kind, metric="score"):
        cell = (table.get((mode, kind)) or {}).get(metric)
        return cell[0] if cell else None

    def add(what, a, b, factor=1.0, floor=None):
        if a is None or (b is None and floor is None):
            return
        want = floor if floor is not None else factor * b
        out.append((f"{name}: {what}", a >= want - 1e-9, f"{a:.3f} vs {want:.3f}"))

    if name == "cuad-dev":
        add("wiki+search aggregate >= 0.45", v("wiki+search", "aggregate"), None, floor=0.45)
        add("wiki+search single >= 0.70", v("wiki+search", "single"), None, floor=0.70)
    if name == "cuad-dev plain wording":
        add(
            "wiki+search plain answer spans in the document asked >= 0.95",
            v("wiki+search", "plain-single", "answer_precision"),
            None,
            floor=0.95,
        )
        add(
            "wiki+search plain answer covers the clause >= 0.60",
            v("wiki+search", "plain-single", "answer_score"),
            None,
            floor=0.60,
        )
        add("wiki+search plain context holds the clause >= 0.80", v("wiki+search", "plain-single"), None, floor=0.80)
        add("wiki+search plain lists F1 >= 0.75", v("wiki+search", "values", "answer_f1"), None, floor=0.75)
    if name == "sec10q-dev":
        add("wiki+search multi >= 2x plain BM25", v("wiki+search", "multi"), v(BM25, "multi"), 2.0)
        add("wiki+search single >= 1.3x plain BM25", v("wiki+search", "single"), v(BM25, "single"), 1.3)
    for k in kinds:
        if k in PLAIN_KINDS:
            continue
        add(f"search >= plain BM25 on {k}", v("search", k), v(BM25, k))
        add(f"wiki+search >= search on {k}", v("wiki+search", k), v("search", k))
        if k.startswith("spans"):
            add(
                f"wiki+search answer precision >= 0.20 on {k}", v("wiki+search", k, "answer_precision"), None, floor=0.2
            )
            add(f"wiki+search answer recall >= 0.40 on {k}", v("wiki+search", k, "answer_score"), None, floor=0.4)
    wide = "aggregate" if "aggregate" in kinds else "multi" if "multi" in kinds else None
    if wide:
        add(f"wiki >= 0.5x wiki+search on {wide}", v("wiki", wide), v("wiki+search", wide), 0.5)
    return out


def plain_sets(name: str, data: Path) -> list[Path]:
    """The plain-wording question sets of a corpus: its own plain-questions.jsonl, and this repository's
    bench/data/plain/<name>.jsonl, where they exist."""
    found = (
        data / "plain-questions.jsonl",
        ROOT / "bench" / "data" / "plain" / f"{name}.jsonl",
        ROOT / "corpora" / "plain" / f"{name}.jsonl",
    )
    return [p for p in found if p.is_file()]


def run_corpus(name: str, args) -> dict | None:
    from wikigen.ask.retrieval import Answerer
    from wikigen.core.tokens import default_counter

    data = Path(args.data_root) / name
    qfile: Path | None = data / "questions.jsonl"
    corpus = data / "docs"
    if name == SAMPLE:  # shipped with the product: its plain questions only
        data, qfile, corpus = ROOT / "corpora", None, ROOT / "corpora" / SAMPLE
    elif qfile is None or not qfile.is_file() or not corpus.is_dir():
        print(f"{name}: not found at {data} (expected questions.jsonl and docs/); skipped", file=sys.stderr)
        return None
    work = Path(args.work)
    label = build_overrides_label(args.build_overrides)
    wiki = work / (f"{name}-wiki@{label}" if label else f"{name}-wiki")
    index_dir = (Path(args.index_root) if args.index_root else work) / f"{name}-index"
    if (wiki / ".wikigen" / "config.json").is_file() and any(wiki.glob("*.md")):
        print(f"{name}: reusing the wiki at {wiki}")
    else:
        print(
            f"{name}: building the offline wiki into {wiki} ({args.agents} agents, {args.sessions} sessions, "
            f"index {index_dir})...",
            flush=True,
        )
        print(
            f"{name}: built in {build_wiki(corpus, wiki, index_dir, args.agents, args.sessions, not args.no_dense):.1f} s"
        )
    if args.build_only:
        return {"corpus": name, "wiki": str(wiki), "build_overrides": _json_overrides(args.build_overrides)}
    if name == CLAUSE_CORPUS:
        honest_clauses(wiki, data)
    questions = spread_sample(read_questions(qfile), args.limit) if qfile is not None else []
    t0 = time.perf_counter()
    answerer = Answerer.open(wiki, params=dataclasses.replace(DEFAULT_PARAMS, **args.overrides))
    dense = "hybrid (BM25 + dense)" if answerer.dense is not None else "BM25 only (no dense vectors)"
    print(f"{name}: {len(questions)} questions, budget {args.budget} tokens; search is {dense}", flush=True)
    rows = plain_bm25_rows(answerer.index, questions, args.budget, default_counter(), text_reader(answerer.index))
    report = run_eval(
        questions,
        wiki=wiki,
        modes=args.modes,
        budget=args.budget,
        out_dir=Path(args.out) / name,
        answerer=answerer,
        chart=False,
    )
    rows += report.rows
    plain = [q for p in plain_sets(name, data) for q in read_questions(p)] if not args.no_plain else []
    if plain:
        plain = spread_sample(plain, args.limit)
        print(f"{name}: {len(plain)} questions in plain wording", flush=True)
        rows += plain_bm25_rows(answerer.index, plain, args.budget, default_counter(), text_reader(answerer.index))
        rows += run_eval(
            plain,
            wiki=wiki,
            modes=args.modes,
            budget=args.budget,
            out_dir=Path(args.out) / f"{name}-plain",
            answerer=answerer,
            chart=False,
        ).rows
    secs = time.perf_counter() - t0
    kinds = KINDS.get(name) or tuple(sorted({q.get("kind", "single") for q in questions}))
    table = summarize(rows)
    if questions:  # the sample has plain questions only
        print(format_table(name, table, [BM25, *args.modes], kinds))
    unscored = sum((table.get((BM25, k)) or {}).get("unscored", 0) for k in kinds)
    if unscored:
        print(f"({unscored} questions without a key fact left out)")
    plain_kinds = [k for k in PLAIN_KINDS if (BM25, k) in table]
    if plain_kinds:
        print(format_table(f"{name}: plain wording", table, [BM25, *args.modes], plain_kinds))
    print(f"{name}: evaluated in {secs:.1f} s\n")
    return {
        "corpus": name,
        "questions": len(questions),
        "seconds": secs,
        "dense": answerer.dense is not None,
        "overrides": args.overrides,
        "build_overrides": _json_overrides(args.build_overrides),
        "table": {"|".join(k): v for k, v in table.items()},
        "rows": [{k: r.get(k) for k in ("id", "mode", "kind", "tokens", *METRICS)} for r in rows],
        "checks": checks(name, table, kinds) + checks(f"{name} plain wording", table, plain_kinds),
    }


def _json_overrides(overrides: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {f"{c}.{n}": dict(v) if isinstance(v, Mapping) else v for c, fs in overrides.items() for n, v in fs.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", nargs="+", default=[*KINDS, SAMPLE])
    ap.add_argument("--data-root", default=str(EVAL_ROOT), help="folder of the corpora")
    ap.add_argument("--work", default=str(ROOT / "bench-out"), help="folder of the wikis (and indexes)")
    ap.add_argument("--index-root", default=None, help="folder of the <corpus>-index folders (default --work)")
    ap.add_argument("--out", default=str(ROOT / "bench-out" / "eval"), help="folder of the reports")
    ap.add_argument("--limit", type=int, default=None, help="a deterministic sample of N questions per corpus")
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    ap.add_argument("--no-dense", action="store_true", help="no passage vectors (quick runs while developing)")
    ap.add_argument("--no-plain", action="store_true", help="leave out the plain-wording question sets")
    ap.add_argument("--agents", type=int, default=4)
    ap.add_argument("--sessions", type=int, default=4)
    ap.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a RetrievalParams field for every ask (repeatable), e.g. --set prf_terms=0",
    )
    ap.add_argument(
        "--build-set",
        dest="build_sets",
        action="append",
        default=[],
        metavar="[CLASS.]NAME=VALUE",
        help="build the wikis with a field of DiscoveryParams, OfflineParams, FigureParams or DreamParams changed "
        "(repeatable), e.g. --build-set DiscoveryParams.title_weight=0.7",
    )
    ap.add_argument("--build-only", action="store_true", help="build (or find) the wikis, evaluate nothing")
    args = ap.parse_args(argv)
    try:
        args.overrides = parse_overrides(args.sets)
        args.build_overrides = parse_build_overrides(args.build_sets)
    except ValueError as e:
        ap.error(str(e))
    shown = " ".join(f"{k}={v}" for k, v in args.overrides.items()) or "none (the defaults)"
    print(f"RetrievalParams overrides: {shown}", flush=True)
    print(f"build overrides: {build_overrides_label(args.build_overrides) or 'none (the defaults)'}", flush=True)
    apply_build_overrides(args.build_overrides)
    t0 = time.perf_counter()
    results = [r for r in (run_corpus(c, args) for c in args.corpora) if r]
    if not results:
        return 2
    if args.build_only:
        return 0
    print("targets:")
    for r in results:
        for what, ok, detail in r["checks"]:
            print(f"[{'HOLDS' if ok else 'MISSED'}] {what}: {detail}")
    print(f"\nwall time {time.perf_counter() - t0:.0f} s")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "bench-summary.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
