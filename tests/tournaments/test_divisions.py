"""A tournament's divisions, set by its organisers: the services' checks, the API, the console
page, a player's division (form, API, history) and the CSV import's division, age and birth
year. Every bad input is refused with its reason and changes nothing."""

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from tests import factories
from tournaments import services
from tournaments.exceptions import StateConflict
from tournaments.models import Division, Player, PlayerChange, Stage

pytestmark = pytest.mark.django_db


def add(tournament, name, age_min=None, age_max=None, description=""):
    return services.create_division(
        tournament=tournament, name=name, age_min=age_min, age_max=age_max, description=description
    )


@pytest.fixture
def seniors(tournament):
    """The senior games' age categories."""
    return [add(tournament, "50-59", 50, 59), add(tournament, "60-69", 60, 69),
            add(tournament, "70-79", 70, 79), add(tournament, "80+", 80)]  # fmt: skip


def snapshot(tournament):
    divisions = list(tournament.divisions.values_list("name", "age_min", "age_max", "order"))
    players = list(tournament.players.values_list("number", "division_id"))
    return divisions, players


def finish(tournament):
    """A playoff closed at one table: the placings are decided."""
    stage = factories.StageFactory(tournament=tournament, order=9, kind="playoff", status="closed")
    factories.TableFactory(stage=stage)
    assert Stage.objects.final_of(tournament) is not None


# ---- services ---------------------------------------------------------------------------------


def test_divisions_are_added_in_order_and_an_age_finds_its_division(tournament, seniors):
    assert [d.order for d in seniors] == [1, 2, 3, 4]
    assert services.division_for_age(tournament, 64).name == "60-69"
    assert services.division_for_age(tournament, 101).name == "80+"
    assert services.division_for_age(tournament, 49) is None
    open_one = add(tournament, "Open")  # no range: takes no age
    assert services.division_for_age(tournament, 30) is None
    assert open_one.order == 5


@pytest.mark.parametrize(
    ("values", "field", "says"),
    [
        ({"name": "  "}, "name", "needs a name"),
        ({"name": "Sixty\u200b"}, "name", "U+200B"),
        ({"name": "60-69 "}, "name", "named 60-69 already"),
        ({"name": "SIXTIES", "age_min": 65, "age_max": 75}, "age_min", "60-69 (60-69)"),
        ({"name": "Young", "age_max": 55}, "age_max", "overlap those of 50-59"),
        ({"name": "Old", "age_min": 90, "age_max": 85}, "age_max", "cannot be younger"),
        ({"name": "Ancient", "age_min": 131}, "age_min", "from 0 to 130"),
    ],
)
def test_a_bad_division_is_refused_on_its_field_and_nothing_changes(
    tournament, seniors, values, field, says
):
    before = snapshot(tournament)
    with pytest.raises(ValidationError) as refused:
        add(tournament, **values)
    assert says in " ".join(refused.value.message_dict[field])
    assert snapshot(tournament) == before


def test_a_change_is_checked_against_the_other_divisions_only(tournament, seniors):
    sixties = seniors[1]
    changed = services.update_division(division=sixties, changes={"name": "60-69", "age_max": 64})
    assert (changed.name, changed.age_max) == ("60-69", 64)
    before = snapshot(tournament)
    with pytest.raises(ValidationError) as refused:
        services.update_division(division=sixties, changes={"age_max": 72})
    assert "overlap those of 70-79" in str(refused.value)
    with pytest.raises(ValidationError):
        services.update_division(division=sixties, changes={"name": "70-79"})
    assert snapshot(tournament) == before


def test_a_division_with_players_is_not_removed(tournament, seniors):
    factories.PlayerFactory(tournament=tournament, division=seniors[0])
    factories.PlayerFactory(tournament=tournament, division=seniors[0])
    before = snapshot(tournament)
    with pytest.raises(StateConflict) as refused:
        services.remove_division(division=seniors[0])
    assert str(refused.value) == (
        "2 players are in 50-59. Move them to another division or to none first."
    )
    assert snapshot(tournament) == before
    services.remove_division(division=seniors[3])
    assert [d.name for d in tournament.divisions.all()] == ["50-59", "60-69", "70-79"]


def test_divisions_move_up_and_down(tournament, seniors):
    services.move_division(division=seniors[2], up=True)
    assert [d.name for d in tournament.divisions.all()] == ["50-59", "70-79", "60-69", "80+"]
    services.move_division(division=seniors[0], up=True)  # first already: stays
    services.move_division(division=seniors[0], up=False)
    assert [d.name for d in tournament.divisions.all()] == ["70-79", "50-59", "60-69", "80+"]


def test_once_the_placings_are_decided_divisions_stay_as_they_are(tournament, seniors):
    player = factories.PlayerFactory(tournament=tournament, division=seniors[0])
    finish(tournament)
    before = snapshot(tournament)
    for attempt in (
        lambda: add(tournament, "90+", 90),
        lambda: services.update_division(division=seniors[0], changes={"name": "Fifties"}),
        lambda: services.remove_division(division=seniors[3]),
        lambda: services.update_player(
            player=player, number=player.number, name=player.name, division=seniors[1]
        ),
    ):
        with pytest.raises(StateConflict, match="the placings"):
            attempt()
    assert snapshot(tournament) == before
    # A typo in the name is still corrected, the division left as it is.
    services.update_player(player=player, number=player.number, name="Ann Corrected")
    assert Player.objects.get(pk=player.pk).division == seniors[0]


# ---- API --------------------------------------------------------------------------------------


def url(tournament, division=None):
    base = f"/api/v1/tournaments/{tournament.slug}/divisions/"
    return f"{base}{division.pk}/" if division else base


def test_anyone_reads_the_divisions_with_their_players(anon, tournament, seniors):
    factories.PlayerFactory(tournament=tournament, division=seniors[1])
    response = anon.get(url(tournament))
    assert response.status_code == 200
    assert response.json()[1] == {
        "id": seniors[1].pk,
        "name": "60-69",
        "age_min": 60,
        "age_max": 69,
        "description": "",
        "entry_fee": None,  # the tournament's fee
        "order": 2,
        "players": 1,
        "flight": False,  # chosen, not made by a split (tests/scoring/test_flights.py)
    }
    assert anon.get(url(tournament, seniors[3])).json()["age_max"] is None


def test_organisers_add_change_and_remove_divisions(as_organiser, tournament):
    created = as_organiser.post(url(tournament), {"name": "Juniors", "age_max": 17}, format="json")
    assert created.status_code == 201, created.json()
    division = Division.objects.get(pk=created.json()["id"])
    changed = as_organiser.patch(
        url(tournament, division), {"description": "Under 18"}, format="json"
    )
    assert changed.json()["description"] == "Under 18"
    assert as_organiser.delete(url(tournament, division)).status_code == 204
    assert not tournament.divisions.exists()


def test_bad_divisions_are_400s_on_their_fields(as_organiser, tournament, seniors):
    before = snapshot(tournament)
    cases = [
        ({"name": "Mid", "age_min": 55, "age_max": 65}, "age_min", "overlap"),
        ({"name": "60-69"}, "name", "already"),
        ({"name": "Old", "age_min": 140}, "age_min", "130"),
        ({"name": ""}, "name", "blank"),
        ({"name": "X", "colour": "red"}, "colour", "Unknown field"),
    ]
    for body, field, says in cases:
        response = as_organiser.post(url(tournament), body, format="json")
        assert response.status_code == 400, body
        assert says in " ".join(response.json()[field]), response.json()
    response = as_organiser.patch(url(tournament, seniors[0]), {"age_max": 61}, format="json")
    assert response.status_code == 400
    assert "60-69" in response.json()["age_max"][0]
    assert snapshot(tournament) == before


def test_removing_a_division_with_players_is_a_409_that_changes_nothing(
    as_organiser, tournament, seniors
):
    factories.PlayerFactory(tournament=tournament, division=seniors[0])
    before = snapshot(tournament)
    response = as_organiser.delete(url(tournament, seniors[0]))
    assert response.status_code == 409
    assert response.json()["detail"] == (
        "1 player is in 50-59. Move them to another division or to none first."
    )
    assert snapshot(tournament) == before


def test_a_division_of_another_tournament_is_a_404(as_organiser, tournament):
    elsewhere = add(factories.TournamentFactory(), "Open")
    assert as_organiser.patch(url(tournament, elsewhere), {"name": "Mine"}).status_code == 404
    assert as_organiser.delete(url(tournament, elsewhere)).status_code == 404
    assert Division.objects.get(pk=elsewhere.pk).name == "Open"


def test_players_division_by_name_in_the_api(as_organiser, anon, tournament, seniors):
    players = f"/api/v1/tournaments/{tournament.slug}/players/"
    body = {"number": 3, "name": "Ann", "division": " 70-79 "}
    created = as_organiser.post(players, body, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["division"] == "70-79"
    none = as_organiser.post(players, {"number": 4, "name": "Bo", "division": None}, format="json")
    assert none.json()["division"] is None
    unknown = as_organiser.post(
        players, {"number": 5, "name": "Cy", "division": "Nineties"}, format="json"
    )
    assert unknown.status_code == 400
    assert unknown.json()["division"] == [
        f"{tournament.name} has no division 'Nineties': its divisions are 50-59, 60-69, 70-79, 80+."
    ]
    assert not tournament.players.filter(number=5).exists()
    listed = {p["number"]: p["division"] for p in anon.get(players).json()}
    assert listed == {3: "70-79", 4: None}


def test_the_playoffs_choice_changes_until_a_stage_is_seated(as_organiser, tournament):
    address = f"/api/v1/tournaments/{tournament.slug}/"
    assert as_organiser.get(address).json()["division_playoffs"] == "shared"
    response = as_organiser.patch(address, {"division_playoffs": "per_division"}, format="json")
    assert response.json()["division_playoffs"] == "per_division"
    bad = as_organiser.patch(address, {"division_playoffs": "each"}, format="json")
    assert bad.status_code == 400 and "division_playoffs" in bad.json()
    factories.StageFactory(tournament=tournament, order=1, status="seated")
    response = as_organiser.patch(
        address, {"division_playoffs": "shared", "venue": "Elks"}, format="json"
    )
    assert response.status_code == 409
    assert "A stage is seated" in response.json()["detail"]
    tournament.refresh_from_db()
    assert (tournament.division_playoffs, tournament.venue) == ("per_division", "")


# ---- import -----------------------------------------------------------------------------------


def upload(client, tournament, text):
    return client.post(
        f"/api/v1/tournaments/{tournament.slug}/players/import/",
        {"file": SimpleUploadedFile("p.csv", text.encode(), content_type="text/csv")},
        format="multipart",
    )


def test_the_import_puts_players_in_divisions_by_name_age_or_birth_year(
    as_organiser, tournament, seniors
):
    tournament.starts_on = datetime.date(2026, 5, 1)
    tournament.save()
    response = upload(
        as_organiser,
        tournament,
        "number,name,division,age,birth_year\n"
        "1,Ann, 60-69 ,,\n"
        "2,Bob,,72,\n"
        "3,Cy,,,1946\n"  # 80 in 2026
        "4,Di,,,\n"
        "5,Ed,80+,55,\n",  # the division named wins over the age
    )
    assert response.status_code == 201, response.json()
    assert response.json() == {"created": 5}  # no column ignored
    divisions = {p.number: p.division and p.division.name for p in tournament.players.all()}
    assert divisions == {1: "60-69", 2: "70-79", 3: "80+", 4: None, 5: "80+"}


def test_bad_divisions_ages_and_birth_years_refuse_the_whole_file(
    as_organiser, tournament, seniors
):
    tournament.starts_on = datetime.date(2026, 5, 1)
    tournament.save()
    response = upload(
        as_organiser,
        tournament,
        "number,name,division,age,birth_year\n"
        "1,Ann,60-69,,\n"  # fine
        "2,Bob,Nineties,,\n"
        "3,Cy,,45,\n"
        "4,Di,,sixty,\n"
        "5,Ed,,,2031\n"
        "6,Flo,,131,\n",
    )
    assert response.status_code == 400
    rows = {row["line"]: row["message"] for row in response.json()["rows"]}
    assert rows == {
        3: "The division 'Nineties' is not one of this tournament's: 50-59, 60-69, 70-79, 80+.",
        4: "No division takes the age 45: 50-59 (50-59), 60-69 (60-69), 70-79 (70-79), "
        "80+ (80 and over).",
        5: "The age 'sixty' is not a whole number from 0 to 130.",
        6: "The birth year '2031' is not a year up to 2026.",
        7: "The age '131' is not a whole number from 0 to 130.",
    }
    assert not tournament.players.exists()


def test_a_division_named_in_a_tournament_without_divisions_is_refused(as_organiser, tournament):
    response = upload(as_organiser, tournament, "number,name,division,age\n1,Ann,Open,\n2,Bo,,70\n")
    assert response.status_code == 400
    assert response.json()["rows"] == [
        {"line": 2, "message": "The division 'Open' is not one of this tournament's: it has none."}
    ]  # an age is no error where no division has ages: the player is in none
    assert not tournament.players.exists()


# ---- console ----------------------------------------------------------------------------------


@pytest.fixture
def console(client, organiser, tournament):
    client.force_login(organiser)
    return client


def page(tournament, action=""):
    return f"/t/{tournament.slug}/manage/divisions/{action}"


def test_the_divisions_page_lists_them_with_ages_and_players(console, tournament, seniors):
    factories.PlayerFactory(tournament=tournament, division=seniors[3])
    html = console.get(page(tournament)).content.decode()
    assert 'aria-current="page">Divisions</a>' in html
    assert "80 and over" in html
    assert f'?division={seniors[3].pk}">1</a>' in html
    assert 'class="panel danger-zone"' in html
    assert "1 player is in 80+. Move them to another division or to none first." in html


def test_the_console_adds_changes_and_removes_divisions(console, tournament, seniors):
    response = console.post(page(tournament, "add/"), {"new-name": "Juniors", "new-age_max": 17})
    assert response.status_code == 302
    bad = console.post(page(tournament, "add/"), {"new-name": "Mid", "new-age_min": 65})
    assert bad.status_code == 400
    assert bad.context["division_form"].errors["age_min"][0].startswith("The ages of Mid")
    target = seniors[0]
    prefix = f"d{target.pk}-"
    bad = console.post(page(tournament, f"{target.pk}/"), {prefix + "name": "60-69"})
    assert bad.status_code == 400
    assert "already" in bad.context["division_rows"][0]["form"].errors["name"][0]
    ok = console.post(page(tournament, f"{target.pk}/"), {prefix + "name": "Fifties",
                      prefix + "age_min": 50, prefix + "age_max": 59})  # fmt: skip
    assert ok.status_code == 302
    unticked = console.post(page(tournament, f"{target.pk}/remove/"), {}, follow=True)
    assert "Tick the box" in unticked.content.decode()
    assert tournament.divisions.filter(pk=target.pk).exists()
    console.post(page(tournament, f"{target.pk}/remove/"), {"confirm": "on"})
    names = [d.name for d in tournament.divisions.all()]
    assert names == ["60-69", "70-79", "80+", "Juniors"]


def test_the_console_says_why_a_division_with_players_stays(console, tournament, seniors):
    factories.PlayerFactory(tournament=tournament, division=seniors[0])
    response = console.post(
        page(tournament, f"{seniors[0].pk}/remove/"), {"confirm": "on"}, follow=True
    )
    assert "1 player is in 50-59. Move them to another division or to none first." in (
        response.content.decode()
    )
    assert tournament.divisions.count() == 4


def test_the_playoffs_choice_on_the_console(console, tournament):
    response = console.post(page(tournament, "playoffs/"), {"division_playoffs": "per_division"})
    assert response.status_code == 302
    factories.StageFactory(tournament=tournament, order=1, status="seated")
    refused = console.post(page(tournament, "playoffs/"), {"division_playoffs": "shared"})
    assert refused.status_code == 400
    assert "A stage is seated" in refused.context["playoffs_form"].errors["division_playoffs"][0]
    tournament.refresh_from_db()
    assert tournament.division_playoffs == "per_division"
    shown = console.get(page(tournament)).content.decode()
    assert "A stage is seated: this can no longer change." in shown
    assert "manage/divisions/playoffs/" not in shown


def test_officials_see_nothing_of_the_divisions_page(client, official, tournament, seniors):
    client.force_login(official)
    assert client.get(page(tournament)).status_code == 403
    response = client.post(page(tournament, "add/"), {"new-name": "Mine"})
    assert response.status_code == 403
    assert tournament.divisions.count() == 4


def test_a_players_division_is_corrected_on_the_console_and_in_the_history(
    console, organiser, tournament, seniors
):
    player = factories.PlayerFactory(tournament=tournament, number=7, name="Ann")
    address = f"/t/{tournament.slug}/manage/players/{player.pk}/edit/"
    body = {"number": 7, "name": "Ann", "household": "", "club": "", "division": seniors[2].pk}
    assert console.post(address, body).status_code == 302
    player.refresh_from_db()
    assert player.division == seniors[2]
    last = player.history.order_by("-history_date").first()
    assert last.history_change_reason == PlayerChange.CORRECTED
    assert last.history_user == organiser
    html = console.get(address).content.decode()
    assert "70-79" in html  # the history names it
    elsewhere = add(factories.TournamentFactory(), "Mine")
    refused = console.post(address, {**body, "division": elsewhere.pk})
    assert refused.status_code == 400
    assert "division" in refused.context["form"].errors
    player.refresh_from_db()
    assert player.division == seniors[2]


def test_the_players_list_shows_and_filters_by_division(console, tournament, seniors):
    factories.PlayerFactory(tournament=tournament, number=1, name="Ann", division=seniors[0])
    factories.PlayerFactory(tournament=tournament, number=2, name="Bob")
    html = console.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert '<th scope="col">Division</th>' in html
    assert "50-59</td>" in html
    shown = console.get(f"/t/{tournament.slug}/manage/?division=none")
    assert [p.name for p in shown.context["players_shown"]] == ["Bob"]
    assert "2 entered" in shown.content.decode()
    add_form = shown.context["player_form"]
    assert list(add_form.fields["division"].queryset) == seniors


def test_a_tournament_without_divisions_asks_nothing_of_them(console, tournament):
    html = console.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "Division" not in html.split('id="players-h"')[1].split("</table>")[0]
    assert (
        "division" not in console.get(f"/t/{tournament.slug}/manage/").context["player_form"].fields
    )
