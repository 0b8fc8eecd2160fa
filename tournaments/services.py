"""Every state change of tournaments, staff, players and stages."""

from datetime import date
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from simple_history.utils import bulk_create_with_history

from tournaments.csvfiles import ImportRejected, read_csv, whole_number
from tournaments.models import Player, PlayerChange, Staff, StaffEvent, Stage, Tournament
from tournaments.presets import PRESETS, get_preset
from tournaments.signals import player_changed
from tournaments.text import hidden_character

STAGE_FIELDS = (
    "name",
    "kind",
    "rounds",
    "starting_double",
    "table_size_min",
    "table_size_max",
    "advance_per_table",
    "wildcards",
    "requires_second_person",
    "late_entry_rule",
    "carry_forward",
)


class StateConflict(Exception):
    """The request is valid but the current state forbids it; the message says what to do."""


@transaction.atomic
def create_tournament(
    *,
    name: str,
    slug: str,
    domino_set: int,
    preset: str,
    by: AbstractBaseUser,
    with_stages: bool = False,
    **details: Any,
) -> Tournament:
    """Create a tournament; its creator becomes its organiser. `details`: starts_on, ends_on,
    venue, description, time_zone (update_details checks them alike)."""
    check_printable(name=name)
    chosen = PRESETS.get(preset)
    if chosen is not None and domino_set not in chosen.deals:
        sets = ", ".join(str(Tournament.DominoSet(n).label) for n in chosen.sets())
        message = _("The %(preset)s preset deals only with %(sets)s, not double-%(set)s.")
        raise ValidationError(
            {"domino_set": [message % {"preset": chosen.key, "sets": sets, "set": domino_set}]}
        )
    try:
        get_preset(preset).deal(domino_set)
    except ValueError as error:
        raise ValidationError({"domino_set": [str(error)]}) from None
    if Tournament.objects.filter(slug=slug).exists():
        message = _("The address %(slug)s is taken: choose another.") % {"slug": repr(slug)}
        raise ValidationError({"slug": [message]})
    tournament = Tournament(name=name, slug=slug, domino_set=domino_set, preset=preset)
    _set_details(tournament, details)
    tournament.save()
    Staff.objects.create(
        tournament=tournament,
        user=by,
        role=Staff.Role.ORGANISER,
        joined_via=Staff.Joined.CREATED,
    )
    StaffEvent.objects.create(
        tournament=tournament,
        action=StaffEvent.Action.CREATED,
        actor=by,
        actor_name=by.get_username(),
        subject_name=by.get_username(),
        role=Staff.Role.ORGANISER,
    )
    if with_stages:
        for template in get_preset(preset).stages:
            create_stage(
                tournament=tournament,
                name=str(template.name),
                kind=template.kind,
                rounds=template.rounds,
                starting_double=min(template.starting_double, domino_set),
                table_size_min=template.table_size_min,
                table_size_max=template.table_size_max,
            )
    return tournament


DETAIL_FIELDS = ("starts_on", "ends_on", "venue", "description", "time_zone")


def check_days(starts_on: date | None, ends_on: date | None) -> None:
    """The last day is not before the first (said on the last day's field)."""
    if starts_on and ends_on and ends_on < starts_on:
        raise ValidationError({"ends_on": [_("The last day is before the first day.")]})


def _set_details(tournament: Tournament, details: dict[str, Any]) -> None:
    """Set a tournament's dates, venue, description and time zone, checked as the model checks
    them (a day range the right way round, a known zone, printable text)."""
    unknown = set(details) - set(DETAIL_FIELDS)
    if unknown:
        raise TypeError(f"not a tournament detail: {sorted(unknown)}")
    for field, value in details.items():
        setattr(tournament, field, value)
    check_printable(venue=tournament.venue)
    check_days(tournament.starts_on, tournament.ends_on)
    tournament.full_clean(  # the fields' own checks: a known zone, lengths
        exclude=[f.name for f in Tournament._meta.fields if f.name not in DETAIL_FIELDS],
        validate_unique=False,
        validate_constraints=False,  # the one on the days is said above, on its field
    )


@transaction.atomic
def update_details(*, tournament: Tournament, by: AbstractBaseUser, **details: Any) -> Tournament:
    """Change a tournament's dates, venue, description or time zone (name and set stay)."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    _set_details(tournament, details)
    tournament.save(update_fields=list(details) or None)
    return tournament


def check_printable(**fields: str) -> None:
    """ValidationError for each field holding a character that does not print (an invisible
    space, a control character, a right-to-left override): pages, cards and exports would show
    it as nothing, or back to front."""
    found = {field: unprintable_messages(text) for field, text in fields.items()}
    errors = {field: messages for field, messages in found.items() if messages}
    if errors:
        raise ValidationError(errors)


def unprintable_messages(text: str) -> list[str]:
    code = hidden_character(text)
    if code is None:
        return []
    message = _("This contains a character that does not print (%(code)s): type it again.")
    return [message % {"code": code}]


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


def stage_name_key(name: str) -> str:
    """A stage's name as names are compared: capitals and spaces aside."""
    return " ".join(name.split()).casefold()


def validate_stage(
    *, tournament: Tournament, values: dict[str, Any], stage: Stage | None = None
) -> None:
    """Check a stage's settings against the tournament's set and preset, and its name against
    the tournament's other stages (`stage` is the one changed, if any); ValidationError if not."""
    errors: dict[str, list[str]] = {}
    if "name" in values and (unprintable := unprintable_messages(values["name"])):
        errors["name"] = unprintable
    elif "name" in values and (
        stage is None or stage_name_key(values["name"]) != stage_name_key(stage.name)
    ):
        # Scores files and pages name stages: two of one name would be told apart by nothing.
        # The same form sent twice (a double tap on Add stage) makes no second stage either.
        # Checked when the name is given or changed: an unchanged one blocks no other change.
        same = stage_name_key(values["name"])
        others = tournament.stages.exclude(pk=stage.pk if stage else None)
        taken = next((o for o in others.only("name") if stage_name_key(o.name) == same), None)
        if taken is not None:
            errors["name"] = [
                _("This tournament has a stage named %(name)s already: choose another name.")
                % {"name": taken.name}
            ]
    domino_set = tournament.domino_set
    preset = get_preset(tournament.preset)
    starting_double = values["starting_double"]
    rounds = values["rounds"]
    if starting_double > domino_set:
        errors["starting_double"] = [
            _("A double-%(set)s set has no double-%(double)s: choose %(set)s or lower.")
            % {"set": domino_set, "double": starting_double}
        ]
    if rounds < 1:
        errors["rounds"] = [_("A stage has at least one round.")]
    elif starting_double <= domino_set and rounds > starting_double + 1:
        errors["rounds"] = [
            _(
                "Starting from double-%(double)s, at most %(rounds)s rounds can be played "
                "(down to double-blank)."
            )
            % {"double": starting_double, "rounds": starting_double + 1}
        ]
    low, high = preset.table_bounds(domino_set)
    size_min, size_max = values["table_size_min"], values["table_size_max"]
    if size_min < low:
        errors["table_size_min"] = [
            _("The %(preset)s preset deals for at least %(low)s players at a table.")
            % {"preset": preset.key, "low": low}
        ]
    if size_max > high:
        errors["table_size_max"] = [
            _(
                "The %(preset)s preset with a double-%(set)s set deals for at most %(high)s "
                "players at a table."
            )
            % {"preset": preset.key, "set": domino_set, "high": high}
        ]
    if size_min > size_max:
        errors.setdefault("table_size_max", []).append(
            _("The largest table size cannot be smaller than the smallest.")
        )
    advance = values.get("advance_per_table", 1)
    if advance < 1:
        errors["advance_per_table"] = [_("At least one player advances from each table.")]
    elif advance >= size_min and values.get("kind") == Stage.Kind.QUALIFYING:
        errors["advance_per_table"] = [
            ngettext(
                "With tables of %(size)s, at most %(count)s player per table can advance.",
                "With tables of %(size)s, at most %(count)s players per table can advance.",
                size_min - 1,
            )
            % {"size": size_min, "count": size_min - 1}
        ]
    if errors:
        raise ValidationError(errors)


def further_level(like: Stage) -> dict[str, Any]:
    """The settings of a further playoff level made like the stage `like` (the last playoff
    level, else the stage it follows): its rounds, starting double, tables and confirmation rule;
    one advancing per table unless `like` is a playoff level; no wildcards, nothing carried."""
    return {
        "kind": Stage.Kind.PLAYOFF,
        "rounds": like.rounds,
        "starting_double": like.starting_double,
        "table_size_min": like.table_size_min,
        "table_size_max": like.table_size_max,
        "advance_per_table": like.advance_per_table if like.kind == Stage.Kind.PLAYOFF else 1,
        "wildcards": 0,
        "requires_second_person": like.requires_second_person,
        "late_entry_rule": Stage.LateEntryRule.TABLE_HIGH,
        "carry_forward": False,
    }


def check_not_finished(tournament: Tournament, *, change: str = "stage") -> None:
    """StateConflict once a stage has decided the placings: no stage follows it, a player added
    then would play nothing, and a player withdrawn, reinstated or checked in then would change
    the ranking of a finished event without changing its placings (`change`: adding a "stage" or
    a "player", or a player's "status")."""
    if (final := Stage.objects.final_of(tournament)) is None:
        return
    if change == "player":
        message = _(
            "%(stage)s has decided the placings: the tournament is over, so no player can "
            "be added. A player's entry can still be corrected."
        )
    elif change == "status":
        message = _(
            "%(stage)s has decided the placings: the tournament is over, so no player can "
            "withdraw, rejoin or check in. A player's entry can still be corrected."
        )
    else:
        message = _(
            "%(stage)s has decided the placings: the tournament is over, so no stage follows."
        )
    raise StateConflict(message % {"stage": final.name})


@transaction.atomic
def create_stage(*, tournament: Tournament, **values: Any) -> Stage:
    # Lock the tournament row so that two stages created together get different orders.
    Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
    check_not_finished(tournament)
    values = {key: value for key, value in values.items() if key in STAGE_FIELDS}
    values.setdefault("advance_per_table", 1)
    validate_stage(tournament=tournament, values=values)
    order = (tournament.stages.aggregate(top=Max("order"))["top"] or 0) + 1
    return Stage.objects.create(
        tournament=tournament, order=order, domino_set=tournament.domino_set, **values
    )


@transaction.atomic
def remove_stage(*, stage: Stage) -> None:
    """Remove the tournament's last stage while it is not seated (one added by mistake, or a
    level to be replaced): it has no tables, results or standings, and nothing follows it."""
    Tournament.objects.select_for_update().filter(pk=stage.tournament_id).first()
    stage = Stage.objects.select_for_update().get(pk=stage.pk)
    if stage.status != Stage.Status.PENDING:
        raise StateConflict(
            _("%(stage)s has been seated: only a stage not seated yet can be removed.")
            % {"stage": stage.name}
        )
    later = Stage.objects.filter(tournament_id=stage.tournament_id, order__gt=stage.order)
    if later.exists():
        raise StateConflict(
            _("Only the last stage can be removed: remove %(stages)s first.")
            % {"stages": ", ".join(later.order_by("-order").values_list("name", flat=True))}
        )
    waiting = Stage.objects.awaiting_next_level().filter(tournament_id=stage.tournament_id)
    waiting = next((w for w in waiting if Stage.objects.next_level_of(w) == stage), None)
    if waiting is not None:
        raise StateConflict(
            _(
                "%(stage)s is where the advancers of %(closed)s are to be seated: change its "
                "table sizes instead, and they are seated there."
            )
            % {"stage": stage.name, "closed": waiting.name}
        )
    stage.delete()


# What can still change once the tables are seated, until the first result: a playoff's starting
# double and number of rounds are announced on the day (seed 002).
DAY_OF_PLAY_FIELDS = ("name", "rounds", "starting_double", "requires_second_person")


@transaction.atomic
def update_stage(*, stage: Stage, changes: dict[str, Any]) -> Stage:
    """Change a stage's settings: any before it is seated; the day-of-play ones until it starts."""
    stage = Stage.objects.select_for_update().get(pk=stage.pk)
    changed = {key: value for key, value in changes.items() if key in STAGE_FIELDS}
    if stage.status == Stage.Status.CLOSED:
        raise StateConflict(
            _("%(stage)s is closed: its settings can no longer change.") % {"stage": stage.name}
        )
    if stage.status == Stage.Status.SEATED:
        started = stage.round_results.exists()
        fixed = sorted(
            key
            for key, value in changed.items()
            if key not in DAY_OF_PLAY_FIELDS and value != getattr(stage, key)
        )
        if started or fixed:
            message = (
                _(
                    "%(stage)s is seated and has results: only its name, starting double, rounds "
                    "and confirmation rule can change, and only before the first result."
                )
                if started
                else _(
                    "%(stage)s is seated: only its name, starting double, rounds and "
                    "confirmation rule can change, and only before the first result."
                )
            ) % {"stage": stage.name}
            if fixed:
                message += " " + _("Not changed: %(fields)s.") % {"fields": ", ".join(fixed)}
            raise StateConflict(message)
    values = {name: getattr(stage, name) for name in STAGE_FIELDS}
    values.update(changed)
    validate_stage(tournament=stage.tournament, values=values, stage=stage)
    for key, value in values.items():
        setattr(stage, key, value)
    stage.save()
    return stage
