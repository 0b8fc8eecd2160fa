"""A season's ladder in the database: its rule and events read from the season, the members'
places, rounds and pips read from the season's decided tournaments, ranked by clubs.ladder and
stored as LadderRows; and the season saved by its organisers, with its events.

An event counts once its placings are decided (scoring.services.closing.decide_placings, which sends
scoring.signals.placings_decided): a member plays in it through a player linked to them
(PlayerLink); unlinked players are nobody's. A worker rebuilds the ladder (clubs.tasks.
rebuild_ladder) when an event's placings are decided, when the season's rule or events change,
and when a player of a decided event is linked or unlinked."""

import itertools
import logging
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs import ladder, locks
from clubs.models import Club, ClubTournament, LadderRow, Member, PlayerLink, Season
from config import redis_keys, task_names
from scoring import queue
from scoring.models import Placing, RoundResult, Score
from tournaments.models import Player, Stage, Tournament
from tournaments.text import free_slug

logger = logging.getLogger(__name__)

# A burst of changes (a players' import links many) sends one rebuild: a second send while one is
# queued and not started is dropped (the queued one reads them all).
PENDING_SECONDS = 60
# Addresses of the organisers' pages beside a season's (clubs/urls.py: seasons/new/).
RESERVED_SLUGS = {"new"}


def season_events(season: Season) -> list[Tournament]:
    """The season's tournaments in playing order (first day, then when they were created)."""
    return list(
        Tournament.objects.filter(club_ownership__season=season).order_by(
            F("starts_on").asc(nulls_last=True), "created_at", "pk"
        )
    )


def season_rule(season: Season, events: Iterable[Tournament] | None = None) -> ladder.Rule:
    events = season_events(season) if events is None else events
    return ladder.Rule(
        kind=season.rule,
        events=tuple(t.pk for t in events),
        points_table=tuple(season.points_table or ()),
        best_n=season.best_n,
        min_rounds=season.min_rounds,
        places=season.places,
    )


def _decided_places(events: list[Tournament]) -> dict[int, dict[int, int]]:
    """Of the events whose placings are decided (by their final: scoring.results), each player's
    place, by tournament and player."""
    places: dict[int, dict[int, int]] = {}
    rows = Placing.objects.filter(tournament__in=events).values_list(
        "tournament_id", "stage_id", "player_id", "place"
    )
    by_event: dict[int, list[tuple[int, int, int]]] = {}
    for tournament_id, stage_id, player_id, place in rows:
        by_event.setdefault(tournament_id, []).append((stage_id, player_id, place))
    for tournament in events:
        placed = by_event.get(tournament.pk)
        if not placed:
            continue
        # Placings of an earlier final (the event went on after it) are not its results.
        final = Stage.objects.final_of(tournament)
        if final is not None and any(stage_id == final.pk for stage_id, _p, _pl in placed):
            places[tournament.pk] = {player_id: place for _s, player_id, place in placed}
    return places


def season_entrants(events: list[Tournament]) -> list[ladder.Entrant]:
    """Every member who played a decided event of the season (a linked player placed, or with
    confirmed rounds there), with their place, rounds and pips in each. Bounded: a few queries
    whatever the number of events and players."""
    places = _decided_places(events)
    if not places:
        return []
    links = dict(
        PlayerLink.objects.filter(player__tournament_id__in=places).values_list(
            "player_id", "member_id"
        )
    )
    players = dict(Player.objects.filter(pk__in=links).values_list("pk", "tournament_id"))
    figures = {
        row["player_id"]: (row["rounds"], row["pips"] or 0)
        for row in Score.objects.filter(
            player_id__in=links, result__status=RoundResult.Status.CONFIRMED
        )
        .values("player_id")
        .annotate(rounds=Count("pk"), pips=Sum("pips"))
    }
    played: dict[int, list[ladder.Played]] = {}
    for player_id, member_id in links.items():
        tournament_id = players[player_id]
        place = places[tournament_id].get(player_id)
        rounds, pips = figures.get(player_id, (0, 0))
        if place is None and not rounds:
            continue  # entered, never played
        played.setdefault(member_id, []).append(
            ladder.Played(event_id=tournament_id, place=place, rounds=rounds, pips=pips)
        )
    # An erased member is listed under the anonymised name they keep (services.erase_member).
    names = dict(Member.objects.filter(pk__in=played).values_list("pk", "name"))
    return [
        ladder.Entrant(member_id=member_id, name=names[member_id], played=tuple(events_played))
        for member_id, events_played in played.items()
    ]


@transaction.atomic
def build_ladder(*, season: Season) -> list[LadderRow]:
    """Rank the season's members and replace its ladder, in one transaction; recomputed, never
    incremented, so safe to run twice. Refused (ValidationError, by field: clubs.ladder.
    check_rule) when the rule cannot be built by; the stored ladder is then left as it was."""
    season = locks.lock_season(season.pk)  # one build at a time; no FOR UPDATE: clubs/locks.py
    events = season_events(season)
    rule = season_rule(season, events)
    lines = ladder.rank(season_entrants(events), rule)
    LadderRow.objects.filter(season=season).delete()
    rows = LadderRow.objects.bulk_create(
        LadderRow(
            season=season,
            member_id=line.member_id,
            place=line.place,
            shared=line.shared,
            value=line.value_decimal,
            events=line.events,
            counted=list(line.counted),
            rounds=line.rounds,
            pips=line.pips,
            tie_notes=line.notes,
        )
        for line in lines
    )
    season.ladder_built_at = timezone.now()
    season.save(update_fields=["ladder_built_at"])
    return rows


@transaction.atomic
def clear_ladder(*, season: Season) -> None:
    """No ladder: the season has nothing it can rank by now."""
    locks.lock_season(season.pk)  # before its rows, as build_ladder does
    LadderRow.objects.filter(season=season).delete()
    Season.objects.filter(pk=season.pk).update(ladder_built_at=None)


def ladder_problem(season: Season) -> str:
    """Why the season's ladder cannot be built now ("" when it can): for its organisers' page."""
    try:
        ladder.check_rule(season_rule(season))
    except ValidationError as problem:
        return " ".join(problem.messages)
    return ""


# ---- asking the worker ---------------------------------------------------------------------------


def pending_key(season_id: int) -> str:
    return redis_keys.ladder_pending(season_id)


def request_ladder(*, season_id: int) -> None:
    """Rebuild the season's ladder once this transaction commits (at once outside one). Never
    fails the caller: a broker that is down loses the rebuild, and the next change does it."""
    transaction.on_commit(lambda: send_ladder(season_id))


def send_ladder(season_id: int) -> None:
    """One rebuild for a burst of changes of the season."""
    queue.send_once(
        pending_key(season_id), task_names.REBUILD_LADDER, pending=PENDING_SECONDS, countdown=0.5,
        season_id=season_id,
    )  # fmt: skip


def request_ladders_of(*, tournament_id: int, decided_only: bool = False) -> None:
    """Rebuild the ladder of the season counting the tournament, if any (with decided_only, only
    once its placings are decided: before, the change cannot show on the ladder)."""
    if decided_only and not Placing.objects.filter(tournament_id=tournament_id).exists():
        return
    seasons = ClubTournament.objects.filter(
        tournament_id=tournament_id, season__isnull=False
    ).values_list("season_id", flat=True)
    for season_id in seasons:
        request_ladder(season_id=season_id)


# ---- a season, as its organisers set it ----------------------------------------------------------


def _rising_place(points_table: tuple[int, ...]) -> str:
    """What is wrong with a points table where a place scores more than the place above it ("" when
    nothing is). Checked when a season is saved, not when its ladder is built: a season saved
    before the check still builds as it was set."""
    for place, (above, points) in enumerate(itertools.pairwise(points_table), start=2):
        if points > above:
            return _(
                "A place cannot score more than the place above it: place %(place)s has "
                "%(points)s points, place %(above_place)s %(above)s."
            ) % {"place": place, "points": points, "above_place": place - 1, "above": above}
    return ""


@transaction.atomic
def save_season(
    *,
    club: Club,
    season: Season | None = None,
    name: str,
    slug: str = "",
    rule: str,
    points_table: list[int],
    best_n: int | None,
    min_rounds: int,
    events: list[int],
    places: str = Season.Places.MEMBERS,
) -> Season:
    """Create a season (season None) or change one: its rule and the club's tournaments it counts
    (tournament ids; each counted by one season at most). Refused (ValidationError, by field),
    with nothing saved, for an empty name, a web address another season of the club has, a
    tournament that is not the club's or another season's, a points table where a place scores
    more than the place above it, and a rule the ladder cannot be built by (clubs.ladder.
    check_rule: no events, best N above them). Then the ladder is rebuilt by a worker."""
    errors: dict[str, list[str]] = {}
    name = name.strip()
    if not name:
        errors["name"] = [_("Give the season a name.")]
    # The season first, then the tournaments it counts and those chosen: clubs/locks.py's order.
    if season is not None:
        season = locks.lock_season(season.pk)
    owned = locks.lock_club_tournaments(club, events, season)
    free = {
        own.tournament_id
        for own in owned
        if own.season_id is None or (season is not None and own.season_id == season.pk)
    }
    if set(events) - free:
        errors["events"] = [_("Choose among the club's tournaments that no other season counts.")]
    ordered = tuple(t for t in events if t in free)
    rule_data = ladder.Rule(
        kind=rule,
        events=ordered,
        points_table=tuple(points_table) if rule != ladder.AVERAGE else (),
        best_n=best_n if rule == ladder.BEST_N else None,
        min_rounds=min_rounds,
        places=places,
    )
    try:
        ladder.check_rule(rule_data)
    except ValidationError as refused:
        for field, texts in refused.message_dict.items():
            errors.setdefault(field, []).extend(texts)
    if rising := _rising_place(rule_data.points_table):
        errors.setdefault("points_table", []).append(rising)
    others = Season.objects.filter(club=club).exclude(pk=getattr(season, "pk", None))
    slug = slug.strip() or free_slug(name, others, fallback="season", reserved=RESERVED_SLUGS)
    clash = Season.objects.filter(club=club, slug=slug).exclude(pk=getattr(season, "pk", None))
    if clash.exists() or slug in RESERVED_SLUGS:
        errors["slug"] = [
            _("The web address %(slug)s is taken in %(club)s: choose another.")
            % {"club": club.name, "slug": slug}
        ]
    if errors:
        raise ValidationError(errors)
    fields: dict[str, Any] = {
        "name": name,
        "slug": slug,
        "rule": rule,
        "points_table": list(rule_data.points_table),
        "best_n": rule_data.best_n,
        "min_rounds": min_rounds,
        "places": places,
    }
    if season is None:
        try:
            with transaction.atomic():
                season = Season.objects.create(club=club, **fields)
        except IntegrityError:  # the same address, saved by someone else meanwhile
            raise ValidationError({"slug": [_("Another season has this web address.")]}) from None
    else:
        for key, value in fields.items():
            setattr(season, key, value)
        season.save(update_fields=list(fields))
    ClubTournament.objects.filter(season=season).exclude(tournament_id__in=ordered).update(
        season=None
    )
    ClubTournament.objects.filter(club=club, tournament_id__in=ordered).update(season=season)
    request_ladder(season_id=season.pk)
    return season
