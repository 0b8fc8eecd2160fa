"""Stages: added, changed and removed, and the one guard on a stage's state."""

from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Count, Max
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from tournaments.exceptions import StateConflict
from tournaments.models import Stage, Tournament
from tournaments.presets import get_preset
from tournaments.signals import reporting_changed, stages_changed
from tournaments.stagenames import in_every_language, in_site_language
from tournaments.text import unprintable_messages

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
    "decides_placings",
    "time_limit_minutes",
    "time_rule",
    "movement",
    "move_count",
    "reporting",
    "confirm_within_minutes",
)


def stage_name_key(name: str) -> str:
    """A stage's name as names are compared: capitals and spaces aside."""
    return " ".join(name.split()).casefold()


def names_read(name: str, name_key: str = "") -> set[str]:
    """What readers may call a stage of `name` and `name_key`: a name the product gave, in each
    of the site's languages; a typed name, as typed."""
    return {name, *in_every_language(name_key)} if name_key else {name}


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
        # A name the product gave is read in every language: none of them may be another's.
        wanted = {stage_name_key(n) for n in names_read(values["name"], values.get("name_key"))}
        others = tournament.stages.exclude(pk=stage.pk if stage else None)
        clash = next(
            (
                name
                for other in others.only("name", "name_key")
                for name in sorted(names_read(other.name, other.name_key))
                if stage_name_key(name) in wanted
            ),
            None,
        )
        if clash is not None:
            errors["name"] = [
                _("This tournament has a stage named %(name)s already: choose another name.")
                % {"name": clash}
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
    errors.update(_timing_and_movement_errors(tournament, values, stage))
    if errors:
        raise ValidationError(errors)


def _timing_and_movement_errors(
    tournament: Tournament, values: dict[str, Any], stage: Stage | None
) -> dict[str, list[str]]:
    """Only the last stage places everyone by total; a time limit is a minute or more; a game
    seated from the game before is a qualifying stage with one before it, and moves at most half
    of its smallest table each way."""
    errors: dict[str, list[str]] = {}
    later = stage is not None and tournament.stages.filter(order__gt=stage.order).exists()
    if values.get("decides_placings") and later:
        errors["decides_placings"] = [
            _(
                "Only the last stage can place everyone by total: a stage follows this one. "
                "Remove the later stages first."
            )
        ]
    limit = values.get("time_limit_minutes")
    if limit is not None and limit < 1:
        errors["time_limit_minutes"] = [
            _("A time limit is at least one minute: leave it empty for no time limit.")
        ]
    movement = values.get("movement") or ""
    if not movement:
        return errors
    earlier = tournament.stages.all()
    if stage is not None:
        earlier = earlier.filter(order__lt=stage.order)
    if values.get("kind", Stage.Kind.QUALIFYING) != Stage.Kind.QUALIFYING or not earlier.exists():
        errors["movement"] = [
            _(
                "Only a qualifying stage after another is seated from the game before: the "
                "first stage and playoff levels are seated as usual."
            )
        ]
    count, smallest = values.get("move_count") or 0, values["table_size_min"]
    if movement == Stage.Movement.MOVE and not 1 <= count <= smallest // 2:
        errors["move_count"] = [
            ngettext(
                "With tables of %(size)s, %(most)s player at most can move up and as many "
                "down (half a table each way).",
                "With tables of %(size)s, %(most)s players at most can move up and as many "
                "down (half a table each way).",
                smallest // 2,
            )
            % {"size": smallest, "most": smallest // 2}
            if count >= 1
            else _("At least one player moves up and one down from each table.")
        ]
    return errors


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
        "time_limit_minutes": like.time_limit_minutes,
        "time_rule": like.time_rule,
    }


def check_not_finished(tournament: Tournament, *, change: str = "stage") -> None:
    """StateConflict once a stage has decided the placings: no stage follows it, a player added
    then would play nothing, and a player withdrawn, reinstated or checked in then would change
    the ranking of a finished event without changing its placings (`change`: adding a "stage" or
    a "player", a player's "status", or a "division" or who is in one)."""
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
    elif change == "division":
        message = _(
            "%(stage)s has decided the placings: the tournament is over, so its divisions and "
            "who is in them stay as they are."
        )
    else:
        message = _(
            "%(stage)s has decided the placings: the tournament is over, so no stage follows."
        )
    raise StateConflict(message % {"stage": final.display_name})


@transaction.atomic
def create_stage(*, tournament: Tournament, name_key: str = "", **values: Any) -> Stage:
    """Add a stage last in order. Named by the product with a `name_key` (tournaments.stagenames:
    its `name` column then holds the name in the site's language), else by the `name` typed."""
    # Lock the tournament row so that two stages created together get different orders.
    Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
    check_not_finished(tournament)
    if (last := tournament.stages.filter(decides_placings=True).first()) is not None:
        raise StateConflict(
            _(
                "%(stage)s places everyone by total: it is the last stage, and no stage can "
                "follow it. Change its setting first to add a playoff after it."
            )
            % {"stage": last.display_name}
        )
    values = {key: value for key, value in values.items() if key in STAGE_FIELDS}
    if name_key:
        values["name"] = in_site_language(name_key)
    values.setdefault("advance_per_table", 1)
    validate_stage(tournament=tournament, values={**values, "name_key": name_key})
    order = (tournament.stages.aggregate(top=Max("order"))["top"] or 0) + 1
    stage = Stage.objects.create(
        tournament=tournament,
        order=order,
        domino_set=tournament.domino_set,
        name_key=name_key,
        **values,
    )
    stages_changed.send(sender=Stage, tournament=tournament)
    return stage


@transaction.atomic
def remove_stage(*, stage: Stage) -> None:
    """Remove the tournament's last stage while it is not seated (one added by mistake, or a
    level to be replaced): it has no tables, results or standings, and nothing follows it."""
    Tournament.objects.select_for_update().filter(pk=stage.tournament_id).first()
    stage = Stage.objects.select_for_update().get(pk=stage.pk)
    if stage.status != Stage.Status.PENDING:
        raise StateConflict(
            _("%(stage)s has been seated: only a stage not seated yet can be removed.")
            % {"stage": stage.display_name}
        )
    later = Stage.objects.filter(tournament_id=stage.tournament_id, order__gt=stage.order)
    if later.exists():
        raise StateConflict(
            _("Only the last stage can be removed: remove %(stages)s first.")
            % {"stages": ", ".join(s.display_name for s in later.order_by("-order"))}
        )
    waiting = Stage.objects.awaiting_next_level().filter(tournament_id=stage.tournament_id)
    waiting = next((w for w in waiting if Stage.objects.next_level_of(w) == stage), None)
    if waiting is not None:
        raise StateConflict(
            _(
                "%(stage)s is where the players who advance from %(closed)s are to be seated: "
                "change its table sizes instead, and they are seated there."
            )
            % {"stage": stage.display_name, "closed": waiting.display_name}
        )
    stage.delete()
    stages_changed.send(sender=Stage, tournament=stage.tournament)


# What can still change once the tables are seated, until the first result: a playoff's starting
# double and number of rounds are announced on the day (the Samboree rules, "Mexican Train", 9).
# A name typed over the product's also drops its kind of name (name_key), which goes with it.
DAY_OF_PLAY_FIELDS = ("name", "name_key", "rounds", "starting_double", "requires_second_person")
# Who enters the rounds changes at any moment until the close, results or not: an organiser hands
# a stage back to the officials the moment the players' phones go wrong.
ANY_TIME_FIELDS = ("reporting", "confirm_within_minutes")


def check_settings_open(stage: Stage, changed: dict[str, Any]) -> None:
    """StateConflict if the stage's settings `changed` (field: new value) can no longer change:
    none once it is closed or has a result; the day-of-play ones only once it is seated."""
    if stage.status == Stage.Status.CLOSED:
        raise StateConflict(closed_message(stage, "settings"))
    if stage.status != Stage.Status.SEATED:
        return
    changed = {key: value for key, value in changed.items() if key not in ANY_TIME_FIELDS}
    if not any(value != getattr(stage, key) for key, value in changed.items()):
        return
    started = stage.round_results.exists()
    fixed = sorted(
        key
        for key, value in changed.items()
        if key not in DAY_OF_PLAY_FIELDS and value != getattr(stage, key)
    )
    if started or fixed:
        message = (
            _("%(stage)s already has results: its settings can no longer change.")
            if started
            else _(
                "%(stage)s is seated: only its name, starting double, rounds and "
                "confirmation rule can change, and only before the first result."
            )
        ) % {"stage": stage.display_name}
        if fixed:
            message += " " + _("Not changed: %(fields)s.") % {"fields": ", ".join(fixed)}
        raise StateConflict(message)


@transaction.atomic
def update_stage(*, stage: Stage, changes: dict[str, Any]) -> Stage:
    """Change a stage's settings: any before it is seated; the day-of-play ones until it starts."""
    stage = lock_open_stage(stage.pk, change="settings", alone=True)
    changed = {key: value for key, value in changes.items() if key in STAGE_FIELDS}
    if stage.name_key and "name" in changed:
        if changed["name"] in names_read(stage.name, stage.name_key):
            del changed["name"]  # the product's name sent back, in whichever language: unchanged
        else:
            changed["name_key"] = ""  # typed over: from now on it stays as typed
    check_settings_open(stage, changed)
    values = {name: getattr(stage, name) for name in (*STAGE_FIELDS, "name_key")}
    before = dict(values)
    values.update(changed)
    validate_stage(tournament=stage.tournament, values=values, stage=stage)
    for key, value in values.items():
        setattr(stage, key, value)
    stage.save()
    if values != before:  # the form posts every setting: a save that changed none tells nobody
        stages_changed.send(sender=Stage, tournament=stage.tournament)
    if values["reporting"] != before["reporting"]:
        reporting_changed.send(sender=Stage, stage=stage)
    return stage


# ---- the one guard on a stage's state ----------------------------------------------------------

# What a closed stage refuses, one message for each kind of change.
CLOSED = {
    "results": gettext_lazy(
        "%(stage)s is closed: only an organiser can correct its results. Correcting one reopens "
        "the stage and undoes what its close did (the next stage's seats, the placings): ask an "
        "organiser."
    ),
    "decisions": gettext_lazy("%(stage)s is closed: its standings can no longer change."),
    "tables": gettext_lazy("%(stage)s is closed: its tables can no longer change."),
    "settings": gettext_lazy("%(stage)s is closed: its settings can no longer change."),
}


def closed_message(stage: Stage, change: str) -> str:
    """What a closed stage says to a `change` (a key of CLOSED), in the active language."""
    return CLOSED[change] % {"stage": stage.display_name}


def lock_stage(stage_id: int, *, alone: bool = False) -> Stage:
    """The stage read again, its row locked until the transaction ends.

    Every change of a stage's results or decisions (an entry, a correction, a confirmation, a
    tie-break decision) takes the lock shared (FOR SHARE: they never wait for each other); the
    close, the seating and the settings take it `alone` (FOR NO KEY UPDATE). So a close waits for
    a correction in flight and then reads it, and a correction waits for a close in flight and
    then finds the stage closed. Neither lock blocks the foreign-key checks of the standings'
    inserts (FOR KEY SHARE), which a rebuild makes while a confirmation waits for it. Take it
    before any result row's lock: one order, no deadlock. SQLite runs one writing transaction at
    a time, and locks nothing here."""
    stage = Stage.objects.filter(pk=stage_id)
    if alone:
        return stage.select_for_update(no_key=True, of=("self",)).get()
    if connection.vendor != "postgresql":
        return stage.get()
    sql, params = stage.query.sql_with_params()  # Django has no FOR SHARE
    (locked,) = Stage.objects.raw(f"{sql} FOR SHARE", params)
    return locked


def lock_open_stage(stage_id: int, *, change: str, alone: bool = False) -> Stage:
    """lock_stage, refused (StateConflict) when the stage is closed: the `change` (a key of
    CLOSED) can no longer be made."""
    stage = lock_stage(stage_id, alone=alone)
    if stage.status == Stage.Status.CLOSED:
        raise StateConflict(closed_message(stage, change))
    return stage


def later_results(stage: Stage) -> list[tuple[Stage, int]]:
    """The stages after `stage` that have results (entered, confirmed or not), each with how
    many, in order."""
    later = Stage.objects.filter(tournament_id=stage.tournament_id, order__gt=stage.order)
    counted = later.annotate(results=Count("round_results")).filter(results__gt=0)
    return [(later_stage, later_stage.results) for later_stage in counted.order_by("order")]


def _named(found: list[tuple[Stage, int]]) -> dict[str, Any]:
    return {
        "later": ", ".join(s.display_name for s, _n in found),
        "count": sum(n for _s, n in found),
        "first": found[0][0].display_name,
    }


def check_reopenable(stage: Stage, *, correction: bool = False) -> None:
    """StateConflict unless what the close of `stage` made can be undone: no later stage has a
    result (nothing a person entered is dropped to undo a step). A closed later stage has
    results, so `stage` is then the tournament's last closed stage. The caller holds the
    stage's lock `alone` and the later stages' (lock_later_stages)."""
    found = later_results(stage)
    if not found:
        return
    values = {"stage": stage.display_name, **_named(found)}
    if correction:
        message = ngettext(
            "%(stage)s is closed and %(later)s already has %(count)s result: correcting this "
            "round now cannot change who advanced, and nothing entered there is dropped to undo "
            "it. An organiser can let the result stand as an official decision, or reopen "
            "%(first)s first when it is closed and nothing after it has results.",
            "%(stage)s is closed and %(later)s already has %(count)s results: correcting this "
            "round now cannot change who advanced, and nothing entered there is dropped to undo "
            "it. An organiser can let the result stand as an official decision, or reopen "
            "%(first)s first when it is closed and nothing after it has results.",
            values["count"],
        )
    else:
        message = ngettext(
            "%(stage)s cannot be reopened: %(later)s already has %(count)s result, and nothing "
            "entered there is dropped to undo the close. Reopen %(first)s first when it is "
            "closed and nothing after it has results.",
            "%(stage)s cannot be reopened: %(later)s already has %(count)s results, and nothing "
            "entered there is dropped to undo the close. Reopen %(first)s first when it is "
            "closed and nothing after it has results.",
            values["count"],
        )
    raise StateConflict(message % values)


def lock_later_stages(stage: Stage) -> list[Stage]:
    """The stages after `stage`, their rows locked `alone` in order, so that no result is
    entered in them, nor they seated, while a reopen checks and undoes them."""
    later = Stage.objects.filter(tournament_id=stage.tournament_id, order__gt=stage.order)
    return list(later.order_by("order").select_for_update(no_key=True))


def check_unseatable(stage: Stage) -> None:
    """StateConflict unless `stage` is seated with no result: its seats can go, nothing entered
    goes with them."""
    if stage.status == Stage.Status.CLOSED:
        raise StateConflict(closed_message(stage, "tables"))
    if stage.status != Stage.Status.SEATED:
        raise StateConflict(
            _("%(stage)s is not seated: there are no seats to remove.")
            % {"stage": stage.display_name}
        )
    count = stage.round_results.count()
    if count:
        raise StateConflict(
            ngettext(
                "%(stage)s already has %(count)s result: its seats stay, so that nothing entered "
                "is dropped. To seat it again, reseat it (which asks before it discards the "
                "result).",
                "%(stage)s already has %(count)s results: its seats stay, so that nothing "
                "entered is dropped. To seat it again, reseat it (which asks before it discards "
                "the results).",
                count,
            )
            % {"stage": stage.display_name, "count": count}
        )
