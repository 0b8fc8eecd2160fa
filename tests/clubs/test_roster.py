"""A club's roster: member numbers unique in every path, players linked by number or by an
organiser's choice (never by a name alone), a person's data exported and erased."""

import pytest
from django.core.exceptions import ValidationError

from clubs import services
from clubs.models import Member, PlayerLink
from tests import factories
from tournaments import services as tournament_services
from tournaments.csvfiles import ImportRejected
from tournaments.models import Player

pytestmark = pytest.mark.django_db


@pytest.fixture
def owned():
    """A club and a tournament it owns."""
    return factories.ClubTournamentFactory()


def test_candidates_by_member_number_are_exact(owned):
    ana = factories.MemberFactory(club=owned.club, name="Ana Peña", member_number="A-17")
    factories.MemberFactory(club=owned.club, name="Bob Ray", member_number="A-170")
    player = factories.PlayerFactory(tournament=owned.tournament, name="Somebody Else")
    assert services.candidates(player=player, member_number="A-17") == [ana]
    assert services.candidates(player=player, member_number="a-1") == []


def test_candidates_by_name_ignore_accents_case_and_spaces(owned):
    ana = factories.MemberFactory(club=owned.club, name="Ana Peña")
    factories.MemberFactory(club=owned.club, name="Ana Perez")
    factories.MemberFactory(name="Ana Peña")  # another club's
    player = factories.PlayerFactory(tournament=owned.tournament, name="  ANA   pena ")
    assert services.candidates(player=player) == [ana]
    assert services.name_candidates(tournament=owned.tournament) == {player.pk: [ana]}


def test_candidates_are_none_for_a_tournament_without_a_club():
    player = factories.PlayerFactory(name="Ana Peña")
    factories.MemberFactory(name="Ana Peña")
    assert services.candidates(player=player) == []


def test_adding_a_player_never_links_by_name(owned):
    factories.MemberFactory(club=owned.club, name="Ana Peña")
    player = tournament_services.create_player(tournament=owned.tournament, number=1,
                                               name="Ana Peña")  # fmt: skip
    assert not PlayerLink.objects.filter(player=player).exists()


def test_player_import_links_by_member_number_only_and_says_which_numbers_are_unknown(owned):
    ana = factories.MemberFactory(club=owned.club, name="Ana Peña", member_number="17")
    factories.MemberFactory(club=owned.club, name="Bob Ray", member_number="18")
    notes: list[str] = []
    content = (
        b"number,name,member_number\n"
        b"1,Ana Pena,17\n"  # linked by number (the name need not match)
        b"2,Bob Ray,\n"  # the name matches a member: not linked
        b"3,Carl Diaz,99\n"  # nobody has 99
    )
    players = tournament_services.import_players(
        tournament=owned.tournament, content=content, notes=notes
    )
    assert len(players) == 3
    links = {link.player.number: link for link in PlayerLink.objects.select_related("player")}
    assert list(links) == [1]
    assert links[1].member == ana
    assert links[1].how == PlayerLink.How.IMPORT
    assert len(notes) == 1
    assert "99" in notes[0] and owned.club.name in notes[0]


def test_player_import_with_a_member_number_twice_is_refused_and_imports_nothing(owned):
    factories.MemberFactory(club=owned.club, member_number="17")
    content = b"number,name,member_number\n1,Ana,17\n2,Bob,18\n3,Carl,17\n"
    with pytest.raises(ImportRejected) as rejected:
        tournament_services.import_players(tournament=owned.tournament, content=content)
    assert [line for line, _message in rejected.value.rows] == [4]
    assert "ember number 17 is used twice (also on line 2)" in rejected.value.rows[0][1]
    assert not Player.objects.filter(tournament=owned.tournament).exists()
    assert not PlayerLink.objects.exists()


def test_player_import_without_a_club_imports_and_says_the_numbers_were_not_linked():
    tournament = factories.TournamentFactory()
    notes: list[str] = []
    content = b"number,name,member_number\n1,Ana,17\n"
    tournament_services.import_players(tournament=tournament, content=content, notes=notes)
    assert tournament.players.count() == 1
    assert "belongs to no club" in notes[0]


def test_add_member_with_a_number_already_used_names_the_other_member_and_adds_nothing():
    club = factories.ClubFactory()
    factories.MemberFactory(club=club, name="Ana Peña", member_number="17")
    with pytest.raises(ValidationError) as refused:
        services.add_member(club=club, name="Bob Ray", member_number=" 17 ")
    assert refused.value.message_dict["member_number"] == [
        "Member number 17 is already Ana Peña's."
    ]
    assert club.members.count() == 1
    # Another club's numbers are its own; no number at all is never a clash.
    services.add_member(club=factories.ClubFactory(), name="Bob Ray", member_number="17")
    services.add_member(club=club, name="Cy", member_number="")
    services.add_member(club=club, name="Di", member_number="")
    assert club.members.count() == 3
    with pytest.raises(ValidationError) as refused:
        services.add_member(club=club, name="Ed", email="not an address")
    assert list(refused.value.message_dict) == ["email"]


def test_update_member_to_a_number_already_used_changes_nothing():
    club = factories.ClubFactory()
    factories.MemberFactory(club=club, name="Ana Peña", member_number="17")
    bob = factories.MemberFactory(club=club, name="Bob Ray", member_number="18")
    with pytest.raises(ValidationError, match="already Ana Peña's"):
        services.update_member(member=bob, name="Robert Ray", member_number="17")
    bob.refresh_from_db()
    assert (bob.name, bob.member_number) == ("Bob Ray", "18")
    services.update_member(member=bob, name="Robert Ray", member_number="18")  # its own: fine
    bob.refresh_from_db()
    assert bob.name == "Robert Ray"


def test_roster_import_adds_every_member():
    club = factories.ClubFactory()
    content = (
        "name,member_number,household,email,phone\n"
        "Ana Peña,17,Peña,ana@example.org,555-0101\n"
        "Bob Ray,,,,\n"
    ).encode()
    members = services.import_members(club=club, content=content)
    assert len(members) == 2
    ana = club.members.get(member_number="17")
    assert (ana.name, ana.household, ana.email, ana.phone) == (
        "Ana Peña", "Peña", "ana@example.org", "555-0101")  # fmt: skip


def test_roster_import_with_numbers_used_twice_lists_every_row_and_imports_nothing():
    club = factories.ClubFactory()
    factories.MemberFactory(club=club, name="Ana Peña", member_number="17")
    content = (
        b"name,member_number\n"
        b"Bob Ray,18\n"  # line 2: fine
        b"Cy Doe,17\n"  # line 3: Ana's
        b"Di Fox,18\n"  # line 4: twice in the file
        b",19\n"  # line 5: no name
    )
    with pytest.raises(ImportRejected) as rejected:
        services.import_members(club=club, content=content)
    rows = dict(rejected.value.rows)
    assert sorted(rows) == [3, 4, 5]
    assert "already Ana Peña's in the roster" in rows[3]
    assert "used twice (also on line 2)" in rows[4]
    assert "name is empty" in rows[5]
    assert club.members.count() == 1


def test_link_is_explicit_harmless_twice_and_refuses_a_second_member_or_player(owned):
    ana = factories.MemberFactory(club=owned.club, name="Ana Peña")
    bob = factories.MemberFactory(club=owned.club, name="Bob Ray")
    player = factories.PlayerFactory(tournament=owned.tournament, name="Ana Pena")
    other = factories.PlayerFactory(tournament=owned.tournament, name="Ana P.")
    first = services.link(player=player, member=ana, by=None)
    assert services.link(player=player, member=ana, by=None) == first
    with pytest.raises(ValidationError, match="already linked to Ana Peña"):
        services.link(player=player, member=bob, by=None)
    with pytest.raises(ValidationError, match="already linked to #"):
        services.link(player=other, member=ana, by=None)
    with pytest.raises(ValidationError, match="not a member of the club"):
        services.link(player=other, member=factories.MemberFactory(), by=None)
    assert PlayerLink.objects.count() == 1
    services.unlink(player=player)
    services.link(player=player, member=bob, by=None)
    assert PlayerLink.objects.get().member == bob


def played(link: PlayerLink) -> None:
    """The linked player scored 23 in a round."""
    stage = factories.StageFactory(tournament=link.player.tournament)
    result = factories.RoundResultFactory(table=factories.TableFactory(stage=stage))
    factories.ScoreFactory(result=result, player=link.player, pips=23)


def test_export_holds_everything_about_the_member():
    member = factories.MemberFactory(name="Ana Peña", member_number="17", household="Peña",
                                     email="ana@example.org", phone="555-0101")  # fmt: skip
    link = factories.PlayerLinkFactory(member=member)
    played(link)
    data = services.export_member(member=member)
    assert data["club"] == member.club.name
    assert data["member"] | {"added_at": None} == {
        "name": "Ana Peña", "member_number": "17", "household": "Peña",
        "email": "ana@example.org", "phone": "555-0101", "added_at": None, "erased_at": None,
    }  # fmt: skip
    [entry] = data["tournaments"]
    assert entry["tournament"] == link.player.tournament.name
    assert entry["player"]["name"] == "Ana Peña"
    assert entry["linked"]["how"] == "name"
    assert [score["pips"] for score in entry["scores"]] == [23]


def test_erase_blanks_the_member_and_renames_their_players_everywhere():
    member = factories.MemberFactory(name="Ana Peña", member_number="17", household="Peña",
                                     email="ana@example.org", phone="555-0101")  # fmt: skip
    link = factories.PlayerLinkFactory(member=member)
    player = link.player
    tournament_services.update_player(player=player, number=player.number, name="Ana Peña",
                                      household="Peña")  # fmt: skip
    played(link)

    services.erase_member(member=member, by=None)
    member.refresh_from_db()
    anonymised = f"Former member {member.pk}"
    assert member.erased_at is not None
    assert (member.name, member.member_number, member.household, member.email, member.phone) == (
        anonymised, "", "", "", "")  # fmt: skip
    player.refresh_from_db()
    assert (player.name, player.household) == (anonymised, "")
    names = set(Player.history.filter(id=player.pk).values_list("name", flat=True))
    assert names == {anonymised}  # the history forgets the name too
    assert player.scores.get().pips == 23  # the scores stay, under that name
    export = str(services.export_member(member=member))
    assert "Peña" not in export and "ana@example.org" not in export

    # Never a candidate again, and nobody can be linked to it.
    newcomer = factories.PlayerFactory(tournament=player.tournament, name=anonymised)
    assert services.candidates(player=newcomer) == []
    with pytest.raises(ValidationError, match="erased"):
        services.link(player=newcomer, member=member, by=None)
    # Erasing twice is harmless.
    erased_at = member.erased_at
    services.erase_member(member=member, by=None)
    member.refresh_from_db()
    assert member.erased_at == erased_at
    with pytest.raises(ValidationError, match="erased"):
        services.update_member(member=member, name="Ana Peña")
    assert Member.objects.get(pk=member.pk).name == anonymised
