"""The stack that bench_load.py measures: deploy/stack.sh run in an environment of its own (port,
database, Redis databases, queue and state directory), its processes' pids, gunicorn's log,
bench/load_profile.py run in its environment, and the machine it all runs on."""

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import loadgen

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
    for role in ("web", "staff", "worker1", "worker2", "beat"):
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
