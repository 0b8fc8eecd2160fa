"""Self check-in at the kiosk: an entry's check-in code, typed or scanned, checks its player in
(tables.services.check_in_player, as the desk does). Once a stage that would seat the player is
being played, the kiosk sends them to the desk, which seats a late player by hand."""

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from entries.models import CODE_LENGTH, Entry
from tables import services as table_services
from tournaments.exceptions import StateConflict
from tournaments.models import Player, Stage, Tournament


@dataclass(frozen=True)
class CheckedIn:
    player: Player
    already: bool  # checked in before: nothing changed


def normalised(code) -> str:
    """The code as stored: capitals, without the spaces (or dashes) a person types between."""
    if not isinstance(code, str) or not code.strip():
        raise ValidationError({"code": [_("Type the check-in code from your entry's mail.")]})
    code = "".join(code.split()).replace("-", "").upper()
    # Only ASCII letters and digits can be a code; anything else (a NUL byte, which PostgreSQL
    # refuses in text, or an accented letter) is said to be no code rather than looked up.
    if len(code) > CODE_LENGTH * 4 or not (code.isascii() and code.isalnum()):
        raise ValidationError({"code": [_("A check-in code has 8 letters and digits.")]})
    return code


def entry_with_code(tournament: Tournament, code: str) -> Entry | None:
    if not code:
        return None
    entries = Entry.objects.select_related("player", "tournament")
    return entries.filter(tournament=tournament, check_in_code=code).first()


def unseated_stage(player: Player) -> Stage | None:
    """A qualifying stage being played that has no seat for the player: seating has begun for a
    stage they would be seated in, so only the desk can seat them now (a late player)."""
    stages = Stage.objects.filter(
        tournament_id=player.tournament_id,
        status=Stage.Status.SEATED,
        kind=Stage.Kind.QUALIFYING,
    ).order_by("order")
    return stages.exclude(seats__player=player).first()


def go_to_desk(entry: Entry) -> StateConflict:
    return StateConflict(
        _("%(name)s, please go to the desk: they will check you in.") % {"name": entry.name}
    )


def check_in_by_code(*, tournament: Tournament, entry: Entry) -> CheckedIn:
    """Check in the player of the entry found by its code. Checked in already: said so, nothing
    changed. A withdrawn entry (or player), or a stage already being played without them, is a
    StateConflict that sends them to the desk."""
    player = entry.player
    if entry.status != Entry.Status.ENTERED or player is None:
        raise go_to_desk(entry)
    player.refresh_from_db()
    if player.status == Player.Status.CHECKED_IN:
        return CheckedIn(player, already=True)
    if player.status == Player.Status.WITHDRAWN or unseated_stage(player) is not None:
        raise go_to_desk(entry)
    player = table_services.check_in_player(player=player, by=None)
    return CheckedIn(player, already=False)
