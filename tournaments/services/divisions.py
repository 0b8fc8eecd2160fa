"""Divisions: a tournament's groups of players (age categories), added, changed, reordered and
removed while the placings are not decided; and the division an age falls in."""

from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tournaments.exceptions import StateConflict
from tournaments.models import Division, Stage, Tournament
from tournaments.services.stage_changes import check_not_finished
from tournaments.signals import tournament_changed
from tournaments.text import folded, unprintable_messages

DIVISION_FIELDS = ("name", "age_min", "age_max", "description", "entry_fee")
OLDEST = 130  # the oldest age a division's range or an import's age may name


def _span(division: Division) -> tuple[int, int] | None:
    """The ages a division takes, youngest and oldest; None for a division without a range."""
    if division.age_min is None and division.age_max is None:
        return None
    low = division.age_min if division.age_min is not None else 0
    return low, division.age_max if division.age_max is not None else OLDEST


def ages_said(division: Division) -> str:
    """A division's range as pages say it: "50-59", "80 and over", "up to 17", or ""."""
    low, high = division.age_min, division.age_max
    if low is None and high is None:
        return ""
    if high is None:
        return _("%(age)s and over") % {"age": low}
    if low is None:
        return _("up to %(age)s") % {"age": high}
    return f"{low}-{high}"


def _check(tournament: Tournament, division: Division) -> None:
    """ValidationError, by field, for a division's values as set on it."""
    errors: dict[str, list[str]] = {}
    division.name = " ".join(division.name.split())
    division.description = division.description.strip()
    if not division.name:
        errors["name"] = [_("A division needs a name.")]
    elif unprintable := unprintable_messages(division.name):
        errors["name"] = unprintable
    elif len(division.name) > 80:
        errors["name"] = [_("A division's name has at most 80 characters.")]
    if unprintable := unprintable_messages(division.description):
        errors["description"] = unprintable
    elif len(division.description) > 300:
        errors["description"] = [_("A division's description has at most 300 characters.")]
    for field in ("age_min", "age_max"):
        age = getattr(division, field)
        if age is not None and not (isinstance(age, int) and 0 <= age <= OLDEST):
            errors[field] = [
                _("An age is a whole number from 0 to %(oldest)s.") % {"oldest": OLDEST}
            ]
    if division.entry_fee is not None and division.entry_fee < 0:
        errors["entry_fee"] = [_("An entry fee is 0 or more (empty: the tournament's fee).")]
    if errors:
        raise ValidationError(errors)
    if (
        division.age_min is not None
        and division.age_max is not None
        and division.age_max < division.age_min
    ):
        raise ValidationError(
            {"age_max": [_("The oldest age cannot be younger than the youngest.")]}
        )
    others = list(tournament.divisions.exclude(pk=division.pk))
    same = next((o for o in others if folded(o.name) == folded(division.name)), None)
    if same is not None:
        message = _("This tournament has a division named %(name)s already: choose another name.")
        raise ValidationError({"name": [message % {"name": same.name}]})
    span = _span(division)
    for other in others:
        theirs = _span(other)
        if span and theirs and span[0] <= theirs[1] and theirs[0] <= span[1]:
            # An import's age must find one division: two that both take it cannot be told apart.
            message = _(
                "The ages of %(name)s (%(ages)s) overlap those of %(other)s (%(other_ages)s): "
                "an age must belong to one division only."
            )
            # Said beside the end that falls within the other's range (the one to change).
            inside = division.age_max is not None and theirs[0] <= division.age_max <= theirs[1]
            field = "age_max" if inside or division.age_min is None else "age_min"
            raise ValidationError(
                {
                    field: [
                        message
                        % {
                            "name": division.name,
                            "ages": ages_said(division),
                            "other": other.name,
                            "other_ages": ages_said(other),
                        }
                    ]
                }
            )


def _check_open(tournament: Tournament) -> None:
    check_not_finished(tournament, change="division")


def check_no_flights(tournament: Tournament) -> None:
    """StateConflict for a division added to a tournament that plays in flights: a player is in
    one group only (services.flights refuses a split while it has divisions)."""
    if tournament.divisions.filter(flight=True).exists():
        raise StateConflict(
            _(
                "This tournament plays in flights, and a player is in one group only: remove "
                "the flights first to play in divisions."
            )
        )


def _saved(division: Division, **kwargs: Any) -> Division:
    try:
        with transaction.atomic():
            division.save(**kwargs)
    except IntegrityError:  # a concurrent request took the name first
        message = _("This tournament has a division named %(name)s already: choose another name.")
        raise ValidationError({"name": [message % {"name": division.name}]}) from None
    return division


@transaction.atomic
def create_division(
    *,
    tournament: Tournament,
    name: str,
    age_min: int | None = None,
    age_max: int | None = None,
    description: str = "",
    entry_fee: Decimal | None = None,
) -> Division:
    """Add a division, last in order; refused once the placings are decided (StateConflict).
    `entry_fee`: what its entries owe instead of the tournament's fee (None: the tournament's)."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)  # one at a time
    _check_open(tournament)
    check_no_flights(tournament)
    division = Division(
        tournament=tournament,
        name=name,
        age_min=age_min,
        age_max=age_max,
        description=description or "",
        entry_fee=entry_fee,
    )
    _check(tournament, division)
    last = tournament.divisions.aggregate(last=Max("order"))["last"] or 0
    division.order = last + 1
    _saved(division, force_insert=True)
    tournament_changed.send(sender=Tournament, tournament=tournament)
    return division


@transaction.atomic
def update_division(*, division: Division, changes: dict[str, Any]) -> Division:
    """Change a division's name, ages, description or entry fee (`changes` holds those given;
    the entries made already keep the fee they owe)."""
    unknown = set(changes) - set(DIVISION_FIELDS)
    if unknown:
        raise TypeError(f"not a division field: {sorted(unknown)}")
    tournament = Tournament.objects.select_for_update().get(pk=division.tournament_id)
    division = Division.objects.get(pk=division.pk)
    _check_open(tournament)
    name = division.name
    for field, value in changes.items():
        setattr(division, field, "" if field == "description" and value is None else value)
    _check(tournament, division)
    _saved(division)
    if division.name != name:  # the standings' division switch names it (its ages: no page)
        tournament_changed.send(sender=Tournament, tournament=tournament)
    return division


@transaction.atomic
def remove_division(*, division: Division) -> None:
    """Remove a division no player is in: StateConflict (409) says how many are, otherwise."""
    tournament = Tournament.objects.select_for_update().get(pk=division.tournament_id)
    _check_open(tournament)
    count = division.players.count()
    if count:
        message = ngettext(
            "%(count)s player is in %(name)s. Move them to another division or to none first.",
            "%(count)s players are in %(name)s. Move them to another division or to none first.",
            count,
        )
        raise StateConflict(message % {"count": count, "name": division.name})
    division.delete()
    tournament_changed.send(sender=Tournament, tournament=tournament)


@transaction.atomic
def move_division(*, division: Division, up: bool) -> Division:
    """Swap a division with the one before it (`up`) or after it, in the order pages list them."""
    tournament = Tournament.objects.select_for_update().get(pk=division.tournament_id)
    _check_open(tournament)
    ordered = list(tournament.divisions.order_by("order", "name"))
    index = next(i for i, d in enumerate(ordered) if d.pk == division.pk)
    other = index - 1 if up else index + 1
    if 0 <= other < len(ordered):
        ordered[index], ordered[other] = ordered[other], ordered[index]
    moved = False
    for order, each in enumerate(ordered, start=1):
        if each.order != order:
            each.order, moved = order, True
            each.save(update_fields=["order"])
    if moved:
        tournament_changed.send(sender=Tournament, tournament=tournament)
    return next(d for d in ordered if d.pk == division.pk)


def division_for_age(tournament: Tournament, age: int) -> Division | None:
    """The tournament's division whose range holds `age`, else None."""
    return next((d for d in tournament.divisions.all() if d.takes_age(age)), None)


def division_named(tournament: Tournament, name: str) -> Division | None:
    """The tournament's division of that name, capitals, accents and spaces aside; else None."""
    wanted = folded(name)
    return next((d for d in tournament.divisions.all() if folded(d.name) == wanted), None)


def division_names(tournament: Tournament) -> str:
    """The tournament's divisions for a message: "50-59, 60-69", or that it has none."""
    names = [d.name for d in tournament.divisions.all()]
    return ", ".join(names) if names else _("(it has no divisions)")


@transaction.atomic
def check_division_playoffs_open(tournament: Tournament) -> None:
    """Whether the divisions share the playoffs is chosen before play: StateConflict once a stage
    is seated (the console, the API and the admin say so alike)."""
    if tournament.stages.exclude(status=Stage.Status.PENDING).exists():
        raise StateConflict(
            _("A stage is seated: whether the divisions share the playoffs can no longer change.")
        )


def set_division_playoffs(*, tournament: Tournament, division_playoffs: str) -> Tournament:
    """Choose whether divisions share the playoffs or play their own; refused (StateConflict)
    once a stage is seated, as the playoffs are then under way."""
    if division_playoffs not in Tournament.DivisionPlayoffs.values:
        raise ValidationError({"division_playoffs": [_("Choose one of the offered options.")]})
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.division_playoffs == division_playoffs:
        return tournament
    check_division_playoffs_open(tournament)
    tournament.division_playoffs = division_playoffs
    tournament.save(update_fields=["division_playoffs"])
    return tournament
