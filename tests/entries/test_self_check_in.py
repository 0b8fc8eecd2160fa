"""Self check-in with an entry's code: right (any case, spaces), twice (said already in), wrong
(404 saying nothing of others), wrong ten times (then 429, while right codes from the same
address still check in), withdrawn (409), and once a stage that would seat the player is being
played (409: go to the desk). The kiosk page without script does the same."""

from decimal import Decimal

import pytest
from django.test import Client

from entries.models import Entry
from tables import services as table_services
from tests import factories
from tests.entries.helpers import enter, open_tournament
from tournaments.models import Player, Stage

pytestmark = pytest.mark.django_db


def check_in(client, tournament, code, **extra):
    return client.post(
        f"/api/v1/tournaments/{tournament.slug}/check-in/", {"code": code}, format="json", **extra
    )


@pytest.fixture
def open_event():
    return open_tournament(entry_fee=Decimal("0"))


def spaced(code: str) -> str:
    return f"  {code[:4].lower()} {code[4:]} "


def test_a_right_code_checks_the_player_in_any_case_and_spaced(anon, open_event):
    ann = enter(open_event, "Ana Peña")
    answer = check_in(anon, open_event, spaced(ann.check_in_code))
    assert answer.status_code == 200, answer.json()
    assert answer.json() == {
        "name": "Ana Peña", "number": 1, "status": "checked_in", "already": False,
        "detail": "Welcome, #1 Ana Peña: you are checked in.",
    }  # fmt: skip
    player = Player.objects.get(pk=ann.player_id)
    assert player.status == Player.Status.CHECKED_IN
    assert player.history.first().history_change_reason == "checked_in"
    twice = check_in(anon, open_event, ann.check_in_code)
    assert twice.status_code == 200 and twice.json()["already"] is True
    assert "already checked in" in twice.json()["detail"]
    assert player.history.count() == Player.objects.get(pk=player.pk).history.count()


def test_spanish_answers_in_spanish(anon, open_event):
    ann = enter(open_event, "Ana Peña")
    answer = check_in(anon, open_event, ann.check_in_code, HTTP_ACCEPT_LANGUAGE="es")
    assert answer.json()["detail"] == "Bienvenida/o, #1 Ana Peña: ya está presente."


def test_a_wrong_code_is_a_404_that_says_nothing_of_other_tournaments(anon, open_event):
    other = open_tournament()
    elsewhere = enter(other, "Bob Brown")
    for code in ("NOPE2345", elsewhere.check_in_code):
        answer = check_in(anon, open_event, code)
        assert answer.status_code == 404
        assert answer.json()["detail"] == (
            "That code is not one of this tournament's: check it or go to the desk."
        )
    assert Player.objects.get(pk=elsewhere.player_id).status == Player.Status.REGISTERED
    assert check_in(anon, open_event, "  ").status_code == 400


def test_a_code_that_is_not_letters_and_digits_is_a_400_saying_so(anon, open_event):
    # A NUL byte once reached PostgreSQL (which refuses it in text) and answered 500.
    ann = enter(open_event, "Ana Peña")
    for code in (f"{ann.check_in_code[:4]}\x00{ann.check_in_code[4:]}", "ABCD*123", "ÀBCD1234"):
        answer = check_in(anon, open_event, code)
        assert answer.status_code == 400, (code, answer.content)
        assert answer.json()["code"] == ["A check-in code has 8 letters and digits."]
    assert Player.objects.get(pk=ann.player_id).status == Player.Status.REGISTERED


def test_ten_wrong_codes_a_minute_then_429_but_right_codes_still_check_in(anon, open_event):
    ann, bob = enter(open_event, "Ann Abbott"), enter(open_event, "Bob Brown")
    for n in range(10):
        assert check_in(anon, open_event, f"WRONG{n:03}").status_code == 404
    assert check_in(anon, open_event, "WRONG999").status_code == 429
    # The kiosk's queue is not held up by someone's typos: a right code is never limited.
    assert check_in(anon, open_event, ann.check_in_code).status_code == 200
    assert check_in(anon, open_event, "WRONG998").status_code == 429
    assert check_in(anon, open_event, bob.check_in_code).status_code == 200
    # Another address is not limited by this one's wrong codes.
    other = check_in(anon, open_event, "WRONG997", REMOTE_ADDR="10.9.9.9")
    assert other.status_code == 404


def test_a_withdrawn_entry_is_sent_to_the_desk(anon, open_event, organiser):
    ann = enter(open_event, "Ann Abbott")
    from entries.services import entering

    entering.withdraw(ann)
    answer = check_in(anon, open_event, ann.check_in_code)
    assert answer.status_code == 409 and "go to the desk" in answer.json()["detail"]
    assert Player.objects.get(pk=ann.player_id).status == Player.Status.WITHDRAWN


def test_once_a_stage_that_would_seat_them_is_played_the_kiosk_sends_them_to_the_desk(
    anon, open_event, organiser
):
    ann, bob = enter(open_event, "Ann Abbott"), enter(open_event, "Bob Brown")
    stage = factories.StageFactory(tournament=open_event, status=Stage.Status.SEATED)
    factories.SeatFactory(table__stage=stage, player=Player.objects.get(pk=bob.player_id))
    late = check_in(anon, open_event, ann.check_in_code)
    assert late.status_code == 409
    assert late.json()["detail"] == "Ann Abbott, please go to the desk: they will check you in."
    assert Player.objects.get(pk=ann.player_id).status == Player.Status.REGISTERED
    # Bob has his seat in it: he checks in.
    seated = check_in(anon, open_event, bob.check_in_code)
    assert seated.status_code == 200, seated.json()
    # Once that stage is closed and before the next is seated, the kiosk checks in again.
    factories.StageFactory(tournament=open_event, name="Second")  # pending
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.CLOSED)
    again = check_in(anon, open_event, ann.check_in_code)
    assert again.status_code == 200, again.json()


def test_a_code_checks_in_an_already_checked_in_player_even_after_seating(anon, open_event):
    ann = enter(open_event, "Ann Abbott")
    table_services.check_in_player(player=Player.objects.get(pk=ann.player_id), by=None)
    factories.StageFactory(tournament=open_event, status=Stage.Status.SEATED)
    answer = check_in(anon, open_event, ann.check_in_code)
    assert answer.status_code == 200 and answer.json()["already"] is True


@pytest.mark.parametrize(("language", "said"), [
    ("en", "Welcome, #1 Ana Peña: you are checked in."),
    ("es", "Bienvenida/o, #1 Ana Peña: ya está presente."),
])  # fmt: skip
def test_the_kiosk_page_checks_in_without_script_and_resets(open_event, language, said):
    ann = enter(open_event, "Ana Peña")
    browser = Client()
    page = browser.get(f"/{language}/t/{open_event.slug}/check-in/")
    assert page.status_code == 200
    assert "no-store" in page["Cache-Control"] or "private" in page["Cache-Control"]
    answer = browser.post(f"/{language}/t/{open_event.slug}/check-in/", {"code": spaced(
        ann.check_in_code)})  # fmt: skip
    assert answer.status_code == 200
    html = answer.content.decode()
    assert said in html
    assert f'http-equiv="refresh" content="6;url=/{language}/t/{open_event.slug}/check-in/"' in html
    wrong = browser.post(f"/{language}/t/{open_event.slug}/check-in/", {"code": "NOPE2345"})
    assert wrong.status_code == 404
    assert Entry.objects.get(pk=ann.pk).player.status == Player.Status.CHECKED_IN
