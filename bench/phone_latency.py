"""Confirmation to phone: how long a confirmed result takes to show on the phones' pages, on the
production topology (deploy/stack.sh: nginx with nchan in front of gunicorn, two Celery workers,
beat), measured in real Chromium pages.

A stack of its own (port, database, Redis databases, queue, folder), an event of 24 players at
6 tables of 4, and Chromium pages, each in a browser context of its own (a phone): the standings
(--standings of them), every table's score sheet and a player's page at every table. Then every
table's rounds are entered and confirmed through the API, a pause between confirmations. For each
confirmation and each page that shows it, the time from the confirmation's 200 to the new number
in the page (a MutationObserver in the page, Date.now(): the same machine's clock as this
script's), and its parts:

  confirm -> built   the snapshot's computed_at (PostgreSQL's clock, this machine)
  built -> event     the page's EventSource message (live.js's "roundhouse:live" event)
  event -> shown     the page's fetch of its parts at the new version, and the swap

    .venv/bin/python bench/phone_latency.py                 # stack on :8300, nginx on :8380
    .venv/bin/python bench/phone_latency.py --json out.json --keep

Chromium is Debian's (/usr/bin/chromium), driven by Playwright for Python (never `playwright
install`)."""

import argparse
import json
import os
import statistics
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import psycopg
from stack import BenchError, own_stack, stack

TABLES, SEATS, ROUNDS = 6, 4, 4
PASSWORD = "phone-bench-password-1"

# In each page: the live messages it heard, and an observer that records when the watched
# number is shown (set by watch() before each confirmation).
PAGE_SCRIPT = """
window.__live = [];
document.addEventListener("roundhouse:live", (e) => window.__live.push(e.detail));
window.__watch = null;
window.__check = () => {
  const w = window.__watch;
  if (!w || w.shown) return;
  const rows = Array.from(document.querySelectorAll("tr"));
  const starts = (text) => new RegExp("^" + w.pips + "(\\\\D|$)").test(text.trim());
  let hit = false;
  if (w.kind === "standings") {
    const row = rows.find((tr) => Array.from(tr.querySelectorAll("a")).some(
      (a) => a.textContent.trim() === w.name));
    const cells = row ? row.querySelectorAll("td.round-col") : [];
    hit = cells.length >= w.round && starts(cells[w.round - 1].textContent);
  } else {
    const row = rows.find((tr) => {
      const th = tr.querySelector("th[scope=row]");
      return th && th.textContent.trim().startsWith(w.round + " (");
    });
    hit = !!row && Array.from(row.querySelectorAll("td")).some((td) => starts(td.textContent));
  }
  if (hit) w.shown = Date.now();
};
new MutationObserver(() => window.__check()).observe(document, {
  childList: true, subtree: true, characterData: true,
});
"""


class Api:
    def __init__(self, base: str) -> None:
        self.base, self.token = base, ""

    def call(self, method: str, path: str, body: Any = None, headers: dict | None = None):
        sent = {"Accept": "application/json", **(headers or {})}
        if self.token:
            sent["Authorization"] = f"Token {self.token}"
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            sent.setdefault("Content-Type", "application/json")
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=sent)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, dict(answer.headers), json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()[:500]


def build_event(args: argparse.Namespace, api: Api, slug: str) -> tuple[dict, list[dict]]:
    admin = f"phone-{slug}"
    made = stack(
        args,
        "manage",
        "createsuperuser",
        "--noinput",
        extra={
            "DJANGO_SUPERUSER_USERNAME": admin,
            "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
            "DJANGO_SUPERUSER_EMAIL": f"{admin}@example.invalid",
        },
        capture_output=True,
    )
    assert made.returncode == 0, made.stderr
    status, _, token = api.call(
        "POST", "/api/v1/auth/token/", {"username": admin, "password": PASSWORD}
    )
    assert status == 200, token
    api.token = token["token"]
    status, _, body = api.call(
        "POST",
        "/api/v1/tournaments/",
        {"name": "Phone bench", "slug": slug, "domino_set": 12, "preset": "samboree"},
    )
    assert status == 201, body
    roster = "number,name\n" + "".join(f"{n},Phone {n:02d}\n" for n in range(1, 25))
    boundary = uuid.uuid4().hex
    upload = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\n'
        f"Content-Type: text/csv\r\n\r\n{roster}\r\n--{boundary}--\r\n"
    ).encode()
    status, _, body = api.call(
        "POST",
        f"/api/v1/tournaments/{slug}/players/import/",
        upload,
        {"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert status == 201, body
    status, _, stage = api.call(
        "POST",
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "Qualifying", "kind": "qualifying", "starting_double": 12, "rounds": ROUNDS,
         "table_size_min": SEATS, "table_size_max": SEATS},
    )  # fmt: skip
    assert status == 201, stage
    status, _, tables = api.call("POST", f"/api/v1/stages/{stage['id']}/seat/", {"seed": 11})
    assert status == 200, tables
    return stage, sorted(tables, key=lambda t: t["number"])


def pips(position: int, table_no: int, round_no: int) -> int:
    """Seat 1 goes out; the others' pips differ from each other in every row."""
    return 0 if position == 1 else 10 * position + table_no + round_no


def snapshot(args: argparse.Namespace, stage_id: int) -> tuple[int, float | None]:
    with psycopg.connect(f"{args.pg_url}/{args.stack_db}", autocommit=True) as conn:
        row = conn.execute(
            "SELECT built_seq, extract(epoch FROM computed_at) FROM scoring_stagestandings"
            " WHERE stage_id = %s",
            [stage_id],
        ).fetchone()
    return (row[0], float(row[1]) if row[1] is not None else None) if row else (0, None)


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]

    return {
        "n": len(ordered),
        "p50": round(statistics.median(ordered), 3),
        "p95": round(at(0.95), 3),
        "max": round(ordered[-1], 3),
    }


def web_requests(args: argparse.Namespace, slug: str) -> dict[str, int]:
    """Requests that reached gunicorn for the public pages, with and without ?v=."""
    log = Path(args.stack_dir) / "web.log"
    text = log.read_text(errors="replace") if log.exists() else ""
    lines = [line for line in text.splitlines() if f"/t/{slug}/" in line and '"GET ' in line]
    return {
        "versioned": sum("?v=" in line for line in lines),
        "polls": sum("?v=" not in line for line in lines),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    base = f"http://127.0.0.1:{args.port + 80}"
    slug = f"phones-{uuid.uuid4().hex[:6]}"
    api = Api(base)
    stage, tables = build_event(args, api, slug)
    watched = {t["number"]: next(s for s in t["seats"] if s["position"] == 2) for t in tables}
    pages: list[tuple[str, int | None, Any]] = []  # kind, table number, page
    load_before = os.getloadavg()
    results: list[dict[str, Any]] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        try:
            addresses = [("standings", None, f"/t/{slug}/")] * args.standings
            for number, seat in watched.items():
                addresses.append(("sheet", number, f"/t/{slug}/tables/{stage['order']}/{number}/"))
                addresses.append(
                    ("player", number, f"/t/{slug}/players/{seat['player']['number']}/")
                )
            for kind, number, path in addresses:
                context = browser.new_context(
                    locale="en-GB", viewport={"width": 390, "height": 844}
                )
                page = context.new_page()
                page.add_init_script(PAGE_SCRIPT)
                page.goto(base + path, wait_until="load")
                pages.append((kind, number, page))
            time.sleep(args.settle)  # the EventSources open, the first versions heard
            start_requests = web_requests(args, slug)
            for round_no in range(1, ROUNDS + 1):
                for table in tables:
                    results.append(
                        confirm_and_watch(args, api, stage, table, round_no, watched, pages)
                    )
                    time.sleep(args.pause)
            end_requests = web_requests(args, slug)
        finally:
            browser.close()
    load_after = os.getloadavg()
    shown = [s for r in results for s in r["pages"] if s["shown"] is not None]
    missed = sum(1 for r in results for s in r["pages"] if s["shown"] is None)
    summary = {
        "confirm_to_shown": percentiles([s["shown"] for s in shown]),
        "by_page": {
            kind: percentiles([s["shown"] for s in shown if s["kind"] == kind])
            for kind in ("standings", "sheet", "player")
        },
        "confirm_to_built": percentiles([r["built"] for r in results if r["built"] is not None]),
        "built_to_event": percentiles(
            [
                s["event"] - r["built"]
                for r in results
                for s in r["pages"]
                if s["event"] is not None and r["built"] is not None
            ]
        ),
        "event_to_shown": percentiles(
            [s["shown"] - s["event"] for s in shown if s["event"] is not None]
        ),
        "missed": missed,
        "confirmations": len(results),
        "pages": len(pages),
        "origin_requests": {key: end_requests[key] - start_requests[key] for key in end_requests},
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after],
        "cores": os.cpu_count(),
        "push": not args.no_push,
    }
    return {"summary": summary, "results": results}


def confirm_and_watch(args, api: Api, stage, table, round_no, watched, pages) -> dict[str, Any]:
    number = table["number"]
    seat = watched[number]
    expected = pips(2, number, round_no)
    relevant = [
        (kind, page) for kind, at_table, page in pages if kind == "standings" or at_table == number
    ]
    for kind, page in relevant:
        page.evaluate(
            "(w) => { window.__watch = w; window.__check(); }",
            {"kind": kind, "name": seat["player"]["name"], "round": round_no, "pips": expected},
        )
    body = {
        "blocked": False,
        "scores": [
            {
                "player": s["player"]["id"],
                "pips": pips(s["position"], number, round_no),
                "went_out": s["position"] == 1,
            }
            for s in table["seats"]
        ],
    }
    path = f"/api/v1/tables/{table['id']}/rounds/{round_no}/"
    status, headers, put = api.call("PUT", path, body, {"Idempotency-Key": uuid.uuid4().hex})
    assert status == 201, put
    time.sleep(0.3)
    status, _, confirmed = api.call(
        "POST", f"{path}confirm/", headers={"If-Match": headers["ETag"]}
    )
    confirmed_at = time.time()
    assert status == 200, confirmed
    deadline = time.monotonic() + args.timeout
    states = []
    while time.monotonic() < deadline:
        states = [page.evaluate("() => [window.__watch, window.__live]") for _, page in relevant]
        if all(state[0].get("shown") for state in states):
            break
        time.sleep(0.05)
    built_seq, computed_at = snapshot(args, stage["id"])
    entry = {
        "table": number,
        "round": round_no,
        "built": round(computed_at - confirmed_at, 3) if computed_at else None,
        "built_seq": built_seq,
        "pages": [],
    }
    for (kind, _), (watch, live) in zip(relevant, states, strict=True):
        heard = [e for e in live if e["at"] / 1000 >= confirmed_at - 0.05]
        entry["pages"].append(
            {
                "kind": kind,
                "shown": round(watch["shown"] / 1000 - confirmed_at, 3)
                if watch.get("shown")
                else None,
                "event": round(heard[0]["at"] / 1000 - confirmed_at, 3) if heard else None,
                "version": heard[0]["version"] if heard else None,
            }
        )
    return entry


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8300, help="gunicorn; nginx on port + 80")
    parser.add_argument("--stack-dir", default="/tmp/roundhouse-phone-bench")
    parser.add_argument("--stack-db", default="roundhouse_b_stack")
    parser.add_argument("--pg-url", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--stack-queue", default="roundhouse-phone-bench")
    parser.add_argument("--broker-db", type=int, default=5)
    parser.add_argument("--cache-db", type=int, default=6)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--standings", type=int, default=4, help="standings pages (4)")
    parser.add_argument("--pause", type=float, default=2.0, help="s between confirmations (2)")
    parser.add_argument("--settle", type=float, default=3.0, help="s after opening the pages")
    parser.add_argument("--timeout", type=float, default=20.0, help="s to wait for every page")
    parser.add_argument("--no-push", action="store_true", help="without nchan: the pages poll")
    parser.add_argument(
        "--keep-running", "--keep", action="store_true", help="leave the stack running"
    )
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()

    try:
        with own_stack(args):
            report = run(args)
    except BenchError as error:
        print(f"phone_latency: {error}", file=sys.stderr)
        return 1
    print(json.dumps(report["summary"], indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
