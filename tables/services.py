"""Seating a stage, late entries and withdrawals: every change of tables and seats; and a
stage's options of seating by club rating (tables.by_rating reads them)."""

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max, Min
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tables import seating, selectors, strengths
from tables.by_rating import RatingPlan, no_club_message, rating_plan, seated_from_advancers
from tables.models import Seat, Table
from tables.signals import seating_changed
from tournaments.exceptions import StateConflict
from tournaments.models import Player, PlayerChange, Stage, StageClock, Tournament
from tournaments.presets import get_preset
from tournaments.services import check_not_finished, record_change
from tournaments.services.stage_changes import (
    check_unseatable,
    closed_message,
    lock_open_stage,
    lock_stage,
)

T = TypeVar("T")


@dataclass
class SeatingReport:
    """What seating a stage did, for the organiser: the tables and every constraint not met."""

    tables: list[Table]
    seed: int | None
    players_seated: int
    left_out: list[Player] = field(default_factory=list)
    repeat_pairs: int = 0
    household_conflicts: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    discarded_results: int = 0
    by_rating: str = ""  # tables.by_rating.BALANCED or SEEDED when ratings seated them
    table_ratings: list[float] = field(default_factory=list)  # each table's mean rating
    unrated: int = 0  # players seated with a newcomer's rating
    # Seated from the players (not advancers): whether only the checked-in were; None otherwise.
    check_in_used: bool | None = None


class ToSeat(NamedTuple):
    players: list[Player]  # who seating seats
    left_out: list[Player]  # active players not seated: they have not checked in
    check_in_used: bool  # anyone has checked in (or played an earlier stage)


def players_to_seat(stage: Stage) -> ToSeat:
    """Who seating the stage seats: the active players; once anyone is present, only those
    present. Present is checked in, or seated at an earlier stage: the players of the first
    stage are present at the second, whether or not anyone checked them in (a late entry is).
    The stage's page says which before seating, and the seating report after."""
    active = list(
        stage.tournament.players.exclude(status=Player.Status.WITHDRAWN).order_by("number")
    )
    played = set(
        Seat.objects.filter(
            stage__tournament_id=stage.tournament_id, stage__order__lt=stage.order
        ).values_list("player_id", flat=True)
    )
    present = [p for p in active if p.status == Player.Status.CHECKED_IN or p.pk in played]
    if present:
        return ToSeat(present, [p for p in active if p not in present], True)
    return ToSeat(active, [], False)


def previous_tablemates(stage: Stage) -> set[tuple[int, int]]:
    """Every pair of players who shared a table in an earlier stage of the tournament."""
    by_table: dict[int, list[int]] = {}
    earlier = Seat.objects.filter(
        stage__tournament_id=stage.tournament_id, stage__order__lt=stage.order
    ).values_list("table_id", "player_id")
    for table_id, player_id in earlier:
        by_table.setdefault(table_id, []).append(player_id)
    return seating.tablemate_pairs(by_table.values())


def _check_deal(stage: Stage, sizes: list[int]) -> None:
    preset = get_preset(stage.tournament.preset)
    for size in set(sizes):
        try:
            preset.tiles_dealt(stage.domino_set, size)
        except ValueError as error:
            if stage.domino_set not in preset.deals:  # the tournament's set: checked at creation
                raise StateConflict(str(error)) from None
            low, high = preset.table_bounds(stage.domino_set)
            message = _(
                "The %(preset)s preset with a double-%(set)s set is played by %(low)s to "
                "%(high)s players at a table, not %(players)s."
            )
            values = {"preset": preset.key, "set": stage.domino_set, "low": low, "high": high}
            raise StateConflict(message % {**values, "players": size}) from None


def _no_split_message(error: seating.NoBalancedSplit, n: int, size_min: int, size_max: int) -> str:
    """seating's NoBalancedSplit message, in the request's language."""
    if not error.suggestions:
        return _("There are no players to seat, so no tables can be made.")
    message = ngettext(
        "%(count)s player cannot be split into tables of %(min)s to %(max)s players with sizes "
        "differing by at most one.",
        "%(count)s players cannot be split into tables of %(min)s to %(max)s players with "
        "sizes differing by at most one.",
        n,
    ) % {"count": n, "min": size_min, "max": size_max}
    # A table is at least two players, whatever the arithmetic would allow.
    suggestions = [(low, high) for low, high in error.suggestions if low >= 2]
    if not suggestions:
        return ngettext(
            "Only %(count)s player is to be seated: a table needs at least 2.",
            "Only %(count)s players are to be seated: a table needs at least 2.",
            n,
        ) % {"count": n}
    (low, high), *others = suggestions
    if others:
        (other_low, other_high), *_rest = others
        tries = _("Try tables of %(low)s to %(high)s or %(low2)s to %(high2)s.") % {
            "low": low,
            "high": high,
            "low2": other_low,
            "high2": other_high,
        }
    else:
        tries = _("Try tables of %(low)s to %(high)s.") % {"low": low, "high": high}
    return f"{message} {tries}"


@transaction.atomic
def seat_stage(
    *,
    stage: Stage,
    by: AbstractBaseUser,
    seed: int | None = None,
    force: bool = False,
    entrants: list[seating.Entrant] | None = None,
    from_tables: dict[int, int] | None = None,
    arranged: seating.Seating | None = None,
) -> SeatingReport:
    """Seat the stage's players at balanced tables, replacing any earlier seating of the stage.

    Refused when the stage is closed, or when it has results and `force` is not given (the
    StateConflict says how many results would be discarded). `entrants` with ranks seat a
    playoff by snake seeding; otherwise the active players are seated at random from the seed.
    `arranged` tables (with `entrants`, the players in them) are written as they are.
    """
    stage = lock_open_stage(stage.pk, change="tables", alone=True)
    if (
        entrants is None
        and stage.kind == Stage.Kind.PLAYOFF
        and stage.tournament.stages.filter(order__lt=stage.order).exists()
    ):
        raise StateConflict(
            _(
                "%(stage)s is a playoff: its tables are made with the players who advance from "
                "the stage before it when that stage closes, not with every player."
            )
            % {"stage": stage.display_name}
        )
    discarded = stage.round_results.count()
    if discarded and not force:
        raise StateConflict(
            ngettext(
                "%(stage)s already has %(count)s round result. Reseating discards it: tick "
                "“Discard the results already entered and reseat” (in the API, send force=true) "
                "to reseat anyway.",
                "%(stage)s already has %(count)s round results. Reseating discards them all: tick "
                "“Discard the results already entered and reseat” (in the API, send force=true) "
                "to reseat anyway.",
                discarded,
            )
            % {"stage": stage.display_name, "count": discarded}
        )
    left_out: list[Player] = []
    check_in_used: bool | None = None
    if entrants is None:
        players, left_out, check_in_used = players_to_seat(stage)
        entrants = [seating.Entrant(id=p.pk, household=p.household) for p in players]
    seeded = any(e.rank is not None for e in entrants)
    # Advancers who fit at one table are the final, even if fewer than the usual minimum.
    size_min = min(stage.table_size_min, max(len(entrants), 2)) if seeded else stage.table_size_min
    # The stage's options of seating by club rating (none for tables made already).
    plan = (
        RatingPlan("", None)
        if arranged is not None
        else rating_plan(stage, entrants, seeded=seeded)
    )
    earlier = previous_tablemates(stage)
    try:
        if arranged is not None:  # tables made already (tables.game_seating): written as they are
            result = arranged
        elif seeded:
            result = seating.seat_seeded(
                plan.seeded(entrants), size_min=size_min, size_max=stage.table_size_max
            )
        else:
            seed = secrets.randbelow(2**31) if seed is None else seed
            result = seating.seat_random(
                entrants,
                size_min=size_min,
                size_max=stage.table_size_max,
                seed=seed,
                previous_tablemates=earlier,
                strengths=plan.strengths.of if plan.strengths else None,
            )
    except seating.NoBalancedSplit as error:
        apart = 0 < error.players < len(entrants)  # one division's own tables, seated apart
        count = error.players if apart else len(entrants)
        message = _no_split_message(error, count, size_min, stage.table_size_max)
        if apart:
            message += " " + _("Each division's players are seated at tables of their own.")
        if left_out:
            message += " " + ngettext(
                "Once anyone has checked in, only those checked in are seated: %(count)s "
                "player who has not checked in was left out.",
                "Once anyone has checked in, only those checked in are seated: %(count)s "
                "players who have not checked in were left out.",
                len(left_out),
            ) % {"count": len(left_out)}
        raise StateConflict(message) from None
    _check_deal(stage, [len(t) for t in result.tables])
    result.warnings.extend(plan.warnings)
    for warning in result.warnings:  # name unranked players by badge number and name
        if warning.kind == "unranked_last":
            named = Player.objects.in_bulk(warning.values["ids"])
            warning.values["players"] = [
                f"#{named[id_].number} {named[id_].name}" for id_ in warning.values["ids"]
            ]

    # Counted for every seating, as the stage's page reports it: tables that move
    # (tables.game_seating) and seeded playoffs keep earlier tablemates together by design, and
    # say how many.
    repeats = len(seating.tablemate_pairs(result.tables) & earlier)
    stage.tables.all().delete()  # cascades to seats and to the discarded results
    tables = Table.objects.bulk_create(
        Table(stage=stage, number=number) for number in range(1, len(result.tables) + 1)
    )
    Seat.objects.bulk_create(
        Seat(
            stage=stage,
            table=table,
            player_id=player_id,
            position=position,
            from_table=(from_tables or {}).get(player_id),
        )
        for table, player_ids in zip(tables, result.tables, strict=True)
        for position, player_id in enumerate(player_ids, start=1)
    )
    conflicts = [
        {"table": index + 1, "household": name} for index, name in result.household_conflicts
    ]
    rated = plan.report(result.tables)
    stage.status, stage.seed = Stage.Status.SEATED, result.seed
    stage.seating_report = {
        "players_seated": len(entrants),
        "left_out": [p.number for p in left_out],
        # Whether seating seated the checked-in players only (anyone had checked in), and the
        # ids of those it left out for not having checked in.
        "check_in_used": bool(check_in_used),
        "not_checked_in": [p.pk for p in left_out],
        "repeat_pairs": repeats,
        # For API clients, in the site's language, as the standings' notes; the pages show
        # the details in the reader's (seating.household_conflict_text and warning_text).
        "household_conflicts": _in_site_language(seating.household_conflict_text, conflicts),
        "household_conflict_details": conflicts,
        "warnings": _in_site_language(str, result.warnings),
        "warning_details": [warning.as_dict() for warning in result.warnings],
        "discarded_results": discarded,
        **rated,
    }
    stage.save(update_fields=["status", "seed", "seating_report"])
    seating_changed.send(sender=Stage, stage=stage)
    return SeatingReport(
        tables=tables,
        seed=result.seed,
        players_seated=len(entrants),
        left_out=left_out,
        repeat_pairs=repeats,
        household_conflicts=[seating.household_conflict_text(c) for c in conflicts],
        warnings=[str(warning) for warning in result.warnings],
        discarded_results=discarded,
        by_rating=plan.how,
        table_ratings=rated.get("table_ratings", []),
        unrated=rated.get("unrated", 0),
        check_in_used=check_in_used,
    )


def clear_seating(stage: Stage) -> None:
    """Remove a stage's tables and seats (it has no result: the caller checked) and make it
    pending again, as before it was seated; the pages follow (seating_changed)."""
    stage.tables.all().delete()  # cascades to the seats
    stage.status, stage.seed, stage.seating_report = Stage.Status.PENDING, None, {}
    stage.source_stage = None
    stage.save(update_fields=["status", "seed", "seating_report", "source_stage"])
    seating_changed.send(sender=Stage, stage=stage)


@transaction.atomic
def unseat_stage(*, stage: Stage, by: AbstractBaseUser) -> Stage:
    """Take a seated stage with no result back to pending: its tables and seats are removed,
    and it is seated again as a pending stage is. Unseating a pending stage is refused, as is
    a stage with a result (nothing entered is dropped)."""
    stage = lock_stage(stage.pk, alone=True)
    check_unseatable(stage)
    clear_seating(stage)
    return stage


def _in_site_language(text: Callable[[T], str], items: Iterable[T]) -> list[str]:
    with translation.override(settings.LANGUAGE_CODE):
        return [text(item) for item in items]


def _reported_rounds(table: Table) -> int:
    """Rounds the table has reported: a late entry plays from the round after."""
    return table.round_results.aggregate(top=Max("round_no"))["top"] or 0


def _check_takes_late_players(stage: Stage) -> None:
    """Late players join a seated, open qualifying stage (StateConflict otherwise)."""
    if stage.status == Stage.Status.CLOSED:
        raise StateConflict(closed_message(stage, "tables"))
    if stage.status != Stage.Status.SEATED:
        message = _(
            "%(stage)s is pending: late players join a seated, open stage (seat the stage first)."
        )
        raise StateConflict(message % {"stage": stage.display_name})
    if stage.kind == Stage.Kind.PLAYOFF:
        raise StateConflict(
            _(
                "%(stage)s is a playoff: it seats only the players who advanced to it. A late "
                "player joins a qualifying stage."
            )
            % {"stage": stage.display_name}
        )


def _late_player(stage: Stage, player: Player) -> Player:
    """The player, read under lock, who may take a late seat in the stage (ValidationError for
    one who has withdrawn or is seated in it already)."""
    # Read under lock, as withdrawing writes it: a withdrawal meanwhile is not undone.
    player = Player.objects.select_for_update().get(pk=player.pk)
    if player.status == Player.Status.WITHDRAWN:
        message = _("%(name)s has withdrawn and cannot be seated.") % {"name": player.name}
        raise ValidationError({"player": [message]})
    if Seat.objects.filter(stage=stage, player=player).exists():
        message = _("%(name)s already has a seat in %(stage)s.")
        raise ValidationError(
            {"player": [message % {"name": player.name, "stage": stage.display_name}]}
        )
    return player


@transaction.atomic
def add_late_player(
    *, stage: Stage, player: Player, by: AbstractBaseUser, allow_over_max: bool = False
) -> Seat:
    """Seat a late player at the smallest table with room, moving nobody else.

    Room means below the stage's largest table size. When every table is that full, the
    organiser chooses: refused (StateConflict) unless `allow_over_max`, which seats them above it,
    at the smallest table, within the preset's largest deal (the table's card, sheet and the
    stage's page then say the table is above the stage's size, and the card deals the hand for
    the players it has).
    """
    stage = lock_stage(stage.pk, alone=True)
    if player.tournament_id != stage.tournament_id:
        raise ValidationError({"player": [_("This player is entered in another tournament.")]})
    _check_takes_late_players(stage)
    player = _late_player(stage, player)
    tables = {t.number: t for t in stage.tables.all()}
    sizes = selectors.late_entry_sizes(stage)
    if not sizes:
        raise StateConflict(
            _(
                "Every table of %(stage)s has played all its rounds: a late player would play "
                "none. Seat them at the next stage."
            )
            % {"stage": stage.display_name}
        )
    # Households apart, as at seating, where a table with room allows it.
    household = seating.household_key(player.household)
    avoid = (
        {
            seat.table.number
            for seat in Seat.objects.filter(stage=stage).select_related("table", "player")
            if seating.household_key(seat.player.household) == household
        }
        if household
        else set()
    )
    number = seating.late_entry_table(sizes, size_max=stage.table_size_max, avoid=avoid)
    if number is None and not allow_over_max:
        raise StateConflict(
            _(
                "Every table of %(stage)s has %(max)s players, the most this stage allows. To "
                "seat #%(number)s %(name)s all the same, choose to seat them above the maximum: "
                "the table's card and score sheet will say so."
            )
            % {
                "stage": stage.display_name,
                "max": stage.table_size_max,
                "number": player.number,
                "name": player.name,
            }
        )
    if number is None:
        preset_max = get_preset(stage.tournament.preset).table_bounds(stage.domino_set)[1]
        number = seating.late_entry_table(sizes, size_max=preset_max, avoid=avoid)
    if number is None:
        raise StateConflict(
            _("Every table of %(stage)s is full: no table can take a late player.")
            % {"stage": stage.display_name}
        )
    table = tables[number]
    position = (table.seats.aggregate(top=Max("position"))["top"] or 0) + 1
    if player.status == Player.Status.REGISTERED:
        player.status = Player.Status.CHECKED_IN
        record_change(player, by=by, reason=PlayerChange.SEATED_LATE)
        player.save(update_fields=["status"])
    seat = Seat.objects.create(
        stage=stage,
        table=table,
        player=player,
        position=position,
        # A table opened for late players plays from its first round, whatever it reported.
        from_round=max(_reported_rounds(table) + 1, _first_round(table)),
    )
    seating_changed.send(sender=Stage, stage=stage)  # the standings list them from now
    return seat


def _first_round(table: Table) -> int:
    """The table's first round: 1, or later for a table opened for late players."""
    return table.seats.aggregate(first=Min("from_round"))["first"] or 1


def earliest_new_table_round(stage: Stage) -> int:
    """The first round a new table of late players may play: the round after the last that
    every table has reported (submitted or confirmed). Joining a round that every table has
    reported would hold back standings that rank it already (like with like)."""
    reported = dict(
        stage.round_results.order_by()
        .values("table_id")
        .annotate(top=Max("round_no"))
        .values_list("table_id", "top")
    )
    firsts = selectors.first_rounds(stage)
    tables = stage.tables.values_list("pk", flat=True)
    return 1 + min((max(reported.get(pk, 0), firsts.get(pk, 1) - 1) for pk in tables), default=0)


@transaction.atomic
def add_late_table(
    *,
    stage: Stage,
    players: list[Player],
    by: AbstractBaseUser,
    from_round: int | None = None,
) -> Table:
    """Seat late players together at a new table of the stage, from `from_round` (by default
    the earliest it may: earliest_new_table_round), moving nobody else; the organiser's other
    choice when every table is full. The rounds before its first are none of its own: like with
    like counts it from its first round, and its players' missed rounds are filled by the
    stage's late entry rule from a usual table's high (scoring.standings.records).

    Refused, changing nothing: fewer players than the stage's table_size_min or more than its
    table_size_max, a player named twice, withdrawn or seated in the stage already, a round
    outside the stage or one that every table has reported already, a stage whose time was
    called, or a stage that does not take late players (_check_takes_late_players).
    """
    stage = lock_stage(stage.pk, alone=True)
    _check_takes_late_players(stage)
    if any(player.tournament_id != stage.tournament_id for player in players):
        raise ValidationError({"players": [_("A player is entered in another tournament.")]})
    ids = [player.pk for player in players]
    if len(set(ids)) != len(ids):
        twice = next(p for p in players if ids.count(p.pk) > 1)
        message = _("#%(number)s %(name)s is named twice: name each player once.")
        raise ValidationError({"players": [message % {"number": twice.number, "name": twice.name}]})
    low, high = stage.table_size_min, stage.table_size_max
    if not low <= len(players) <= high:
        message = ngettext(
            "A new table of %(stage)s seats %(min)s to %(max)s players, not %(count)s.",
            "A new table of %(stage)s seats %(min)s to %(max)s players, not %(count)s.",
            len(players),
        )
        values = {"stage": stage.display_name, "min": low, "max": high, "count": len(players)}
        raise ValidationError({"players": [message % values]})
    # Time called fixed each table's last round (scoring.time_called): none for a new one.
    if StageClock.objects.filter(stage=stage, called_at__isnull=False).exists():
        raise StateConflict(
            _("Time was called in %(stage)s: no new table can start now.")
            % {"stage": stage.display_name}
        )
    earliest = earliest_new_table_round(stage)
    if earliest > stage.rounds:
        raise StateConflict(
            _(
                "Every table of %(stage)s has reported all its rounds: a new table would play "
                "none. Seat them at the next stage."
            )
            % {"stage": stage.display_name}
        )
    from_round = earliest if from_round is None else from_round
    if not 1 <= from_round <= stage.rounds:
        message = _("%(stage)s has rounds 1 to %(rounds)s.")
        values = {"stage": stage.display_name, "rounds": stage.rounds}
        raise ValidationError({"from_round": [message % values]})
    if from_round < earliest:
        message = _(
            "Every table of %(stage)s has reported round %(reported)s: a new table can join "
            "from round %(earliest)s at the earliest."
        )
        values = {"stage": stage.display_name, "reported": earliest - 1, "earliest": earliest}
        raise ValidationError({"from_round": [message % values]})
    locked = [_late_player(stage, player) for player in players]
    _check_deal(stage, [len(locked)])
    number = (stage.tables.aggregate(top=Max("number"))["top"] or 0) + 1
    table = Table.objects.create(stage=stage, number=number)
    for player in locked:
        if player.status == Player.Status.REGISTERED:
            player.status = Player.Status.CHECKED_IN
            record_change(player, by=by, reason=PlayerChange.SEATED_LATE)
            player.save(update_fields=["status"])
    Seat.objects.bulk_create(
        Seat(stage=stage, table=table, player=player, position=position, from_round=from_round)
        for position, player in enumerate(locked, start=1)
    )
    seating_changed.send(sender=Stage, stage=stage)  # the standings list them from now
    return table


@transaction.atomic
def withdraw_player(*, player: Player, by: AbstractBaseUser) -> Player:
    """Withdraw a player: their history stays, they play no further round and cannot advance.

    Withdrawing twice is harmless; once the placings are decided, nobody can withdraw.
    """
    player = Player.objects.select_for_update().get(pk=player.pk)
    check_not_finished(player.tournament, change="status")
    if player.status == Player.Status.WITHDRAWN:
        return player
    player.status = Player.Status.WITHDRAWN
    record_change(player, by=by, reason=PlayerChange.WITHDRAWN)
    player.save(update_fields=["status"])
    open_seats = Seat.objects.filter(
        player=player, stage__status=Stage.Status.SEATED, to_round__isnull=True
    ).select_related("table")
    for seat in open_seats:
        seat.to_round = max(_reported_rounds(seat.table), seat.from_round - 1)
        seat.save(update_fields=["to_round"])
        seating_changed.send(sender=Stage, stage=seat.stage)
    return player


@transaction.atomic
def reinstate_player(*, player: Player, by: AbstractBaseUser) -> Player:
    """Undo a withdrawal: the player is as before it (checked in, or registered if they had not
    checked in) and keeps their seat in the stage being played, from the next round, unless
    their table has reported a round since they withdrew (they missed it: their line would lack
    a score the rest of the table has).

    Reinstating a player who has not withdrawn is harmless; once the placings are decided,
    nobody can rejoin.
    """
    player = Player.objects.select_for_update().get(pk=player.pk)
    check_not_finished(player.tournament, change="status")
    if player.status != Player.Status.WITHDRAWN:
        return player
    closed_seats = Seat.objects.filter(
        player=player, stage__status=Stage.Status.SEATED, to_round__isnull=False
    ).select_related("table", "stage")
    for seat in closed_seats:
        reported = _reported_rounds(seat.table)
        if reported > seat.to_round:
            raise StateConflict(
                _(
                    "%(name)s cannot rejoin %(stage)s: table %(table)s has reported round "
                    "%(round)s since they withdrew."
                )
                % {
                    "name": player.name,
                    "stage": seat.stage.display_name,
                    "table": seat.table.number,
                    "round": reported,
                }
            )
    for seat in closed_seats:
        seat.to_round = None
        seat.save(update_fields=["to_round"])
        seating_changed.send(sender=Stage, stage=seat.stage)
    # Back as before the withdrawal: checked in if they were playing (or had checked in),
    # registered otherwise, so that reinstating one player before seating does not make them
    # the only one checked in (seating then takes only those checked in).
    before = (
        player.history.exclude(status=Player.Status.WITHDRAWN)
        .order_by("-history_date", "-history_id")
        .values_list("status", flat=True)
        .first()
    )
    playing = bool(closed_seats) or before == Player.Status.CHECKED_IN
    player.status = Player.Status.CHECKED_IN if playing else Player.Status.REGISTERED
    record_change(player, by=by, reason=PlayerChange.REINSTATED)
    player.save(update_fields=["status"])
    return player


@transaction.atomic
def check_in_everyone(*, tournament: Tournament, by: AbstractBaseUser) -> list[Player]:
    """Check in every player still registered (a list of who confirmed they are coming); each
    gets the same entry in their history as one checked in at the desk. Returns them."""
    check_not_finished(tournament, change="status")
    registered = Player.objects.select_for_update().filter(
        tournament=tournament, status=Player.Status.REGISTERED
    )
    players = list(registered.order_by("number"))
    for player in players:
        player.status = Player.Status.CHECKED_IN
        record_change(player, by=by, reason=PlayerChange.CHECKED_IN)
        player.save(update_fields=["status"])
    return players


@transaction.atomic
def check_in_player(*, player: Player, by: AbstractBaseUser) -> Player:
    """Check a registered player in; checking in twice is harmless. Not once the placings are
    decided."""
    player = Player.objects.select_for_update().get(pk=player.pk)
    check_not_finished(player.tournament, change="status")
    if player.status == Player.Status.WITHDRAWN:
        raise StateConflict(
            _("%(name)s has withdrawn and cannot be checked in.") % {"name": player.name}
        )
    if player.status != Player.Status.CHECKED_IN:
        player.status = Player.Status.CHECKED_IN
        record_change(player, by=by, reason=PlayerChange.CHECKED_IN)
        player.save(update_fields=["status"])
    return player


@transaction.atomic
def set_rating_options(*, stage: Stage, balance_by_rating: bool, seed_by_rating: bool) -> Stage:
    """Turn seating by rating on or off for the stage; the next seating of it follows. Saving the
    same twice is harmless. Refused for a closed stage, for a tournament no club owns (turning
    on), and for the option that does not apply to the stage (each said beside it)."""
    stage = lock_open_stage(stage.pk, change="settings", alone=True)
    if (balance_by_rating or seed_by_rating) and not strengths.rated(stage.tournament):
        raise StateConflict(no_club_message(stage.tournament))
    from_advancers = seated_from_advancers(stage)
    errors: dict[str, list[str]] = {}
    if balance_by_rating and from_advancers:
        errors["balance_by_rating"] = [
            _(
                "%(stage)s is a playoff seated from the players who advance to it: its tables "
                "are seeded, not balanced. Choose “Seed the playoff by rating” instead."
            )
            % {"stage": stage.display_name}
        ]
    if seed_by_rating and not from_advancers:
        errors["seed_by_rating"] = [
            _(
                "%(stage)s is not a playoff seated from the stage before it, so it has no "
                "seeding: choose “Balance tables by rating” instead."
            )
            % {"stage": stage.display_name}
        ]
    if errors:
        raise ValidationError(errors)
    stage.balance_by_rating, stage.seed_by_rating = balance_by_rating, seed_by_rating
    stage.save(update_fields=["balance_by_rating", "seed_by_rating"])
    return stage
