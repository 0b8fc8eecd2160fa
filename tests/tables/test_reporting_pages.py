"""The organiser's and officials' pages of tables whose players enter their own rounds: the
stage's setting, each table's code and its hand-back to the officials, the table cards, the
officials' board of rounds to settle, and the round's history naming the seat."""

import pytest
from django.urls import reverse

from scoring import services
from tables import reporting
from tables.models import SeatClaim
from tests import factories
from tests.scoring.conftest import round_body

pytestmark = pytest.mark.django_db


@pytest.fixture
def stage(tournament):
    return factories.StageFactory(
        tournament=tournament, order=1, rounds=4, starting_double=12, status="seated"
    )


@pytest.fixture
def table(stage):
    """Table 1: Ann, Bob, Cy and Di in seats 1 to 4; table 2 empty but for its code."""
    table = factories.TableFactory(stage=stage, number=1)
    for position, name in enumerate(["Ann", "Bob", "Cy", "Di"], start=1):
        player = factories.PlayerFactory(tournament=stage.tournament, number=position, name=name)
        factories.SeatFactory(table=table, player=player, position=position)
    return table


@pytest.fixture
def players(table):
    return [seat.player for seat in table.seats.order_by("position")]


@pytest.fixture
def players_stage(stage, table):
    stage.reporting = "players"
    stage.save()
    return stage


@pytest.fixture
def organiser_client(client, organiser):
    client.force_login(organiser)
    return client


@pytest.fixture
def official_client(client, official):
    client.force_login(official)
    return client


def claim(table, number):
    return reporting.claim_seat(reporting.seat_to_claim(table.code, number))[0]


def stage_page(tournament, stage):
    return reverse("manage-stage", args=[tournament.slug, stage.order])


def reporting_url(tournament, stage):
    return reverse("manage-reporting", args=[tournament.slug, stage.order])


def table_url(tournament, stage, number=1):
    return reverse("manage-table-reporting", args=[tournament.slug, stage.order, number])


def said(answer) -> str:
    return " ".join(str(m) for m in answer.context["messages"])


# ---- the stage's setting ---------------------------------------------------------------------


def test_the_stage_page_asks_who_enters_the_rounds_with_a_hint_for_each(
    organiser_client, tournament, stage
):
    page = organiser_client.get(stage_page(tournament, stage)).content.decode()
    assert "Who enters the rounds" in page
    assert "The players at each table" in page and "another player at the table confirms" in page
    assert "List a round not confirmed after this many minutes" in page
    assert "#players-report" in page  # its help topic


def test_an_organiser_lets_the_players_enter_a_seated_stages_rounds(
    organiser_client, tournament, stage, table
):
    answer = organiser_client.post(
        reporting_url(tournament, stage),
        {"reporting": "players", "confirm_within_minutes": "5"},
        follow=True,
    )
    stage.refresh_from_db()
    assert (stage.reporting, stage.confirm_within_minutes) == ("players", 5)
    assert "the players at each table enter its rounds" in said(answer)
    assert "after 5 minutes" in said(answer)
    assert table.code in answer.content.decode()


def test_the_setting_changes_after_the_first_result(
    organiser_client, organiser, tournament, stage, table, players
):
    services.submit_round_result(table=table, round_no=1, data=round_body(players), by=organiser)
    organiser_client.post(
        reporting_url(tournament, stage), {"reporting": "players", "confirm_within_minutes": "10"}
    )
    stage.refresh_from_db()
    assert stage.reporting == "players"


@pytest.mark.parametrize(
    ("posted", "error"),
    [
        (
            {"reporting": "sometimes", "confirm_within_minutes": "10"},
            "the officials or the players",
        ),
        ({"confirm_within_minutes": "10"}, "the officials or the players"),
        ({"reporting": "players", "confirm_within_minutes": "0"}, "from 1 to 240"),
        ({"reporting": "players", "confirm_within_minutes": "241"}, "from 1 to 240"),
        ({"reporting": "players", "confirm_within_minutes": "ten"}, "from 1 to 240"),
    ],
)
def test_a_bad_setting_is_refused_beside_its_field_and_changes_nothing(
    organiser_client, tournament, stage, posted, error
):
    answer = organiser_client.post(reporting_url(tournament, stage), posted)
    assert answer.status_code == 400
    assert error in answer.content.decode()
    stage.refresh_from_db()
    assert (stage.reporting, stage.confirm_within_minutes) == ("officials", 10)


def test_switching_a_seated_stage_to_the_officials_asks_first(
    organiser_client, tournament, players_stage, table
):
    phone = claim(table, 1)
    url = reporting_url(tournament, players_stage)
    asked = organiser_client.post(url, {"reporting": "officials", "confirm_within_minutes": "10"})
    page = asked.content.decode()
    assert asked.status_code == 200
    assert "Every player's phone at 1 table is signed out" in page
    assert 'name="confirm"' in page
    players_stage.refresh_from_db()
    assert players_stage.reporting == "players"
    assert SeatClaim.objects.get(pk=phone.pk).active

    done = organiser_client.post(
        url, {"reporting": "officials", "confirm_within_minutes": "10", "confirm": "on"},
        follow=True,
    )  # fmt: skip
    players_stage.refresh_from_db()
    assert players_stage.reporting == "officials"
    assert not SeatClaim.objects.get(pk=phone.pk).active
    assert "Every player's phone is signed out" in said(done)


def test_an_official_cannot_change_who_enters_the_rounds(
    official_client, tournament, players_stage
):
    posted = {"reporting": "officials", "confirm_within_minutes": "10", "confirm": "on"}
    answer = official_client.post(reporting_url(tournament, players_stage), posted)
    assert answer.status_code == 403
    players_stage.refresh_from_db()
    assert players_stage.reporting == "players"


def test_a_closed_stages_setting_is_said_not_to_change(organiser_client, tournament, stage):
    stage.status = "closed"
    stage.save()
    answer = organiser_client.post(
        reporting_url(tournament, stage),
        {"reporting": "players", "confirm_within_minutes": "10"},
        follow=True,
    )
    assert "is closed: its settings can no longer change" in said(answer)
    stage.refresh_from_db()
    assert stage.reporting == "officials"
    assert "Rounds: Officials enter the rounds." in answer.content.decode()


def test_a_stage_added_in_the_console_may_be_entered_by_its_players(
    organiser_client, tournament, stage
):
    from tests.tables.views.conftest import new_stage

    manage = reverse("manage-add-stage", args=[tournament.slug])
    organiser_client.post(manage, new_stage(reporting="players", confirm_within_minutes="7"))
    added = tournament.stages.get(order=2)
    assert (added.reporting, added.confirm_within_minutes) == ("players", 7)
    organiser_client.post(manage, new_stage(name="Final 2"))  # left out: the officials, 10
    left_out = tournament.stages.get(order=3)
    assert (left_out.reporting, left_out.confirm_within_minutes) == ("officials", 10)


# ---- each table ------------------------------------------------------------------------------


def test_a_players_table_shows_its_code_and_how_many_seats_are_taken(
    organiser_client, tournament, players_stage, table
):
    claim(table, 1)
    claim(table, 1)  # a second phone of the same seat: still one seat
    claim(table, 3)
    page = organiser_client.get(stage_page(tournament, players_stage)).content.decode()
    assert table.code in page
    assert "Seats taken on a phone: 2 of 4" in page
    assert "Hand table 1 to the officials…" in page


def test_handing_a_table_to_the_officials_asks_first_then_signs_its_phones_out(
    organiser_client, tournament, players_stage, table
):
    phone = claim(table, 2)
    asked = organiser_client.get(table_url(tournament, players_stage))
    assert "Its players' phones are signed out at once (1 phone now)" in asked.content.decode()
    table.refresh_from_db()
    assert not table.officials_report

    done = organiser_client.post(
        table_url(tournament, players_stage), {"reporting": "officials"}, follow=True
    )
    table.refresh_from_db()
    assert table.officials_report
    assert not SeatClaim.objects.get(pk=phone.pk).active
    assert "Table 1 is the officials' now" in said(done)
    assert "Give table 1 back to its players" in done.content.decode()

    back = organiser_client.post(
        table_url(tournament, players_stage), {"reporting": "players"}, follow=True
    )
    table.refresh_from_db()
    assert not table.officials_report
    assert "Table 1 is its players' again" in said(back)


def test_a_bad_choice_for_a_table_is_refused_and_changes_nothing(
    organiser_client, tournament, players_stage, table
):
    answer = organiser_client.post(
        table_url(tournament, players_stage), {"reporting": "nobody"}, follow=True
    )
    assert "the officials or its players" in said(answer)
    table.refresh_from_db()
    assert not table.officials_report


def test_a_table_of_an_officials_stage_is_not_given_to_its_players(
    organiser_client, tournament, stage, table
):
    answer = organiser_client.post(
        table_url(tournament, stage), {"reporting": "players"}, follow=True
    )
    assert "change the stage's setting first" in said(answer)
    table.refresh_from_db()
    assert not table.officials_report


def test_no_such_table_is_not_found(organiser_client, tournament, players_stage):
    assert organiser_client.get(table_url(tournament, players_stage, 9)).status_code == 404


def test_an_official_cannot_hand_a_table_back(official_client, tournament, players_stage, table):
    answer = official_client.post(table_url(tournament, players_stage), {"reporting": "officials"})
    assert answer.status_code == 403
    table.refresh_from_db()
    assert not table.officials_report


def test_a_closed_stages_table_says_it_can_no_longer_change(
    organiser_client, tournament, players_stage, table
):
    players_stage.status = "closed"
    players_stage.save()
    answer = organiser_client.post(
        table_url(tournament, players_stage), {"reporting": "officials"}, follow=True
    )
    assert "is closed: its tables can no longer change" in said(answer)
    table.refresh_from_db()
    assert not table.officials_report


# ---- the table cards -------------------------------------------------------------------------


def card_pages(client, stage):
    import io

    import pypdfium2 as pdfium
    import zxingcpp
    from pypdf import PdfReader

    answer = client.get(f"/api/v1/stages/{stage.pk}/cards.pdf")
    assert answer.status_code == 200
    pages = PdfReader(io.BytesIO(answer.content)).pages
    texts = [" ".join(page.extract_text().split()) for page in pages]  # lines as one
    codes = [
        [code.text for code in zxingcpp.read_barcodes(page.render(scale=2).to_pil())]
        for page in pdfium.PdfDocument(answer.content)
    ]
    return texts, codes


def test_a_players_card_carries_its_code_and_the_qr_code_of_its_seat_page(
    as_official, tournament, players_stage, table
):
    second = factories.TableFactory(stage=players_stage, number=2)
    for number in (5, 6):
        player = factories.PlayerFactory(tournament=tournament, number=number)
        factories.SeatFactory(table=second, player=player, position=number - 4)
    second.officials_report = True  # handed to the officials: its card is theirs
    second.save()
    (first_text, second_text), (first_codes, second_codes) = card_pages(as_official, players_stage)
    assert f"Table code {table.code}" in first_text  # in large type
    assert "Scan, then type your badge number" in first_text
    assert first_codes == [f"http://testserver/en/seat/{table.code}/"]
    assert "Table code" not in second_text and "Scan to enter scores" in second_text
    assert second_codes == [f"http://testserver/t/{tournament.slug}/enter/{second.pk}/"]


def test_an_officials_card_is_unchanged(as_official, tournament, stage, table):
    (text,), (codes,) = card_pages(as_official, stage)
    assert "Table code" not in text and table.code not in text
    assert "Scan to enter scores" in text
    assert codes == [f"http://testserver/t/{tournament.slug}/enter/{table.pk}/"]


# ---- the officials' board --------------------------------------------------------------------


def board_url(tournament, stage):
    return reverse("progress", args=[tournament.slug, stage.order])


def entered_by_a_seat(table, players, round_no, minutes_ago):
    """A round entered from Ann's phone `minutes_ago` minutes ago, not confirmed since."""
    from datetime import timedelta

    from django.utils import timezone

    from scoring.models import RoundResult

    ann = claim(table, 1)
    services.submit_round_result(
        table=table, round_no=round_no, data=round_body(players), by=ann.user
    )
    RoundResult.objects.filter(table=table, round_no=round_no).update(
        updated_at=timezone.now() - timedelta(minutes=minutes_ago)
    )


def test_the_board_lists_a_disputed_round_with_who_disputed_it_and_why(
    official_client, tournament, players_stage, table, players
):
    from scoring.services import disputes

    ann, bob = claim(table, 1), claim(table, 2)
    services.submit_round_result(table=table, round_no=1, data=round_body(players), by=ann.user)
    disputes.dispute_round(table=table, round_no=1, by=bob.user, note="Cy had 3, not 30")
    page = official_client.get(board_url(tournament, players_stage)).content.decode()
    assert "Rounds for an official to settle" in page
    assert "disputed by Seat 2 (Bob)" in page and "Cy had 3, not 30" in page
    entry = reverse("enter-round", args=[tournament.slug, table.pk, 1])
    assert f'href="{entry}">Confirm or correct table 1, round 1' in page
    assert '⚠ <span class="chip-label">disputed</span>' in page  # the grid: a sign and a word
    assert "1 disputed." in page


def test_the_board_lists_a_round_not_confirmed_for_longer_than_the_stage_allows(
    organiser_client, tournament, players_stage, table, players
):
    entered_by_a_seat(table, players, 1, minutes_ago=12)
    page = organiser_client.get(board_url(tournament, players_stage)).content.decode()
    assert "entered by Seat 1 (Ann), not confirmed for 12 minutes" in page


def test_a_round_within_the_stages_minutes_is_not_listed_yet(
    organiser_client, tournament, players_stage, table, players
):
    entered_by_a_seat(table, players, 1, minutes_ago=3)
    page = organiser_client.get(board_url(tournament, players_stage)).content.decode()
    assert "Rounds for an official to settle" not in page


def test_an_official_reads_each_tables_code_on_the_board(
    official_client, tournament, players_stage, table
):
    page = official_client.get(board_url(tournament, players_stage)).content.decode()
    assert table.code in page
    assert reverse("enter", args=[tournament.slug]) in page  # their way back: score entry


def test_an_officials_stage_board_shows_no_code(organiser_client, tournament, stage, table):
    page = organiser_client.get(board_url(tournament, stage)).content.decode()
    assert table.code not in page


def test_someone_not_on_the_staff_cannot_open_the_board(client, tournament, players_stage):
    client.force_login(factories.UserFactory())
    assert client.get(board_url(tournament, players_stage)).status_code == 403


def test_the_rounds_to_settle_are_read_in_a_few_queries_however_many(
    django_assert_max_num_queries, players_stage, table, players
):
    from scoring import selectors
    from scoring.services import disputes

    for round_no in (1, 2, 3):
        entered_by_a_seat(table, players, round_no, minutes_ago=30)
    disputes.dispute_round(table=table, round_no=3, by=claim(table, 2).user, note="wrong")
    with django_assert_max_num_queries(3):
        found = selectors.rounds_to_settle(players_stage)
    assert [(item.round_no, item.disputed) for item in found] == [(3, True), (1, False), (2, False)]


# ---- the round's history ---------------------------------------------------------------------


def test_the_history_names_the_seat_of_a_phones_version_and_shows_the_disputes_note(
    official_client, official, tournament, players_stage, table, players
):
    from scoring.services import disputes

    ann, bob = claim(table, 1), claim(table, 2)
    services.submit_round_result(table=table, round_no=1, data=round_body(players), by=ann.user)
    disputes.dispute_round(table=table, round_no=1, by=bob.user, note="Cy had 3, not 30")
    url = reverse("round-history", args=[tournament.slug, table.pk, 1])
    page = official_client.get(url).content.decode()
    assert "Entered by Seat 1 (Ann), from a player's phone at" in page
    assert "isputed by Seat 2 (Bob), from a player's phone at" in page
    assert "What is wrong: “Cy had 3, not 30”" in page
    assert "It is disputed: it counts for nobody" in page
    assert ann.user.username not in page  # the seat's own user is no name for anybody


def test_the_history_reads_the_seats_in_one_query_however_many_versions(
    official_client, tournament, players_stage, table, players
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from scoring.models import RoundResult

    url = reverse("round-history", args=[tournament.slug, table.pk, 1])
    ann = claim(table, 1)
    services.submit_round_result(table=table, round_no=1, data=round_body(players), by=ann.user)
    official_client.get(url)  # the session and the like, read once
    with CaptureQueriesContext(connection) as one:
        official_client.get(url)
    for seat in (2, 3, 4):  # entered again from three more phones
        etag = RoundResult.objects.get(table=table, round_no=1).etag
        body = round_body(players, pips=(0, seat, 30, 7))
        services.submit_round_result(
            table=table, round_no=1, data=body, by=claim(table, seat).user, if_match=etag
        )
    with CaptureQueriesContext(connection) as more:
        page = official_client.get(url).content.decode()
    assert (
        "Seat 4 (Di), from a player&#x27;s phone" in page
        or "Seat 4 (Di), from a player's phone" in page
    )
    assert len(more.captured_queries) == len(one.captured_queries)
