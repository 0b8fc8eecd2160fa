"""A tournament's final results, read for the results page, its PDF and the certificates: who
placed where, each closed stage's final standings, and whether the results are final yet.

The results are final once the final (the latest stage, closed at one table:
Stage.objects.final_of) has placed everyone: the worker that places them runs just after the
close, and until it has, the page says the results are not final rather than show placings that
are not there yet (as podium() in scoring.divisions)."""

from dataclasses import dataclass, field
from datetime import date

from django.utils import formats, timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from scoring import awards, standings
from scoring.models import Placing, StandingRow
from scoring.rules.medals import Medalled
from tournaments.models import Division, Player, Stage, Tournament

# The certificates print the podium unless more places are asked for.
CERTIFICATE_PLACES = 3


@dataclass
class PlacedPlayer(Medalled):
    place: int
    player: Player
    stage: Stage  # where the player went out (the final for its table's players)
    total: int | None  # their total in that stage
    division: Division | None = None
    division_place: int | None = None  # the place among the players of the same division
    # What they won (scoring.awards: the announced prize tables), as text: of the whole event's
    # table, and of their division's.
    prize: str = ""
    division_prize: str = ""


@dataclass
class DivisionResults:
    division: Division | None  # None: the players of no division
    placings: list[PlacedPlayer]

    @property
    def prized(self) -> bool:
        return any(p.division_prize for p in self.placings)

    @property
    def medallists(self) -> list[PlacedPlayer]:
        return [p for p in self.placings if p.medal]


@dataclass
class FinalResults:
    tournament: Tournament
    final: Stage | None  # the stage that decided the placings; None while they are not decided
    placings: list[PlacedPlayer] = field(default_factory=list)
    stages: list[Stage] = field(default_factory=list)  # the closed stages, the latest first

    @property
    def decided(self) -> bool:
        return self.final is not None

    @property
    def prized(self) -> bool:
        """Whether any placed player won a prize of the whole event's table."""
        return any(p.prize for p in self.placings)

    @property
    def divisions(self) -> list[DivisionResults]:
        """The placings of each division in the divisions' order, the players of no division
        last; empty in a tournament without divisions."""
        if not any(p.division for p in self.placings):
            return []
        groups: dict[int | None, DivisionResults] = {}
        ordered = sorted(
            self.placings,
            key=lambda p: (p.division is None, p.division.order if p.division else 0,
                           p.division.name if p.division else "", p.division_place is None,
                           p.division_place or 0),
        )  # fmt: skip
        for placed in ordered:
            key = placed.division.pk if placed.division else None
            groups.setdefault(key, DivisionResults(placed.division, [])).placings.append(placed)
        return list(groups.values())


def final_results(tournament: Tournament) -> FinalResults:
    """The placings (none until the final has decided them) and the closed stages."""
    stages = list(
        tournament.stages.filter(status=Stage.Status.CLOSED)
        .select_related("standings")
        .order_by("-order")
    )
    final = Stage.objects.final_of(tournament)
    placings = list(
        Placing.objects.filter(tournament=tournament)
        .select_related("player", "stage", "division")
        .order_by("place", "player__number")
    )
    if final is None or not any(p.stage_id == final.pk for p in placings):
        # Placings of an earlier final (the event went on after it), or not placed yet.
        return FinalResults(tournament, None, [], stages)
    totals = dict(
        ((stage_id, player_id), total)
        for stage_id, player_id, total in StandingRow.objects.filter(stage__in=stages).values_list(
            "stage_id", "player_id", "total"
        )
    )
    placed = [
        PlacedPlayer(
            p.place,
            p.player,
            p.stage,
            totals.get((p.stage_id, p.player_id)),
            p.division,
            p.division_place,
        )
        for p in placings
    ]
    results = FinalResults(tournament, final, placed, stages)
    awards.put_awards(results)
    return results


def stage_rows(stage: Stage) -> list[dict]:
    """A closed stage's final standings, the rows as the API gives them (notes in English)."""
    return standings.standings_payload(stage, standings.standings_meta(stage))["rows"]


def event_dates(results: FinalResults) -> str:
    """When the event was: its days as the organiser gave them, else the day its final was
    decided (the day of its last standings), in the tournament's time zone."""
    tournament = results.tournament
    if tournament.starts_on:
        first = formats.date_format(tournament.starts_on, "DATE_FORMAT")
        last = tournament.ends_on
        if last and last != tournament.starts_on:
            return f"{first} \N{EN DASH} {formats.date_format(last, 'DATE_FORMAT')}"
        return first
    meta = getattr(results.final, "standings", None)
    if meta is None or meta.computed_at is None:
        return ""
    day: date = timezone.localtime(meta.computed_at, tournament.zone).date()
    return formats.date_format(day, "DATE_FORMAT")


def ordinal(place: int) -> str:
    """A place as an ordinal in the active language. English: 1st, 2nd, 3rd, 4th, 11th to 13th,
    21st. Spanish, as the RAE abbreviates the ordinal before a noun: 1.er and 3.er (primer,
    tercer: the -o dropped), so also 13.er, 21.er and 23.er, and 11.º (undécimo) and the rest
    with .º."""
    if (get_language() or "en").startswith("es"):
        last = place % 10
        shortened = last == 3 or (last == 1 and place % 100 != 11)
        return f"{place}.er" if shortened else f"{place}.º"
    suffix = "th" if place % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(place % 10)
    return f"{place}{suffix or 'th'}"


def place_text(place: int) -> str:
    """'1st place' / '1.er lugar'."""
    return _("%(ordinal)s place") % {"ordinal": ordinal(place)}


def certificates_for(results: FinalResults, places: int) -> list[PlacedPlayer]:
    """The placed players who get a certificate: places 1 to `places`, ties included (two
    players third both get one); in a tournament with divisions, places 1 to `places` of each
    division, division by division."""
    if results.divisions:
        return [
            placed
            for group in results.divisions
            for placed in group.placings
            if placed.division_place is not None and placed.division_place <= places
        ]
    return [p for p in results.placings if p.place <= places]


def certificate_place(placed: PlacedPlayer) -> str:
    """What a certificate says of the place: '1st place', or in a division 'Gold · 1st place in
    division 60-69'."""
    if placed.division is None or placed.division_place is None:
        return place_text(placed.place)
    if placed.division.flight:
        said = _("%(ordinal)s place in flight %(division)s")
    else:
        said = _("%(ordinal)s place in division %(division)s")
    text = said % {
        "ordinal": ordinal(placed.division_place),
        "division": placed.division.name,
    }
    return f"{placed.medal_name} · {text}" if placed.medal else text


def certificate_prize(placed: PlacedPlayer) -> str:
    """What a certificate says was won: the prize of the place it prints (the division's in a
    division, else the whole event's); empty when none was announced."""
    if placed.division is None or placed.division_place is None:
        return placed.prize
    return placed.division_prize
