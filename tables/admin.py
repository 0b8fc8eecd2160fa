from django.contrib import admin

from tables.models import Seat, Table
from tournaments.admin import ViewOnly

# Seats change through seating, late entries, withdrawals and reinstatements (tables.services).


class SeatInline(ViewOnly, admin.TabularInline):
    model = Seat
    extra = 0
    raw_id_fields = ["player"]


@admin.register(Table)
class TableAdmin(ViewOnly, admin.ModelAdmin):
    list_display = ["number", "stage"]
    list_filter = ["stage__tournament", "stage"]
    inlines = [SeatInline]


@admin.register(Seat)
class SeatAdmin(ViewOnly, admin.ModelAdmin):
    list_display = ["player", "table", "position", "stage"]
    list_filter = ["stage__tournament", "stage"]
    raw_id_fields = ["player", "table"]
