from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from simple_history.admin import SimpleHistoryAdmin

from config.refusals import PageRefusal
from tournaments.models import (
    Invitation,
    Player,
    Staff,
    StaffEvent,
    Stage,
    Tournament,
    WorkerHeartbeat,
)
from tournaments.services.divisions import check_division_playoffs_open
from tournaments.services.stage_changes import check_settings_open, names_read
from tournaments.services.tournaments import check_tiebreak_rules_open
from tournaments.signals import (
    player_changed,
    reporting_changed,
    stages_changed,
    tournament_changed,
)


class ViewOnly:
    """For what changes only through the services, which check the change against the event's
    state, keep its history and tell the standings: an edit in the admin would do none of it."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class StaffInline(admin.TabularInline):
    model = Staff
    extra = 0
    raw_id_fields = ["user"]


# What the seating and the close record of a stage: shown, never typed over.
SERVICES_RECORD = ["source_stage", "seed", "seating_report", "advance_problem"]


class StageAdminForm(forms.ModelForm):
    def clean(self) -> dict:
        """As in the console: a name typed over the product's (tournaments.stagenames) stays as
        typed, the stage's kind of name gone; a closed or started stage's settings refused (a
        closed stage's name may still be corrected here)."""
        data = super().clean()
        stage = self.instance
        if stage.name_key:
            if data.get("name") in names_read(stage.name, stage.name_key):
                data["name"] = stage.name  # the product's name, in whichever language: unchanged
            else:
                stage.name_key = ""
        changed = {f: data[f] for f in self.changed_data if f in data}
        # A closed stage's name is the superuser's to correct (a typo on every page); its
        # settings are not: its standings, and who advanced from it, were decided by them.
        renamed_only = stage.status == Stage.Status.CLOSED and changed.keys() == {"name"}
        if stage.pk and changed and not renamed_only:
            with PageRefusal() as refusal:  # what the console refuses, refused here too
                check_settings_open(stage, changed)
            if refusal:
                raise forms.ValidationError(refusal.text) from refusal.error
        return data


class StageInline(admin.TabularInline):
    model = Stage
    form = StageAdminForm
    extra = 0
    # Seated and closed by the services, which check and rebuild, and record how; the kind of
    # name is the product's, gone once the name is typed over. Who reports the rounds changes on
    # the stage's own page, which signs the seats' phones out when it goes to the officials.
    readonly_fields = ["status", "name_key", "reporting", *SERVICES_RECORD]


class TournamentAdminForm(forms.ModelForm):
    def clean(self) -> dict:
        """What the services refuse once play has begun, refused here too (a superuser's save
        would otherwise redraw a closed stage's ranks by new rules, or split the playoffs under
        way)."""
        data = super().clean()
        if not self.instance.pk:
            return data
        checks = {
            "tiebreak_rules": check_tiebreak_rules_open,
            "division_playoffs": check_division_playoffs_open,
        }
        for field, check in checks.items():
            if field in self.changed_data:
                with PageRefusal() as refusal:
                    check(self.instance)
                refusal.onto(self, field)
        return data


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentAdminForm
    list_display = ["name", "slug", "preset", "domino_set", "created_at"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [StaffInline, StageInline]

    def save_related(self, request, form, formsets, change) -> None:
        super().save_related(request, form, formsets, change)
        if not change:
            return
        # Its address or time zone: every played stage's pages follow. Anything else (its stages,
        # its tie-break rules, refused once a stage has closed): the seated stage's; a closed
        # stage's standings, and who advanced from it, stand as they were.
        if {"slug", "time_zone"} & set(form.changed_data):
            tournament_changed.send(sender=Tournament, tournament=form.instance)
        elif form.changed_data or any(formset.has_changed() for formset in formsets):
            stages_changed.send(sender=Stage, tournament=form.instance)


@admin.register(Staff)
class StaffAdmin(admin.ModelAdmin):
    list_display = ["user", "tournament", "role", "joined_via", "last_seen_at"]
    list_filter = ["role", "tournament"]
    raw_id_fields = ["user"]


@admin.register(Player)
class PlayerAdmin(SimpleHistoryAdmin):  # History: every change, by whom and why
    list_display = ["number", "name", "tournament", "household", "club", "status"]
    list_filter = ["tournament", "status"]
    search_fields = ["name", "household", "club"]
    # Checked in, withdrawn and reinstated from the console, which closes and reopens seats.
    readonly_fields = ["status"]

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        if change and form.changed_data:  # the pages that show the player follow
            player_changed.send(sender=Player, player=obj)

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        # An old version is shown, never saved back: SIMPLE_HISTORY_REVERT_DISABLED only hides
        # the button, and the save would restore a status without its seats.
        if request.method == "POST":
            raise PermissionDenied
        return super().history_form_view(request, object_id, version_id, extra_context)


@admin.register(Stage)
class StageAdmin(admin.ModelAdmin):
    form = StageAdminForm
    list_display = ["name", "tournament", "order", "kind", "status", "rounds", "starting_double"]
    list_filter = ["tournament", "kind", "status"]
    # Seated and closed by the services; the kind of name is the product's (see StageInline).
    readonly_fields = ["status", "name_key", *SERVICES_RECORD]

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        if change and form.changed_data:  # its name or settings: the seated stage's pages follow
            stages_changed.send(sender=Stage, tournament=obj.tournament)
        if change and "reporting" in form.changed_data:  # the seats' phones follow, as by the page
            reporting_changed.send(sender=Stage, stage=obj)


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    list_display = ["hostname", "seen_at", "tasks_seen"]


@admin.register(Invitation)
class InvitationAdmin(ViewOnly, admin.ModelAdmin):
    """Made, revoked and accepted on the Staff page (which logs each); the admin only looks."""

    list_display = ["tournament", "role", "email", "created_by", "expires_at", "accepted_by"]
    list_filter = ["tournament", "role"]


@admin.register(StaffEvent)
class StaffEventAdmin(ViewOnly, admin.ModelAdmin):
    """The staff log: a record, never edited."""

    list_display = ["at", "tournament", "action", "actor_name", "subject_name", "role"]
    list_filter = ["tournament", "action"]
