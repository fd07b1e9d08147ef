"""RatePacer: the shared token bucket that keeps a build's Claude agents under the API's per-minute limits."""

from wikigen.agents.pacing import RatePacer


class FakeTime:
    def __init__(self):
        self.now = 0.0
        self.slept = []

    def clock(self):
        return self.now

    def sleep(self, s):
        self.slept.append(s)
        self.now += s


def test_requests_wait_for_the_budget_and_never_exceed_it():
    t = FakeTime()
    pacer = RatePacer(input_tokens_per_minute=60_000, requests_per_minute=600, clock=t.clock, sleep=t.sleep)
    for _ in range(10):
        pacer.acquire(2_000)  # 1,000 tokens a second: a 2,000-token request every 2 s after the first
    assert 17.0 <= t.now <= 19.5  # 20,000 tokens at 1,000/s, less the one second held at the start
    assert abs(pacer.waited - t.now) < 1e-6 and all(s <= 1.0 for s in t.slept)


def test_the_request_limit_binds_when_requests_are_small():
    t = FakeTime()
    pacer = RatePacer(input_tokens_per_minute=10_000_000, requests_per_minute=60, clock=t.clock, sleep=t.sleep)
    for _ in range(5):
        pacer.acquire(10)
    assert 3.5 <= t.now <= 4.5  # one request a second


def test_a_claude_session_asks_the_pacer_before_every_request(tmp_path):
    from fake_messages_server import FakeMessagesServer
    from test_claude_agent import TASK, backend, make_world

    calls = []

    class CountingPacer:
        def acquire(self, tokens):
            calls.append(tokens)

    world = make_world(tmp_path)
    with FakeMessagesServer() as fake:
        fake.loop_forever("list_pages", {})
        out = backend(fake, max_turns=4, pacer=CountingPacer()).run_session(TASK, world.toolbox())
        assert out.turns == 4 and len(calls) == len(fake.requests) == 4
    assert all(c > 100 for c in calls) and calls == sorted(calls)  # the conversation grows turn by turn
