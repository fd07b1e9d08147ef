"""What a Claude build costs: a price table, an estimate before the run, and a spending limit during it.

**Every figure here is an estimate.** Token counts are cl100k counts (tiktoken), not Claude's own
tokenizer, and the prices are Anthropic's published list prices as of PRICES_AS_OF, written into this
table by hand (this machine has no network to re-check them): check https://www.anthropic.com/pricing
before relying on them. Batch discounts, long-context surcharges and the 1-hour cache are ignored.

The estimate (`estimate_build`) models one agent's session the way `ClaudeBackend.run_session` runs:
turn 1 sends the system prompt and tool definitions (written to the prompt cache) and the task
message; every later turn re-sends the conversation, whose cached prefix is read from the cache,
plus what is new since the last turn (written to the cache). The agent reads its share of documents
in `read_chars` pieces, writes about `WRITE_SHARE` of what it reads as pages, one page write per
document, and stops at the turn limit or when its usage passes the per-session token budget, as the
backend does. Later sessions are estimated like the first: an agent re-reads its share to extend
its pages.

`SpendLimit` is shared by the agents of a build (threads): each adds the usage of every response, and
each checks it before its next turn, so a build stops at most one turn per agent past the limit.
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass, field

from wikigen.agents.base import TokenUsage

__all__ = [
    "PRICES",
    "PRICES_AS_OF",
    "PRICE_NOTE",
    "BuildEstimate",
    "Price",
    "SessionEstimate",
    "SpendLimit",
    "cost_of",
    "estimate_build",
    "estimate_session",
    "price_for",
]

PRICES_AS_OF = "2025-11"
PRICE_NOTE = (
    f"estimate: cl100k token counts and Anthropic list prices as of {PRICES_AS_OF} "
    "(see wikigen/agents/cost.py; check current prices before relying on them)"
)


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cache_write: float  # 5-minute cache writes: 1.25 x input
    cache_read: float  # 0.1 x input


def _p(inp: float, out: float) -> Price:
    return Price(inp, out, round(inp * 1.25, 4), round(inp * 0.1, 4))


# Exact model ids first; a family entry (ending in "*") covers later versions of a family whose
# versions so far have all had one price, and says so in its name.
PRICES: dict[str, Price] = {
    "claude-opus-4-5": _p(5.0, 25.0),
    "claude-opus-4-1": _p(15.0, 75.0),
    "claude-opus-4-0": _p(15.0, 75.0),
    "claude-opus-4": _p(15.0, 75.0),
    "claude-sonnet-4-5": _p(3.0, 15.0),
    "claude-sonnet-4-0": _p(3.0, 15.0),
    "claude-sonnet-4": _p(3.0, 15.0),
    "claude-sonnet-4-*": _p(3.0, 15.0),  # every Sonnet 4.x so far
    "claude-3-7-sonnet": _p(3.0, 15.0),
    "claude-haiku-4-5": _p(1.0, 5.0),
    "claude-3-5-haiku": _p(0.8, 4.0),
    "claude-3-haiku": _p(0.25, 1.25),
}

WRITE_SHARE = 0.3  # output tokens per token read: pages quote the decisive sentences
TURN_OUTPUT = 80  # tokens of a tool call's own framing, per turn
READ_OVERHEAD = 40  # tokens of the <document ...> wrapper around each read


def price_for(model: str) -> tuple[str, Price] | None:
    """(table key, price) for a model id, dated suffixes ignored (claude-sonnet-4-5-20250929); None if unknown."""
    m = model.strip().lower()
    keys = sorted((k for k in PRICES if not k.endswith("*")), key=len, reverse=True)
    for k in keys:
        rest = m[len(k) + 1 :] if m.startswith(k + "-") else ""
        if m == k or (len(rest) == 8 and rest.isdigit()):  # a dated snapshot of that model
            return k, PRICES[k]
    for k in PRICES:
        if k.endswith("*") and m.startswith(k[:-1]):
            return k, PRICES[k]
    return None


def cost_of(usage: TokenUsage, price: Price | None) -> float | None:
    if price is None:
        return None
    return (
        usage.input * price.input
        + usage.output * price.output
        + usage.cache_creation * price.cache_write
        + usage.cache_read * price.cache_read
    ) / 1e6


# --- the estimate -----------------------------------------------------------------------------------


@dataclass
class SessionEstimate:
    agent: str
    documents: int
    document_tokens: int
    turns: int
    usage: TokenUsage
    covered: float  # share of the agent's documents read before the turn limit or budget
    stopped_by: str  # done | turn_limit | budget

    def to_dict(self) -> dict:
        return {
            "agent": self.agent,
            "documents": self.documents,
            "document_tokens": self.document_tokens,
            "turns": self.turns,
            "usage": self.usage.to_dict(),
            "covered": round(self.covered, 3),
            "stopped_by": self.stopped_by,
        }


@dataclass
class BuildEstimate:
    model: str
    price_key: str | None
    price: Price | None
    sessions: int
    agents: list[SessionEstimate] = field(default_factory=list)  # one session of each agent
    documents: int = 0
    corpus_tokens: int = 0

    def session_usage(self) -> TokenUsage:
        u = TokenUsage()
        for a in self.agents:
            u.add(a.usage)
        return u

    def total_usage(self) -> TokenUsage:
        s, u = self.session_usage(), TokenUsage()
        for _ in range(self.sessions):
            u.add(s)
        return u

    @staticmethod
    def cache_share(u: TokenUsage) -> float:
        sent = u.input + u.cache_creation + u.cache_read
        return u.cache_read / sent if sent else 0.0

    def to_dict(self) -> dict:
        s, t = self.session_usage(), self.total_usage()
        return {
            "model": self.model,
            "price_table_key": self.price_key,
            "price_per_mtok": None if self.price is None else vars(self.price),
            "prices_as_of": PRICES_AS_OF,
            "note": PRICE_NOTE,
            "documents": self.documents,
            "corpus_tokens": self.corpus_tokens,
            "sessions": self.sessions,
            "per_session": {
                "usage": s.to_dict(),
                "cache_share": round(self.cache_share(s), 3),
                "cost_usd": _round(cost_of(s, self.price)),
                "agents": [a.to_dict() for a in self.agents],
            },
            "total": {"usage": t.to_dict(), "cost_usd": _round(cost_of(t, self.price))},
        }

    def to_text(self) -> str:
        s, t = self.session_usage(), self.total_usage()
        lines = [
            f"dry run: {self.documents} documents, {self.corpus_tokens:,} tokens (cl100k), "
            f"{len(self.agents)} agents x {self.sessions} sessions, model {self.model}"
        ]
        for a in self.agents:
            u = a.usage
            lines.append(
                f"  {a.agent}: {a.documents} documents ({a.document_tokens:,} tokens), {a.turns} turns, "
                f"input {u.input:,} + cache write {u.cache_creation:,} + cache read {u.cache_read:,}, "
                f"output {u.output:,}"
                + (
                    ""
                    if a.stopped_by == "done"
                    else f"; stops at the {a.stopped_by.replace('_', ' ')} after ~{a.covered:.0%} of its documents"
                )
            )
        lines.append(
            f"  each session: {s.total:,} tokens sent and received, cache share {self.cache_share(s):.0%} "
            f"of input" + _cost_text(cost_of(s, self.price))
        )
        lines.append(f"  whole run: {t.total:,} tokens" + _cost_text(cost_of(t, self.price)))
        if self.price is None:
            lines.append(f"  no price for {self.model!r} in the table; known: " + ", ".join(k for k in PRICES))
        else:
            p = self.price
            lines.append(
                f"  prices ({self.price_key}, USD per million tokens): input {p.input}, output {p.output}, "
                f"cache write {p.cache_write}, cache read {p.cache_read}"
            )
        lines.append(f"  {PRICE_NOTE}")
        return "\n".join(lines)


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def _cost_text(c: float | None) -> str:
    return "" if c is None else f", about ${c:,.2f}"


def estimate_session(
    agent: str,
    doc_chars: list[int],
    doc_tokens: list[int],
    *,
    prefix_tokens: int,
    task_tokens: int,
    token_budget: int,
    max_turns: int,
    read_chars: int = 6000,
) -> SessionEstimate:
    """One agent's session, turn by turn (see the module docstring for the model)."""
    d = sum(doc_tokens) + READ_OVERHEAD * sum(max(1, math.ceil(c / read_chars)) for c in doc_chars)
    reads = sum(max(1, math.ceil(c / read_chars)) for c in doc_chars)
    needed = reads + len(doc_chars) + 1  # reads, one write per document, a last turn
    o_turn = (WRITE_SHARE * sum(doc_tokens)) / needed + TURN_OUTPUT
    added = d / needed + o_turn  # what each turn adds to the conversation
    u = TokenUsage()
    turns = 0
    stopped = "done"
    for t in range(1, needed + 1):
        if t > max_turns:
            stopped = "turn_limit"
            break
        if u.total > token_budget:
            stopped = "budget"
            break
        if t == 1:
            u.input += task_tokens
            u.cache_creation += prefix_tokens
        else:
            u.cache_read += int(prefix_tokens + task_tokens + added * (t - 2))
            u.cache_creation += int(added)
        u.output += int(o_turn)
        turns = t
    return SessionEstimate(agent, len(doc_chars), sum(doc_tokens), turns, u, min(1.0, turns / needed), stopped)


def estimate_build(
    docs: list[tuple[str, int, int]],
    *,
    agents: int,
    sessions: int,
    model: str,
    token_budget: int,
    max_turns: int,
    counter,
    system_prompt: str,
    tool_specs: list[dict],
    task_text,
) -> BuildEstimate:
    """docs: (doc_id, chars, tokens). Shares are contiguous runs of about equal size, as the build's."""
    found = price_for(model)
    est = BuildEstimate(
        model,
        found[0] if found else None,
        found[1] if found else None,
        sessions,
        documents=len(docs),
        corpus_tokens=sum(t for _, _, t in docs),
    )
    prefix = counter.count(system_prompt) + counter.count(json.dumps(tool_specs))
    total = sum(max(1, c) for _, c, _ in docs)
    target = total / agents
    shares: list[list[tuple[str, int, int]]] = [[] for _ in range(agents)]
    acc, i = 0, 0
    for doc in sorted(docs):
        shares[i].append(doc)
        acc += max(1, doc[1])
        if acc >= target * (i + 1) and i < agents - 1:
            i += 1
    for n, share in enumerate(shares, 1):
        name = f"agent-{n}"
        task_tokens = counter.count(task_text(name, [d for d, _, _ in share]))
        est.agents.append(
            estimate_session(
                name,
                [c for _, c, _ in share],
                [t for _, _, t in share],
                prefix_tokens=prefix,
                task_tokens=task_tokens,
                token_budget=token_budget,
                max_turns=max_turns,
            )
        )
    return est


def estimate_corpus(
    corpus, *, agents: int, sessions: int, model: str, token_budget: int, max_turns: int, counter=None
) -> BuildEstimate:
    """The estimate for building a wiki of the corpus folder with the Claude backend. Reads and extracts
    the documents (as the index would) and counts their tokens; writes nothing."""
    from pathlib import Path

    from wikigen.agents.base import AgentTask
    from wikigen.agents.claude import SYSTEM_PROMPT, task_message
    from wikigen.agents.tools import ToolBox
    from wikigen.search.corpus import load_corpus

    from wikigen.core.errors import CorpusError
    from wikigen.core.tokens import default_counter

    counter = counter or default_counter()
    documents, _ = load_corpus(Path(corpus))
    if not documents:
        raise CorpusError(f"no readable documents in {corpus}; nothing to estimate")
    tokens = counter.count_many([d.text for d in documents])
    docs = [(d.doc_id, len(d.text), n) for d, n in zip(documents, tokens)]

    def task_text(agent: str, doc_ids: list[str]) -> str:
        return task_message(AgentTask(agent=agent, session=1, doc_ids=doc_ids, brief="x" * 400))

    return estimate_build(
        docs,
        agents=agents,
        sessions=sessions,
        model=model,
        token_budget=token_budget,
        max_turns=max_turns,
        counter=counter,
        system_prompt=SYSTEM_PROMPT,
        tool_specs=ToolBox.specs(),
        task_text=task_text,
    )


# --- the limit during a run --------------------------------------------------------------------------


class SpendLimit:
    """Usage across every agent of a build, against --max-tokens and --max-cost (thread-safe)."""

    def __init__(self, *, max_tokens: int | None = None, max_cost: float | None = None, price: Price | None = None):
        if max_cost is not None and price is None:
            raise ValueError("a cost limit needs a price")
        self.max_tokens, self.max_cost, self.price = max_tokens, max_cost, price
        self.usage = TokenUsage()
        self._lock = threading.Lock()

    def add(self, usage: TokenUsage) -> None:
        with self._lock:
            self.usage.add(usage)

    def cost(self) -> float | None:
        with self._lock:
            return cost_of(self.usage, self.price)

    def exceeded(self) -> str | None:
        """Why the build must stop, or None."""
        with self._lock:
            total = self.usage.total
            cost = cost_of(self.usage, self.price)
        if self.max_tokens is not None and total >= self.max_tokens:
            return f"--max-tokens reached: {total:,} tokens used (limit {self.max_tokens:,})"
        if self.max_cost is not None and cost is not None and cost >= self.max_cost:
            return f"--max-cost reached: about ${cost:,.2f} spent (limit ${self.max_cost:,.2f}; {PRICE_NOTE})"
        return None
