"""The tie-break decision on the pages starts empty: a place to choose for each tied player, so
that no click records an order nobody decided; a place missing, repeated or out of range is
refused, said, and records nothing."""

import html as markup

import pytest

from scoring.models import TiebreakDecision
from tables.models import Table
from tests import factories
from tests.scoring.helpers import play, seat_tables
from tests.scoring.standings.conftest import OTHERS, play_beside


@pytest.fixture
def tied(client, stage):
    """Ann and Bob tied for place 1 at table 1, which decides who advances; an organiser."""
    table, other = seat_tables(stage, [["Ann", "Bob", "Cy"], OTHERS])
    for round_no in (1, 2, 3, 4):
        play(stage, table, round_no, [0, 0, 10], blocked=True)
        play_beside(stage, other, round_no)
    organiser = factories.StaffFactory(tournament=stage.tournament, role="organiser").user
    client.force_login(organiser)
    return table


def board(client, stage) -> str:
    url = f"/t/{stage.tournament.slug}/manage/stages/{stage.order}/progress/"
    return client.get(url).content.decode()


def decide(client, stage, places: dict, **more):
    body = {
        "table": Table.objects.get(stage=stage, number=1).pk,
        "method": "draw",
        **{f"place-{player.pk}": place for player, place in places.items()},
        **more,
    }
    url = f"/t/{stage.tournament.slug}/manage/stages/{stage.order}/tiebreak/"
    return client.post(url, body, follow=True)


@pytest.mark.django_db
def test_the_form_starts_with_no_place_chosen_for_each_tied_player(client, stage, tied):
    ann, bob, _cy = tied
    form = board(client, stage).split('class="panel stack tiebreak"', 1)[1].split("</form>", 1)[0]
    for player in (ann, bob):
        select = form.split(f'name="place-{player.pk}"', 1)[1].split("</select>", 1)[0]
        assert select.count("<option") == 3  # "—", 1 and 2
        assert '<option value="">—</option>' in select and "selected" not in select
    assert 'name="order"' not in form


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("places", "message"),
    [
        ({"ann": "", "bob": "1"}, "Choose a place for each tied player; none is chosen for Ann."),
        ({"ann": "", "bob": ""}, "none is chosen for Ann, Bob."),
        ({"ann": "1", "bob": "1"}, "Each place goes to one player: Ann, Bob were given the same"),
        ({"ann": "1", "bob": "3"}, "The places run from 1 to 2."),
    ],
)
def test_a_place_missing_repeated_or_out_of_range_records_nothing(
    client, stage, tied, places, message
):
    ann, bob, _cy = tied
    named = {"ann": ann, "bob": bob}
    page = decide(client, stage, {named[name]: place for name, place in places.items()})
    text = markup.unescape(page.content.decode())
    assert "The decision was not recorded." in text and message in text
    assert not TiebreakDecision.objects.filter(stage=stage).exists()


@pytest.mark.django_db
def test_the_places_chosen_are_the_decided_order(client, anon, stage, tied):
    ann, bob, _cy = tied
    page = decide(client, stage, {ann: "2", bob: "1"}).content.decode()
    assert "The tie-break decision is recorded" in page
    rows = anon.get(f"/api/v1/stages/{stage.pk}/standings/").json()["rows"]
    assert [r["player"]["name"] for r in rows][:2] == ["Bob", "Ann"]


@pytest.mark.django_db
def test_a_refused_decision_is_said_in_its_form_with_the_choices_kept(client, stage, tied):
    """The page goes back to the form itself (its id in the address), which says why and keeps
    the places, the method and the note chosen, so the official corrects one thing, not all."""
    ann, bob, _cy = tied
    form_id = f"tiebreak-{stage.pk}-{Table.objects.get(stage=stage, number=1).pk}-"
    first = board(client, stage)
    form_id = form_id + first.split(f'id="{form_id}', 1)[1].split('"', 1)[0]
    progress = f"/t/{stage.tournament.slug}/manage/stages/{stage.order}/progress/"
    body = {"form": form_id, "next": progress,
            "note": "cut cards", "method": "draw"}  # fmt: skip
    page = decide(client, stage, {ann: "1", bob: "1"}, **body)
    assert page.redirect_chain[-1][0].endswith(f"#{form_id}")
    form = page.content.decode().split(f'id="{form_id}"', 1)[1].split("</form>", 1)[0]
    assert 'role="alert">Not recorded: Each place goes to one player' in markup.unescape(form)
    for player in (ann, bob):
        select = form.split(f'name="place-{player.pk}"', 1)[1].split("</select>", 1)[0]
        assert '<option value="1" selected>' in select
    assert 'value="cut cards"' in form
    assert '<option value="draw" selected>' in form
    # Said once: the next visit shows the form as new.
    again = board(client, stage).split(f'id="{form_id}"', 1)[1].split("</form>", 1)[0]
    assert "Not recorded" not in again and "selected" not in again.split('name="method"')[0]
    assert not TiebreakDecision.objects.filter(stage=stage).exists()
