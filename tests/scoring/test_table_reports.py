"""Tables that report their own rounds, through the API as a phone and an organiser meet it:
claiming a seat with the table's code, a seat's token entering, confirming and disputing its
table's rounds, the history naming the seat, the codes shown to the staff only, and handing a
table or a stage back to the officials. Every bad input: its status, its body, nothing changed."""

from datetime import UTC, datetime

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from scoring.models import RoundResult, RoundResultVersion
from tables.models import CODE_ALPHABET, SeatClaim, Table
from tests import factories
from tests.conftest import client_for
from tests.scoring.conftest import round_body
from tournaments.models import Stage

pytestmark = pytest.mark.django_db

NOT_FOUND = {"detail": "No table has this code, or no player with this number sits at it."}


@pytest.fixture
def players_stage(stage):
    stage.reporting = "players"
    stage.save()
    return stage


@pytest.fixture
def reported(players_stage, table):
    """Table 1 of a stage whose players report: Ann, Bob, Cy and Di."""
    return table


def wrong_code(code: str) -> str:
    return "".join(CODE_ALPHABET[0] if c != CODE_ALPHABET[0] else CODE_ALPHABET[1] for c in code)


def claim(code: str, body, client: APIClient | None = None, **extra):
    client = client or APIClient()
    return client.post(f"/api/v1/table-codes/{code}/seats/", body, format="json", **extra)


def phone(table: Table, number: int) -> APIClient:
    """A phone that claimed the seat of badge `number` at the table, by its token."""
    answer = claim(table.code, {"number": number})
    assert answer.status_code == 201, answer.content
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
    return client


def rounds_url(table: Table, round_no: int = 1) -> str:
    return f"/api/v1/tables/{table.pk}/rounds/{round_no}/"


def nothing_claimed() -> bool:
    return not SeatClaim.objects.exists() and not get_user_model().objects.filter(
        username__startswith="seat-"
    )


# ---- claiming a seat --------------------------------------------------------------------------


def test_a_player_claims_their_seat_with_the_tables_code_and_their_badge_number(reported):
    answer = claim(reported.code, {"number": 2})
    assert answer.status_code == 201
    body = answer.json()
    assert {k: v for k, v in body.items() if k != "token"} == {
        "table": reported.pk,
        "table_number": 1,
        "seat": 2,
        "player": "Bob",
        "stage": reported.stage_id,
    }
    made = SeatClaim.objects.get()
    assert (made.seat.player.name, made.active) == ("Bob", True)
    assert Token.objects.get(user=made.user).key == body["token"]


def test_a_code_typed_in_small_letters_with_a_dash_claims_the_seat(reported):
    typed = f"{reported.code[:3].lower()}-{reported.code[3:].lower()}"
    assert claim(typed, {"number": "3"}).json()["player"] == "Cy"


def test_the_browser_that_claimed_a_seat_is_signed_in_as_it_for_the_pages(reported, players):
    browser = APIClient(enforce_csrf_checks=True)
    assert claim(reported.code, {"number": 1}, browser).status_code == 201
    scribe = factories.StaffFactory(tournament=reported.stage.tournament).user
    client_for(scribe).put(rounds_url(reported), round_body(players), format="json")
    # The session reads its own table's round not yet confirmed, as the seat's token would.
    read = browser.get(rounds_url(reported))
    assert read.status_code == 200 and read.json()["status"] == "submitted"


def test_a_phone_signed_in_as_someone_else_claims_without_a_csrf_token(reported, organiser):
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(organiser)
    assert claim(reported.code, {"number": 4}, browser).status_code == 201


def test_a_seat_may_be_claimed_from_a_second_phone(reported):
    claim(reported.code, {"number": 1})
    assert claim(reported.code, {"number": 1}).status_code == 201
    assert SeatClaim.objects.filter(seat__position=1).count() == 2


@pytest.mark.parametrize("number", [9, 5])
def test_a_number_not_seated_at_the_table_is_the_404_of_a_wrong_code(reported, number):
    factories.PlayerFactory(tournament=reported.stage.tournament, number=5, name="Eve")
    wrong_number = claim(reported.code, {"number": number})
    wrong = claim(wrong_code(reported.code), {"number": 1})
    short = claim("ABC", {"number": 1})
    assert wrong_number.status_code == wrong.status_code == short.status_code == 404
    assert wrong_number.json() == wrong.json() == short.json() == NOT_FOUND
    assert nothing_claimed()


def test_a_code_of_another_stages_table_reaches_only_that_table(reported, players_stage):
    later = factories.StageFactory(
        tournament=players_stage.tournament, order=2, status="seated", reporting="players"
    )
    other = factories.TableFactory(stage=later, number=1)
    factories.SeatFactory(table=other, player=reported.seats.get(position=1).player, position=3)
    body = claim(other.code, {"number": 1}).json()
    assert (body["table"], body["seat"], body["stage"]) == (other.pk, 3, later.pk)
    assert other.code != reported.code


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [({}, "number", "required"), ({"number": "x"}, "number", "valid integer"),
     ({"number": None}, "number", "null"), ({"number": 0}, "number", "greater than or equal"),
     ({"number": 1, "seat": 1}, "seat", "Unknown field")],
    ids=["no number", "not a number", "null", "zero", "an unknown field"],
)  # fmt: skip
def test_a_claim_without_a_badge_number_is_a_400_naming_the_field(reported, body, field, says):
    answer = claim(reported.code, body)
    assert answer.status_code == 400
    assert says in answer.json()[field][0]
    assert nothing_claimed()


def test_a_body_that_is_not_an_object_is_a_400(reported):
    answer = claim(reported.code, [1])
    assert answer.status_code == 400
    assert nothing_claimed()


def test_a_table_the_officials_report_takes_no_claim(stage, table):
    answer = claim(table.code, {"number": 1})
    assert answer.status_code == 409
    assert "entered by the officials now" in answer.json()["detail"]
    assert nothing_claimed()


def test_a_table_handed_back_to_the_officials_takes_no_claim(reported):
    Table.objects.filter(pk=reported.pk).update(officials_report=True)
    answer = claim(reported.code, {"number": 1})
    assert answer.status_code == 409 and "Table 1's rounds" in answer.json()["detail"]
    assert nothing_claimed()


def test_a_closed_stage_takes_no_claim(reported, players_stage):
    Stage.objects.filter(pk=players_stage.pk).update(status="closed")
    answer = claim(reported.code, {"number": 1})
    assert answer.status_code == 409 and "is closed" in answer.json()["detail"]
    assert nothing_claimed()


@pytest.fixture
def start_of_a_minute():
    """Failed claims are counted in minutes: start the test at the start of one."""
    with time_machine.travel(datetime(2026, 5, 9, 12, 0, 1, tzinfo=UTC), tick=True) as traveller:
        yield traveller


def test_after_ten_failed_claims_in_a_minute_every_claim_from_the_address_waits(
    reported, start_of_a_minute
):
    wrong = wrong_code(reported.code)
    failed = [claim(wrong, {"number": 1}), claim(reported.code, {})]
    failed += [claim(reported.code, {"number": 9}) for _ in range(8)]
    assert [answer.status_code for answer in failed] == [404, 400] + [404] * 8
    for code in (wrong, reported.code):  # the right one waits too: it tells nothing
        limited = claim(code, {"number": 1})
        assert limited.status_code == 429
        assert 1 <= int(limited["Retry-After"]) <= 60
    assert nothing_claimed()
    # Another address is not slowed, and the next minute this one is not either.
    assert claim(reported.code, {"number": 1}, REMOTE_ADDR="192.0.2.7").status_code == 201
    start_of_a_minute.shift(60)
    assert claim(reported.code, {"number": 1}).status_code == 201


def test_right_claims_are_never_slowed(reported, start_of_a_minute):
    answers = [claim(reported.code, {"number": 1 + n % 4}).status_code for n in range(12)]
    assert answers == [201] * 12


# ---- a seat's token at its table ----------------------------------------------------------------


def test_a_seat_enters_a_round_and_only_another_seat_confirms_it(reported, players):
    ann, bob = phone(reported, 1), phone(reported, 2)
    entered = ann.put(rounds_url(reported), round_body(players), format="json")
    assert entered.status_code == 201
    mine = ann.post(rounds_url(reported) + "confirm/")
    assert mine.status_code == 409
    assert "another player at table 1 confirms" in mine.json()["detail"]
    assert RoundResult.objects.get().status == "submitted"
    confirmed = bob.post(rounds_url(reported) + "confirm/")
    assert confirmed.status_code == 200 and confirmed.json()["status"] == "confirmed"


def test_a_seats_round_sent_again_with_the_same_key_is_a_replay(reported, players):
    ann = phone(reported, 1)
    send = [
        ann.put(
            rounds_url(reported), round_body(players), format="json", HTTP_IDEMPOTENCY_KEY="k-1"
        )
        for _ in range(2)
    ]
    assert [answer.status_code for answer in send] == [201, 201]
    assert send[0].json() == send[1].json() and send[0]["ETag"] == send[1]["ETag"]
    assert RoundResultVersion.objects.count() == 1


def test_a_seats_token_at_another_table_is_told_which_table_it_reaches(
    reported, players_stage, players
):
    other = factories.TableFactory(stage=players_stage, number=2)
    answer = phone(reported, 2).put(rounds_url(other), round_body(players), format="json")
    assert answer.status_code == 403
    assert "seat 2 at table 1" in answer.json()["detail"]
    assert not RoundResult.objects.exists()


# ---- disputes -----------------------------------------------------------------------------------


@pytest.fixture
def confirmed(reported, players, official):
    """Round 1 of the table entered by an official and confirmed by another."""
    client_for(official).put(rounds_url(reported), round_body(players), format="json")
    other = factories.StaffFactory(tournament=reported.stage.tournament).user
    client_for(other).post(rounds_url(reported) + "confirm/")
    assert RoundResult.objects.get().status == "confirmed"
    return RoundResult.objects.get()


def dispute(client: APIClient, table: Table, body, round_no: int = 1):
    return client.post(rounds_url(table, round_no) + "dispute/", body, format="json")


def test_a_seat_disputes_a_confirmed_round_which_then_counts_nowhere(reported, confirmed):
    cy = phone(reported, 3)
    answer = dispute(cy, reported, {"note": " Bob had 21, not 12 "})
    assert answer.status_code == 200
    body = answer.json()
    assert (body["status"], body["version"], body["confirmed_by"]) == ("disputed", 3, None)
    assert answer["ETag"] == RoundResult.objects.get().etag
    last = RoundResultVersion.objects.order_by("version").last()
    assert (last.action, last.reason) == ("disputed", "Bob had 21, not 12")
    # Disputed again: nothing more.
    assert dispute(phone(reported, 1), reported, {"note": "yes"}).json()["version"] == 3
    assert RoundResultVersion.objects.count() == 3


def test_a_seat_cannot_confirm_a_disputed_round_and_an_official_settles_it(
    reported, confirmed, official
):
    ann = phone(reported, 1)
    dispute(ann, reported, {"note": "wrong"})
    refused = phone(reported, 2).post(rounds_url(reported) + "confirm/")
    assert refused.status_code == 409 and "only an official" in refused.json()["detail"]
    assert RoundResult.objects.get().status == "disputed"
    settled = client_for(official).post(rounds_url(reported) + "confirm/")
    assert settled.status_code == 200 and settled.json()["status"] == "confirmed"


def test_an_official_disputes_a_submitted_round(reported, players, official):
    client_for(official).put(rounds_url(reported), round_body(players), format="json")
    answer = dispute(client_for(official), reported, {"note": "Di was not at the table"})
    assert answer.status_code == 200 and answer.json()["status"] == "disputed"


def test_a_round_with_no_result_cannot_be_disputed(reported):
    answer = dispute(phone(reported, 1), reported, {"note": "wrong"}, round_no=2)
    assert answer.status_code == 404
    assert answer.json() == {
        "detail": "This round has no result at this table yet (or there is no such table)."
    }


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [({}, "note", "Say what is wrong"), ({"note": "  "}, "note", "Say what is wrong"),
     ({"note": None}, "note", "Say what is wrong"), ({"note": 5}, "note", "Say what is wrong"),
     ({"note": "x" * 501}, "note", "at most 500"), ({"note": "a\x00b"}, "note", "print"),
     ({"note": "ok", "pips": 3}, "pips", "Unknown field")],
    ids=["none", "blank", "null", "a number", "too long", "unprintable", "an unknown field"],
)  # fmt: skip
def test_a_dispute_without_a_readable_note_is_a_400_and_changes_nothing(
    reported, confirmed, body, field, says
):
    answer = dispute(phone(reported, 1), reported, body)
    assert answer.status_code == 400
    assert says in answer.json()[field][0]
    assert RoundResult.objects.get().status == "confirmed"
    assert RoundResultVersion.objects.count() == 2


def test_a_dispute_body_that_is_not_an_object_is_a_400(reported, confirmed):
    answer = dispute(phone(reported, 1), reported, ["wrong"])
    assert answer.status_code == 400
    assert RoundResult.objects.get().status == "confirmed"


def test_a_round_of_a_closed_stage_cannot_be_disputed(reported, confirmed, official):
    Stage.objects.filter(pk=reported.stage_id).update(status="closed")
    answer = dispute(client_for(official), reported, {"note": "wrong"})
    assert answer.status_code == 409 and "is closed" in answer.json()["detail"]
    assert RoundResult.objects.get().status == "confirmed"


def test_only_the_tables_seats_and_the_staff_dispute_its_rounds(
    reported, confirmed, players_stage, other_organiser
):
    other = factories.TableFactory(stage=players_stage, number=2)
    player = factories.PlayerFactory(tournament=players_stage.tournament, number=8)
    factories.SeatFactory(table=other, player=player, position=1)
    callers = {
        401: APIClient(),
        403: client_for(other_organiser),
    }
    for status, client in callers.items():
        assert dispute(client, reported, {"note": "wrong"}).status_code == status
    elsewhere = dispute(phone(other, 8), reported, {"note": "wrong"})
    assert elsewhere.status_code == 403 and "table 2" in elsewhere.json()["detail"]
    assert RoundResult.objects.get().status == "confirmed"


# ---- the history names the seat -----------------------------------------------------------------


def test_the_history_names_the_seat_whose_phone_made_each_version(
    reported, players, official, organiser
):
    ann, bob = phone(reported, 1), phone(reported, 2)
    ann.put(rounds_url(reported), round_body(players), format="json")
    bob.post(rounds_url(reported) + "confirm/")
    dispute(bob, reported, {"note": "Cy had 3"})
    client_for(official).post(rounds_url(reported) + "confirm/")
    history = client_for(organiser).get(rounds_url(reported) + "history/")
    assert history.status_code == 200
    seats = [(version["action"], version["seat"]) for version in history.json()]
    assert seats == [
        ("submitted", {"position": 1, "player": "Ann", "name": "Seat 1 (Ann)"}),
        ("confirmed", {"position": 2, "player": "Bob", "name": "Seat 2 (Bob)"}),
        ("disputed", {"position": 2, "player": "Bob", "name": "Seat 2 (Bob)"}),
        ("confirmed", None),
    ]


def test_the_history_names_the_seat_after_its_claim_ended(reported, players, organiser):
    phone(reported, 1).put(rounds_url(reported), round_body(players), format="json")
    client_for(organiser).post(
        f"/api/v1/tables/{reported.pk}/reporting/", {"reporting": "officials"}, format="json"
    )
    history = client_for(organiser).get(rounds_url(reported) + "history/").json()
    assert history[0]["seat"]["name"] == "Seat 1 (Ann)"


def test_the_history_reads_the_seats_in_one_query_however_many_versions(
    reported, players, organiser
):
    client = client_for(organiser)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(rounds_url(reported) + "history/").status_code == 200
        return len(captured)

    phone(reported, 1).put(rounds_url(reported), round_body(players), format="json")
    one = queries()
    phone(reported, 2).post(rounds_url(reported) + "confirm/")
    dispute(phone(reported, 3), reported, {"note": "wrong"})
    assert queries() == one


# ---- the stage's tables: codes for the staff, who reports each ---------------------------------


def tables_of(client: APIClient, stage: Stage) -> list[dict]:
    answer = client.get(f"/api/v1/stages/{stage.pk}/tables/")
    assert answer.status_code == 200
    return answer.json()


def test_the_staff_read_each_tables_code_and_who_reports_it(
    reported, players_stage, official, organiser
):
    second = factories.TableFactory(stage=players_stage, number=2, officials_report=True)
    for client in (client_for(official), client_for(organiser)):
        tables = tables_of(client, players_stage)
        assert [(t["table_code"], t["reporting"]) for t in tables] == [
            (reported.code, "players"),
            (second.code, "officials"),
        ]


def test_anyone_else_reads_the_tables_without_their_codes(reported, players_stage, other_organiser):
    for client in (APIClient(), client_for(other_organiser), phone(reported, 1)):
        tables = tables_of(client, players_stage)
        assert [sorted(t) for t in tables] == [["id", "number", "reporting", "seats"]]
        assert reported.code not in str(tables)


def test_the_tables_of_a_stage_the_officials_report_say_so(stage, table, organiser):
    assert tables_of(client_for(organiser), stage)[0]["reporting"] == "officials"


# ---- handing a table back to the officials ------------------------------------------------------


def set_reporting(client: APIClient, table: Table, body):
    return client.post(f"/api/v1/tables/{table.pk}/reporting/", body, format="json")


def test_an_organiser_hands_a_table_back_to_the_officials_and_its_phones_sign_out(
    reported, players, organiser
):
    ann = phone(reported, 1)
    answer = set_reporting(client_for(organiser), reported, {"reporting": "officials"})
    assert answer.status_code == 200
    body = answer.json()
    assert (body["id"], body["reporting"], body["table_code"]) == (
        reported.pk,
        "officials",
        reported.code,
    )
    assert ann.put(rounds_url(reported), round_body(players), format="json").status_code == 401
    assert not SeatClaim.objects.filter(ended_at__isnull=True).exists()
    assert claim(reported.code, {"number": 2}).status_code == 409
    again = set_reporting(client_for(organiser), reported, {"reporting": "players"})
    assert again.status_code == 200 and again.json()["reporting"] == "players"
    assert claim(reported.code, {"number": 2}).status_code == 201


def test_an_official_cannot_hand_a_table_back(reported, official):
    phone(reported, 1)
    answer = set_reporting(client_for(official), reported, {"reporting": "officials"})
    assert answer.status_code == 403
    assert not Table.objects.get(pk=reported.pk).officials_report
    assert SeatClaim.objects.get().active


@pytest.mark.parametrize(
    ("body", "field"),
    [({}, "reporting"), ({"reporting": "nobody"}, "reporting"), ({"reporting": None}, "reporting"),
     ({"reporting": "officials", "table": 2}, "table")],
    ids=["none", "not a choice", "null", "an unknown field"],
)  # fmt: skip
def test_a_bad_reporting_is_a_400_and_changes_nothing(reported, organiser, body, field):
    phone(reported, 1)
    answer = set_reporting(client_for(organiser), reported, body)
    assert answer.status_code == 400 and field in answer.json()
    assert not Table.objects.get(pk=reported.pk).officials_report
    assert SeatClaim.objects.get().active


def test_a_table_of_a_stage_the_officials_report_cannot_go_to_its_players(stage, table, organiser):
    answer = set_reporting(client_for(organiser), table, {"reporting": "players"})
    assert answer.status_code == 409
    assert "change the stage's setting first" in answer.json()["detail"]
    kept = set_reporting(client_for(organiser), table, {"reporting": "officials"})
    assert kept.status_code == 200 and kept.json()["reporting"] == "officials"
    assert not Table.objects.get(pk=table.pk).officials_report


def test_a_table_of_a_closed_stage_keeps_who_reported_it(reported, players_stage, organiser):
    Stage.objects.filter(pk=players_stage.pk).update(status="closed")
    answer = set_reporting(client_for(organiser), reported, {"reporting": "officials"})
    assert answer.status_code == 409 and "is closed" in answer.json()["detail"]
    assert not Table.objects.get(pk=reported.pk).officials_report


def test_a_table_that_does_not_exist_is_a_404(db, organiser):
    answer = set_reporting(client_for(organiser), Table(pk=999999), {"reporting": "officials"})
    assert answer.status_code == 404
    assert answer.json() == {"detail": "There is no table with this id."}


# ---- the stage's setting ---------------------------------------------------------------------


def patch_stage(client: APIClient, stage: Stage, body):
    return client.patch(f"/api/v1/stages/{stage.pk}/", body, format="json")


def test_a_stage_handed_to_the_officials_after_results_signs_every_seat_out(
    reported, players_stage, players, organiser
):
    ann, bob = phone(reported, 1), phone(reported, 2)
    assert ann.put(rounds_url(reported), round_body(players), format="json").status_code == 201
    answer = patch_stage(client_for(organiser), players_stage, {"reporting": "officials"})
    assert answer.status_code == 200
    assert answer.json()["reporting"] == "officials"
    assert bob.post(rounds_url(reported) + "confirm/").status_code == 401
    assert not SeatClaim.objects.filter(ended_at__isnull=True).exists()
    assert tables_of(client_for(organiser), players_stage)[0]["reporting"] == "officials"


def test_a_stages_confirm_within_minutes_changes_after_results(
    reported, players_stage, players, organiser
):
    phone(reported, 1).put(rounds_url(reported), round_body(players), format="json")
    answer = patch_stage(client_for(organiser), players_stage, {"confirm_within_minutes": 5})
    assert answer.status_code == 200 and answer.json()["confirm_within_minutes"] == 5


@pytest.mark.parametrize(
    ("body", "field"),
    [({"reporting": "phones"}, "reporting"), ({"reporting": None}, "reporting"),
     ({"confirm_within_minutes": 0}, "confirm_within_minutes"),
     ({"confirm_within_minutes": 241}, "confirm_within_minutes")],
    ids=["not a choice", "null", "zero minutes", "over four hours"],
)  # fmt: skip
def test_a_bad_reporting_setting_is_a_400_and_changes_nothing(
    reported, players_stage, organiser, body, field
):
    phone(reported, 1)
    answer = patch_stage(client_for(organiser), players_stage, body)
    assert answer.status_code == 400 and field in answer.json()
    stage = Stage.objects.get(pk=players_stage.pk)
    assert (stage.reporting, stage.confirm_within_minutes) == ("players", 10)
    assert SeatClaim.objects.get().active
