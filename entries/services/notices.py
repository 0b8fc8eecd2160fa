"""The system's own mail about the day, sent once the change is committed (entries/receivers.py):
where each player sits when a stage is seated, and each player's place once the placings are
decided. Only to entered entries with `messages_ok`.

Each is told once: a seat is told once (a Seat row is made anew whenever a stage is seated, so a
stage reseated, or unseated and seated again, tells the new seats, and a late player's seat is
told on its own); a place is told once, and again only if a second decision (a stage reopened and
closed again) changed it, in a mail that says it is a correction. The tournament's row is locked
while it is decided who to tell, so two senders at once (a signal sent twice, a worker and a
request) tell once."""

from django.conf import settings
from django.db import transaction
from django.utils import translation

from entries.models import Delivery, Entry, Message
from entries.services import mail
from scoring.results import final_results
from tables.models import Seat
from tournaments.models import Player, Stage, Tournament

Kind = Message.Kind


def _locked(tournament_id: int) -> Tournament | None:
    return Tournament.objects.select_for_update().filter(pk=tournament_id).first()


def _told(tournament: Tournament, kind: str) -> dict[int, dict]:
    """The latest delivery context of each entry told this kind of message already."""
    deliveries = Delivery.objects.filter(
        message__tournament=tournament, message__kind=kind, entry__isnull=False
    ).order_by("pk")
    return dict(deliveries.values_list("entry_id", "context"))


def tell_seats(stage_id: int) -> Message | None:
    """Mail each entered player of a seated stage who was not told this seat yet "for <stage>,
    you sit at table 7, seat 3"; one message for all of them (None when there is nobody)."""
    stage = Stage.objects.filter(pk=stage_id).only("tournament_id").first()
    if stage is None:
        return None
    with transaction.atomic():
        tournament = _locked(stage.tournament_id)
        stage = Stage.objects.filter(pk=stage_id).first()
        if tournament is None or stage is None or stage.status != Stage.Status.SEATED:
            return None
        told = set(
            Delivery.objects.filter(message__kind=Kind.SEATED, message__stage=stage).values_list(
                "context__seat_id", flat=True
            )
        )
        seats = [
            seat
            for seat in Seat.objects.filter(
                stage=stage,
                to_round__isnull=True,
                player__entry__status=Entry.Status.ENTERED,
                player__entry__messages_ok=True,
            )
            .exclude(player__status=Player.Status.WITHDRAWN)
            .select_related("table", "player__entry")
            .order_by("table__number", "position")
            if seat.pk not in told
        ]
        if not seats:
            return None
        with translation.override(settings.LANGUAGE_CODE):
            name = stage.display_name
            subject = mail._subject(Kind.SEATED, tournament.name)
        context = {
            seat.player.entry.pk: {
                "stage": name,
                "table": seat.table.number,
                "seat": seat.position,
                "seat_id": seat.pk,
            }
            for seat in seats
        }
        return mail.queue_message(
            tournament=tournament,
            kind=Kind.SEATED,
            subject=subject,
            entries=[seat.player.entry for seat in seats],
            stage=stage,
            context=context,
        )


def tell_results(tournament_id: int) -> Message | None:
    """Once the placings are decided, mail each placed entered player their place, their place in
    their division and its medal, and the results page. An entry told already is told again only
    if a later decision changed what it was told (marked corrected). None when nobody is told
    (nothing decided: a reopen took the placings away)."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament is None:
            return None
        results = final_results(tournament)
        if not results.decided:
            return None
        placed = {p.player.pk: p for p in results.placings}
        entries = Entry.objects.filter(
            tournament=tournament,
            status=Entry.Status.ENTERED,
            messages_ok=True,
            player__in=list(placed),
        ).select_related("tournament")
        told = _told(tournament, Kind.RESULTS)
        context, telling = {}, []
        for entry in entries:
            p = placed[entry.player_id]
            now = {
                "place": p.place,
                "division": p.division.name if p.division else "",
                "division_place": p.division_place,
                "medal": p.medal or "",
            }
            before = told.get(entry.pk)
            if before is not None and {k: before.get(k) for k in now} == now:
                continue
            # A flight is told as a flight (not part of what was told: a change to it alone
            # is no reason to tell again).
            flight = p.division is not None and p.division.flight
            context[entry.pk] = {**now, "flight": flight, "corrected": before is not None}
            telling.append(entry)
        if not telling:
            return None
        with translation.override(settings.LANGUAGE_CODE):
            corrected = all(context[e.pk]["corrected"] for e in telling)
            subject = mail._subject(Kind.RESULTS, tournament.name, corrected=corrected)
        return mail.queue_message(
            tournament=tournament,
            kind=Kind.RESULTS,
            subject=subject,
            entries=telling,
            stage=results.final,
            context=context,
        )
