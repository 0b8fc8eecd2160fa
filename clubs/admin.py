from django.contrib import admin

from clubs.models import Club, ClubOrganiser, ClubTournament, Member, PlayerLink


class ClubOrganiserInline(admin.TabularInline):
    model = ClubOrganiser
    extra = 0
    autocomplete_fields = ["user"]


class ClubTournamentInline(admin.TabularInline):
    model = ClubTournament
    extra = 0


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [ClubOrganiserInline, ClubTournamentInline]


@admin.register(Member)
class MemberAdmin(admin.ModelAdmin):
    list_display = ["name", "member_number", "club", "erased_at"]
    list_filter = ["club"]
    search_fields = ["name", "member_number"]


@admin.register(PlayerLink)
class PlayerLinkAdmin(admin.ModelAdmin):
    list_display = ["player", "member", "how", "linked_by", "linked_at"]
    raw_id_fields = ["player", "member"]
