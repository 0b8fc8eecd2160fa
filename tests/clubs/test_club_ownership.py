"""Starting a club and choosing its tournaments, as an organiser does it from "My clubs" and the
roster: who may, and what each bad request is told (and that it changes nothing)."""

import pytest

from clubs.models import Club, ClubOrganiser, ClubTournament, PlayerLink
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser(client):
    user = factories.OrganiserAccountFactory()
    client.force_login(user)
    return user


def test_an_organiser_starts_a_club_and_becomes_its_organiser(client, organiser):
    page = client.get("/clubs/", HTTP_ACCEPT_LANGUAGE="en")
    assert "Start a club" in page.content.decode()

    response = client.post("/clubs/", {"name": "Wednesday Trains", "slug": ""})

    club = Club.objects.get()
    assert (club.name, club.slug) == ("Wednesday Trains", "wednesday-trains")
    assert response["Location"] == "/clubs/wednesday-trains/"
    assert ClubOrganiser.objects.filter(club=club, user=organiser).exists()
    # A second club of the same name gets an address of its own.
    client.post("/clubs/", {"name": "Wednesday Trains"})
    assert Club.objects.filter(slug="wednesday-trains-2").exists()


def test_the_home_page_leads_an_organiser_to_my_clubs(client, organiser):
    assert 'href="/clubs/"' in client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "   "}, "This field is required."),
        ({"name": "Trains", "slug": "taken"}, "Another club has this web address."),
        ({"name": "Trains", "slug": "not a slug!"}, "Enter a valid"),
        ({"name": "Tra\u200bins"}, "does not print"),
    ],
)
def test_a_bad_club_is_refused_and_nothing_is_started(client, organiser, data, message):
    factories.ClubFactory(slug="taken")

    response = client.post("/clubs/", data, HTTP_ACCEPT_LANGUAGE="en")

    assert response.status_code == 400
    assert message in response.content.decode()
    assert Club.objects.count() == 1


def test_an_official_may_not_start_a_club(client):
    official = factories.StaffFactory(role="official").user
    client.force_login(official)

    assert "Start a club" not in client.get("/clubs/").content.decode()
    response = client.post("/clubs/", {"name": "Mine"}, HTTP_ACCEPT_LANGUAGE="en")

    assert response.status_code == 403
    assert "Only organisers may start a club." in response.content.decode()
    assert not Club.objects.exists()


def _club_of(user):
    return factories.ClubOrganiserFactory(user=user).club


def test_the_organiser_adds_and_removes_a_tournament_they_organise(client, organiser):
    club = _club_of(organiser)
    tournament = factories.StaffFactory(user=organiser, role="organiser").tournament
    roster = client.get(f"/clubs/{club.slug}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'<option value="{tournament.slug}">' in roster

    client.post(f"/clubs/{club.slug}/tournaments/add/", {"tournament": tournament.slug})

    assert ClubTournament.objects.filter(club=club, tournament=tournament).exists()
    roster = client.get(f"/clubs/{club.slug}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f"/t/{tournament.slug}/manage/members/" in roster
    assert f'<option value="{tournament.slug}">' not in roster

    member = factories.MemberFactory(club=club)
    player = factories.PlayerFactory(tournament=tournament)
    PlayerLink.objects.create(player=player, member=member, how="name")
    response = client.post(
        f"/clubs/{club.slug}/tournaments/{tournament.slug}/remove/",
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )
    assert not ClubTournament.objects.exists()
    assert not PlayerLink.objects.exists()
    assert "1 link to a member was removed" in response.content.decode()
    player.refresh_from_db()  # the tournament keeps its player


def test_a_tournament_of_someone_else_or_of_another_club_is_refused(client, organiser):
    club = _club_of(organiser)
    strangers = factories.TournamentFactory()
    mine = factories.StaffFactory(user=organiser, role="organiser").tournament
    other = factories.ClubTournamentFactory(tournament=mine).club

    for slug, message in [
        (strangers.slug, f"Only an organiser of {strangers.name} may add it to a club."),
        (mine.slug, f"{mine.name} already belongs to {other.name}."),
        ("no-such-event", "Choose one of your tournaments to add."),
    ]:
        response = client.post(
            f"/clubs/{club.slug}/tournaments/add/",
            {"tournament": slug},
            HTTP_ACCEPT_LANGUAGE="en",
            follow=True,
        )
        assert message in response.content.decode()
    assert list(ClubTournament.objects.values_list("club", flat=True)) == [other.pk]


def test_removing_a_tournament_the_club_does_not_own_is_refused(client, organiser):
    club = _club_of(organiser)
    owned_elsewhere = factories.ClubTournamentFactory()

    response = client.post(
        f"/clubs/{club.slug}/tournaments/{owned_elsewhere.tournament.slug}/remove/",
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )

    assert "does not belong to" in response.content.decode()
    assert ClubTournament.objects.filter(pk=owned_elsewhere.pk).exists()


def test_only_the_clubs_organisers_may_add_tournaments(client, organiser):
    club = factories.ClubFactory()
    tournament = factories.StaffFactory(user=organiser, role="organiser").tournament

    response = client.post(f"/clubs/{club.slug}/tournaments/add/", {"tournament": tournament.slug})

    assert response.status_code == 403
    assert not ClubTournament.objects.exists()
