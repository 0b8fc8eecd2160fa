"""Tables whose players report their own rounds, below the API: claiming a seat with the table's
code, who may report a table, a seat never confirming its own entry, disputes, and handing a
table or a stage back to the officials."""

import pytest
from django.core.exceptions import ValidationError
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import PermissionDenied

from scoring import services
from scoring.models import RoundResult
from scoring.services import disputes
from tables import reporting
from tables.models import CODE_ALPHABET, SeatClaim, new_table_code
from tests import factories
from tests.scoring.conftest import round_body
from tournaments.exceptions import StateConflict
from tournaments.services.stage_changes import update_stage

pytestmark = pytest.mark.django_db


@pytest.fixture
def players_stage(stage):
    stage.reporting = "players"
    stage.save()
    return stage


def claim(table, number):
    seat = reporting.seat_to_claim(table.code, number)
    assert seat is not None
    return reporting.claim_seat(seat)[0]


def test_a_table_code_is_six_letters_that_cannot_be_misread():
    codes = {new_table_code() for _ in range(200)}
    assert len(codes) == 200
    assert all(len(code) == 6 and set(code) <= set(CODE_ALPHABET) for code in codes)
    assert not set("0O1IL5S2Z8B") & set(CODE_ALPHABET)


def test_every_table_gets_its_own_code_so_a_new_stage_has_new_codes(stage):
    first = factories.TableFactory(stage=stage, number=1)
    later = factories.StageFactory(tournament=stage.tournament, order=2)
    again = factories.TableFactory(stage=later, number=1)
    assert first.code != again.code


def test_a_code_is_read_whatever_its_case_spaces_or_dashes(players_stage, table):
    typed = f" {table.code[:3].lower()}-{table.code[3:]} "
    assert reporting.seat_to_claim(typed, "2").player.name == "Bob"


@pytest.mark.parametrize("number", ["9", "x", ""])
def test_a_badge_not_at_the_table_or_not_a_number_finds_no_seat(players_stage, table, number):
    assert reporting.seat_to_claim(table.code, number) is None


def test_a_wrong_code_finds_no_seat(players_stage, table):
    wrong = "".join(
        CODE_ALPHABET[0] if c != CODE_ALPHABET[0] else CODE_ALPHABET[1] for c in table.code
    )
    assert reporting.seat_to_claim(wrong, 1) is None
    assert reporting.seat_to_claim("ABC", 1) is None


def test_a_claim_makes_a_user_with_a_token_and_no_password(players_stage, table):
    seat = reporting.seat_to_claim(table.code, 3)
    made, token = reporting.claim_seat(seat)
    assert made.seat == seat and made.active
    assert Token.objects.get(user=made.user).key == token
    assert not made.user.has_usable_password()
    assert reporting.claim_of(made.user) == made


def test_a_stage_the_officials_report_takes_no_claim(stage, table):
    seat = reporting.seat_to_claim(table.code, 1)
    with pytest.raises(StateConflict, match="entered by the officials"):
        reporting.claim_seat(seat)
    assert not SeatClaim.objects.exists()


def test_a_seat_reaches_its_own_table_only(players_stage, table):
    other = factories.TableFactory(stage=players_stage, number=2)
    made = claim(table, 1)
    assert reporting.require_reporter(made.user, table) == made
    with pytest.raises(PermissionDenied, match="seat 1 at table 1"):
        reporting.require_reporter(made.user, other)
    assert reporting.may_report(made.user, table) and not reporting.may_report(made.user, other)


def test_a_seat_enters_a_round_and_another_seat_confirms_it(players_stage, table, players):
    ann, bob = claim(table, 1), claim(table, 2)
    services.submit_round_result(table=table, round_no=1, data=round_body(players), by=ann.user)
    result = RoundResult.objects.get()
    with pytest.raises(StateConflict, match="another player at table 1 confirms"):
        services.confirm_round_result(result=result, by=ann.user)
    # The same seat claimed again from another phone is still the seat that entered it.
    ann_tablet = claim(table, 1)
    with pytest.raises(StateConflict, match="another player"):
        services.confirm_round_result(result=result, by=ann_tablet.user)
    services.confirm_round_result(result=result, by=bob.user)
    assert RoundResult.objects.get().status == "confirmed"


def test_a_seat_does_not_change_a_confirmed_round_it_disputes_it(
    players_stage, table, players, official
):
    ann = claim(table, 1)
    services.submit_round_result(table=table, round_no=1, data=round_body(players), by=official)
    services.confirm_round_result(result=RoundResult.objects.get(), by=official)
    with pytest.raises(StateConflict, match="dispute it"):
        services.submit_round_result(
            table=table, round_no=1, data=round_body(players), by=ann.user, if_match="*"
        )
    assert RoundResult.objects.get().version == 2


def test_a_disputed_round_counts_nowhere_until_an_official_confirms_it(
    players_stage, table, players, official
):
    ann, bob = claim(table, 1), claim(table, 2)
    services.submit_round_result(table=table, round_no=1, data=round_body(players), by=ann.user)
    services.confirm_round_result(result=RoundResult.objects.get(), by=bob.user)
    disputed = disputes.dispute_round(table=table, round_no=1, by=bob.user, note=" Cy had 3 ")
    assert (disputed.status, disputed.confirmed_by) == ("disputed", None)
    last = disputed.versions.order_by("version").last()
    assert (last.action, last.reason, last.by) == ("disputed", "Cy had 3", bob.user)
    # Again: nothing more.
    disputes.dispute_round(table=table, round_no=1, by=ann.user, note="yes")
    assert RoundResult.objects.get().versions.count() == 3
    with pytest.raises(StateConflict, match="only an official can confirm"):
        services.confirm_round_result(result=RoundResult.objects.get(), by=ann.user)
    with pytest.raises(StateConflict, match="disputed: an official corrects"):
        services.submit_round_result(
            table=table, round_no=1, data=round_body(players), by=ann.user, if_match="*"
        )
    services.confirm_round_result(result=RoundResult.objects.get(), by=official)
    assert RoundResult.objects.get().status == "confirmed"


def test_an_officials_correction_of_a_disputed_round_goes_back_to_be_confirmed(
    players_stage, table, players, official
):
    ann = claim(table, 1)
    services.submit_round_result(table=table, round_no=1, data=round_body(players), by=ann.user)
    disputes.dispute_round(table=table, round_no=1, by=official, note="Bob's 12 is 21")
    services.submit_round_result(
        table=table, round_no=1, data=round_body(players, pips=(0, 21, 30, 7)), by=official,
        if_match="*",
    )  # fmt: skip
    assert RoundResult.objects.get().status == "submitted"


@pytest.mark.parametrize(
    ("note", "says"),
    [("", "Say what is wrong"), ("   ", "Say what is wrong"), (None, "Say what is wrong"),
     ("x" * 501, "at most 500"), ("a\x00b", "does not print")],
)  # fmt: skip
def test_a_dispute_without_a_readable_note_is_refused_and_changes_nothing(
    players_stage, table, players, official, note, says
):
    services.submit_round_result(table=table, round_no=1, data=round_body(players), by=official)
    with pytest.raises(ValidationError, match=says):
        disputes.dispute_round(table=table, round_no=1, by=official, note=note)
    assert RoundResult.objects.get().status == "submitted"


def test_a_table_handed_back_to_the_officials_signs_its_seats_out(players_stage, table):
    ann = claim(table, 1)
    reporting.set_table_reporting(table, players=False)
    ann.refresh_from_db()
    ann.user.refresh_from_db()
    assert not ann.active and not ann.user.is_active
    assert not Token.objects.filter(user=ann.user).exists()
    with pytest.raises(StateConflict, match="entered by the officials now"):
        reporting.claim_seat(reporting.seat_to_claim(table.code, 2))
    reporting.set_table_reporting(table, players=True)
    assert claim(table, 2).active


def test_a_stage_switched_to_the_officials_signs_every_seat_out_even_after_results(
    players_stage, table, players, official
):
    ann = claim(table, 1)
    services.submit_round_result(table=table, round_no=1, data=round_body(players), by=official)
    update_stage(stage=players_stage, changes={"reporting": "officials"})
    assert not SeatClaim.objects.get(pk=ann.pk).active
    update_stage(stage=players_stage, changes={"reporting": "players"})
    assert claim(table, 2).active


def test_a_seats_history_names_the_seat_after_its_claim_ended(players_stage, table, players):
    ann = claim(table, 1)
    services.submit_round_result(table=table, round_no=1, data=round_body(players), by=ann.user)
    reporting.set_table_reporting(table, players=False)
    seat = reporting.seat_of(RoundResult.objects.get().submitted_by_id)
    assert reporting.seat_named(seat) == "Seat 1 (Ann)"


def test_a_seats_token_enters_and_confirms_through_the_api_at_its_table_only(
    players_stage, table, players
):
    from rest_framework.test import APIClient

    other = factories.TableFactory(stage=players_stage, number=2)
    phones = {}
    for number in (1, 2):
        _made, token = reporting.claim_seat(reporting.seat_to_claim(table.code, number))
        phones[number] = APIClient()
        phones[number].credentials(HTTP_AUTHORIZATION=f"Token {token}")
    url = f"/api/v1/tables/{table.pk}/rounds/1/"
    assert phones[1].put(url, round_body(players), format="json").status_code == 201
    assert phones[2].get(url).json()["status"] == "submitted"  # read to be confirmed
    mine = phones[1].post(f"{url}confirm/")
    assert mine.status_code == 409 and "another player" in mine.json()["detail"]
    elsewhere = phones[2].put(f"/api/v1/tables/{other.pk}/rounds/1/", {}, format="json")
    assert elsewhere.status_code == 403 and "table 1" in elsewhere.json()["detail"]
    assert phones[2].post(f"{url}confirm/").json()["status"] == "confirmed"


def test_a_disputed_round_keeps_the_stage_open_and_its_close_signs_the_seats_out(
    players_stage, table, players, official, organiser
):
    from scoring.services import closing

    players_stage.rounds = 1
    players_stage.save()
    ann = claim(table, 1)
    services.submit_round_result(table=table, round_no=1, data=round_body(players), by=ann.user)
    disputes.dispute_round(table=table, round_no=1, by=ann.user, note="Wrong")
    with pytest.raises(StateConflict, match="round 1 is disputed, for an official to settle"):
        closing.close_stage(stage=players_stage, by=organiser)
    services.confirm_round_result(result=RoundResult.objects.get(), by=official)
    closing.close_stage(stage=players_stage, by=organiser)
    assert not SeatClaim.objects.get(pk=ann.pk).active
