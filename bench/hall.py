"""The hall benchmark (issue #25): thousands of phones, 60 officials and the projector, through
nginx on the production topology (deploy/stack.sh), at 500, 2,000 and 5,000 phones in one run.

One command, from the project root (about 6 minutes; starts its own stack, stops it at the end):

    .venv/bin/python bench/hall.py [--sizes 500,2000,5000] [--json /tmp/hall.json]

It starts a stack of its own (bench/stack.py: port 8510, nginx on 8590, database
roundhouse_c_stack, Redis databases 9 and 10, state in /tmp/roundhouse-hall), builds
bench/hall_event.py's 500-player event through the API (125 tables of 4, rounds 1 and 2
confirmed) with 60 officials, finds the public pages' prefix (`/t/<slug>/` may redirect to
`/en/t/<slug>/`), then for each size in turn, with everything going through nginx:

- phones: N simulated phones (bench/hall_phones.py), each with a keep-alive connection of its
  own and one page open, in hall_parts.PAGE_MIX's shares: the standings (polled every 5 s), a
  table's sheet (10 s), a player's page (15 s). A phone loads its page in full at a random
  moment of the warm-up, then polls it as HTMX does (`HX-Request: true`, `If-None-Match` of the
  last ETag it got). Each phone is open loop: a poll is due every period whatever happened to
  the last, and its latency counts from when it was due. The phones are dealt to
  `--phone-processes` processes (2), each with an event loop of its own (`--loop`: uvloop, or
  the standard library's asyncio) and no cyclic garbage collector.
- officials (bench/hall_desk.py), in this script's own process with the projector, so that no
  phone's answer delays theirs: 60 clients, each entering results at tables of its own (a PUT
  with an Idempotency-Key, then the confirm with If-Match; bench/hall_event.py), pausing 20-40 s
  (random, fixed seed) before each; they work throughout the three sizes.
- the projector: one client polling `/screen/` every 8 s, following its `?page=` as the page does.

For each size it measures, over the `--seconds` after a `--warmup`: the phones' p50/p95/p99
(from the due time), the public-page requests that reached gunicorn per second (its access log)
and nginx's cache statuses for them (its access log), confirmation-to-phone (from a confirm's
answer to the first phone answer whose standings count it), the officials' p50/p95/p99, the
projector's, the CPU each group of processes used (procstats.py) and the load average.

Phones in "push" mode (`--mode push`) hold a server-sent-events connection to `/live/<slug>/`
(nginx nchan) and fetch their page with `?v=<version>` after an announcement that concerns it
instead of polling fast, as live.js does: after a random wait of up to live.js's SPREAD_MS,
once at the newest version heard (bench/hall_phones.py's Heard); the run checks that
`/live/<slug>/` answers before it starts.

Why this load generator and not wrk (Debian's wrk 4.1 with a Lua script): see the "Hall" section
of docs/PERFORMANCE.md; `--compare-wrk` measures both holding the same phones.
"""

import argparse
import asyncio
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import hall_parts
import procstats
from hall_desk import DeskPlan, official_jobs
from hall_event import PLAYERS, SEED, build_event
from hall_measure import GROUPS, Hall, phone_pool
from hall_phones import HOST
from loadgen import LOOPS, HttpClient
from stack import ROOT, BenchError, machine, own_stack, vacuum


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
    p.add_argument(
        "--loop",
        choices=LOOPS,
        default="uvloop",
        help="the event loop of the phones' and the desk's processes (uvloop: libuv's; asyncio: "
        "the standard library's)",
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
    # The channel of the pages' language (live.js), as the prefix names it ("/en").
    args.live_path = f"/live/{event.slug}/{(prefix or '/en').strip('/')}/"
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
            loop=args.loop,
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
