"""One size of the hall (bench/hall.py): its phones dealt to the phones' processes
(bench/hall_phones.py), the officials' and projector's process (bench/hall_desk.py), and what
each size measures over its window: the phones' and officials' latencies, confirmation to
phone, the origin's public requests and nginx's figures from the two access logs, the CPU of each
group of processes, PostgreSQL's waits and the load average."""

import argparse
import asyncio
import multiprocessing
import os
import queue
import random
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import hall_desk
import hall_parts
import hall_phones
import procstats
from hall_desk import Desk, DeskPlan
from hall_event import PLAYERS, SEED
from hall_parts import Visit, pcts
from hall_phones import PhoneAnswer, Target, sleep_until
from loadgen import Sample
from stack import PgWaits, StackRoles

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
        self.roles = StackRoles(args)
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
        return self.roles.classify(pid, pgid, cmd)

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
                    args.loop,
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
            "pages_watched": hall_parts.pages_watched([visit for visit, _ in phones]),
            "phone_ms": pcts(latencies),
            "phone_ms_by_page": by_kind,
            "phone_ms_by_cache": by_cache,
            "phone_service_ms": pcts([s.service * 1000 for s in samples]),
            "generator_loop_lag_ms": pcts(phone_lags),
            "generator_gc_pauses_ms": {
                "count": sum(len(g["gc_pauses"]) for g in got),
                "total": sum(sum(g["gc_pauses"]) for g in got),
                "max": max((p for g in got for p in g["gc_pauses"]), default=0.0),
            },
            "phone_processes": args.phone_processes,
            "event_loop": args.loop,
            "phone_process_cores": [g["cores"] for g in got],
            "phone_process_max_rss_mb": [g.get("max_rss_mb", 0.0) for g in got],
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
