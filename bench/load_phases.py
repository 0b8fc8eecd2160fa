"""bench_load.py's phases and what it measures during each: the CPU of each group of processes,
gunicorn's time per request, what PostgreSQL's connections were doing; the vacuum and the wait
for a quiet machine between phases; the memory of the stack at the end."""

import argparse
import asyncio
import contextlib
import math
import os
import random
import re
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import loadgen
import procstats
from load_event import COUNTED_RE, SEED, Event, api, round_body, submit_and_confirm
from load_stack import WebLog, role_pids
from loadgen import HttpClient, Sample, Summary, summarize, timed


@dataclass
class Phase:
    name: str
    summary: Summary | None = None
    cores: dict[str, float] = field(default_factory=dict)
    log: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    client_cpu: float = math.nan  # cores the load generator's process used
    waits: dict[str, float] = field(default_factory=dict)  # pg_stat_activity, average connections
    wall_offset: float = field(default_factory=lambda: time.time() - time.perf_counter())


class PgWaits(procstats.BackgroundSampler):
    """What the stack's PostgreSQL connections are doing, sampled from pg_stat_activity every
    `interval` seconds in a thread: the average number of connections running, waiting on a
    lock (with the statement), or idle inside a transaction (Python working between queries)."""

    join_timeout = 10.0

    def __init__(self, dsn: str, database: str, interval: float = 0.05) -> None:
        super().__init__()
        self.dsn, self.database, self.interval = dsn, database, interval
        self.counts: Counter = Counter()
        self.samples = 0
        self.error = ""

    def _run(self) -> None:
        import psycopg

        try:
            with psycopg.connect(self.dsn, autocommit=True, connect_timeout=3) as conn:
                while not self._stop.wait(self.interval):
                    rows = conn.execute(
                        "SELECT state, wait_event_type, wait_event, left(query, 200) "
                        "FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid() "
                        "AND backend_type = 'client backend'",
                        [self.database],
                    ).fetchall()
                    self.samples += 1
                    for state, wait_type, wait, query in rows:
                        if state == "active":
                            if wait_type is None:
                                key = "running a query"
                            elif wait_type == "Lock":
                                key = f"waiting on a {wait} lock: {_statement(query)}"
                            else:
                                key = f"waiting on {wait_type}:{wait}"
                        elif state and state.startswith("idle in transaction"):
                            key = "idle in a transaction (the app working between queries)"
                        else:
                            continue
                        self.counts[key] += 1
        except Exception as error:  # the figures are a diagnosis: never fail the run for them
            self.error = f"{type(error).__name__}: {error}"

    def averages(self) -> dict[str, float]:
        if not self.samples:
            return {}
        return {k: v / self.samples for k, v in self.counts.most_common(8)}


def _statement(query: str) -> str:
    """A statement's gist: its verb and table(s), without the column list or values."""
    text = re.sub(r"\s+", " ", query or "").strip()
    verb = text.split(" ", 1)[0].upper() if text else "?"
    tables = list(dict.fromkeys(re.findall(r'"([a-z]+_[a-z_]+)"', text)))
    return f"{verb} {', '.join(tables[:2])}".strip()


class Measure:
    """Runs a phase with the CPU sampler, the client's own CPU time and the web log slice."""

    def __init__(self, args: argparse.Namespace, weblog: WebLog) -> None:
        self.args, self.weblog = args, weblog
        pids = role_pids(args)
        self.groups = {
            pids.get("web", -1): "gunicorn (web)",
            pids.get("staff", -1): "gunicorn (staff)",
            pids.get("worker1", -1): "celery workers",
            pids.get("worker2", -1): "celery workers",
            pids.get("beat", -1): "celery beat",
        }

    def classify(self, pid: int, pgid: int, cmd: str) -> str | None:
        if pid == os.getpid():
            return "load generator (this script)"
        if pgid in self.groups:
            return self.groups[pgid]
        if cmd.startswith("postgres:"):
            if f" {self.args.stack_db} " in f"{cmd} ":
                return "postgres (the stack's connections)"
            return "postgres (other)"
        if "postgres" in cmd.split(" ")[0]:
            return "postgres (other)"
        if cmd.startswith("redis-server"):
            return "redis"
        if "py-spy" in cmd:
            return "py-spy"
        return None

    @contextlib.asynccontextmanager
    async def phase(self, phase: Phase, path_prefix: str):
        offset = self.weblog.offset()
        cpu0 = time.process_time()
        wall0 = time.perf_counter()
        sampler = procstats.CpuSampler(self.classify)
        waits = PgWaits(f"{self.args.pg_url}/{self.args.stack_db}", self.args.stack_db)
        with sampler, waits:
            yield phase
        phase.waits = waits.averages()
        phase.client_cpu = (time.process_time() - cpu0) / max(1e-9, time.perf_counter() - wall0)
        phase.cores = sampler.cores()
        phase.log = self.weblog.digest(offset, path_prefix)


def slow_near_boots(phase: Phase, samples: list[Sample]) -> dict:
    """How many slow requests (over 500 ms and 5 times the median) were in flight within about a
    second of a gunicorn worker boot (the log has whole seconds): a worker recycled after
    max_requests stalls the requests it held."""
    median = loadgen.percentile([s.latency * 1000 for s in samples], 50)
    slow_ms = max(500.0, 5 * median) if samples else 500.0
    boots = phase.log.get("boot_times", [])
    slow = [s for s in samples if s.latency * 1000 > slow_ms]
    near = 0
    for s in slow:
        sent, done = s.sent + phase.wall_offset, s.done + phase.wall_offset
        if any(sent - 1.5 <= b <= done + 0.5 for b in boots):
            near += 1
    return {"slow": len(slow), "near_boot": near, "slow_ms": slow_ms, "boots": len(boots)}


def vacuum(args: argparse.Namespace) -> dict[str, Any]:
    """VACUUM ANALYZE the stack's database, as autovacuum would between the phases. Every
    confirmation rewrites the standings lines it moves, so a phase leaves tens of thousands of
    dead rows; with autovacuum off (as on this machine's PostgreSQL) they would pile up from
    phase to phase and from run to run, and slow every later phase. Returns the server's
    autovacuum setting and the time taken."""
    import psycopg

    start = time.perf_counter()
    with psycopg.connect(f"{args.pg_url}/{args.stack_db}", autocommit=True) as conn:
        autovacuum = conn.execute("SHOW autovacuum").fetchone()[0]
        conn.execute("VACUUM (ANALYZE)")
    return {"autovacuum": autovacuum, "seconds": time.perf_counter() - start}


async def wait_for_quiet(measure: Measure, limit: float) -> dict[str, float]:
    """Wait, up to `limit` seconds, until processes outside the stack and this script use less
    than 0.25 of a core over 3 s (other work on a shared machine); go on anyway after that."""
    start = time.perf_counter()
    other = math.nan
    while True:
        sampler = procstats.CpuSampler(measure.classify)
        with sampler:
            await asyncio.sleep(3)
        other = sampler.cores().get("other", 0.0)
        waited = time.perf_counter() - start
        if other < 0.25 or waited >= limit:
            break
        print(f"  other processes use {other:.2f} cores: waiting for a quieter machine ...")
    print(f"machine: other processes {other:.2f} cores (waited {waited:.0f} s of {limit:.0f})")
    return {"other_cores": other, "waited_s": waited}


async def settle(client: HttpClient, seconds: float = 180.0) -> float:
    """Wait until /health/live/ answers quickly again (the server has drained its queue)."""
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        sample, _ = await timed(client, "GET", "/health/live/", timeout=10)
        if sample.status == 200 and sample.service < 0.05:
            await asyncio.sleep(1.0)
            return time.perf_counter() - start
        await asyncio.sleep(0.5)
    return time.perf_counter() - start


async def page_standalone(client: HttpClient, path: str, runs: int) -> dict[str, float]:
    """Sequential requests, nothing else running: the page's service time on an idle server."""
    times = []
    for _run in range(runs):
        sample, _ = await timed(client, "GET", path)
        if sample.status == 200:
            times.append(sample.service * 1000)
    return {"p50_ms": loadgen.percentile(times, 50), "min_ms": min(times) if times else math.nan}


async def measure_page_rate(
    measure: Measure, host: str, args: argparse.Namespace, path: str, etag: str | None
) -> Phase:
    name = (
        f"a. standings page, {args.rate:.0f}/s"
        if etag is None
        else f"a2. standings page polls (304), {args.rate:.0f}/s"
    )
    phase = Phase(name)
    client = HttpClient(host, args.port, max_conns=args.open_loop_conns)
    headers = {"If-None-Match": etag} if etag else None
    seconds = args.rate_seconds if etag is None else args.poll_seconds
    async with measure.phase(phase, path):
        samples, scheduled = await loadgen.open_loop(
            client,
            path,
            rate=args.rate,
            seconds=seconds,
            give_up=args.timeout,
            headers=headers,
            drain_seconds=15,
        )
        elapsed = max(s.done for s in samples) - min(s.due for s in samples)
    await client.close()
    phase.summary = summarize(samples, elapsed, ok_statuses=(304,) if etag else (200,))
    phase.extra = {
        "rate": args.rate,
        "seconds": seconds,
        "schedule_seconds": scheduled,
        "connections_opened": client.opened,
    }
    return phase


async def measure_ceiling(
    measure: Measure, host: str, args: argparse.Namespace, path: str, label: str
) -> Phase:
    phase = Phase(label)
    client = HttpClient(host, args.port, max_conns=args.concurrency, timeout=args.timeout)
    await loadgen.closed_loop(client, path, concurrency=args.concurrency, seconds=2)  # warm
    async with measure.phase(phase, path):
        samples, elapsed = await loadgen.closed_loop(
            client, path, concurrency=args.concurrency, seconds=args.ceiling_seconds
        )
    await client.close()
    phase.summary = summarize(samples, elapsed)
    phase.extra = {
        "concurrency": args.concurrency,
        "seconds": args.ceiling_seconds,
        "boots": slow_near_boots(phase, samples),
    }
    return phase


async def measure_submissions(
    measure: Measure,
    host: str,
    args: argparse.Namespace,
    event: Event,
    jobs: list,
    base: list,
    think: tuple[float, float] | None = None,
) -> Phase:
    """c: the unloaded baseline (one official, sequential), then every official at once; with
    think (c2.), each official first pauses a random time in that range (seconds) before each
    result, as officials do between tables' reports, then sends the PUT and the confirm."""
    rng = random.Random(SEED + 3 + (think is not None))
    if think is None:
        phase = Phase(f"c. result submissions, {args.officials} officials at once")
    else:
        phase = Phase(
            f"c2. result submissions, {args.officials} officials, {think[0]:g}-{think[1]:g} s "
            "between results"
        )
    client = HttpClient(host, args.port, max_conns=args.officials + 4, timeout=args.timeout)
    base_puts, base_confirms = [], []
    for table_id, number, seats, round_no in base:
        put, confirm = await submit_and_confirm(
            client, event.official_tokens[0], table_id, number, seats, round_no, rng
        )
        base_puts.append(put)
        base_confirms.append(confirm)
    if base:
        await asyncio.sleep(2)  # let the baseline's standings rebuilds finish
    per_official: list[list] = [[] for _ in event.official_tokens]
    for i, job in enumerate(jobs):
        per_official[i % len(per_official)].append(job)
    go = asyncio.Event()
    puts: list[Sample] = []
    confirms: list[Sample] = []

    async def official(token: str, mine: list) -> None:
        await go.wait()
        for table_id, number, seats, round_no in mine:
            if think is not None:
                await asyncio.sleep(rng.uniform(*think))
            put, confirm = await submit_and_confirm(
                client, token, table_id, number, seats, round_no, rng
            )
            puts.append(put)
            confirms.append(confirm)

    async with measure.phase(phase, "/api/v1/tables/"):
        tasks = [
            asyncio.create_task(official(token, mine))
            for token, mine in zip(event.official_tokens, per_official, strict=True)
        ]
        await asyncio.sleep(0.2)
        start = time.perf_counter()
        go.set()
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=300)
        elapsed = time.perf_counter() - start
    await client.close()
    both = puts + confirms
    phase.summary = summarize(both, elapsed, ok_statuses=(200, 201))
    phase.extra = {
        "put": summarize(puts, elapsed, ok_statuses=(200, 201)),
        "confirm": summarize(confirms, elapsed, ok_statuses=(200,)),
        "baseline_put": summarize(base_puts, 1, ok_statuses=(200, 201)),
        "baseline_confirm": summarize(base_confirms, 1, ok_statuses=(200,)),
        "results": len(jobs),
        "results_per_s": len(jobs) / elapsed,
        "elapsed": elapsed,
    }
    return phase


async def measure_visibility(
    measure: Measure, host: str, args: argparse.Namespace, event: Event, jobs: list
) -> Phase:
    """d: confirm a result, then poll the public page (If-None-Match, every 50 ms) until its
    "N of 500 results in" counts it."""
    rng = random.Random(SEED + 4)
    phase = Phase("d. confirmation to public page")
    client = HttpClient(host, args.port, max_conns=4, timeout=args.timeout)
    path = f"/en/t/{event.slug}/"
    token = event.official_tokens[0] if event.official_tokens else event.admin_token
    from_ack: list[float] = []
    from_send: list[float] = []
    polls: list[int] = []
    failures: list[str] = []
    async with measure.phase(phase, path):
        for table_id, number, seats, round_no in jobs:
            page = await client.request("GET", path)
            counted = int(COUNTED_RE.search(page.body.decode()).group(1))
            etag = page.headers.get("etag", "")
            url = f"/api/v1/tables/{table_id}/rounds/{round_no}/"
            put, _ = await api(
                client,
                "PUT",
                url,
                token=token,
                payload=round_body(seats, number, round_no, rng),
                headers={"Idempotency-Key": str(uuid.uuid4())},
            )
            sent = time.perf_counter()
            await api(
                client,
                "POST",
                url + "confirm/",
                token=token,
                headers={"If-Match": put.headers.get("etag", "")},
            )
            acked = time.perf_counter()
            seen = None
            n = 0
            while time.perf_counter() - sent < args.visibility_timeout:
                await asyncio.sleep(0.05)
                n += 1
                answer = await client.request("GET", path, headers={"If-None-Match": etag})
                if answer.status == 200:
                    etag = answer.headers.get("etag", etag)
                    match = COUNTED_RE.search(answer.body.decode())
                    if match and int(match.group(1)) > counted:
                        seen = time.perf_counter()
                        break
            if seen is None:
                failures.append(f"table {number} round {round_no}: not shown within the timeout")
            else:
                from_ack.append(seen - acked)
                from_send.append(seen - sent)
                polls.append(n)
            await asyncio.sleep(rng.uniform(0.2, 0.6))
    await client.close()
    phase.extra = {
        "samples": len(jobs),
        "shown": len(from_ack),
        "failures": failures,
        "p50_s": loadgen.percentile(from_ack, 50),
        "p95_s": loadgen.percentile(from_ack, 95),
        "max_s": max(from_ack) if from_ack else math.nan,
        "min_s": min(from_ack) if from_ack else math.nan,
        "from_send_p50_s": loadgen.percentile(from_send, 50),
        "from_send_p95_s": loadgen.percentile(from_send, 95),
    }
    return phase


def memory(args: argparse.Namespace) -> list[procstats.ProcMemory]:
    out = []
    labels = {
        "web": ("gunicorn master", "gunicorn worker"),
        "staff": ("gunicorn (staff) master", "gunicorn (staff) worker"),
        "worker1": ("celery worker1 (main)", "celery worker1 (pool process)"),
        "worker2": ("celery worker2 (main)", "celery worker2 (pool process)"),
        "beat": ("celery beat", "celery beat (child)"),
    }
    for role, root in role_pids(args).items():
        for pid in procstats.process_tree(root):
            rss, pss = procstats.memory_of(pid)
            label = labels[role][0] if pid == root else labels[role][1]
            out.append(procstats.ProcMemory(pid, label, rss, pss, procstats._cmdline(pid)[:80]))
    return out
