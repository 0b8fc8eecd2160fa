"""A client generated from the served OpenAPI schema runs a whole event (issue 23).

openapi-python-client generates a client from /api/v1/schema/ into a temporary folder, with no
hand edits (its one setting: a PDF is read as bytes, as application/octet-stream is). The
generator must print no warning; every generated module must import; then a Samboree runs
through the generated code alone, over httpx into the WSGI app: sign in, the tournament, an
official, the players, seating, every round entered (with an Idempotency-Key) and confirmed, a
replay, a reused key, a missing and a stale If-Match (typed: 428's Error, 412's `current`), a
correction, the history, the standings, a refused and a good close, the playoff on the day, the
placings, each export and the table cards; and the club around it: started, its roster
imported, the tournament added, a season counting it (a refused PATCH typed), its ladder. The
client raises on any status the schema does not declare, and its models raise on any answer that
does not fit their schema."""

import importlib
import io
import os
import pkgutil
import shutil
import subprocess
import sys

import httpx
import pytest

from config.wsgi import application
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

GENERATOR = shutil.which("openapi-python-client", path=os.path.dirname(sys.executable))
BASE = "http://testserver"
PASSWORD = "a-long-test-password"
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lu"]


@pytest.fixture
def generated(tmp_path, client, monkeypatch):
    """The client package, generated from the schema this server serves."""
    assert GENERATOR, "openapi-python-client is a test dependency (uv sync installs it)"
    schema = client.get("/api/v1/schema/", {"format": "json"})
    assert schema.status_code == 200
    (tmp_path / "schema.json").write_bytes(schema.content)
    (tmp_path / "config.yaml").write_text(
        "content_type_overrides:\n  application/pdf: application/octet-stream\n"
    )
    environment = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"}
    run = subprocess.run(
        [
            GENERATOR,
            "generate",
            "--path",
            str(tmp_path / "schema.json"),
            "--config",
            str(tmp_path / "config.yaml"),
            "--meta",
            "none",
            "--output-path",
            str(tmp_path / "roundhouse_client"),
        ],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
        check=False,
    )
    said = run.stdout + run.stderr
    assert run.returncode == 0, said
    assert "warning" not in said.lower() and "error" not in said.lower(), said
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m.split(".")[0] == "roundhouse_client"]:
        del sys.modules[name]  # another test's generation
    package = importlib.import_module("roundhouse_client")
    modules = [m.name for m in pkgutil.walk_packages(package.__path__, "roundhouse_client.")]
    for name in modules:
        importlib.import_module(name)  # every module imports (it was NameError: Unset)
    assert len(modules) > 60
    return package


def wsgi() -> dict:
    return {"transport": httpx.WSGITransport(app=application)}


def test_a_generated_client_runs_a_whole_event(generated):
    from roundhouse_client import AuthenticatedClient, Client
    from roundhouse_client.api.auth import auth_token_create
    from roundhouse_client.api.clubs import (
        clubs_create,
        clubs_members_import_create,
        clubs_seasons_create,
        clubs_seasons_ladder_retrieve,
        clubs_seasons_partial_update,
        clubs_tournaments_create,
    )
    from roundhouse_client.api.stages import (
        stages_cards_retrieve,
        stages_close_create,
        stages_partial_update,
        stages_seat_create,
        stages_standings_retrieve,
        stages_tables_list,
    )
    from roundhouse_client.api.tables import (
        tables_rounds_confirm_create,
        tables_rounds_history_list,
        tables_rounds_retrieve,
        tables_rounds_update,
    )
    from roundhouse_client.api.tournaments import (
        tournaments_create,
        tournaments_exports_retrieve,
        tournaments_placings_list,
        tournaments_players_import_create,
        tournaments_staff_create,
        tournaments_stages_list,
        tournaments_standings_retrieve,
    )
    from roundhouse_client.models import (
        AddStaffRequest,
        AuthTokenRequest,
        ClosedOutput,
        ClubTournamentInputRequest,
        Conflict,
        Error,
        LadderOutputRuleEnum,
        MembersImportRequest,
        PatchedSeasonInputRequest,
        PatchedStageRequest,
        PlayersImportRequest,
        PreconditionFailedOutput,
        PresetEnum,
        RoleEnum,
        RoundResultInputRequest,
        RoundResultOutput,
        RoundStatusEnum,
        ScoreInputRequest,
        SeasonInputRequest,
        SeatStageInputRequest,
        StandingsOutput,
        StartClubInputRequest,
        TournamentRequest,
        TournamentsExportsRetrieveName,
        ValidationError,
    )
    from roundhouse_client.types import File

    factories.OrganiserAccountFactory(username="desk")
    anyone = Client(base_url=BASE, raise_on_unexpected_status=True, httpx_args=wsgi())

    def sign_in(username: str, password: str = PASSWORD) -> AuthenticatedClient:
        body = AuthTokenRequest(username=username, password=password)
        token = auth_token_create.sync(client=anyone, body=body).token
        return AuthenticatedClient(
            base_url=BASE,
            token=token,
            prefix="Token",  # the scheme's prefix (the generator's default is Bearer)
            raise_on_unexpected_status=True,
            httpx_args=wsgi(),
        )

    wrong = auth_token_create.sync(
        client=anyone, body=AuthTokenRequest(username="desk", password="not it")
    )
    assert isinstance(wrong, ValidationError) and "non_field_errors" in wrong.additional_properties
    desk = sign_in("desk")

    made = tournaments_create.sync(
        client=desk,
        body=TournamentRequest(
            name="Generated Rally", slug="generated", preset=PresetEnum.SAMBOREE, with_stages=True
        ),
    )
    assert made.slug == "generated"
    staff = AddStaffRequest(username="tablet", role=RoleEnum.OFFICIAL, password=PASSWORD)
    assert tournaments_staff_create.sync(slug="generated", client=desk, body=staff).username
    tablet = sign_in("tablet")

    # The club that owns it: its roster, the tournament, a season counting it.
    club = clubs_create.sync(
        client=desk, body=StartClubInputRequest(name="Generated Club", slug="gen-club")
    )
    assert club.organisers == ["desk"]
    roster = "name,member_number\n" + "".join(f"{name},G-{n}\n" for n, name in enumerate(NAMES, 1))
    members = clubs_members_import_create.sync(
        slug="gen-club",
        client=desk,
        body=MembersImportRequest(file=File(io.BytesIO(roster.encode()), file_name="roster.csv")),
    )
    assert members.created == 12
    owned = clubs_tournaments_create.sync_detailed(
        slug="gen-club", client=desk, body=ClubTournamentInputRequest(tournament="generated")
    )
    assert owned.status_code == 201 and owned.parsed.season is None
    season = clubs_seasons_create.sync(
        slug="gen-club",
        client=desk,
        body=SeasonInputRequest(
            name="Generated season",
            rule=LadderOutputRuleEnum.POINTS,
            points=[10, 8, 6],
            tournaments=["generated"],
        ),
    )
    assert (season.slug, season.tournaments) == ("generated-season", ["generated"])
    rising = clubs_seasons_partial_update.sync(
        slug="gen-club", season_slug=season.slug, client=desk,
        body=PatchedSeasonInputRequest(points=[1, 5]),
    )  # fmt: skip
    assert isinstance(rising, ValidationError) and "points" in rising.additional_properties
    best = clubs_seasons_partial_update.sync(
        slug="gen-club", season_slug=season.slug, client=desk,
        body=PatchedSeasonInputRequest(rule=LadderOutputRuleEnum.BEST_N, best_n=1),
    )  # fmt: skip
    assert (best.rule, best.best_n, best.points) == (LadderOutputRuleEnum.BEST_N, 1, [10, 8, 6])

    players = "number,name,member_number\n" + "".join(
        f"{n},{name},G-{n}\n" for n, name in enumerate(NAMES, 1)
    )
    upload = File(payload=io.BytesIO(players.encode()), file_name="players.csv")
    imported = tournaments_players_import_create.sync(
        slug="generated", client=desk, body=PlayersImportRequest(file=upload)
    )
    assert imported.created == 12 and imported.unknown_member_numbers == []

    qualifying, playoff = tournaments_stages_list.sync(slug="generated", client=anyone)
    tables = stages_seat_create.sync(
        stage_id=qualifying.id, client=desk, body=SeatStageInputRequest(seed=5)
    )
    assert sorted(len(t.seats) for t in tables) == [4, 4, 4]
    early = stages_close_create.sync(stage_id=qualifying.id, client=desk)
    assert isinstance(early, Conflict) and len(early.problems) == 3 * qualifying.rounds

    def play(table, round_no: int) -> RoundResultOutput:
        scores = [
            ScoreInputRequest(
                player=seat.player.id,
                pips=0 if seat.position == 1 else seat.player.number + round_no,
                went_out=seat.position == 1,
            )
            for seat in table.seats
        ]
        body = RoundResultInputRequest(scores=scores)
        key = f"t{table.id}-r{round_no}"
        put = tables_rounds_update.sync_detailed(
            table_id=table.id, round_no=round_no, client=tablet, body=body, idempotency_key=key
        )
        assert put.status_code == 201 and put.parsed.status == RoundStatusEnum.SUBMITTED
        hidden = tables_rounds_retrieve.sync(table_id=table.id, round_no=round_no, client=anyone)
        assert isinstance(hidden, Error)  # not confirmed: the public reads nothing yet
        replay = tables_rounds_update.sync_detailed(
            table_id=table.id, round_no=round_no, client=tablet, body=body, idempotency_key=key
        )
        assert replay.status_code == 201 and replay.parsed.version == put.parsed.version
        confirmed = tables_rounds_confirm_create.sync_detailed(
            table_id=table.id, round_no=round_no, client=tablet, if_match=put.headers["ETag"]
        )
        assert confirmed.parsed.status == RoundStatusEnum.CONFIRMED
        return confirmed

    for table in tables:
        for round_no in range(1, qualifying.rounds + 1):
            confirmed = play(table, round_no)
            if (table.number, round_no) != (1, 2):
                continue
            # Changing a confirmed round: the errors come back typed.
            scores = [
                ScoreInputRequest(player=seat.player.id, pips=seat.player.number)
                for seat in table.seats
            ]
            other = RoundResultInputRequest(blocked=True, scores=scores, reason="Time was called")
            where = {"table_id": table.id, "round_no": 2, "client": tablet, "body": other}
            reused = tables_rounds_update.sync(**where, idempotency_key=f"t{table.id}-r2")
            assert isinstance(reused, Error) and "Idempotency-Key" in reused.detail
            missing = tables_rounds_update.sync_detailed(**where)
            assert missing.status_code == 428 and isinstance(missing.parsed, Error)
            stale = tables_rounds_update.sync_detailed(**where, if_match='"0-0"')
            assert stale.status_code == 412 and isinstance(stale.parsed, PreconditionFailedOutput)
            assert stale.parsed.current.version == confirmed.parsed.version
            corrected = tables_rounds_update.sync_detailed(**where, if_match=stale.headers["ETag"])
            assert corrected.status_code == 200 and corrected.parsed.blocked
            tables_rounds_confirm_create.sync(
                table_id=table.id, round_no=2, client=tablet, if_match=corrected.headers["ETag"]
            )
            history = tables_rounds_history_list.sync(table_id=table.id, round_no=2, client=desk)
            assert [v.action.value for v in history][-2:] == ["corrected", "confirmed"]
            corrected_pips = {seat.player.id: seat.player.number for seat in table.seats}
            assert {score.player: score.pips for score in history[-1].scores} == corrected_pips

    standings = stages_standings_retrieve.sync(stage_id=qualifying.id, client=anyone)
    assert isinstance(standings, StandingsOutput) and len(standings.rows) == 12
    assert standings.ranked_through_round == qualifying.rounds
    assert tournaments_standings_retrieve.sync(slug="generated", client=anyone).rows
    closed = stages_close_create.sync(stage_id=qualifying.id, client=desk)
    assert isinstance(closed, ClosedOutput) and closed.stage.status.value == "closed"
    again = stages_close_create.sync(stage_id=qualifying.id, client=desk)  # harmless
    assert isinstance(again, ClosedOutput) and again.stage.status.value == "closed"

    day = stages_partial_update.sync(
        stage_id=playoff.id, client=tablet, body=PatchedStageRequest(starting_double=9, rounds=2)
    )
    assert (day.starting_double, day.rounds, day.engines) == (9, 2, [9, 8])
    (final,) = stages_tables_list.sync(stage_id=playoff.id, client=anyone)
    for round_no in (1, 2):
        play(final, round_no)
    assert isinstance(stages_close_create.sync(stage_id=playoff.id, client=desk), ClosedOutput)
    placings = tournaments_placings_list.sync(slug="generated", client=anyone)
    assert len(placings) == 12  # everyone placed: the final's table first
    finalists = {seat.player.id for seat in final.seats}
    assert {p.player.id for p in placings if p.place <= len(finalists)} == finalists
    # The placings decided, the season's ladder counts every member (the players linked).
    ladder = clubs_seasons_ladder_retrieve.sync(
        slug="gen-club", season_slug="generated-season", client=anyone
    )
    assert len(ladder.lines) == 12 and ladder.lines[0].value == "10"

    for name in TournamentsExportsRetrieveName:
        csv = tournaments_exports_retrieve.sync(slug="generated", name=name, client=desk)
        assert isinstance(csv, str) and csv.count("\n") > 1, name
    cards = stages_cards_retrieve.sync_detailed(stage_id=qualifying.id, client=tablet)
    assert cards.status_code == 200 and cards.content.startswith(b"%PDF")
