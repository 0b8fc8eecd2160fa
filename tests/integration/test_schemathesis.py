"""Fuzz every operation of the project's own OpenAPI schema through the WSGI app: no 5xx, ever.

Schemathesis reads /api/v1/schema/ from config.wsgi.application and sends what it generates with
an organiser's token, so the requests get past the permission checks. Ids in the path and body
are mostly steered to objects that exist (a seated stage with tables and results), and sometimes
left as generated, so both the deep code and the 404s and 400s are exercised.
"""

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.signals import request_finished, request_started
from django.db import DatabaseError, close_old_connections, transaction
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from config.wsgi import application
from scoring.models import RoundResult
from tests import factories
from tests.api_world import build_world
from tests.scoring.helpers import seat_tables
from tournaments.models import Staff, Tournament

EXAMPLES_PER_OPERATION = 25
BIGINT_MAX = 2**63 - 1

# The schema document needs no database, so it is read once, when the module is collected.
# (schemathesis.pytest.from_fixture would read it per test, after the database is ready, but its
# LazySchema sets `request.node._nodeid`, which pytest 9 no longer has.)
schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", application)

FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    # One world per operation for all its examples: the function-scoped fixture is on purpose.
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
)


@pytest.fixture
def same_connection(db) -> Iterator[None]:
    """Let the WSGI app run inside the test's transaction, as Django's test client does.

    Django closes "old" connections when a request starts and ends; inside the test's transaction
    that would close the very connection the test runs on (its autocommit is off). The test
    client disconnects that handler around each request; the werkzeug client of schemathesis
    does not know to, so it is disconnected for the test. (transactional_db would avoid this,
    but flushing PostgreSQL after each of the 29 operations costs a minute and a half.)
    """
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def world(same_connection) -> dict[str, Any]:
    """A tournament mid-event, its organiser's token, and the ids worth aiming at."""
    return build_world()


def aim(value: Any, known: list) -> Any:
    """A real id chosen by the generated value, or the value itself in one case out of n + 1."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return value
    slot = (value if isinstance(value, int) else len(value)) % (len(known) + 1)
    return known[slot] if slot < len(known) else value


def steer(case, world: dict[str, Any]) -> None:
    for name, value in case.path_parameters.items():
        if world.get(name):
            value = aim(value, world[name])
        case.path_parameters[name] = value
    if case.operation.method.upper() == "PUT" and len(repr(case.body)) % 2:
        # Replace whatever result is there, now and then, instead of a 428 every time.
        case.headers = {**(case.headers or {}), "If-Match": "*"}
    body = case.body
    if not isinstance(body, dict):
        return
    for key in ("player", "table"):
        if key in body:
            body[key] = aim(body[key], world[key])
    if isinstance(body.get("order"), list):
        body["order"] = [aim(value, world["order"]) for value in body["order"]]
    scores = body.get("scores")
    seated = world["seated"].get(case.path_parameters.get("table_id"), [])
    if isinstance(scores, list) and seated and all(isinstance(s, dict) for s in scores):
        # A line per seated player, in seat order (the generated lines repeated), and the one
        # who went out with no pips: the rules of the round are then all that can fail.
        scores = scores or [{"pips": 5}]
        lines = [dict(scores[i % len(scores)]) for i in range(len(seated))]
        for line, player in zip(lines, seated, strict=True):
            line["player"], line["went_out"] = player, False
        if not body.get("blocked"):
            lines[0].update(went_out=True, pips=0)
        body["scores"] = lines


# What each response is checked for: no 5xx, and that it is what the schema promises (a status
# it declares, its media type, its declared headers, a body that fits its schema).
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def call_as(who: str, case, world: dict[str, Any], on_commit) -> None:
    steer(case, world)
    headers = {"Authorization": f"Token {world['tokens'][who]}"} if who != "anyone" else {}
    # The on-commit work (standings rebuilds, the next playoff level: Celery inline) runs too.
    with on_commit(execute=True):
        try:
            # A savepoint per request: one that breaks the transaction (PostgreSQL refuses every
            # statement after an error) must not turn the requests after it into 500s too.
            with transaction.atomic():
                response = case.call(headers=headers)
        except DatabaseError:
            pass  # rolled back to the savepoint; the request's own 500 is reported below
    case.validate_response(response, checks=CHECKS, headers=headers)


@pytest.mark.parametrize("who", ["organiser", "official", "anyone"])
@schema.parametrize()
@FUZZ_SETTINGS
def test_api_answers_as_its_schema_says(case, world, who, django_capture_on_commit_callbacks):
    call_as(who, case, world, django_capture_on_commit_callbacks)


# ---- server errors the fuzz found (fixed since), pinned down so that they stay fixed ---------


def token_client(user) -> APIClient:
    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.mark.parametrize("missing", ["domino_set", "preset"])
def test_create_tournament_without_an_optional_field_takes_its_default(db, missing):
    """It was a 500: the schema makes both optional, create_tournament() required both."""
    body = {"name": "Club night", "slug": "club-night", "domino_set": 12, "preset": "samboree"}
    del body[missing]
    response = token_client(factories.OrganiserAccountFactory()).post(
        "/api/v1/tournaments/", body, format="json"
    )
    assert response.status_code == 201
    tournament = Tournament.objects.get(slug="club-night")
    assert (tournament.domino_set, tournament.preset) == (12, "samboree")


@pytest.mark.parametrize(
    "path",
    ["tables/{id}/rounds/1/", "tables/1/rounds/{id}/", "stages/{id}/", "stages/{id}/tables/"],
)
def test_an_id_beyond_what_the_database_holds_is_404(db, path):
    """It was a 500 on SQLite (OverflowError in the foreign-key lookup of a round's table)."""
    client = APIClient(raise_request_exception=False)
    response = client.get("/api/v1/" + path.format(id=BIGINT_MAX + 1))
    assert response.status_code == 404


def test_add_staff_with_a_look_alike_of_an_existing_username_is_that_accounts_409(db):
    """It was a 500 (IntegrityError): the lookup used the raw name, create_user the normalised.
    The look-alike is the same account, which joins only by an invitation."""
    tournament = factories.TournamentFactory(slug="fuzz")
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    joe = factories.UserFactory(username="joe")
    response = token_client(organiser).post(
        "/api/v1/tournaments/fuzz/staff/",
        {"username": "\uff4a\uff4f\uff45", "role": "official", "password": "a-long-password"},
        format="json",
    )
    assert response.status_code == 409  # not a second user, and nobody attached
    assert get_user_model().objects.filter(username="joe").get() == joe
    assert not Staff.objects.filter(tournament=tournament, user=joe).exists()


def test_players_import_with_a_nul_character_is_a_400_naming_the_line(db):
    """It was a 500 on PostgreSQL (a text field cannot hold NUL) and stored as is on SQLite."""
    tournament = factories.TournamentFactory(slug="fuzz")
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    upload = SimpleUploadedFile("players.csv", b"number,name\n1,Ann\n2,B\x00b\n")
    response = token_client(organiser).post(
        "/api/v1/tournaments/fuzz/players/import/", {"file": upload}, format="multipart"
    )
    assert response.status_code == 400
    assert [row["line"] for row in response.json()["rows"]] == [3]
    assert not tournament.players.exists()


def test_round_result_with_a_nul_character_in_the_reason_is_a_400(db):
    """It was a 500 on PostgreSQL when the version's reason was saved; stored as is on SQLite."""
    tournament = factories.TournamentFactory(slug="fuzz")
    official = factories.StaffFactory(tournament=tournament, role="official").user
    stage = factories.StageFactory(tournament=tournament, order=1, status="seated")
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    body = {
        "blocked": False,
        "reason": "late\x00",
        "scores": [
            {"player": p.pk, "pips": pips, "went_out": pips == 0}
            for p, pips in zip(players, (0, 5, 9), strict=True)
        ],
    }
    table = stage.tables.get()
    response = token_client(official).put(
        f"/api/v1/tables/{table.pk}/rounds/1/", body, format="json"
    )
    assert response.status_code == 400
    assert "reason" in response.json()
    assert not RoundResult.objects.exists()
