"""Who may call what: every v1 API endpoint and method against every role, as an explicit table.

Each cell has a world in which the call is valid apart from the role, so a cell that is refused
is refused for the role alone; the world is built once and each cell's changes are rolled back
after it (tests/permissions/conftest.py, `world`), so a cell that mutates cannot leak into
another.
"""

from collections.abc import Callable
from typing import NamedTuple

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import resolve
from rest_framework.test import APIClient

from config import urls
from tests.permissions.conftest import (
    ROLES,
    World,
    client_as,
    club_body,
    database_state,
    day_of_play_body,
    late_player_body,
    members_csv,
    new_tournament_body,
    player_body,
    players_csv,
    round_body,
    scores_csv,
    season_body,
    seat_body,
    staff_body,
    stage_body,
    stage_rename_body,
    tiebreak_body,
    token_body,
)

pytestmark = pytest.mark.django_db


# ---- the matrix ------------------------------------------------------------------------------


class Row(NamedTuple):
    name: str
    method: str
    path: str  # under /api/v1/; {t} is /tournaments/<slug>, {s} /stages, {r} a table's rounds
    expected: str  # one status per role, in the order of ROLES


# fmt: off
MATRIX = [
    # Statuses: anonymous, player, official, other official, organiser, other organiser,
    # superuser, and a seat's phone (claimed at the table of {r}, whose players report).
    #   name                 method  path                         ano ply off xof org xor sup seat
    Row("auth-token",        "POST", "auth/token/",              "200 200 200 200 200 200 200 200"),
    Row("schema",            "GET",  "schema/",                  "200 200 200 200 200 200 200 200"),
    Row("docs",              "GET",  "docs/",                    "200 200 200 200 200 200 200 200"),
    Row("preset-list",       "GET",  "presets/",                 "200 200 200 200 200 200 200 200"),
    Row("tournament-list",   "GET",  "tournaments/",             "200 200 200 200 200 200 200 200"),
    # Organisers (here, or of another tournament) may create one; officials and players not.
    Row("tournament-create", "POST", "tournaments/",             "401 403 403 403 201 201 201 403"),
    Row("tournament-detail", "GET",  "{t}/",                     "200 200 200 200 200 200 200 200"),
    Row("tournament-edit",   "PATCH","{t}/",                     "401 403 403 403 200 403 200 403"),
    # Permission passes for organisers, then the state refuses: `this` has confirmed results
    # (delete: hide it instead) and is not practice (reset).
    Row("tournament-delete", "DELETE","{t}/",                    "401 403 403 403 409 403 409 403"),
    Row("tournament-reset",  "POST", "{t}/reset/",               "401 403 403 403 409 403 409 403"),
    Row("staff-add",         "POST", "{t}/staff/",               "401 403 403 403 201 403 201 403"),
    Row("staff-list",        "GET",  "{t}/staff/",               "401 403 403 403 200 403 200 403"),
    Row("staff-role",        "PATCH","{t}/staff/{sid}/",         "401 403 403 403 200 403 200 403"),
    Row("staff-remove",      "DELETE","{t}/staff/{sid}/",        "401 403 403 403 204 403 204 403"),
    Row("invitation-list",   "GET",  "{t}/invitations/",         "401 403 403 403 200 403 200 403"),
    Row("invitation-create", "POST", "{t}/invitations/",         "401 403 403 403 201 403 201 403"),
    Row("invitation-revoke", "DELETE","{t}/invitations/{iid}/",  "401 403 403 403 204 403 204 403"),
    Row("player-list",       "GET",  "{t}/players/",             "200 200 200 200 200 200 200 200"),
    Row("player-add",        "POST", "{t}/players/",             "401 403 403 403 201 403 201 403"),
    Row("player-import",     "POST", "{t}/players/import/",      "401 403 403 403 201 403 201 403"),
    Row("player-delete",     "DELETE","{t}/players/{eve}/",      "401 403 403 403 204 403 204 403"),
    Row("player-withdraw",   "POST", "{t}/players/{eve}/withdraw/",
                                                                 "401 403 403 403 200 403 200 403"),
    Row("player-reinstate",  "POST", "{t}/players/{wes}/reinstate/",
                                                                 "401 403 403 403 200 403 200 403"),
    Row("player-check-in",   "POST", "{t}/players/{eve}/check-in/",
                                                                 "401 403 403 403 200 403 200 403"),
    Row("division-list",     "GET",  "{t}/divisions/",           "200 200 200 200 200 200 200 200"),
    Row("division-create",   "POST", "{t}/divisions/",           "401 403 403 403 201 403 201 403"),
    Row("division-detail",   "GET",  "{t}/divisions/{did}/",     "200 200 200 200 200 200 200 200"),
    Row("division-edit",     "PATCH","{t}/divisions/{did}/",     "401 403 403 403 200 403 200 403"),
    Row("division-remove",   "DELETE","{t}/divisions/{did}/",    "401 403 403 403 204 403 204 403"),
    Row("flight-list",       "GET",  "{t}/flights/",             "200 200 200 200 200 200 200 200"),
    # `this` has a division, and a player is in one group only: organisers are refused (409).
    Row("flight-set",        "POST", "{t}/flights/",             "401 403 403 403 409 403 409 403"),
    # It has no flights: removing them removes nothing.
    Row("flight-remove",     "DELETE","{t}/flights/",            "401 403 403 403 204 403 204 403"),
    Row("stage-list",        "GET",  "{t}/stages/",              "200 200 200 200 200 200 200 200"),
    Row("stage-create",      "POST", "{t}/stages/",              "401 403 403 403 201 403 201 403"),
    Row("stage-detail",      "GET",  "{s}/{playoff}/",           "200 200 200 200 200 200 200 200"),
    Row("stage-day-of-play", "PATCH","{s}/{playoff}/",           "401 403 200 403 200 403 200 403"),
    Row("stage-settings",    "PATCH","{s}/{playoff}/",           "401 403 403 403 200 403 200 403"),
    # Permission passes for organisers, then the state refuses: a playoff after another stage is
    # seated with that stage's advancers, by the close (tables/services.seat_stage).
    Row("stage-seat",        "POST", "{s}/{playoff}/seat/",      "401 403 403 403 409 403 409 403"),
    Row("stage-tables",      "GET",  "{s}/{qual}/tables/",       "200 200 200 200 200 200 200 200"),
    Row("stage-late-player", "POST", "{s}/{qual}/late-players/", "401 403 403 403 201 403 201 403"),
    # Permission passes for organisers, then the input is refused: one late player (Eve) waits,
    # and a new table of this stage seats 3 to 4.
    Row("stage-late-table",  "POST", "{s}/{qual}/late-tables/",  "401 403 403 403 400 403 400 403"),
    # Anyone claims a seat with the table's code and a badge number seated there (Di's).
    Row("table-code-seats",  "POST", "table-codes/{code}/seats/","201 201 201 201 201 201 201 201"),
    Row("table-reporting",   "POST", "tables/{tid}/reporting/",  "401 403 403 403 200 403 200 403"),
    Row("stage-cards",       "GET",  "{s}/{qual}/cards.pdf",     "401 403 200 403 200 403 200 403"),
    Row("stage-close",       "POST", "{s}/{early}/close/",       "401 403 403 403 202 403 202 403"),
    # Reopening a seated stage changes nothing (200); unseating a pending one is refused (409).
    Row("stage-reopen",      "POST", "{s}/{qual}/reopen/",       "401 403 403 403 200 403 200 403"),
    Row("stage-unseat",      "POST", "{s}/{playoff}/unseat/",    "401 403 403 403 409 403 409 403"),
    Row("stage-standings",   "GET",  "{s}/{early}/standings/",   "200 200 200 200 200 200 200 200"),
    Row("stage-tiebreak",    "POST", "{s}/{early}/tiebreaks/",   "401 403 201 403 201 403 201 403"),
    Row("standings",         "GET",  "{t}/standings/",           "200 200 200 200 200 200 200 200"),
    Row("placings",          "GET",  "{t}/placings/",            "200 200 200 200 200 200 200 200"),
    Row("scores-import",     "POST", "{t}/scores/import/",       "401 403 403 403 201 403 201 403"),
    # Round 1 is entered, not yet confirmed: only this tournament's staff read it (issue 23);
    # anyone else gets the 404 of a round with no result, as the public score sheet shows none.
    Row("round-get",         "GET",  "{r}/1/",                   "404 404 200 404 200 404 200 200"),
    Row("round-put",         "PUT",  "{r}/2/",                   "401 403 201 403 201 403 201 201"),
    Row("round-confirm",     "POST", "{r}/1/confirm/",           "401 403 200 403 200 403 200 200"),
    # A seat or the staff dispute a round; organisers hand a table back to the officials.
    Row("round-dispute",     "POST", "{r}/1/dispute/",           "401 403 200 403 200 403 200 200"),
    Row("round-history",     "GET",  "{r}/1/history/",           "401 403 200 403 200 403 200 403"),
    Row("export-players",    "GET",  "{t}/exports/players.csv",  "401 403 403 403 200 403 200 403"),
    Row("export-seating",    "GET",  "{t}/exports/seating.csv",  "401 403 403 403 200 403 200 403"),
    Row("export-scores",     "GET",  "{t}/exports/scores.csv",   "401 403 403 403 200 403 200 403"),
    Row("export-standings",  "GET",  "{t}/exports/standings.csv","401 403 403 403 200 403 200 403"),
    Row("export-bracket",    "GET",  "{t}/exports/bracket.csv",  "401 403 403 403 200 403 200 403"),
    # The clock: anyone reads it; only organisers start it (409 here: this stage has no limit).
    Row("stage-clock",       "GET",  "{t}/stages/{qual}/clock/", "200 200 200 200 200 200 200 200"),
    Row("stage-clock-start", "POST", "{t}/stages/{qual}/clock/", "401 403 403 403 409 403 409 403"),
    # Clubs: the ladder and a rating are public; the roster (contact details) is its organisers'.
    Row("club-roster",       "GET",  "{c}/members/",             "401 403 403 403 200 403 200 403"),
    Row("club-rating",       "GET",  "{c}/members/{mid}/rating/","200 200 200 200 200 200 200 200"),
    Row("club-ladder",       "GET",  "{c}/seasons/{season}/ladder/",
                                                                 "200 200 200 200 200 200 200 200"),
    # A rally's chapter standings are public.
    Row("rally-standings",   "GET",  "rallies/{rally}/standings/",
                                                                 "200 200 200 200 200 200 200 200"),
    # Organisers (of any tournament) start a club, as they create a tournament; anyone reads
    # one; only its organisers write to it (adding a tournament: one they organise too).
    Row("club-create",       "POST", "clubs/",                   "401 403 403 403 201 201 201 403"),
    Row("club-detail",       "GET",  "{c}/",                     "200 200 200 200 200 200 200 200"),
    Row("club-member-add",   "POST", "{c}/members/",             "401 403 403 403 201 403 201 403"),
    Row("club-member-import","POST", "{c}/members/import/",      "401 403 403 403 201 403 201 403"),
    Row("club-tournament-add","POST","{c}/tournaments/",         "401 403 403 403 201 403 201 403"),
    Row("club-season-create","POST", "{c}/seasons/",             "401 403 403 403 201 403 201 403"),
    Row("club-season-edit",  "PATCH","{c}/seasons/{season}/",    "401 403 403 403 200 403 200 403"),
    # Messages are the organisers'; the world has no entry that agreed to mail: a 400 on `to`.
    Row("message-list",      "GET",  "{t}/messages/",            "401 403 403 403 200 403 200 403"),
    Row("message-send",      "POST", "{t}/messages/",            "401 403 403 403 400 403 400 403"),
    # Prizes are the organisers'; the world's table is empty (announce: 409, nothing to announce;
    # unlock: 409, not announced).
    Row("prize-table",       "GET",  "{t}/prizes/event/",        "401 403 403 403 200 403 200 403"),
    Row("prize-table-put",   "PUT",  "{t}/prizes/event/",        "401 403 403 403 200 403 200 403"),
    Row("prize-announce",    "POST", "{t}/prizes/event/announce/",
                                                                 "401 403 403 403 409 403 409 403"),
    Row("prize-unlock",      "POST", "{t}/prizes/event/unlock/", "401 403 403 403 409 403 409 403"),
    Row("export-prizes",     "GET",  "{t}/exports/prizes.csv",   "401 403 403 403 200 403 200 403"),
]
# fmt: on

# The body of each write, valid in the world; uploads go as multipart, the rest as JSON.
BODIES: dict[str, Callable[[World], dict]] = {
    "auth-token": token_body,
    "tournament-create": new_tournament_body,
    "staff-add": staff_body,
    "staff-role": lambda w: {"role": "organiser"},
    "tournament-edit": lambda w: {"venue": "Elks Lodge", "time_zone": "America/Denver"},
    "invitation-create": lambda w: {"role": "official", "email": ""},
    "player-add": player_body,
    "division-create": lambda w: {"name": "70-79", "age_min": 70, "age_max": 79},
    "stage-clock-start": lambda w: {"action": "start"},
    "division-edit": lambda w: {"description": "Born 1957 to 1966"},
    "flight-set": lambda w: {"by": "list", "flights": {str(w.eve.number): "A"}},
    "player-import": players_csv,
    "stage-create": stage_body,
    "stage-day-of-play": day_of_play_body,
    "stage-settings": stage_rename_body,
    "stage-seat": seat_body,
    "stage-late-player": late_player_body,
    "stage-late-table": lambda w: {"players": [w.eve.pk], "from_round": 2},
    "stage-tiebreak": tiebreak_body,
    "scores-import": scores_csv,
    "round-put": round_body,
    "round-dispute": lambda w: {"note": "Bob had 21, not 12"},
    "table-code-seats": lambda w: {"number": w.seated[3].number},
    "table-reporting": lambda w: {"reporting": "officials"},
    "message-send": lambda w: {"to": "players", "subject": "Parking", "body": "Behind the hall."},
    "prize-table-put": lambda w: {"basis": "amounts", "prizes": [{"place": 1, "amount": "10"}]},
    "prize-unlock": lambda w: {"reason": "A typo"},
    "club-create": club_body,
    "club-member-add": lambda w: {"name": "Bea", "member_number": "S-2", "email": "b@x.org"},
    "club-member-import": members_csv,
    "club-tournament-add": lambda w: {"tournament": w.free.slug},
    "club-season-create": season_body,
    "club-season-edit": season_body,
}
# Writes that change nothing when they succeed: the token of a user who has one already.
# Writes that may answer 200 and change nothing: a token asked again; a stage reopened that is
# open already (the reopen of a closed one is tests/scoring/test_reopen.py's).
# Flights removed where there are none (their removal is tests/scoring/test_flights.py's).
IDEMPOTENT_WRITES = {"auth-token", "stage-reopen", "flight-remove"}

CELLS = [
    pytest.param(row, role, int(expected), id=f"{row.name}-{role}")
    for row in MATRIX
    for role, expected in zip(ROLES, row.expected.split(), strict=True)
]


def call(world: World, row: Row, role: str):
    client = client_as(world, role)
    path = "/api/v1/" + row.path.format(**world.ids())
    send = getattr(client, row.method.lower())
    if row.name not in BODIES:
        return send(path)
    body = BODIES[row.name](world)
    uploads = any(isinstance(value, SimpleUploadedFile) for value in body.values())
    return send(path, body, format="multipart" if uploads else "json")


def content(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.mark.parametrize(("row", "role", "expected"), CELLS)
def test_permission_matrix_cell(world: World, row: Row, role: str, expected: int):
    before = database_state()
    response = call(world, row, role)
    assert response.status_code == expected, content(response)[:500]
    if expected == 401:
        # A client told to authenticate is told how.
        assert response["WWW-Authenticate"] == "Token"
    if expected in (400, 401, 403, 409) or row.method == "GET" or row.name in IDEMPOTENT_WRITES:
        # A refused call (by permission, the input or the state) stores nothing; a read changes
        # nothing.
        assert database_state() == before
    else:
        assert database_state() != before, "a successful write changed nothing"


def test_the_matrix_names_every_api_route():
    """A new endpoint or method must get its row (here, or the entries' in
    test_entries_matrix.py): compare with the URL patterns and views."""
    from tests.permissions.test_entries_matrix import ENTRIES_MATRIX

    routes: set[tuple[str, str]] = set()

    def walk(patterns) -> None:
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):
                walk(pattern.url_patterns)
                continue
            view = pattern.callback.view_class
            for method in view.http_method_names:
                # OPTIONS is DRF's description of the view; HEAD is not routed by these views.
                if method not in ("options", "head") and hasattr(view, method):
                    routes.add((method.upper(), pattern.name))

    walk(next(p for p in urls.urlpatterns if str(p.pattern) == "api/v1/").url_patterns)
    fill = {"t": "tournaments/x", "s": "stages", "r": "tables/1/rounds"}
    fill |= {"c": "clubs/x", "season": "x", "rally": "x"}
    fill |= {
        key: "1"
        for key in ("qual", "early", "playoff", "eve", "wes", "sid", "iid", "did", "mid", "ann")
    }
    fill |= {"pay": "1", "key": "k", "bobkey": "k", "tid": "1", "code": "ABCDEF"}
    covered = {
        (row.method, resolve("/api/v1/" + row.path.format(**fill)).url_name)
        for row in [*MATRIX, *ENTRIES_MATRIX]
    }
    assert len(routes) == 93
    assert routes == covered


def test_session_writes_need_the_csrf_token(world: World):
    """Browser pages use the session: a write without the CSRF token is refused, stores nothing."""
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(world.users["organiser"])
    path = "/api/v1/tournaments/spring/players/"
    before = database_state()
    refused = client.post(path, player_body(world), format="json")
    assert refused.status_code == 403
    assert "CSRF" in refused.json()["detail"]
    assert database_state() == before
    secret = "a" * 32
    client.cookies["csrftoken"] = secret
    accepted = client.post(path, player_body(world), format="json", HTTP_X_CSRFTOKEN=secret)
    assert accepted.status_code == 201
