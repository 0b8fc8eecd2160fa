"""Presets follow the set: a tournament created from a preset with any set the preset lists gets
stages that fit that set, through the service, the API and the new-tournament page; a set the
preset does not list is refused, and nothing is created."""

import html
import re
import threading

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models.signals import pre_save
from django.test import Client

from tests import factories
from tests.conftest import client_for
from tournaments import services
from tournaments.models import Stage, Tournament
from tournaments.presets import PRESETS, tiles_in_set

pytestmark = pytest.mark.django_db

# (kind, rounds, starting double, smallest table, largest table) of each stage, written out from
# the rules documents: a full game is one round per double, N down to 0 (N+1 rounds); the
# Samboree's qualifying plays four and its playoff four until the official announces otherwise,
# at tables of 3 or 4 and then the whole deal; the tables are the preset's deal for the set.
EXPECTED = {
    ("samboree", 12): [("qualifying", 4, 12, 3, 4), ("playoff", 4, 12, 2, 10)],
    ("parsons", 12): [("qualifying", 13, 12, 2, 8)],
    ("pagat", 6): [("qualifying", 7, 6, 2, 4)],
    ("pagat", 9): [("qualifying", 10, 9, 2, 8)],
    ("pagat", 12): [("qualifying", 13, 12, 2, 8)],
    ("pagat", 15): [("qualifying", 16, 15, 2, 12)],
    ("online", 9): [("qualifying", 10, 9, 2, 3)],
    ("online", 12): [("qualifying", 13, 12, 4, 8)],
    # The events' own pages: a county Silver Games plays one game at tables of 3 or 4 (15 tiles
    # each); a state Senior Olympics two games, the second its table winners' (15 tiles at up to
    # 5); the "11-3" club day four games of four rounds on double-15, the doubles going on down
    # from game to game; a community's day a game of six rounds and a championship game of six;
    # an RV club a full game and its table winners' playoff, with its deal of 16 down to 10.
    ("senior_games", 12): [("qualifying", 13, 12, 3, 4)],
    ("senior_olympics", 12): [("qualifying", 13, 12, 3, 5), ("playoff", 13, 12, 2, 5)],
    ("eleven_three", 15): [
        ("qualifying", 4, 15, 6, 8),
        ("qualifying", 4, 11, 6, 8),
        ("qualifying", 4, 7, 6, 8),
        ("qualifying", 4, 3, 6, 8),
    ],
    ("championship_day", 12): [("qualifying", 6, 12, 4, 6), ("playoff", 6, 12, 2, 8)],
    ("rv_club", 12): [("qualifying", 13, 12, 4, 6), ("playoff", 13, 12, 2, 8)],
}
LISTED = sorted(EXPECTED)
NOT_LISTED = [
    (key, domino_set)
    for key in PRESETS
    for domino_set in (6, 9, 12, 15, 18)
    if (key, domino_set) not in EXPECTED
]
BODY = {"name": "Rally", "slug": "rally", "with_stages": True}


def settings_of(tournament: Tournament) -> list[tuple]:
    return [
        (s.kind, s.rounds, s.starting_double, s.table_size_min, s.table_size_max)
        for s in tournament.stages.order_by("order")
    ]


def test_every_set_of_every_preset_is_listed_here():
    """A set added to a preset is not offered until its stages are checked above."""
    assert {(key, n) for key, preset in PRESETS.items() for n in preset.sets()} == set(EXPECTED)


@pytest.mark.parametrize(("preset", "domino_set"), LISTED)
def test_the_service_creates_stages_that_fit_the_set(preset, domino_set):
    tournament = services.create_tournament(
        name="Rally", slug="rally", domino_set=domino_set, preset=preset,
        by=factories.OrganiserAccountFactory(), with_stages=True,
    )  # fmt: skip
    assert settings_of(tournament) == EXPECTED[preset, domino_set]
    previous = None
    for stage in tournament.stages.order_by("order"):
        # The first round is the set's highest double (a later game whose totals carry goes on
        # from the double after the game before's last), the last double-blank at the most,
        first = previous.engines[-1] - 1 if stage.carry_forward else domino_set
        assert stage.engines[0] == first and stage.engines[-1] >= 0
        previous = stage
        # and every table size of the stage is one the preset deals for, with tiles to draw.
        for players in range(stage.table_size_min, stage.table_size_max + 1):
            dealt = PRESETS[preset].tiles_dealt(domino_set, players)
            assert players * dealt < tiles_in_set(domino_set)


@pytest.mark.parametrize(("preset", "domino_set"), LISTED)
def test_the_api_creates_the_same_stages(preset, domino_set):
    organiser = client_for(factories.OrganiserAccountFactory())
    body = {**BODY, "preset": preset, "domino_set": domino_set}
    response = organiser.post("/api/v1/tournaments/", body, format="json")
    assert response.status_code == 201, response.json()
    listed = organiser.get("/api/v1/tournaments/rally/stages/").json()
    assert [
        (s["kind"], s["rounds"], s["starting_double"], s["table_size_min"], s["table_size_max"])
        for s in listed
    ] == EXPECTED[preset, domino_set]
    assert listed[0]["engines"] == list(range(domino_set, domino_set - listed[0]["rounds"], -1))


@pytest.mark.parametrize(("preset", "domino_set"), LISTED)
def test_the_new_tournament_page_creates_the_same_stages(client: Client, preset, domino_set):
    client.force_login(factories.OrganiserAccountFactory())
    form = {"name": "Rally", "slug": "rally", "preset": preset, "domino_set": str(domino_set)}
    response = client.post("/new/", form)
    assert response.status_code == 302
    assert settings_of(Tournament.objects.get(slug="rally")) == EXPECTED[preset, domino_set]


@pytest.mark.parametrize(("preset", "domino_set"), NOT_LISTED)
def test_a_set_the_preset_does_not_list_is_refused_and_nothing_is_created(
    client: Client, preset, domino_set
):
    sets = ", ".join(f"double-{n}" for n in PRESETS[preset].sets())
    said = f"deals only with {sets}, not double-{domino_set}."
    organiser = factories.OrganiserAccountFactory()
    response = client_for(organiser).post(
        "/api/v1/tournaments/", {**BODY, "preset": preset, "domino_set": domino_set}, format="json"
    )
    assert response.status_code == 400
    (message,) = response.json()["domino_set"]
    assert message.endswith(said) and str(Tournament.Preset(preset).label) in message
    client.force_login(organiser)
    form = {"name": "Rally", "slug": "rally", "preset": preset, "domino_set": str(domino_set)}
    page = client.post("/new/", form)
    # The page offers only the sets some preset deals for: a set no preset deals for (double-18)
    # is not a choice there at all.
    dealt = any(domino_set in p.sets() for p in PRESETS.values())
    expected = said if dealt else f"Select a valid choice. {domino_set} is not one of"
    assert page.status_code == 400 and expected in page.content.decode()
    assert not Tournament.objects.exists() and not Stage.objects.exists()


def test_the_api_says_which_sets_each_preset_supports_and_what_each_creates(anon):
    response = anon.get("/api/v1/presets/")
    assert response.status_code == 200
    offered = {p["key"]: p for p in response.json()}
    assert list(offered) == list(PRESETS)
    for key, preset in offered.items():
        assert preset["sets"] == sorted(n for k, n in EXPECTED if k == key)
        assert preset["label"] == str(Tournament.Preset(key).label) and preset["description"]
        assert "seed" not in preset["source"].lower() and preset["source"]
        for offer in preset["by_set"]:
            expected = EXPECTED[key, offer["domino_set"]]
            assert [
                (s["kind"], s["rounds"], s["starting_double"], s["table_size_min"],
                 s["table_size_max"])
                for s in offer["stages"]
            ] == expected  # fmt: skip
            deal = {d["players"]: d["tiles"] for d in offer["deal"]}
            assert deal == PRESETS[key].deal(offer["domino_set"])
            assert (offer["table_size_min"], offer["table_size_max"]) == (min(deal), max(deal))
    samboree = offered["samboree"]["by_set"][0]["stages"]
    assert [s["name"] for s in samboree] == ["Qualifying", "Playoff"]
    assert offered["online"]["source"] == "The Rules"


def test_the_api_names_the_presets_stages_in_the_readers_language(anon):
    response = anon.get("/api/v1/presets/", HTTP_ACCEPT_LANGUAGE="es")
    offered = {p["key"]: p for p in response.json()}
    assert [s["name"] for s in offered["samboree"]["by_set"][0]["stages"]] == [
        "Clasificatoria",
        "Eliminatoria",
    ]
    assert offered["pagat"]["by_set"][0]["stages"][0]["name"] == "Partida"
    assert offered["samboree"]["by_set"][0]["label"] == "doble 12"


def test_the_new_tournament_page_describes_each_preset_and_its_sets(client: Client):
    client.force_login(factories.OrganiserAccountFactory())
    page = client.get("/new/").content.decode()
    for key, preset in PRESETS.items():
        section = page.split(f'id="preset-{key}"')[1].split("</li>")[0]
        assert str(Tournament.Preset(key).label) in section
        assert str(preset.description).replace("'", "&#x27;") in section
        sets = ", ".join(f"double-{n}" for n in preset.sets())
        assert f"Domino sets: {sets}." in section
        if preset.document:
            assert f"Rules document: “{preset.source}”." in section
        else:  # an event's own page, said in words
            assert f"As played at: {preset.source}.".replace("'", "&#x27;") in section


def test_the_new_tournament_page_offers_only_the_sets_a_preset_deals_for(client: Client):
    client.force_login(factories.OrganiserAccountFactory())
    page = client.get("/new/").content.decode()
    offered = set(re.findall(r'<option value="(\d+)"', page.split('name="domino_set"')[1]))
    assert offered == {str(n) for p in PRESETS.values() for n in p.sets()}
    assert "18" not in offered


def test_a_web_address_left_empty_is_made_from_the_name(client: Client):
    client.force_login(factories.OrganiserAccountFactory())
    form = {"name": "Spring Rally 2026", "slug": "", "preset": "samboree", "domino_set": "12"}
    assert client.post("/new/", form)["Location"] == "/t/spring-rally-2026/manage/"
    assert client.post("/new/", form)["Location"] == "/t/spring-rally-2026-2/manage/"
    assert Tournament.objects.filter(name="Spring Rally 2026").count() == 2


def test_a_bad_web_address_says_what_to_type_and_creates_nothing(client: Client):
    client.force_login(factories.OrganiserAccountFactory())
    form = {
        "name": "Spring Rally",
        "slug": "Spring Rally!",
        "preset": "samboree",
        "domino_set": "12",
    }
    page = client.post("/new/", form)
    assert page.status_code == 400
    text = html.unescape(page.content.decode())
    assert "Use only letters, numbers and dashes in the web address" in text
    assert "“slug”" not in text
    assert not Tournament.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_an_address_another_create_takes_at_the_same_moment_is_refused(require_postgres):
    """Two organisers creating "Spring Rally" at once: the check finds the address free for
    both, the second to save is told it is taken (not a server error), and creates nothing.
    PostgreSQL's: SQLite lets one writer in at a time, so there the other waits its turn."""
    user = factories.OrganiserAccountFactory()

    def the_other_saves_first(sender, instance, **kwargs):
        if instance.pk is None and instance.name == "Spring Rally":
            other = threading.Thread(target=create_elsewhere)
            other.start()
            other.join()

    def create_elsewhere():  # another request: its own connection, committed
        try:
            Tournament.objects.bulk_create([Tournament(name="Other", slug="spring-rally")])
        finally:
            connection.close()

    pre_save.connect(the_other_saves_first, sender=Tournament)
    try:
        with pytest.raises(ValidationError) as refused:
            services.create_tournament(
                name="Spring Rally", slug="spring-rally", domino_set=12, preset="samboree", by=user
            )
    finally:
        pre_save.disconnect(the_other_saves_first, sender=Tournament)
    taken = "The address 'spring-rally' is taken: choose another."
    assert refused.value.message_dict["slug"] == [taken]
    assert list(Tournament.objects.values_list("name", flat=True)) == ["Other"]


def test_the_new_tournament_page_deals_the_presets_own_set_unless_another_is_chosen(
    client: Client,
):
    client.force_login(factories.OrganiserAccountFactory())
    # The 11-3 rule deals with double-15 only: left to the preset, the set is its own.
    form = {"name": "Club day", "slug": "club-day", "preset": "eleven_three", "domino_set": ""}
    assert client.post("/new/", form).status_code == 302
    assert Tournament.objects.get(slug="club-day").domino_set == 15
    page = client.get("/new/").content.decode()
    section = page.split('id="preset-eleven_three"')[1].split("</li>")[0]
    assert "Its own: double-15." in section
    assert '<option value="" selected>The preset&#x27;s own set</option>' in page


def test_the_new_tournament_page_asks_the_dates_venue_and_time_zone(client: Client):
    client.force_login(factories.OrganiserAccountFactory())
    page = client.get("/new/").content.decode()
    for field in ("starts_on", "ends_on", "venue", "time_zone"):
        assert f'name="{field}"' in page
    # Every zone offered as it is typed, and the device's own offered by script.
    assert 'list="time-zones"' in page and '<option value="America/Chicago"></option>' in page
    assert "data-fill-device-zone" in page and "roundhouse/time-zone.js" in page
    form = {
        "name": "Spring Rally",
        "preset": "samboree",
        "domino_set": "12",
        "starts_on": "2027-04-10",
        "ends_on": "2027-04-11",
        "venue": "Lakeside Hall",
        "time_zone": "America/Chicago",
    }
    assert client.post("/new/", form).status_code == 302
    made = Tournament.objects.get(name="Spring Rally")
    assert (str(made.starts_on), str(made.ends_on), made.venue, made.time_zone) == (
        "2027-04-10",
        "2027-04-11",
        "Lakeside Hall",
        "America/Chicago",
    )


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"time_zone": "Chicago"}, "is not a time zone name: use one such as America/Chicago"),
        ({"starts_on": "2027-04-11", "ends_on": "2027-04-10"}, "last day"),
    ],
)
def test_a_bad_date_or_time_zone_on_the_new_page_is_said_and_creates_nothing(
    client: Client, change, said
):
    client.force_login(factories.OrganiserAccountFactory())
    form = {"name": "Spring Rally", "preset": "samboree", "domino_set": "12", **change}
    page = client.post("/new/", form)
    assert page.status_code == 400 and said in page.content.decode()
    assert not Tournament.objects.exists()
