"""The database itself refuses every row that breaks a tournament invariant."""

import pytest
from django.db import IntegrityError, transaction

from tests import factories
from tournaments.choices import Follows
from tournaments.models import Player, Staff, Stage

pytestmark = pytest.mark.django_db


def refused(create) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        create()


def test_tournament_slug_is_unique():
    factories.TournamentFactory(slug="spring")
    refused(lambda: factories.TournamentFactory(slug="spring"))


@pytest.mark.parametrize(
    "fields",
    [{"domino_set": 10}, {"preset": "cardinal"}, {"name": ""}, {"slug": ""}],
    ids=["set-not-a-double-n", "unknown-preset", "empty-name", "empty-slug"],
)
def test_tournament_bad_values_are_refused(fields):
    refused(lambda: factories.TournamentFactory(**fields))


def test_staff_one_role_per_user_per_tournament():
    staff = factories.StaffFactory()
    refused(
        lambda: Staff.objects.create(tournament=staff.tournament, user=staff.user, role="organiser")
    )


def test_staff_role_must_be_known():
    refused(lambda: factories.StaffFactory(role="referee"))


def test_player_number_unique_in_tournament_but_not_across():
    player = factories.PlayerFactory(number=7)
    refused(lambda: factories.PlayerFactory(tournament=player.tournament, number=7))
    assert factories.PlayerFactory(number=7).number == 7  # another tournament


@pytest.mark.parametrize(
    "fields",
    [{"number": 0}, {"name": ""}, {"status": "asleep"}],
    ids=["number-zero", "empty-name", "unknown-status"],
)
def test_player_bad_values_are_refused(fields):
    refused(lambda: factories.PlayerFactory(**fields))


def test_stage_order_unique_in_tournament():
    stage = factories.StageFactory(order=1)
    refused(lambda: factories.StageFactory(tournament=stage.tournament, order=1))


@pytest.mark.parametrize(
    "fields",
    [
        {"starting_double": 13},  # no double-13 in a double-12 set
        {"rounds": 0},
        {"rounds": 14},  # double-12 down to double-blank is 13 rounds
        {"starting_double": 4, "rounds": 6},
        {"table_size_min": 1, "table_size_max": 4},
        {"table_size_min": 5, "table_size_max": 4},
        {"advance_per_table": 0},
        {"order": 0},
        {"name": ""},
        {"kind": "friendly"},
        {"status": "paused"},
        {"domino_set": 11},
    ],
    ids=[
        "double-outside-set",
        "no-rounds",
        "more-rounds-than-doubles",
        "rounds-past-blank",
        "table-of-one",
        "min-above-max",
        "nobody-advances",
        "order-zero",
        "empty-name",
        "unknown-kind",
        "unknown-status",
        "unknown-set",
    ],
)
def test_stage_bad_values_are_refused(fields):
    refused(lambda: factories.StageFactory(**fields))


def test_stage_good_values_are_stored():
    stage = factories.StageFactory(
        starting_double=12, rounds=13, table_size_min=2, table_size_max=2
    )
    assert Stage.objects.get(pk=stage.pk).engines == list(range(12, -1, -1))


def test_player_default_status_is_registered():
    assert factories.PlayerFactory().status == Player.Status.REGISTERED


@pytest.mark.parametrize(
    ("later", "tables", "decides", "follows"),
    [
        (Stage.Kind.QUALIFYING, 3, False, Follows.QUALIFYING),
        (Stage.Kind.PLAYOFF, 1, False, Follows.PLACINGS),
        (Stage.Kind.PLAYOFF, 3, True, Follows.PLACINGS),
        (Stage.Kind.PLAYOFF, 3, False, Follows.PLAYOFF),
    ],
)
def test_what_follows_a_stage_is_one_of_the_named_choices(later, tables, decides, follows):
    stage = factories.StageFactory(order=1, decides_placings=decides)
    factories.StageFactory(tournament=stage.tournament, order=2, kind=later)
    said = Stage.objects.what_follows(stage, tables=tables)
    assert said is follows  # a Follows, not a bare string a misspelt comparison would miss
