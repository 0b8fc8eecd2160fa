"""A club's public pages: its home (seasons and tournaments) and each season's ladder, as a page
and as ladder.csv. The same for every visitor (no form, no session): public pages a shared cache
may keep (clubs/public_urls.py). Never a member's contact or household."""

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import F
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from clubs import ladder
from clubs.ladder_services import season_events, season_rule
from clubs.models import Club, LadderRow, Season
from scoring.exports import csv_lines
from tournaments.models import Tournament

CSV_HEADER = (
    "place",
    "shared",
    "name",
    "value",
    "events",
    "counted",
    "rounds",
    "pips",
    "note",
)


@dataclass
class LadderLine:
    """A ladder row as the page and the file show it."""

    row: LadderRow
    place: str  # "2" or "", the "=" shown apart
    value: str
    notes: str


def club_home(request: HttpRequest, slug: str) -> HttpResponse:
    """The club's seasons and its tournaments, each linked to its public page."""
    club = get_object_or_404(Club, slug=slug)
    tournaments = (
        Tournament.objects.filter(club_ownership__club=club)
        .select_related("club_ownership__season")
        .order_by(F("starts_on").desc(nulls_last=True), "-created_at")
    )
    context = {"club": club, "seasons": club.seasons.order_by("-pk"), "tournaments": tournaments}
    return render(request, "clubs/club_public.html", context)


def _season(slug: str, season_slug: str) -> Season:
    return get_object_or_404(
        Season.objects.select_related("club"), club__slug=slug, slug=season_slug
    )


def _value(season: Season, row: LadderRow) -> str:
    if season.rule == Season.Rule.AVERAGE:
        return ladder.average_text(row.value) if row.rounds else "—"
    whole = row.value == row.value.to_integral_value()
    return str(int(row.value)) if whole else str(row.value.normalize())


def ladder_lines(season: Season) -> list[LadderLine]:
    rows = list(
        LadderRow.objects.filter(season=season)
        .select_related("member")
        .order_by(F("place").asc(nulls_last=True), "member__name", "pk")
    )
    # The notes name members as they are now (an erased member by their anonymised name).
    names = {row.member_id: row.member.name for row in rows}
    return [
        LadderLine(
            row=row,
            place="" if row.place is None else str(row.place),
            value=_value(season, row),
            notes=ladder.notes_text(row.tie_notes, names),
        )
        for row in rows
    ]


def season_ladder(request: HttpRequest, slug: str, season_slug: str) -> HttpResponse:
    """The season's ladder: places ("=" when shared), the rule in words, when it was built."""
    season = _season(slug, season_slug)
    events = season_events(season)
    context = {
        "club": season.club,
        "season": season,
        "lines": ladder_lines(season),
        "events": events,
        "rule_words": ladder.rule_words(season_rule(season, events)),
        "value_label": _("Average") if season.rule == Season.Rule.AVERAGE else _("Points"),
        "best_n": season.rule == Season.Rule.BEST_N,
    }
    return render(request, "clubs/season_public.html", context)


def ladder_csv(request: HttpRequest, slug: str, season_slug: str) -> HttpResponse:
    """The ladder as a spreadsheet opens it (UTF-8, header row); notes in the address's
    language."""
    season = _season(slug, season_slug)
    rows = (
        (
            line.place,
            "true" if line.row.shared else "false",
            line.row.member.name,
            plain_number(line.row.value),
            line.row.events,
            len(line.row.counted),
            line.row.rounds,
            line.row.pips,
            line.notes,
        )
        for line in ladder_lines(season)
    )
    response = HttpResponse(
        "".join(csv_lines(CSV_HEADER, rows)), content_type="text/csv; charset=utf-8"
    )
    filename = f"{season.club.slug}-{season.slug}-ladder.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def plain_number(value: Decimal) -> str:
    """A value as a file holds it: 18, or 6.25 (a point, never the language's comma)."""
    return format(value.normalize(), "f")
