"""The club organisers' pages: who may open them, the roster's forms, linking a tournament's
players, erasing with a confirmation step, in English and Spanish."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.html import escape

from clubs.models import PlayerLink
from tests import factories

pytestmark = pytest.mark.django_db

SPANISH = {"HTTP_ACCEPT_LANGUAGE": "es"}
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def owned():
    return factories.ClubTournamentFactory()


@pytest.fixture
def club_organiser(owned):
    return factories.ClubOrganiserFactory(club=owned.club).user


@pytest.fixture
def signed_in(client, club_organiser):
    client.force_login(club_organiser)
    return client


def addresses(owned) -> list[str]:
    club, tournament = owned.club, owned.tournament
    member = factories.MemberFactory(club=club)
    player = factories.PlayerFactory(tournament=tournament)
    return [
        f"/clubs/{club.slug}/",
        f"/clubs/{club.slug}/members/{member.pk}/",
        f"/clubs/{club.slug}/members/{member.pk}/export/",
        f"/clubs/{club.slug}/members/{member.pk}/erase/",
        f"/t/{tournament.slug}/manage/members/",
        f"/t/{tournament.slug}/manage/members/{player.pk}/",
    ]


def test_pages_send_anonymous_people_to_sign_in(client, owned):
    for address in [*addresses(owned), "/clubs/"]:
        response = client.get(address)
        assert response.status_code == 302, address
        assert response["Location"].startswith("/accounts/login/"), address


def test_pages_refuse_whoever_does_not_organise_the_club(client, owned):
    # A tournament's own organiser is not the club's: the roster and its contacts are not theirs.
    tournament_organiser = factories.StaffFactory(tournament=owned.tournament, role="organiser")
    factories.ClubOrganiserFactory()  # of another club
    client.force_login(tournament_organiser.user)
    for address in addresses(owned):
        assert client.get(address).status_code == 403, address
    response = client.post(f"/clubs/{owned.club.slug}/members/add/", {"name": "Intruder"})
    assert response.status_code == 403
    assert not owned.club.members.filter(name="Intruder").exists()


@pytest.mark.parametrize("language", [ENGLISH, SPANISH])
def test_pages_render_for_the_club_organiser_in_english_and_spanish(signed_in, owned, language):
    for address in addresses(owned):
        response = signed_in.get(address, **language)
        assert response.status_code == 200, address
        if "export" not in address:
            lang = language["HTTP_ACCEPT_LANGUAGE"]
            assert f'<html lang="{lang}">' in response.content.decode(), address
    home = signed_in.get("/", **language).content.decode()
    assert "/clubs/" in home
    assert owned.club.name in signed_in.get("/clubs/", **language).content.decode()


def test_home_shows_no_clubs_link_to_someone_without_a_club(client):
    client.force_login(factories.UserFactory())
    assert 'href="/clubs/"' not in client.get("/").content.decode()


def test_add_member_page_refuses_a_number_used_twice(signed_in, owned):
    factories.MemberFactory(club=owned.club, name="Ana Peña", member_number="17")
    response = signed_in.post(
        f"/clubs/{owned.club.slug}/members/add/", {"name": "Bob Ray", "member_number": "17"}
    )
    assert response.status_code == 400
    assert "Member number 17 is already Ana Peña&#x27;s." in response.content.decode()
    assert owned.club.members.count() == 1
    response = signed_in.post(
        f"/clubs/{owned.club.slug}/members/add/", {"name": "Bob Ray", "member_number": "18"}
    )
    assert response.status_code == 302
    assert owned.club.members.count() == 2


def test_import_members_page_lists_the_rows_and_imports_nothing(signed_in, owned):
    content = b"name,member_number\nAna,17\nBob,17\n"
    response = signed_in.post(
        f"/clubs/{owned.club.slug}/members/import/",
        {"file": SimpleUploadedFile("roster.csv", content, content_type="text/csv")},
    )
    assert response.status_code == 400
    assert "used twice (also on line 2)" in response.content.decode()
    assert owned.club.members.count() == 0


def test_player_import_page_says_which_member_numbers_were_not_linked(client, owned):
    organiser = factories.StaffFactory(tournament=owned.tournament, role="organiser").user
    client.force_login(organiser)
    factories.MemberFactory(club=owned.club, member_number="17")
    content = b"number,name,member_number\n1,Ana,17\n2,Bob,99\n"
    response = client.post(
        f"/t/{owned.tournament.slug}/manage/players/import/",
        {"file": SimpleUploadedFile("players.csv", content, content_type="text/csv")},
        follow=True,
    )
    page = response.content.decode()
    assert "Imported 2 players." in page
    assert "the member number 99: not linked" in page
    assert PlayerLink.objects.get().player.number == 1
    # The console leads to the players' links for a club's tournament only.
    console = client.get(f"/t/{owned.tournament.slug}/manage/").content.decode()
    assert f"/t/{owned.tournament.slug}/manage/members/" in console
    other = factories.StaffFactory(role="organiser", user=organiser).tournament
    assert "/manage/members/" not in client.get(f"/t/{other.slug}/manage/").content.decode()
    assert client.get(f"/t/{other.slug}/manage/members/").status_code == 404


def test_link_page_shows_candidates_and_links_the_one_picked(signed_in, owned):
    ana = factories.MemberFactory(club=owned.club, name="Ana Peña", member_number="17")
    factories.MemberFactory(club=owned.club, name="Ana Peña", member_number="18")  # a namesake
    player = factories.PlayerFactory(tournament=owned.tournament, name="ana pena")
    listing = signed_in.get(f"/t/{owned.tournament.slug}/manage/members/").content.decode()
    assert "2 members have this name" in listing
    assert not PlayerLink.objects.exists()  # shown, never linked on its own

    address = f"/t/{owned.tournament.slug}/manage/members/{player.pk}/"
    page = signed_in.get(address, {"member_number": "17"}).content.decode()
    assert 'name="member_number" value="17"' in page
    response = signed_in.post(address, {"member": ana.pk, "member_number": "17"})
    assert response.status_code == 302
    link = PlayerLink.objects.get()
    assert (link.player, link.member, link.how) == (player, ana, "number")

    signed_in.post(address, {"action": "unlink"})
    assert not PlayerLink.objects.exists()


def test_erase_page_asks_for_the_box_then_erases(signed_in, owned):
    member = factories.MemberFactory(club=owned.club, name="Ana Peña", email="ana@example.org")
    link = factories.PlayerLinkFactory(member=member)
    address = f"/clubs/{owned.club.slug}/members/{member.pk}/erase/"
    export = signed_in.get(f"/clubs/{owned.club.slug}/members/{member.pk}/export/")
    assert json.loads(export.content)["member"]["email"] == "ana@example.org"

    signed_in.post(address, {})
    member.refresh_from_db()
    assert member.erased_at is None

    assert signed_in.post(address, {"confirm": "on"}).status_code == 302
    member.refresh_from_db()
    assert member.email == "" and member.erased_at is not None
    roster = signed_in.get(f"/clubs/{owned.club.slug}/").content.decode()
    assert "Ana Peña" not in roster and f"Former member {member.pk}" in roster
    link.player.refresh_from_db()
    assert link.player.name == f"Former member {member.pk}"


def test_roster_offers_adding_members_above_the_list_of_members(signed_in, owned):
    for n in range(3):
        factories.MemberFactory(club=owned.club, name=f"Member {n}")
    page = signed_in.get(f"/clubs/{owned.club.slug}/", **ENGLISH).content.decode()
    assert page.index("Add or import members") < page.index('<table class="players stacked roster"')
    assert page.index('id="add-members"') < page.index("Member 0")


def test_tournament_members_page_links_to_the_players_import(signed_in, owned):
    slug = owned.tournament.slug
    page = signed_in.get(f"/t/{slug}/manage/members/", **ENGLISH).content.decode()
    assert f'<a href="/t/{slug}/manage/#import-h">import the players</a>' in page
    spanish = signed_in.get(f"/t/{slug}/manage/members/", **SPANISH).content.decode()
    assert f'<a href="/t/{slug}/manage/#import-h">importe los jugadores</a>' in spanish


@pytest.mark.parametrize("lang", ["en", "es"])
def test_public_member_page_links_back_to_the_clubs_page(client, owned, lang):
    member = factories.MemberFactory(club=owned.club)
    # A member has a public page once linked to a player of the club's tournaments.
    player = factories.PlayerFactory(tournament=owned.tournament)
    PlayerLink.objects.create(player=player, member=member, how="name")
    page = client.get(f"/{lang}/c/{owned.club.slug}/members/{member.pk}/").content.decode()
    link = f'<a href="/{lang}/c/{owned.club.slug}/">{escape(owned.club.name)}</a>'
    assert link in page.split("<main", 1)[1], "in the page itself, not only in the nav"
