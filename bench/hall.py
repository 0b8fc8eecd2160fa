"""The hall benchmark (issue #25): thousands of phones, 60 officials and the projector, through
nginx on the production topology (deploy/stack.sh), at 500, 2,000 and 5,000 phones in one run.

One command, from the project root (about 6 minutes; starts its own stack, stops it at the end):

    .venv/bin/python bench/hall.py [--sizes 500,2000,5000] [--json /tmp/hall.json]

It starts a stack of its own (bench/load_stack.py: port 8510, nginx on 8590, database
roundhouse_c_stack, Redis databases 9 and 10, state in /tmp/roundhouse-hall), builds
bench/load_event.py's 500-player event through the API (125 tables of 4, rounds 1 and 2
confirmed) with 60 officials, finds the public pages' prefix (`/t/<slug>/` may redirect to
`/en/t/<slug>/`), then for each size in turn, with everything going through nginx:

- phones: N simulated phones (bench/hall_phones.py), each with a keep-alive connection of its
  own and one page open, in hall_parts.PAGE_MIX's shares: the standings (polled every 5 s), a
  table's sheet (10 s), a player's page (15 s). A phone loads its page in full at a random
  moment of the warm-up, then polls it as HTMX does (`HX-Request: true`, `If-None-Match` of the
  last ETag it got). Each phone is open loop: a poll is due every period whatever happened to
  the last, and its latency counts from when it was due. The phones are dealt to
  `--phone-processes` processes (2), each with an event loop of its own.
- officials (bench/hall_desk.py), in this script's own process with the projector, so that no
  phone's answer delays theirs: 60 clients, each entering results at tables of its own (a PUT
  with an Idempotency-Key, then the confirm with If-Match, as bench_load does), pausing 20-40 s
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
import json
import math
import multiprocessing
import os
import queue
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import hall_desk
import hall_parts
import hall_phones
import procstats
from hall_desk import Desk, DeskPlan, official_jobs
from hall_parts import Visit, pcts
from hall_phones import HOST, PhoneAnswer, Target, sleep_until
from load_event import PLAYERS, SEED, build_event
from load_phases import Measure, PgWaits, vacuum
from load_stack import ROOT, BenchError, WebLog, machine, own_stack
from loadgen import HttpClient, Sample

TAIL = 5.0


PHONES = "load generator: phones' processes"
DESK = "load generator: officials, projector"
GENERATOR = "load generator: this script"
GROUPS = [
    "nginx",
    "gunicorn (web)",
    "gunicorn (staff)",
    "celery workers",
    "celery beat",
    "postgres (the stack's connections)",
    "redis",
    PHONES,
    DESK,
    GENERATOR,
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
    p.add_argument(
        "--phone-processes",
        type=int,
        default=2,
        help="processes the phones are dealt to (one per core here), apart from this script's "
        "own, which times the officials and the projector",
    )
    p.add_argument(
        "--phones-nice",
        type=int,
        default=0,
        help="the phones' processes' niceness (0: the stack's own priority)",
    )
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
    def __init__(self, args: argparse.Namespace, event, prefix: str, pool) -> None:
        self.args, self.event, self.prefix = args, event, prefix
        self.desk = Desk()  # what the desk's process sent so far (drain())
        self.screen: list[Sample] = []
        self.desk_process: multiprocessing.Process | None = None
        self.desk_out: Any = None
        self.desk_stop: Any = None
        self.counted_before = 0  # results counted before the officials began
        self.measure = Measure(args, WebLog(Path(args.stack_dir) / "web.log"))
        nginx_pid = Path(args.stack_dir) / "nginx.pid"
        self.nginx_pid = int(nginx_pid.read_text().strip()) if nginx_pid.exists() else -1
        self.nginx_log = Path(args.stack_dir) / "nginx-access.log"
        self.web_log = Path(args.stack_dir) / "web.log"
        self.pool = pool
        self.phone_pids: set[int] = set()

    def start_desk(self, plan: DeskPlan) -> None:
        """The officials and the projector, in a process of their own (hall_desk.run_desk)."""
        spawn = multiprocessing.get_context("spawn")
        self.desk_out, self.desk_stop = spawn.Queue(), spawn.Event()
        self.desk_process = spawn.Process(
            target=hall_desk.run_desk, args=(plan, self.desk_out, self.desk_stop), daemon=True
        )
        self.desk_process.start()

    def drain(self, until_done: bool = False) -> None:
        """What the desk's process sent since the last call (with until_done, up to its end)."""
        while self.desk_out is not None:
            try:
                kind, value = self.desk_out.get(timeout=60 if until_done else 0)
            except queue.Empty:
                return
            if kind == "sample":
                self.desk.samples += value
            elif kind == "ack":
                self.desk.acks += value
            elif kind == "screen":
                self.screen += value
            else:  # "done"
                self.desk.out_of_work = value
                return

    def stop_desk(self) -> None:
        if self.desk_process is None:
            return
        self.desk_stop.set()
        self.drain(until_done=True)
        self.desk_process.join(timeout=30)

    def classify(self, pid: int, pgid: int, cmd: str) -> str | None:
        if pgid == self.nginx_pid or pid == self.nginx_pid:
            return "nginx"
        if os.path.basename(cmd.split(" ", 1)[0]) == "wrk":
            return "load generator (wrk)"
        if pid == os.getpid():
            return GENERATOR
        if pid in self.phone_pids:
            return PHONES
        if self.desk_process is not None and pid == self.desk_process.pid:
            return DESK
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
        rng = random.Random(SEED + 7 * count)
        t0 = time.perf_counter() + 1.0
        measure_from = t0 + args.warmup
        end = measure_from + args.seconds
        # Each phone loads its page at a random moment of the warm-up; the phones are dealt to
        # the phones' processes in turn. They go on TAIL seconds after the measurement, so that
        # a result confirmed near its end can still be seen; what they ask then is not counted.
        phones = [(visit, t0 + rng.uniform(0, args.warmup)) for visit in self.visits(count)]
        self.phone_pids = set(self.pool._processes)  # started by phone_pool() below
        target = Target(args.nginx_port, args.live_path)
        loop = asyncio.get_running_loop()
        groups = [
            loop.run_in_executor(
                self.pool,
                hall_phones.run_group,
                hall_phones.Group(
                    target,
                    args.mode,
                    phones[i :: args.phone_processes],
                    (measure_from, end),
                    end + TAIL,
                    args.timeout,
                ),
            )
            for i in range(args.phone_processes)
        ]
        await sleep_until(measure_from)
        load_start = os.getloadavg()
        offsets = (log_offset(self.nginx_log), log_offset(self.web_log))
        sampler = procstats.CpuSampler(self.classify)
        # What the stack's database connections wait on (a lock, the WAL's flush, ...).
        waits = PgWaits(f"{args.pg_url}/{args.stack_db}", args.stack_db, interval=0.1)
        with sampler, waits:
            await sleep_until(end)
        wall = args.seconds
        nginx_text = log_slice(self.nginx_log, offsets[0], log_offset(self.nginx_log))
        web_text = log_slice(self.web_log, offsets[1], log_offset(self.web_log))
        load_end = os.getloadavg()
        got = await asyncio.gather(*groups)
        self.drain()  # the officials' requests due by the end have been answered (TAIL later)
        crowd_answers: list[PhoneAnswer] = [a for g in got for a in g["answers"]]
        sightings = [s for g in got for s in g["sightings"]]
        phone_lags = [lag for g in got for lag in g["lags"]]

        measured = [a for a in crowd_answers if measure_from <= a.sample.due < end]
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
        acks = [a for a in self.desk.acks if measure_from <= a < end]
        counted_before = self.counted_before + sum(
            1 for a in self.desk.acks if a < (min(acks) if acks else end)
        )
        delays, missed = hall_parts.confirmation_to_phone(acks, sightings, counted_before)
        each = hall_parts.confirmation_to_each_phone(acks, sightings, counted_before)
        desk = [s for s in self.desk.samples if measure_from <= s.due < end]
        screen = [s for s in self.screen if measure_from <= s.due < end]
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
            "generator_loop_lag_ms": pcts(phone_lags),
            "phone_processes": args.phone_processes,
            "phone_process_cores": [g["cores"] for g in got],
            "phone_statuses": statuses,
            "connections_opened": sum(g["opened"] for g in got),
            "push_events": sum(g["push_events"] for g in got),
            "origin_public_requests": origin,
            "origin_public_per_s": origin / wall,
            "origin_by_page_per_s": {
                k: v / wall for k, v in hall_parts.gunicorn_public_by_page(web_text).items()
            },
            "nginx": hall_parts.nginx_digest(nginx_text),
            "visible_s": pcts(delays),
            "visible_n": len(delays),
            "visible_missed": missed,
            "visible_each_s": pcts(each),
            "official_ms": pcts([s.latency * 1000 for s in desk]),
            "official_requests": len(desk),
            "official_errors": sum(1 for s in desk if s.error or s.status not in (200, 201)),
            "screen_ms": pcts([s.latency * 1000 for s in screen]),
            "screen_requests": len(screen),
            "cores": cores,
            "pg_waits": waits.averages(),
            "loadavg_start": load_start,
            "loadavg_end": load_end,
        }
        return result


async def phone_pool(args: argparse.Namespace) -> ProcessPoolExecutor:
    """The phones' processes, started now (each has imported hall_phones before a size begins)."""
    spawn = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(
        args.phone_processes, mp_context=spawn, initializer=os.nice, initargs=(args.phones_nice,)
    )
    loop = asyncio.get_running_loop()
    pids = await asyncio.gather(
        *(loop.run_in_executor(pool, hall_phones.ready) for _ in range(args.phone_processes))
    )
    print(f"phones' processes: {sorted(pool._processes)} (answered from {sorted(set(pids))})")
    return pool


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


async def live_answers(port: int, path: str) -> bool:
    """Whether `path` answers as an event stream (nchan), within 2 s."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), 2)
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
    push_ready = await live_answers(args.nginx_port, args.live_path)
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
    hall = Hall(args, event, prefix, await phone_pool(args))
    hall.counted_before = await counted_now(origin, event.stage_id)
    jobs = official_jobs(event, args.officials)
    hall.start_desk(
        DeskPlan(
            port=args.nginx_port,
            officials=list(zip(event.official_tokens, jobs, strict=False)),
            seed=SEED + 100,
            think=(args.think_min, args.think_max),
            screen_path=f"{prefix}/t/{event.slug}/screen/",
        )
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
            hall_parts.print_size(result)
    finally:
        hall.stop_desk()
        hall.pool.shutdown(cancel_futures=True)
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
    args.live_path = f"/live/{event.slug}/"  # unused: the phones poll here
    await origin.close()
    await proxied.close()
    hall = Hall(args, event, prefix, await phone_pool(args))
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
    out["wrk"] = {**hall_parts.wrk_figures(text), "cores": sampler.cores(), "output": text}
    print(text)
    print("  cores: " + ", ".join(f"{k} {v:.2f}" for k, v in out["wrk"]["cores"].items()))
    await asyncio.sleep(5)
    args.warmup, args.seconds = 10.0, seconds
    print(f"this script: {phones:,} phones, {seconds:.0f} s ...", flush=True)
    try:
        out["loadgen"] = await hall.size(phones)
    finally:
        hall.pool.shutdown(cancel_futures=True)
    hall_parts.print_size(out["loadgen"])
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        with own_stack(args):
            return report(args, argv)
    except BenchError as error:
        print(f"hall: {error}", file=sys.stderr)
        return 1


def report(args: argparse.Namespace, argv: list[str] | None) -> int:
    """The run (or --compare-wrk), printed and written to --json."""
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


def _jsonable(value: Any) -> Any:
    if hasattr(value, "__dict__"):
        return value.__dict__
    if isinstance(value, float) and math.isnan(value):
        return None
    return str(value)


if __name__ == "__main__":
    sys.exit(main())
