from django.contrib import admin

from scoring.models import IdempotencyRecord, RoundResult, RoundResultVersion, Score
from tournaments.admin import ViewOnly

# Results and scores change only through entry and correction (scoring.services), which validate
# them, keep the audit trail and rebuild the standings.


class ScoreInline(ViewOnly, admin.TabularInline):
    model = Score
    extra = 0
    raw_id_fields = ["player"]


@admin.register(RoundResult)
class RoundResultAdmin(ViewOnly, admin.ModelAdmin):
    list_display = ["table", "round_no", "engine", "status", "version", "updated_at"]
    list_filter = ["stage__tournament", "stage", "status"]
    raw_id_fields = ["table", "submitted_by", "confirmed_by"]
    inlines = [ScoreInline]


@admin.register(Score)
class ScoreAdmin(ViewOnly, admin.ModelAdmin):
    list_display = ["player", "result", "pips", "went_out"]
    raw_id_fields = ["player", "result"]


@admin.register(RoundResultVersion)
class RoundResultVersionAdmin(ViewOnly, admin.ModelAdmin):  # the audit trail: never edited
    list_display = ["result", "version", "action", "by", "at", "reason"]
    raw_id_fields = ["result", "by"]


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(admin.ModelAdmin):
    list_display = ["key", "user", "method", "path", "created", "created_at"]
    raw_id_fields = ["user"]
