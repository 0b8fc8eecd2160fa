"""Reads: a rally's chapter standings from its events' placings (rallies.points), each event's
state, and a rally entry's schedule with where to sit. Read at each request: a rally has a
handful of events, and its standings are a few small queries."""

import hashlib
from dataclasses import dataclass, field

from django.db.models import QuerySet

from entries import rules as entry_rules
from entries.models import Entry
from rallies import points
from rallies.models import Rally, RallyEntry, RallyEvent
from scoring import selectors as scoring_selectors
from scoring.models import Placing
from tables import selectors as table_selectors
from tournaments.models import Stage

UPCOMING, PLAYING, DECIDED = "upcoming", "playing", "decided"


@dataclass
class EventState:
    event: RallyEvent
    state: str  # UPCOMING, PLAYING or DECIDED
    placed: int = 0  # its players placed (DECIDED)
    guests: int = 0  # of those, players of no chapter of the rally

    @property
    def tournament(self):
        return self.event.tournament


@dataclass
class RallyStandings:
    rally: Rally
    events: list[EventState]
    lines: list[points.ChapterLine]
    finished: bool
    most: list[str] = field(default_factory=list)  # "most points", once finished

    @property
    def version(self) -> str:
        """What the public page and the projector show, digested (their ETag)."""
        read = [
            self.rally.name,
            self.rally.points_table,
            self.rally.closed_at,
            [
                (
                    s.event.pk,
                    s.tournament.name,
                    s.tournament.slug,
                    s.event.starts_at,
                    s.event.ends_at,
                    s.state,
                    s.placed,
                    s.guests,
                )
                for s in self.events
            ],
            [
                (line.name, line.place, line.total, sorted(line.by_event.items()), line.players)
                for line in self.lines
            ],
        ]
        return hashlib.blake2b(repr(read).encode(), digest_size=12).hexdigest()


def rally_events(rally: Rally) -> QuerySet[RallyEvent]:
    return rally.events.select_related("tournament").order_by("starts_at", "pk")


# Whether an event takes an entry now, as entries.rules says it for the event alone.
OPEN, WAITLIST, FULL, CLOSED = "open", "waitlist", "full", "closed"


def entry_state(event: RallyEvent) -> str:
    """OPEN (a place), WAITLIST (a waitlist place), FULL (full, no waitlist) or CLOSED (not
    yet open, closed, or its first tables seated)."""
    tournament = event.tournament
    if entry_rules.closed_reason(tournament) is not None:
        return CLOSED
    if entry_rules.waits(tournament):
        return WAITLIST if tournament.waitlist else FULL
    return OPEN


def standings(rally: Rally) -> RallyStandings:
    """The chapters' standings and each event's state: decided once its placings are made
    (the final closed), playing once a stage is seated, else upcoming."""
    events = list(rally_events(rally))
    ids = [e.tournament_id for e in events]
    placed: dict[int, dict[int, tuple[int, str | None]]] = {i: {} for i in ids}
    rows = Placing.objects.filter(tournament_id__in=ids).order_by()
    for tournament_id, player_id, place, chapter in rows.values_list(
        "tournament_id", "player_id", "place", "player__entry__chapter"
    ):
        placed[tournament_id][player_id] = (place, chapter)
    playing = set(
        Stage.objects.filter(tournament_id__in=ids)
        .exclude(status=Stage.Status.PENDING)
        .values_list("tournament_id", flat=True)
    )
    chapters = list(rally.chapters.values_list("name", flat=True))
    known = {name.casefold() for name in chapters}
    states = []
    for event in events:
        places = placed[event.tournament_id]
        state = DECIDED if places else PLAYING if event.tournament_id in playing else UPCOMING
        guests = sum(1 for _p, c in places.values() if (c or "").strip().casefold() not in known)
        states.append(EventState(event, state, len(places), guests))
    lines = points.standings(
        chapters,
        [
            points.EventPlaces(s.event.pk, s.state == DECIDED, placed[s.event.tournament_id])
            for s in states
        ],
        rally.points_table,
    )
    finished = rally.closed_at is not None or (
        bool(states) and all(s.state == DECIDED for s in states)
    )
    return RallyStandings(
        rally, states, lines, finished, points.most_points(lines) if finished else []
    )


@dataclass
class ScheduleLine:
    event: RallyEvent
    entry: Entry
    stage: Stage | None  # the stage being played or last played
    table: int | None  # where the player sits in it (None: not seated)
    seat: int | None


def schedule(rally_entry: RallyEntry) -> list[ScheduleLine]:
    """The player's events in time order with their entry in each, and, once a stage is
    seated, their table and seat in it (as "Find your table" says them)."""
    events = {e.tournament_id: e for e in rally_events(rally_entry.rally)}
    lines = []
    for entry in rally_entry.entries.select_related("tournament", "player"):
        event = events.get(entry.tournament_id)
        if event is None:  # an event taken out of the rally since
            continue
        stage = scoring_selectors.current_stage(entry.tournament.stages.all())
        table = seat = None
        if stage is not None and entry.player_id is not None:
            table, seat = table_selectors.seats_by_player(stage).get(entry.player_id, (None, None))
        lines.append(ScheduleLine(event, entry, stage, table, seat))
    return sorted(lines, key=lambda line: (line.event.starts_at, line.event.pk))


def organised_by(user) -> QuerySet[Rally]:
    return Rally.objects.filter(organisers=user) if user.is_authenticated else Rally.objects.none()
