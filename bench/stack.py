"""The stack that bench/hall.py and bench/phone_latency.py measure: deploy/stack.sh run in an
environment of its own (port, database, Redis databases, queue and state directory), its
processes' pids, and the machine it all runs on."""

import argparse
import contextlib
import os
import platform
import re
import shutil
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import procstats

ROOT = Path(__file__).resolve().parent.parent
STACK_SH = ROOT / "deploy" / "stack.sh"
PYTHON = ROOT / ".venv" / "bin" / "python"


class BenchError(Exception):
    pass


def stack_env(args: argparse.Namespace) -> dict[str, str]:
    """deploy/stack.sh's environment for the bench's own stack: args' port, folder, database,
    Redis databases and queue, and nothing of the caller's app settings (a DATABASE_URL for the
    tests, say). nginx is on the port + 80, the staff's gunicorn on the port + 1 (stack.sh's
    defaults); `args.no_push` (when there is one) leaves nchan out, so the pages poll."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_URL", "REDIS_URL", "CELERY_", "DJANGO_", "LIVE_"))
    }
    if getattr(args, "no_push", False):
        env["NCHAN_MODULE"] = ""
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


@contextlib.contextmanager
def own_stack(args: argparse.Namespace) -> Iterator[None]:
    """The bench's stack while the block runs: the one running in args.stack_dir with
    `--use-running` (when the bench has the option), else one started here and stopped at the
    end (SIGTERM included) unless `--keep-running`. Raises BenchError when there is no
    virtualenv, when `--use-running` finds no stack, when one is already running there without
    it, or when it does not start (with the ends of its output)."""
    if not PYTHON.exists():
        raise BenchError(f"no {PYTHON}: run 'make install' first")
    status = stack(args, "status", capture_output=True)
    if getattr(args, "use_running", False):
        if status.returncode:
            raise BenchError(f"--use-running, but the stack is not up:\n{status.stdout}")
        yield
        return
    if status.returncode != 3:
        raise BenchError(
            f"a stack is already running (or partly) in {args.stack_dir}:\n{status.stdout}\n"
            f"stop it with STACK_DIR={args.stack_dir} bash deploy/stack.sh stop"
            + (" or use --use-running" if hasattr(args, "use_running") else "")
        )

    def terminate(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    print(
        f"starting the stack (gunicorn on {args.port}, nginx on {args.port + 80}) ...", flush=True
    )
    try:
        done = stack(args, "start", capture_output=True)
        if done.returncode:
            raise BenchError(
                f"the stack did not start:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
            )
        yield
    finally:
        if not getattr(args, "keep_running", False):
            print("stopping the stack ...", flush=True)
            stack(args, "stop", capture_output=True)


def role_pids(args: argparse.Namespace) -> dict[str, int]:
    out = {}
    # web2, staff2: a second host's pools (STACK_HOSTS=2)
    for role in ("web", "staff", "web2", "staff2", "worker1", "worker2", "beat"):
        path = Path(args.stack_dir) / f"{role}.pid"
        if path.exists() and path.read_text().strip().isdigit():
            out[role] = int(path.read_text().strip())
    return out


class StackRoles:
    """Which of the stack's groups of processes a process belongs to, for procstats.CpuSampler:
    the gunicorn pools, the Celery workers and beat (by process group), PostgreSQL (the stack's
    connections or other) and Redis."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.stack_db = args.stack_db
        pids = role_pids(args)
        self.groups = {
            pids.get("web", -1): "gunicorn (web)",
            pids.get("staff", -1): "gunicorn (staff)",
            pids.get("web2", -2): "gunicorn (web)",
            pids.get("staff2", -2): "gunicorn (staff)",
            pids.get("worker1", -1): "celery workers",
            pids.get("worker2", -1): "celery workers",
            pids.get("beat", -1): "celery beat",
        }

    def classify(self, pid: int, pgid: int, cmd: str) -> str | None:
        if pgid in self.groups:
            return self.groups[pgid]
        if cmd.startswith("postgres:"):
            if f" {self.stack_db} " in f"{cmd} ":
                return "postgres (the stack's connections)"
            return "postgres (other)"
        if "postgres" in cmd.split(" ")[0]:
            return "postgres (other)"
        if cmd.startswith("redis-server"):
            return "redis"
        return None


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


def vacuum(args: argparse.Namespace) -> dict[str, Any]:
    """VACUUM ANALYZE the stack's database, as autovacuum would, before the measurements. Every
    confirmation rewrites the standings lines it moves, so building the event leaves thousands of
    dead rows; with autovacuum off (as on this machine's PostgreSQL) they would pile up from
    run to run, and slow the measurements. Returns the server's
    autovacuum setting and the time taken."""
    import psycopg

    start = time.perf_counter()
    with psycopg.connect(f"{args.pg_url}/{args.stack_db}", autocommit=True) as conn:
        autovacuum = conn.execute("SHOW autovacuum").fetchone()[0]
        conn.execute("VACUUM (ANALYZE)")
    return {"autovacuum": autovacuum, "seconds": time.perf_counter() - start}


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
