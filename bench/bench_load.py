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
import shutil
import sys
import tempfile
from pathlib import Path

from load_run import run
from load_stack import BenchError, own_stack


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


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = ".venv/bin/python bench/bench_load.py" + (
        " " + " ".join(argv if argv is not None else sys.argv[1:]) if (argv or sys.argv[1:]) else ""
    )
    try:
        with own_stack(args):
            return asyncio.run(run(args, command))
    except BenchError as error:
        print(f"bench_load: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
