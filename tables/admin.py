from django.contrib import admin

from tables.models import Seat, Table


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    raw_id_fields = ["player"]


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ["number", "stage"]
    list_filter = ["stage__tournament", "stage"]
    inlines = [SeatInline]


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ["player", "table", "position", "stage"]
    list_filter = ["stage__tournament", "stage"]
    raw_id_fields = ["player", "table"]
