"""Reads of tournaments' state, and of players and their history."""

from dataclasses import asdict, dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments.models import Division, Player, PlayerChange, Staff, Stage, Tournament
from tournaments.presets import PRESETS, StageSettings
from tournaments.stagenames import say
from tournaments.text import folded

HISTORY_FIELDS = ("number", "name", "household", "club", "division", "status")

NOT_STARTED, IN_PLAY, FINISHED = "not_started", "in_play", "finished"


def players_matching(tournament: Tournament, typed: str, *, with_club: bool = False) -> list[int]:
    """The ids of the tournament's players whose name (and club, `with_club`) holds every word
    typed, ignoring case, accents and spacing ("pena" finds "Renée Peña"), by name. One rule for
    the desk's check-in, the public search and the API's ?search=. The names are a few thousand
    at most: compared here, each folded once, as no database the project runs on folds accents
    the same way (SQLite: ASCII only)."""
    words = list(dict.fromkeys(folded(typed).split()))
    if not words:
        return []
    found = []
    for pk, name, club in tournament.players.values_list("pk", "name", "club"):
        text = folded(f"{name} {club}" if with_club else name)
        if all(word in text for word in words):
            found.append((name.casefold(), pk))
    return [pk for _, pk in sorted(found)]


def listed_tournaments(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Tournament]:
    """The tournaments the home page and the API's list show `user`: every listed one; one
    hidden from the home page (listed false) to its staff and the admin as well; a practice one
    to nobody (its staff find it under My tournaments). Any of them answers at its address."""
    shown = Q(listed=True)
    if user.is_authenticated:
        shown |= Q(pk__in=Staff.objects.filter(user=user).values("tournament"))
        if user.is_superuser:
            shown = Q()
    return Tournament.objects.filter(shown, practice=False)


def tournament_status(tournament: Tournament) -> str:
    """Where a tournament stands, moved by its stages alone: "not_started" until a stage is
    seated, "finished" once a stage has decided the placings, "in_play" between."""
    if Stage.objects.final_of(tournament) is not None:
        return FINISHED
    if tournament.stages.exclude(status=Stage.Status.PENDING).exists():
        return IN_PLAY
    return NOT_STARTED


def entries_open(tournament: Tournament, now: datetime | None = None) -> bool:
    """Whether the tournament's entry form takes entries now, from its fields alone: opened
    (entries_open_at passed), not closed (entries_close_at not passed), and no stage seated.
    The public pages show their "Enter" link while it holds (entries/rules.py closed_reason says
    why not, in words, on the form itself)."""
    now = now or timezone.now()
    if tournament.entries_open_at is None or now < tournament.entries_open_at:
        return False
    if tournament.entries_close_at is not None and now >= tournament.entries_close_at:
        return False
    return tournament_status(tournament) == NOT_STARTED


@dataclass(frozen=True)
class Change:
    field: str
    old: str
    new: str


@dataclass(frozen=True)
class HistoryEntry:
    at: datetime
    by: str
    what: str
    changes: list[Change]


def _shown(field: str, value: object) -> str:
    if field == "status":
        return str(Player.Status(value).label)
    if field == "division":  # its id: its name now, or none
        return Division.objects.filter(pk=value).values_list("name", flat=True).first() or "—"
    return str(value)


def _what(record: object) -> str:
    reason = record.history_change_reason
    if reason in PlayerChange.values:
        return str(PlayerChange(reason).label)
    if record.history_type == "+":
        return _("Added")
    return _("Changed") if record.history_type == "~" else _("Deleted")


def player_history(player: Player) -> list[HistoryEntry]:
    """Every change to the player's entry, newest first: when, by whom, why, and each field's
    value before and after (one query)."""
    records = list(player.history.select_related("history_user").order_by("history_date", "pk"))
    labels = {name: Player._meta.get_field(name).verbose_name for name in HISTORY_FIELDS}
    entries = []
    for previous, record in zip([None, *records], records, strict=False):
        changes = []
        if previous is not None:
            delta = record.diff_against(previous, included_fields=HISTORY_FIELDS)
            changes = [
                Change(
                    str(labels[change.field]),
                    _shown(change.field, change.old),
                    _shown(change.field, change.new),
                )
                for change in sorted(delta.changes, key=lambda c: HISTORY_FIELDS.index(c.field))
            ]  # in the form's order (the library's is not fixed)
        user = record.history_user
        entries.append(
            HistoryEntry(
                record.history_date, user.get_username() if user else "", _what(record), changes
            )
        )
    return entries[::-1]


def presets_offered() -> list[dict]:
    """Each rule preset as the new-tournament page and the API show it, in the reader's language:
    its label, one-line description and rules document's title; the sets it deals for, and with
    each set the players a table may seat, the tiles dealt to each, and the stages it creates."""
    offered = []
    for preset in PRESETS.values():
        by_set = []
        for domino_set in preset.sets():
            low, high = preset.table_bounds(domino_set)
            stages = [_stage_offered(settings) for settings in preset.stages_for(domino_set)]
            by_set.append(
                {
                    "domino_set": domino_set,
                    "label": str(Tournament.DominoSet(domino_set).label),
                    "table_size_min": low,
                    "table_size_max": high,
                    "deal": [
                        {"players": players, "tiles": tiles}
                        for players, tiles in sorted(preset.deal(domino_set).items())
                    ],
                    "stages": stages,
                }
            )
        offered.append(
            {
                "key": preset.key,
                "label": str(Tournament.Preset(preset.key).label),
                "description": str(preset.description),
                "source": str(preset.source),
                "document": preset.document,
                "default_set": preset.default_set,
                "sets": list(preset.sets()),
                "by_set": by_set,
            }
        )
    return offered


def _stage_offered(settings: StageSettings) -> dict:
    """A stage a preset creates, its name said in the reader's language."""
    values = asdict(settings)
    return {"name": say(values.pop("name_key")), **values}


def flights_of(tournament: Tournament) -> QuerySet[Division]:
    """The tournament's flights in order, A first, with their players: a flight is a Division
    with `flight` set (tournaments.services.flights), so whatever names a division (a prize's
    scope, a placing) names a flight by the same id."""
    return tournament.divisions.filter(flight=True).prefetch_related("players").order_by("order")
