"""Players: added, changed, withdrawn and imported from CSV, every change in their history."""

import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from simple_history.utils import bulk_create_with_history

from tournaments.csvfiles import ImportRejected, columns_given, read_csv, whole_number
from tournaments.exceptions import PreviewOutdated, StateConflict
from tournaments.models import Division, Player, PlayerChange, Tournament
from tournaments.services.divisions import OLDEST, ages_said
from tournaments.services.stage_changes import check_not_finished
from tournaments.signals import player_changed, players_imported
from tournaments.text import check_printable, folded, hidden_character


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


# update_player's division when none is given: left as it is.
UNCHANGED = object()


def _check_division(tournament: Tournament, division: Division | None) -> None:
    if division is not None and division.tournament_id != tournament.pk:
        message = _("%(division)s is not a division of %(tournament)s.")
        raise ValidationError(
            {"division": [message % {"division": division.name, "tournament": tournament.name}]}
        )


@transaction.atomic
def create_player(
    *,
    tournament: Tournament,
    number: int,
    name: str,
    household: str = "",
    club: str = "",
    status: str = Player.Status.REGISTERED,
    division: Division | None = None,
    by: AbstractBaseUser | None = None,
) -> Player:
    check_printable(name=name, household=household, club=club)
    check_not_finished(tournament, change="player")
    _check_division(tournament, division)
    if Player.objects.filter(tournament=tournament, number=number).exists():
        raise _player_number_taken(tournament, number)
    player = Player(
        tournament=tournament,
        number=number,
        name=name.strip(),
        household=household.strip(),
        club=club.strip(),
        status=status,
        division=division,
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
    division: Division | object | None = UNCHANGED,
    by: AbstractBaseUser | None = None,
) -> Player:
    """Correct a player's number, name, household, club or division (a typo on the entry list);
    the pages that show them follow. Their status changes through check-in and withdrawal only.
    A division changes until the placings are decided (StateConflict after)."""
    check_printable(name=name, household=household, club=club)
    player = Player.objects.select_for_update().get(pk=player.pk)
    fields = {"number": number, "name": name.strip(), "household": household.strip(),
              "club": club.strip()}  # fmt: skip
    if division is not UNCHANGED and division != player.division:
        _check_division(player.tournament, division)
        check_not_finished(player.tournament, change="division")
        fields["division"] = division
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
            player.save(update_fields=list(fields))  # "division" saves division_id
    except IntegrityError:  # a concurrent request took the number first
        raise _player_number_taken(player.tournament, number) from None
    player_changed.send(sender=Player, player=player)
    return player


def player_deletion_refused(player: Player) -> str | None:
    """Why the player may not be deleted, or None: a player seated at a table or with a score
    is part of the play (withdraw them instead)."""
    if Player.objects.filter(pk=player.pk, seats__isnull=False).exists() or (
        Player.objects.filter(pk=player.pk, scores__isnull=False).exists()
    ):
        return _(
            "#%(number)s %(name)s has a seat or a score in %(tournament)s, so they cannot be "
            "deleted: withdraw them instead (Withdraw on the players list)."
        ) % {"number": player.number, "name": player.name, "tournament": player.tournament.name}
    return None


@transaction.atomic
def delete_player(*, player: Player, by: AbstractBaseUser | None = None) -> None:
    """Delete a player entered by mistake: one never seated and with no score (StateConflict
    otherwise, and nothing changes). Their history stays, its last entry saying who deleted
    them (the admin's History shows it); a club member they were linked to stays too."""
    player = Player.objects.select_for_update().select_related("tournament").get(pk=player.pk)
    if (refused := player_deletion_refused(player)) is not None:
        raise StateConflict(refused)
    record_change(player, by=by, reason=PlayerChange.DELETED)
    player.delete()


# ---- players CSV import -------------------------------------------------------------------------

IMPORT_COLUMNS = (
    "number", "name", "household", "club", "status", "division", "age", "birth_year",
    "member_number",
)  # fmt: skip
REQUIRED_COLUMNS = ("number", "name")
MAX_LENGTHS = {"name": 120, "household": 120, "club": 120, "member_number": 40}
TOO_LONG = {
    "name": gettext_lazy("the name is longer than %(limit)s characters"),
    "household": gettext_lazy("the household is longer than %(limit)s characters"),
    "club": gettext_lazy("the club is longer than %(limit)s characters"),
    "member_number": gettext_lazy("the member number is longer than %(limit)s characters"),
}


UNPRINTABLE = {
    "name": gettext_lazy("the name contains a character that does not print (%(code)s)"),
    "household": gettext_lazy("the household contains a character that does not print (%(code)s)"),
    "club": gettext_lazy("the club contains a character that does not print (%(code)s)"),
    "member_number": gettext_lazy(
        "the member number contains a character that does not print (%(code)s)"
    ),
}


def parse_players_csv(
    *, tournament: Tournament, content: bytes, existing: dict[int, Player] | None = None
) -> list[dict[str, Any]]:
    """Read a players CSV: valid rows, or ImportRejected listing every bad row by line number.

    Without `existing`, a number already in the tournament is a bad row. With it (the players
    by number, for an update), such a row is theirs: its status, empty, is None (kept), and a
    status other than theirs is a bad row (check-in and withdrawal have their own rules)."""
    # docs/API.md ("Players"): a header row naming at least number,name; the callers say which
    # columns were left.
    records = read_csv(
        content,
        columns=IMPORT_COLUMNS,
        required=REQUIRED_COLUMNS,
        what="players",
        ignore_unknown=True,
    )
    if existing is None:
        taken = set(Player.objects.filter(tournament=tournament).values_list("number", flat=True))
    else:
        taken = set()
    divisions = list(tournament.divisions.all())
    first_day = tournament.starts_on or timezone.localdate()
    seen: dict[int, int] = {}
    members_seen: dict[str, int] = {}  # a member number: the line it was first on
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
        if member_number := values["member_number"]:
            # One person, one entry: a club's member number links one player only.
            if (first := members_seen.get(member_number)) is not None:
                problems.append(
                    _("member number %(number)s is used twice (also on line %(line)s)")
                    % {"number": member_number, "line": first}
                )
            else:
                members_seen[member_number] = record.line
        for column, limit in MAX_LENGTHS.items():
            if len(values[column]) > limit:
                problems.append(str(TOO_LONG[column]) % {"limit": limit})
            code = hidden_character(values[column])
            if code is not None:
                problems.append(str(UNPRINTABLE[column]) % {"code": code})
        player = existing.get(number) if existing is not None and number else None
        status = values["status"].lower().replace(" ", "_")
        if status and status not in Player.Status.values:
            problems.append(
                _("the status %(status)s is unknown: use %(choices)s or leave it empty")
                % {"status": repr(values["status"]), "choices": ", ".join(Player.Status.values)}
            )
        elif player is not None and status and status != player.status:
            problems.append(
                _(
                    "number %(number)s is %(status)s and the file says %(said)s: a file changes "
                    "nobody's status, so leave the cell empty or as it is, and check the player "
                    "in or withdraw them on the players list"
                )
                % {"number": number, "status": player.status, "said": status}
            )
        # A player's own status is kept (None); a new row's is said, or registered.
        status = (status or Player.Status.REGISTERED) if player is None else None
        division = _row_division(values, divisions, first_day, problems)
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
                "division": division,
                "member_number": values["member_number"],
            }
        )
    if errors:
        raise ImportRejected(errors)
    return rows


def _row_division(
    values: dict[str, str], divisions: list[Division], first_day: date, problems: list[str]
) -> Division | None:
    """A row's division: named in `division` (capitals, accents and spaces aside), else the one
    whose ages hold the row's `age` or the age its `birth_year` reaches on the tournament's
    first day; None for neither. What is wrong goes into `problems`. The age is not kept."""
    name, age_text, year_text = values["division"], values["age"], values["birth_year"]
    if name:
        found = next((d for d in divisions if folded(d.name) == folded(name)), None)
        if found is None:
            if divisions:
                message = _("the division %(name)s is not one of this tournament's: %(names)s")
                names = ", ".join(d.name for d in divisions)
            else:
                message = _("the division %(name)s is not one of this tournament's: it has none")
                names = ""
            problems.append(message % {"name": repr(name), "names": names})
        return found
    age: int | None = None
    if age_text:
        age = whole_number(age_text)
        if age is None or age > OLDEST:
            problems.append(
                _("the age %(age)s is not a whole number from 0 to %(oldest)s")
                % {"age": repr(age_text), "oldest": OLDEST}
            )
            return None
    elif year_text:
        year = whole_number(year_text)
        if year is None or year > first_day.year:
            problems.append(
                _("the birth year %(year)s is not a year up to %(last)s")
                % {"year": repr(year_text), "last": first_day.year}
            )
            return None
        # The age reached in the year of the first day: with no birthday known, the age
        # categories of senior games count it so.
        age = first_day.year - year
        if age > OLDEST:
            problems.append(
                _("the birth year %(year)s makes an age over %(oldest)s")
                % {"year": repr(year_text), "oldest": OLDEST}
            )
            return None
    if age is None:
        return None
    ranged = [d for d in divisions if d.age_min is not None or d.age_max is not None]
    found = next((d for d in ranged if d.takes_age(age)), None)
    if found is None and ranged:
        problems.append(
            _("no division takes the age %(age)s: %(ranges)s")
            % {"age": age, "ranges": ", ".join(f"{d.name} ({ages_said(d)})" for d in ranged)}
        )
    return found


@transaction.atomic
def import_players(
    *,
    tournament: Tournament,
    content: bytes,
    by: AbstractBaseUser | None = None,
    notes: list[str] | None = None,
    unknown_numbers: list[str] | None = None,
) -> list[Player]:
    """Create every player of a CSV file, or none: ImportRejected lists every bad row.

    The rows' member numbers go out with players_imported (clubs links the players by them);
    what its receivers say (a number no member has) is added to `notes`, and a name that two
    players now share (same_names); the numbers they could not link to `unknown_numbers`."""
    check_not_finished(tournament, change="player")
    rows = parse_players_csv(tournament=tournament, content=content)
    players = _create_rows(tournament, rows, by=by, notes=notes, unknown_numbers=unknown_numbers)
    if notes is not None:
        notes.extend(same_names(tournament, players))
    return players


def _create_rows(
    tournament: Tournament,
    rows: list[dict[str, Any]],
    *,
    by: AbstractBaseUser | None,
    notes: list[str] | None,
    unknown_numbers: list[str] | None = None,
) -> list[Player]:
    """Create the parsed rows' players (in the caller's transaction), and link them by their
    member numbers (players_imported)."""
    member_numbers = [row.pop("member_number") for row in rows]
    try:
        with transaction.atomic():
            players = bulk_create_with_history(
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
    numbers = {
        player.pk: number for player, number in zip(players, member_numbers, strict=True) if number
    }
    if numbers:
        answers = players_imported.send(sender=Tournament, tournament=tournament, numbers=numbers,
                                        by=by)  # fmt: skip
        for _receiver, said in answers:
            if notes is not None:
                notes.extend(said.notes)
            if unknown_numbers is not None:
                unknown_numbers.extend(said.unknown_numbers)
    return players


# What an update from a file may change of a player it names by number: what update_player
# corrects. Their status changes through check-in and withdrawal, whose rules (a seat given up,
# a round missed) a file cannot follow: a status other than theirs is a bad line.
UPDATED_FIELDS = ("name", "household", "club", "division")
# The columns that say a row's division (parse_players_csv).
DIVISION_COLUMNS = ("division", "age", "birth_year")


@dataclass(frozen=True)
class FieldChange:
    """One field of one player that a file changes: its value before and after (a division by
    its name, None for none)."""

    number: int
    name: str  # the player's name before the change
    field: str
    old: str | None
    new: str | None


@dataclass
class PlayersUpdate:
    """What an update from a file did (in a dry run: would do)."""

    created: list[Player]  # unsaved in a dry run
    updated: list[Player]
    unchanged: int
    changes: list[FieldChange]

    @property
    def digest(self) -> str:
        """The plan in 64 characters: a preview's, to check that applying it does no other."""
        plan = (
            [[p.number, p.name, p.household, p.club, p.status, p.division_id]
             for p in self.created],
            [asdict(change) for change in self.changes],
            self.unchanged,
        )  # fmt: skip
        return hashlib.sha256(json.dumps(plan, default=str).encode()).hexdigest()


def _shown_value(field: str, value: Any) -> str | None:
    if field == "division":
        return value.name if value is not None else None
    return value


@transaction.atomic
def update_players_from_csv(
    *,
    tournament: Tournament,
    content: bytes,
    by: AbstractBaseUser | None = None,
    dry_run: bool = False,
    expected: str | None = None,
    notes: list[str] | None = None,
    unknown_numbers: list[str] | None = None,
) -> PlayersUpdate:
    """A corrected players file: the rows whose number is a player's update the fields of
    UPDATED_FIELDS that the header names (a missing column keeps its values; one entry in each
    changed player's history), the others are created as import_players does; nobody is
    removed. All rows or none: ImportRejected lists every bad row. A tournament whose placings
    are decided takes corrections of names, households and clubs only (StateConflict).

    `dry_run` changes nothing and says what the file would do. `expected`, a dry run's digest:
    PreviewOutdated if the players changed since (what is applied is what was previewed).
    Member numbers link the players created only (players_imported)."""
    if not dry_run:  # one import at a time, and no player changed under it
        Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
    players = Player.objects.filter(tournament=tournament)
    if not dry_run:
        players = players.select_for_update()
    existing = {player.number: player for player in players}
    divisions = {division.pk: division for division in tournament.divisions.all()}
    given = columns_given(content, columns=IMPORT_COLUMNS)
    fields = [field for field in UPDATED_FIELDS if field in given]
    if "division" not in fields and any(column in given for column in DIVISION_COLUMNS):
        fields.append("division")  # an age or a birth year says it
    rows = parse_players_csv(tournament=tournament, content=content, existing=existing)
    new_rows, updates, changes, unchanged = [], [], [], 0
    for row in rows:
        player = existing.get(row["number"])
        if player is None:
            new_rows.append(row)
            continue
        before = {"division": divisions.get(player.division_id)}
        changed = {}
        for field in fields:
            old = before[field] if field in before else getattr(player, field)
            if old != row[field]:
                changed[field] = row[field]
                changes.append(
                    FieldChange(player.number, player.name, field, _shown_value(field, old),
                                _shown_value(field, row[field]))
                )  # fmt: skip
        if changed:
            updates.append((player, changed))
        else:
            unchanged += 1
    if new_rows:
        check_not_finished(tournament, change="player")
    if any("division" in changed for _player, changed in updates):
        check_not_finished(tournament, change="division")
    plan = PlayersUpdate(
        created=[Player(tournament=tournament, **{k: v for k, v in row.items()
                                                   if k != "member_number"}) for row in new_rows],
        updated=[player for player, _changed in updates],
        unchanged=unchanged,
        changes=changes,
    )  # fmt: skip
    if expected is not None and plan.digest != expected:
        raise PreviewOutdated(
            _(
                "The players changed since the preview (someone added, corrected or checked in "
                "a player): nothing was changed. Check the new preview and apply it again."
            )
        )
    if dry_run:
        return plan
    for player, changed in updates:
        for field, value in changed.items():
            setattr(player, field, value)
        record_change(player, by=by, reason=PlayerChange.UPDATED)
        player.save(update_fields=list(changed))  # "division" saves division_id
        player_changed.send(sender=Player, player=player)
    plan.created = _create_rows(
        tournament, new_rows, by=by, notes=notes, unknown_numbers=unknown_numbers
    )
    if notes is not None:
        notes.extend(same_names(tournament, plan.created + plan.updated))
    return plan


def same_names(tournament: Tournament, players: list[Player]) -> list[str]:
    """A name the new `players` share with another player of the tournament (the file's own,
    or one there already): imported all the same (two people may share a name), but said, in
    case one person was registered twice."""
    names = {player.name.casefold() for player in players}
    by_name: dict[str, list[Player]] = {}
    for player in tournament.players.order_by("number"):
        if player.name.casefold() in names:
            by_name.setdefault(player.name.casefold(), []).append(player)
    return [
        _(
            "%(name)s is the name of %(count)s players (%(numbers)s): if they are one person, "
            "remove the extra one."
        )
        % {
            "name": same[0].name,
            "count": len(same),
            "numbers": ", ".join(f"#{player.number}" for player in same),
        }
        for same in by_name.values()
        if len(same) > 1
    ]


# ---- stages -------------------------------------------------------------------------------------
