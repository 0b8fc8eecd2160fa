"""The hall's 500-player event (bench/hall.py), built through the API: the superuser and its
token, the tournament, the players from a CSV, the stage seated, the officials, the first rounds
entered and confirmed; and an official's result, PUT then confirmed."""

import argparse
import asyncio
import json
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import loadgen
from loadgen import HttpClient, Sample, timed
from stack import BenchError, stack

PLAYERS = 500
TABLE_SIZE = 4
ROUNDS = 6  # rounds 3 to 6 are the officials' (bench/hall_desk.py)
STARTING_DOUBLE = 12
SETUP_ROUNDS = (1, 2)  # entered and confirmed at every table before the measurements
SEED = 2024


async def api(
    client: HttpClient,
    method: str,
    path: str,
    *,
    token: str | None = None,
    payload: Any = None,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    expect: tuple[int, ...] = (200, 201),
    timeout: float = 120.0,
) -> tuple[loadgen.Response, Any]:
    sent = {"Accept": "application/json", **(headers or {})}
    if token:
        sent["Authorization"] = f"Token {token}"
    if payload is not None:
        body = json.dumps(payload).encode()
        sent["Content-Type"] = "application/json"
    response = await client.request(method, path, headers=sent, body=body, timeout=timeout)
    if response.status not in expect:
        raise BenchError(f"{method} {path}: {response.status} {response.body[:600]!r}")
    ctype = response.headers.get("content-type", "")
    data = json.loads(response.body) if response.body and "json" in ctype else None
    return response, data


async def sign_in(client: HttpClient, username: str, password: str) -> str:
    """The user's API token. The bench is one address, which the sign-in limit (allauth's
    "login" rate, 30 a minute an address, counted for the token endpoint too) holds to 30
    sign-ins a minute where a venue's tablets are each their own: a refused one waits and asks
    again rather than fail the run."""
    deadline = time.monotonic() + 120
    while True:
        response, data = await api(
            client,
            "POST",
            "/api/v1/auth/token/",
            payload={"username": username, "password": password},
            expect=(200, 429),
        )
        if response.status == 200:
            return data["token"]
        if time.monotonic() > deadline:
            raise BenchError(f"sign-in of {username}: still refused (429) after 120 s")
        await asyncio.sleep(2.0)


def multipart(field_name: str, filename: str, content: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{field_name}"; '
            f'filename="{filename}"\r\nContent-Type: text/csv\r\n\r\n'
        ).encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"


def round_body(seats: list[int], table_number: int, round_no: int, rng: random.Random) -> dict:
    winner = (table_number + round_no) % len(seats)
    return {
        "blocked": False,
        "scores": [
            {
                "player": player,
                "pips": 0 if i == winner else rng.randint(1, 60),
                "went_out": i == winner,
            }
            for i, player in enumerate(seats)
        ],
    }


@dataclass
class Event:
    slug: str
    stage_id: int
    tables: dict[int, tuple[int, list[int]]]  # table id -> (number, player ids in seat order)
    admin_token: str
    official_tokens: list[str] = field(default_factory=list)
    setup_seconds: dict[str, float] = field(default_factory=dict)

    def table_ids(self) -> list[int]:
        return sorted(self.tables, key=lambda t: self.tables[t][0])


async def submit_and_confirm(
    client: HttpClient,
    token: str,
    table_id: int,
    number: int,
    seats: list[int],
    round_no: int,
    rng: random.Random,
) -> tuple[Sample, Sample]:
    """PUT a round result (new Idempotency-Key) and confirm it with its ETag: both samples."""
    path = f"/api/v1/tables/{table_id}/rounds/{round_no}/"
    body = json.dumps(round_body(seats, number, round_no, rng)).encode()
    headers = {
        "Authorization": f"Token {token}",
        "Content-Type": "application/json",
        "Accept": "application/json",
        "Idempotency-Key": str(uuid.uuid4()),
    }
    put, response = await timed(client, "PUT", path, headers=headers, body=body)
    if response is None or response.status not in (200, 201):
        detail = response.body[:300] if response is not None else put.error
        confirm = Sample(put.done, put.done, put.done, 0, f"not confirmed: PUT failed {detail!r}")
        if response is not None:
            put.error = f"HTTP {response.status}: {response.body[:200]!r}"
        return put, confirm
    confirm_headers = {
        "Authorization": f"Token {token}",
        "Accept": "application/json",
        "If-Match": response.headers.get("etag", ""),
    }
    confirm, answer = await timed(client, "POST", path + "confirm/", headers=confirm_headers)
    if answer is not None and answer.status != 200:
        confirm.error = f"HTTP {answer.status}: {answer.body[:200]!r}"
    return put, confirm


async def build_event(client: HttpClient, args: argparse.Namespace, run: str) -> Event:
    timings: dict[str, float] = {}
    password = uuid.uuid4().hex
    admin = f"bench-{run}-admin"
    start = time.perf_counter()
    done = stack(
        args,
        "manage",
        "createsuperuser",
        "--noinput",
        extra={
            "DJANGO_SUPERUSER_USERNAME": admin,
            "DJANGO_SUPERUSER_PASSWORD": password,
            "DJANGO_SUPERUSER_EMAIL": f"{admin}@example.invalid",
        },
        capture_output=True,
    )
    if done.returncode:
        raise BenchError(f"createsuperuser failed: {done.stderr[-800:]}")
    token = await sign_in(client, admin, password)
    timings["superuser and token"] = time.perf_counter() - start

    slug = f"load-{run}"
    start = time.perf_counter()
    await api(
        client,
        "POST",
        "/api/v1/tournaments/",
        token=token,
        payload={
            "name": f"Load bench {run}",
            "slug": slug,
            "domino_set": STARTING_DOUBLE,
            "preset": "samboree",
        },
    )
    rng = random.Random(SEED)
    lines = ["number,name,household,club"]
    for n in range(1, PLAYERS + 1):
        household = f"H{n // 3}" if n % 10 < 3 else ""  # 30% in households of two or three
        lines.append(
            f"{n},Player {n:03d} {rng.choice('ABCDEFGHJKLMNPRSTW')}.,{household},Club {n % 17}"
        )
    body, ctype = multipart("file", "players.csv", ("\n".join(lines) + "\n").encode())
    t = time.perf_counter()
    _, data = await api(
        client,
        "POST",
        f"/api/v1/tournaments/{slug}/players/import/",
        token=token,
        body=body,
        headers={"Content-Type": ctype},
    )
    timings["import 500 players (CSV)"] = time.perf_counter() - t
    if data["created"] != PLAYERS:
        raise BenchError(f"imported {data['created']} players, not {PLAYERS}")
    _, stage = await api(
        client,
        "POST",
        f"/api/v1/tournaments/{slug}/stages/",
        token=token,
        payload={
            "name": "Qualifying",
            "kind": "qualifying",
            "rounds": ROUNDS,
            "starting_double": STARTING_DOUBLE,
            "table_size_min": TABLE_SIZE,
            "table_size_max": TABLE_SIZE,
        },
    )
    t = time.perf_counter()
    _, seated = await api(
        client, "POST", f"/api/v1/stages/{stage['id']}/seat/", token=token, payload={"seed": SEED}
    )
    timings["seat 125 tables"] = time.perf_counter() - t
    tables = {
        t["id"]: (
            t["number"],
            [s["player"]["id"] for s in sorted(t["seats"], key=lambda s: s["position"])],
        )
        for t in seated
    }
    if len(tables) != PLAYERS // TABLE_SIZE:
        raise BenchError(f"seated {len(tables)} tables, not {PLAYERS // TABLE_SIZE}")
    event = Event(slug=slug, stage_id=stage["id"], tables=tables, admin_token=token)
    timings["tournament, players, stage, seating"] = time.perf_counter() - start

    # Officials: users made by the staff endpoint, each with a token of its own.
    start = time.perf_counter()

    async def official(i: int) -> str:
        username, secret = f"bench-{run}-official-{i:02d}", uuid.uuid4().hex
        await api(
            client,
            "POST",
            f"/api/v1/tournaments/{slug}/staff/",
            token=token,
            payload={"username": username, "role": "official", "password": secret},
        )
        return await sign_in(client, username, secret)

    event.official_tokens = await loadgen.gather_bounded(
        [lambda i=i: official(i) for i in range(args.officials)], 8
    )
    timings[f"{args.officials} officials and their tokens"] = time.perf_counter() - start

    # Rounds 1 and 2 at every table, so the standings have content.
    start = time.perf_counter()
    jobs = [
        (table_id, number, seats, round_no)
        for round_no in SETUP_ROUNDS
        for table_id, (number, seats) in sorted(tables.items(), key=lambda kv: kv[1][0])
    ]
    results = await loadgen.gather_bounded(
        [lambda j=j: submit_and_confirm(client, token, j[0], j[1], j[2], j[3], rng) for j in jobs],
        8,
    )
    bad = [s for pair in results for s in pair if s.status not in (200, 201)]
    if bad:
        raise BenchError(f"{len(bad)} setup submissions failed, e.g. {bad[0].error}")
    expected = len(jobs)
    counted = await wait_for_counted(client, event, expected, timeout=120)
    timings[f"{len(jobs)} results entered and confirmed, standings counting them"] = (
        time.perf_counter() - start
    )
    if counted < expected:
        raise BenchError(f"standings count {counted} results after 120 s, not {expected}")
    event.setup_seconds = timings
    return event


async def wait_for_counted(client: HttpClient, event: Event, expected: int, timeout: float) -> int:
    deadline = time.perf_counter() + timeout
    counted = -1
    while time.perf_counter() < deadline:
        _, data = await api(client, "GET", f"/api/v1/stages/{event.stage_id}/standings/")
        counted = data["results_counted"]
        if counted >= expected:
            break
        await asyncio.sleep(0.25)
    return counted
