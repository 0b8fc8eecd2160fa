"""deploy/backup.sh and deploy/restore.sh on real PostgreSQL: a whole event played through the API
(tests/test_recorded_event.py's), dumped, restored into a fresh database, answers the same API
calls with the same answers; a database with tables is refused unless --force; the dumps older
than ROUNDHOUSE_BACKUP_DAYS go."""

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from psycopg import sql

from tests import factories
from tests.conftest import client_for, services_missing
from tests.test_recorded_event import NAMES, Recorder, play_round
from tournaments.models import Tournament

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]
DAY = 24 * 60 * 60

# The API's answers compared between the two databases, read by a process of their own (Django's
# test client, each database's, no Redis: nothing cached by one is served for the other).
ANSWERS = r"""
import json
import sys

import django

django.setup()
from django.contrib.auth import get_user_model
from django.test.utils import setup_test_environment
from rest_framework.test import APIClient

from tournaments.models import Stage

setup_test_environment()
anyone, organiser = APIClient(), APIClient()
organiser.force_authenticate(user=get_user_model().objects.get(username="desk"))
paths = ["/api/v1/tournaments/backed-up/", "/api/v1/tournaments/backed-up/stages/",
         "/api/v1/tournaments/backed-up/standings/", "/api/v1/tournaments/backed-up/placings/"]
for stage in Stage.objects.filter(tournament__slug="backed-up").order_by("order"):
    paths += [f"/api/v1/stages/{stage.pk}/tables/", f"/api/v1/stages/{stage.pk}/standings/"]
exports = ("players", "seating", "scores", "standings", "bracket", "placings")
paths += [f"/api/v1/tournaments/backed-up/exports/{name}.csv" for name in exports]
answers = []
for path in paths:
    client = organiser if "/exports/" in path else anyone
    response = client.get(path)
    if response.streaming:
        body = b"".join(response.streaming_content).decode("utf-8-sig")
    else:
        body = response.json()
    answers.append({"path": path, "status": response.status_code, "etag": response.get("ETag"),
                    "body": body})
json.dump(answers, sys.stdout)
"""


def database_url(name: str) -> str:
    db = connection.settings_dict
    user = quote(db.get("USER") or "")
    password = f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else ""
    host = db.get("HOST") or "localhost"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{user}{password}@{host}{port}/{name}"


def script_env(url: str, tmp_path: Path, **extra: str) -> dict[str, str]:
    """The test's environment, on that database, without Redis (the restore empties the cache:
    here a process's own) and without the host's environment file."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"REDIS_URL", "CELERY_BROKER_URL"}
    }
    return {
        **env,
        "DATABASE_URL": url,
        "ROUNDHOUSE_ENV_FILE": str(tmp_path / "no-env-file"),
        "VENV": str(Path(sys.executable).parent.parent),
        **extra,
    }


def run(tmp_path: Path, url: str, *command: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        list(command),
        env=script_env(url, tmp_path, **extra),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def answers_of(tmp_path: Path, url: str) -> list[dict]:
    answer = run(tmp_path, url, sys.executable, "-c", ANSWERS)
    assert answer.returncode == 0, answer.stderr[-3000:]
    return json.loads(answer.stdout)


@pytest.fixture
def empty_database() -> Iterator[str]:
    """A database of its own beside the test's, dropped after the test."""
    if connection.vendor != "postgresql":
        services_missing("DATABASE_URL is not PostgreSQL (backup.sh dumps PostgreSQL)")
    for tool in ("pg_dump", "pg_restore", "psql"):
        if not shutil.which(tool):
            services_missing(f"{tool} is not installed (apt-get install postgresql-client)")
    name = f"{connection.settings_dict['NAME']}_restored"[:63]
    with psycopg.connect(database_url("postgres"), autocommit=True) as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield name
    with psycopg.connect(database_url("postgres"), autocommit=True) as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def play_an_event() -> None:
    """tests/test_recorded_event.py's event: 12 players imported, seated, every round entered
    and confirmed, the qualifying closed, the final played and closed: placings."""
    record = Recorder()
    organiser = client_for(factories.OrganiserAccountFactory(username="desk"))
    anyone = client_for(None)
    made = organiser.post(
        "/api/v1/tournaments/",
        {"name": "Backed Up", "slug": "backed-up", "preset": "samboree", "with_stages": True},
        format="json",
    )
    assert made.status_code == 201, made.content
    staff = {"username": "tablet", "role": "official", "password": "tablet-password-1"}
    organiser.post("/api/v1/tournaments/backed-up/staff/", staff, format="json")
    official = client_for(get_user_model().objects.get(username="tablet"))
    players = "number,name\n" + "".join(f"{n},{name}\n" for n, name in enumerate(NAMES, 1))
    organiser.post(
        "/api/v1/tournaments/backed-up/players/import/",
        {"file": SimpleUploadedFile("p.csv", players.encode())},
        format="multipart",
    )
    qualifying, playoff = record("stages", anyone.get("/api/v1/tournaments/backed-up/stages/"))
    organiser.post(f"/api/v1/stages/{qualifying['id']}/seat/", {"seed": 5}, "json")
    tables = record("tables", anyone.get(f"/api/v1/stages/{qualifying['id']}/tables/"))
    for table in tables:
        for round_no in range(1, qualifying["rounds"] + 1):
            play_round(official, record, table, round_no)
    assert organiser.post(f"/api/v1/stages/{qualifying['id']}/close/").status_code in (200, 202)
    official.patch(f"/api/v1/stages/{playoff['id']}/", {"starting_double": 9, "rounds": 2})
    (final,) = record("final tables", anyone.get(f"/api/v1/stages/{playoff['id']}/tables/"))
    for round_no in (1, 2):
        play_round(official, record, final, round_no)
    assert organiser.post(f"/api/v1/stages/{playoff['id']}/close/").status_code in (200, 202)


def age(path: Path, days: float) -> None:
    then = time.time() - days * DAY
    os.utime(path, (then, then))


@pytest.mark.django_db(transaction=True)
def test_a_restored_backup_answers_the_api_as_the_database_it_was_taken_from(
    empty_database, tmp_path
):
    play_an_event()
    original = database_url(connection.settings_dict["NAME"])
    restored = database_url(empty_database)
    backups = tmp_path / "backups"
    backups.mkdir()
    (old := backups / "roundhouse-2000-01-01T000000Z.dump").write_bytes(b"old")
    age(old, 15)
    (recent := backups / "roundhouse-2000-01-02T000000Z.dump").write_bytes(b"recent")
    age(recent, 13)

    taken = run(
        tmp_path,
        original,
        "bash",
        "deploy/backup.sh",
        ROUNDHOUSE_BACKUP_DIR=str(backups),
        ROUNDHOUSE_BACKUP_DAYS="14",
    )
    assert taken.returncode == 0, taken.stderr
    dump = Path(taken.stdout.strip())
    assert dump.parent == backups and dump.name.startswith("roundhouse-") and dump.stat().st_size
    assert sorted(path.name for path in backups.iterdir()) == sorted([recent.name, dump.name])
    assert f"deleted {old}" in taken.stderr

    put_back = run(tmp_path, restored, "bash", "deploy/restore.sh", str(dump))
    assert put_back.returncode == 0, put_back.stderr[-3000:]

    before = answers_of(tmp_path, original)
    assert [a["status"] for a in before] == [200] * len(before)
    placings = next(a for a in before if a["path"].endswith("/placings/"))
    assert sum(name in json.dumps(placings["body"]) for name in NAMES) == len(NAMES)
    assert answers_of(tmp_path, restored) == before

    # Again over it: refused without --force, nothing changed; with --force, the same answers.
    refused = run(tmp_path, restored, "bash", "deploy/restore.sh", str(dump))
    assert refused.returncode == 1
    assert f"the database {empty_database} has " in refused.stderr
    assert "or give --force to replace everything in it; nothing was changed" in refused.stderr
    forced = run(tmp_path, restored, "bash", "deploy/restore.sh", "--force", str(dump))
    assert forced.returncode == 0, forced.stderr[-3000:]
    assert answers_of(tmp_path, restored) == before


@pytest.mark.django_db(transaction=True)
def test_restore_refuses_a_file_that_is_not_a_dump_and_changes_nothing(tmp_path):
    if connection.vendor != "postgresql" or not shutil.which("pg_restore"):
        services_missing("PostgreSQL and pg_restore are needed")
    factories.TournamentFactory(slug="kept")
    not_a_dump = tmp_path / "players.csv"
    not_a_dump.write_text("number,name\n1,Ann\n", encoding="utf-8")
    url = database_url(connection.settings_dict["NAME"])
    for args, said in (
        ([str(not_a_dump)], "is not a dump of pg_dump's custom format"),
        ([str(tmp_path / "missing.dump")], "no such file"),
        ([], "usage: restore.sh [--force] FILE"),
        (["--forse", str(not_a_dump)], "unknown option --forse"),
    ):
        answer = run(tmp_path, url, "bash", "deploy/restore.sh", *args)
        assert answer.returncode == 1, args
        assert said in answer.stderr, answer.stderr
    assert list(Tournament.objects.values_list("slug", flat=True)) == ["kept"]


def test_backup_refuses_a_number_of_days_that_is_not_one(tmp_path):
    answer = run(
        tmp_path,
        "postgres://nobody@127.0.0.1:1/none",
        "bash",
        "deploy/backup.sh",
        ROUNDHOUSE_BACKUP_DIR=str(tmp_path / "backups"),
        ROUNDHOUSE_BACKUP_DAYS="two weeks",
    )
    assert answer.returncode == 1
    assert "ROUNDHOUSE_BACKUP_DAYS must be a whole number of days" in answer.stderr
    assert not (tmp_path / "backups").exists()
