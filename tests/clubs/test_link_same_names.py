"""Linking every player whose name is exactly one member's, in one step an organiser asks for
(clubs.services.link_same_names): what it links, what it leaves for a person and says, and
undoing it in one step; on the players' page, in English and Spanish."""

import pytest

from clubs import services
from clubs.models import PlayerLink
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def owned():
    return factories.ClubTournamentFactory()


@pytest.fixture
def signed_in(client, owned):
    client.force_login(factories.ClubOrganiserFactory(club=owned.club).user)
    return client


def roster(owned, *names: str) -> dict[str, object]:
    return {name: factories.MemberFactory(club=owned.club, name=name) for name in names}


def players(owned, *names: str) -> list:
    return [factories.PlayerFactory(tournament=owned.tournament, name=name) for name in names]


def linked(owned) -> dict[str, str]:
    links = PlayerLink.objects.filter(player__tournament=owned.tournament)
    return {link.player.name: link.member.name for link in links.select_related("player", "member")}


def test_every_exact_match_is_linked_and_the_ambiguous_are_left(owned):
    roster(owned, "Renée Peña", "Bob Ray", "Ana López", "Ana López", "Cy Park", "Di Nash")
    factories.MemberFactory(name="Ed Hughes")  # another club's
    erased = factories.MemberFactory(club=owned.club, name="Fay Gold")
    services.erase_member(member=erased, by=None)
    renee, bob, ana, cy, cy_again, _ed, _fay, _guest = players(
        owned, "RENEE  pena", "Bob Ray", "Ana Lopez", "Cy Park", "cy park", "Ed Hughes",
        "Former member", "A Guest",
    )  # fmt: skip
    done = services.link_same_names(tournament=owned.tournament, by=None)
    # Accents, capitals and spaces aside: the same normal form the candidates use.
    assert linked(owned) == {"RENEE  pena": "Renée Peña", "Bob Ray": "Bob Ray"}
    assert done.linked == [renee, bob]
    assert done.several_members == [ana]  # two members of that name: a person chooses
    assert done.several_players == [cy, cy_again]  # two players, one member
    assert PlayerLink.objects.get(player=bob).how == "name"


def test_a_member_linked_to_another_player_is_not_linked_again_and_twice_is_harmless(owned):
    members = roster(owned, "Ann Lee", "Bob Ray")
    first, second, bob = players(owned, "Ann Lee", "Ann Lee", "Bob Ray")
    services.link(player=first, member=members["Ann Lee"], by=None)
    done = services.link_same_names(tournament=owned.tournament, by=None)
    assert done.linked == [bob] and done.several_players == []
    assert PlayerLink.objects.filter(player=second).exists() is False
    again = services.link_same_names(tournament=owned.tournament, by=None)
    assert again.linked == [] and PlayerLink.objects.count() == 2


def test_unlink_players_undoes_them_and_leaves_other_tournaments_alone(owned):
    members = roster(owned, "Ann Lee", "Bob Ray")
    ann, bob = players(owned, "Ann Lee", "Bob Ray")
    elsewhere = factories.ClubTournamentFactory(club=owned.club).tournament
    other = factories.PlayerFactory(tournament=elsewhere, name="Ann Lee")
    services.link(player=other, member=members["Ann Lee"], by=None)
    services.link_same_names(tournament=owned.tournament, by=None)
    assert (
        services.unlink_players(tournament=owned.tournament, player_ids=[ann.pk, bob.pk, other.pk])
        == 2
    )
    assert list(PlayerLink.objects.values_list("player", flat=True)) == [other.pk]


def test_players_page_links_every_exact_match_says_what_it_did_and_undoes_it(signed_in, owned):
    names = [f"Member {n:02}" for n in range(1, 20)]
    roster(owned, *names, "Ana López", "Ana López")
    players(owned, *names, "Ana Lopez", "A Guest")
    address = f"/t/{owned.tournament.slug}/manage/members/"
    page = signed_in.get(address).content.decode()
    assert "The names of 19 players not linked yet are each exactly one member" in page
    assert not PlayerLink.objects.exists()  # shown, not linked until asked

    response = signed_in.post(f"{address}same-names/", follow=True)
    page = response.content.decode()
    assert response.redirect_chain == [(address, 302)]
    assert "Linked 19 players. 1 has more than one member of that name: choose below." in page
    assert PlayerLink.objects.count() == 19
    assert "Unlink these 19 players" in page
    assert "Link every exact match" not in page  # none left to link
    assert "Unlink these" not in signed_in.get(address).content.decode()  # offered once

    # Undone in one step, from the page that said it.
    ids = list(PlayerLink.objects.values_list("player_id", flat=True))
    response = signed_in.post(f"{address}unlink/", {"player": ids}, follow=True)
    assert "Unlinked 19 players." in response.content.decode()
    assert not PlayerLink.objects.exists()


def test_players_page_says_when_nobody_matched_and_in_spanish(signed_in, owned):
    roster(owned, "Ana López", "Ana López")
    players(owned, "Ana Lopez")
    address = f"/t/{owned.tournament.slug}/manage/members/"
    response = signed_in.post(f"{address}same-names/", follow=True, HTTP_ACCEPT_LANGUAGE="en")
    page = response.content.decode()
    assert "No player&#x27;s name is exactly one member&#x27;s: nobody was linked." in page
    assert "1 has more than one member of that name: choose below." in page
    roster(owned, "Bob Ray")
    players(owned, "Bob Ray")
    page = signed_in.get(address, HTTP_ACCEPT_LANGUAGE="es")
    assert "Vincular cada coincidencia exacta" in page.content.decode()
    response = signed_in.post(f"{address}same-names/", follow=True, HTTP_ACCEPT_LANGUAGE="es")
    assert "Se vinculó 1 jugador." in response.content.decode()


def test_the_steps_refuse_whoever_does_not_organise_the_club(client, owned):
    roster(owned, "Ann Lee")
    (ann,) = players(owned, "Ann Lee")
    address = f"/t/{owned.tournament.slug}/manage/members/"
    assert client.post(f"{address}same-names/").status_code == 302  # to sign in
    client.force_login(factories.StaffFactory(tournament=owned.tournament, role="organiser").user)
    assert client.post(f"{address}same-names/").status_code == 403
    assert not PlayerLink.objects.exists()
    services.link_same_names(tournament=owned.tournament, by=None)
    assert client.post(f"{address}unlink/", {"player": [ann.pk]}).status_code == 403
    assert PlayerLink.objects.count() == 1
