"""How many Claude agent sessions one machine can drive at once: an async client against the local Messages server.

    .venv/bin/python bench/claude_concurrency_bench.py                       # 1, 10 and 50 concurrent sessions
    .venv/bin/python bench/claude_concurrency_bench.py --levels 50 --turns 8 --itpm 400000

Every session is a tool-use loop like an agent's (agents/claude.py): `--turns` requests, each answered
after a simulated model latency (time to first token plus output tokens at a fixed speed) with a
tool_use, then end_turn; the client sends back a tool result of `--result-chars` characters each turn
(a read_document span), so the conversation grows as an agent's does. The server enforces the API's
per-minute rate limits (requests, input tokens, output tokens) with token buckets and answers 429 with
retry-after-ms when a bucket is empty, as the real API does; the SDK retries those (max_retries).

Each level runs twice: a naive client (every session sends at once and relies on the SDK's retries)
and a paced one (the product's RatePacer, agents/pacing.py, a token bucket shared by the sessions, keeps
the input tokens and requests a minute under the limits, so sessions wait in the client instead of
failing; `wikigen build --backend claude --rate-itpm N --rate-rpm N` gives the agents the same pacer). Printed per client and level: wall time, requests/s, sessions/min, input tokens/min, 429s seen, failed
sessions, p50/p95 request latency, and the client's CPU seconds per request (one asyncio process).
Then: the number of concurrent agents the rate limits allow, from the measured tokens per agent-minute.
The baseline row is 1 session: what one agent gets when nothing else competes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # the local Messages-API server lives with the tests

from fake_messages_server import FakeMessagesServer  # noqa: E402
from wikigen.agents.pacing import RatePacer  # noqa: E402


class Bucket:
    """A token bucket refilled continuously at `per_minute`; take() says how long to wait (0: granted)."""

    def __init__(self, per_minute: float, burst_seconds: float = 10.0):
        self.rate = per_minute / 60.0
        self.capacity = per_minute / 60.0 * burst_seconds  # the API allows short bursts
        self.level = self.capacity
        self.t = time.monotonic()

    def take(self, n: float) -> float:
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.t) * self.rate)
        self.t = now
        if n <= self.level:
            self.level -= n
            return 0.0
        return (n - self.level) / self.rate


class SimulatedModel:
    """A model's latency and the API's rate limits, as the responder of the local Messages server."""

    def __init__(
        self, *, turns: int, ttft: float, tokens_per_s: float, out_tokens: int, rpm: float, itpm: float, otpm: float
    ):
        self.turns, self.ttft, self.speed, self.out_tokens = turns, ttft, tokens_per_s, out_tokens
        self.limits = (rpm, itpm, otpm)
        self.reset()
        self.limited = 0
        self.input_tokens = 0
        self._lock = threading.Lock()

    def reset(self) -> None:
        """Full buckets: each concurrency level is its own experiment."""
        rpm, itpm, otpm = self.limits
        self.buckets = {"requests": Bucket(rpm), "input": Bucket(itpm), "output": Bucket(otpm)}

    def __call__(self, body: dict) -> dict:
        input_tokens = len(json.dumps(body.get("messages", []))) // 4 + 1
        with self._lock:
            wait = max(
                self.buckets["requests"].take(1),
                self.buckets["input"].take(input_tokens),
                self.buckets["output"].take(self.out_tokens),
            )
            if wait > 0:
                self.limited += 1
            else:
                self.input_tokens += input_tokens
        if wait > 0:
            return {
                "status": 429,
                "message": "rate limit exceeded (simulated)",
                "headers": {"retry-after-ms": str(int(wait * 1000) + 1)},
            }
        time.sleep(self.ttft + self.out_tokens / self.speed)
        done = sum(
            1
            for m in body.get("messages", [])
            if m.get("role") == "user"
            and isinstance(m.get("content"), list)
            and any(b.get("type") == "tool_result" for b in m["content"])
        )
        usage = {"input_tokens": input_tokens, "output_tokens": self.out_tokens}
        if done + 1 >= self.turns:
            return {"content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn", "usage": usage}
        return {
            "content": [
                {
                    "type": "tool_use",
                    "id": f"toolu_{time.monotonic_ns()}",
                    "name": "read_document",
                    "input": {"doc_id": "d", "start": 0},
                }
            ],
            "stop_reason": "tool_use",
            "usage": usage,
        }


async def one_session(
    client, tools: list[dict], turns: int, result_chars: int, latencies: list[float], pacer: RatePacer | None
) -> bool:
    import anthropic

    messages: list[dict[str, Any]] = [{"role": "user", "content": "Write the pages of your documents."}]
    for _ in range(turns + 2):
        if pacer is not None:  # the product's pacer (agents/pacing.py), as the Claude backend uses it
            await asyncio.to_thread(pacer.acquire, len(json.dumps(messages)) // 4 + 1)
        t0 = time.perf_counter()
        try:
            r = await client.messages.create(model="claude-sonnet-4-6", max_tokens=1024, tools=tools, messages=messages)
        except anthropic.APIError:
            return False
        latencies.append(time.perf_counter() - t0)
        if r.stop_reason != "tool_use":
            return True
        messages.append({"role": "assistant", "content": [b.model_dump() for b in r.content]})
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": b.id, "content": "x" * result_chars}
                    for b in r.content
                    if b.type == "tool_use"
                ],
            }
        )
    return False


async def run_level(url: str, n: int, turns: int, result_chars: int, max_retries: int, pacer: RatePacer | None) -> dict:
    import anthropic

    client = anthropic.AsyncAnthropic(api_key="bench", base_url=url, max_retries=max_retries, timeout=120.0)
    tools = [
        {
            "name": "read_document",
            "description": "Read a document span.",
            "input_schema": {
                "type": "object",
                "properties": {"doc_id": {"type": "string"}, "start": {"type": "integer"}},
            },
        }
    ]
    latencies: list[float] = []
    cpu0, t0 = time.process_time(), time.perf_counter()
    results = await asyncio.gather(
        *(one_session(client, tools, turns, result_chars, latencies, pacer) for _ in range(n))
    )
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    await client.close()
    lat = sorted(latencies)
    return {
        "sessions": n,
        "ok": sum(results),
        "failed": n - sum(results),
        "requests": len(lat),
        "wall": wall,
        "cpu_per_request_ms": 1000 * cpu / max(1, len(lat)),
        "p50": statistics.median(lat) if lat else 0.0,
        "p95": lat[int(0.95 * (len(lat) - 1))] if lat else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", type=int, nargs="+", default=[1, 10, 50], help="concurrent sessions per run")
    ap.add_argument("--turns", type=int, default=6, help="requests per session")
    ap.add_argument("--result-chars", type=int, default=6000, help="characters of each tool result (a read)")
    ap.add_argument("--ttft", type=float, default=0.4, help="simulated seconds to the first token")
    ap.add_argument("--speed", type=float, default=150.0, help="simulated output tokens per second")
    ap.add_argument("--out-tokens", type=int, default=200, help="output tokens per reply")
    ap.add_argument("--rpm", type=float, default=4000, help="requests per minute the API allows")
    ap.add_argument("--itpm", type=float, default=2_000_000, help="input tokens per minute the API allows")
    ap.add_argument("--otpm", type=float, default=400_000, help="output tokens per minute the API allows")
    ap.add_argument("--max-retries", type=int, default=6)
    args = ap.parse_args(argv)

    model = SimulatedModel(
        turns=args.turns,
        ttft=args.ttft,
        tokens_per_s=args.speed,
        out_tokens=args.out_tokens,
        rpm=args.rpm,
        itpm=args.itpm,
        otpm=args.otpm,
    )
    server = FakeMessagesServer()
    server.respond_with(model)
    server.start()
    try:
        print(
            f"simulated model: {args.ttft} s to first token, {args.speed:.0f} tokens/s, {args.out_tokens} output "
            f"tokens a reply; limits {args.rpm:,.0f} RPM, {args.itpm:,.0f} ITPM, {args.otpm:,.0f} OTPM; "
            f"{args.turns} turns a session, {args.result_chars:,}-character tool results"
        )
        head = (
            f"{'client':>7} {'sessions':>8} {'ok':>4} {'failed':>6} {'requests':>8} {'wall s':>7} {'req/s':>6} "
            f"{'sess/min':>8} {'in tok/min':>11} {'429s':>5} {'p50 s':>6} {'p95 s':>6} {'cpu ms/req':>10}"
        )
        print(head)
        print("-" * len(head))
        rows = []
        for paced, n in [(False, n) for n in args.levels] + [(True, n) for n in args.levels if n > 1]:
            model.reset()
            limited0, tokens0 = model.limited, model.input_tokens
            pacer = (
                RatePacer(input_tokens_per_minute=args.itpm * 0.95, requests_per_minute=args.rpm * 0.95)
                if paced
                else None
            )
            r = asyncio.run(run_level(server.url, n, args.turns, args.result_chars, args.max_retries, pacer))
            r["client"] = "paced" if paced else "naive"
            r["limited"] = model.limited - limited0
            r["in_tok_min"] = (model.input_tokens - tokens0) / r["wall"] * 60
            rows.append(r)
            print(
                f"{r['client']:>7} {n:>8} {r['ok']:>4} {r['failed']:>6} {r['requests']:>8} {r['wall']:>7.1f} "
                f"{r['requests'] / r['wall']:>6.1f} {r['ok'] / r['wall'] * 60:>8.1f} {r['in_tok_min']:>11,.0f} "
                f"{r['limited']:>5} {r['p50']:>6.2f} {r['p95']:>6.2f} {r['cpu_per_request_ms']:>10.1f}"
            )
    finally:
        server.close()
    one = rows[0]
    per_agent = one["in_tok_min"] / max(1, one["sessions"])
    req_per_agent = one["requests"] / one["wall"] * 60 / max(1, one["sessions"])
    bound = min(args.itpm / per_agent, args.rpm / req_per_agent)
    print(
        f"\none agent uses {per_agent:,.0f} input tokens and {req_per_agent:.0f} requests a minute; the limits allow "
        f"about {bound:.0f} agents at once (input tokens bind first)"
        if args.itpm / per_agent <= args.rpm / req_per_agent
        else f"\none agent uses {per_agent:,.0f} input tokens and {req_per_agent:.0f} requests a minute; the limits "
        f"allow about {bound:.0f} agents at once (requests bind first)"
    )
    worst = max(rows, key=lambda r: r["sessions"])
    print(
        f"client CPU: {worst['cpu_per_request_ms']:.1f} ms a request at {worst['sessions']} sessions, so one core "
        f"drives about {1000 / max(0.01, worst['cpu_per_request_ms']):.0f} requests/s: the API's limits, not the "
        "machine, bound the number of agents"
    )
    paced_rows = [r for r in rows if r["client"] == "paced"]
    if paced_rows:
        p = max(paced_rows, key=lambda r: r["sessions"])
        print(
            f"paced client at {p['sessions']} sessions: {p['failed']} failed, {p['limited']} 429s, "
            f"{p['in_tok_min']:,.0f} input tokens/min (limit {args.itpm:,.0f})"
        )
    return 0 if all(r["failed"] == 0 for r in paced_rows) else 1


if __name__ == "__main__":
    sys.exit(main())
