"""The clubs' v1 API: a season's ladder and a member's rating for anyone (as the public pages
show them), the roster with contact details and ratings for the club's organisers; what each
bad request is told."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from clubs.models import PlayerLink
from tests import factories
from tests.clubs.test_ladder_pages import club_night, decide

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def club():
    return factories.ClubFactory(name="Pine Valley", slug="pine-valley")


@pytest.fixture
def season(club):
    from clubs.models import Season

    return Season.objects.create(
        club=club, name="Autumn", slug="autumn", rule="points", points_table=[10, 8, 6, 5]
    )


@pytest.fixture
def members(club):
    return [
        factories.MemberFactory(club=club, name=name, member_number=f"PV-{n}", email=f"{n}@x.org")
        for n, name in enumerate(["Ann Lee", "Bob Ortiz", "Cy Park", "Di Nash"], start=1)
    ]


def test_the_ladder_and_a_rating_are_read_by_anyone(club, season, members):
    ann, bob, cy, di = members
    decide(club_night(club, season, [ann, bob, cy, di]))
    api = APIClient()

    ladder = api.get("/api/v1/clubs/pine-valley/seasons/autumn/ladder/").json()

    assert ladder["season"] == "Autumn" and ladder["rule"] == "points"
    assert ladder["rule_words"].startswith("Points by place in each event: 10, 8, 6, 5")
    assert [(line["place"], line["name"], line["value"]) for line in ladder["lines"]] == [
        (1, "Ann Lee", "10"),
        (2, "Bob Ortiz", "8"),
        (3, "Cy Park", "6"),
        (4, "Di Nash", "5"),
    ]
    private = {"email", "phone", "household", "member_number"}
    assert not private & set(ladder["lines"][0])

    # Ann went out every round (fewest pips at the table): the table's best, rated after it.
    rating = api.get(f"/api/v1/clubs/pine-valley/members/{ann.pk}/rating/").json()
    last = api.get(f"/api/v1/clubs/pine-valley/members/{di.pk}/rating/").json()
    assert rating["name"] == "Ann Lee" and rating["rating"]["rounds"] == 2
    assert rating["rating"]["provisional"] is True  # 2 rounds: far fewer than PROVISIONAL_ROUNDS
    assert rating["rating"]["mu"] > last["rating"]["mu"]
    assert [point["tournament"] for point in rating["series"]] == [
        ann.links.get().player.tournament.slug
    ]


def test_a_member_with_no_rated_round_has_no_rating_and_is_told_so(club, members):
    entered = factories.ClubTournamentFactory(club=club).tournament  # no round played yet
    player = factories.PlayerFactory(tournament=entered, name="Ann Lee")
    PlayerLink.objects.create(player=player, member=members[0], how="number")
    response = APIClient().get(f"/api/v1/clubs/pine-valley/members/{members[0].pk}/rating/")

    assert response.status_code == 404
    assert response.json()["detail"] == (
        "This member has no rated rounds yet, so they have no rating."
    )


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        ("/api/v1/clubs/nowhere/seasons/autumn/ladder/", "There is no club at this address."),
        (
            "/api/v1/clubs/pine-valley/seasons/spring/ladder/",
            "There is no season at this address in this club.",
        ),
        (
            "/api/v1/clubs/pine-valley/members/999999/rating/",
            "There is no member with this id in this club.",
        ),
    ],
)
def test_what_is_not_there_is_named(club, season, path, detail):
    response = APIClient().get(path)

    assert response.status_code == 404
    assert response.json()["detail"] == detail


def test_the_roster_is_the_club_organisers_only(club, season, members):
    decide(club_night(club, season, members))
    organiser = APIClient()
    organiser.force_authenticate(factories.ClubOrganiserFactory(club=club).user)
    stranger = APIClient()
    stranger.force_authenticate(factories.ClubOrganiserFactory().user)  # of another club

    roster = organiser.get("/api/v1/clubs/pine-valley/members/").json()
    refused = stranger.get("/api/v1/clubs/pine-valley/members/")

    assert [(m["name"], m["email"], m["rating"]["rounds"]) for m in roster] == [
        ("Ann Lee", "1@x.org", 2),
        ("Bob Ortiz", "2@x.org", 2),
        ("Cy Park", "3@x.org", 2),
        ("Di Nash", "4@x.org", 2),
    ]
    assert refused.status_code == 403
    assert refused.json()["detail"] == "Only an organiser of Pine Valley may read its roster."


def test_the_players_import_names_the_member_numbers_no_member_has(club, members):
    owned = factories.ClubTournamentFactory(club=club)
    organiser = factories.StaffFactory(tournament=owned.tournament, role="organiser").user
    api = APIClient()
    api.force_authenticate(organiser)
    url = f"/api/v1/tournaments/{owned.tournament.slug}/players/import/"
    content = b"number,name,member_number\n1,Ann Lee,PV-1\n2,Guest,\n3,Carl Diaz,NOSUCH-43\n"

    answer = api.post(url, {"file": SimpleUploadedFile("p.csv", content)}, format="multipart")

    assert answer.status_code == 201, answer.content
    assert answer.json() == {"created": 3, "unknown_member_numbers": ["NOSUCH-43"]}
    linked = PlayerLink.objects.filter(player__tournament=owned.tournament)
    assert [(link.player.number, link.member.name) for link in linked] == [(1, "Ann Lee")]

    corrected = b"number,name,member_number\n3,Carl Diaz,\n4,Di Nash,PV-4\n5,Eve,PV-99\n"
    answer = api.post(
        url, {"file": SimpleUploadedFile("p.csv", corrected), "mode": "update"}, format="multipart"
    )
    assert answer.status_code == 200, answer.content
    assert answer.json()["unknown_member_numbers"] == ["PV-99"]
    assert linked.filter(player__number=4, member__name="Di Nash").exists()

    without = b"number,name\n6,Fay\n"  # no member numbers: nothing to say of them
    answer = api.post(url, {"file": SimpleUploadedFile("p.csv", without)}, format="multipart")
    assert answer.json() == {"created": 1}
