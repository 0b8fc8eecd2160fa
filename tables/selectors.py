"""Reads of tables and seats."""

from django.db.models import Prefetch, QuerySet

from tables.models import Seat, Table
from tournaments.models import Stage


def tables_with_seats(stage: Stage) -> QuerySet[Table]:
    """The stage's tables in order, each with its seats and their players in two more queries."""
    seats = Seat.objects.select_related("player").order_by("position")
    return stage.tables.order_by("number").prefetch_related(Prefetch("seats", queryset=seats))
