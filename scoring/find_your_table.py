"""The public "Find your table" page: every player of the tournament who has not withdrawn, A to
Z by name, with their table and seat in the latest seated stage (an earlier one with
?stage=<order>), or "Not seated". Large type, with a letter index for a long list; printed
(the stylesheet's print rules), it is the wall chart at the hall's door: several columns to a
landscape page, no row split across pages.

A to Z ignores accents and case ("Ángel" with the A's, "émile" beside "Emile"), in Python
(tournaments.text.folded) rather than by a database collation: the same order on SQLite and
PostgreSQL, whatever collations the server has.

Its version is read first, in four small queries (the tournament, its played stages, its
players, the stage's seats): a seat changed, a player added, renamed or withdrawn makes a new
one, and an unchanged page is a 304 (config/http_cache.py)."""

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, replace

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from scoring import selectors
from scoring.public import _etag, _fresh_or_304
from tables import selectors as table_selectors
from tournaments.models import Player, Stage, Tournament
from tournaments.text import folded

# The letter of a name that starts with no letter (a digit, a quote): its group comes last.
NO_LETTER = "#"
# From this many players the page opens with its letter index (A B C ... links).
INDEX_FROM = 20


@dataclass(frozen=True)
class ChartRow:
    """One player's line: their name and badge, and where they sit (None: not seated)."""

    name: str
    number: int
    table: int | None
    seat: int | None
    table_text: str = ""  # "Table 3", "Seat 2": in the reader's language (worded)
    seat_text: str = ""


@dataclass(frozen=True)
class Letter:
    """The players whose names start with one letter, A to Z."""

    letter: str
    anchor: str  # the id the index links to
    rows: list[ChartRow]


def letter_of(name: str) -> str:
    """The letter a name is found under: its first letter without its accent, in capitals
    ("Ángel": A, "łukasz": L), or NO_LETTER for a name that starts with none."""
    return _letter(folded(name))


def _letter(folded_name: str) -> str:
    first = folded_name[:1]
    return first.upper() if first.isalpha() else NO_LETTER


def sort_key(name: str, number: int) -> tuple[bool, str, str, str, int]:
    """A to Z ignoring accents and case, names with no first letter last; the same name in
    another spelling, then the badge number, decide between equals (a stable order). Its
    second item is the name's letter."""
    plain = folded(name)
    letter = _letter(plain)
    return (letter == NO_LETTER, letter, plain, name.casefold(), number)


def chart(
    players: Iterable[tuple[int, int, str]], seats: dict[int, tuple[int, int]]
) -> list[Letter]:
    """The wall chart: `players` as (id, badge number, name), `seats` as player id -> (table,
    seat); grouped by letter, A to Z."""
    keyed = sorted((sort_key(name, number), pk, number, name) for pk, number, name in players)
    letters: list[Letter] = []
    for (_no_letter, letter, *_rest), pk, number, name in keyed:
        if not letters or letters[-1].letter != letter:
            letters.append(Letter(letter, f"letter-{len(letters) + 1}", []))
        table, seat = seats.get(pk, (None, None))
        letters[-1].rows.append(ChartRow(name, number, table, seat))
    return letters


def worded(letters: list[Letter]) -> list[Letter]:
    """The chart with each seat said in the active language: translated once for the page, not
    once a row (a template's blocktranslate for each of 500 rows took most of the page's time)."""
    table_text, seat_text = _("Table %(table)s"), _("Seat %(seat)s")
    return [
        Letter(
            letter.letter,
            letter.anchor,
            [
                replace(
                    row,
                    table_text=table_text % {"table": row.table},
                    seat_text=seat_text % {"seat": row.seat},
                )
                if row.table is not None
                else row
                for row in letter.rows
            ],
        )
        for letter in letters
    ]


def _chosen_order(request: HttpRequest) -> int | None:
    chosen = request.GET.get("stage", "")
    return int(chosen) if chosen.isascii() and chosen.isdigit() and len(chosen) < 6 else None


def find_your_table_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Every player A to Z with their table and seat: the latest seated stage's, or with
    ?stage=<order> a played stage's (404 for a stage not played yet)."""
    tournament = get_object_or_404(Tournament, slug=slug)
    played = list(selectors.played_stages(tournament.stages.all()))
    order = _chosen_order(request)
    if order is None:
        stage = played[0] if played else None
    else:
        stage = next((s for s in played if s.order == order), None)
        if stage is None:
            raise Http404(_("This stage has not been played."))
    players = list(
        Player.objects.filter(tournament=tournament)
        .exclude(status=Player.Status.WITHDRAWN)
        .order_by()
        .values_list("pk", "number", "name")
    )
    seats = table_selectors.seats_by_player(stage) if stage is not None else {}
    stages = [(s.order, s.display_name) for s in played]
    etag = _etag("find-table", tournament.pk, _version(tournament, stage, stages, players, seats))
    if (unchanged := _fresh_or_304(request, etag)) is not None:
        return unchanged
    letters = worded(chart(players, seats))
    context = {
        "tournament": tournament,
        "stage": stage,
        "stages": list(reversed(stages)) if len(stages) > 1 else [],  # the first first
        "letters": letters,
        "players": len(players),
        "seated": sum(1 for pk, _number, _name in players if pk in seats),
        "index": len(letters) > 1 and len(players) >= INDEX_FROM,
        "not_seated": _("Not seated"),
    }
    response = render(request, "scoring/find_your_table.html", context)
    response["ETag"] = etag
    return response


def _version(
    tournament: Tournament,
    stage: Stage | None,
    stages: list[tuple[int, str]],
    players: list[tuple[int, int, str]],
    seats: dict[int, tuple[int, int]],
) -> str:
    """What the page shows, digested: the tournament's name and what its menu and banner say,
    the stages played (its stage switch), the stage shown and its status, and every player's
    line (a seat changed, a late player seated, a name corrected, a withdrawal)."""
    read = [
        tournament.name,
        tournament.practice,
        tournament.listed,
        tournament.placed_by_total,  # the menu's "Final placings" or "Playoffs"
        stages,
        stage and (stage.pk, stage.status),
        sorted((pk, number, name, seats.get(pk)) for pk, number, name in players),
    ]
    return hashlib.blake2b(repr(read).encode(), digest_size=12).hexdigest()
