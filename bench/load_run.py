"""One bench_load.py run on a stack that is up: build the event, measure each phase in turn with
the machine let quiet between them, profile the page and a submission, then report (printed, into
docs/PERFORMANCE.md unless --no-docs, and every figure to --json)."""

import argparse
import json
import math
import random
import subprocess
import time
from pathlib import Path
from typing import Any

import loadgen
import procstats
from load_event import (
    COUNTED_RE,
    PLAYERS,
    ROUNDS,
    SEED,
    SETUP_ROUNDS,
    build_event,
    round_body,
    wait_for_counted,
)
from load_figures import cores_line, ms
from load_phases import (
    Measure,
    Phase,
    measure_ceiling,
    measure_page_rate,
    measure_submissions,
    measure_visibility,
    memory,
    page_standalone,
    settle,
    vacuum,
    wait_for_quiet,
)
from load_pyspy import profile_with_py_spy, read_py_spy
from load_report import DOCS, report, write_docs
from load_stack import ROOT, BenchError, WebLog, in_process, machine, role_pids
from loadgen import HttpClient


async def run(args: argparse.Namespace, command: str) -> int:
    host = "127.0.0.1"
    run_id = time.strftime("%m%d%H%M%S")
    weblog = WebLog(Path(args.stack_dir) / "web.log")
    client = HttpClient(host, args.port, max_conns=16, timeout=args.timeout)
    print(f"building the {PLAYERS}-player event through the API ...", flush=True)
    event = await build_event(client, args, run_id)
    for name, seconds in event.setup_seconds.items():
        print(f"  {name}: {seconds:.1f} s")
    path = f"/en/t/{event.slug}/"
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
