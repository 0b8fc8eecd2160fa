"""bench_load.py's report: the "## Load" section of docs/PERFORMANCE.md, one function per part of
it (the parts about each phase are in load_report_phases.py), and its writing into the docs."""

import argparse
import re
import time
from typing import Any

from load_event import PLAYERS, ROUNDS, SETUP_ROUNDS, STARTING_DOUBLE, TABLE_SIZE, Event
from load_figures import (
    TARGET_PAGE_P99_MS,
    TARGET_SUBMIT_P99_MS,
    TARGET_VISIBLE_P95_S,
    Results,
    ms,
    times_over,
    verdict,
)
from load_phases import Phase
from load_report_phases import (
    section_memory,
    section_page,
    section_page_time,
    section_setup,
    section_submissions,
    section_visibility,
)
from load_stack import ROOT
from procstats import ProcMemory

DOCS = ROOT / "docs" / "PERFORMANCE.md"


def report(
    args: argparse.Namespace,
    event: Event,
    info: dict[str, str],
    phases: dict[str, Phase],
    mem: list[ProcMemory],
    standalone: dict[str, float],
    profile: dict[str, Any],
    breakdown: dict[str, Any],
    submit_profile: dict[str, Any],
    quiet: dict[str, float],
    command: str,
) -> tuple[str, list[str]]:
    r = Results(
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
    lines = [
        *section_intro(r),
        *section_summary(r),
        *section_busy_machine(r),
        *section_page(r),
        *section_page_time(r),
        *section_submissions(r),
        *section_visibility(r),
        *section_memory(r),
        *section_setup(r),
    ]
    return "\n".join(lines), verdicts(r)


def section_intro(r: Results) -> list[str]:
    """## Load: what was measured, on what, how, and how to reproduce it."""
    args, event, info, quiet, command = r.args, r.event, r.info, r.quiet, r.command
    web_workers = r.web_workers
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
    return lines


def section_summary(r: Results) -> list[str]:
    """The table of every measurement against its target."""
    args, mem, total_rss, total_pss = r.args, r.mem, r.total_rss, r.total_pss
    a, a2, c, c2, d = r.a, r.a2, r.c, r.c2, r.d
    sa, sc, sc2, sbp, sbh = a.summary, c.summary, c2.summary, r.bp.summary, r.bh.summary
    put, confirm = c.extra["put"], c.extra["confirm"]
    met = r.met
    a_ok, a2_ok, c_ok, c2_ok, d_ok = met["a"], met["a2"], met["c"], met["c2"], met["d"]
    lines: list[str] = []
    add = lines.append

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
    return lines


def section_busy_machine(r: Results) -> list[str]:
    """A warning when other processes took more than 0.25 cores during a phase."""
    a, a2, bp, bh, c, c2, d = r.a, r.a2, r.bp, r.bh, r.c, r.c2, r.d
    lines: list[str] = []
    add = lines.append

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
    return lines


def verdicts(r: Results) -> list[str]:
    """One line per target for the end of the run's output."""
    met, sbp, sbh = r.met, r.bp.summary, r.bh.summary
    a_ok, c_ok, c2_ok, d_ok = met["a"], met["c"], met["c2"], met["d"]
    return [
        f"a {'met' if a_ok else 'missed'}",
        f"b page ceiling {sbp.rate:.1f}/s vs health {sbh.rate:.0f}/s",
        f"c {'met' if c_ok else 'missed'}",
        f"c2 {'met' if c2_ok else 'missed'}",
        f"d {'met' if d_ok else 'missed'}",
    ]


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
