"""Tables whose players enter their own rounds: the table's code, a phone's claim of a seat, who
may report a table's rounds, and handing a table back to the officials.

A stage reports by its officials (as always) or by its players (Stage.reporting). At a players'
stage each table's card carries its code (Table.code, new with every stage's tables); a player
types the code and their badge number, and the phone becomes that seat (a SeatClaim, with a user
of its own and a token): it reaches its own table's rounds only. An organiser can hand a table,
or the whole stage, back to the officials at any moment: the claims end, and the phones with
them.
"""

import secrets
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import PermissionDenied

from tables.models import CODE_LENGTH, Seat, SeatClaim, Table
from tournaments.exceptions import StateConflict
from tournaments.models import Stage
from tournaments.permissions import is_staff_of, require_staff

# A seat's user is named so in the admin and the history's raw data; the pages name the seat.
SEAT_PREFIX = "seat-"
# How a claim signs its browser in (the claim page and the API's claim): as the seat's own user,
# whatever the site's other backends (its sign-in one refuses a user without a password).
SEAT_BACKEND = "django.contrib.auth.backends.ModelBackend"


def normalised_code(code: str) -> str:
    """A code as typed on a phone: any case, spaces and dashes ignored ("qx7 k-3m" is QX7K3M)."""
    return "".join(ch for ch in str(code).upper() if ch.isalnum())


def seat_to_claim(code: str, number: int | str) -> Seat | None:
    """The seat at the table of `code` of the player with badge `number`, or None when the code
    is wrong or no such player sits there: a caller says nothing more than "not found", so a
    wrong guess tells nothing."""
    code = normalised_code(code)
    if len(code) != CODE_LENGTH:
        return None
    try:
        number = int(str(number).strip())
    except ValueError:
        return None
    return (
        Seat.objects.select_related("table__stage__tournament", "player")
        .filter(table__code=code, player__number=number)
        .first()
    )


def players_report(table: Table) -> bool:
    """Whether the table's own players enter its rounds now."""
    return table.stage.reporting == Stage.Reporting.PLAYERS and not table.officials_report


def refuse_unless_players_report(table: Table) -> None:
    """A claim or a seat's entry at a table the players do not report now: what to do instead."""
    if table.stage.status == Stage.Status.CLOSED:
        raise StateConflict(
            _("%(stage)s is closed: its rounds can no longer be entered from a seat.")
            % {"stage": table.stage.display_name}
        )
    if not players_report(table):
        raise StateConflict(
            _(
                "Table %(table)s's rounds are entered by the officials now, not from the "
                "players' phones: give your scores to an official."
            )
            % {"table": table.number}
        )


@transaction.atomic
def claim_seat(seat: Seat) -> tuple[SeatClaim, str]:
    """Make this phone the seat: a claim with a user of its own and that user's token (the token
    is the API's way in; the pages sign the phone in as the user). A seat may be claimed from
    more than one phone (a player's phone, then a tablet at the table): each is the same seat,
    and the seat that entered a round still cannot confirm it from another phone."""
    refuse_unless_players_report(seat.table)
    user = get_user_model()(username=f"{SEAT_PREFIX}{secrets.token_hex(8)}")
    user.set_unusable_password()
    user.save()
    claim = SeatClaim.objects.create(seat=seat, user=user)
    token = Token.objects.create(user=user)
    return claim, token.key


def claim_of(user: AbstractBaseUser | AnonymousUser) -> SeatClaim | None:
    """The user's seat claim while it lasts (with its seat, table, stage and player), or None
    for anyone else. Read once per request object."""
    if not user.is_authenticated or not user.get_username().startswith(SEAT_PREFIX):
        return None
    cached = getattr(user, "_seat_claim_cache", False)
    if cached is not False:
        return cached
    claim = (
        SeatClaim.objects.select_related("seat__table__stage__tournament", "seat__player")
        .filter(user=user, ended_at__isnull=True)
        .first()
    )
    user._seat_claim_cache = claim
    return claim


def seat_of(user_id: int | None) -> Seat | None:
    """The seat a user claimed (its claim ended or not), or None for an official or nobody: the
    history names the seat that entered a version long after the claim ended."""
    if user_id is None:
        return None
    claim = SeatClaim.objects.select_related("seat__player").filter(user_id=user_id).first()
    return claim.seat if claim is not None else None


def seats_of(user_ids: Iterable[int | None]) -> dict[int, Seat]:
    """seat_of for many users in one query (a page of rounds or versions): user id -> the seat
    it claimed; an official or nobody is not in it."""
    wanted = {user_id for user_id in user_ids if user_id is not None}
    claims = SeatClaim.objects.select_related("seat__player").filter(user_id__in=wanted)
    return {claim.user_id: claim.seat for claim in claims} if wanted else {}


def seat_named(seat: Seat) -> str:
    """How the history and the pages name a seat."""
    return _("Seat %(position)s (%(player)s)") % {
        "position": seat.position,
        "player": seat.player.name,
    }


def require_reporter(user: AbstractBaseUser | AnonymousUser, table: Table) -> SeatClaim | None:
    """Who may enter and confirm the table's rounds: its tournament's staff (None back), or a
    phone that claimed a seat at this very table while its players report (the claim back).
    A seat's phone at another table is told which table it reaches; anyone else is refused as
    require_staff refuses."""
    claim = claim_of(user)
    if claim is None:
        require_staff(user, table.stage.tournament)
        return None
    if claim.seat.table_id != table.pk:
        raise PermissionDenied(elsewhere(claim))
    refuse_unless_players_report(table)
    return claim


def elsewhere(claim: SeatClaim) -> str:
    """What a seat's phone is told at another table than its own (the API and the pages)."""
    return _("This phone is seat %(position)s at table %(table)s: it reaches that table only.") % {
        "position": claim.seat.position,
        "table": claim.seat.table.number,
    }


def may_report(user: AbstractBaseUser | AnonymousUser, table: Table) -> bool:
    """require_reporter as a question, for the pages (staff, or a seat of this table now)."""
    claim = claim_of(user)
    if claim is None:
        return is_staff_of(user, table.stage.tournament)
    return claim.seat.table_id == table.pk and players_report(table)


def end_claims(claims: QuerySet[SeatClaim]) -> int:
    """End these claims: their users may no longer sign in (sessions end at the next request),
    their tokens are deleted. How many ended."""
    claims = claims.filter(ended_at__isnull=True)
    user_ids = list(claims.values_list("user_id", flat=True))
    ended = claims.update(ended_at=timezone.now())
    get_user_model().objects.filter(pk__in=user_ids).update(is_active=False)
    Token.objects.filter(user_id__in=user_ids).delete()
    return ended


@transaction.atomic
def set_table_reporting(table: Table, *, players: bool) -> Table:
    """Hand one table back to the officials (its seats' phones signed out at once) or back to
    its players, in a stage whose players report. A stage the officials report has no table the
    players could take: that is the stage's setting (set_stage_reporting)."""
    table = Table.objects.select_for_update().select_related("stage__tournament").get(pk=table.pk)
    if table.stage.reporting != Stage.Reporting.PLAYERS:
        raise StateConflict(
            _(
                "%(stage)s's rounds are entered by the officials: to let the players enter "
                "them, change the stage's setting first."
            )
            % {"stage": table.stage.display_name}
        )
    table.officials_report = not players
    table.save(update_fields=["officials_report"])
    if not players:
        end_claims(SeatClaim.objects.filter(seat__table=table))
    return table


def stage_reporting_changed(stage: Stage) -> None:
    """After a stage's `reporting` changed: to the officials, every seat's phone is signed out;
    to the players, every table is theirs again."""
    if stage.reporting == Stage.Reporting.OFFICIALS:
        end_claims(SeatClaim.objects.filter(seat__stage=stage))
    else:
        Table.objects.filter(stage=stage, officials_report=True).update(officials_report=False)
