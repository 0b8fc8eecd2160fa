"""bench_standings.py's data: the PostgreSQL bench database (created if missing; refused unless
DATABASE_URL names PostgreSQL and a database whose name contains "bench"), and the three
qualifying stages of 500 x 4, 2,000 x 13 and 10,000 x 13, built from a seed or reused from an
earlier run."""

import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

import environ

SEED = 2024
TABLE_SIZE = 4
MAX_PIPS = 90


@dataclass(frozen=True)
class Size:
    players: int
    rounds: int

    @property
    def label(self) -> str:
        return f"{self.players:,} x {self.rounds}"

    @property
    def slug(self) -> str:
        return f"bench-standings-{self.players}x{self.rounds}"


SIZES = (Size(500, 4), Size(2_000, 13), Size(10_000, 13))
PROFILED = Size(2_000, 13)


# --------------------------------------------------------------------------------------------
# The database


def database_settings() -> dict[str, Any]:
    """The DATABASE_URL settings; exits unless it names a PostgreSQL bench database."""
    url = os.environ.get("DATABASE_URL", "")
    if not url:
        sys.exit(
            "bench_standings: DATABASE_URL is not set. "
            "This benchmark runs on PostgreSQL only, e.g.\n"
            "  DATABASE_URL=postgres://postgres@127.0.0.1:5432/roundhouse_bench "
            ".venv/bin/python bench/bench_standings.py"
        )
    db = environ.Env.db_url_config(url)
    if "postgresql" not in db["ENGINE"]:
        sys.exit(
            f"bench_standings: DATABASE_URL uses {db['ENGINE']}, not PostgreSQL. "
            "This benchmark runs on PostgreSQL only: its figures mean nothing elsewhere."
        )
    if "bench" not in db["NAME"]:
        sys.exit(
            f"bench_standings: refusing to write 12,500 benchmark players into {db['NAME']!r}: "
            "use a database whose name contains 'bench', e.g. roundhouse_bench."
        )
    return db


def create_database_if_missing(db: dict[str, Any]) -> None:
    import psycopg

    params = {
        "host": db.get("HOST") or None,
        "port": db.get("PORT") or None,
        "user": db.get("USER") or None,
        "password": db.get("PASSWORD") or None,
    }
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [db["NAME"]]).fetchone():
            return
        print(f"creating database {db['NAME']}")
        if shutil.which("createdb"):
            command = ["createdb"]
            for flag, key in (("-h", "host"), ("-p", "port"), ("-U", "user")):
                if params[key]:
                    command += [flag, str(params[key])]
            env = {
                **os.environ,
                **({"PGPASSWORD": params["password"]} if params["password"] else {}),
            }
            subprocess.run([*command, db["NAME"]], check=True, env=env)
        else:
            conn.execute(f'CREATE DATABASE "{db["NAME"]}"')


# --------------------------------------------------------------------------------------------
# The data


def stage_is_complete(stage: Any, size: Size) -> bool:
    from scoring.models import RoundResult, Score
    from tables.models import Seat

    tables = size.players // TABLE_SIZE
    return (
        Seat.objects.filter(stage=stage).count() == size.players
        and RoundResult.objects.filter(stage=stage, status=RoundResult.Status.CONFIRMED).count()
        == tables * size.rounds
        and Score.objects.filter(result__stage=stage).count() == size.players * size.rounds
    )


def delete_tournament(tournament: Any) -> None:
    """Delete a bench tournament: scores and seats first, as they protect their players."""
    from django.db import transaction

    from scoring.models import RoundResult, Score, StandingRow
    from tables.models import Seat

    with transaction.atomic():
        Score.objects.filter(result__stage__tournament=tournament).delete()
        StandingRow.objects.filter(stage__tournament=tournament).delete()
        RoundResult.objects.filter(stage__tournament=tournament).delete()
        Seat.objects.filter(stage__tournament=tournament).delete()
        tournament.delete()


def build_stage(size: Size, official: Any) -> Any:
    """One tournament with one qualifying stage of the size, every round confirmed (seeded)."""
    from django.db import transaction

    from scoring.models import RoundResult, Score
    from tables.models import Seat, Table
    from tournaments.models import Player, Stage, Tournament

    rng = random.Random(f"{SEED}-{size.players}-{size.rounds}")
    batch = 5_000
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=f"Bench standings {size.label}", slug=size.slug, domino_set=12
        )
        stage = Stage.objects.create(
            tournament=tournament,
            order=1,
            name="Qualifying",
            kind=Stage.Kind.QUALIFYING,
            status=Stage.Status.SEATED,
            domino_set=12,
            rounds=size.rounds,
            starting_double=12,
            table_size_min=TABLE_SIZE,
            table_size_max=TABLE_SIZE,
        )
        players = Player.objects.bulk_create(
            [
                Player(
                    tournament=tournament,
                    number=n,
                    name=f"Player {n}",
                    status=Player.Status.CHECKED_IN,
                )
                for n in range(1, size.players + 1)
            ],
            batch_size=batch,
        )
        tables = Table.objects.bulk_create(
            [Table(stage=stage, number=n) for n in range(1, size.players // TABLE_SIZE + 1)],
            batch_size=batch,
        )
        order = list(players)
        rng.shuffle(order)
        at_table = {
            table.pk: order[k * TABLE_SIZE : (k + 1) * TABLE_SIZE] for k, table in enumerate(tables)
        }
        Seat.objects.bulk_create(
            [
                Seat(stage=stage, table=table, player=player, position=position)
                for table in tables
                for position, player in enumerate(at_table[table.pk], start=1)
            ],
            batch_size=batch,
        )
        results = RoundResult.objects.bulk_create(
            [
                RoundResult(
                    stage=stage,
                    table=table,
                    round_no=round_no,
                    engine=stage.engine(round_no),
                    status=RoundResult.Status.CONFIRMED,
                    submitted_by=official,
                    confirmed_by=official,
                )
                for table in tables
                for round_no in range(1, size.rounds + 1)
            ],
            batch_size=batch,
        )
        scores = []
        for result in results:
            winner = rng.randrange(TABLE_SIZE)
            for seat_index, player in enumerate(at_table[result.table_id]):
                went_out = seat_index == winner
                pips = 0 if went_out else rng.randint(0, MAX_PIPS)
                scores.append(Score(result=result, player=player, pips=pips, went_out=went_out))
        Score.objects.bulk_create(scores, batch_size=batch)
    return stage


def prepare_data(fresh: bool) -> dict[Size, Any]:
    from django.contrib.auth import get_user_model

    from tournaments.models import Stage, Tournament

    official, _ = get_user_model().objects.get_or_create(username="bench-official")
    stages = {}
    for size in SIZES:
        tournament = Tournament.objects.filter(slug=size.slug).first()
        stage = Stage.objects.filter(tournament=tournament, order=1).first() if tournament else None
        if stage is not None and not fresh and stage_is_complete(stage, size):
            print(f"{size.label:>11}: reusing the data of an earlier run")
            stages[size] = stage
            continue
        if tournament is not None:
            delete_tournament(tournament)
        start = time.perf_counter()
        stages[size] = build_stage(size, official)
        print(f"{size.label:>11}: built in {time.perf_counter() - start:.1f} s")
    vacuum_tables()
    return stages


def vacuum_tables() -> None:
    """Fresh statistics and no dead rows, so the plans and the pages scanned are the steady ones:
    --fresh deletes 158,000 scores, and every timed rebuild deletes the lines it rewrites. Run
    before each size and case too, as autovacuum would between them (this machine's PostgreSQL
    runs with autovacuum off, and dead lines would pile up from one case to the next)."""
    from django.db import connection

    with connection.cursor() as cursor:
        for table in (
            "scoring_score",
            "scoring_roundresult",
            "tables_seat",
            "tables_table",
            "tournaments_player",
            "scoring_standingrow",
            "scoring_stagestandings",
        ):
            cursor.execute(f"VACUUM ANALYZE {table}")
