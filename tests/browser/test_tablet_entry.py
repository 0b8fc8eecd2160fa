"""An official at a tablet: enter a round, fix an error, confirm; and lose the network meanwhile."""

import re

import pytest
from playwright.sync_api import expect

from scoring.models import RoundResult, RoundResultVersion
from tests import factories
from tests.browser.conftest import PHONE, TABLET, sign_in
from tournaments.models import Stage

pytestmark = pytest.mark.browser


def signed_in_at_round_one(new_page, seated):
    """A tablet with the official signed in, at the table's round 1."""
    tournament, table, _players, official = seated
    page = new_page(TABLET)
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/{table.pk}/1/")
    return page


def saved_offline_then_to_round_two(page, table) -> str:
    """Save with the Wi-Fi dropping every send, then go on to round 2; the route to lift."""
    api = "**/api/v1/tables/*/rounds/*/"
    page.route(api, lambda route: route.abort("internetdisconnected"))
    page.click("#round-form button[type=submit]")
    expect(page.locator("#offline-banner")).to_contain_text("Not sent yet")
    page.click("nav.round-nav >> text=Round 2")
    page.wait_for_url(f"**/enter/{table.pk}/2/")
    return api


def stored_pips() -> list[int]:
    """The round's stored pips, in badge-number order."""
    return [s.pips for s in RoundResult.objects.get().scores.order_by("player__number")]


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
    # name, this round, total: a row of the table, or on a phone its lines
    rows = [row.split() for row in page.locator(".check-table tbody tr").all_inner_texts()]
    assert ["Bob", "Ortiz", "#2", "12", "12"] in rows
    page.click("text=The players agree: confirm")
    page.wait_for_url(f"**/enter/{table.pk}/2/")
    result = RoundResult.objects.get()
    assert (result.status, result.round_no) == ("confirmed", 1)
    assert [s.pips for s in result.scores.order_by("player__number")] == [0, 12, 30, 7]
    assert "Total before: 30" in page.inner_text(f"#total-{players[2].pk}")


def test_nobody_marked_as_went_out_is_said_beside_the_choices_which_get_the_focus(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    for player, value in zip(players, ["4", "14", "22", "9"], strict=True):
        page.fill(f"#pips-{player.pk}", value)
    page.click("#round-form button[type=submit]")
    beside = page.locator("#js-error-blocked")
    expect(beside).to_contain_text("Nobody is marked as went out")
    # Said where it is put right; the top says only that something below needs correcting.
    assert page.inner_text("#form-errors").strip() == "Not saved: correct what is marked below."
    focused = page.evaluate("() => [document.activeElement.name, document.activeElement.value]")
    assert focused == ["went_out", str(players[0].pk)]  # the first player's "Went out"
    assert not RoundResult.objects.exists()


def test_a_round_total_over_the_limit_is_said_at_the_top_with_the_scores_to_check(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    fill_round(page, players, ["0", "400", "400", "400"], went_out=0)
    page.click("#round-form button[type=submit]")
    expect(page.locator("#form-errors")).to_contain_text("Total 1,200 is more than")
    # 400 is unusual for the deal too: asked at once, not once the total is put right; the
    # first score asked about takes the focus.
    expect(page.locator(f"#unusual-{players[1].pk}")).to_contain_text("Are you sure?")
    assert page.evaluate("() => document.activeElement.id") == f"pips-{players[1].pk}"
    assert not RoundResult.objects.exists()


def test_entry_made_offline_is_kept_and_sent_once_when_the_network_returns(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
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
    assert stored_pips() == [0, 14, 22, 9]


def test_an_entry_another_tab_sends_takes_this_tab_on_to_its_check_page(new_page, seated):
    tournament, table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    fill_round(page, players, ["0", "14", "22", "9"], went_out=0)
    api = "**/api/v1/tables/*/rounds/*/"
    page.route(api, lambda route: route.abort("internetdisconnected"))  # this tab's sends fail
    page.click("#round-form button[type=submit]")
    expect(page.locator("#offline-banner")).to_contain_text("Not sent yet")
    # Round 2 opened in another tab, whose sends go through: it sends round 1's entry.
    other = page.context.new_page()
    other.goto(f"/t/{tournament.slug}/enter/{table.pk}/2/")
    # This tab follows, as if it had sent the entry itself: no "Not sent yet" for an entry in.
    page.wait_for_url(f"**/enter/{table.pk}/1/check/")
    assert stored_pips() == [0, 14, 22, 9]
    assert RoundResultVersion.objects.count() == 1  # counted once


def test_an_entry_another_tab_has_refused_is_shown_here_with_why(new_page, seated):
    tournament, table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    fill_round(page, players, ["0", "250", "22", "9"], went_out=0)  # 250: asked about
    page.route("**/api/v1/tables/*/rounds/*/", lambda route: route.abort("internetdisconnected"))
    page.click("#round-form button[type=submit]")
    expect(page.locator("#offline-banner")).to_contain_text("Not sent yet")
    other = page.context.new_page()
    other.goto(f"/t/{tournament.slug}/enter/{table.pk}/2/")  # sends it: refused, with the question
    expect(page.locator(f"#unusual-{players[1].pk}")).to_be_visible()
    expect(page.locator("#offline-banner")).to_be_hidden()
    expect(page.locator(f"#pips-{players[1].pk}")).to_be_enabled()  # to correct, or tick and save
    assert page.input_value(f"#pips-{players[1].pk}") == "250"  # what was typed, not lost
    assert not RoundResult.objects.exists()


def test_answer_lost_on_the_way_back_is_resent_and_counted_once(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
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
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    page.fill(f"#pips-{players[1].pk}", "41")
    page.reload()
    assert page.input_value(f"#pips-{players[1].pk}") == "41"


def test_went_out_tapped_by_mistake_gives_the_typed_pips_back(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    page.fill(f"#pips-{players[1].pk}", "25")
    page.fill(f"#pips-{players[2].pk}", "31")
    page.check(f"input[name=went_out][value='{players[1].pk}']")  # the wrong player
    assert page.input_value(f"#pips-{players[1].pk}") == "0"
    page.check(f"input[name=went_out][value='{players[2].pk}']")  # the right one
    assert page.input_value(f"#pips-{players[1].pk}") == "25"  # back as typed
    assert page.input_value(f"#pips-{players[2].pk}") == "0"
    # Arrowing through the choices with the keyboard zeroes nobody on the way.
    page.focus(f"input[name=went_out][value='{players[2].pk}']")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert page.input_value(f"#pips-{players[1].pk}") == "25"
    assert page.input_value(f"#pips-{players[2].pk}") == "31"
    # The radios say whose they are.
    label = page.get_by_role("radio", name=f"Went out ({players[1].name})")
    expect(label).to_have_count(1)


def submitted(table, players, pips, official, if_match=None):
    from scoring import services

    data = {
        "blocked": False,
        "scores": [
            {"player": p.pk, "pips": pip, "went_out": pip == 0}
            for p, pip in zip(players, pips, strict=True)
        ],
    }
    return services.submit_round_result(
        table=table, round_no=1, data=data, by=official, if_match=if_match
    ).result


def test_scores_saved_elsewhere_meanwhile_are_shown_and_not_overwritten(new_page, seated):
    _tournament, table, players, official = seated
    first = submitted(table, players, [0, 10, 20, 30], official)
    page = signed_in_at_round_one(new_page, seated)
    page.fill(f"#pips-{players[3].pk}", "29")  # typed here...
    submitted(table, players, [0, 11, 20, 30], official, if_match=first.etag)  # ...saved there
    page.click("#round-form button[type=submit]")
    errors = page.locator("#form-errors")
    expect(errors).to_contain_text("Someone saved scores for this round on another device")
    expect(errors).to_contain_text(f"{players[1].name} 11")
    expect(errors).to_contain_text(f"{players[3].name} 30 [you typed 29]")
    expect(errors).not_to_contain_text("If-Match")
    page.reload()
    # The page shows the scores as they are now, not what was typed over the older version...
    assert page.input_value(f"#pips-{players[1].pk}") == "11"
    assert page.input_value(f"#pips-{players[3].pk}") == "30"
    # ...and what was typed waits to be put back on purpose.
    page.click("#draft-notice button")
    assert page.input_value(f"#pips-{players[3].pk}") == "29"
    assert page.input_value(f"#pips-{players[1].pk}") == "10"
    page.fill(f"#pips-{players[1].pk}", "11")
    page.click("#round-form button[type=submit]")
    page.wait_for_url("**/check/")
    result = RoundResult.objects.get()
    assert result.version == 3
    assert stored_pips() == [0, 11, 20, 29]


def test_entry_queued_when_the_session_ended_is_sent_after_signing_in_again(new_page, seated):
    tournament, table, players, official = seated
    page = new_page(TABLET)
    entry_path = f"/t/{tournament.slug}/enter/{table.pk}/1/"
    sign_in(page, official.username, next_path=entry_path)
    fill_round(page, players, ["0", "14", "22", "9"], went_out=0)
    page.context.set_offline(True)
    page.click("#round-form button[type=submit]")
    expect(page.locator("#offline-banner")).to_have_text(
        "Not sent yet: will send when the connection returns."
    )
    page.context.clear_cookies()  # the session ends meanwhile
    page.context.set_offline(False)
    expect(page.locator("#offline-banner")).to_have_text(
        "Not sent yet: sign in again (in another tab) and it will be sent.", timeout=15_000
    )
    assert not RoundResult.objects.exists()
    other = page.context.new_page()
    sign_in(other, official.username, next_path=f"/t/{tournament.slug}/enter/")
    page.wait_for_url("**/check/", timeout=15_000)  # sent with the new session's token
    assert stored_pips() == [0, 14, 22, 9]


def test_entry_refused_while_the_official_is_at_another_round_is_kept_and_shown(new_page, seated):
    tournament, table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    for player, value in zip(players, ["4", "14", "22", "9"], strict=True):
        page.fill(f"#pips-{player.pk}", value)  # nobody marked as went out
    api = saved_offline_then_to_round_two(page, table)
    page.unroute(api)  # sent from round 2's page, and refused there
    refused = page.locator(".refused")
    expect(refused).to_be_visible(timeout=15_000)
    expect(refused).to_contain_text(f"Table 1, round 1 · {tournament.name}")
    assert not RoundResult.objects.exists()
    refused.locator("a").click()
    page.wait_for_url(f"**/enter/{table.pk}/1/")
    expect(page.locator("#js-error-blocked")).to_contain_text("Nobody is marked as went out")
    assert page.input_value(f"#pips-{players[0].pk}") == "4"  # what was sent, kept


def test_the_network_coming_back_during_a_retry_sends_once(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    attempts = []

    def fail(route):
        attempts.append(1)
        route.abort("internetdisconnected")

    page.route("**/api/v1/tables/*/rounds/*/", fail)
    fill_round(page, players, ["0", "14", "22", "9"], went_out=0)
    page.click("#round-form button[type=submit]")
    expect(page.locator("#offline-banner")).to_contain_text("Not sent yet")
    before = len(attempts)
    # The connection flickers: five "online" events at once join one resend.
    page.evaluate(
        "() => { for (let i = 0; i < 5; i++) window.dispatchEvent(new Event('online')); }"
    )
    page.wait_for_timeout(1000)
    assert len(attempts) - before == 1
    settled = len(attempts)
    page.wait_for_timeout(4500)  # the tablet retries every 4 s
    assert len(attempts) - settled <= 2  # one retry chain, not one more per event


def test_a_version_conflict_met_at_another_round_does_not_put_the_old_scores_back(new_page, seated):
    _tournament, table, players, official = seated
    first = submitted(table, players, [0, 10, 20, 30], official)
    page = signed_in_at_round_one(new_page, seated)
    page.fill(f"#pips-{players[3].pk}", "29")
    api = saved_offline_then_to_round_two(page, table)
    submitted(table, players, [0, 11, 20, 30], official, if_match=first.etag)  # elsewhere
    page.unroute(api)
    refused = page.locator(".refused")
    expect(refused).to_be_visible(timeout=15_000)
    refused.locator("a").click()
    page.wait_for_url(f"**/enter/{table.pk}/1/")
    expect(page.locator("#form-errors")).to_contain_text("on another device")
    for shown in (page, None):
        if shown is None:
            page.reload()
        # The scores saved meanwhile are shown; what was typed waits to be put back on purpose.
        assert page.input_value(f"#pips-{players[1].pk}") == "11"
        assert page.input_value(f"#pips-{players[3].pk}") == "30"
        expect(page.locator("#draft-notice")).to_be_visible()
    assert RoundResult.objects.get().version == 2


def test_an_entry_the_account_may_not_send_does_not_hold_up_the_next(new_page, seated):
    tournament, table, players, official = seated
    page = new_page(TABLET)
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/{table.pk}/2/")
    # An entry kept from earlier, for a table this account may not enter (403 for ever).
    other = factories.TableFactory(stage=factories.StageFactory(status="seated"), number=1)
    stuck = {
        "url": f"/api/v1/tables/{other.pk}/rounds/1/",
        "checkUrl": "/t/elsewhere/enter/1/1/check/",
        "key": "stuck-entry",
        "csrf": "",
        "ifMatch": "",
        "body": {"blocked": True, "scores": []},
    }
    page.evaluate("(e) => localStorage.setItem('rh-outbox', JSON.stringify([e]))", stuck)
    page.goto(f"/t/{tournament.slug}/enter/{table.pk}/1/")
    fill_round(page, players, ["0", "14", "22", "9"], went_out=0)
    page.click("#round-form button[type=submit]")
    page.wait_for_url("**/check/", timeout=15_000)  # sent, behind the stuck one
    assert RoundResult.objects.filter(table=table).count() == 1


def test_an_entry_refused_because_the_stage_closed_is_shown_once_then_let_go(new_page, seated):
    _tournament, table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    fill_round(page, players, ["0", "14", "22", "9"], went_out=0)
    api = saved_offline_then_to_round_two(page, table)
    Stage.objects.filter(pk=table.stage_id).update(status="closed")  # the organiser closed it
    page.unroute(api)
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    refused = page.locator(".refused")
    expect(refused).to_be_visible(timeout=15_000)
    refused.locator("a").click()
    page.wait_for_url(f"**/enter/{table.pk}/1/")
    expect(page.locator("p.error").first).to_contain_text("is closed")
    assert page.evaluate("() => localStorage.getItem('rh-outbox')") == "[]"
    assert not RoundResult.objects.exists()


API = "**/api/v1/tables/*/rounds/*/"


def test_each_error_key_of_the_api_is_shown_where_the_page_puts_it(new_page, seated):
    """Every key a 400 answer may hold: beside its field, or at the top when it has none; the
    first field marked takes the focus, and the next send clears the marks."""
    _tournament, _table, players, _official = seated
    first, second, third, fourth = (p.pk for p in players)
    answers = [
        {
            f"scores.{second}": ["Second's first", "Second's second"],
            "blocked": ["Blocked words"],
            "non_field_errors": ["Nobody words"],
            f"scores.{first}": ["First's words"],
            "scores": ["Scores words"],
            "round_no": ["Round words"],
            "idempotency_key": ["Key words"],
            "reason": ["A reason, where the page has no reason field"],
            "scores.999999": ["A player this page does not show"],
            "detail": "Detail words",
            "current": {"scores": [{"player": first, "pips": 1, "went_out": False}]},
        },
        {"non_field_errors": ["Nobody again"]},
    ]
    page = signed_in_at_round_one(new_page, seated)
    page.route(API, lambda route: route.fulfill(status=400, json=answers.pop(0)))
    fill_round(page, players, ["5", "6", "0", "8"], went_out=2)
    page.click("#round-form button[type=submit]")

    expect(page.locator(f"#js-error-{second}")).to_have_text("Second's first. Second's second")
    expect(page.locator(f"#js-error-{first}")).to_have_text("First's words")
    expect(page.locator("#js-error-blocked")).to_have_text("Blocked words. Nobody words")
    for quiet in (third, fourth):
        expect(page.locator(f"#js-error-{quiet}")).to_be_hidden()
    assert page.locator("#form-errors p").all_inner_texts() == [
        "Scores words",
        "Round words",
        "Key words",
        "A reason, where the page has no reason field",
        "A player this page does not show",
        "Detail words",
    ]
    for pid in (first, second):
        assert page.get_attribute(f"#pips-{pid}", "aria-invalid") == "true"
        assert f"js-error-{pid}" in page.get_attribute(f"#pips-{pid}", "aria-describedby").split()
        expect(page.locator(f".player-row[data-player='{pid}']")).to_have_class(
            "player-row has-error"
        )
    assert page.get_attribute(f"#pips-{third}", "aria-invalid") is None
    expect(page.locator(".blocked-row")).to_have_class("player-row blocked-row has-error")
    assert page.locator("input[name=went_out][aria-invalid]").count() == 0
    assert page.evaluate("() => document.activeElement.id") == f"pips-{first}"

    # Sent again: the marks of the first answer go; the choices take the focus, at the one chosen.
    page.click("#round-form button[type=submit]")
    expect(page.locator("#js-error-blocked")).to_have_text("Nobody again")
    for pid in (first, second):
        expect(page.locator(f"#js-error-{pid}")).to_be_hidden()
        assert page.get_attribute(f"#pips-{pid}", "aria-invalid") is None
        assert page.get_attribute(f"#pips-{pid}", "aria-describedby") == f"total-{pid}"
    assert page.locator(".has-error").count() == 1
    assert page.inner_text("#form-errors").strip() == "Not saved: correct what is marked below."
    focused = page.evaluate("() => [document.activeElement.name, document.activeElement.value]")
    assert focused == ["went_out", str(third)]
    assert not RoundResult.objects.exists()


@pytest.mark.parametrize(
    ("locale", "why", "fix"),
    [
        (
            "en-US",
            "This result was confirmed: say why it is being corrected.",
            "Not saved: correct what is marked below.",
        ),
        (
            "es-ES",
            "Este resultado ya estaba confirmado: indique por qué se corrige.",
            "No se guardó: corrija lo que está marcado abajo.",
        ),
    ],
    ids=["en", "es"],
)
def test_a_correction_without_a_reason_is_said_beside_the_reason_which_gets_the_focus(
    new_page, seated, locale, why, fix
):
    from scoring import services

    tournament, table, players, official = seated
    confirmed = services.confirm_round_result(
        result=submitted(table, players, [0, 10, 20, 30], official), by=official
    )
    page = new_page(TABLET, locale=locale)
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/{table.pk}/1/")
    page.fill(f"#pips-{players[3].pk}", "29")
    page.click("#round-form button[type=submit]")
    expect(page.locator("#js-error-reason")).to_have_text(why)
    assert page.inner_text("#form-errors").strip() == fix
    expect(page.locator(".reason")).to_have_class("reason has-error")
    assert page.get_attribute("#id_reason", "aria-invalid") == "true"
    assert "js-error-reason" in page.get_attribute("#id_reason", "aria-describedby").split()
    assert page.evaluate("() => document.activeElement.id") == "id_reason"
    assert RoundResult.objects.get().version == confirmed.version  # nothing saved
    page.fill("#id_reason", "The paper sheet said 29")
    page.click("#round-form button[type=submit]")
    page.wait_for_url("**/check/")
    assert RoundResult.objects.get().version == confirmed.version + 1
    assert stored_pips() == [0, 10, 20, 29]


def test_tablet_offline_opens_another_round_from_its_copy_and_sends_when_back(new_page, seated):
    _tournament, table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    # The page keeps its table's four rounds as it opens.
    expect(page.locator("nav.round-nav")).to_have_attribute("data-kept", "4")
    expect(page.locator("#offline-copy")).to_be_hidden()
    page.context.set_offline(True)
    page.click("nav.round-nav >> text=Round 2")
    page.wait_for_url(f"**/enter/{table.pk}/2/")
    expect(page.locator("h1")).to_contain_text("Round 2")
    expect(page.locator("#offline-copy")).to_be_visible()
    expect(page.locator("#offline-copy")).to_contain_text("Offline: this is the copy")
    page.fill(f"#pips-{players[1].pk}", "12")  # typed, then off to another round
    page.click("nav.round-nav >> text=Round 1")
    page.wait_for_url(f"**/enter/{table.pk}/1/")
    expect(page.locator("h1")).to_contain_text("Round 1")
    expect(page.locator("#offline-copy")).to_be_visible()
    page.click("nav.round-nav >> text=Round 3")
    page.wait_for_url(f"**/enter/{table.pk}/3/")
    expect(page.locator("h1")).to_contain_text("Round 3")
    page.go_back()  # the browser's Back button, still offline
    page.wait_for_url(f"**/enter/{table.pk}/1/")
    expect(page.locator("h1")).to_contain_text("Round 1")
    page.click("nav.round-nav >> text=Round 2")
    page.wait_for_url(f"**/enter/{table.pk}/2/")
    expect(page.locator(f"#pips-{players[1].pk}")).to_have_value("12")  # the draft, kept
    expect(page.locator("#restored-notice")).to_be_visible()
    fill_round(page, players, ["9", "12", "3", "7"], went_out=0)
    page.click("#round-form button[type=submit]")
    expect(page.locator("#offline-banner")).to_contain_text("Not sent yet")
    assert not RoundResult.objects.exists()
    page.context.set_offline(False)
    page.wait_for_url(f"**/enter/{table.pk}/2/check/", timeout=20_000)
    result = RoundResult.objects.get()  # sent once, counted once
    assert result.round_no == 2
    assert stored_pips() == [0, 12, 3, 7]
    assert RoundResultVersion.objects.filter(result=result).count() <= 1
    assert page.evaluate("() => localStorage.getItem('rh-outbox')") == "[]"


def test_server_out_of_reach_on_the_wifi_opens_the_rounds_copy_and_sends_once_back(
    new_page, seated
):
    # The venue's Wi-Fi up (the browser thinks it is online) and the server out of reach.
    _tournament, table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    expect(page.locator("nav.round-nav")).to_have_attribute("data-kept", "4")
    out_of_reach = re.compile(r"/(enter/\d+/\d+|api/v1/tables/\d+/rounds/\d+)/$")
    page.route(out_of_reach, lambda route: route.abort("addressunreachable"))
    page.click("nav.round-nav >> text=Round 3")
    page.wait_for_url(f"**/enter/{table.pk}/3/")
    expect(page.locator("h1")).to_contain_text("Round 3")
    expect(page.locator("#offline-copy")).to_be_visible()
    fill_round(page, players, ["4", "14", "22", "9"], went_out=0)
    page.click("#round-form button[type=submit]")
    expect(page.locator("#offline-banner")).to_contain_text("Not sent yet")
    page.wait_for_timeout(1000)
    assert not RoundResult.objects.exists()
    page.unroute(out_of_reach)
    page.wait_for_url(f"**/enter/{table.pk}/3/check/", timeout=20_000)  # the next retry
    result = RoundResult.objects.get()
    assert result.round_no == 3
    assert stored_pips() == [0, 14, 22, 9]
    assert page.evaluate("() => localStorage.getItem('rh-outbox')") == "[]"


def test_an_entry_in_flight_when_the_round_switches_is_sent_once_and_followed(new_page, seated):
    # Saved at round 2 with the server out of reach, its send hanging; the official goes to
    # round 1 and back to round 2 (their copies). The hanging send gets through at last: the
    # pages started since do not send it beside it, and round 2 follows it to its check page.
    _tournament, table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    expect(page.locator("nav.round-nav")).to_have_attribute("data-kept", "4")
    pages = re.compile(r"/enter/\d+/\d+/$")
    page.route(pages, lambda route: route.abort("addressunreachable"))
    page.click("nav.round-nav >> text=Round 2")
    page.wait_for_url(f"**/enter/{table.pk}/2/")
    held, puts = [], []

    def hold_the_first(route):
        puts.append(route.request.headers["idempotency-key"])
        if held:
            route.abort("addressunreachable")
        else:
            held.append(route)  # neither answered nor failed until the test lets it through

    page.route("**/api/v1/tables/*/rounds/*/", hold_the_first)
    fill_round(page, players, ["9", "12", "3", "7"], went_out=0)
    page.click("#round-form button[type=submit]")
    expect(page.locator("#round-form button[type=submit]")).to_be_disabled()
    page.click("nav.round-nav >> text=Round 1")
    page.wait_for_url(f"**/enter/{table.pk}/1/")
    page.click("nav.round-nav >> text=Round 2")
    page.wait_for_url(f"**/enter/{table.pk}/2/")
    expect(page.locator("#offline-banner")).to_contain_text("Not sent yet")
    page.wait_for_timeout(1000)
    assert len(puts) == 1  # the pages started since wait for the send under way
    held[0].continue_()
    page.wait_for_url(f"**/enter/{table.pk}/2/check/", timeout=20_000)
    assert RoundResult.objects.get().round_no == 2
    assert stored_pips() == [0, 12, 3, 7]
    assert page.evaluate("() => localStorage.getItem('rh-outbox')") == "[]"


def test_the_skip_link_stays_on_the_page(new_page, seated):
    # A jump within the page (the skip link's #main) is no round to open: the page stays.
    page = signed_in_at_round_one(new_page, seated)
    expect(page.locator("nav.round-nav")).to_have_attribute("data-kept", "4")
    page.evaluate("() => { window.stillHere = true; }")
    page.evaluate("() => { window.location.hash = 'main'; }")
    page.wait_for_timeout(1500)
    assert page.url.endswith("/1/#main")
    assert page.evaluate("() => window.stillHere === true")


def test_tablet_offline_goes_to_all_tables_and_enters_another_tables_round(new_page, seated):
    # An official with two tables: at table 1's round 1 the network goes; All tables and table
    # 2's rounds open from the copies the page kept, and table 2's round 2 saved there is sent
    # once when the network returns.
    tournament, table, _players, _official = seated
    other = factories.TableFactory(stage=table.stage, number=2)
    players = []
    for position, name in enumerate(["Eve Stone", "Fay Gómez", "Gus Lee", "Hal Ito"], start=1):
        player = factories.PlayerFactory(tournament=tournament, number=10 + position, name=name)
        factories.SeatFactory(table=other, player=player, position=position)
        players.append(player)
    page = signed_in_at_round_one(new_page, seated)
    # Kept one at a time: table 1's four rounds, All tables, table 2's four rounds.
    expect(page.locator("html")).to_have_attribute("data-kept-done", "1", timeout=20_000)
    expect(page.locator("html")).to_have_attribute("data-kept-pages", "9")
    page.context.set_offline(True)
    page.click(".site-nav >> text=All tables")
    page.wait_for_url(f"**/t/{tournament.slug}/enter/")
    expect(page.locator("h1")).to_contain_text("Enter scores")
    expect(page.locator("#offline-copy")).to_be_visible()
    expect(page.locator("#offline-copy")).to_contain_text("Offline: this is the copy of this list")
    page.click("a.table-link >> text=Table 2")
    page.wait_for_url(f"**/enter/{other.pk}/1/")
    expect(page.locator("h1")).to_contain_text("Table 2 · Round 1")
    expect(page.locator("#offline-copy")).to_be_visible()
    page.click("nav.round-nav >> text=Round 2")
    page.wait_for_url(f"**/enter/{other.pk}/2/")
    expect(page.locator("h1")).to_contain_text("Table 2 · Round 2")
    fill_round(page, players, ["5", "11", "8", "2"], went_out=0)
    page.click("#round-form button[type=submit]")
    expect(page.locator("#offline-banner")).to_contain_text("Not sent yet")
    assert not RoundResult.objects.exists()
    page.context.set_offline(False)
    page.wait_for_url(f"**/enter/{other.pk}/2/check/", timeout=20_000)
    result = RoundResult.objects.get()  # sent once, counted once, for table 2's round 2
    assert (result.table_id, result.round_no) == (other.pk, 2)
    assert [s.pips for s in result.scores.order_by("player__number")] == [0, 11, 8, 2]
    assert RoundResultVersion.objects.filter(result=result).count() <= 1
    assert page.evaluate("() => localStorage.getItem('rh-outbox')") == "[]"
