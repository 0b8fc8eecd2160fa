"""A corrected players file imported as an update (mode=update): the players it names by number
are corrected, the others added, nobody removed; a dry run says what it would change."""

import threading
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction
from django.test import Client

from tests import factories
from tests.scoring.helpers import seat_tables
from tournaments.models import Division, Player, PlayerChange
from tournaments.selectors import player_history
from tournaments.services.players import update_players_from_csv

pytestmark = pytest.mark.django_db


def upload(client, tournament, content: str, **fields):
    return client.post(
        f"/api/v1/tournaments/{tournament.slug}/players/import/",
        {"file": SimpleUploadedFile("players.csv", content.encode(), "text/csv"), **fields},
        format="multipart",
    )


def update(client, tournament, content: str, **fields):
    return upload(client, tournament, content, mode="update", **fields)


@pytest.fixture
def entered(tournament):
    """#30 Ann of the Smiths (Elks), #31 Bob, #32 Cy: the list as first imported."""
    return {
        30: factories.PlayerFactory(
            tournament=tournament, number=30, name="Ann", household="Smith", club="Elks"
        ),
        31: factories.PlayerFactory(tournament=tournament, number=31, name="Bob"),
        32: factories.PlayerFactory(tournament=tournament, number=32, name="Cy", club="Elks"),
    }


def players_of(tournament) -> dict[int, tuple]:
    return {
        p.number: (p.name, p.household, p.club, p.status, p.division_id)
        for p in tournament.players.all()
    }


def test_an_update_corrects_the_players_it_names_adds_the_others_and_removes_nobody(
    as_organiser, as_official, tournament, entered
):
    content = (
        "number,name,household,club\n30,Ann Smyth,Smyth,Elks\n31,Bob,,\n33,Dee,Jones,Lakeside\n"
    )
    refused = upload(as_organiser, tournament, content)  # without mode=update: new players only
    assert refused.json()["file"] == [
        "Line 2: Number 30 is already in the tournament.",
        "Line 3: Number 31 is already in the tournament.",
    ]
    assert update(as_official, tournament, content).status_code == 403
    assert tournament.players.count() == 3
    response = update(as_organiser, tournament, content)
    assert response.status_code == 200, response.json()
    assert response.json() == {"created": 1, "updated": 1, "unchanged": 1}
    assert players_of(tournament) == {
        30: ("Ann Smyth", "Smyth", "Elks", "registered", None),
        31: ("Bob", "", "", "registered", None),
        32: ("Cy", "", "Elks", "registered", None),  # not in the file: kept
        33: ("Dee", "Jones", "Lakeside", "registered", None),
    }


def test_a_dry_run_lists_each_change_with_its_old_and_new_value_and_stores_nothing(
    as_organiser, tournament, entered
):
    seniors = Division.objects.create(tournament=tournament, name="Seniors", order=1)
    before, history = players_of(tournament), Player.history.count()
    content = "number,name,club,division\n30,Ann Smyth,Elks,Seniors\n31,Bob,Lakeside,\n33,Dee,,\n"
    response = update(as_organiser, tournament, content, dry_run="true")
    assert response.status_code == 200, response.json()
    assert response.json() == {
        "created": 1,
        "updated": 2,
        "unchanged": 0,
        "changes": [
            {"number": 30, "field": "name", "old": "Ann", "new": "Ann Smyth"},
            {"number": 30, "field": "division", "old": None, "new": "Seniors"},
            {"number": 31, "field": "club", "old": "", "new": "Lakeside"},
        ],
    }
    assert players_of(tournament) == before
    assert Player.history.count() == history
    applied = update(as_organiser, tournament, content)
    assert applied.json() == {"created": 1, "updated": 2, "unchanged": 0}
    assert tournament.players.get(number=30).division == seniors


def test_each_field_an_update_changes_is_in_the_players_history(
    as_organiser, organiser, tournament, entered
):
    update(as_organiser, tournament, "number,name,household\n30,Ann Smyth,Smyth\n")
    latest = player_history(entered[30])[0]
    assert latest.what == str(PlayerChange.UPDATED.label)
    assert latest.by == organiser.get_username()
    assert [(c.field, c.old, c.new) for c in latest.changes] == [
        ("Name", "Ann", "Ann Smyth"),
        ("Household", "Smith", "Smyth"),
    ]
    assert len(player_history(entered[31])) == 1  # not in the file: no entry


def test_columns_left_out_of_the_header_keep_the_players_values(as_organiser, tournament, entered):
    seniors = Division.objects.create(tournament=tournament, name="Seniors", order=1)
    Player.objects.filter(number=30).update(division=seniors, status="checked_in")
    response = update(as_organiser, tournament, "name,number\nAnn Smyth,30\nCy,32\n")
    assert response.json() == {"created": 0, "updated": 1, "unchanged": 1}
    assert players_of(tournament)[30] == ("Ann Smyth", "Smith", "Elks", "checked_in", seniors.pk)
    assert players_of(tournament)[32] == ("Cy", "", "Elks", "registered", None)
    # A column given with an empty cell is a value: no household, no division.
    update(as_organiser, tournament, "number,name,household,division\n30,Ann Smyth,,\n")
    assert players_of(tournament)[30] == ("Ann Smyth", "", "Elks", "checked_in", None)


def test_a_number_twice_in_an_update_is_refused_and_nothing_is_stored(
    as_organiser, tournament, entered
):
    before = players_of(tournament)
    response = update(as_organiser, tournament, "number,name\n30,Ann Smyth\n33,Dee\n30,Annie\n")
    assert response.status_code == 400
    assert response.json()["file"] == ["Line 4: Number 30 is used twice (also on line 2)."]
    assert players_of(tournament) == before


def test_every_bad_line_of_an_update_is_listed_and_nothing_is_stored(
    as_organiser, tournament, entered
):
    Player.objects.filter(number=31).update(status="checked_in")
    before, history = players_of(tournament), Player.history.count()
    content = (
        "number,name,status,division\n"
        "30,Ann Smyth,,\n"  # line 2: fine
        "31,Bob,registered,\n"  # line 3: would un-check-in Bob
        "32,,,\n"  # line 4: no name
        "33,Dee,,Juniors\n"  # line 5: no such division
        "34,Eve,asleep,\n"  # line 6
    )
    response = update(as_organiser, tournament, content, dry_run="true")
    assert response.status_code == 400
    rows = {row["line"]: row["message"] for row in response.json()["rows"]}
    assert sorted(rows) == [3, 4, 5, 6]
    assert rows[3] == (
        "Number 31 is checked_in and the file says registered: a file changes nobody's status, "
        "so leave the cell empty or as it is, and check the player in or withdraw them on the "
        "players list."
    )
    assert "name is empty" in rows[4]
    assert "division 'Juniors' is not one of this tournament's" in rows[5]
    assert "status 'asleep' is unknown" in rows[6]
    assert "no player was imported" in response.json()["detail"]
    assert update(as_organiser, tournament, content).json()["rows"] == response.json()["rows"]
    assert players_of(tournament) == before
    assert Player.history.count() == history


def test_a_status_as_the_players_or_empty_keeps_it(as_organiser, tournament, entered):
    Player.objects.filter(number=31).update(status="checked_in")
    content = "number,name,status\n30,Ann,registered\n31,Bob,\n32,Cy,\n33,Dee,checked in\n"
    response = update(as_organiser, tournament, content)
    assert response.json() == {"created": 1, "updated": 0, "unchanged": 3}
    statuses = dict(tournament.players.values_list("number", "status"))
    assert statuses == {30: "registered", 31: "checked_in", 32: "registered", 33: "checked_in"}


@pytest.mark.parametrize(
    ("fields", "key"), [({"mode": "replace"}, "mode"), ({"dry_run": "true"}, "dry_run")]
)
def test_an_unknown_mode_or_a_dry_run_without_update_is_refused(
    as_organiser, tournament, fields, key
):
    response = upload(as_organiser, tournament, "number,name\n1,Ann\n", **fields)
    assert response.status_code == 400
    assert key in response.json()
    assert not tournament.players.exists()


def test_once_the_placings_are_decided_an_update_corrects_names_but_adds_nobody(
    as_organiser, tournament, entered
):
    final = factories.StageFactory(tournament=tournament, status="closed")
    factories.TableFactory(stage=final)  # one table closed: the placings are decided
    names = update(as_organiser, tournament, "number,name\n30,Ann Smyth\n")
    assert names.status_code == 200, names.json()
    adding = update(as_organiser, tournament, "number,name\n30,Ann Smyth\n40,Late Larry\n")
    assert adding.status_code == 409
    assert "no player can be added" in adding.json()["detail"]
    assert set(players_of(tournament)) == {30, 31, 32}
    assert tournament.players.get(number=30).name == "Ann Smyth"


@pytest.mark.django_db(transaction=True)
def test_a_seated_players_name_corrected_by_a_file_shows_on_the_standings(as_organiser, tournament):
    stage = factories.StageFactory(tournament=tournament, status="seated", rounds=2)
    seat_tables(stage, [["Ann", "Bob", "Cy"]])
    home = f"/en/t/{tournament.slug}/"
    assert "Ann Smyth" not in Client().get(home).content.decode()
    number = tournament.players.get(name="Ann").number
    update(as_organiser, tournament, f"number,name\n{number},Ann Smyth\n")
    assert "Ann Smyth" in Client().get(home).content.decode()


# ---- two updates at once, on PostgreSQL -----------------------------------------------------

HOLD = 1.0  # seconds the first update stays open before it commits


@pytest.mark.django_db(transaction=True)
def test_two_updates_at_once_lose_neither(require_postgres, organiser):
    """The second waits for the first and works from what it saved: the club the first set is
    what the second changes back (both in the history), and #40, which the first added, the
    second finds there instead of failing on its number."""
    tournament = factories.TournamentFactory()
    ann = factories.PlayerFactory(tournament=tournament, number=30, name="Ann", club="Elks")
    first_in, outcome = threading.Event(), {}

    def first() -> None:
        try:
            with transaction.atomic():
                outcome["first"] = update_players_from_csv(
                    tournament=tournament,
                    content=b"number,name,club\n30,Ann,Lakeside\n40,Dee,\n",
                    by=organiser,
                )
                first_in.set()
                time.sleep(HOLD)
        finally:
            first_in.set()
            connection.close()

    def second() -> None:
        first_in.wait(10)
        begun = time.monotonic()
        try:
            outcome["second"] = update_players_from_csv(
                tournament=tournament,
                content=b"number,name,club\n30,Ann,Elks\n40,Dee,\n41,Eve,\n",
                by=organiser,
            )
        except Exception as error:  # what it refused, for the test to read
            outcome["error"] = error
        finally:
            outcome["waited"] = time.monotonic() - begun
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert "error" not in outcome, outcome.get("error")
    assert outcome["waited"] >= HOLD * 0.8  # it waited for the first to commit
    second_plan = outcome["second"]
    assert (len(second_plan.created), len(second_plan.updated)) == (1, 1)
    assert [(c.field, c.old, c.new) for c in second_plan.changes] == [("club", "Lakeside", "Elks")]
    assert sorted(tournament.players.values_list("number", flat=True)) == [30, 40, 41]
    clubs = [[c.new for c in entry.changes] for entry in player_history(ann)[:2]]
    assert clubs == [["Elks"], ["Lakeside"]]
