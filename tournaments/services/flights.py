"""Flights: a tournament's players split into groups (flight A, B, ...) that are placed and given
medals among themselves. A flight is a division (`Division.flight`), so the placings, the medals,
the standings' switch, the exports, the certificates and the per-division playoffs treat it as
one; what differs is how players get into it: all at once, by a split (by rating,
scoring.services.flights) or by the organiser's list, both written here.

A player is in one group at most, so a tournament has divisions or flights, never both: a split
is refused while it has divisions, and a division is refused while it has flights
(services.divisions.create_division). Flights change until the placings are decided, as
divisions do; once a round has been entered, a change that moves a player from one flight asks
first (`confirm`), since it changes the flights' standings there and then."""

from collections.abc import Mapping
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tournaments.exceptions import StateConflict
from tournaments.models import Division, Player, PlayerChange, Tournament
from tournaments.services.players import record_change
from tournaments.services.stage_changes import check_not_finished
from tournaments.services.tournaments import has_results
from tournaments.signals import tournament_changed
from tournaments.text import folded, unprintable_messages

NAME_LENGTH = 80  # Division.name


class ConfirmationNeeded(StateConflict):
    """The change would move players after results were entered: sent again with `confirm`."""


@dataclass(frozen=True)
class FlightsChanged:
    """What an assignment did: how many players it moved, and the flights now (in order)."""

    moved: int
    flights: list[Division]


def plays_in_flights(tournament: Tournament) -> bool:
    """Whether the tournament's groups are flights (made by a split) rather than divisions."""
    return tournament.divisions.filter(flight=True).exists()


def flight_name_errors(name: str) -> list[str]:
    """What is wrong with a flight's name as given (spaces already tidied): [] when nothing."""
    if not name:
        return [_("A flight needs a name.")]
    if unprintable := unprintable_messages(name):
        return unprintable
    if len(name) > NAME_LENGTH:
        return [_("A flight's name has at most 80 characters.")]
    return []


def _check_open(tournament: Tournament) -> None:
    check_not_finished(tournament, change="division")
    divisions = [d.name for d in tournament.divisions.all() if not d.flight]
    if divisions:
        message = _(
            "This tournament has the divisions %(names)s, and a player is in one group only: "
            "remove them first to play in flights."
        )
        raise StateConflict(message % {"names": ", ".join(divisions)})


def _check_confirmed(tournament: Tournament, moved: int, confirm: bool) -> None:
    if moved and not confirm and has_results(tournament):
        message = ngettext(
            "Rounds have been entered: this moves %(count)s player to another flight, which "
            "changes the flights' standings now. Confirm to go ahead.",
            "Rounds have been entered: this moves %(count)s players to another flight, which "
            "changes the flights' standings now. Confirm to go ahead.",
            moved,
        )
        raise ConfirmationNeeded(message % {"count": moved})


@transaction.atomic
def assign_flights(
    *, tournament: Tournament, flights: Mapping[int, str | None], confirm: bool = False
) -> FlightsChanged:
    """Put each player (by id) in the flight of that name, or in none (None): the one place that
    writes who is in which flight, for a split by rating and for the organiser's list. A flight
    named for the first time is added after the others, in the order the names first come; the
    players left out keep theirs; a flight left with nobody is removed. Refused: a player not of
    the tournament or a bad name (ValidationError, nothing changed), the tournament's divisions
    or decided placings (StateConflict), a move after results without `confirm`
    (ConfirmationNeeded)."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)  # one at a time
    _check_open(tournament)
    players = {p.pk: p for p in tournament.players.select_related("division")}
    unknown = [pk for pk in flights if pk not in players]
    if unknown:
        raise ValidationError(
            _("%(count)s of the players given are not players of %(tournament)s.")
            % {"count": len(unknown), "tournament": tournament.name}
        )
    existing = {folded(f.name): f for f in tournament.divisions.filter(flight=True)}
    wanted: dict[int, str | None] = {}
    for pk, name in flights.items():
        if name is None:
            wanted[pk] = None
            continue
        tidy = " ".join(str(name).split())
        if errors := flight_name_errors(tidy):
            number = players[pk].number
            raise ValidationError(
                [_("Player %(number)s: %(error)s") % {"number": number, "error": e} for e in errors]
            )
        wanted[pk] = tidy
    moves = {
        pk: name
        for pk, name in wanted.items()
        if (folded(name) if name else None)
        != (folded(players[pk].division.name) if players[pk].division else None)
    }
    # Putting a player in a flight for the first time changes no flight's standings: no need to
    # ask (a split by the standings of a closed stage comes after results, by its nature).
    _check_confirmed(tournament, sum(1 for pk in moves if players[pk].division), confirm)
    last = tournament.divisions.aggregate(last=Max("order"))["last"] or 0
    for name in dict.fromkeys(n for n in moves.values() if n):
        if folded(name) not in existing:
            last += 1
            existing[folded(name)] = Division.objects.create(
                tournament=tournament, name=name, flight=True, order=last
            )
    for pk, name in moves.items():
        player = players[pk]
        player.division = existing[folded(name)] if name else None
        record_change(player, by=None, reason=PlayerChange.CORRECTED)
        player.save(update_fields=["division"])
    Division.objects.filter(tournament=tournament, flight=True, players__isnull=True).delete()
    if moves:
        tournament_changed.send(sender=Tournament, tournament=tournament)
    return FlightsChanged(len(moves), list(tournament.divisions.filter(flight=True)))


@transaction.atomic
def remove_flights(*, tournament: Tournament, confirm: bool = False) -> int:
    """Take every player out of the flights and remove them (the tournament then places everyone
    together, or can have divisions): how many players were in one. Refused as assign_flights."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    check_not_finished(tournament, change="division")
    if not plays_in_flights(tournament):
        return 0
    members = Player.objects.filter(tournament=tournament, division__flight=True)
    changed = assign_flights(
        tournament=tournament, flights=dict.fromkeys(members.values_list("pk", flat=True)),
        confirm=confirm,
    )  # fmt: skip
    return changed.moved
