"""A season's ladder with the database: built by the worker when a tournament's placings are
decided (scoring's signal, Celery inline), rebuilt when they are decided again, when a player is
linked or unlinked and when the season's rule changes; the organisers' season pages and their
refusals; the public club page, ladder page and ladder.csv."""

import csv
import io
from datetime import date

import pytest
from django.test import Client

from clubs import ladder_services, services
from clubs.models import ClubTournament, LadderRow, PlayerLink, Season
from scoring import tasks as scoring_tasks
from scoring.services import closing
from tests import factories
from tests.scoring.helpers import play_stage, qualifying_with_tables

pytestmark = pytest.mark.django_db(transaction=True)

POINTS = [10, 8, 6, 5]


@pytest.fixture
def club():
    return factories.ClubFactory(name="Pine Valley", slug="pine-valley")


@pytest.fixture
def members(club):
    made = {}
    for number, name in enumerate(["Ann Lee", "Bob Ortiz", "Cy Park", "Di Nash", "Ed Hughes"]):
        made[name.split()[0]] = factories.MemberFactory(
            club=club,
            name=name,
            member_number=f"PV-{number + 1}",
            household=f"Household of {name}",
            email=f"{name.split()[0].lower()}@example.com",
            phone="+1 555 0100",
        )
    return made


@pytest.fixture
def season(club):
    # Placed among everyone, as the seasons made before the choice are: the nights' places as
    # they were.
    return Season.objects.create(
        club=club, name="Autumn", slug="autumn", rule="points", points_table=POINTS,
        places="everyone",
    )  # fmt: skip


@pytest.fixture
def organiser_client(club):
    client = Client()
    client.force_login(factories.ClubOrganiserFactory(club=club).user)
    return client


def club_night(club, season, seated: list, day: int = 1):
    """A tournament of the club counted by the season: one table seated in this order (a member,
    or None for a player linked to nobody), two rounds; seat k scores 5 (k - 1) a round, so
    the order is the placings. Not closed yet."""
    tournament = factories.TournamentFactory(starts_on=date(2026, 10, day))
    ClubTournament.objects.create(club=club, tournament=tournament, season=season)
    stage = qualifying_with_tables(tournament, [len(seated)])
    players = tournament.players.order_by("number")
    for player, member in zip(players, seated, strict=True):
        if member is not None:
            PlayerLink.objects.create(player=player, member=member, how="name")
    play_stage(stage)
    return stage


def decide(stage) -> None:
    """Close the one-table stage: the worker decides the placings, and scoring tells clubs."""
    closing.close_stage(stage=stage, by=factories.UserFactory())


def ladder(season) -> list[tuple]:
    rows = LadderRow.objects.filter(season=season).select_related("member")
    return [
        (row.place, row.shared, row.member.name, int(row.value), row.rounds, row.pips)
        for row in rows.order_by("place", "member__name")
    ]


# ---- built by the worker -------------------------------------------------------------------------


def test_ladder_is_built_when_the_placings_are_decided_and_shares_a_tie(club, members, season):
    ann, bob, cy, di = members["Ann"], members["Bob"], members["Cy"], members["Di"]
    first = club_night(club, season, [ann, bob, cy, None], day=1)
    second = club_night(club, season, [bob, ann, di, cy], day=8)
    assert not LadderRow.objects.exists()
    decide(first)
    # The walk-in linked to nobody is not on the ladder.
    assert ladder(season) == [
        (1, False, "Ann Lee", 10, 2, 0),
        (2, False, "Bob Ortiz", 8, 2, 10),
        (3, False, "Cy Park", 6, 2, 20),
    ]
    built = Season.objects.get(pk=season.pk).ladder_built_at
    assert built is not None
    decide(second)
    # Ann and Bob: 18 each, a 1st and a 2nd place each, 10 pips in 4 rounds each: shared.
    assert ladder(season) == [
        (1, True, "Ann Lee", 18, 4, 10),
        (1, True, "Bob Ortiz", 18, 4, 10),
        (3, False, "Cy Park", 11, 4, 50),
        (4, False, "Di Nash", 6, 2, 20),
    ]
    page = Client().get(f"/en/c/{club.slug}/seasons/{season.slug}/").content.decode()
    assert page.count('1<span aria-hidden="true">=</span>') == 2
    assert "Shares 1st place with Bob Ortiz: equal on points, places and average per round." in page


def test_placings_decided_again_rebuild_the_ladder_the_same(club, members, season):
    stage = club_night(club, season, [members["Ann"], members["Bob"], members["Cy"]])
    decide(stage)
    before = ladder(season)
    built = Season.objects.get(pk=season.pk).ladder_built_at
    # The sweeper's resend of the follow-up decides the placings again (recomputed).
    scoring_tasks.advance_from_stage.delay(stage_id=stage.pk)
    assert Season.objects.get(pk=season.pk).ladder_built_at > built
    assert ladder(season) == before


def test_a_link_corrected_after_the_placings_changes_the_ladder(club, members, season):
    ann, bob, ed = members["Ann"], members["Bob"], members["Ed"]
    stage = club_night(club, season, [ann, None, bob])
    decide(stage)
    assert [name for _p, _s, name, *_rest in ladder(season)] == ["Ann Lee", "Bob Ortiz"]
    walk_in = stage.tournament.players.get(number=2)
    services.link(player=walk_in, member=ed, by=None)  # the organiser finds who it was
    assert ladder(season) == [
        (1, False, "Ann Lee", 10, 2, 0),
        (2, False, "Ed Hughes", 8, 2, 10),
        (3, False, "Bob Ortiz", 6, 2, 20),
    ]
    services.unlink(player=stage.tournament.players.get(number=1))  # Ann's link was a mistake
    assert [name for _p, _s, name, *_rest in ladder(season)] == ["Ed Hughes", "Bob Ortiz"]


def test_an_erased_member_appears_under_the_anonymised_name(club, members, season):
    ann, bob = members["Ann"], members["Bob"]
    decide(club_night(club, season, [ann, bob, members["Cy"]], day=1))
    decide(club_night(club, season, [bob, ann, members["Cy"]], day=8))
    services.erase_member(member=ann, by=None)
    page = Client().get(f"/en/c/{club.slug}/seasons/{season.slug}/").content.decode()
    assert "Ann Lee" not in page
    assert f"Shares 1st place with Former member {ann.pk}" in page


# ---- the organisers' pages -----------------------------------------------------------------------


def test_organiser_creates_a_season_and_its_ladder_is_built(club, members, organiser_client):
    events = [
        club_night(club, None, [members["Ann"], members["Bob"], members["Cy"]], day=1),
        club_night(club, None, [members["Cy"], members["Bob"], members["Ann"]], day=8),
    ]
    for stage in events:
        decide(stage)
    assert (
        "/clubs/pine-valley/seasons/"
        in organiser_client.get("/clubs/pine-valley/").content.decode()
    )
    response = organiser_client.post(
        "/clubs/pine-valley/seasons/new/",
        {
            "name": "Winter 2026",
            "rule": "best_n",
            "points_table": "10, 8, 6",
            "best_n": "1",
            "min_rounds": "0",
            "places": "members",
            "events": [stage.tournament_id for stage in events],
        },
    )
    season = Season.objects.get(club=club)
    assert response.status_code == 302
    assert response["Location"] == "/clubs/pine-valley/seasons/winter-2026/"
    assert (season.slug, season.rule, season.points_table, season.best_n) == (
        "winter-2026", "best_n", [10, 8, 6], 1)  # fmt: skip
    # Best 1 of 2: Ann and Cy won one night each; Cy's other night is the better (a 2nd).
    page = Client().get("/en/c/pine-valley/seasons/winter-2026/").content.decode()
    assert "Only each member&#x27;s best 1 event of the season&#x27;s 2 counts." in page
    assert "1 / 2" in page
    assert [row[:4] for row in ladder(season)] == [
        (1, True, "Ann Lee", 10),
        (1, True, "Cy Park", 10),
        (3, False, "Bob Ortiz", 8),
    ]


def test_changing_the_rule_rebuilds_the_ladder(club, members, season, organiser_client):
    ann, bob, di = members["Ann"], members["Bob"], members["Di"]
    cy = members["Cy"]
    nights = [
        club_night(club, season, [ann, bob, di], 1),
        club_night(club, season, [bob, ann, cy], 8),
    ]
    for stage in nights:
        decide(stage)
    assert [row[2] for row in ladder(season)] == ["Ann Lee", "Bob Ortiz", "Cy Park", "Di Nash"]
    response = organiser_client.post(
        f"/clubs/pine-valley/seasons/{season.slug}/",
        {
            "name": "Autumn",
            "slug": "autumn",
            "rule": "average",
            "points_table": "",
            "min_rounds": "3",
            "places": "everyone",
            "events": [stage.tournament_id for stage in nights],
        },
    )
    assert response.status_code == 302
    # Ann and Bob: 10 pips in 4 rounds, a 1st and a 2nd place each: shared. Cy and Di: 2
    # rounds each, short of 3.
    rows = LadderRow.objects.filter(season=season).select_related("member")
    by_name = {row.member.name: row for row in rows}
    assert (by_name["Ann Lee"].place, by_name["Bob Ortiz"].place) == (1, 1)
    assert by_name["Di Nash"].place is None
    page = Client().get(f"/en/c/pine-valley/seasons/{season.slug}/").content.decode()
    assert "Not ranked: needs 1 more round." in page
    assert "a member needs 3 rounds to be ranked" in page


BAD_FORMS = [
    ({"points_table": "10, eight, 6"}, "“eight” is not a whole number"),
    ({"points_table": "10, -2"}, "Points cannot be negative: -2."),
    ({"points_table": "10, --5"}, "“--5” is not a whole number"),
    ({"rule": "points", "points_table": ""}, "Give the points for each place"),
    ({"rule": "best_n", "best_n": "3"}, "Best 3 of 2 events: N cannot be more than the season"),
    ({"rule": "best_n", "best_n": ""}, "Say how many events count for each member"),
    ({"events": []}, "The season counts no events yet"),
    ({"slug": "new"}, "The web address new is taken in Pine Valley"),
    ({"places": "guests"}, "Select a valid choice. guests is not one of the available choices."),
    ({"places": ""}, "This field is required."),
]


@pytest.mark.parametrize(("change", "error"), BAD_FORMS)
def test_season_form_refuses_bad_input_and_changes_nothing(
    club, members, season, organiser_client, change, error
):
    seated = [members["Ann"], members["Bob"], members["Cy"]]
    nights = [club_night(club, season, seated, day) for day in (1, 8)]
    other = Season.objects.create(club=club, name="Spring", slug="spring", points_table=[3, 2])
    for stage in nights:
        decide(stage)
    rows = ladder(season)
    form = {
        "name": "Renamed",
        "slug": "autumn",
        "rule": "points",
        "points_table": "5, 3, 1",
        "min_rounds": "0",
        "places": "everyone",
        "events": [stage.tournament_id for stage in nights],
    } | change
    addresses = [f"/clubs/pine-valley/seasons/{season.slug}/"]
    if change.get("points_table"):  # a new season's form says the same
        addresses.append("/clubs/pine-valley/seasons/new/")
    for address in addresses:
        response = organiser_client.post(address, form)
        assert response.status_code == 400, address
        assert error in response.content.decode(), address
    season.refresh_from_db()
    assert (season.name, season.points_table, Season.objects.count()) == ("Autumn", POINTS, 2)
    assert ClubTournament.objects.filter(season=season).count() == 2
    assert not other.events.exists()
    assert ladder(season) == rows


def test_a_season_whose_events_go_loses_its_ladder_and_building_it_is_refused(
    club, members, season, organiser_client
):
    stage = club_night(club, season, [members["Ann"], members["Bob"], members["Cy"]])
    decide(stage)
    assert len(ladder(season)) == 3
    services.remove_tournament(club=club, tournament=stage.tournament)  # its only event
    # The ladder counted what no longer counts: it goes, on the public page too.
    rows = ladder(season)
    assert rows == [] and Season.objects.get(pk=season.pk).ladder_built_at is None
    public = Client().get(f"/en/c/{club.slug}/seasons/{season.slug}/").content.decode()
    assert "The ladder is not built yet" in public
    address = f"/clubs/pine-valley/seasons/{season.slug}/"
    page = organiser_client.get(address).content.decode()
    assert "The ladder cannot be built: The season counts no events yet" in page
    response = organiser_client.post(f"{address}build/", follow=True)
    assert "The ladder was not built: The season counts no events yet" in response.content.decode()
    assert ladder(season) == rows


def test_build_now_builds_the_ladder(club, members, season, organiser_client):
    stage = club_night(club, season, [members["Ann"], members["Bob"], members["Cy"]])
    decide(stage)
    LadderRow.objects.all().delete()
    response = organiser_client.post("/clubs/pine-valley/seasons/autumn/build/", follow=True)
    assert "Built the ladder: 3 members." in response.content.decode()
    assert len(ladder(season)) == 3


def test_season_pages_refuse_whoever_does_not_organise_the_club(club, members, season):
    stage = club_night(club, season, [members["Ann"], members["Bob"], members["Cy"]])
    decide(stage)
    rows = ladder(season)
    addresses = [
        "/clubs/pine-valley/seasons/",
        "/clubs/pine-valley/seasons/new/",
        "/clubs/pine-valley/seasons/autumn/",
        "/clubs/pine-valley/seasons/autumn/build/",
    ]
    for address in addresses:
        response = Client().get(address)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    stranger = Client()
    stranger.force_login(factories.ClubOrganiserFactory().user)  # of another club
    for address in addresses:
        if not address.endswith("build/"):
            assert stranger.get(address).status_code == 403, address
        form = {"name": "Taken over", "rule": "points", "points_table": "1", "min_rounds": "0",
                "events": [stage.tournament_id]}  # fmt: skip
        assert stranger.post(address, form).status_code == 403, address
    season.refresh_from_db()
    assert season.name == "Autumn" and Season.objects.count() == 1
    assert ladder(season) == rows


# ---- the public pages ----------------------------------------------------------------------------


def test_public_pages_are_shared_and_show_no_contact(club, members, season):
    ann, bob, cy = members["Ann"], members["Bob"], members["Cy"]
    first = club_night(club, season, [ann, bob, cy], day=1)
    decide(first)
    decide(club_night(club, season, [bob, ann, cy], day=8))
    paths = [
        f"/en/c/{club.slug}/",
        f"/es/c/{club.slug}/",
        f"/en/c/{club.slug}/seasons/{season.slug}/",
        f"/es/c/{club.slug}/seasons/{season.slug}/",
        f"/en/c/{club.slug}/seasons/{season.slug}/ladder.csv",
    ]
    for path in paths:
        response = Client().get(path)
        assert response.status_code == 200, path
        assert not response.cookies, path  # no session, no CSRF token
        directives = {d.strip() for d in response["Cache-Control"].split(",")}
        assert "public" in directives and "private" not in directives, path
        text = response.content.decode()
        for member in (ann, bob, cy):
            assert member.household not in text and member.email not in text, path
        assert "+1 555" not in text and "csrfmiddlewaretoken" not in text, path
    home = Client().get(f"/en/c/{club.slug}/").content.decode()
    assert f'href="/en/c/{club.slug}/seasons/{season.slug}/"' in home
    assert f'href="/en/t/{first.tournament.slug}/"' in home
    assert 'lang="es"' in Client().get(paths[3]).content.decode()
    assert Client().get(f"/en/c/{club.slug}/seasons/nothing/").status_code == 404
    assert Client().get("/en/c/no-such-club/").status_code == 404


def test_ladder_csv_has_a_header_and_a_line_a_member(club, members, season):
    ann, bob, cy = members["Ann"], members["Bob"], members["Cy"]
    decide(club_night(club, season, [ann, bob, cy], day=1))
    decide(club_night(club, season, [bob, ann, cy], day=8))
    response = Client().get(f"/en/c/{club.slug}/seasons/{season.slug}/ladder.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="pine-valley-autumn-ladder.csv"' in response["Content-Disposition"]
    lines = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    shares = "Shares 1st place with {}: equal on points, places and average per round."
    assert lines == [
        ["place", "shared", "name", "value", "events", "counted", "rounds", "pips", "note"],
        ["1", "true", "Ann Lee", "18", "2", "2", "4", "10", shares.format("Bob Ortiz")],
        ["1", "true", "Bob Ortiz", "18", "2", "2", "4", "10", shares.format("Ann Lee")],
        ["3", "false", "Cy Park", "12", "2", "2", "4", "40", ""],
    ]  # fmt: skip


def test_ladder_page_before_any_event_is_decided(club, members, season):
    club_night(club, season, [members["Ann"], members["Bob"], members["Cy"]])
    page = Client().get(f"/en/c/{club.slug}/seasons/{season.slug}/").content.decode()
    assert "The ladder is not built yet" in page
    assert "Points by place in each event: 10, 8, 6, 5" in page
    assert ladder_services.ladder_problem(season) == ""


# ---- places among members, no points, the season's form ------------------------------------------


def test_members_are_placed_among_members_and_the_page_says_so(club, members, season):
    ann, bob, cy = members["Ann"], members["Bob"], members["Cy"]
    Season.objects.filter(pk=season.pk).update(places="members")
    # Two guests (linked to nobody) came 1st and 2nd: Ann, the best member, was 3rd of the night.
    decide(club_night(club, season, [None, None, ann, bob, cy]))
    assert [row[:4] for row in ladder(season)] == [
        (1, False, "Ann Lee", 10),
        (2, False, "Bob Ortiz", 8),
        (3, False, "Cy Park", 6),
    ]
    page = Client().get(f"/en/c/{club.slug}/seasons/{season.slug}/").content.decode()
    assert "places are counted among the club&#x27;s members who played it" in page
    spanish = Client().get(f"/es/c/{club.slug}/seasons/{season.slug}/").content.decode()
    assert "entre los socios del club" in spanish


def test_a_season_placing_everyone_counts_the_guests_places_and_says_so(club, members, season):
    ann, bob, cy = members["Ann"], members["Bob"], members["Cy"]
    decide(club_night(club, season, [None, None, ann, bob, cy]))
    # 3rd and 4th of the night; Cy's 5th is beyond the table.
    assert [row[:4] for row in ladder(season)] == [
        (1, False, "Ann Lee", 6),
        (2, False, "Bob Ortiz", 5),
        (3, False, "Cy Park", 0),
    ]
    page = Client().get(f"/en/c/{club.slug}/seasons/{season.slug}/").content.decode()
    assert "Each event&#x27;s places are its own, guests included." in page


def test_rows_with_no_points_carry_no_tie_break_note(club, members, season):
    ann, bob, cy, di, ed = (members[n] for n in ("Ann", "Bob", "Cy", "Di", "Ed"))
    Season.objects.filter(pk=season.pk).update(points_table=[10, 8])
    decide(club_night(club, season, [ann, bob, cy, di, ed]))
    assert [row[:4] for row in ladder(season)] == [
        (1, False, "Ann Lee", 10),
        (2, False, "Bob Ortiz", 8),
        (3, True, "Cy Park", 0),
        (3, True, "Di Nash", 0),
        (3, True, "Ed Hughes", 0),
    ]
    page = Client().get(f"/en/c/{club.slug}/seasons/{season.slug}/").content.decode()
    assert "Ahead of" not in page and "Behind" not in page and "Shares" not in page
    assert "Members with no points share the place after those who scored." in page


def test_a_new_seasons_form_offers_the_usual_points_and_places_among_members(
    club, members, organiser_client
):
    page = organiser_client.get("/clubs/pine-valley/seasons/new/").content.decode()
    assert 'name="points_table" value="10, 8, 6, 5, 4, 3, 2, 1"' in page
    assert 'name="places" value="members" required id="id_places_0" checked' in page
    # Each rule's fields are marked with the rules they belong to (the page hides the others).
    assert 'class="rule-fields for-points for-best-n"' in page
    assert 'class="rule-fields for-best-n"' in page
    assert 'class="rule-fields for-average"' in page
    stage = club_night(club, None, [members["Ann"], members["Bob"]])
    response = organiser_client.post(
        "/clubs/pine-valley/seasons/new/",
        {"name": "Winter", "rule": "points", "points_table": "10, 8, 6, 5, 4, 3, 2, 1",
         "min_rounds": "0", "places": "members", "events": [stage.tournament_id]},
    )  # fmt: skip
    assert response.status_code == 302
    season = Season.objects.get(slug="winter")
    assert (season.points_table, season.places) == ([10, 8, 6, 5, 4, 3, 2, 1], "members")


def test_a_field_the_chosen_rule_does_not_use_is_ignored_not_refused(
    club, members, season, organiser_client
):
    stage = club_night(club, season, [members["Ann"], members["Bob"]])
    # The points table, hidden once the average is chosen, still holds a typo.
    response = organiser_client.post(
        f"/clubs/pine-valley/seasons/{season.slug}/",
        {"name": "Autumn", "slug": "autumn", "rule": "average", "points_table": "10, eight",
         "best_n": "0", "min_rounds": "2", "places": "members", "events": [stage.tournament_id]},
    )  # fmt: skip
    assert response.status_code == 302
    season.refresh_from_db()
    assert (season.rule, season.points_table, season.best_n, season.min_rounds) == (
        "average", [], None, 2)  # fmt: skip
    # Back on the form, the points are offered again should the rule change back.
    page = organiser_client.get(f"/clubs/pine-valley/seasons/{season.slug}/").content.decode()
    assert 'name="points_table" value="10, 8, 6, 5, 4, 3, 2, 1"' in page


def test_a_new_season_when_every_tournament_is_counted_says_so_first_with_links(
    club, members, season, organiser_client
):
    club_night(club, season, [members["Ann"], members["Bob"]])
    page = organiser_client.get("/clubs/pine-valley/seasons/new/").content.decode()
    # The true case, before the form is filled, with where each way out is done.
    hint = page.index("Every tournament of the club is counted by another season already")
    assert hint < page.index('name="name"')
    assert "no tournament for a season to count" not in page
    assert 'href="/clubs/pine-valley/#club-tournaments">the roster page</a>' in page
    assert 'href="/clubs/pine-valley/seasons/autumn/">Autumn</a>' in page[hint:]


def test_a_new_season_of_a_club_with_no_tournament_links_to_where_one_is_added(
    club, organiser_client
):
    page = organiser_client.get("/clubs/pine-valley/seasons/new/").content.decode()
    assert "The club has no tournament for a season to count yet" in page
    assert 'href="/clubs/pine-valley/#club-tournaments">the roster page</a>' in page
    assert "counted by another season already" not in page
