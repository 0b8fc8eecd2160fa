"""What a simulated phone's answer costs the hall's load generator (bench/hall.py): CPU per
answer of each HTTP client and event loop, reading a standings-sized answer (40 KB, gzip) from
nginx on kept-alive connections, in bursts as the phones fetch after a version.

    .venv/bin/python bench/loadgen_cost.py [--phones 1500] [--bursts 20]

It starts Debian's nginx on a free port (a temporary directory, one worker, the page a static
file with the headers the hall's cached answers carry), then runs each client in a process of
its own: `phones` connections, each fetching once in every burst at a random moment of its
first half second (live.js's spread), bursts 0.625 s apart (1.6 versions a second, the hall's
rate with 60 officials), and reads the count from the first 6 KB as the phones do. The CPU is
the process's own (user + system) over the run, connecting included, divided by the answers.
"""

import argparse
import asyncio
import gzip
import random
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from hall_phones import body_of, counted_in
from loadgen import HttpClient, run_in_loop, timed
from phone_http import PhoneClient

CLIENTS = ("HttpClient", "PhoneClient")
LOOPS = ("asyncio", "uvloop")
BURST_EVERY = 0.625
SPREAD = 0.5


def page(rows: int = 1000) -> bytes:
    """A standings fragment's size and shape: about 480 KB of rows, 40 KB compressed."""
    rng = random.Random(7)
    cells = "".join
    body = cells(
        f'<tr><td class="num">{i}</td><td><a href="/en/t/x/players/{i}/">Player '
        f'{rng.randint(1, 99999)}</a> <span class="muted">#{i}</span><span class="tiebreak">'
        f'lowest round {rng.randint(0, 99)}</span></td><td class="num"><a href="/en/t/x/tables/'
        f'1/{i}/">{rng.randint(1, 125)}</a></td>'
        + cells(f'<td class="num round-col">{rng.randint(0, 150)}</td>' for _ in range(6))
        + f'<td class="num"><strong>{rng.randint(0, 900)}</strong></td></tr>\n'
        for i in range(rows)
    )
    html = f'<section id="standings"><p>12 of 250 results in.</p><table>{body}</table></section>'
    return gzip.compress(html.encode(), 6)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nginx(folder: Path, port: int) -> subprocess.Popen:
    folder.chmod(0o755)  # nginx's worker runs as another user (www-data) when started by root
    (folder / "www").mkdir()
    (folder / "www" / "s.html").write_bytes(page())
    conf = folder / "nginx.conf"
    conf.write_text(
        f"worker_processes 1; daemon off; pid {folder}/nginx.pid; error_log {folder}/err.log;\n"
        "events { worker_connections 8192; }\n"
        "http { access_log off; keepalive_requests 100000; keepalive_timeout 300s;\n"
        f" server {{ listen 127.0.0.1:{port}; root {folder}/www;\n"
        "  location / { default_type text/html; add_header Content-Encoding gzip;\n"
        "   add_header X-Cache-Status HIT; add_header ETag '\"v1+gzip\"'; } } }\n"
    )
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    process = subprocess.Popen([nginx, "-c", str(conf), "-p", str(folder)])
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("nginx did not start")


async def _phones(client_kind: str, port: int, phones: int, bursts: int) -> int:
    start = time.perf_counter() + 1.0
    answered = 0

    async def phone(seed: int) -> None:
        nonlocal answered
        rng = random.Random(seed)
        if client_kind == "PhoneClient":
            client = PhoneClient("127.0.0.1", port, timeout=30)
        else:
            client = HttpClient("127.0.0.1", port, max_conns=1, timeout=30)
        headers = {"HX-Request": "true", "Accept-Encoding": "gzip"}
        for burst in range(bursts):
            due = start + burst * BURST_EVERY + rng.uniform(0, SPREAD)
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            _, response = await timed(client, "GET", "/s.html?v=1", due=due, headers=headers)
            if response is not None and counted_in(body_of(response, 6000)) == 12:
                answered += 1
        await client.close()

    await asyncio.gather(*(phone(i) for i in range(phones)))
    return answered


def measure(client_kind: str, loop: str, port: int, phones: int, bursts: int) -> dict:
    """In a process of its own: the answers read and the CPU they took."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    answered = run_in_loop(_phones(client_kind, port, phones, bursts), loop)
    after = resource.getrusage(resource.RUSAGE_SELF)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    return {
        "client": client_kind,
        "loop": loop,
        "answers": answered,
        "expected": phones * bursts,
        "us_per_answer": (user + system) / max(1, answered) * 1e6,
        "user_us": user / max(1, answered) * 1e6,
        "system_us": system / max(1, answered) * 1e6,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--phones", type=int, default=1500, help="connections (a phones' process's)")
    p.add_argument("--bursts", type=int, default=20)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="loadgen-cost-") as tmp:
        port = free_port()
        nginx = start_nginx(Path(tmp), port)
        try:
            rows = []
            for client_kind in CLIENTS:
                for loop in LOOPS:
                    with ProcessPoolExecutor(1) as one:
                        rows.append(
                            one.submit(
                                measure, client_kind, loop, port, args.phones, args.bursts
                            ).result()
                        )
        finally:
            nginx.terminate()
            nginx.wait(10)
    print(f"{args.phones:,} connections x {args.bursts} bursts, a 40 KB gzip answer each")
    print("| client | event loop | answers | CPU per answer (user + system) |")
    print("|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['client']} | {row['loop']} | {row['answers']:,} of {row['expected']:,} | "
            f"{row['us_per_answer']:.0f} µs ({row['user_us']:.0f} + {row['system_us']:.0f}) |"
        )
    return 0 if all(row["answers"] == row["expected"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
