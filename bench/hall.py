"""The hall benchmark (issue #25): thousands of phones, 60 officials and the projector, through
nginx on the production topology (deploy/stack.sh), at 500, 2,000 and 5,000 phones in one run.

One command, from the project root (about 6 minutes; starts its own stack, stops it at the end):

    .venv/bin/python bench/hall.py [--sizes 500,2000,5000] [--json /tmp/hall.json]

It starts a stack of its own (bench/load_stack.py: port 8510, nginx on 8590, database
roundhouse_c_stack, Redis databases 9 and 10, state in /tmp/roundhouse-hall), builds
bench/load_event.py's 500-player event through the API (125 tables of 4, rounds 1 and 2
confirmed) with 60 officials, finds the public pages' prefix (`/t/<slug>/` may redirect to
`/en/t/<slug>/`), then for each size in turn, with everything going through nginx:

- phones: N simulated phones, each with a keep-alive connection of its own and one page open, in
  hall_parts.PAGE_MIX's shares: the standings (polled every 5 s), a table's sheet (10 s), a
  player's page (15 s). A phone loads its page in full at a random moment of the warm-up, then
  polls it as HTMX does (`HX-Request: true`, `If-None-Match` of the last ETag it got). Each
  phone is open loop: a poll is due every period whatever happened to the last, and its latency
  counts from when it was due (a slow answer delays the phone's next poll, and that counts).
- officials: 60 clients, each entering results at tables of its own (a PUT with an
  Idempotency-Key, then the confirm with If-Match, as bench_load does), pausing 20-40 s
  (random, fixed seed) before each; they work throughout the three sizes.
- the projector: one client polling `/screen/` every 8 s, following its `?page=` as the page does.

For each size it measures, over the `--seconds` after a `--warmup`: the phones' p50/p95/p99
(from the due time), the public-page requests that reached gunicorn per second (its access log)
and nginx's cache statuses for them (its access log), confirmation-to-phone (from a confirm's
answer to the first phone answer whose standings count it), the officials' p50/p95/p99, the
projector's, the CPU each group of processes used (procstats.py) and the load average.

Phones in "push" mode (`--mode push`) hold a server-sent-events connection to `/live/<slug>/`
(nginx nchan) and fetch their page with `?v=<version>` on each announcement instead of polling
fast; the run checks that `/live/<slug>/` answers before it starts.

Why this load generator and not wrk (Debian's wrk 4.1 with a Lua script): see the "Hall" section
of docs/PERFORMANCE.md; `--compare-wrk` measures both holding the same phones.
"""

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from typing import Any

import hall_parts
import procstats
from hall_parts import COUNTED_RE, SCREEN_PERIOD, Visit, pcts
from load_event import PLAYERS, ROUNDS, SEED, SETUP_ROUNDS, build_event, submit_and_confirm
from load_phases import Measure, vacuum
from load_stack import PYTHON, ROOT, BenchError, WebLog, machine, stack
from loadgen import HttpClient, Sample, timed

HOST = "127.0.0.1"
TAIL = 5.0
SAFETY = 60.0
# What a phone's browser says it takes: the public pages come gzip-compressed (once, at the
# origin; nginx keeps the compressed copy), a tenth of their size.
BROWSER_ENCODING = {"Accept-Encoding": "gzip, deflate, br, zstd"}


def body_of(response, limit: int = 40000) -> bytes:
    """The first `limit` bytes of the page as the browser reads it (decompressed when it came
    compressed): all that is read of it here, and decompressing only that much keeps this
    process's CPU for the phones."""
    if response.headers.get("content-encoding") == "gzip":
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(response.body, limit)
    return response.body[:limit]


LIVE_VERSION_RE = re.compile(r'data-live-version="([^"]*)"')
LIVE_TABLE_RE = re.compile(r'data-live-table="([^"]*)"')
GROUPS = [
    "nginx",
    "gunicorn (web)",
    "celery workers",
    "celery beat",
    "postgres (the stack's connections)",
    "redis",
    "load generator (this script)",
    "other",
    "machine",
]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--sizes", default="500,2000,5000", help="phones of each run (500,2000,5000)")
    p.add_argument("--warmup", type=float, default=12.0, help="seconds before each measurement")
    p.add_argument("--seconds", type=float, default=60.0, help="seconds each size is measured")
    p.add_argument("--mode", choices=("poll", "push"), default="poll")
    p.add_argument("--officials", type=int, default=60)
    p.add_argument("--think-min", type=float, default=20.0)
    p.add_argument("--think-max", type=float, default=40.0)
    p.add_argument("--timeout", type=float, default=10.0, help="seconds before a phone gives up")
    p.add_argument("--use-running", action="store_true", help="measure a running stack (kept)")
    p.add_argument("--keep-running", action="store_true", help="leave the stack started here")
    p.add_argument("--port", type=int, default=8510, help="gunicorn's; nginx's is this + 80")
    p.add_argument("--stack-dir", default=str(Path(tempfile.gettempdir()) / "roundhouse-hall"))
    p.add_argument("--stack-db", default="roundhouse_c_stack")
    p.add_argument("--pg-url", default="postgres://postgres@127.0.0.1:5432")
    p.add_argument("--stack-queue", default="roundhouse-hall")
    p.add_argument("--broker-db", type=int, default=9)
    p.add_argument("--cache-db", type=int, default=10)
    p.add_argument("--json", help="write every figure to this JSON file")
    p.add_argument(
        "--compare-wrk",
        type=int,
        default=0,
        metavar="PHONES",
        help="instead of the hall: hold this many polling phones with wrk (bench/hall.lua) and "
        "then with this script, 30 s each, and compare the generators' CPU",
    )
    args = p.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    args.nginx_port = args.port + 80
    return args


# ---- phones ----------------------------------------------------------------------------------


@dataclass
class PhoneAnswer:
    kind: str
    sample: Sample
    cache: str  # nginx's X-Cache-Status
    counted: int | None  # the standings' results counted, when the answer had a body


@dataclass
class Crowd:
    """What the phones of one size got."""

    answers: list[PhoneAnswer] = field(default_factory=list)
    sightings: list[tuple[float, int]] = field(default_factory=list)  # (perf time, counted)
    opened: int = 0
    push_events: int = 0


def counted_in(body: bytes) -> int | None:
    match = COUNTED_RE.search(body[:20000].decode(errors="replace"))
    return int(match.group(1)) if match else None


async def phone_poll(visit: Visit, load_at: float, end: float, crowd: Crowd, timeout: float):
    """One phone polling its page: the page in full at load_at, then an HTMX poll every period."""
    client = HttpClient(HOST, ARGS.nginx_port, max_conns=1, timeout=timeout)
    etag = ""
    try:
        for n, due in enumerate(hall_parts.poll_times(visit.period, load_at, 0.0, end)):
            await _sleep_until(due)
            headers = {"Accept-Language": "en", "Accept": "text/html", **BROWSER_ENCODING}
            if n:
                headers["HX-Request"] = "true"
                if etag:
                    headers["If-None-Match"] = etag
            etag = await _fetch(client, visit, visit.path, due, headers, crowd, timeout) or etag
    finally:
        crowd.opened += client.opened
        await client.close()


async def _fetch(
    client: HttpClient,
    visit: Visit,
    path: str,
    due: float,
    headers: dict[str, str],
    crowd: Crowd,
    timeout: float,
    live_version: bool = False,
    table_out: list[str] | None = None,
) -> str:
    """GET one of the phone's pages and record the answer; the answer's ETag when it had one
    (with live_version, the live version the page shows: its data-live-version; and into
    table_out, the table its part follows: its data-live-table, "" for the standings)."""
    sample, response = await timed(client, "GET", path, due=due, headers=headers, timeout=timeout)
    counted = None
    cache = etag = ""
    if response is not None:
        cache = response.headers.get("x-cache-status", "")
        if response.status == 200:
            etag = response.headers.get("etag", "")
            if live_version:
                head = body_of(response)[:40000].decode(errors="replace")
                shown = LIVE_VERSION_RE.search(head)
                etag = shown.group(1) if shown else ""
                if table_out is not None:
                    table = LIVE_TABLE_RE.search(head)
                    table_out.append(table.group(1) if table else "")
            if visit.kind == "standings":
                counted = counted_in(body_of(response, 20000))
                if counted is not None:
                    crowd.sightings.append((sample.done, counted))
        elif response.status != 304:
            sample.error = f"HTTP {response.status}"
    crowd.answers.append(PhoneAnswer(visit.kind, sample, cache, counted))
    return etag


async def phone_push(visit: Visit, load_at: float, end: float, crowd: Crowd, timeout: float):
    """One phone as live.js runs it: the page in full at load_at, one server-sent-events
    connection to /live/<slug>/, and for each announced version not already shown, the page's
    part at `?v=<version>`; while the channel is open the part's own poll runs at most every
    SAFETY seconds (live.js's SAFETY_MS)."""
    client = HttpClient(HOST, ARGS.nginx_port, max_conns=1, timeout=timeout)
    await _sleep_until(load_at)
    headers = {"Accept-Language": "en", "Accept": "text/html", **BROWSER_ENCODING}
    mine: list[str] = []
    version = await _fetch(client, visit, visit.path, load_at, headers, crowd, timeout, True, mine)
    table = mine[0] if mine else ""  # a sheet's or a player's page fetches for its table only
    headers["HX-Request"] = "true"
    last_fetch = time.perf_counter()
    writer = None
    try:
        reader, writer = await asyncio.open_connection(HOST, ARGS.nginx_port)
        writer.write(
            f"GET {ARGS.live_path} HTTP/1.1\r\nHost: {HOST}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        crowd.opened += 1
        while (now := time.perf_counter()) < end:
            wake = min(end, last_fetch + SAFETY)
            try:
                line = await asyncio.wait_for(reader.readline(), max(0.0, wake - now))
            except TimeoutError:
                if time.perf_counter() < end:  # the safety-net poll
                    last_fetch = time.perf_counter()
                    await _fetch(client, visit, visit.path, last_fetch, headers, crowd, timeout)
                continue
            if not line:
                raise ConnectionError("the event stream closed")
            text = line.decode(errors="replace").strip()
            words = text[5:].split() if text.startswith("data:") else []
            if not words or words[0] == version:
                continue
            version = words[0]  # then the changed tables' ids, as live.js reads them
            crowd.push_events += 1
            if table and len(words) > 1 and table not in words[1].split(","):
                continue
            last_fetch = time.perf_counter()
            sep = "&" if "?" in visit.path else "?"
            await _fetch(
                client, visit, f"{visit.path}{sep}v={version}", last_fetch, headers, crowd, timeout
            )
    except (OSError, asyncio.IncompleteReadError, TimeoutError) as error:
        now = time.perf_counter()
        crowd.answers.append(
            PhoneAnswer(visit.kind, Sample(now, now, now, 0, f"event stream: {error!r}"), "", None)
        )
    finally:
        if writer is not None:
            writer.close()
        crowd.opened += client.opened
        await client.close()


async def loop_lag(end: float, lags: list[float], every: float = 0.05) -> None:
    """How late this process's event loop wakes a 50 ms sleep (ms), until `end`: when the load
    generator itself is short of CPU, every phone's request goes out that much late."""
    while time.perf_counter() < end:
        before = time.perf_counter()
        await asyncio.sleep(every)
        lags.append((time.perf_counter() - before - every) * 1000)


async def _sleep_until(when: float) -> None:
    delay = when - time.perf_counter()
    if delay > 0:
        await asyncio.sleep(delay)


# ---- officials and projector -----------------------------------------------------------------


@dataclass
class Desk:
    """What the officials did: every PUT and confirm, and when each confirm was answered 200."""

    samples: list[Sample] = field(default_factory=list)
    acks: list[float] = field(default_factory=list)
    out_of_work: int = 0


def official_jobs(event, officials: int) -> list[list[tuple]]:
    """Each official's table-rounds: the tables whose index is theirs modulo `officials`, the
    rounds after the setup's, round by round."""
    tables = [(tid, *event.tables[tid]) for tid in event.table_ids()]
    jobs: list[list[tuple]] = [[] for _ in range(officials)]
    for round_no in range(len(SETUP_ROUNDS) + 1, ROUNDS + 1):
        for i, (tid, number, seats) in enumerate(tables):
            jobs[i % officials].append((tid, number, seats, round_no))
    return jobs


async def official(token: str, jobs: list[tuple], seed: int, stop: asyncio.Event, desk: Desk):
    rng = random.Random(seed)
    client = HttpClient(HOST, ARGS.nginx_port, max_conns=1, timeout=30)
    try:
        first = True
        for table_id, number, seats, round_no in jobs:
            pause = (
                rng.uniform(0, ARGS.think_max)
                if first
                else rng.uniform(ARGS.think_min, ARGS.think_max)
            )
            first = False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), pause)
            if stop.is_set():
                return
            put, confirm = await submit_and_confirm(
                client, token, table_id, number, seats, round_no, rng
            )
            desk.samples += [put, confirm]
            if confirm.status == 200 and not confirm.error:
                desk.acks.append(confirm.done)
        desk.out_of_work += 1
    finally:
        await client.close()


async def projector(path: str, stop: asyncio.Event, samples: list[Sample]) -> None:
    client = HttpClient(HOST, ARGS.nginx_port, max_conns=1, timeout=30)
    base = path.split("?")[0]
    due = time.perf_counter()
    etag = ""
    try:
        while not stop.is_set():
            headers = {"Accept-Language": "en", "HX-Request": "true", **BROWSER_ENCODING}
            if etag:
                headers["If-None-Match"] = etag
            sample, response = await timed(client, "GET", path, due=due, headers=headers)
            if response is not None and response.status == 200:
                etag = response.headers.get("etag", "")
                found = re.search(
                    r'hx-get="([^"]+)"', body_of(response)[:4000].decode(errors="replace")
                )
                if found:
                    path = unescape(found.group(1))
                    path = path if path.startswith("/") else base
            elif response is not None and response.status != 304:
                sample.error = f"HTTP {response.status}"
            samples.append(sample)
            due += SCREEN_PERIOD
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), max(0.0, due - time.perf_counter()))
    finally:
        await client.close()


# ---- one size --------------------------------------------------------------------------------


def log_offset(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def log_slice(path: Path, start: int, end: int) -> str:
    if not path.exists():
        return ""
    with path.open("rb") as f:
        f.seek(start)
        return f.read(max(0, end - start)).decode(errors="replace")


class Hall:
    def __init__(self, args: argparse.Namespace, event, prefix: str) -> None:
        self.args, self.event, self.prefix = args, event, prefix
        self.desk = Desk()
        self.screen: list[Sample] = []
        self.stop = asyncio.Event()
        self.counted_before = 0  # results counted before the officials began
        self.measure = Measure(args, WebLog(Path(args.stack_dir) / "web.log"))
        nginx_pid = Path(args.stack_dir) / "nginx.pid"
        self.nginx_pid = int(nginx_pid.read_text().strip()) if nginx_pid.exists() else -1
        self.nginx_log = Path(args.stack_dir) / "nginx-access.log"
        self.web_log = Path(args.stack_dir) / "web.log"

    def classify(self, pid: int, pgid: int, cmd: str) -> str | None:
        if pgid == self.nginx_pid or pid == self.nginx_pid:
            return "nginx"
        if os.path.basename(cmd.split(" ", 1)[0]) == "wrk":
            return "load generator (wrk)"
        return self.measure.classify(pid, pgid, cmd)

    def visits(self, count: int) -> list[Visit]:
        return hall_parts.phone_visits(
            count,
            prefix=self.prefix,
            slug=self.event.slug,
            stage_order=self.args.stage_order,
            table_numbers=sorted(n for n, _ in self.event.tables.values()),
            player_numbers=list(range(1, PLAYERS + 1)),
            seed=SEED + count,
        )

    async def size(self, count: int) -> dict[str, Any]:
        args = self.args
        crowd = Crowd()
        rng = random.Random(SEED + 7 * count)
        t0 = time.perf_counter() + 0.5
        measure_from = t0 + args.warmup
        end = measure_from + args.seconds
        phone = phone_push if args.mode == "push" else phone_poll
        # The phones go on TAIL seconds after the measurement, so that a result confirmed near
        # its end can still be seen; what they ask then is not counted.
        tasks = [
            asyncio.create_task(
                phone(visit, t0 + rng.uniform(0, args.warmup), end + TAIL, crowd, args.timeout)
            )
            for visit in self.visits(count)
        ]
        await _sleep_until(measure_from)
        load_start = os.getloadavg()
        offsets = (log_offset(self.nginx_log), log_offset(self.web_log))
        cpu0, wall0 = time.process_time(), time.perf_counter()
        desk_from, screen_from = len(self.desk.samples), len(self.screen)
        acks_before = len(self.desk.acks)
        sampler = procstats.CpuSampler(self.classify)
        lags: list[float] = []
        with sampler:
            lag = asyncio.create_task(loop_lag(end, lags))
            await _sleep_until(end)
            await lag
        wall = time.perf_counter() - wall0
        client_cores = (time.process_time() - cpu0) / wall
        nginx_text = log_slice(self.nginx_log, offsets[0], log_offset(self.nginx_log))
        web_text = log_slice(self.web_log, offsets[1], log_offset(self.web_log))
        load_end = os.getloadavg()
        _, pending = await asyncio.wait(tasks, timeout=TAIL + args.timeout + 5)
        for task in pending:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

        measured = [a for a in crowd.answers if measure_from <= a.sample.due < end]
        samples = [a.sample for a in measured]
        latencies = [s.latency * 1000 for s in samples]
        errors: dict[str, int] = {}
        for s in samples:
            if s.error or not s.status:
                errors[s.error or "no answer"] = errors.get(s.error or "no answer", 0) + 1
        by_kind = {
            kind: pcts([a.sample.latency * 1000 for a in measured if a.kind == kind])
            for kind in ("standings", "sheet", "player")
        }
        # Answered by nginx alone (HIT, or a 304 of a cached entry) or by way of gunicorn: which
        # one the slow answers are.
        by_cache = {
            "nginx alone (HIT)": pcts(
                [a.sample.latency * 1000 for a in measured if a.cache == "HIT"]
            ),
            "through gunicorn": pcts(
                [a.sample.latency * 1000 for a in measured if a.cache and a.cache != "HIT"]
            ),
        }
        statuses: dict[str, int] = {}
        for a in measured:
            key = f"{a.sample.status} {a.cache or '-'}"
            statuses[key] = statuses.get(key, 0) + 1
        acks = self.desk.acks[acks_before:]
        acks = [a for a in acks if measure_from <= a < end]
        counted_before = self.counted_before + sum(
            1 for a in self.desk.acks if a < (min(acks) if acks else end)
        )
        delays, missed = hall_parts.confirmation_to_phone(acks, crowd.sightings, counted_before)
        desk = [s for s in self.desk.samples[desk_from:] if measure_from <= s.due < end]
        screen = [s for s in self.screen[screen_from:] if measure_from <= s.due < end]
        cores = sampler.cores()
        origin = sum(hall_parts.gunicorn_public_by_page(web_text).values())
        result = {
            "phones": count,
            "mode": args.mode,
            "seconds": wall,
            "phone_requests": len(samples),
            "phone_errors": sum(errors.values()),
            "phone_error_kinds": errors,
            "phone_rate": (len(samples) - sum(errors.values())) / wall,
            "phone_ms": pcts(latencies),
            "phone_ms_by_page": by_kind,
            "phone_ms_by_cache": by_cache,
            "phone_service_ms": pcts([s.service * 1000 for s in samples]),
            "generator_loop_lag_ms": pcts(lags),
            "phone_statuses": statuses,
            "connections_opened": crowd.opened,
            "push_events": crowd.push_events,
            "origin_public_requests": origin,
            "origin_public_per_s": origin / wall,
            "origin_by_page_per_s": {
                k: v / wall for k, v in hall_parts.gunicorn_public_by_page(web_text).items()
            },
            "nginx": hall_parts.nginx_digest(nginx_text),
            "visible_s": pcts(delays),
            "visible_n": len(delays),
            "visible_missed": missed,
            "official_ms": pcts([s.latency * 1000 for s in desk]),
            "official_requests": len(desk),
            "official_errors": sum(1 for s in desk if s.error or s.status not in (200, 201)),
            "screen_ms": pcts([s.latency * 1000 for s in screen]),
            "screen_requests": len(screen),
            "cores": cores,
            "client_cores_process_time": client_cores,
            "loadavg_start": load_start,
            "loadavg_end": load_end,
        }
        return result


async def counted_now(client: HttpClient, stage_id: int) -> int:
    response = await client.request("GET", f"/api/v1/stages/{stage_id}/standings/")
    return json.loads(response.body)["results_counted"]


async def find_prefix(client: HttpClient, slug: str) -> str:
    """ "/en" when `/t/<slug>/` redirects to `/en/t/<slug>/` (the i18n addresses), else ""."""
    response = await client.request("GET", f"/t/{slug}/", headers={"Accept-Language": "en"})
    if response.status in (301, 302, 307, 308):
        return hall_parts.prefix_from_location(response.headers.get("location", ""), slug)
    if response.status != 200:
        raise BenchError(f"GET /t/{slug}/: {response.status}")
    return ""


async def live_answers(client: HttpClient, path: str) -> bool:
    """Whether `path` answers as an event stream (nchan), within 2 s."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, ARGS.nginx_port), 2)
    except (OSError, TimeoutError):
        return False
    try:
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 2)
        text = head.decode(errors="replace").lower()
        return text.startswith("http/1.1 200") and "text/event-stream" in text
    except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        return False
    finally:
        writer.close()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    run_id = "hall-" + time.strftime("%m%d%H%M%S")
    origin = HttpClient(HOST, args.port, max_conns=16, timeout=120)
    proxied = HttpClient(HOST, args.nginx_port, max_conns=4, timeout=30)
    print(f"building the {PLAYERS}-player event with {args.officials} officials ...", flush=True)
    event = await build_event(origin, args, run_id)
    for name, took in event.setup_seconds.items():
        print(f"  {name}: {took:.1f} s")
    prefix = await find_prefix(proxied, event.slug)
    args.stage_order = 1
    first_table = min(n for n, _ in event.tables.values())
    sheet = await proxied.request(
        "GET", f"{prefix}/t/{event.slug}/tables/{args.stage_order}/{first_table}/"
    )
    if sheet.status != 200:
        raise BenchError(f"a table sheet answered {sheet.status}")
    args.live_path = f"/live/{event.slug}/"
    push_ready = await live_answers(proxied, args.live_path)
    print(
        f"public pages at {prefix or ''}/t/{event.slug}/; {args.live_path} "
        + (
            "answers (push mode measurable)"
            if push_ready
            else "does not answer (push not measurable)"
        ),
        flush=True,
    )
    if args.mode == "push" and not push_ready:
        raise BenchError(f"--mode push, but {args.live_path} does not answer on the stack")
    vacuum(args)
    hall = Hall(args, event, prefix)
    hall.counted_before = await counted_now(origin, event.stage_id)
    jobs = official_jobs(event, args.officials)
    officials = [
        asyncio.create_task(official(token, mine, SEED + 100 + i, hall.stop, hall.desk))
        for i, (token, mine) in enumerate(zip(event.official_tokens, jobs, strict=False))
    ]
    screen = asyncio.create_task(
        projector(f"{prefix}/t/{event.slug}/screen/", hall.stop, hall.screen)
    )
    runs = []
    try:
        for count in args.sizes:
            print(
                f"{count:,} phones: {args.warmup:.0f} s warm-up, {args.seconds:.0f} s ...",
                flush=True,
            )
            result = await hall.size(count)
            runs.append(result)
            print_size(result)
    finally:
        hall.stop.set()
        await asyncio.gather(*officials, screen, return_exceptions=True)
        await origin.close()
        await proxied.close()
    return {
        "event": {
            "slug": event.slug,
            "stage": event.stage_id,
            "prefix": prefix,
            "players": PLAYERS,
            "tables": len(event.tables),
        },
        "push_measurable": push_ready,
        "officials_out_of_work": hall.desk.out_of_work,
        "runs": runs,
    }


WRK_LATENCY = re.compile(r"^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s)\s*$", re.M)


def wrk_figures(text: str) -> dict[str, Any]:
    """Requests/s, latency percentiles (ms) and errors from `wrk --latency`'s output."""
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    out: dict[str, Any] = {f"p{q}": float(v) * scale[u] for q, v, u in WRK_LATENCY.findall(text)}
    rate = re.search(r"Requests/sec:\s+([\d.]+)", text)
    total = re.search(r"(\d+) requests in", text)
    errors = re.search(r"Socket errors: (.*)", text)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    out.update(
        rate=float(rate.group(1)) if rate else math.nan,
        requests=int(total.group(1)) if total else 0,
        socket_errors=errors.group(1).strip() if errors else "",
        non_2xx_3xx=int(non2xx.group(1)) if non2xx else 0,
    )
    return out


async def compare_wrk(args: argparse.Namespace) -> dict[str, Any]:
    """The same number of polling phones held by wrk (bench/hall.lua) and by this script, 30 s
    each, on the hall's event without officials: the cores each generator used, per 1,000
    requests a second, and what each measured."""
    wrk = shutil.which("wrk")
    if wrk is None:
        raise BenchError("wrk is not installed (apt-get install -y -qq wrk)")
    args.officials = 1
    origin = HttpClient(HOST, args.port, max_conns=16, timeout=120)
    proxied = HttpClient(HOST, args.nginx_port, max_conns=4, timeout=30)
    print("building the event ...", flush=True)
    event = await build_event(origin, args, "hallwrk-" + time.strftime("%m%d%H%M%S"))
    prefix = await find_prefix(proxied, event.slug)
    args.stage_order = 1
    await origin.close()
    await proxied.close()
    hall = Hall(args, event, prefix)
    phones, seconds = args.compare_wrk, 30.0
    out: dict[str, Any] = {"phones": phones, "seconds": seconds}
    print(f"wrk: {phones:,} connections, {seconds:.0f} s ...", flush=True)
    sampler = procstats.CpuSampler(hall.classify)
    command = [
        wrk,
        "-t2",
        f"-c{phones}",
        f"-d{seconds:.0f}s",
        "--timeout",
        "10s",
        "--latency",
        "-s",
        str(ROOT / "bench" / "hall.lua"),
        f"http://{HOST}:{args.nginx_port}",
        "--",
        prefix,
        event.slug,
        str(args.stage_order),
        str(len(event.tables)),
        str(PLAYERS),
    ]
    with sampler:
        proc = await asyncio.create_subprocess_exec(
            *command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        text = (await proc.communicate())[0].decode(errors="replace")
    out["wrk"] = {**wrk_figures(text), "cores": sampler.cores(), "output": text}
    print(text)
    print("  cores: " + ", ".join(f"{k} {v:.2f}" for k, v in out["wrk"]["cores"].items()))
    await asyncio.sleep(5)
    args.warmup, args.seconds = 10.0, seconds
    print(f"this script: {phones:,} phones, {seconds:.0f} s ...", flush=True)
    out["loadgen"] = await hall.size(phones)
    print_size(out["loadgen"])
    return out


def print_size(r: dict[str, Any]) -> None:
    p = r["phone_ms"]
    print(
        f"  phones: {r['phone_requests']:,} requests ({r['phone_rate']:,.0f}/s), "
        f"{r['phone_errors']} errors, p50 {hall_parts.ms(p['p50'])} p95 {hall_parts.ms(p['p95'])} "
        f"p99 {hall_parts.ms(p['p99'])}; gunicorn {r['origin_public_per_s']:.1f} public/s; "
        f"HIT {r['nginx']['hit_ratio']:.1%}; confirmation to phone p50 "
        f"{hall_parts.seconds(r['visible_s']['p50'])} "
        f"p95 {hall_parts.seconds(r['visible_s']['p95'])}"
        f" ({r['visible_n']}); officials p99 {hall_parts.ms(r['official_ms']['p99'])}"
    )
    print("  cores: " + ", ".join(f"{k} {v:.2f}" for k, v in r["cores"].items()), flush=True)
    if r["phone_error_kinds"]:
        print("  errors: " + ", ".join(f"{k}: {v}" for k, v in r["phone_error_kinds"].items()))


ARGS: argparse.Namespace


def main(argv: list[str] | None = None) -> int:
    global ARGS
    args = ARGS = parse_args(argv)
    if not PYTHON.exists():
        sys.exit(f"hall: no {PYTHON}: run 'make install' first")
    status = stack(args, "status", capture_output=True)
    started = False
    if args.use_running:
        if status.returncode:
            sys.exit(f"hall: --use-running, but the stack is not up:\n{status.stdout}")
    elif status.returncode != 3:
        sys.exit(
            f"hall: a stack is already running in {args.stack_dir}:\n{status.stdout}\nuse "
            f"--use-running, or stop it with STACK_DIR={args.stack_dir} bash deploy/stack.sh stop"
        )
    else:
        started = True

    def terminate(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    try:
        if started:
            print(f"starting the stack (nginx on {args.nginx_port}) ...", flush=True)
            done = stack(args, "start", capture_output=True)
            if done.returncode:
                print(done.stdout[-2000:], done.stderr[-4000:], sep="\n", file=sys.stderr)
                return 1
        info = machine()
        out = asyncio.run(compare_wrk(args) if args.compare_wrk else run(args))
        out["machine"] = info
        out["command"] = ".venv/bin/python bench/hall.py " + " ".join(
            argv if argv is not None else sys.argv[1:]
        )
        out["when"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        if "runs" in out:
            table = hall_parts.markdown_table(out["runs"], GROUPS)
            out["table"] = table
            print()
            print(table)
        if args.json:
            Path(args.json).write_text(json.dumps(out, indent=2, default=_jsonable))
            print(f"\nwrote {args.json}")
        return 0
    except BenchError as error:
        print(f"hall: {error}", file=sys.stderr)
        return 1
    finally:
        if started and not args.keep_running:
            print("stopping the stack ...", flush=True)
            stack(args, "stop", capture_output=True)


def _jsonable(value: Any) -> Any:
    if hasattr(value, "__dict__"):
        return value.__dict__
    if isinstance(value, float) and math.isnan(value):
        return None
    return str(value)


if __name__ == "__main__":
    sys.exit(main())
