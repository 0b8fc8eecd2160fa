"""deploy/stack.sh end to end over real HTTP: nginx in front of gunicorn, two Celery workers and
beat on PostgreSQL and a Redis of the test's own, a tournament played from players CSV to
placings, every request through nginx."""

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import psycopg
import pytest
from psycopg import sql

from tests.conftest import services_missing

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]
STACK_SH = ROOT / "deploy" / "stack.sh"
PASSWORD = "stack-test-password-1"


def postgres_server_url() -> str:
    """The server of DATABASE_URL when it is PostgreSQL, else the local one; no database name."""
    url = urlparse(os.environ.get("DATABASE_URL", ""))
    if url.scheme not in ("postgres", "postgresql", "pgsql"):
        return "postgres://postgres@127.0.0.1:5432"
    return f"postgres://{url.netloc}"


def nginx_binary() -> str:
    """Debian's nginx (in /usr/sbin, often off a normal user's PATH)."""
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if not found:
        services_missing("nginx is not installed (deploy/stack.sh puts it in front of gunicorn)")
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def require_postgres_server(server_url: str) -> None:
    url = urlparse(server_url)
    if not shutil.which("pg_isready"):
        services_missing("pg_isready is not installed (a real PostgreSQL is needed)")
    answer = subprocess.run(
        ["pg_isready", "-h", url.hostname or "127.0.0.1", "-p", str(url.port or 5432)],
        capture_output=True,
        text=True,
    )
    if answer.returncode != 0:
        services_missing(
            f"PostgreSQL at {url.hostname}:{url.port} does not answer: {answer.stdout}"
        )


class Response:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    def json(self) -> Any:
        return json.loads(self.body)


class Stack:
    """One stack of deploy/stack.sh, with a port, a database, a queue and a directory of its own."""

    def __init__(self, *, directory: Path, redis_url: str, pg_url: str, nginx: str) -> None:
        self.port, self.staff_port, self.nginx_port = free_port(), free_port(), free_port()
        self.directory, self.pg_url = directory, pg_url
        self.database = f"roundhouse_stack_test_{uuid.uuid4().hex[:8]}"
        self.env = {
            **os.environ,
            "PORT": str(self.port),
            "STAFF_PORT": str(self.staff_port),
            "NGINX_PORT": str(self.nginx_port),
            "NGINX": nginx,
            "STACK_DIR": str(directory),
            "STACK_DB": self.database,
            "STACK_PG_URL": pg_url,
            "STACK_REDIS_URL": redis_url,
            "STACK_QUEUE": f"roundhouse-stack-test-{uuid.uuid4().hex[:8]}",
        }
        # Everyone goes through nginx; gunicorn's own port is for checking what reached it.
        self.base = f"http://127.0.0.1:{self.nginx_port}"
        self.origin = f"http://127.0.0.1:{self.port}"
        self.token, self.organiser_made = "", False

    def open_event(self, name: str, slug: str, *, players: int) -> None:
        """An organiser (its token kept for the next requests) and a Samboree of `players`
        imported by CSV, through nginx as a script would."""
        self.make_organiser()
        if not self.token:
            token = self.request(
                "POST", "/api/v1/auth/token/", {"username": "desk", "password": PASSWORD}
            )
            assert token.status == 200, token.body
            self.token = token.json()["token"]
        created = self.request(
            "POST",
            "/api/v1/tournaments/",
            {"name": name, "slug": slug, "domino_set": 12, "preset": "samboree"},
        )
        assert created.status == 201, created.body
        roster = "number,name\n" + "".join(f"{n},Player {n:02d}\n" for n in range(1, players + 1))
        imported = self.upload_csv(f"/api/v1/tournaments/{slug}/players/import/", roster)
        assert (imported.status, imported.json()) == (201, {"created": players})

    def make_organiser(self) -> None:
        """The organiser "desk" (password PASSWORD), made once a stack: its tests share it."""
        if self.organiser_made:
            return
        made = self.run(
            "manage", "createsuperuser", "--noinput", "--username", "desk",
            "--email", "desk@example.org", env={"DJANGO_SUPERUSER_PASSWORD": PASSWORD},
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        self.organiser_made = True

    def run(self, *args: str, env: dict[str, str] | None = None, timeout: float = 120):
        return subprocess.run(
            ["bash", str(STACK_SH), *args],
            cwd=ROOT,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def pids(self) -> set[int]:
        """Every process of the stack: the main ones and their process groups' members."""
        leaders = {int(p.read_text()) for p in self.directory.glob("*.pid")}
        members = set(leaders)
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[2]) in leaders:  # the process group id
                members.add(int(stat.parent.name))
        return members

    def logs(self) -> str:
        return "\n".join(
            f"----- {log.name} -----\n{log.read_text(errors='replace')[-3000:]}"
            for log in sorted(self.directory.glob("*.log"))
        )

    def drop_database(self) -> None:
        with psycopg.connect(f"{self.pg_url}/postgres", autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                    sql.Identifier(self.database)
                )
            )

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
        anonymous: bool = False,
        timeout: float = 15,
    ) -> Response:
        all_headers = {"Accept": "application/json", **(headers or {})}
        if self.token and not anonymous:
            all_headers["Authorization"] = f"Token {self.token}"
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        request = urllib.request.Request(
            self.base + path, data=data, method=method, headers=all_headers
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return Response(answer.status, dict(answer.headers), answer.read())
        except urllib.error.HTTPError as error:
            return Response(error.code, dict(error.headers), error.read())

    def get(self, path: str) -> Any:
        answer = self.request("GET", path)
        assert answer.status == 200, (path, answer.status, answer.body[:500])
        return answer.json()

    def upload_csv(self, path: str, content: str) -> Response:
        boundary = uuid.uuid4().hex
        body = (
            f"--{boundary}\r\n"
            'Content-Disposition: form-data; name="file"; filename="players.csv"\r\n'
            "Content-Type: text/csv\r\n\r\n"
            f"{content}\r\n--{boundary}--\r\n"
        ).encode()
        content_type = f"multipart/form-data; boundary={boundary}"
        return self.request("POST", path, raw=body, headers={"Content-Type": content_type})


@pytest.fixture(scope="module")
def stack(request, module_redis, tmp_path_factory) -> Iterator[Stack]:
    """One stack for the tests of a module (a start is about 13 s of this machine's 2 cores):
    each test opens a tournament of its own, under its own slug, and looks in the logs and the
    caches for that slug's paths only. This module's test of deploy/stack.sh starts as a first
    start does: it creates the database and migrates it. The other modules' stacks start on a
    copy of one migrated once."""
    yield from started_stack(
        module_redis, tmp_path_factory.mktemp("stack"), migrated=request.module.__name__ != __name__
    )


# The database migrated once, that the stacks' databases are copies of.
_migrated: list[str] = []
TEMPLATE_PREFIX = "roundhouse_stack_template_"
TEMPLATE_LOCK = 7_312_101  # an advisory lock on the server: one process migrates it


def migrations_digest() -> str:
    """What a migrated database depends on: every migration file of the project, and the
    locked versions of the packages (theirs: allauth's, axes', ...)."""
    digest = hashlib.sha256((ROOT / "uv.lock").read_bytes())
    for path in sorted(ROOT.glob("*/migrations/*.py")):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\x00" + path.read_bytes())
    return digest.hexdigest()[:16]


def migrated_template(pg_url: str) -> str:
    """A database migrated as stack.sh's start migrates one (a migrate takes 10 to 40 s of this
    machine's 2 cores), named by the migrations it holds: made by whichever test process asks
    first (the others wait for it on an advisory lock), and kept for the next run while the
    migrations are the same; one of older migrations is dropped then."""
    if _migrated:
        return _migrated[0]
    name = TEMPLATE_PREFIX + migrations_digest()
    with psycopg.connect(f"{pg_url}/postgres", autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", [TEMPLATE_LOCK])
        try:
            names = [
                row[0]
                for row in conn.execute(
                    "SELECT datname FROM pg_database WHERE datname LIKE %s",
                    [TEMPLATE_PREFIX + "%"],
                )
            ]
            if name not in names:
                for older in names:
                    drop_database(pg_url, older)
                migrate_into(pg_url, name)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", [TEMPLATE_LOCK])
    _migrated.append(name)
    return name


def migrate_into(pg_url: str, name: str) -> None:
    """Migrate a new database `name`, under a working name until it is whole: a run stopped
    half-way leaves no template that looks migrated."""
    building = f"{name}_building"
    drop_database(pg_url, building)
    with psycopg.connect(f"{pg_url}/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(building)))
    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "--verbosity", "0"],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": f"{pg_url}/{building}"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    if migrate.returncode != 0:
        drop_database(pg_url, building)
        raise AssertionError(migrate.stdout + migrate.stderr)
    with psycopg.connect(f"{pg_url}/postgres", autocommit=True) as conn:
        rename = sql.SQL("ALTER DATABASE {} RENAME TO {}")
        conn.execute(rename.format(sql.Identifier(building), sql.Identifier(name)))


def drop_database(pg_url: str, name: str) -> None:
    with psycopg.connect(f"{pg_url}/postgres", autocommit=True) as conn:
        drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
        conn.execute(drop.format(sql.Identifier(name)))


def started_stack(
    private_redis, tmp_path, *, migrated: bool = True, **settings: str
) -> Iterator[Stack]:
    """A stack started on the test's Redis and a database of its own, with `settings` in its
    environment (PUBLIC_MAX_AGE="5": what the app reads from it); stopped and dropped after.
    `migrated`: its database a copy of one migrated already (stack.sh's start finds nothing to
    migrate), else created and migrated by stack.sh."""
    pg_url = postgres_server_url()
    require_postgres_server(pg_url)
    stack = Stack(
        directory=tmp_path / "stack",
        redis_url=f"redis://127.0.0.1:{private_redis.port}",
        pg_url=pg_url,
        nginx=nginx_binary(),
    )
    stack.env.update(settings)
    if migrated:
        template = migrated_template(pg_url)
        with psycopg.connect(f"{pg_url}/postgres", autocommit=True) as conn:
            conn.execute(
                sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                    sql.Identifier(stack.database), sql.Identifier(template)
                )
            )
    try:
        started = stack.run("start")
        assert started.returncode == 0, f"{started.stdout}\n{started.stderr}\n{stack.logs()}"
        yield stack
    finally:
        stack.run("stop")
        print(stack.logs())  # shown by pytest when the test failed
        stack.drop_database()


def running(pid: int) -> bool:
    """Alive and not a zombie waiting for its parent."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_for(fetch: Callable[[], Any], done: Callable[[Any], bool], what: str, timeout: float):
    deadline = time.monotonic() + timeout
    while True:
        value = fetch()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s; last seen {value!r}")
        time.sleep(0.25)


def pips(seat: dict, round_no: int) -> int:
    """Seat 1 goes out every round; the others keep their badge number plus the round in hand."""
    return 0 if seat["position"] == 1 else seat["player"]["number"] + round_no


def play_round(stack: Stack, table: dict, round_no: int) -> None:
    body = {
        "blocked": False,
        "scores": [
            {"player": s["player"]["id"], "pips": pips(s, round_no), "went_out": s["position"] == 1}
            for s in table["seats"]
        ],
    }
    path = f"/api/v1/tables/{table['id']}/rounds/{round_no}/"
    key = {"Idempotency-Key": f"stack-{table['id']}-{round_no}"}
    put = stack.request("PUT", path, body, headers=key)
    assert put.status == 201, put.body
    assert put.json()["status"] == "submitted"
    replay = stack.request("PUT", path, body, headers=key)  # a tablet resending after a timeout
    assert replay.json()["version"] == put.json()["version"], replay.body
    confirm = stack.request("POST", f"{path}confirm/", headers={"If-Match": put.headers["ETag"]})
    assert confirm.status == 200, confirm.body
    assert confirm.json()["status"] == "confirmed"


def test_stack_plays_a_tournament_over_http_then_stops(stack):
    assert stack.get("/health/live/") == {"status": "ok"}
    ready = stack.get("/health/ready/")
    assert ready["checks"] == {"database": "ok", "cache": "ok", "broker": "ok"}
    status = stack.run("status")
    assert status.returncode == 0, status.stdout + status.stderr

    stack.open_event("Stack Night", "stack-night", players=12)

    stage = {"starting_double": 12, "rounds": 2, "table_size_min": 3, "table_size_max": 4}
    qualifying = stack.request(
        "POST",
        "/api/v1/tournaments/stack-night/stages/",
        {"name": "Qualifying", "kind": "qualifying", **stage},
    ).json()
    playoff = stack.request(
        "POST",
        "/api/v1/tournaments/stack-night/stages/",
        {"name": "Final", "kind": "playoff", **stage, "table_size_min": 2},
    ).json()
    seated = stack.request("POST", f"/api/v1/stages/{qualifying['id']}/seat/", {"seed": 7})
    assert seated.status == 200, seated.body
    tables = seated.json()
    assert sorted(len(t["seats"]) for t in tables) == [4, 4, 4]

    for table in tables:
        for round_no in (1, 2):
            play_round(stack, table, round_no)

    # The workers rebuild the standings from the confirmed results.
    standings = wait_for(
        lambda: stack.get(f"/api/v1/stages/{qualifying['id']}/standings/"),
        lambda body: body["results_counted"] == 6,
        "qualifying standings",
        timeout=15,
    )
    totals = {r["player"]["id"]: r["total"] for r in standings["rows"]}
    expected = {s["player"]["id"]: pips(s, 1) + pips(s, 2) for t in tables for s in t["seats"]}
    assert totals == expected
    winners = {s["player"]["id"] for t in tables for s in t["seats"] if s["position"] == 1}
    assert {r["player"]["id"] for r in standings["rows"] if r["advances"]} == winners

    # A worker may still be rebuilding (a late coalesced task, or the sweeper): the API then
    # answers 409 and asks to try again in a moment, which a client does.
    closed = wait_for(
        lambda: stack.request("POST", f"/api/v1/stages/{qualifying['id']}/close/"),
        lambda answer: answer.status != 409 or b"try again in a moment" not in answer.body,
        "closing the qualifying stage",
        timeout=10,
    )
    assert closed.status == 202, closed.body
    final_tables = wait_for(
        lambda: stack.get(f"/api/v1/stages/{playoff['id']}/tables/"),
        lambda body: len(body) == 1,
        "the final table, seated by a worker",
        timeout=20,
    )
    assert {s["player"]["id"] for s in final_tables[0]["seats"]} == winners

    for round_no in (1, 2):
        play_round(stack, final_tables[0], round_no)
    closed = stack.request("POST", f"/api/v1/stages/{playoff['id']}/close/")
    assert closed.status == 202, closed.body
    placings = wait_for(
        lambda: stack.get("/api/v1/tournaments/stack-night/placings/"),
        lambda body: len(body) == 12,
        "the placings, decided by a worker",
        timeout=20,
    )
    champion = next(s for s in final_tables[0]["seats"] if s["position"] == 1)
    assert placings[0]["place"] == 1
    assert placings[0]["player"]["id"] == champion["player"]["id"]
    assert {p["player"]["id"] for p in placings} == set(expected)

    # Pages render with DEBUG off (templates, the 404 page).
    assert stack.request("GET", "/en/t/stack-night/", headers={"Accept": "text/html"}).status == 200
    assert stack.request("GET", "/no-such-page/", headers={"Accept": "text/html"}).status == 404

    # All of it through nginx (the officials' requests, with their token, bypass its cache).
    access = (stack.directory / "nginx-access.log").read_text()
    assert '"POST /api/v1/tournaments/stack-night/stages/ HTTP/1.1" 201' in access
    assert "cache=BYPASS" in access

    pids = stack.pids()
    # Six main processes (nginx, two gunicorn pools, two Celery workers, beat), and their
    # children: nginx's and gunicorn's workers, Celery's pools.
    assert len(pids) >= 10
    stopped = stack.run("stop")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    alive = {pid for pid in pids if running(pid)}
    assert not alive, f"still running after stop: {alive}"
    assert stack.run("status").returncode == 3
    staff = f"http://127.0.0.1:{stack.staff_port}"
    for base in (stack.base, stack.origin, staff):  # nginx's port and both gunicorns'
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(f"{base}/health/live/", timeout=2)
