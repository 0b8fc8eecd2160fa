"""Where to sit: seating a stage (by the console, the service, a game seated from the one before
or a playoff seated by the close) mails each entered player who agreed to mail their table and
seat, in their own language, once; a late player is told their own seat; a stage seated again
tells the new seats."""

import re

import pytest
from django.db import transaction

from entries.models import Delivery, Message
from tables import services as table_services
from tables.models import Seat
from tables.signals import seating_changed
from tests import factories
from tests.conftest import client_for
from tests.entries.helpers import enter, open_tournament
from tests.scoring.helpers import close, play_stage, playoff
from tournaments.models import Stage

pytestmark = pytest.mark.django_db

SAID = re.compile(r"for (?P<stage>.+) you sit at table (?P<table>\d+), seat (?P<seat>\d+)\.")
DICHO = re.compile(
    r"en (?P<stage>.+) te sientas en la mesa (?P<table>\d+), asiento (?P<seat>\d+)\."
)


def seat_mail(mailbox) -> dict[str, tuple[str, int, int]]:
    """What each address was told: (stage, table, seat), English or Spanish."""
    told = {}
    for message in mailbox.messages:
        body = message.get_body(("plain",)).get_content()
        found = SAID.search(body) or DICHO.search(body)
        if found:
            told[message["To"]] = (found["stage"], int(found["table"]), int(found["seat"]))
    return told


def seats_of(stage) -> dict[str, tuple[int, int]]:
    return {
        seat.player.entry.email: (seat.table.number, seat.position)
        for seat in Seat.objects.filter(
            stage=stage, player__entry__messages_ok=True
        ).select_related("table", "player__entry")
    }


def entrants(tournament, count: int = 7):
    """`count` entered players who agreed to mail, one of them entered in Spanish, one who did
    not agree, and one player added at the desk (no entry, no address)."""
    made = [enter(tournament, f"Player{n} P", messages_ok=True) for n in range(1, count + 1)]
    made[0].language = "es"
    made[0].save(update_fields=["language"])
    quiet = enter(tournament, "Quiet Q", messages_ok=False)
    factories.PlayerFactory(tournament=tournament, number=99, name="Desk Added")
    return made, quiet


def test_seating_a_stage_from_the_console_mails_each_player_their_table_and_seat(
    client, smtp_server, django_capture_on_commit_callbacks
):
    tournament = open_tournament(entries_close_at=None)
    stage = factories.StageFactory(tournament=tournament, order=1, name="Qualifying")
    made, quiet = entrants(tournament)
    organiser = factories.UserFactory()
    tournament.staff.create(user=organiser, role="organiser")
    client.force_login(organiser)
    smtp_server.messages.clear()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "7"})
    assert response.status_code == 302
    stage.refresh_from_db()
    assert stage.status == Stage.Status.SEATED
    told = seat_mail(smtp_server)
    seats = seats_of(stage)
    # Everyone who agreed is told the seat they have; the quiet one and the desk's are not.
    assert set(told) == {entry.email for entry in made}
    for email, (_stage, table, seat) in told.items():
        assert (table, seat) == seats[email]
    assert quiet.email not in told
    spanish = next(m for m in smtp_server.messages if m["To"] == made[0].email)
    assert spanish["Subject"] == f"Dónde te sientas en {tournament.name}"
    assert "te sientas en la mesa" in spanish.get_body(("plain",)).get_content()
    english = next(m for m in smtp_server.messages if m["To"] == made[1].email)
    assert english["Subject"] == f"Where you sit at {tournament.name}"
    assert told[made[1].email][0] == "Qualifying"
    # One message for the seating, one delivery per player told, each sent.
    message = Message.objects.get(kind=Message.Kind.SEATED)
    assert message.stage == stage
    assert message.deliveries.count() == len(made)
    assert set(message.deliveries.values_list("status", flat=True)) == {Delivery.Status.SENT}
    context = message.deliveries.get(entry=made[1]).context
    assert (context["table"], context["seat"]) == seats[made[1].email]


def test_a_signal_sent_again_tells_nobody_twice_and_a_late_player_is_told_their_own_seat(
    smtp_server, django_capture_on_commit_callbacks
):
    tournament = open_tournament(entries_close_at=None)
    stage = factories.StageFactory(tournament=tournament, order=1)
    made, _quiet = entrants(tournament, 6)
    late = enter(tournament, "Late L", messages_ok=True)
    late.player.status = "withdrawn"  # not seated by the seating: comes late
    late.player.save(update_fields=["status"])
    with django_capture_on_commit_callbacks(execute=True):
        table_services.seat_stage(stage=stage, by=None, seed=3)
    first = len(smtp_server.messages)
    assert first == 6
    with django_capture_on_commit_callbacks(execute=True):
        seating_changed.send(sender=Stage, stage=stage)
        seating_changed.send(sender=Stage, stage=stage)
        table_services.withdraw_player(player=made[2].player, by=None)  # sends it again
    assert len(smtp_server.messages) == first  # nobody told twice, the withdrawn nothing
    late.player.status = "checked_in"
    late.player.save(update_fields=["status"])
    with django_capture_on_commit_callbacks(execute=True):
        seat = table_services.add_late_player(stage=stage, player=late.player, by=None)
    assert len(smtp_server.messages) == first + 1
    assert seat_mail(smtp_server)[late.email][1:] == (seat.table.number, seat.position)
    assert Message.objects.filter(kind="seated").count() == 2  # the seating, then the late one


def test_a_stage_unseated_and_seated_again_tells_the_new_seats(
    smtp_server, django_capture_on_commit_callbacks
):
    tournament = open_tournament(entries_close_at=None)
    stage = factories.StageFactory(tournament=tournament, order=1)
    entrants(tournament, 6)
    with django_capture_on_commit_callbacks(execute=True):
        table_services.seat_stage(stage=stage, by=None, seed=1)
    with django_capture_on_commit_callbacks(execute=True):
        table_services.unseat_stage(stage=stage, by=None)
    assert len(smtp_server.messages) == 6  # unseated: nothing to tell
    smtp_server.messages.clear()
    with django_capture_on_commit_callbacks(execute=True):
        table_services.seat_stage(stage=stage, by=None, seed=2)
    told = seat_mail(smtp_server)
    assert {email: (t, s) for email, (_n, t, s) in told.items()} == seats_of(stage)
    assert len(smtp_server.messages) == 6


def test_a_seating_rolled_back_tells_nobody(smtp_server, django_capture_on_commit_callbacks):
    tournament = open_tournament(entries_close_at=None)
    stage = factories.StageFactory(tournament=tournament, order=1)
    entrants(tournament, 6)

    class Undo(Exception):
        pass

    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(Undo),
        transaction.atomic(),
    ):
        table_services.seat_stage(stage=stage, by=None, seed=1)
        raise Undo
    assert smtp_server.messages == []
    assert not Message.objects.filter(kind=Message.Kind.SEATED).exists()


@pytest.mark.django_db(transaction=True)
def test_a_playoff_seated_by_the_close_tells_its_players_where_they_sit(smtp_server):
    """Committed for real: the close's follow-up (inline here, a worker in production) seats the
    playoff from the advancers after the commit, and they are told their seats after its own."""
    tournament = open_tournament(entries_close_at=None)
    stage = factories.StageFactory(
        tournament=tournament, order=1, rounds=2, table_size_min=3, table_size_max=3
    )
    level = playoff(tournament, size_min=2, size_max=4)
    made = [enter(tournament, f"Q{n} Q", messages_ok=True) for n in range(1, 7)]
    smtp_server.messages.clear()  # their receipts
    table_services.seat_stage(stage=stage, by=None, seed=4)
    assert len(smtp_server.messages) == 6
    smtp_server.messages.clear()
    play_stage(stage)
    organiser = factories.UserFactory()
    tournament.staff.create(user=organiser, role="organiser")
    assert close(client_for(organiser), stage).status_code == 202
    level.refresh_from_db()
    assert level.status == Stage.Status.SEATED
    told = seat_mail(smtp_server)
    assert {email: (t, s) for email, (_n, t, s) in told.items()} == seats_of(level)
    assert len(told) == 2 and set(told) <= {entry.email for entry in made}
    assert {name for name, _t, _s in told.values()} == {level.display_name}
