"""The database refuses seats that break one-seat-per-player and one-player-per-position."""

import pytest
from django.db import IntegrityError, transaction

from tables.models import Seat
from tests import factories

pytestmark = pytest.mark.django_db


def refused(create) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        create()


def test_table_number_unique_in_stage():
    table = factories.TableFactory(number=1)
    refused(lambda: factories.TableFactory(stage=table.stage, number=1))


def test_table_number_positive():
    refused(lambda: factories.TableFactory(number=0))


def test_player_has_one_seat_per_stage_even_at_another_table():
    seat = factories.SeatFactory(position=1)
    other_table = factories.TableFactory(stage=seat.stage)
    refused(
        lambda: Seat.objects.create(
            stage=seat.stage, table=other_table, player=seat.player, position=1
        )
    )


def test_player_may_sit_in_each_stage_once():
    seat = factories.SeatFactory(position=1)
    next_stage = factories.StageFactory(tournament=seat.stage.tournament)
    table = factories.TableFactory(stage=next_stage)
    assert Seat.objects.create(stage=next_stage, table=table, player=seat.player, position=1).pk


def test_one_player_per_seat_position():
    seat = factories.SeatFactory(position=2)
    refused(lambda: factories.SeatFactory(table=seat.table, position=2))


def test_seat_position_positive():
    refused(lambda: factories.SeatFactory(position=0))
