"""The sections of bench_load.py's report about each phase, one function each: a and b (the
standings page), where the page's time goes, c (result submissions), d (confirmation to the public
page), e (memory), and the setup through the API."""

import math
import runpy

from load_figures import Results, cores_line, ms, waits_text
from load_stack import ROOT

# deploy/gunicorn.conf.py's settings as the stack gets them (it sets no gunicorn variables).
GUNICORN = runpy.run_path(str(ROOT / "deploy" / "gunicorn.conf.py"))


def section_page(r: Results) -> list[str]:
    """### a, b. The standings page: alone, at a constant rate, and its ceiling."""
    args, standalone, page_ms = r.args, r.standalone, r.page_ms
    a, a2, bp, bh, c, c2, d = r.a, r.a2, r.bp, r.bh, r.c, r.c2, r.d
    lines: list[str] = []
    add = lines.append

    add("### a, b. The standings page")
    add("")
    add(
        f"Alone on the server (sequential requests, median of {args.standalone_runs}) the page "
        f"takes **{ms(page_ms)}** (fastest {ms(standalone.get('min_ms'))}): 2 cores serve at "
        f"most about {2000 / page_ms:.0f} of them a second, and {args.rate:.0f}/s needs "
        f"{args.rate * page_ms / 1000:.1f} of them"
        + (
            f"; at {args.rate:.0f}/s the queue grows for the whole run. "
            if args.rate * page_ms / 1000 > 1.6
            else ". "
        )
        + f"At most {args.open_loop_conns} requests are in flight at once (as behind a "
        "proxy's connection limit); the others wait in the client, and that wait counts. A "
        f"request that finds no free connection within {args.timeout:.0f} s of its due time is "
        "never sent, and one answered more than that after it was due is late: both count as "
        "errors (a phone gives up). A request once sent is always waited for, since a server "
        "cannot tell that its client has given up and would do the work anyway."
        + (
            f" After the phase the server took {a.extra['recovery_s']:.0f} s to answer "
            "`/health/live/` quickly again"
            + (
                ": it was still rendering the pages it had read."
                if a.extra["recovery_s"] > 10
                else "."
            )
            if isinstance(a.extra.get("recovery_s"), (int, float))
            and not math.isnan(a.extra["recovery_s"])
            else ""
        )
    )
    add("")
    add(
        "| phase | requests | as expected | errors | p50 | p95 | p99 | max | answered/s "
        "| server time p50 / p99 | gunicorn workers booted |"
    )
    add("|---|---|---|---|---|---|---|---|---|---|---|")
    for ph in [p for p in (a, a2, bp, bh) if p is not None]:
        s = ph.summary
        add(
            f"| {ph.name} | {s.count:,} | {s.ok:,} | {s.error_count:,} | {ms(s.p50)} | "
            f"{ms(s.p95)} | {ms(s.p99)} | {ms(s.max)} | {s.rate:,.1f} | "
            f"{ms(ph.log.get('server_p50_ms'))} / {ms(ph.log.get('server_p99_ms'))} | "
            f"{ph.log.get('worker_boots', 0)} |"
        )
    add("")
    add(
        "Server time is gunicorn's own measure of each request (its access log), from the "
        "moment a worker thread has read it: the rest of the latency is the wait for a thread. "
        "Workers booted: gunicorn recycles a worker after `max_requests` "
        f"({GUNICORN['max_requests']:,} + up to {GUNICORN['max_requests_jitter']:,} jitter, "
        "`deploy/gunicorn.conf.py`) requests."
    )
    add("")
    for ph in (bp, bh):
        boots = ph.extra.get("boots", {})
        if boots.get("slow"):
            add(
                f"- {ph.name}: {boots['near_boot']} of the {boots['slow']} requests slower than "
                f"{boots['slow_ms']:.0f} ms were in flight within about a second of one of the "
                f"{boots['boots']} worker boots."
            )
    add("")
    for ph in [p for p in (a, a2, bp, bh) if p is not None]:
        if ph.summary.errors:
            errs = ", ".join(f"{k}: {v:,}" for k, v in sorted(ph.summary.errors.items()))
            add(f"- {ph.name}, errors: {errs}.")
    add("")
    add("Cores in use during each phase (of 2):")
    add("")
    for ph in [p for p in (a, a2, bp, bh, c, c2, d) if p is not None]:
        add(f"- {ph.name}: {cores_line(ph)}.")
    add("")
    return lines


def section_page_time(r: Results) -> list[str]:
    """### Where the page's time goes: in one process, with py-spy, in PostgreSQL."""
    args, a, breakdown, profile, web_workers = r.args, r.a, r.breakdown, r.profile, r.web_workers
    lines: list[str] = []
    add = lines.append

    add("### Where the page's time goes")
    add("")
    if breakdown and "error" not in breakdown:
        parts = {k: v for k, v in breakdown["parts_ms"].items() if k != "template rendering"}
        add(
            f"In one process (`bench/load_profile.py`: Django's test client in the stack's "
            f"environment, median of {breakdown['runs']}), the view takes "
            f"{ms(breakdown['view_ms'])}: {breakdown['queries']} SQL queries "
            f"({ms(breakdown['sql_ms'])} in all), "
            + ", ".join(f"{k} {ms(v)}" for k, v in parts.items())
            + f". The page is {breakdown['bytes'] / 1024:.0f} KB of HTML for "
            f"{breakdown['rows']} rows. Visitors who are not signed in get the page kept for the "
            "current snapshot (in the process, else in Redis) with their own CSRF token put in; "
            "it is rendered once per snapshot, language and process."
        )
        add("")
        variants = breakdown.get("variants_ms", {})
        if variants:
            names = list(variants)
            base = variants[names[0]]
            add(
                "The standings table (`scoring/_standings_table.html`, rendered once per "
                "snapshot and language, then kept in each process and Redis) rendered on its own "
                "from its source and from copies changed in memory (fastest of 9 each, "
                "interleaved):"
            )
            add("")
            add("| fragment | render | difference |")
            add("|---|---|---|")
            for name, value in variants.items():
                diff = "" if name == names[0] else f"{value - base:+,.0f} ms"
                add(f"| {name} | {ms(value)} | {diff} |")
            add("")
            if len(names) > 1:
                rows = breakdown["rows"]
                tenth = max(1, rows // 10)
                per_row = (base - variants[names[1]]) / max(1, rows - tenth)
                add(
                    f"The rendering grows with the rows: about {per_row * 1000:,.0f} µs a row, "
                    f"the rest of the fragment {ms(max(0.0, base - per_row * rows))}. At "
                    f"{args.rate:.0f}/s, rendering it for every request would take "
                    f"{args.rate * base / 1000:.1f} cores; it is rendered once per snapshot."
                )
                add("")
        if breakdown.get("template_top"):
            add(
                "cProfile of one rendering (cumulative share of the render; cProfile inflates "
                "small calls): "
                + "; ".join(f"{name} {share:.0%}" for name, share in breakdown["template_top"])
                + "."
            )
            add("")
    elif breakdown:
        add(f"The in-process breakdown failed: `{breakdown['error'][-300:]}`")
        add("")
    if profile:
        add(
            f"py-spy on the {web_workers} gunicorn workers during a "
            f"{args.profile_seconds:.0f} s closed loop "
            f"on the page ({profile['samples']:,} samples of the thread holding the GIL, that "
            "is CPU work, not threads waiting), by the innermost frame that belongs to each part: "
            + "; ".join(f"{name} {share:.0%}" for name, share in profile["categories"].items())
            + ". (With 4 threads a worker, py-spy's split between the template and URL "
            "reversing moves from run to run; the fragment variants above are the controlled "
            "measure.) Most samples of their own: "
            + "; ".join(f"`{n}` {s:.0%}" for n, s in profile["self_top"][:6])
            + "."
        )
        add("")
    if a.waits:
        add(
            "PostgreSQL during a. (average connections of the stack, from pg_stat_activity "
            "every 50 ms): " + waits_text(a.waits) + "."
        )
        add("")
    return lines


def section_submissions(r: Results) -> list[str]:
    """### c. Result submissions: all officials at once (c.), then pausing as in a hall (c2.)."""
    args, submit_profile, web_workers = r.args, r.submit_profile, r.web_workers
    c, c2 = r.c, r.c2
    sc = c.summary
    lines: list[str] = []
    add = lines.append

    add("### c. Result submissions")
    add("")
    if submit_profile and "error" not in submit_profile:
        add(
            f"One submission in one process (test client, rolled back): the PUT takes "
            f"{ms(submit_profile['put_ms'])} with {submit_profile['put_queries']} SQL queries "
            f"({ms(submit_profile['put_sql_ms'])}), the confirmation "
            f"{ms(submit_profile['confirm_ms'])} with {submit_profile['confirm_queries']} "
            f"({ms(submit_profile['confirm_sql_ms'])})."
        )
        add("")
    bput, bconf = c.extra["baseline_put"], c.extra["baseline_confirm"]
    lo, hi = c.extra["results"] // args.officials, -(-c.extra["results"] // args.officials)
    add(
        f"Over HTTP, one official alone ({bput.count} results, one after another): PUT p50 "
        f"{ms(bput.p50)}, confirm p50 {ms(bconf.p50)}. Then {args.officials} officials start at "
        f"the same instant with {lo}-{hi} table-rounds each, each sending its next request as "
        "soon as the previous answer is in (no think time: everyone reporting at the end of a "
        f"round): {c.extra['results']} results in {c.extra['elapsed']:.1f} s "
        f"({c.extra['results_per_s']:.0f} results/s). Server time per request (access log) p50 "
        f"{ms(c.log.get('server_p50_ms'))}, p99 {ms(c.log.get('server_p99_ms'))}; the rest of "
        f"the latency is the wait for one of the {4 * web_workers} gunicorn threads. "
        f"{args.officials} requests in flight on {4 * web_workers} threads and 2 cores queue; "
        "every confirmation also queues a standings "
        "rebuild for the Celery workers, which share the cores."
    )
    add("")
    if c.waits:
        add(
            "PostgreSQL during c. (average connections of the stack, pg_stat_activity every "
            "50 ms): " + waits_text(c.waits) + "."
        )
        add("")
    if sc.errors:
        add("Errors: " + ", ".join(f"{k}: {v}" for k, v in sc.errors.items()) + ".")
        add("")

    add(
        f"c2. is the same officials as they report in a hall: {args.officials} of them, each "
        f"pausing {args.think_min:g} to {args.think_max:g} s (uniformly at random) before each of "
        f"its {args.think_results} results, then sending the PUT and, at once, the confirm: "
        f"{c2.extra['results']} results in {c2.extra['elapsed']:.1f} s "
        f"({c2.extra['results_per_s']:.1f} results/s; a real table reports a round every 10 to "
        "20 minutes, so this is still hundreds of times a hall's rate). Server time per request "
        f"(access log) p50 {ms(c2.log.get('server_p50_ms'))}, p99 "
        f"{ms(c2.log.get('server_p99_ms'))}. c. keeps every official's request in flight at "
        "once: a burst that 2 cores can only queue."
    )
    add("")
    return lines


def section_visibility(r: Results) -> list[str]:
    """### d. Confirmation to the public page."""
    d = r.d
    lines: list[str] = []
    add = lines.append

    add("### d. Confirmation to the public page")
    add("")
    add(
        "One at a time, the server otherwise idle: PUT a result, confirm it, then GET "
        "`/t/<slug>/` with the page's ETag every 50 ms until a 200 counts one more result. "
        f"From the confirmation's answer: p50 {d.extra['p50_s']:.2f} s, p95 "
        f"{d.extra['p95_s']:.2f} s, min {d.extra['min_s']:.2f} s, max {d.extra['max_s']:.2f} s "
        f"(from the confirmation's request: p50 {d.extra['from_send_p50_s']:.2f} s, p95 "
        f"{d.extra['from_send_p95_s']:.2f} s). On the way: the confirmation's commit sends a "
        "rebuild task with a 0.2 s countdown, a Celery worker rebuilds the snapshot "
        "(500 rows) and drops its Redis copy, and the next poll renders the page again."
    )
    if d.extra["failures"]:
        add("")
        add("Not shown within the timeout: " + "; ".join(d.extra["failures"]) + ".")
    add("")
    return lines


def section_memory(r: Results) -> list[str]:
    """### e. Memory at the end of the run, process by process."""
    mem, total_rss, total_pss = r.mem, r.total_rss, r.total_pss
    lines: list[str] = []
    add = lines.append

    add("### e. Memory at the end of the run")
    add("")
    add("| process | RSS | PSS |")
    add("|---|---|---|")
    for m in mem:
        add(f"| {m.role} (pid {m.pid}) | {m.rss_mb:,.0f} MB | {m.pss_mb:,.0f} MB |")
    add(f"| total | {total_rss:,.0f} MB | {total_pss:,.0f} MB |")
    add("")
    add(
        "RSS counts the pages that the preloaded gunicorn master shares with its forked workers "
        "(and a Celery worker with its pool process) once in every process; PSS divides them "
        "among the processes that share them, so it adds up."
    )
    add("")
    return lines


def section_setup(r: Results) -> list[str]:
    """### Setup through the API: how long each step took."""
    event = r.event
    lines: list[str] = []
    add = lines.append

    add("### Setup through the API")
    add("")
    add(
        "; ".join(f"{name}: {seconds:.1f} s" for name, seconds in event.setup_seconds.items()) + "."
    )
    add("")
    return lines
