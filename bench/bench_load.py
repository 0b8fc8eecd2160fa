"""Load test of the production topology (deploy/stack.sh: gunicorn, two Celery workers, beat, on
PostgreSQL and Redis) with a 500-player event, built through the API.

One command, from the project root (6 to 10 minutes; starts its own stack, stops it at the end):

    .venv/bin/python bench/bench_load.py [--py-spy /tmp/bench-tools-venv/bin/py-spy]

py-spy is optional and not a project dependency; to have the sampling profile, install it apart:
python3 -m venv /tmp/bench-tools-venv && /tmp/bench-tools-venv/bin/pip install py-spy

It builds the event through the API (superuser by `deploy/stack.sh manage createsuperuser`,
token, tournament, 500 players from a CSV, a qualifying stage at tables of 4, 4 rounds from
double-12, seated; rounds 1 and 2 entered and confirmed at every table), waits up to
--wait-quiet seconds for other processes on the machine to go quiet, then measures, in one run,
with bench/loadgen.py (an open-loop asyncio client; see there why not wrk2 or locust):
  a. the public standings page /t/<slug>/ at a constant 200 requests/s for 30 s (full renders,
     as a phone's first load), then (a2) the same rate with If-None-Match (the HTMX polls of
     phones that already have the page: 304s) for 15 s;
  b. the page's throughput ceiling, closed loop for 20 s, and /health/live/ (a trivial Django
     view) the same way, at the same concurrency;
  c. 50 officials submitting round results at once (PUT with Idempotency-Key, then confirm with
     If-Match), each to table-rounds of its own;
  d. the time from a confirmation to the public page counting it, 30 times;
  e. the memory (RSS and PSS) of every process of the stack at the end.
For each phase it records the cores each group of processes used (from /proc), gunicorn's own
time per request (its access log) and what the stack's PostgreSQL connections were doing
(pg_stat_activity). Then it profiles the page (bench/load_profile.py in the stack's
environment: parts, SQL queries, template variants; py-spy on the gunicorn workers when given)
and one submission, prints a summary and rewrites the "## Load" section of docs/PERFORMANCE.md
(--no-docs to leave it alone; --json FILE for every figure).

The stack runs on its own port (8170), database (roundhouse_stack_bench), Redis databases
(broker 10, cache 11), queue and state directory (/tmp/roundhouse-stack-bench), so it collides
with neither `make stack` nor the tests. Each run adds a tournament (slug load-<time>) and users
bench-<time>-admin and -official-NN; the database is kept between runs. --use-running measures
a stack already started with the same variables (and leaves it running). Every request loop is
bounded in count and time and goes to 127.0.0.1 only.

The load generator runs on the same 2 cores as the server and takes CPU from it, and so does
anything else running meanwhile: the report gives the cores each group of processes used.
"""

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import random
import re
import runpy
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import loadgen
import procstats
from loadgen import HttpClient, Sample, Summary, summarize, timed

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "PERFORMANCE.md"
STACK_SH = ROOT / "deploy" / "stack.sh"
PYTHON = ROOT / ".venv" / "bin" / "python"

PLAYERS = 500
TABLE_SIZE = 4
ROUNDS = 6  # rounds 3 to 6 leave enough table-rounds for c., c2. and d.
STARTING_DOUBLE = 12
SETUP_ROUNDS = (1, 2)  # entered and confirmed at every table before the measurements
SEED = 2024

TARGET_PAGE_P99_MS = 50.0
TARGET_SUBMIT_P99_MS = 100.0
TARGET_VISIBLE_P95_S = 2.0

COUNTED_RE = re.compile(r"(\d+)\s+of\s+(\d+)\s+results in")


class BenchError(Exception):
    pass


# ---- the stack ---------------------------------------------------------------------------------


def stack_env(args: argparse.Namespace) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_URL", "REDIS_URL", "CELERY_", "DJANGO_"))
    }
    env.update(
        PORT=str(args.port),
        STACK_DIR=args.stack_dir,
        STACK_DB=args.stack_db,
        STACK_PG_URL=args.pg_url,
        STACK_QUEUE=args.stack_queue,
        STACK_BROKER_DB=str(args.broker_db),
        STACK_CACHE_DB=str(args.cache_db),
    )
    return env


def stack(args: argparse.Namespace, *command: str, extra: dict[str, str] | None = None, **kw: Any):
    env = {**stack_env(args), **(extra or {})}
    return subprocess.run(["bash", str(STACK_SH), *command], cwd=ROOT, env=env, text=True, **kw)


def role_pids(args: argparse.Namespace) -> dict[str, int]:
    out = {}
    for role in ("web", "worker1", "worker2", "beat"):
        path = Path(args.stack_dir) / f"{role}.pid"
        if path.exists() and path.read_text().strip().isdigit():
            out[role] = int(path.read_text().strip())
    return out


class WebLog:
    """The gunicorn log of the stack (access log lines with the server's time per request)."""

    ACCESS = re.compile(r'"(GET|PUT|POST|HEAD) (\S+) HTTP/1\.1" (\d{3}) \S+ (\d+)ms')

    def __init__(self, path: Path) -> None:
        self.path = path

    def offset(self) -> int:
        return self.path.stat().st_size if self.path.exists() else 0

    def since(self, offset: int) -> str:
        if not self.path.exists():
            return ""
        with self.path.open("rb") as f:
            size = self.path.stat().st_size
            f.seek(offset if offset <= size else 0)  # rotated by a restart: read it all
            return f.read().decode(errors="replace")

    def digest(self, offset: int, path_prefix: str) -> dict[str, Any]:
        text = self.since(offset)
        times = [
            int(m.group(4))
            for m in self.ACCESS.finditer(text)
            if m.group(2).startswith(path_prefix)
        ]
        return {
            "server_p50_ms": loadgen.percentile(times, 50),
            "server_p99_ms": loadgen.percentile(times, 99),
            "server_requests": len(times),
            "worker_boots": text.count("Booting worker with pid"),
            "boot_times": [
                datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S %z").timestamp()
                for m in re.finditer(r"^\[([^\]]+)\] \[\d+\] \[INFO\] Booting worker", text, re.M)
            ],
            "worker_timeouts": text.count("WORKER TIMEOUT"),
            "tracebacks": text.count("Traceback (most recent call last)"),
        }


# ---- the API -----------------------------------------------------------------------------------


async def api(
    client: HttpClient,
    method: str,
    path: str,
    *,
    token: str | None = None,
    payload: Any = None,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    expect: tuple[int, ...] = (200, 201),
    timeout: float = 120.0,
) -> tuple[loadgen.Response, Any]:
    sent = {"Accept": "application/json", **(headers or {})}
    if token:
        sent["Authorization"] = f"Token {token}"
    if payload is not None:
        body = json.dumps(payload).encode()
        sent["Content-Type"] = "application/json"
    response = await client.request(method, path, headers=sent, body=body, timeout=timeout)
    if response.status not in expect:
        raise BenchError(f"{method} {path}: {response.status} {response.body[:600]!r}")
    ctype = response.headers.get("content-type", "")
    data = json.loads(response.body) if response.body and "json" in ctype else None
    return response, data


def multipart(field_name: str, filename: str, content: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{field_name}"; '
            f'filename="{filename}"\r\nContent-Type: text/csv\r\n\r\n'
        ).encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"


def round_body(seats: list[int], table_number: int, round_no: int, rng: random.Random) -> dict:
    winner = (table_number + round_no) % len(seats)
    return {
        "blocked": False,
        "scores": [
            {
                "player": player,
                "pips": 0 if i == winner else rng.randint(1, 60),
                "went_out": i == winner,
            }
            for i, player in enumerate(seats)
        ],
    }


@dataclass
class Event:
    slug: str
    stage_id: int
    tables: dict[int, tuple[int, list[int]]]  # table id -> (number, player ids in seat order)
    admin_token: str
    official_tokens: list[str] = field(default_factory=list)
    setup_seconds: dict[str, float] = field(default_factory=dict)

    def table_ids(self) -> list[int]:
        return sorted(self.tables, key=lambda t: self.tables[t][0])


async def submit_and_confirm(
    client: HttpClient,
    token: str,
    table_id: int,
    number: int,
    seats: list[int],
    round_no: int,
    rng: random.Random,
) -> tuple[Sample, Sample]:
    """PUT a round result (new Idempotency-Key) and confirm it with its ETag: both samples."""
    path = f"/api/v1/tables/{table_id}/rounds/{round_no}/"
    body = json.dumps(round_body(seats, number, round_no, rng)).encode()
    headers = {
        "Authorization": f"Token {token}",
        "Content-Type": "application/json",
        "Accept": "application/json",
        "Idempotency-Key": str(uuid.uuid4()),
    }
    put, response = await timed(client, "PUT", path, headers=headers, body=body)
    if response is None or response.status not in (200, 201):
        detail = response.body[:300] if response is not None else put.error
        confirm = Sample(put.done, put.done, put.done, 0, f"not confirmed: PUT failed {detail!r}")
        if response is not None:
            put.error = f"HTTP {response.status}: {response.body[:200]!r}"
        return put, confirm
    confirm_headers = {
        "Authorization": f"Token {token}",
        "Accept": "application/json",
        "If-Match": response.headers.get("etag", ""),
    }
    confirm, answer = await timed(client, "POST", path + "confirm/", headers=confirm_headers)
    if answer is not None and answer.status != 200:
        confirm.error = f"HTTP {answer.status}: {answer.body[:200]!r}"
    return put, confirm


async def build_event(client: HttpClient, args: argparse.Namespace, run: str) -> Event:
    timings: dict[str, float] = {}
    password = uuid.uuid4().hex
    admin = f"bench-{run}-admin"
    start = time.perf_counter()
    done = stack(
        args,
        "manage",
        "createsuperuser",
        "--noinput",
        extra={
            "DJANGO_SUPERUSER_USERNAME": admin,
            "DJANGO_SUPERUSER_PASSWORD": password,
            "DJANGO_SUPERUSER_EMAIL": f"{admin}@example.invalid",
        },
        capture_output=True,
    )
    if done.returncode:
        raise BenchError(f"createsuperuser failed: {done.stderr[-800:]}")
    _, data = await api(
        client, "POST", "/api/v1/auth/token/", payload={"username": admin, "password": password}
    )
    token = data["token"]
    timings["superuser and token"] = time.perf_counter() - start

    slug = f"load-{run}"
    start = time.perf_counter()
    await api(
        client,
        "POST",
        "/api/v1/tournaments/",
        token=token,
        payload={
            "name": f"Load bench {run}",
            "slug": slug,
            "domino_set": STARTING_DOUBLE,
            "preset": "samboree",
        },
    )
    rng = random.Random(SEED)
    lines = ["number,name,household,club"]
    for n in range(1, PLAYERS + 1):
        household = f"H{n // 3}" if n % 10 < 3 else ""  # 30% in households of two or three
        lines.append(
            f"{n},Player {n:03d} {rng.choice('ABCDEFGHJKLMNPRSTW')}.,{household},Club {n % 17}"
        )
    body, ctype = multipart("file", "players.csv", ("\n".join(lines) + "\n").encode())
    t = time.perf_counter()
    _, data = await api(
        client,
        "POST",
        f"/api/v1/tournaments/{slug}/players/import/",
        token=token,
        body=body,
        headers={"Content-Type": ctype},
    )
    timings["import 500 players (CSV)"] = time.perf_counter() - t
    if data["created"] != PLAYERS:
        raise BenchError(f"imported {data['created']} players, not {PLAYERS}")
    _, stage = await api(
        client,
        "POST",
        f"/api/v1/tournaments/{slug}/stages/",
        token=token,
        payload={
            "name": "Qualifying",
            "kind": "qualifying",
            "rounds": ROUNDS,
            "starting_double": STARTING_DOUBLE,
            "table_size_min": TABLE_SIZE,
            "table_size_max": TABLE_SIZE,
        },
    )
    t = time.perf_counter()
    _, seated = await api(
        client, "POST", f"/api/v1/stages/{stage['id']}/seat/", token=token, payload={"seed": SEED}
    )
    timings["seat 125 tables"] = time.perf_counter() - t
    tables = {
        t["id"]: (
            t["number"],
            [s["player"]["id"] for s in sorted(t["seats"], key=lambda s: s["position"])],
        )
        for t in seated
    }
    if len(tables) != PLAYERS // TABLE_SIZE:
        raise BenchError(f"seated {len(tables)} tables, not {PLAYERS // TABLE_SIZE}")
    event = Event(slug=slug, stage_id=stage["id"], tables=tables, admin_token=token)
    timings["tournament, players, stage, seating"] = time.perf_counter() - start

    # Officials: users made by the staff endpoint, each with a token of its own.
    start = time.perf_counter()

    async def official(i: int) -> str:
        username, secret = f"bench-{run}-official-{i:02d}", uuid.uuid4().hex
        await api(
            client,
            "POST",
            f"/api/v1/tournaments/{slug}/staff/",
            token=token,
            payload={"username": username, "role": "official", "password": secret},
        )
        _, data = await api(
            client,
            "POST",
            "/api/v1/auth/token/",
            payload={"username": username, "password": secret},
        )
        return data["token"]

    event.official_tokens = await loadgen.gather_bounded(
        [lambda i=i: official(i) for i in range(args.officials)], 8
    )
    timings[f"{args.officials} officials and their tokens"] = time.perf_counter() - start

    # Rounds 1 and 2 at every table, so the standings have content.
    start = time.perf_counter()
    jobs = [
        (table_id, number, seats, round_no)
        for round_no in SETUP_ROUNDS
        for table_id, (number, seats) in sorted(tables.items(), key=lambda kv: kv[1][0])
    ]
    results = await loadgen.gather_bounded(
        [lambda j=j: submit_and_confirm(client, token, j[0], j[1], j[2], j[3], rng) for j in jobs],
        8,
    )
    bad = [s for pair in results for s in pair if s.status not in (200, 201)]
    if bad:
        raise BenchError(f"{len(bad)} setup submissions failed, e.g. {bad[0].error}")
    expected = len(jobs)
    counted = await wait_for_counted(client, event, expected, timeout=120)
    timings[f"{len(jobs)} results entered and confirmed, standings counting them"] = (
        time.perf_counter() - start
    )
    if counted < expected:
        raise BenchError(f"standings count {counted} results after 120 s, not {expected}")
    event.setup_seconds = timings
    return event


async def wait_for_counted(client: HttpClient, event: Event, expected: int, timeout: float) -> int:
    deadline = time.perf_counter() + timeout
    counted = -1
    while time.perf_counter() < deadline:
        _, data = await api(client, "GET", f"/api/v1/stages/{event.stage_id}/standings/")
        counted = data["results_counted"]
        if counted >= expected:
            break
        await asyncio.sleep(0.25)
    return counted


# ---- the measurements --------------------------------------------------------------------------


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
    path = f"/t/{event.slug}/"
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


# ---- where the time goes -----------------------------------------------------------------------

PROFILE_CATEGORIES = (  # the first that matches, from the innermost frame outwards
    ("SQL: psycopg and the database driver", ("psycopg/", "django/db/backends/")),
    ("cache: Redis client and unpickling", ("redis/", "django/core/cache/")),
    ("template rendering", ("django/template/", "django/templatetags/", "django/utils/html")),
    ("URL reversing", ("django/urls/",)),
    ("ORM: building queries and model instances", ("django/db/models/",)),
    ("middleware, sessions, CSP, axes", ("django/middleware/", "django/contrib/", "csp/", "axes/")),
    ("gunicorn: HTTP, access log", ("gunicorn/",)),
)


def profile_with_py_spy(
    py_spy: str, worker_pids: list[int], seconds: float
) -> list[subprocess.Popen]:
    procs = []
    for pid in worker_pids:
        out = Path(tempfile.gettempdir()) / f"bench-load-pyspy-{pid}.txt"
        procs.append(
            subprocess.Popen(
                [
                    py_spy,
                    "record",
                    "--pid",
                    str(pid),
                    "--duration",
                    str(int(seconds)),
                    "--rate",
                    "200",
                    "--gil",
                    "--format",
                    "raw",
                    "--output",
                    str(out),
                    "--nonblocking",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    return procs


def read_py_spy(worker_pids: list[int]) -> dict[str, Any]:
    stacks: Counter = Counter()
    for pid in worker_pids:
        path = Path(tempfile.gettempdir()) / f"bench-load-pyspy-{pid}.txt"
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            frames, _, count = line.rpartition(" ")
            if count.isdigit():
                stacks[frames] += int(count)
        path.unlink()
    total = sum(stacks.values())
    if not total:
        return {}
    categories: Counter = Counter()
    own: Counter = Counter()
    inclusive: Counter = Counter()
    for frames, count in stacks.items():
        parts = frames.split(";")
        category = "other Python (views, Django core, DRF)"
        for frame in reversed(parts):
            hit = next(
                (name for name, keys in PROFILE_CATEGORIES if any(k in frame for k in keys)), None
            )
            if hit:
                category = hit
                break
        categories[category] += count
        own[_short(parts[-1])] += count
        for frame in set(parts):
            if any(k in frame for k in ("/scoring/", "/tournaments/", "/tables/", "/config/")):
                inclusive[_short(frame)] += count
    return {
        "samples": total,
        "categories": {k: v / total for k, v in categories.most_common()},
        "self_top": [(k, v / total) for k, v in own.most_common(12)],
        "project_inclusive": [(k, v / total) for k, v in inclusive.most_common(8)],
    }


def _short(frame: str) -> str:
    # "render (django/template/base.py:1008)" -> "render (django/template/base.py)"
    name, _, where = frame.partition(" (")
    where = where.rstrip(")")
    for marker in ("site-packages/", "/work/main/", str(ROOT) + "/"):
        if marker in where:
            where = where.split(marker, 1)[1]
    return f"{name} ({where.rsplit(':', 1)[0]})"


def in_process(args: argparse.Namespace, mode: str, **env: str) -> dict[str, Any]:
    """bench/load_profile.py in the stack's environment (see there)."""
    done = stack(
        args,
        "manage",
        "shell",
        "-c",
        "import runpy; runpy.run_path('bench/load_profile.py', run_name='__main__')",
        extra={"BENCH_MODE": mode, **env},
        capture_output=True,
        timeout=300,
    )
    for line in done.stdout.splitlines():
        if line.startswith("BENCH_JSON "):
            return json.loads(line.removeprefix("BENCH_JSON "))
    return {"error": (done.stderr or done.stdout)[-1500:]}


# ---- the report --------------------------------------------------------------------------------


def machine() -> dict[str, str]:
    cpu = "unknown CPU"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kb = int(f.readline().split()[1])
    versions = subprocess.run(
        [
            str(PYTHON),
            "-c",
            "import django, gunicorn, celery, psycopg, redis, platform;"
            "print(platform.python_version(), django.__version__, gunicorn.__version__,"
            " celery.__version__, psycopg.__version__, redis.__version__)",
        ],
        capture_output=True,
        text=True,
    ).stdout.split()
    pg = (
        subprocess.run(
            ["psql", "-h", "127.0.0.1", "-U", "postgres", "-Atc", "SHOW server_version"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        if shutil.which("psql")
        else "?"
    )
    rv = (
        subprocess.run(
            ["redis-cli", "-h", "127.0.0.1", "INFO", "server"], capture_output=True, text=True
        ).stdout
        if shutil.which("redis-cli")
        else ""
    )
    redis_version = next(
        (
            line.split(":", 1)[1].strip()
            for line in rv.splitlines()
            if line.startswith("redis_version")
        ),
        "?",
    )
    head = subprocess.run(
        ["git", "--no-optional-locks", "rev-parse", "--short", "HEAD"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    changed = subprocess.run(
        [
            "git",
            "--no-optional-locks",
            "diff",
            "--name-only",
            "HEAD",
            "--",
            ".",
            ":!bench",
            ":!docs",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.split()
    names = ("python", "django", "gunicorn", "celery", "psycopg", "redis-py")
    return {
        "cpu": f"{os.cpu_count()} cores, {cpu}",
        "memory": f"{mem_kb / 1024 / 1024:.0f} GiB",
        "os": f"{platform.system()} {platform.release()} {platform.machine()}",
        "code": f"commit {head or '?'}"
        + (f" with uncommitted changes to {', '.join(changed)}" if changed else ""),
        "software": ", ".join(f"{n} {v}" for n, v in zip(names, versions, strict=False))
        + f", PostgreSQL {pg.split()[0] if pg else '?'}, Redis {redis_version}",
    }


def ms(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:,.0f} ms" if value >= 10 else f"{value:.1f} ms"


def verdict(ok: bool) -> str:
    return "**met**" if ok else "**missed**"


def cores_line(phase: Phase) -> str:
    c = phase.cores
    if not c:
        return ""
    parts = [f"{k} {v:.2f}" for k, v in c.items() if k not in ("machine",) and v >= 0.01]
    return f"machine {c.get('machine', 0):.2f} of 2 cores busy: " + ", ".join(parts)


# deploy/gunicorn.conf.py's settings as the stack gets them (it sets no gunicorn variables).
GUNICORN = runpy.run_path(str(ROOT / "deploy" / "gunicorn.conf.py"))


def times_over(value: float, target: float) -> str:
    """How many times the target a figure is, with enough digits to tell 1.04x from 1x."""
    ratio = value / target
    return f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:.2f}x" if ratio < 1.1 else f"{ratio:.1f}x"


def report(
    args: argparse.Namespace,
    event: Event,
    info: dict[str, str],
    phases: dict[str, Phase],
    mem: list[procstats.ProcMemory],
    standalone: dict[str, float],
    profile: dict[str, Any],
    breakdown: dict[str, Any],
    submit_profile: dict[str, Any],
    quiet: dict[str, float],
    command: str,
) -> tuple[str, list[str]]:
    a, a2 = phases["a"], phases.get("a2")
    bp, bh, c, d = phases["b_page"], phases["b_health"], phases["c"], phases["d"]
    sa, sc, sbp, sbh = a.summary, c.summary, bp.summary, bh.summary
    put, confirm = c.extra["put"], c.extra["confirm"]
    a_ok = sa.p99 < TARGET_PAGE_P99_MS and sa.error_count == 0
    a2_ok = a2 is not None and a2.summary.p99 < TARGET_PAGE_P99_MS and not a2.summary.error_count
    c_ok = sc.p99 < TARGET_SUBMIT_P99_MS and sc.error_count == 0
    c2 = phases["c2"]
    sc2 = c2.summary
    c2_ok = sc2.p99 < TARGET_SUBMIT_P99_MS and sc2.error_count == 0
    d_ok = d.extra["p95_s"] < TARGET_VISIBLE_P95_S and not d.extra["failures"]
    page_ms = standalone.get("p50_ms", math.nan)
    total_rss = sum(m.rss_mb for m in mem)
    web_workers = sum(1 for m in mem if m.role == "gunicorn worker")
    total_pss = sum(m.pss_mb for m in mem)
    lines: list[str] = []
    add = lines.append

    add("## Load")
    add("")
    add(
        f"The production topology (`deploy/stack.sh`: gunicorn with {web_workers} workers x "
        "4 threads, two Celery workers of concurrency 1 "
        "at niceness 10, beat; PostgreSQL and Redis on the same machine; DEBUG "
        f"off) with a {PLAYERS}-player event built through the API: {PLAYERS} players imported "
        f"from a CSV, a qualifying stage at tables of {TABLE_SIZE} ({len(event.tables)} tables, "
        f"{ROUNDS} rounds from double-{STARTING_DOUBLE}), rounds "
        f"{' and '.join(map(str, SETUP_ROUNDS))} entered and confirmed at every table before the "
        "measurements."
    )
    add("")
    add(
        f"Measured {time.strftime('%Y-%m-%d %H:%M %Z')} at {info['code']}, on {info['cpu']}, "
        f"{info['memory']}, {info['os']}; {info['software']}."
    )
    add("")
    add(
        "**The load generator runs on the same 2 cores as the server**, and so does anything "
        "else running on the machine: each phase lists the cores each group of processes used "
        f"(sampled from /proc). Other processes used {quiet.get('other_cores', 0):.2f} cores "
        f"just before the measurements (after waiting {quiet.get('waited_s', 0):.0f} s for a "
        "quiet machine); before each later phase the run waited up to "
        f"{args.wait_quiet_phase:.0f} s for them to go under 0.25 cores ("
        + ", ".join(
            f"{q['other_cores']:.2f} after {q['waited_s']:.0f} s"
            for q in quiet.get("between_phases", [])
        )
        + "). Before each phase the stack's database was vacuumed and analysed, as "
        "autovacuum would between them in production (each confirmation rewrites the standings "
        "lines it moves, leaving dead rows); this machine's PostgreSQL runs with autovacuum "
        + str((quiet.get("vacuum") or [{}])[0].get("autovacuum", "?"))
        + ". The client is `bench/loadgen.py`, an open-loop asyncio HTTP/1.1 client "
        "(Debian 12 packages wrk but not wrk2; locust's constant_throughput paces each user "
        "after its previous answer, which hides the queue): request *i* is sent at "
        "t0 + *i*/rate whatever the earlier ones are doing, and its latency counts from that "
        "scheduled time."
    )
    add("")
    add(
        "Reproduce from the project root (about 7 minutes, plus up to `--wait-quiet` and 7 x "
        "`--wait-quiet-phase` seconds of waiting for a quiet machine; it starts and stops a "
        "stack of its own on port 8170 with the database `roundhouse_stack_bench`; "
        "`--py-spy PATH` adds the sampling profile, py-spy being no project dependency: "
        "`python3 -m venv /tmp/bench-tools-venv && /tmp/bench-tools-venv/bin/pip install "
        "py-spy`):"
    )
    add("")
    add("```")
    add(command)
    add("```")
    add("")
    add("| measurement | figure | target | result |")
    add("|---|---|---|---|")
    add(
        f"| a. `/t/<slug>/` ({a.extra.get('bytes', 0) / 1024:.0f} KB) at {args.rate:.0f}/s for "
        f"{args.rate_seconds:.0f} s | p50 {ms(sa.p50)}, p95 {ms(sa.p95)}, p99 {ms(sa.p99)}; "
        f"{sa.error_count:,} errors of {sa.count:,}; {sa.rate:.1f}/s answered "
        f"| p99 < {TARGET_PAGE_P99_MS:.0f} ms, no errors | {verdict(a_ok)}"
        + ("" if a_ok else f", p99 {times_over(sa.p99, TARGET_PAGE_P99_MS)} the target")
        + " |"
    )
    if a2 is not None:
        s2 = a2.summary
        add(
            f"| a2. the same with If-None-Match (phones polling: 304) for "
            f"{args.poll_seconds:.0f} s | p50 {ms(s2.p50)}, p95 {ms(s2.p95)}, p99 {ms(s2.p99)}; "
            f"{s2.error_count:,} errors of {s2.count:,} | (the same) | {verdict(a2_ok)}"
            + ("" if a2_ok else f", p99 {times_over(s2.p99, TARGET_PAGE_P99_MS)} the target")
            + " |"
        )
    add(
        f"| b. ceiling, closed loop, {args.concurrency} connections, {args.ceiling_seconds:.0f} s "
        f"each | page **{sbp.rate:,.1f}/s** (p50 {ms(sbp.p50)}); `/health/live/` "
        f"**{sbh.rate:,.0f}/s** (p50 {ms(sbh.p50)}): the page reaches {sbp.rate / sbh.rate:.1%} "
        f"of the trivial view's rate | {args.rate:.0f}/s (a.) | "
        + ("**met**" if sbp.rate >= args.rate else f"**missed**, {args.rate / sbp.rate:.0f}x short")
        + " |"
    )
    add(
        f"| c. {args.officials} officials at once: {c.extra['results']} results, each a PUT then "
        f"a confirm | PUT p50 {ms(put.p50)}, p95 {ms(put.p95)}, p99 {ms(put.p99)}; confirm p50 "
        f"{ms(confirm.p50)}, p95 {ms(confirm.p95)}, p99 {ms(confirm.p99)}; all {sc.count} "
        f"requests: p99 {ms(sc.p99)}, {sc.error_count} errors | p99 < "
        f"{TARGET_SUBMIT_P99_MS:.0f} ms | {verdict(c_ok)}"
        + ("" if c_ok else f", p99 {times_over(sc.p99, TARGET_SUBMIT_P99_MS)} the target")
        + " |"
    )
    put2, confirm2 = c2.extra["put"], c2.extra["confirm"]
    add(
        f"| c2. {args.officials} officials, each pausing {args.think_min:g}-{args.think_max:g} s "
        f"before each result: {c2.extra['results']} results, each a PUT then a confirm | PUT p50 "
        f"{ms(put2.p50)}, p95 {ms(put2.p95)}, p99 {ms(put2.p99)}; confirm p50 "
        f"{ms(confirm2.p50)}, p95 {ms(confirm2.p95)}, p99 {ms(confirm2.p99)}; all {sc2.count} "
        f"requests: p99 {ms(sc2.p99)}, {sc2.error_count} errors | p99 < "
        f"{TARGET_SUBMIT_P99_MS:.0f} ms | {verdict(c2_ok)}"
        + ("" if c2_ok else f", p99 {times_over(sc2.p99, TARGET_SUBMIT_P99_MS)} the target")
        + " |"
    )
    add(
        f"| d. confirmation to the public page counting it ({d.extra['samples']} times) | p50 "
        f"{d.extra['p50_s']:.2f} s, p95 {d.extra['p95_s']:.2f} s, max {d.extra['max_s']:.2f} s; "
        f"{len(d.extra['failures'])} not shown | p95 < {TARGET_VISIBLE_P95_S:.0f} s | "
        f"{verdict(d_ok)} |"
    )
    add(
        f"| e. memory of the stack's {len(mem)} processes at the end | RSS {total_rss:,.0f} MB "
        f"summed; PSS {total_pss:,.0f} MB (shared pages counted once) | none | |"
    )
    add("")

    labelled = (
        ("a.", a),
        ("a2.", a2),
        ("b. page", bp),
        ("b. health", bh),
        ("c.", c),
        ("c2.", c2),
        ("d.", d),
    )
    busy = {
        label: ph.cores.get("other", 0.0)
        for label, ph in labelled
        if ph is not None and ph.cores.get("other", 0.0) > 0.25
    }
    if busy:
        add(
            f"**Other processes (not the stack, not the load generator) used more than 0.25 "
            f"cores during {len(busy)} of the {sum(1 for _, ph in labelled if ph)} phases** ("
            + ", ".join(f"{name} {value:.2f}" for name, value in busy.items())
            + " cores): the stack had that much less of the 2 cores, so the figures that depend "
            "on CPU (latency under load, the ceilings) are worse than on a quiet machine. The "
            "single-request figures (the page alone, the in-process profiles) are the steadier "
            "ones."
        )
        add("")
    add("### a, b. The standings page")
    add("")
    add(
        f"Alone on the server (sequential requests, median of {args.standalone_runs}) the page "
        f"takes **{ms(page_ms)}** (fastest {ms(standalone.get('min_ms'))}): 2 cores serve at "
        f"most about {2000 / page_ms:.0f} of them a second, and {args.rate:.0f}/s needs "
        f"{args.rate * page_ms / 1000:.1f} of them"
        + (
            f"; at {args.rate:.0f}/s the queue grows for the whole run. "
            if args.rate * page_ms / 1000 > 1.6
            else ". "
        )
        + f"At most {args.open_loop_conns} requests are in flight at once (as behind a "
        "proxy's connection limit); the others wait in the client, and that wait counts. A "
        f"request that finds no free connection within {args.timeout:.0f} s of its due time is "
        "never sent, and one answered more than that after it was due is late: both count as "
        "errors (a phone gives up). A request once sent is always waited for, since a server "
        "cannot tell that its client has given up and would do the work anyway."
        + (
            f" After the phase the server took {a.extra['recovery_s']:.0f} s to answer "
            "`/health/live/` quickly again"
            + (
                ": it was still rendering the pages it had read."
                if a.extra["recovery_s"] > 10
                else "."
            )
            if isinstance(a.extra.get("recovery_s"), (int, float))
            and not math.isnan(a.extra["recovery_s"])
            else ""
        )
    )
    add("")
    add(
        "| phase | requests | as expected | errors | p50 | p95 | p99 | max | answered/s "
        "| server time p50 / p99 | gunicorn workers booted |"
    )
    add("|---|---|---|---|---|---|---|---|---|---|---|")
    for ph in [p for p in (a, a2, bp, bh) if p is not None]:
        s = ph.summary
        add(
            f"| {ph.name} | {s.count:,} | {s.ok:,} | {s.error_count:,} | {ms(s.p50)} | "
            f"{ms(s.p95)} | {ms(s.p99)} | {ms(s.max)} | {s.rate:,.1f} | "
            f"{ms(ph.log.get('server_p50_ms'))} / {ms(ph.log.get('server_p99_ms'))} | "
            f"{ph.log.get('worker_boots', 0)} |"
        )
    add("")
    add(
        "Server time is gunicorn's own measure of each request (its access log), from the "
        "moment a worker thread has read it: the rest of the latency is the wait for a thread. "
        "Workers booted: gunicorn recycles a worker after `max_requests` "
        f"({GUNICORN['max_requests']:,} + up to {GUNICORN['max_requests_jitter']:,} jitter, "
        "`deploy/gunicorn.conf.py`) requests."
    )
    add("")
    for ph in (bp, bh):
        boots = ph.extra.get("boots", {})
        if boots.get("slow"):
            add(
                f"- {ph.name}: {boots['near_boot']} of the {boots['slow']} requests slower than "
                f"{boots['slow_ms']:.0f} ms were in flight within about a second of one of the "
                f"{boots['boots']} worker boots."
            )
    add("")
    for ph in [p for p in (a, a2, bp, bh) if p is not None]:
        if ph.summary.errors:
            errs = ", ".join(f"{k}: {v:,}" for k, v in sorted(ph.summary.errors.items()))
            add(f"- {ph.name}, errors: {errs}.")
    add("")
    add("Cores in use during each phase (of 2):")
    add("")
    for ph in [p for p in (a, a2, bp, bh, c, c2, d) if p is not None]:
        add(f"- {ph.name}: {cores_line(ph)}.")
    add("")

    add("### Where the page's time goes")
    add("")
    if breakdown and "error" not in breakdown:
        parts = {k: v for k, v in breakdown["parts_ms"].items() if k != "template rendering"}
        add(
            f"In one process (`bench/load_profile.py`: Django's test client in the stack's "
            f"environment, median of {breakdown['runs']}), the view takes "
            f"{ms(breakdown['view_ms'])}: {breakdown['queries']} SQL queries "
            f"({ms(breakdown['sql_ms'])} in all), "
            + ", ".join(f"{k} {ms(v)}" for k, v in parts.items())
            + f". The page is {breakdown['bytes'] / 1024:.0f} KB of HTML for "
            f"{breakdown['rows']} rows. Visitors who are not signed in get the page kept for the "
            "current snapshot (in the process, else in Redis) with their own CSRF token put in; "
            "it is rendered once per snapshot, language and process."
        )
        add("")
        variants = breakdown.get("variants_ms", {})
        if variants:
            names = list(variants)
            base = variants[names[0]]
            add(
                "The standings table (`scoring/_standings_table.html`, rendered once per "
                "snapshot and language, then kept in each process and Redis) rendered on its own "
                "from its source and from copies changed in memory (fastest of 9 each, "
                "interleaved):"
            )
            add("")
            add("| fragment | render | difference |")
            add("|---|---|---|")
            for name, value in variants.items():
                diff = "" if name == names[0] else f"{value - base:+,.0f} ms"
                add(f"| {name} | {ms(value)} | {diff} |")
            add("")
            if len(names) > 1:
                rows = breakdown["rows"]
                tenth = max(1, rows // 10)
                per_row = (base - variants[names[1]]) / max(1, rows - tenth)
                add(
                    f"The rendering grows with the rows: about {per_row * 1000:,.0f} µs a row, "
                    f"the rest of the fragment {ms(max(0.0, base - per_row * rows))}. At "
                    f"{args.rate:.0f}/s, rendering it for every request would take "
                    f"{args.rate * base / 1000:.1f} cores; it is rendered once per snapshot."
                )
                add("")
        if breakdown.get("template_top"):
            add(
                "cProfile of one rendering (cumulative share of the render; cProfile inflates "
                "small calls): "
                + "; ".join(f"{name} {share:.0%}" for name, share in breakdown["template_top"])
                + "."
            )
            add("")
    elif breakdown:
        add(f"The in-process breakdown failed: `{breakdown['error'][-300:]}`")
        add("")
    if profile:
        add(
            f"py-spy on the {web_workers} gunicorn workers during a "
            f"{args.profile_seconds:.0f} s closed loop "
            f"on the page ({profile['samples']:,} samples of the thread holding the GIL, that "
            "is CPU work, not threads waiting), by the innermost frame that belongs to each part: "
            + "; ".join(f"{name} {share:.0%}" for name, share in profile["categories"].items())
            + ". (With 4 threads a worker, py-spy's split between the template and URL "
            "reversing moves from run to run; the fragment variants above are the controlled "
            "measure.) Most samples of their own: "
            + "; ".join(f"`{n}` {s:.0%}" for n, s in profile["self_top"][:6])
            + "."
        )
        add("")
    if a.waits:
        add(
            "PostgreSQL during a. (average connections of the stack, from pg_stat_activity "
            "every 50 ms): " + _waits_text(a.waits) + "."
        )
        add("")

    add("### c. Result submissions")
    add("")
    if submit_profile and "error" not in submit_profile:
        add(
            f"One submission in one process (test client, rolled back): the PUT takes "
            f"{ms(submit_profile['put_ms'])} with {submit_profile['put_queries']} SQL queries "
            f"({ms(submit_profile['put_sql_ms'])}), the confirmation "
            f"{ms(submit_profile['confirm_ms'])} with {submit_profile['confirm_queries']} "
            f"({ms(submit_profile['confirm_sql_ms'])})."
        )
        add("")
    bput, bconf = c.extra["baseline_put"], c.extra["baseline_confirm"]
    lo, hi = c.extra["results"] // args.officials, -(-c.extra["results"] // args.officials)
    add(
        f"Over HTTP, one official alone ({bput.count} results, one after another): PUT p50 "
        f"{ms(bput.p50)}, confirm p50 {ms(bconf.p50)}. Then {args.officials} officials start at "
        f"the same instant with {lo}-{hi} table-rounds each, each sending its next request as "
        "soon as the previous answer is in (no think time: everyone reporting at the end of a "
        f"round): {c.extra['results']} results in {c.extra['elapsed']:.1f} s "
        f"({c.extra['results_per_s']:.0f} results/s). Server time per request (access log) p50 "
        f"{ms(c.log.get('server_p50_ms'))}, p99 {ms(c.log.get('server_p99_ms'))}; the rest of "
        f"the latency is the wait for one of the {4 * web_workers} gunicorn threads. "
        f"{args.officials} requests in flight on {4 * web_workers} threads and 2 cores queue; "
        "every confirmation also queues a standings "
        "rebuild for the Celery workers, which share the cores."
    )
    add("")
    if c.waits:
        add(
            "PostgreSQL during c. (average connections of the stack, pg_stat_activity every "
            "50 ms): " + _waits_text(c.waits) + "."
        )
        add("")
    if sc.errors:
        add("Errors: " + ", ".join(f"{k}: {v}" for k, v in sc.errors.items()) + ".")
        add("")

    add(
        f"c2. is the same officials as they report in a hall: {args.officials} of them, each "
        f"pausing {args.think_min:g} to {args.think_max:g} s (uniformly at random) before each of "
        f"its {args.think_results} results, then sending the PUT and, at once, the confirm: "
        f"{c2.extra['results']} results in {c2.extra['elapsed']:.1f} s "
        f"({c2.extra['results_per_s']:.1f} results/s; a real table reports a round every 10 to "
        "20 minutes, so this is still hundreds of times a hall's rate). Server time per request "
        f"(access log) p50 {ms(c2.log.get('server_p50_ms'))}, p99 "
        f"{ms(c2.log.get('server_p99_ms'))}. c. keeps every official's request in flight at "
        "once: a burst that 2 cores can only queue."
    )
    add("")

    add("### d. Confirmation to the public page")
    add("")
    add(
        "One at a time, the server otherwise idle: PUT a result, confirm it, then GET "
        "`/t/<slug>/` with the page's ETag every 50 ms until a 200 counts one more result. "
        f"From the confirmation's answer: p50 {d.extra['p50_s']:.2f} s, p95 "
        f"{d.extra['p95_s']:.2f} s, min {d.extra['min_s']:.2f} s, max {d.extra['max_s']:.2f} s "
        f"(from the confirmation's request: p50 {d.extra['from_send_p50_s']:.2f} s, p95 "
        f"{d.extra['from_send_p95_s']:.2f} s). On the way: the confirmation's commit sends a "
        "rebuild task with a 0.2 s countdown, a Celery worker rebuilds the snapshot "
        "(500 rows) and drops its Redis copy, and the next poll renders the page again."
    )
    if d.extra["failures"]:
        add("")
        add("Not shown within the timeout: " + "; ".join(d.extra["failures"]) + ".")
    add("")

    add("### e. Memory at the end of the run")
    add("")
    add("| process | RSS | PSS |")
    add("|---|---|---|")
    for m in mem:
        add(f"| {m.role} (pid {m.pid}) | {m.rss_mb:,.0f} MB | {m.pss_mb:,.0f} MB |")
    add(f"| total | {total_rss:,.0f} MB | {total_pss:,.0f} MB |")
    add("")
    add(
        "RSS counts the pages that the preloaded gunicorn master shares with its forked workers "
        "(and a Celery worker with its pool process) once in every process; PSS divides them "
        "among the processes that share them, so it adds up."
    )
    add("")

    add("### Setup through the API")
    add("")
    add(
        "; ".join(f"{name}: {seconds:.1f} s" for name, seconds in event.setup_seconds.items()) + "."
    )
    add("")
    verdicts = [
        f"a {'met' if a_ok else 'missed'}",
        f"b page ceiling {sbp.rate:.1f}/s vs health {sbh.rate:.0f}/s",
        f"c {'met' if c_ok else 'missed'}",
        f"c2 {'met' if c2_ok else 'missed'}",
        f"d {'met' if d_ok else 'missed'}",
    ]
    return "\n".join(lines), verdicts


def _waits_text(waits: dict[str, float]) -> str:
    return "; ".join(f"{name} {value:.2f}" for name, value in waits.items())


def write_docs(section: str) -> None:
    text = DOCS.read_text()
    match = re.search(r"^## Load\n.*?(?=^## |\Z)", text, flags=re.S | re.M)
    if match:
        text = (
            text[: match.start()]
            + section.rstrip()
            + "\n"
            + ("\n" + text[match.end() :] if text[match.end() :].strip() else "")
        )
    else:
        text = text.rstrip() + "\n\n" + section.rstrip() + "\n"
    DOCS.write_text(text)


# ---- main --------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--use-running", action="store_true", help="measure a stack already running (left running)"
    )
    p.add_argument(
        "--keep-running", action="store_true", help="leave the stack started here running"
    )
    p.add_argument("--port", type=int, default=8170)
    p.add_argument(
        "--stack-dir", default=str(Path(tempfile.gettempdir()) / "roundhouse-stack-bench")
    )
    p.add_argument("--stack-db", default="roundhouse_stack_bench")
    p.add_argument("--pg-url", default="postgres://postgres@127.0.0.1:5432")
    p.add_argument("--stack-queue", default="roundhouse-stack-bench")
    p.add_argument("--broker-db", type=int, default=10)
    p.add_argument("--cache-db", type=int, default=11)
    p.add_argument("--rate", type=float, default=200.0, help="requests/s of a. (200)")
    p.add_argument("--rate-seconds", type=float, default=30.0)
    p.add_argument("--poll-seconds", type=float, default=15.0, help="a2, the 304 polls (0: skip)")
    p.add_argument("--ceiling-seconds", type=float, default=20.0)
    p.add_argument("--concurrency", type=int, default=16, help="connections of b. (16)")
    p.add_argument("--officials", type=int, default=50)
    p.add_argument("--burst-results", type=int, default=210, help="results of c. (210)")
    p.add_argument("--think-results", type=int, default=3, help="results per official in c2.")
    p.add_argument("--think-min", type=float, default=1.0, help="c2.'s shortest pause, s (1)")
    p.add_argument("--think-max", type=float, default=5.0, help="c2.'s longest pause, s (5)")
    p.add_argument("--visibility-samples", type=int, default=30)
    p.add_argument("--visibility-timeout", type=float, default=15.0)
    p.add_argument(
        "--timeout", type=float, default=10.0, help="seconds before a request is an error"
    )
    p.add_argument(
        "--open-loop-conns",
        type=int,
        default=64,
        help="a.: at most this many requests in flight (a proxy's limit); the rest wait in the "
        "client, and their wait counts",
    )
    p.add_argument("--standalone-runs", type=int, default=20)
    p.add_argument("--profile-seconds", type=float, default=10.0)
    p.add_argument("--py-spy", default=shutil.which("py-spy"), help="py-spy to profile with (PATH)")
    p.add_argument(
        "--wait-quiet",
        type=float,
        default=180.0,
        help="wait up to this many seconds for other processes to go quiet before measuring",
    )
    p.add_argument(
        "--wait-quiet-phase",
        type=float,
        default=90.0,
        help="the same before each later phase",
    )
    p.add_argument("--no-docs", action="store_true", help="do not rewrite docs/PERFORMANCE.md")
    p.add_argument("--json", help="also write every figure to this JSON file")
    args = p.parse_args(argv)
    if args.officials < 1 or args.visibility_samples < 1:
        p.error("--officials and --visibility-samples must be at least 1")
    return args


async def run(args: argparse.Namespace, command: str) -> int:
    host = "127.0.0.1"
    run_id = time.strftime("%m%d%H%M%S")
    weblog = WebLog(Path(args.stack_dir) / "web.log")
    client = HttpClient(host, args.port, max_conns=16, timeout=args.timeout)
    print(f"building the {PLAYERS}-player event through the API ...", flush=True)
    event = await build_event(client, args, run_id)
    for name, seconds in event.setup_seconds.items():
        print(f"  {name}: {seconds:.1f} s")
    path = f"/t/{event.slug}/"
    measure = Measure(args, weblog)
    phases: dict[str, Phase] = {}
    vacuumed = [vacuum(args)]
    quiet = await wait_for_quiet(measure, args.wait_quiet)
    quiet["between_phases"] = []
    quiet["vacuum"] = vacuumed

    async def between() -> None:
        """Let the server drain, vacuum, then wait (bounded) for other processes to go quiet."""
        await settle(client)
        vacuumed.append(vacuum(args))
        quiet["between_phases"].append(await wait_for_quiet(measure, args.wait_quiet_phase))

    first = await client.request("GET", path)
    if first.status != 200 or not COUNTED_RE.search(first.body.decode()):
        raise BenchError(f"GET {path}: {first.status}, no results count in the page")
    etag = first.headers.get("etag")
    standalone = await page_standalone(client, path, args.standalone_runs)
    print(f"page: {len(first.body) / 1024:.0f} KB, alone {ms(standalone['p50_ms'])} (p50)")

    print(f"a. {path} at {args.rate:.0f}/s for {args.rate_seconds:.0f} s ...", flush=True)
    phases["a"] = await measure_page_rate(measure, host, args, path, None)
    phases["a"].extra["bytes"] = len(first.body)
    print_phase(phases["a"])
    phases["a"].extra["recovery_s"] = recovery = await settle(client)
    print(f"  the server answered /health/live/ quickly again after {recovery:.0f} s")
    await between()
    if args.poll_seconds > 0 and etag:
        print(f"a2. the same with If-None-Match for {args.poll_seconds:.0f} s ...", flush=True)
        phases["a2"] = await measure_page_rate(measure, host, args, path, etag)
        print_phase(phases["a2"])
        await between()

    print(f"b. ceilings, {args.concurrency} connections, {args.ceiling_seconds:.0f} s each ...")
    phases["b_page"] = await measure_ceiling(
        measure, host, args, path, "b. ceiling: standings page"
    )
    print_phase(phases["b_page"])
    await between()
    phases["b_health"] = await measure_ceiling(
        measure, host, args, "/health/live/", "b. ceiling: /health/live/"
    )
    print_phase(phases["b_health"])
    await between()

    profile: dict[str, Any] = {}
    if args.py_spy:
        print(f"profiling the page with py-spy for {args.profile_seconds:.0f} s ...", flush=True)
        web = role_pids(args).get("web")
        workers = [p for p in procstats.process_tree(web) if p != web] if web else []
        procs = profile_with_py_spy(args.py_spy, workers, args.profile_seconds)
        prof_client = HttpClient(host, args.port, max_conns=args.concurrency)
        await loadgen.closed_loop(
            prof_client, path, concurrency=args.concurrency, seconds=args.profile_seconds + 1
        )
        await prof_client.close()
        for proc in procs:
            try:
                _, err = proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                err = "timed out"
            if proc.returncode:
                print(f"  py-spy: {err.strip()[-300:]}")
        profile = read_py_spy(workers)
        for name, share in profile.get("categories", {}).items():
            print(f"  {share:5.0%} {name}")
        await between()
    else:
        print("py-spy not found (--py-spy PATH): no sampling profile")

    tables = [(tid, *event.tables[tid]) for tid in event.table_ids()]
    free = [
        (tid, number, seats, r)
        for r in range(len(SETUP_ROUNDS) + 1, ROUNDS + 1)
        for tid, number, seats in tables
    ]
    need_c2 = args.officials * args.think_results
    need = args.visibility_samples + 10 + need_c2
    if len(free) < need + args.officials:
        raise BenchError("not enough table-rounds left for c., c2. and d.")
    jobs_c = free[: len(free) - need][: args.burst_results]
    rest = free[len(jobs_c) :]
    jobs_c2, base_c, jobs_d = (
        rest[:need_c2],
        rest[need_c2 : need_c2 + 10],
        rest[need_c2 + 10 : need_c2 + 10 + args.visibility_samples],
    )
    tid, number, seats, round_no = jobs_c[0]
    submit_profile = in_process(
        args,
        "submit",
        BENCH_SUBMIT=json.dumps(
            {
                "token": event.official_tokens[0],
                "table": tid,
                "round": round_no,
                "body": round_body(seats, number, round_no, random.Random(SEED)),
            }
        ),
    )
    if "error" in submit_profile:
        print(f"  submission profile failed: {submit_profile['error'][-500:]}")
    else:
        print(
            f"one submission in-process: PUT {ms(submit_profile['put_ms'])} "
            f"({submit_profile['put_queries']} queries), confirm "
            f"{ms(submit_profile['confirm_ms'])} ({submit_profile['confirm_queries']} queries)"
        )
    print(f"c. {args.officials} officials, {len(jobs_c)} results ...", flush=True)
    phases["c"] = await measure_submissions(measure, host, args, event, jobs_c, base_c)
    print_phase(phases["c"])
    await wait_for_counted(
        client, event, len(SETUP_ROUNDS) * len(tables) + len(jobs_c) + len(base_c), 60
    )
    await between()

    think = (args.think_min, args.think_max)
    print(f"c2. {args.officials} officials, {think} s between results ...", flush=True)
    phases["c2"] = await measure_submissions(measure, host, args, event, jobs_c2, [], think)
    print_phase(phases["c2"])
    await wait_for_counted(
        client,
        event,
        len(SETUP_ROUNDS) * len(tables) + len(jobs_c) + len(base_c) + len(jobs_c2),
        60,
    )
    await between()

    print(f"d. confirmation to public page, {len(jobs_d)} times ...", flush=True)
    phases["d"] = await measure_visibility(measure, host, args, event, jobs_d)
    dx = phases["d"].extra
    print(
        f"  p50 {dx['p50_s']:.2f} s, p95 {dx['p95_s']:.2f} s, max {dx['max_s']:.2f} s, "
        f"{len(dx['failures'])} not shown"
    )
    await client.close()

    print("where the page's time goes (in-process) ...", flush=True)
    breakdown = in_process(args, "page", BENCH_SLUG=event.slug)
    if "error" in breakdown:
        print(f"  failed: {breakdown['error'][-500:]}")
    else:
        print(
            f"  view {ms(breakdown['view_ms'])}, {breakdown['queries']} queries "
            f"{ms(breakdown['sql_ms'])}: "
            + ", ".join(f"{k} {ms(v)}" for k, v in breakdown["parts_ms"].items())
        )

    mem = memory(args)
    info = machine()
    section, verdicts = report(
        args,
        event,
        info,
        phases,
        mem,
        standalone,
        profile,
        breakdown,
        submit_profile,
        quiet,
        command,
    )
    print()
    print(section)
    if not args.no_docs:
        write_docs(section)
        print(f"\nwrote the ## Load section of {DOCS.relative_to(ROOT)}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "event": {
                        "slug": event.slug,
                        "stage": event.stage_id,
                        "setup_seconds": event.setup_seconds,
                    },
                    "standalone": standalone,
                    "phases": {k: _jsonable(v) for k, v in phases.items()},
                    "memory": [m.__dict__ for m in mem],
                    "profile": profile,
                    "breakdown": breakdown,
                    "submit_profile": submit_profile,
                    "quiet": quiet,
                    "machine": info,
                },
                indent=2,
                default=_jsonable,
            )
        )
    print("targets: " + ", ".join(verdicts))
    return 0


def _jsonable(value: Any) -> Any:
    if hasattr(value, "__dict__"):
        return {k: _jsonable(v) for k, v in value.__dict__.items()}
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def print_phase(phase: Phase) -> None:
    s = phase.summary
    print(
        f"  {phase.name}: {s.count:,} requests, {s.error_count:,} errors, p50 {ms(s.p50)}, "
        f"p95 {ms(s.p95)}, p99 {ms(s.p99)}, {s.rate:,.1f}/s answered; "
        f"client {phase.client_cpu:.2f} cores; {cores_line(phase)}"
    )
    if s.errors:
        print("    errors: " + ", ".join(f"{k}: {v}" for k, v in s.errors.items()))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = ".venv/bin/python bench/bench_load.py" + (
        " " + " ".join(argv if argv is not None else sys.argv[1:]) if (argv or sys.argv[1:]) else ""
    )
    if not PYTHON.exists():
        sys.exit(f"bench_load: no {PYTHON}: run 'make install' first")
    status = stack(args, "status", capture_output=True)
    started = False
    if args.use_running:
        if status.returncode:
            sys.exit(f"bench_load: --use-running, but the stack is not up:\n{status.stdout}")
    else:
        if status.returncode != 3:
            sys.exit(
                "bench_load: a stack is already running (or partly) in "
                f"{args.stack_dir}:\n{status.stdout}\nuse --use-running, or stop it with "
                f"STACK_DIR={args.stack_dir} bash deploy/stack.sh stop"
            )
        print(f"starting the stack on port {args.port} ({args.stack_dir}) ...", flush=True)
        started = True

    def terminate(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    try:
        if started:
            done = stack(args, "start", capture_output=True)
            if done.returncode:
                print(done.stdout[-2000:], done.stderr[-4000:], sep="\n", file=sys.stderr)
                return 1
        return asyncio.run(run(args, command))
    except BenchError as error:
        print(f"bench_load: {error}", file=sys.stderr)
        return 1
    finally:
        if started and not args.keep_running:
            print("stopping the stack ...", flush=True)
            stack(args, "stop", capture_output=True)


if __name__ == "__main__":
    sys.exit(main())
