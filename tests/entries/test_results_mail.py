"""The results after the final: once the placings are decided, each entered player who agreed to
mail is told their place, their division's place and medal, and the results page, in their own
language; a reopen and a second close tell again only those whose place changed."""

import pytest

from entries.models import Message
from scoring.models import Placing
from scoring.signals import placings_decided
from tables import services as table_services
from tests import factories
from tests.conftest import client_for
from tests.entries.helpers import enter, open_tournament
from tests.scoring.helpers import close, play_stage, playoff
from tournaments.models import Stage

pytestmark = pytest.mark.django_db(transaction=True)


def body(message) -> str:
    return message.get_body(("plain",)).get_content()


def results_mail(mailbox) -> dict[str, object]:
    return {m["To"]: m for m in mailbox.messages if "results" in m["Subject"].lower()
            or "resultados" in m["Subject"].lower()}  # fmt: skip


def play_to_the_final(smtp_server, *, flights: bool = False):
    """Six entered players in two divisions, or flights A and B (one entered in Spanish, one
    without mail) at two tables of three; the table winners' final; both closed through the
    API."""
    tournament = open_tournament(entries_close_at=None)
    names = ("A", "B") if flights else ("Seniors", "Juniors")
    seniors = tournament.divisions.create(name=names[0], order=1, flight=flights)
    juniors = tournament.divisions.create(name=names[1], order=2, flight=flights)
    stage = factories.StageFactory(
        tournament=tournament, order=1, rounds=2, table_size_min=3, table_size_max=3
    )
    playoff(tournament, size_min=2, size_max=4)
    made = [
        enter(tournament, f"P{n} P", messages_ok=n != 6, division=seniors if n % 2 else juniors)
        for n in range(1, 7)
    ]
    made[0].language = "es"
    made[0].save(update_fields=["language"])
    table_services.seat_stage(stage=stage, by=None, seed=9)
    organiser = factories.UserFactory()
    tournament.staff.create(user=organiser, role="organiser")
    api = client_for(organiser)
    play_stage(stage)
    assert close(api, stage).status_code == 202
    final = Stage.objects.get(source_stage=stage)
    play_stage(final)
    smtp_server.messages.clear()
    assert close(api, final).status_code == 202
    return tournament, made, final, api


def test_the_final_closed_tells_each_player_their_place_and_medal_once(smtp_server):
    tournament, made, final, api = play_to_the_final(smtp_server)
    placings = {p.player_id: p for p in Placing.objects.filter(tournament=tournament)}
    assert len(placings) == 6
    told = results_mail(smtp_server)
    assert set(told) == {entry.email for entry in made[:5]}  # not the one without mail
    for entry in made[1:5]:
        placing = placings[entry.player_id]
        text = body(told[entry.email])
        assert f"You placed {place(placing.place)} place." in text
        assert (
            f"In division {placing.division.name} you placed {place(placing.division_place)}"
            in text
        )
        if placing.division_place <= 3:
            assert ("Gold", "Silver", "Bronze")[placing.division_place - 1] + " medal." in text
        assert f"/en/t/{tournament.slug}/results/" in text
    spanish = told[made[0].email]
    assert spanish["Subject"] == f"Los resultados de {tournament.name}"
    assert "Quedaste en" in body(spanish) and f"/es/t/{tournament.slug}/results/" in body(spanish)
    message = Message.objects.get(kind=Message.Kind.RESULTS)
    assert message.deliveries.count() == 5
    # The signal again (a sweep, a repeated decision): nobody is told twice.
    placings_decided.send(sender=Placing, tournament=tournament)
    assert len(results_mail(smtp_server)) == 5 and len(smtp_server.messages) == 5

    # Reopened and closed again with the same results: the placings go, come back the same, and
    # nobody is mailed again (the first mail still holds).
    smtp_server.messages.clear()
    assert api.post(f"/api/v1/stages/{final.pk}/reopen/").status_code == 200
    assert close(api, final).status_code == 202
    assert Placing.objects.filter(tournament=tournament).count() == 6
    assert smtp_server.messages == []
    assert Message.objects.filter(kind=Message.Kind.RESULTS).count() == 1

    # A decision that changed someone's place (a correction): only they are told, and the mail
    # says it corrects the one before.
    changed = made[2]
    Placing.objects.filter(player=changed.player).update(place=6, division_place=3)
    placings_decided.send(sender=Placing, tournament=tournament)
    assert list(results_mail(smtp_server)) == [changed.email]
    mail = smtp_server.messages[0]
    assert mail["Subject"] == f"The results of {tournament.name}, corrected"
    assert "were corrected after the final was reopened" in body(mail)
    assert "You placed 6th place." in body(mail)


def test_a_flight_is_told_as_a_flight_in_each_language(smtp_server):
    tournament, made, *_ = play_to_the_final(smtp_server, flights=True)
    placings = {p.player_id: p for p in Placing.objects.filter(tournament=tournament)}
    told = results_mail(smtp_server)
    for entry in made[1:5]:
        placing = placings[entry.player_id]
        text = body(told[entry.email])
        ordinal = place(placing.division_place)
        assert f"In flight {placing.division.name} you placed {ordinal}" in text, text
        assert "division" not in text.lower()
    spanish = body(told[made[0].email])
    assert "En el grupo " in spanish and "división" not in spanish, spanish


def place(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")
