"""The memory of a running stack's gunicorn workers (deploy/stack.sh), before and after a warm-up.

Starts nothing: it takes the stack's URL and its gunicorn master (the pid, or the stack directory
whose web.pid names it), reads each worker's RSS, PSS and private memory from /proc, sends
--requests GETs across every tournament's public pages and the public API (a new connection
each, so the kernel spreads them over the workers; every other one in Spanish), and reads them
again. docs/PERFORMANCE.md, "Web worker memory", has the figures and how they were made.

    .venv/bin/python bench/worker_memory.py --url http://127.0.0.1:8100 --stack-dir .stack
"""

import argparse
import http.client
import json
import os
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
PUBLIC_PAGES = ("", "players/", "screen/", "how-it-works/", "bracket/", "results/")


def memory(pid: int) -> dict[str, int]:
    """RSS, PSS and private (not shared with the master) memory of a process, in kB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                out["rss"] = int(line.split()[1])
    with open(f"/proc/{pid}/smaps_rollup") as f:
        fields = {line.split(":")[0]: line.split()[1] for line in f if line.endswith("kB\n")}
    out["pss"] = int(fields["Pss"])
    out["private"] = int(fields["Private_Clean"]) + int(fields["Private_Dirty"])
    return out


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(p) for p in (task / "children").read_text().split()]
    return sorted(found)


def master_pid(args: argparse.Namespace) -> int:
    if args.pid:
        return args.pid
    pid_file = Path(args.stack_dir) / "web.pid"
    if not pid_file.exists():
        sys.exit(f"no {pid_file}: is the stack running? (or pass --pid)")
    return int(pid_file.read_text().strip())


class Site:
    def __init__(self, url: str, timeout: float) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.timeout = parts.hostname, parts.port or 80, timeout

    def get(self, path: str, language: str = "en") -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            conn.request("GET", path, headers={"Accept-Language": language, "Connection": "close"})
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def json(self, path: str):
        status, body = self.get(path)
        return json.loads(body) if status == 200 else None


def public_paths(site: Site, players: int) -> list[str]:
    """Every tournament's public pages and public API, as a visitor's phone would ask for them."""
    paths = ["/", "/api/v1/tournaments/", "/api/v1/presets/", "/health/live/"]
    for tournament in site.json("/api/v1/tournaments/") or []:
        slug = tournament["slug"]
        paths += [f"/en/t/{slug}/{page}" for page in PUBLIC_PAGES]
        api = f"/api/v1/tournaments/{slug}/"
        paths += [api, api + "standings/", api + "players/", api + "stages/"]
        for player in (site.json(api + "players/") or [])[:players]:
            paths.append(f"/en/t/{slug}/players/{player['number']}/")
        for stage in site.json(api + "stages/") or []:
            paths += [f"/api/v1/stages/{stage['id']}/", f"/api/v1/stages/{stage['id']}/standings/"]
            paths += [f"/en/t/{slug}/tables/{stage['order']}/{n}/" for n in (1, 2, 3)]
    return paths


def warm_up(site: Site, paths: list[str], requests: int, concurrency: int) -> Counter:
    def one(i: int) -> int:
        try:
            return site.get(paths[i % len(paths)], "es" if i % 2 else "en")[0]
        except OSError:
            return 0

    with ThreadPoolExecutor(concurrency) as pool:
        return Counter(pool.map(one, range(requests)))


def table(rows: list[tuple[str, int, dict, dict]]) -> str:
    lines = [
        "| process | pid | RSS at start | RSS after warm-up | PSS after | private after |",
        "|---|---|---|---|---|---|",
    ]
    for name, pid, before, after in rows:
        lines.append(
            f"| {name} | {pid} | {before['rss'] / 1024:.0f} MB | {after['rss'] / 1024:.0f} MB "
            f"| {after['pss'] / 1024:.0f} MB | {after['private'] / 1024:.0f} MB |"
        )
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--url", default="http://127.0.0.1:8100", help="the stack's URL")
    p.add_argument("--stack-dir", default=str(ROOT / ".stack"), help="where web.pid is (.stack)")
    p.add_argument("--pid", type=int, help="the gunicorn master's pid (instead of --stack-dir)")
    p.add_argument("--requests", type=int, default=2000, help="GETs of the warm-up (2000)")
    p.add_argument("--concurrency", type=int, default=8, help="requests in flight (8)")
    p.add_argument("--players", type=int, default=20, help="player pages per tournament (20)")
    p.add_argument("--timeout", type=float, default=30.0)
    p.add_argument("--json", help="also write the figures to this JSON file")
    args = p.parse_args()

    master = master_pid(args)
    workers = children(master)
    if not workers:
        sys.exit(f"gunicorn master {master} has no workers")
    site = Site(args.url, args.timeout)
    before = {pid: memory(pid) for pid in [master, *workers]}
    paths = public_paths(site, args.players)
    start = time.perf_counter()
    statuses = warm_up(site, paths, args.requests, args.concurrency)
    seconds = time.perf_counter() - start
    time.sleep(1)  # the last answers' buffers freed
    if children(master) != workers:
        print("note: gunicorn replaced a worker during the warm-up (max_requests?)")
    after = {pid: memory(pid) for pid in [master, *children(master)] if pid in before}
    rows = [("gunicorn master", master, before[master], after[master])]
    rows += [(f"worker {i}", pid, before[pid], after[pid]) for i, pid in enumerate(workers, 1)]

    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(
        f"{args.requests} GETs over {len(paths)} paths in {seconds:.1f} s, "
        f"{args.concurrency} at a time; statuses {dict(sorted(statuses.items()))}; "
        f"load average {load}\n"
    )
    print(table(rows))
    if args.json:
        figures = {
            "requests": args.requests,
            "paths": len(paths),
            "seconds": round(seconds, 2),
            "statuses": {str(k): v for k, v in statuses.items()},
            "load_average": os.getloadavg(),
            "processes": [
                {"name": n, "pid": pid, "start_kb": b, "after_kb": a} for n, pid, b, a in rows
            ],
        }
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
