from django.contrib import admin

from rallies.models import Chapter, Rally, RallyEntry, RallyEvent


class RallyEventInline(admin.TabularInline):
    model = RallyEvent
    extra = 0
    raw_id_fields = ["tournament"]


class ChapterInline(admin.TabularInline):
    model = Chapter
    extra = 0


@admin.register(Rally)
class RallyAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "closed_at"]
    prepopulated_fields = {"slug": ["name"]}
    filter_horizontal = ["organisers"]
    inlines = [RallyEventInline, ChapterInline]


@admin.register(RallyEntry)
class RallyEntryAdmin(admin.ModelAdmin):
    """A rally entry's events are its entries (changed on each entry's page or the event's
    console); here only who it is and the chapter are seen."""

    list_display = ["name", "rally", "chapter", "created_at"]
    list_filter = ["rally"]
    search_fields = ["name"]
    readonly_fields = ["rally", "entries", "manage_key", "created_at"]
    fields = ["rally", "name", "chapter", "entries", "manage_key", "created_at"]
