"""The Django admin lists and opens every model for a superuser."""

import pytest
from django.contrib import admin
from django.urls import reverse
from django.utils import translation

from scoring.models import RoundResultVersion, StageStandings
from tests import factories
from tests.admin_forms import change_form
from tournaments.exceptions import StateConflict
from tournaments.services.tournaments import check_tiebreak_rules_open

pytestmark = pytest.mark.django_db


def test_every_model_has_an_admin_page_that_opens(client):
    superuser = factories.UserFactory(is_staff=True, is_superuser=True)
    client.force_login(superuser)
    factories.ScoreFactory()  # a result, its table, stage, tournament and player
    ours = [
        m for m in admin.site._registry if m._meta.app_label in {"tournaments", "tables", "scoring"}
    ]
    labels = {m._meta.label for m in ours}
    assert labels >= {
        "tournaments.Tournament", "tournaments.Staff", "tournaments.Player", "tournaments.Stage",
        "tables.Table", "tables.Seat", "scoring.RoundResult", "scoring.Score",
        "scoring.RoundResultVersion", "scoring.IdempotencyRecord",
    }  # fmt: skip
    for model in ours:
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert client.get(url).status_code == 200, url
        first = model.objects.first()
        if first is not None:
            change = reverse(
                f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[first.pk]
            )
            assert client.get(change).status_code == 200, change


def test_results_and_scores_are_view_only_in_the_admin(client):
    # They change through entry and correction only: validated, audited, and the standings
    # rebuilt. An admin edit would skip all three.
    superuser = factories.UserFactory(is_staff=True, is_superuser=True)
    client.force_login(superuser)
    score = factories.ScoreFactory(pips=12)
    change = reverse("admin:scoring_score_change", args=[score.pk])
    page = client.get(change)
    assert page.status_code == 200 and b'name="pips"' not in page.content
    refused = client.post(
        change, {"pips": 99, "player": score.player_id, "result": score.result_id}
    )
    assert refused.status_code == 403
    score.refresh_from_db()
    assert score.pips == 12
    delete = reverse("admin:scoring_roundresult_delete", args=[score.result_id])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    # Nor is their history, the audit trail, deleted or written there.
    version = RoundResultVersion.objects.create(
        result=score.result, version=1, action="submitted", status="submitted", blocked=False,
        scores=[], by=superuser,
    )  # fmt: skip
    history = reverse("admin:scoring_roundresultversion_delete", args=[version.pk])
    assert client.post(history, {"post": "yes"}).status_code == 403
    assert client.get(reverse("admin:scoring_roundresultversion_add")).status_code == 403
    assert client.get(reverse("admin:scoring_score_add")).status_code == 403


def test_seats_tables_and_the_status_of_stages_and_players_are_not_edited_in_the_admin(client):
    # Seating, withdrawals and closing a stage go through the services, which check them against
    # the event and rebuild the standings; names and settings stay editable.
    superuser = factories.UserFactory(is_staff=True, is_superuser=True)
    client.force_login(superuser)
    seat = factories.SeatFactory()
    player, stage = seat.player, seat.stage
    for name, pk in (("tables_seat", seat.pk), ("tables_table", seat.table_id)):
        assert (
            client.post(reverse(f"admin:{name}_delete", args=[pk]), {"post": "yes"}).status_code
            == 403
        )
    assert client.get(reverse("admin:tables_seat_add")).status_code == 403
    page = client.get(reverse("admin:tournaments_player_change", args=[player.pk]))
    assert b'name="name"' in page.content and b'name="status"' not in page.content
    page = client.get(reverse("admin:tournaments_stage_change", args=[stage.pk]))
    assert b'name="rounds"' in page.content and b'name="status"' not in page.content
    for record in ("name_key", "seating_report", "advance_problem", "seed", "source_stage"):
        assert f'name="{record}"'.encode() not in page.content  # shown, never typed over
    seat.refresh_from_db()
    player.refresh_from_db()
    assert player.status == "registered"


def test_a_player_renamed_in_the_admin_asks_for_new_standings(
    client, django_capture_on_commit_callbacks
):
    superuser = factories.UserFactory(is_staff=True, is_superuser=True)
    client.force_login(superuser)
    seat = factories.SeatFactory()
    player = seat.player
    change = reverse("admin:tournaments_player_change", args=[player.pk])
    body = {"tournament": player.tournament_id, "number": player.number, "name": "Renamed",
            "household": "", "club": ""}  # fmt: skip
    with django_capture_on_commit_callbacks() as sent:
        assert client.post(change, body).status_code == 302
    player.refresh_from_db()
    assert player.name == "Renamed"
    stale = StageStandings.objects.get(stage=seat.stage)
    assert stale.change_seq > stale.built_seq and sent  # marked stale, a rebuild sent on commit


def test_a_tournament_changed_in_the_admin_asks_for_new_standings_of_its_played_stages(
    client, django_capture_on_commit_callbacks
):
    # Its address (every link of its pages) or its time zone: the pages kept for the old
    # snapshot must not outlive the change.
    superuser = factories.UserFactory(is_staff=True, is_superuser=True)
    client.force_login(superuser)
    seat = factories.SeatFactory(table__stage__status="seated")
    tournament = seat.stage.tournament
    change = reverse("admin:tournaments_tournament_change", args=[tournament.pk])
    body = change_form(client.get(change))
    body["slug"] = "renamed-rally"
    with django_capture_on_commit_callbacks() as sent:
        response = client.post(change, body)
    assert response.status_code == 302, response.context["adminform"].form.errors
    tournament.refresh_from_db()
    assert tournament.slug == "renamed-rally"
    stale = StageStandings.objects.get(stage=seat.stage)
    assert stale.change_seq > stale.built_seq and sent  # marked stale, a rebuild sent on commit


def admin_change(client, obj):
    """A superuser's change page of `obj` (a tournament, a stage): its address, and its form
    (inlines too) as a browser posts it back."""
    superuser = factories.UserFactory(is_staff=True, is_superuser=True)
    client.force_login(superuser)
    meta = obj._meta
    change = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
    return change, change_form(client.get(change))


def test_the_tie_break_rules_are_refused_in_the_admin_once_a_stage_has_closed(
    client, django_capture_on_commit_callbacks
):
    # The closed stage's ranks, and who advanced from it, were decided by the rules as they
    # were; saved with the address changed too, its snapshot would be redrawn by the new ones.
    closed = factories.StageFactory(status="closed", order=1)
    factories.StageFactory(tournament=closed.tournament, status="seated", order=2)
    tournament = closed.tournament
    change, body = admin_change(client, tournament)
    body["tiebreak_rules"] = '["countback", "rounds_won"]'
    body["slug"] = "renamed-rally"
    with django_capture_on_commit_callbacks() as sent:
        response = client.post(change, body)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors["tiebreak_rules"] == [
        "A stage has closed: its ranks and who advanced were decided by these tie-break rules, "
        "which can no longer change."
    ]
    tournament.refresh_from_db()
    assert tournament.tiebreak_rules == ["rounds_won", "countback"]
    assert tournament.slug != "renamed-rally" and not sent  # nothing saved, nothing rebuilt


def test_the_tie_break_rules_change_in_the_admin_while_no_stage_has_closed(
    client, django_capture_on_commit_callbacks
):
    seat = factories.SeatFactory(table__stage__status="seated")
    tournament = seat.stage.tournament
    change, body = admin_change(client, tournament)
    body["tiebreak_rules"] = '["countback", "rounds_won"]'
    with django_capture_on_commit_callbacks() as sent:
        response = client.post(change, body)
    assert response.status_code == 302, response.context["adminform"].form.errors
    tournament.refresh_from_db()
    assert tournament.tiebreak_rules == ["countback", "rounds_won"]
    stale = StageStandings.objects.get(stage=seat.stage)  # the seated stage ranked anew
    assert stale.change_seq > stale.built_seq and sent


def test_whether_divisions_share_the_playoffs_is_refused_in_the_admin_once_a_stage_is_seated(
    client,
):
    tournament = factories.StageFactory(status="seated").tournament
    change, body = admin_change(client, tournament)
    body["division_playoffs"] = "per_division"
    response = client.post(change, body)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["division_playoffs"] == [
        "A stage is seated: whether the divisions share the playoffs can no longer change."
    ]
    tournament.refresh_from_db()
    assert tournament.division_playoffs == "shared"


def test_the_tie_break_rules_refusal_is_said_in_spanish_too():
    tournament = factories.StageFactory(status="closed").tournament
    with translation.override("es"), pytest.raises(StateConflict) as refused:
        check_tiebreak_rules_open(tournament)
    assert str(refused.value).startswith("Una fase ya se cerró: sus puestos y quién pasó")


def refused_in_admin(client, obj, **changes) -> list[str]:
    """What the admin's change page of `obj` says when `changes` are posted and refused."""
    change, body = admin_change(client, obj)
    response = client.post(change, body | changes)
    assert response.status_code == 200  # the form again, with its errors: nothing saved
    return list(response.context["adminform"].form.non_field_errors())


def test_a_closed_stages_settings_are_refused_in_the_admin(
    client, django_capture_on_commit_callbacks
):
    # Its standings, and who advanced from it, were decided by them: as in the console, they
    # stand as they are, on the stage's own page and in the tournament's list of stages.
    closed = factories.StageFactory(status="closed", order=1, rounds=13)
    factories.StageFactory(tournament=closed.tournament, status="seated", order=2)
    with django_capture_on_commit_callbacks() as sent:
        refused = refused_in_admin(client, closed, rounds=7)
    assert refused == [f"{closed.display_name} is closed: its settings can no longer change."]
    tournament_change, body = admin_change(client, closed.tournament)
    body["stages-0-rounds"] = 7
    with django_capture_on_commit_callbacks() as sent_too:
        response = client.post(tournament_change, body)
    assert response.status_code == 200
    (stages,) = [
        i.formset for i in response.context["inline_admin_formsets"] if i.formset.prefix == "stages"
    ]
    assert stages.forms[0].non_field_errors() == [
        f"{closed.display_name} is closed: its settings can no longer change."
    ]
    closed.refresh_from_db()
    assert closed.rounds == 13 and not sent and not sent_too  # nothing saved, nothing rebuilt
    # Its name alone is still the superuser's to correct: a typo shown on every page.
    change, body = admin_change(client, closed)
    body["name"] = "Morning Session"
    assert client.post(change, body).status_code == 302
    closed.refresh_from_db()
    assert (closed.name, closed.rounds) == ("Morning Session", 13)


def test_a_seated_stage_changes_only_its_day_of_play_settings_in_the_admin(client):
    stage = factories.StageFactory(status="seated", rounds=13, table_size_max=8)
    assert refused_in_admin(client, stage, table_size_max=6) == [
        f"{stage.display_name} is seated: only its name, starting double, rounds and "
        "confirmation rule can change, and only before the first result. "
        "Not changed: table_size_max."
    ]
    change, body = admin_change(client, stage)
    body["rounds"] = 7  # announced on the day, before the first result
    assert client.post(change, body).status_code == 302
    stage.refresh_from_db()
    assert (stage.rounds, stage.table_size_max) == (7, 8)
    factories.ScoreFactory(result__table__stage=stage)  # play has begun
    assert refused_in_admin(client, stage, rounds=9) == [
        f"{stage.display_name} already has results: its settings can no longer change."
    ]
    stage.refresh_from_db()
    assert stage.rounds == 7
