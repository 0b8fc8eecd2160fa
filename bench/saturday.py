"""The Saturday benchmark (issue #51): a hosted Roundhouse that a country's clubs use on a
Saturday is hundreds of events at once, not one big one. 50, 100 and 200 events in one run, a
few of 500 players and many club nights of 12-40, each with its officials entering results and
its phones holding the live channel, on the production topology (deploy/stack.sh).

One command, from the project root (about 10 minutes; starts its own stack, stops it at the end):

    .venv/bin/python bench/saturday.py [--sizes 50,100,200] [--json /tmp/saturday.json]
    .venv/bin/python bench/saturday.py --hosts http://127.0.0.1:8580,http://127.0.0.1:8582 \
        --use-running     # a running stack's hosts (one load balancer's address, or each host)

It reuses the hall's client (bench/loadgen.py, bench/hall_phones.py, bench/hall_desk.py's
officials, bench/procstats.py, bench/stack.py): its own stack (port 8500, nginx on 8580,
database roundhouse_stack_saturday, a Redis of its own given by --redis-url, state in
/tmp/stack-saturday). It builds the largest size's events through the API once
(saturday_parts.saturday_events: the first n events are the Saturday of n), each with its
tournament, players, a stage of tables of 4 seated and its officials; the big events' first
`--big-setup-rounds` (1) confirmed at every table. Then for each size in turn, over
`--seconds` after `--warmup`:

- phones: `--phones-per-player` a player (1), each holding its event's channel
  (`/live/<slug>/en/`, nchan) and fetching its page at each version that concerns it, as
  live.js does (bench/hall_phones.py's push mode), in the hall's mix of pages; dealt in turn
  to `--phone-processes` processes and to the hosts given.
- officials: a club night has one, entering each table's result as the table finishes a round
  (one every `--club-every` seconds a table, random; a real round of Mexican Train takes
  10-20 minutes, so the default of 3-9 is a busier Saturday than a real one); a big event has
  `--big-officials` pausing `--big-think` seconds before each result, as the hall's.

For each size it measures confirmation to phone (from a confirm's answer to the first phone
answer whose standings count it) for the club nights (and the 12-player ones) and for the big
events, and where it goes: the countdown and queue wait, the rebuild, drawing, warming nginx,
publishing, nchan, the phone's wait and fetch (saturday_parts.PARTS: the worker's log, the
snapshot's computed_at sampled from PostgreSQL, the phones' channels); the CPU of each group of
processes (the load generator's included: it shares the machine), the workers' CPU per confirmed
result, the stack's PostgreSQL connections, its memory (PSS) and the load average.
"""

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import random
import re
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import hall_desk
import hall_parts
import hall_phones
import loadgen
import procstats
import saturday_desk
import saturday_parts as parts
from hall import find_prefix
from hall_event import STARTING_DOUBLE, Event, api, multipart, sign_in, submit_and_confirm
from hall_measure import GROUPS, log_offset, log_slice
from hall_parts import pcts
from hall_phones import HOST, Target, sleep_until
from loadgen import HttpClient
from saturday_parts import BIG_ROUNDS, CLUB_ROUNDS, TABLE_SIZE, EventSpec
from stack import BenchError, StackRoles, machine, own_stack, stack, vacuum

SEED = 51
TAIL = 5.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--sizes", default="50,100,200", help="events of each run (50,100,200)")
    p.add_argument(
        "--mix-of",
        default="50,100,200",
        help="the sizes whose mix of events is built (saturday_parts.saturday_events): a size "
        "of n measures the first n events of it",
    )
    p.add_argument("--warmup", type=float, default=20.0)
    p.add_argument("--seconds", type=float, default=90.0)
    p.add_argument("--big-players", type=int, default=500)
    p.add_argument("--club-players", default="12,40", help="a club night's fewest,most players")
    p.add_argument("--phones-per-player", type=float, default=1.0)
    p.add_argument("--big-officials", type=int, default=10)
    p.add_argument(
        "--big-setup-rounds",
        type=int,
        default=1,
        help="the big events' rounds confirmed at every table before the measurements",
    )
    p.add_argument("--big-think", default="20,40", help="a big event's official's pause (s)")
    p.add_argument("--club-every", default="180,540", help="a club table's round (s): min,max")
    p.add_argument("--phone-processes", type=int, default=2)
    p.add_argument("--loop", choices=loadgen.LOOPS, default="uvloop")
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument(
        "--hosts",
        default="",
        help="the web hosts' base URLs, comma-separated (one load balancer's, or each host's); "
        "default: the stack's nginx",
    )
    p.add_argument("--use-running", action="store_true", help="measure a running stack (kept)")
    p.add_argument("--keep-running", action="store_true", help="leave the stack started here")
    p.add_argument("--port", type=int, default=8500, help="gunicorn's; nginx's is this + 80")
    p.add_argument("--stack-dir", default=str(Path(tempfile.gettempdir()) / "stack-saturday"))
    p.add_argument("--stack-db", default="roundhouse_stack_saturday")
    p.add_argument("--pg-url", default="postgres://postgres@127.0.0.1:5432")
    p.add_argument("--redis-url", default="redis://127.0.0.1:6386", help="the stack's Redis")
    p.add_argument("--stack-queue", default="saturday")
    p.add_argument(
        "--small-queue",
        action="store_true",
        help="start the stack with the small stages' rebuilds on a queue of their own "
        "(STANDINGS_SMALL_QUEUE=<stack queue>-small, taken by worker2 alone)",
    )
    p.add_argument("--broker-db", type=int, default=1)
    p.add_argument("--cache-db", type=int, default=2)
    p.add_argument("--json", help="write every figure to this JSON file")
    p.add_argument(
        "--reuse",
        metavar="RUN",
        help="measure the events an earlier run built on this stack (its run id, printed at "
        "the start) instead of building new ones; with --use-running",
    )
    args = p.parse_args(argv)
    args.sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())
    args.mix_of = sorted(int(s) for s in args.mix_of.split(",") if s.strip())
    if max(args.sizes) > max(args.mix_of):
        p.error("--sizes: at most the largest of --mix-of")
    args.club_players = tuple(int(v) for v in args.club_players.split(","))
    args.big_think = tuple(float(v) for v in args.big_think.split(","))
    args.club_every = tuple(float(v) for v in args.club_every.split(","))
    args.nginx_port = args.port + 80
    hosts = [h.strip() for h in args.hosts.split(",") if h.strip()]
    args.host_ports = [host_port(h) for h in hosts] or [args.nginx_port]
    return args


def host_port(url: str) -> int:
    """The port of a loopback base URL (the load generator's client speaks to loopback only)."""
    parts_ = urlsplit(url if "//" in url else f"http://{url}")
    if parts_.hostname not in loadgen.LOOPBACK or parts_.port is None:
        raise BenchError(f"{url}: a loopback address with its port, e.g. http://127.0.0.1:8580")
    return parts_.port


# ---- the events --------------------------------------------------------------------------------


@dataclass
class Built:
    spec: EventSpec
    event: Event
    counted: int = 0  # results the standings count before a size's officials begin


async def superuser_token(client: HttpClient, args: argparse.Namespace, run: str) -> str:
    password, admin = uuid.uuid4().hex, f"bench-{run}-admin"
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
    return await sign_in(client, admin, password)


async def build_one(
    client: HttpClient, token: str, spec: EventSpec, run: str, args: argparse.Namespace
) -> Built:
    slug = f"sat-{run}-{spec.index:03d}"
    rng = random.Random(SEED + spec.index)
    await api(
        client,
        "POST",
        "/api/v1/tournaments/",
        token=token,
        payload={
            "name": ("Open " if spec.big else "Club night ") + f"{spec.index} {run}",
            "slug": slug,
            "domino_set": STARTING_DOUBLE,
            "preset": "samboree",
        },
    )
    lines = ["number,name,household,club"]
    for n in range(1, spec.players + 1):
        lines.append(f"{n},Player {n:03d} {rng.choice('ABCDEFGHJKLMNPRSTW')}.,,Club {n % 17}")
    body, ctype = multipart("file", "players.csv", ("\n".join(lines) + "\n").encode())
    _, data = await api(
        client,
        "POST",
        f"/api/v1/tournaments/{slug}/players/import/",
        token=token,
        body=body,
        headers={"Content-Type": ctype},
    )
    if data["created"] != spec.players:
        raise BenchError(f"{slug}: imported {data['created']} players, not {spec.players}")
    _, stage = await api(
        client,
        "POST",
        f"/api/v1/tournaments/{slug}/stages/",
        token=token,
        payload={
            "name": "Qualifying" if spec.big else "Club night",
            "kind": "qualifying",
            "rounds": BIG_ROUNDS if spec.big else CLUB_ROUNDS,
            "starting_double": STARTING_DOUBLE,
            "table_size_min": TABLE_SIZE,
            "table_size_max": TABLE_SIZE,
        },
    )
    _, seated = await api(
        client, "POST", f"/api/v1/stages/{stage['id']}/seat/", token=token, payload={"seed": SEED}
    )
    tables = {
        t["id"]: (
            t["number"],
            [s["player"]["id"] for s in sorted(t["seats"], key=lambda s: s["position"])],
        )
        for t in seated
    }
    event = Event(slug=slug, stage_id=stage["id"], tables=tables, admin_token=token)
    for i in range(args.big_officials if spec.big else 1):
        username, secret = f"bench-{run}-{spec.index:03d}-official-{i:02d}", uuid.uuid4().hex
        await api(
            client,
            "POST",
            f"/api/v1/tournaments/{slug}/staff/",
            token=token,
            payload={"username": username, "role": "official", "password": secret},
        )
        event.official_tokens.append(await sign_in(client, username, secret))
    if spec.big:
        jobs = [
            (tid, number, seats, round_no)
            for round_no in range(1, args.big_setup_rounds + 1)
            for tid, (number, seats) in sorted(tables.items(), key=lambda kv: kv[1][0])
        ]
        results = await loadgen.gather_bounded(
            [lambda j=j: submit_and_confirm(client, token, *j, rng) for j in jobs], 8
        )
        bad = [s for pair in results for s in pair if s.status not in (200, 201)]
        if bad:
            raise BenchError(f"{slug}: {len(bad)} setup submissions failed, e.g. {bad[0].error}")
    return Built(spec, event)


async def build_events(client: HttpClient, args: argparse.Namespace, run: str) -> list[Built]:
    specs = parts.saturday_events(
        args.mix_of, seed=SEED, big_players=args.big_players, club_players=args.club_players
    )[: max(args.sizes)]
    token = await superuser_token(client, args, run)
    start = time.perf_counter()
    built = await loadgen.gather_bounded(
        [lambda s=s: build_one(client, token, s, run, args) for s in specs], 4
    )
    args.build_seconds = time.perf_counter() - start
    print(f"  {len(built)} events built in {args.build_seconds:.0f} s", flush=True)
    return built


def entered_rounds(args: argparse.Namespace, stage_ids: list[int]) -> set[tuple[int, int]]:
    """The (table, round) of every result the stages have already (entered in an earlier size
    or run)."""
    import psycopg

    with psycopg.connect(f"{args.pg_url}/{args.stack_db}", autocommit=True) as conn:
        rows = conn.execute(
            "SELECT table_id, round_no FROM scoring_roundresult WHERE stage_id = ANY(%s)",
            [stage_ids],
        ).fetchall()
    return {(t, r) for t, r in rows}


def load_events(args: argparse.Namespace, run: str) -> list[Built]:
    """The events an earlier run built (`--reuse RUN`: its slugs are sat-RUN-NNN), read back
    from the stack's database: their stages, tables, seats and officials' tokens."""
    import psycopg

    specs = parts.saturday_events(
        args.mix_of, seed=SEED, big_players=args.big_players, club_players=args.club_players
    )[: max(args.sizes)]
    out = []
    with psycopg.connect(f"{args.pg_url}/{args.stack_db}", autocommit=True) as conn:
        admin = conn.execute(
            "SELECT t.key FROM authtoken_token t JOIN auth_user u ON u.id = t.user_id "
            "WHERE u.username = %s",
            [f"bench-{run}-admin"],
        ).fetchone()
        if admin is None:
            raise BenchError(f"--reuse {run}: no such run in {args.stack_db}")
        for spec in specs:
            slug = f"sat-{run}-{spec.index:03d}"
            stage = conn.execute(
                "SELECT s.id FROM tournaments_stage s JOIN tournaments_tournament t "
                "ON t.id = s.tournament_id WHERE t.slug = %s ORDER BY s.id LIMIT 1",
                [slug],
            ).fetchone()
            if stage is None:
                raise BenchError(f"--reuse {run}: {slug} is missing (a larger size than built?)")
            tables: dict[int, tuple[int, list[int]]] = {}
            for tid, number, player in conn.execute(
                "SELECT t.id, t.number, s.player_id FROM tables_table t JOIN tables_seat s "
                "ON s.table_id = t.id WHERE t.stage_id = %s ORDER BY t.number, s.position",
                [stage[0]],
            ):
                tables.setdefault(tid, (number, []))[1].append(player)
            if sum(len(seats) for _, seats in tables.values()) != spec.players:
                raise BenchError(f"--reuse {run}: {slug} is not the event this size builds")
            tokens = [
                key
                for (key,) in conn.execute(
                    "SELECT t.key FROM authtoken_token t JOIN auth_user u ON u.id = t.user_id "
                    "WHERE u.username LIKE %s ORDER BY u.username",
                    [f"bench-{run}-{spec.index:03d}-official-%"],
                )
            ]
            event = Event(slug, stage[0], tables, admin[0], tokens)
            out.append(Built(spec, event))
    return out


# ---- samplers -----------------------------------------------------------------------------------


class StandingsSampler(procstats.BackgroundSampler):
    """Every `interval` seconds, in a thread: each build of the stages' standings the first time
    it is seen (its computed_at, results counted), and the stack's PostgreSQL connections."""

    join_timeout = 10.0

    def __init__(self, dsn: str, database: str, stages: list[int], interval: float = 0.05):
        super().__init__()
        self.dsn, self.database, self.stages, self.interval = dsn, database, stages, interval
        self.builds: dict[tuple[int, int], parts.Build] = {}
        self.connections: list[int] = []
        self.max_connections = 0
        self.error = ""
        self.lock = threading.Lock()

    def _run(self) -> None:
        import psycopg

        try:
            with psycopg.connect(self.dsn, autocommit=True, connect_timeout=3) as conn:
                self.max_connections = int(conn.execute("SHOW max_connections").fetchone()[0])
                tick = 0
                while not self._stop.wait(self.interval):
                    rows = conn.execute(
                        "SELECT stage_id, built_seq, results_counted, "
                        "extract(epoch FROM computed_at) FROM scoring_stagestandings "
                        "WHERE stage_id = ANY(%s) AND computed_at IS NOT NULL",
                        [self.stages],
                    ).fetchall()
                    with self.lock:
                        for stage, seq, counted, at in rows:
                            key = (stage, seq)
                            if key not in self.builds:
                                self.builds[key] = parts.Build(stage, seq, counted, float(at))
                    tick += 1
                    if tick % 10 == 0:  # twice a second
                        self.connections.append(
                            conn.execute(
                                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s "
                                "AND pid <> pg_backend_pid()",
                                [self.database],
                            ).fetchone()[0]
                        )
        except Exception as error:  # a diagnosis: never fail the run for it
            self.error = f"{type(error).__name__}: {error}"


def pss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def stack_memory(classify, redis_port: int) -> dict[str, float]:
    """The stack's memory now (PSS, MB): its app processes (nginx, gunicorn, Celery), its
    PostgreSQL backends, and its Redis (the one on `redis_port`)."""
    out = {"app": 0.0, "postgres": 0.0, "redis": 0.0}
    for pid in procstats.pids():
        stat = procstats._stat(pid)
        if stat is None:
            continue
        cmd = procstats._cmdline(pid)
        group = classify(pid, stat[1], cmd)
        if group in (
            "nginx",
            "gunicorn (web)",
            "gunicorn (staff)",
            "celery workers",
            "celery beat",
        ):
            out["app"] += pss_mb(pid)
        elif group == "postgres (the stack's connections)":
            out["postgres"] += pss_mb(pid)
        elif cmd.startswith("redis-server") and f":{redis_port}" in cmd:
            out["redis"] += pss_mb(pid)
    return out


# ---- one size ------------------------------------------------------------------------------------


PHONES = "load generator: phones' processes"
DESK = "load generator: officials"
GENERATOR = "load generator: this script"
STACK_GROUPS = (
    "nginx",
    "gunicorn (web)",
    "gunicorn (staff)",
    "celery workers",
    "celery beat",
    "postgres (the stack's connections)",
    "redis",
)
SLUG_IN_PATH = re.compile(r"/t/([^/]+)/")


class Saturday:
    def __init__(self, args, events: list[Built], prefix: str, pool, desk_pool) -> None:
        self.args, self.events, self.prefix = args, events, prefix
        self.pool, self.desk_pool = pool, desk_pool
        self.roles = StackRoles(args)
        # Every host's nginx and the balancer's (STACK_HOSTS=2): nginx.pid, nginx2.pid, lb.pid.
        self.nginx_pids = {
            int(path.read_text().strip())
            for path in Path(args.stack_dir).glob("*.pid")
            if path.stem in ("nginx", "lb") or re.fullmatch(r"nginx\d+", path.stem)
        }
        self.worker_logs = [Path(args.stack_dir) / f"worker{i}.log" for i in (1, 2)]
        self.phone_pids = set(pool._processes)
        self.desk_pids = set(desk_pool._processes)

    def classify(self, pid: int, pgid: int, cmd: str) -> str | None:
        if pgid in self.nginx_pids or pid in self.nginx_pids:
            return "nginx"
        if pid == os.getpid():
            return GENERATOR
        if pid in self.phone_pids:
            return PHONES
        if pid in self.desk_pids:
            return DESK
        return self.roles.classify(pid, pgid, cmd)

    def officials(self, events: list[Built]) -> list[saturday_desk.Official]:
        entered = entered_rounds(self.args, [e.event.stage_id for e in events])
        out = []
        ports = self.args.host_ports
        for e in events:
            tables = [(tid, *e.event.tables[tid]) for tid in e.event.table_ids()]
            first = self.args.big_setup_rounds + 1 if e.spec.big else 1
            rounds = BIG_ROUNDS if e.spec.big else CLUB_ROUNDS
            tokens = e.event.official_tokens
            jobs = parts.official_jobs(tables, first, rounds, len(tokens))
            think = (
                self.args.big_think
                if e.spec.big
                else parts.club_think(len(tables), self.args.club_every)
            )
            for i, (token, mine) in enumerate(zip(tokens, jobs, strict=True)):
                # Only the results not entered yet: a size (a run) goes on from the one before.
                key = f"{e.event.slug}#{i}"
                mine = [j for j in mine if (j[0], j[3]) not in entered]
                out.append(
                    saturday_desk.Official(
                        key,
                        ports[(e.spec.index + i) % len(ports)],
                        token,
                        mine,
                        think,
                        SEED + 1000 * e.spec.index + i,
                    )
                )
        return out

    async def size(self, n: int, origin: HttpClient) -> dict[str, Any]:
        args = self.args
        events = self.events[:n]
        for e in events:  # what the standings count before this size's officials begin
            _, data = await api(origin, "GET", f"/api/v1/stages/{e.event.stage_id}/standings/")
            e.counted = data["results_counted"]
        rng = random.Random(SEED + n)
        t0 = time.perf_counter() + 1.0
        measure_from = t0 + args.warmup
        end = measure_from + args.seconds
        phones: list[tuple[hall_parts.Visit, float]] = []
        targets: list[Target] = []
        lang = (self.prefix or "/en").strip("/")
        for e in events:
            count = max(1, round(e.spec.players * args.phones_per_player))
            visits = hall_parts.phone_visits(
                count,
                prefix=self.prefix,
                slug=e.event.slug,
                stage_order=1,
                table_numbers=sorted(num for num, _ in e.event.tables.values()),
                player_numbers=list(range(1, e.spec.players + 1)),
                seed=SEED + e.spec.index,
            )
            for visit in visits:
                port = args.host_ports[len(phones) % len(args.host_ports)]
                phones.append((visit, t0 + rng.uniform(0, args.warmup)))
                targets.append(Target(port, f"/live/{e.event.slug}/{lang}/"))
        order = list(range(len(phones)))
        rng.shuffle(order)  # each phones' process holds phones of every event
        phones = [phones[i] for i in order]
        targets = [targets[i] for i in order]
        loop = asyncio.get_running_loop()
        k = args.phone_processes
        groups = [
            loop.run_in_executor(
                self.pool,
                hall_phones.run_group,
                hall_phones.Group(
                    targets[0],
                    "push",
                    phones[i::k],
                    (measure_from, end),
                    end + TAIL,
                    args.timeout,
                    args.loop,
                    tuple(targets[i::k]),
                ),
            )
            for i in range(k)
        ]
        desk = loop.run_in_executor(
            self.desk_pool, saturday_desk.run_desk, self.officials(events), end + TAIL, args.loop
        )
        offsets = [log_offset(p) for p in self.worker_logs]
        await sleep_until(measure_from)
        load_start = os.getloadavg()
        sampler = procstats.CpuSampler(self.classify)
        standings = StandingsSampler(
            f"{args.pg_url}/{args.stack_db}",
            args.stack_db,
            [e.event.stage_id for e in events],
        )
        with sampler, standings:
            await sleep_until(end - 5)
            memory = stack_memory(self.classify, host_port(args.redis_url))
            await sleep_until(end + TAIL)
        load_end = os.getloadavg()
        got = await asyncio.gather(*groups)
        by_official = await desk
        desks: dict[str, hall_desk.Desk] = {}
        for key, d in by_official.items():
            mine = desks.setdefault(key.split("#")[0], hall_desk.Desk())
            mine.samples += d.samples
            mine.acks += d.acks
        # Each worker's log apart: their pool processes have the same names.
        announces: dict[str, parts.Announced] = {}
        for path, offset in zip(self.worker_logs, offsets, strict=True):
            announces.update(parts.worker_announces(log_slice(path, offset, log_offset(path))))
        # The phones' and officials' times are perf_counter()'s (one clock in every process);
        # the worker's log and PostgreSQL's computed_at are the wall clock's.
        epoch = time.time() - time.perf_counter()
        return self.figures(
            n,
            events,
            got,
            desks,
            announces,
            standings,
            sampler.cores(),
            memory,
            (measure_from, end),
            epoch,
            load_start,
            load_end,
        )

    def figures(
        self,
        n,
        events,
        got,
        desks,
        announces,
        standings,
        cores,
        memory,
        window,
        epoch,
        load_start,
        load_end,
    ) -> dict[str, Any]:
        measure_from, end = window
        wall = end - measure_from
        heard: dict[str, float] = {}
        for g in got:
            for version, at in g["heard"].items():
                heard[version] = min(at, heard.get(version, math.inf))
        sightings: dict[str, list[tuple[float, int, str]]] = {}
        for g in got:
            for s in g["sightings"]:
                found = SLUG_IN_PATH.search(s[2])
                if found:
                    sightings.setdefault(found.group(1), []).append(s)
        builds_by_stage: dict[int, list[parts.Build]] = {}
        for b in standings.builds.values():
            builds_by_stage.setdefault(b.stage, []).append(b)
        visible = {"club": [], "12": [], "big": [], "club_each": []}
        missed = {"club": 0, "12": 0, "big": 0}
        parts_of = {"club": [], "big": []}
        confirmed = {"club": 0, "big": 0}
        builds_seen = {"club": 0, "big": 0}
        official_samples = []
        for e in events:
            kind = "big" if e.spec.big else "club"
            d = desks.get(e.event.slug)
            if d is None:
                continue
            official_samples += [s for s in d.samples if measure_from <= s.due < end]
            acks = sorted(d.acks)
            window_acks = [a for a in acks if measure_from <= a < end]
            confirmed[kind] += len(window_acks)
            before = e.counted + sum(1 for a in acks if a < measure_from)
            seen = sightings.get(e.event.slug, [])
            delays, lost = hall_parts.confirmation_to_phone(window_acks, seen, before)
            visible[kind] += delays
            missed[kind] += lost
            if e.spec.players == 12:
                visible["12"] += delays
                missed["12"] += lost
            if kind == "club":
                visible["club_each"] += hall_parts.confirmation_to_each_phone(
                    window_acks, seen, before
                )
            stage_builds = builds_by_stage.get(e.event.stage_id, [])
            builds_seen[kind] += sum(
                1 for b in stage_builds if measure_from + epoch <= b.computed_at < end + epoch
            )
            ordered = sorted((t, c) for t, c, _ in seen)
            for k, (ack, build) in enumerate(
                zip(
                    window_acks,
                    parts.builds_counting(stage_builds, window_acks, before),
                    strict=True,
                ),
                start=1,
            ):
                if build is None:
                    continue
                version = f"{build.stage}-{build.seq}"
                at = heard.get(version)
                shown = parts.first_shown(ordered, ack, before + k)
                parts_of[kind].append(
                    parts.parts_of(
                        ack + epoch,
                        build,
                        announces.get(version),
                        at + epoch if at is not None else None,
                        shown + epoch if shown is not None else None,
                    )
                )
        answers = [a for g in got for a in g["answers"] if measure_from <= a.sample.due < end]
        errors: dict[str, int] = {}
        for a in answers:
            s = a.sample
            if s.error or not s.status:
                errors[s.error or "no answer"] = errors.get(s.error or "no answer", 0) + 1
        results = confirmed["club"] + confirmed["big"]
        stack_cores = sum(cores.get(g, 0.0) for g in STACK_GROUPS)
        conns = standings.connections
        return {
            "events": n,
            "big": sum(e.spec.big for e in events),
            "players": sum(e.spec.players for e in events),
            "tables": sum(e.spec.tables for e in events),
            "phones": sum(
                max(1, round(e.spec.players * self.args.phones_per_player)) for e in events
            ),
            "hosts": len(self.args.host_ports),
            "seconds": wall,
            "confirmed": confirmed,
            "confirmed_per_s": {k: v / wall for k, v in confirmed.items()},
            "builds_per_s": {k: v / wall for k, v in builds_seen.items()},
            "visible_club": parts.summary(visible["club"], missed["club"]),
            "visible_12": parts.summary(visible["12"], missed["12"]),
            "visible_big": parts.summary(visible["big"], missed["big"]),
            "visible_club_each": parts.summary(visible["club_each"]),
            "parts_club": parts.parts_summary(parts_of["club"]),
            "parts_big": parts.parts_summary(parts_of["big"]),
            "phone_requests": len(answers),
            "phone_errors": sum(errors.values()),
            "phone_error_kinds": errors,
            "phone_ms": pcts([a.sample.latency * 1000 for a in answers]),
            "push_events": sum(g["push_events"] for g in got),
            "generator_loop_lag_ms": pcts([lag for g in got for lag in g["lags"]]),
            "phone_process_cores": [g["cores"] for g in got],
            "phone_process_max_rss_mb": [g.get("max_rss_mb", 0.0) for g in got],
            "official_ms": pcts([s.latency * 1000 for s in official_samples]),
            "official_requests": len(official_samples),
            "official_errors": sum(
                1 for s in official_samples if s.error or s.status not in (200, 201)
            ),
            "worker_cpu_per_result_ms": (
                cores.get("celery workers", 0.0) * wall / results * 1000 if results else math.nan
            ),
            "stack_cpu_per_result_ms": stack_cores * wall / results * 1000 if results else math.nan,
            "stack_cores": stack_cores,
            "pg_connections": {
                "mean": sum(conns) / len(conns) if conns else math.nan,
                "peak": max(conns, default=0),
                "max": standings.max_connections,
                "error": standings.error,
            },
            "memory_mb": memory,
            "announces_logged": len(announces),
            "cores": cores,
            "loadavg_start": load_start,
            "loadavg_end": load_end,
        }


def print_size(r: dict[str, Any]) -> None:
    s = parts.seconds
    print(
        f"  {r['events']} events, {r['phones']:,} phones: club nights' confirmation to phone "
        f"p50 {s(r['visible_club']['p50'])} p95 {s(r['visible_club']['p95'])} "
        f"({r['visible_club']['n']}, {r['visible_club']['missed']} not seen); big p95 "
        f"{s(r['visible_big']['p95'])}; confirmed/s {r['confirmed_per_s']}; worker CPU per "
        f"result {r['worker_cpu_per_result_ms']:.0f} ms; phones p99 "
        f"{parts.ms(r['phone_ms']['p99'])}, {r['phone_errors']} errors; officials p99 "
        f"{parts.ms(r['official_ms']['p99'])}",
        flush=True,
    )
    for name, v in r["parts_club"].items():
        print(f"    {name}: p50 {s(v['p50'])} p95 {s(v['p95'])} ({v['n']})")
    print("  cores: " + ", ".join(f"{k} {v:.2f}" for k, v in r["cores"].items()), flush=True)
    if r["phone_error_kinds"]:
        print("  errors: " + ", ".join(f"{k}: {v}" for k, v in r["phone_error_kinds"].items()))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    run_id = time.strftime("%d%H%M%S")
    origin = HttpClient(HOST, args.port, max_conns=16, timeout=120)
    proxied = HttpClient(HOST, args.host_ports[0], max_conns=4, timeout=30)
    if args.reuse:
        events = load_events(args, args.reuse)
        args.build_seconds = 0.0
        print(f"{len(events)} events of run {args.reuse}", flush=True)
    else:
        print(f"run {run_id}: building {max(args.sizes)} events ...", flush=True)
        events = await build_events(origin, args, run_id)
    prefix = await find_prefix(proxied, events[0].event.slug)
    vacuum(args)
    spawn = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(args.phone_processes, mp_context=spawn)
    desk_pool = ProcessPoolExecutor(1, mp_context=spawn)
    loop = asyncio.get_running_loop()
    await asyncio.gather(
        *(loop.run_in_executor(pool, hall_phones.ready) for _ in range(args.phone_processes)),
        loop.run_in_executor(desk_pool, saturday_desk.ready),
    )
    saturday = Saturday(args, events, prefix, pool, desk_pool)
    runs = []
    try:
        for n in args.sizes:
            print(f"{n} events: {args.warmup:.0f} s warm-up, {args.seconds:.0f} s ...", flush=True)
            result = await saturday.size(n, origin)
            runs.append(result)
            print_size(result)
    finally:
        pool.shutdown(cancel_futures=True)
        desk_pool.shutdown(cancel_futures=True)
        await origin.close()
        await proxied.close()
    return {
        "runs": runs,
        "hosts": args.host_ports,
        "build_seconds": args.build_seconds,
        "events_of_run": args.reuse or run_id,
    }


TABLE_GROUPS = [g for g in GROUPS if not g.startswith("load generator") and g != "machine"] + [
    PHONES,
    DESK,
    GENERATOR,
    "machine",
]


def stack_settings(args: argparse.Namespace) -> dict[str, Any]:
    """What the stack measured ran with: its small stages' queue, its public pool's workers,
    and the cores its processes (its public pool's master) and this script may run on."""
    env = Path(args.stack_dir) / "env"
    lines = env.read_text().splitlines() if env.exists() else []
    settings = dict(line.split("=", 1) for line in lines if "=" in line and line[0] != "#")
    out = {
        "small_queue": settings.get("STANDINGS_SMALL_QUEUE", ""),
        "web_concurrency": settings.get("WEB_CONCURRENCY", ""),
        "generator_cpus": sorted(os.sched_getaffinity(0)),
        "stack_cpus": [],
    }
    with contextlib.suppress(OSError, ValueError):
        web = int((Path(args.stack_dir) / "web.pid").read_text().strip())
        out["stack_cpus"] = sorted(os.sched_getaffinity(web))
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ["STACK_REDIS_URL"] = args.redis_url.rstrip("/")
    if args.small_queue:
        os.environ["STANDINGS_SMALL_QUEUE"] = f"{args.stack_queue}-small"
    try:
        with own_stack(args):
            info = machine()
            uptime_before = Path("/proc/loadavg").read_text().split()[:3]
            out = asyncio.run(run(args))
            out.update(stack_settings(args))
    except BenchError as error:
        print(f"saturday: {error}", file=sys.stderr)
        return 1
    out["machine"] = info
    out["uptime_before"] = uptime_before
    out["uptime_after"] = Path("/proc/loadavg").read_text().split()[:3]
    out["command"] = ".venv/bin/python bench/saturday.py " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    out["when"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    out["table"] = parts.markdown_table(out["runs"], TABLE_GROUPS)
    print()
    print(out["table"])
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
