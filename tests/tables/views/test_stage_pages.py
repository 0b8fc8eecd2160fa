"""The organiser's stage pages: a new tournament from a preset, a stage's settings, adding and
removing stages."""

import pytest
from django.test import Client

from tests import factories
from tests.scoring.helpers import seat_tables
from tests.tables.views.conftest import add_players, new_stage
from tournaments.models import Stage, Tournament

pytestmark = pytest.mark.django_db


def test_new_tournament_from_a_preset(client, db):
    user = factories.OrganiserAccountFactory()
    client.force_login(user)
    response = client.post(
        "/new/",
        {"name": "Spring Rally", "slug": "spring-rally", "preset": "samboree", "domino_set": "12"},
        follow=True,
    )
    assert "Spring Rally is ready" in response.content.decode()

    tournament = Tournament.objects.get(slug="spring-rally")
    assert [(s.kind, s.rounds) for s in tournament.stages.all()] == [
        ("qualifying", 4),
        ("playoff", 4),
    ]
    bad = client.post(
        "/new/", {"name": "X", "slug": "spring-rally", "preset": "samboree", "domino_set": "9"}
    )
    assert bad.status_code == 400
    assert "deals only with double-12" in bad.content.decode()


def test_day_of_play_settings_from_the_stage_page(organiser_client, tournament, stage):
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/day-of-play/",
        {"starting_double": "9", "rounds": "3"},
        follow=True,
    )
    assert "Qualifying: 3 rounds, engines 9, 8, 7." in response.content.decode()
    bad = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/day-of-play/",
        {"starting_double": "2", "rounds": "5"},
        follow=True,
    )
    assert "at most 3 rounds" in bad.content.decode()
    stage.refresh_from_db()
    assert (stage.starting_double, stage.rounds) == (9, 3)


def test_table_sizes_of_a_stage_not_seated_yet_from_its_page(
    organiser_client, tournament, stage, client, official
):
    url = f"/t/{tournament.slug}/manage/stages/1/"
    page = organiser_client.get(url).content.decode()
    assert "Table sizes" in page and 'name="table_size_min"' in page
    done = organiser_client.post(
        f"{url}table-sizes/", {"table_size_min": "5", "table_size_max": "6"}, follow=True
    )
    assert "Qualifying: tables of 5 to 6 players." in done.content.decode()
    stage.refresh_from_db()
    assert (stage.table_size_min, stage.table_size_max) == (5, 6)
    # Bad sizes are refused with the reason, and change nothing.
    for body, reason in [
        (
            {"table_size_min": "6", "table_size_max": "5"},
            "The largest table size cannot be smaller than the smallest.",
        ),
        ({"table_size_min": "", "table_size_max": "5"}, "This field is required."),
        ({"table_size_min": "2", "table_size_max": "40"}, "less than or equal to 19"),
    ]:
        refused = organiser_client.post(f"{url}table-sizes/", body, follow=True)
        assert reason in refused.content.decode(), body
    stage.refresh_from_db()
    assert (stage.table_size_min, stage.table_size_max) == (5, 6)
    # Once seated, the sizes are fixed and the page no longer offers them.
    add_players(tournament, 10)
    organiser_client.post(f"{url}seat/", {"seed": "1"})
    stage.refresh_from_db()
    assert stage.status == "seated"
    assert 'name="table_size_min"' not in organiser_client.get(url).content.decode()
    refused = organiser_client.post(
        f"{url}table-sizes/", {"table_size_min": "4", "table_size_max": "6"}, follow=True
    )
    assert "is seated: only its name" in refused.content.decode()
    # Officials do not set them.
    client.force_login(official)
    assert client.post(f"{url}table-sizes/", {"table_size_min": "4"}).status_code == 403


def test_a_stage_is_added_from_the_console_like_the_last_playoff_level(
    organiser_client, tournament, stage
):
    factories.StageFactory(
        tournament=tournament, order=2, name="Semi", kind="playoff", rounds=3,
        starting_double=9, table_size_min=4, table_size_max=6,
    )  # fmt: skip
    console = organiser_client.get(f"/t/{tournament.slug}/manage/stages/").content.decode()
    # The form starts from the last playoff level's settings, with no name.
    assert 'name="starting_double" value="9"' in console
    assert 'name="table_size_max" value="6"' in console
    assert 'name="name" maxlength="120" required id="stage-name"' in console
    assert console.count('id="stage-name"') == 1
    body = new_stage(late_entry_rule="zero")
    done = organiser_client.post(f"/t/{tournament.slug}/manage/stages/add/", body, follow=True)
    assert "Added Final as stage 3." in done.content.decode()
    assert done.redirect_chain[-1][0] == f"/t/{tournament.slug}/manage/stages/3/"
    final = Stage.objects.get(tournament=tournament, order=3)
    assert (final.name, final.kind, final.status) == ("Final", "playoff", "pending")
    assert (final.starting_double, final.rounds, final.table_size_min) == (9, 2, 2)
    assert (final.table_size_max, final.late_entry_rule) == (8, "zero")
    assert not final.requires_second_person and not final.carry_forward


@pytest.mark.parametrize(
    ("changes", "field", "reason"),
    [
        ({"name": ""}, "name", "This field is required."),
        ({"starting_double": "13"}, "starting_double", "A double-12 set has no double-13"),
        ({"rounds": "12"}, "rounds", "at most 10 rounds can be played"),
        ({"table_size_min": "6", "table_size_max": "5"}, "table_size_max", "cannot be smaller"),
        ({"table_size_max": "12"}, "table_size_max", "deals for at most 10 players"),
        ({"advance_per_table": "0"}, "advance_per_table", "greater than or equal to 1"),
        ({"kind": "knockout"}, "kind", "Select a valid choice."),
        ({"wildcards": "-1"}, "wildcards", "greater than or equal to 0"),
    ],
)
def test_a_bad_new_stage_is_refused_next_to_its_field_and_adds_nothing(
    organiser_client, tournament, stage, changes, field, reason
):
    body = new_stage(**changes)
    refused = organiser_client.post(f"/t/{tournament.slug}/manage/stages/add/", body)
    assert refused.status_code == 400
    page = refused.content.decode()
    error = page.index(f'id="stage-{field}_error"')
    assert reason in page[error : page.index("</div>", error)]
    # The field names its error (and help) for screen readers, and both are on the page.
    widget = page.split(f'id="stage-{field}"', 1)[0].rsplit("<", 1)[1]
    described = widget.split('aria-describedby="', 1)[1].split('"', 1)[0].split()
    assert f"stage-{field}_error" in described and 'aria-invalid="true"' in widget
    assert all(f'id="{ref}"' in page for ref in described)
    assert '<details id="add-stage" open>' in page  # what was typed is kept, shown open
    if body["name"]:
        assert 'value="Final"' in page
    assert list(tournament.stages.values_list("order", flat=True)) == [1]


def test_only_organisers_add_stages(client, tournament, official):
    client.force_login(official)
    response = client.post(f"/t/{tournament.slug}/manage/stages/add/", {"name": "Final"})
    assert response.status_code == 403
    assert not tournament.stages.exists()


def test_the_last_stage_is_removed_from_its_page_until_it_is_seated(
    organiser_client, tournament, stage, official
):
    final = factories.StageFactory(tournament=tournament, order=2, name="Final", kind="playoff")
    manage = f"/t/{tournament.slug}/manage/stages"
    assert "Remove this stage" not in organiser_client.get(f"{manage}/1/").content.decode()
    assert "Remove this stage" in organiser_client.get(f"{manage}/2/").content.decode()
    # Each refusal says why and removes nothing.
    unticked = organiser_client.post(f"{manage}/2/remove/", follow=True).content.decode()
    assert "Tick the box to remove Final." in unticked
    not_last = organiser_client.post(f"{manage}/1/remove/", {"confirm": "on"}, follow=True)
    assert "Only the last stage can be removed: remove Final first." in not_last.content.decode()
    official_client = Client()
    official_client.force_login(official)
    assert official_client.post(f"{manage}/2/remove/", {"confirm": "on"}).status_code == 403
    assert list(tournament.stages.values_list("name", flat=True)) == ["Qualifying", "Final"]
    done = organiser_client.post(f"{manage}/2/remove/", {"confirm": "on"}, follow=True)
    assert "Removed Final." in done.content.decode()
    assert done.redirect_chain[-1][0] == f"/t/{tournament.slug}/manage/stages/"
    assert not Stage.objects.filter(pk=final.pk).exists()
    # Seated, the last stage stays.
    add_players(tournament, 8)
    organiser_client.post(f"{manage}/1/seat/", {"seed": "1"})
    assert "Remove this stage" not in organiser_client.get(f"{manage}/1/").content.decode()
    refused = organiser_client.post(f"{manage}/1/remove/", {"confirm": "on"}, follow=True)
    assert "Qualifying has been seated: only a stage not seated yet" in refused.content.decode()
    assert tournament.stages.count() == 1


def test_a_new_level_after_qualifying_carries_nothing_of_the_qualifying_rules(
    organiser_client, tournament
):
    # The first playoff level is made like the qualifying stage's deal only: no wildcards, no
    # totals carried, one per table, the rule for late entries as by default.
    factories.StageFactory(
        tournament=tournament, order=1, carry_forward=True, wildcards=3, advance_per_table=2,
        late_entry_rule="zero", starting_double=9, rounds=3, table_size_min=4, table_size_max=6,
    )  # fmt: skip
    console = organiser_client.get(f"/t/{tournament.slug}/manage/stages/").content.decode()
    form = console.split('id="add-stage"', 1)[1].split("</form>", 1)[0]
    assert '<option value="playoff" selected>' in form
    offered = {"starting_double": 9, "rounds": 3, "table_size_min": 4, "table_size_max": 6,
               "advance_per_table": 1, "wildcards": 0}  # fmt: skip
    for name, value in offered.items():
        assert f'name="{name}" value="{value}"' in form, name
    assert '<option value="table_high" selected>' in form
    carry = form.split('name="carry_forward"', 1)[1].split(">", 1)[0]
    assert "checked" not in carry


def test_the_first_stage_of_a_tournament_is_offered_as_a_qualifying_stage_the_preset_deals(
    organiser_client, tournament
):
    console = organiser_client.get(f"/t/{tournament.slug}/manage/stages/").content.decode()
    form = console.split('id="add-stage"', 1)[1].split("</form>", 1)[0]
    assert '<option value="qualifying" selected>' in form
    # The Samboree preset deals for 2 to 10 players with a double-12 set.
    assert 'name="table_size_min" value="2"' in form
    assert 'name="table_size_max" value="10"' in form
    assert 'name="starting_double" value="12"' in form


def test_no_stage_is_added_once_the_placings_are_decided(
    organiser_client, as_organiser, tournament
):
    final = factories.StageFactory(tournament=tournament, order=1, name="Final", kind="playoff")
    seat_tables(final, [["A", "B", "C"]])
    Stage.objects.filter(pk=final.pk).update(status="closed")
    console = organiser_client.get(f"/t/{tournament.slug}/manage/stages/").content.decode()
    assert "Final decided the placings: no stage follows." in console
    assert 'id="add-stage"' not in console
    body = new_stage(name="Encore")
    reason = "Final has decided the placings: the tournament is over, so no stage follows."
    add = f"/t/{tournament.slug}/manage/stages/add/"
    api = f"/api/v1/tournaments/{tournament.slug}/stages/"
    # The state is said first, whatever else is wrong with the stage (from a stale tab).
    for sent in (body, new_stage(name="", table_size_max="40")):
        refused = organiser_client.post(add, sent, follow=True)
        assert reason in refused.content.decode()
        answer = as_organiser.post(api, sent)
        assert answer.status_code == 409 and answer.json()["detail"] == reason
    assert list(tournament.stages.values_list("name", flat=True)) == ["Final"]


def test_a_refused_stage_setting_is_shown_beside_its_field_with_what_was_typed(
    organiser_client, tournament
):
    factories.StageFactory(tournament=tournament, order=1, advance_per_table=2)
    url = f"/t/{tournament.slug}/manage/stages/1/"
    refused = organiser_client.post(
        f"{url}table-sizes/", {"table_size_min": "6", "table_size_max": "5"}
    )
    assert refused.status_code == 400
    page = refused.content.decode()
    sizes = page.split('id="sizes-h"', 1)[1].split("</form>", 1)[0]
    error = sizes.split('id="id_table_size_max_error"', 1)[1].split("</div>", 1)[0]
    assert "The largest table size cannot be smaller than the smallest." in error
    assert 'name="table_size_min" value="6"' in sizes  # as typed, to be corrected
    # A check across settings the form does not show is said above its fields.
    refused = organiser_client.post(
        f"{url}table-sizes/", {"table_size_min": "2", "table_size_max": "3"}
    )
    sizes = refused.content.decode().split('id="sizes-h"', 1)[1].split("</form>", 1)[0]
    above = sizes.split('name="table_size_min"', 1)[0]
    assert "With tables of 2, at most 1 player per table can advance." in above
    stage = tournament.stages.get()
    assert (stage.table_size_min, stage.table_size_max) == (3, 4)  # unchanged
