"""Players: added, changed, withdrawn and imported from CSV, every change in their history."""

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from simple_history.utils import bulk_create_with_history

from tournaments.csvfiles import ImportRejected, read_csv, whole_number
from tournaments.models import Player, PlayerChange, Tournament
from tournaments.services.stages import check_not_finished
from tournaments.signals import player_changed
from tournaments.text import check_printable, hidden_character


def _player_number_taken(tournament: Tournament, number: int) -> ValidationError:
    message = _("Number %(number)s is already taken in %(tournament)s.")
    return ValidationError(
        {"number": [message % {"number": number, "tournament": tournament.name}]}
    )


def record_change(player: Player, *, by: AbstractBaseUser | None, reason: PlayerChange) -> Player:
    """Say who changes the player and why, for the entry of its history that its next save
    writes. Without a user (a script), the request's user is taken if there is one."""
    if by is not None:  # set, even to None, it would hide the request's user
        player._history_user = by
    player._change_reason = reason
    return player


@transaction.atomic
def create_player(
    *,
    tournament: Tournament,
    number: int,
    name: str,
    household: str = "",
    club: str = "",
    status: str = Player.Status.REGISTERED,
    by: AbstractBaseUser | None = None,
) -> Player:
    check_printable(name=name, household=household, club=club)
    check_not_finished(tournament, change="player")
    if Player.objects.filter(tournament=tournament, number=number).exists():
        raise _player_number_taken(tournament, number)
    player = Player(
        tournament=tournament,
        number=number,
        name=name.strip(),
        household=household.strip(),
        club=club.strip(),
        status=status,
    )
    record_change(player, by=by, reason=PlayerChange.ADDED)
    try:
        with transaction.atomic():
            player.save(force_insert=True)
            return player
    except IntegrityError:  # a concurrent request took the number first
        raise _player_number_taken(tournament, number) from None


@transaction.atomic
def update_player(
    *,
    player: Player,
    number: int,
    name: str,
    household: str = "",
    club: str = "",
    by: AbstractBaseUser | None = None,
) -> Player:
    """Correct a player's number, name, household or club (a typo on the entry list); the pages
    that show them follow. Their status changes through check-in and withdrawal only."""
    check_printable(name=name, household=household, club=club)
    player = Player.objects.select_for_update().get(pk=player.pk)
    fields = {"number": number, "name": name.strip(), "household": household.strip(),
              "club": club.strip()}  # fmt: skip
    if all(getattr(player, field) == value for field, value in fields.items()):
        return player  # nothing changed: nothing to tell
    taken = Player.objects.filter(tournament_id=player.tournament_id, number=number)
    if taken.exclude(pk=player.pk).exists():
        raise _player_number_taken(player.tournament, number)
    for field, value in fields.items():
        setattr(player, field, value)
    record_change(player, by=by, reason=PlayerChange.CORRECTED)
    try:
        with transaction.atomic():
            player.save(update_fields=list(fields))
    except IntegrityError:  # a concurrent request took the number first
        raise _player_number_taken(player.tournament, number) from None
    player_changed.send(sender=Player, player=player)
    return player


# ---- players CSV import -------------------------------------------------------------------------

IMPORT_COLUMNS = ("number", "name", "household", "club", "status")
REQUIRED_COLUMNS = ("number", "name")
MAX_LENGTHS = {"name": 120, "household": 120, "club": 120}
TOO_LONG = {
    "name": gettext_lazy("the name is longer than %(limit)s characters"),
    "household": gettext_lazy("the household is longer than %(limit)s characters"),
    "club": gettext_lazy("the club is longer than %(limit)s characters"),
}


UNPRINTABLE = {
    "name": gettext_lazy("the name contains a character that does not print (%(code)s)"),
    "household": gettext_lazy("the household contains a character that does not print (%(code)s)"),
    "club": gettext_lazy("the club contains a character that does not print (%(code)s)"),
}


def parse_players_csv(*, tournament: Tournament, content: bytes) -> list[dict[str, Any]]:
    """Read a players CSV: valid rows, or ImportRejected listing every bad row by line number."""
    # API.md: a header row naming at least number,name; the callers say which columns were left.
    records = read_csv(
        content,
        columns=IMPORT_COLUMNS,
        required=REQUIRED_COLUMNS,
        what="players",
        ignore_unknown=True,
    )
    taken = set(Player.objects.filter(tournament=tournament).values_list("number", flat=True))
    seen: dict[int, int] = {}
    rows: list[dict[str, Any]] = []
    errors: list[tuple[int, str]] = []
    for record in records:
        values, problems = record.values, record.problems
        number_text = values["number"]
        number: int | None = None
        if not number_text:
            problems.append(_("the number is missing"))
        elif not 1 <= (whole_number(number_text) or 0) <= Player.MAX_NUMBER:
            problems.append(
                _("the number %(number)s is not a whole number from 1 to %(largest)s")
                % {
                    "number": repr(number_text),
                    "largest": formats.number_format(Player.MAX_NUMBER, force_grouping=True),
                }
            )
        else:
            number = int(number_text)
            if number in taken:
                problems.append(
                    _("number %(number)s is already in the tournament") % {"number": number}
                )
            elif number in seen:
                problems.append(
                    _("number %(number)s is used twice (also on line %(line)s)")
                    % {"number": number, "line": seen[number]}
                )
            else:
                seen[number] = record.line
        if not values["name"]:
            problems.append(_("the name is empty"))
        for column, limit in MAX_LENGTHS.items():
            if len(values[column]) > limit:
                problems.append(str(TOO_LONG[column]) % {"limit": limit})
            code = hidden_character(values[column])
            if code is not None:
                problems.append(str(UNPRINTABLE[column]) % {"code": code})
        status = values["status"].lower().replace(" ", "_") or Player.Status.REGISTERED
        if status not in Player.Status.values:
            problems.append(
                _("the status %(status)s is unknown: use %(choices)s or leave it empty")
                % {"status": repr(values["status"]), "choices": ", ".join(Player.Status.values)}
            )
        if problems:
            errors.append((record.line, record.message()))
            continue
        rows.append(
            {
                "number": number,
                "name": values["name"],
                "household": values["household"],
                "club": values["club"],
                "status": status,
            }
        )
    if errors:
        raise ImportRejected(errors)
    return rows


@transaction.atomic
def import_players(
    *, tournament: Tournament, content: bytes, by: AbstractBaseUser | None = None
) -> list[Player]:
    """Create every player of a CSV file, or none: ImportRejected lists every bad row."""
    check_not_finished(tournament, change="player")
    rows = parse_players_csv(tournament=tournament, content=content)
    try:
        with transaction.atomic():
            return bulk_create_with_history(
                [Player(tournament=tournament, **row) for row in rows],
                Player,
                default_user=by,
                default_change_reason=PlayerChange.IMPORTED,
            )
    except IntegrityError:  # a player added meanwhile took one of the numbers
        raise ImportRejected(
            [
                (
                    1,
                    _(
                        "Another import added some of these numbers meanwhile: "
                        "upload the file again to see which."
                    ),
                )
            ]
        ) from None


# ---- stages -------------------------------------------------------------------------------------
