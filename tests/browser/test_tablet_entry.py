"""An official at a tablet: enter a round, fix an error, confirm; and lose the network meanwhile."""

import pytest
from playwright.sync_api import expect

from scoring.models import RoundResult, RoundResultVersion
from tests import factories
from tests.browser.conftest import PHONE, TABLET, sign_in

pytestmark = pytest.mark.browser


@pytest.fixture
def seated(transactional_db):
    stage = factories.StageFactory(status="seated", rounds=4, starting_double=12)
    table = factories.TableFactory(stage=stage, number=1)
    players = []
    for position, name in enumerate(["Ann Baker", "Bob Ortiz", "Cy Young", "Di Peña"], start=1):
        player = factories.PlayerFactory(tournament=stage.tournament, number=position, name=name)
        factories.SeatFactory(table=table, player=player, position=position)
        players.append(player)
    official = factories.StaffFactory(tournament=stage.tournament, role="official").user
    return stage.tournament, table, players, official


def fill_round(page, players, pips: list[str], went_out: int) -> None:
    for player, value in zip(players, pips, strict=True):
        page.fill(f"#pips-{player.pk}", value)
    page.check(f"input[name=went_out][value='{players[went_out].pk}']")


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_official_enters_fixes_an_error_and_confirms(new_page, seated, viewport):
    tournament, table, players, official = seated
    page = new_page(viewport)
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/")
    page.click("text=Table 1")
    page.wait_for_url(f"**/enter/{table.pk}/1/")
    assert "double-12" in page.inner_text(".engine")
    fill_round(page, players, ["5", "12", "3o", "7"], went_out=0)
    assert page.input_value(f"#pips-{players[0].pk}") == "0"  # went out sets 0
    assert "after this round: 12" in page.inner_text(f"#total-{players[1].pk}")
    page.click("#round-form button[type=submit]")
    error = page.locator(f"#js-error-{players[2].pk}")
    error.wait_for()
    assert error.inner_text() == "Enter a whole number of pips, 0 or more"
    assert not RoundResult.objects.exists()
    page.fill(f"#pips-{players[2].pk}", "30")
    page.click("#round-form button[type=submit]")
    page.wait_for_url("**/check/")
    rows = page.locator(".check-table tbody tr").all_inner_texts()
    assert "Bob Ortiz #2\t12\t12" in rows
    page.click("text=The players agree: confirm")
    page.wait_for_url(f"**/enter/{table.pk}/2/")
    result = RoundResult.objects.get()
    assert (result.status, result.round_no) == ("confirmed", 1)
    assert [s.pips for s in result.scores.order_by("player__number")] == [0, 12, 30, 7]
    assert "Total before: 30" in page.inner_text(f"#total-{players[2].pk}")


def test_entry_made_offline_is_kept_and_sent_once_when_the_network_returns(new_page, seated):
    tournament, table, players, official = seated
    page = new_page(TABLET)
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/{table.pk}/1/")
    fill_round(page, players, ["0", "14", "22", "9"], went_out=0)
    page.context.set_offline(True)
    page.click("#round-form button[type=submit]")
    # The banner says "Sending…" first, then, when the send fails, that the entry is kept.
    expect(page.locator("#offline-banner")).to_have_text(
        "Not sent yet: will send when the connection returns."
    )
    page.wait_for_timeout(1500)  # a retry or two fail while offline
    assert not RoundResult.objects.exists()
    page.context.set_offline(False)
    page.wait_for_url("**/check/", timeout=15_000)  # resent by itself
    assert RoundResult.objects.count() == 1
    assert RoundResultVersion.objects.count() == 1
    assert [s.pips for s in RoundResult.objects.get().scores.order_by("player__number")] == [
        0,
        14,
        22,
        9,
    ]


def test_answer_lost_on_the_way_back_is_resent_and_counted_once(new_page, seated):
    tournament, table, players, official = seated
    page = new_page(TABLET)
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/{table.pk}/1/")
    deliveries = []

    def deliver_then_drop_answer(route):
        route.fetch()  # the server stores the entry...
        deliveries.append(1)
        if len(deliveries) < 3:
            route.abort("connectionreset")  # ...but the tablet never hears back
        else:
            route.continue_()

    page.route("**/api/v1/tables/*/rounds/*/", deliver_then_drop_answer)
    fill_round(page, players, ["0", "14", "22", "9"], went_out=0)
    page.click("#round-form button[type=submit]")
    page.wait_for_url("**/check/", timeout=20_000)
    assert len(deliveries) >= 3  # arrived at least three times
    assert RoundResult.objects.count() == 1
    assert RoundResultVersion.objects.count() == 1


def test_typed_scores_survive_a_reload(new_page, seated):
    tournament, table, players, official = seated
    page = new_page(TABLET)
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/{table.pk}/1/")
    page.fill(f"#pips-{players[1].pk}", "41")
    page.reload()
    assert page.input_value(f"#pips-{players[1].pk}") == "41"
