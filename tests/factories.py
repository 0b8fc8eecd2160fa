"""One factory per model, valid by default and consistent (a seat's player is of its tournament)."""

import factory
from django.contrib.auth import get_user_model

from clubs.models import Club, ClubOrganiser, ClubTournament, Member, PlayerLink
from scoring.models import RoundResult, Score
from tables.models import Seat, Table
from tournaments.models import Player, Staff, Stage, Tournament


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("a-long-test-password")


class OrganiserAccountFactory(UserFactory):
    """An account that may create tournaments, as signing up or an organiser's invitation makes
    it (tournaments.services.staff.grant_organiser)."""

    class Meta:
        skip_postgeneration_save = True  # the hook adds a group: nothing of the user to save

    @factory.post_generation
    def organiser(self, create: bool, extracted, **kwargs) -> None:
        if create:
            from tournaments.services.staff import grant_organiser

            grant_organiser(self)


class TournamentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Tournament

    name = factory.Sequence(lambda n: f"Samboree {n}")
    slug = factory.Sequence(lambda n: f"samboree-{n}")
    domino_set = 12
    preset = "samboree"


class StaffFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Staff

    tournament = factory.SubFactory(TournamentFactory)
    user = factory.SubFactory(UserFactory)
    role = Staff.Role.OFFICIAL


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    tournament = factory.SubFactory(TournamentFactory)
    number = factory.Sequence(lambda n: n + 1)
    name = factory.Faker("name")


class StageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Stage

    tournament = factory.SubFactory(TournamentFactory)
    order = factory.Sequence(lambda n: n + 1)
    name = "Qualifying"
    kind = Stage.Kind.QUALIFYING
    domino_set = factory.SelfAttribute("tournament.domino_set")
    rounds = 4
    starting_double = 12
    table_size_min = 3
    table_size_max = 4


class TableFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Table

    stage = factory.SubFactory(StageFactory)
    number = factory.Sequence(lambda n: n + 1)


class SeatFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Seat

    table = factory.SubFactory(TableFactory)
    stage = factory.SelfAttribute("table.stage")
    player = factory.SubFactory(
        PlayerFactory, tournament=factory.SelfAttribute("..stage.tournament")
    )
    position = factory.Sequence(lambda n: n + 1)


class RoundResultFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = RoundResult

    table = factory.SubFactory(TableFactory)
    stage = factory.SelfAttribute("table.stage")
    round_no = 1
    engine = factory.LazyAttribute(lambda o: o.stage.starting_double - (o.round_no - 1))
    submitted_by = factory.SubFactory(UserFactory)


class ScoreFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Score

    result = factory.SubFactory(RoundResultFactory)
    player = factory.SubFactory(
        PlayerFactory, tournament=factory.SelfAttribute("..result.stage.tournament")
    )
    pips = 10


class ClubFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Club

    name = factory.Sequence(lambda n: f"Lakeside Dominoes {n}")
    slug = factory.Sequence(lambda n: f"lakeside-{n}")


class ClubOrganiserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ClubOrganiser

    club = factory.SubFactory(ClubFactory)
    user = factory.SubFactory(UserFactory)


class ClubTournamentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ClubTournament

    club = factory.SubFactory(ClubFactory)
    tournament = factory.SubFactory(TournamentFactory)


class MemberFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Member

    club = factory.SubFactory(ClubFactory)
    name = factory.Faker("name")
    member_number = factory.Sequence(lambda n: f"M{n + 1:04d}")


class PlayerLinkFactory(factory.django.DjangoModelFactory):
    """A player of a tournament the member's club owns, linked to the member."""

    class Meta:
        model = PlayerLink

    member = factory.SubFactory(MemberFactory)
    player = factory.SubFactory(
        PlayerFactory,
        tournament=factory.LazyAttribute(
            lambda o: ClubTournamentFactory(club=o.factory_parent.member.club).tournament
        ),
        name=factory.SelfAttribute("..member.name"),
    )
    how = PlayerLink.How.NAME
