"""The public "How this event works" page: the tournament's rules as its own settings make them.

Everything on it is read from the tournament, its preset and its stages (the set, the deal, each
stage's rounds, engines, table sizes and advancement, the tie-break order, the late-entry rule):
change a setting and the page says the new rule. Where a rule already has its words in the
product (the late-entry rules' and tie-breaks' labels, the advancement sentence of the close
page, the standings' "ranked on" line), the page says it with those words.
"""

import hashlib
from dataclasses import dataclass
from itertools import groupby

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from scoring.choices import DecisionMethod
from scoring.public import CSRF_VALUE, _etag, _fresh_or_304
from scoring.rules import FINAL_PLACES_DECIDED
from tournaments.choices import Follows, Tiebreak
from tournaments.models import Stage, Tournament
from tournaments.presets import PRESETS, engine_for_round, tiles_in_set
from tournaments.selectors import entries_open

# What each tie-break rule compares, for players who have never read the rules documents
# (what each does: scoring.rules.TIEBREAK_RULES).
TIEBREAK_MEANING: dict[str, Promise] = {
    Tiebreak.ROUNDS_WON: _("The player who went out in more rounds is ahead."),
    Tiebreak.COUNTBACK: _(
        "The lower score in the last round is ahead; if that is level too, the round before, "
        "and so on back to round 1."
    ),
}


@dataclass(frozen=True)
class DealRow:
    """Table sizes from `low` to `high` players, each dealt `tiles` tiles."""

    low: int
    high: int
    tiles: int


def deal_rows(deal: dict[int, int]) -> list[DealRow]:
    """The deal (players at the table -> tiles each) with neighbouring table sizes dealt alike
    on one row: a Samboree's double-12 deal is three rows (2-4: 12, 5-6: 10, 7-10: 8), not
    nine."""
    rows = []
    ordered = sorted(deal.items())
    # Sizes in a run differ from their index by the same amount; a run deals one number.
    runs = groupby(enumerate(ordered), key=lambda item: (item[1][0] - item[0], item[1][1]))
    for (_start, tiles), members in runs:
        sizes = [players for _index, (players, _tiles) in members]
        rows.append(DealRow(sizes[0], sizes[-1], tiles))
    return rows


@dataclass(frozen=True)
class StageRules:
    """What the page says of one stage."""

    stage: Stage
    name: str
    kind: str  # "Qualifying" or "Playoff", or "" when the name says it already
    engines: list[tuple[int, int]]  # (round, engine)
    tables: int | None  # the tables it is played at, once seated
    everyone_plays_next: bool  # a later qualifying stage follows: nobody advances from this one
    final: bool  # seated at one table: its ranking decides the placings
    carry_forward: str  # the rule's words, or "" when it does not carry totals forward
    late_entries: str  # the stage's late-entry rule, or "" (a playoff seats no late entry)
    by_total: bool = False  # it places everyone by their total across its tables
    time_limit: int | None = None  # minutes
    time_rule: str = ""  # what happens to the round in play when time is called
    movement: str = ""  # how it is seated from the game before, or ""


def stage_rules(stage: Stage, *, tables: int | None) -> StageRules:
    """One stage's rules. tables: how many it is played at, once it is seated (None before)."""
    follows = Stage.objects.what_follows(stage, tables=tables) if tables else None
    qualifying = stage.kind == Stage.Kind.QUALIFYING
    name, kind = stage.display_name, str(stage.get_kind_display())
    return StageRules(
        stage=stage,
        name=name,
        kind="" if kind.casefold() == name.casefold() else kind,
        engines=[
            (n, engine_for_round(stage.starting_double, n)) for n in range(1, stage.rounds + 1)
        ],
        tables=tables,
        everyone_plays_next=Stage.objects.qualifying_after(stage),
        final=follows == Follows.PLACINGS,
        # The field's own help text is the rule, in one place (the admin shows it too).
        carry_forward=(
            str(Stage._meta.get_field("carry_forward").help_text) if stage.carry_forward else ""
        ),
        late_entries=stage.get_late_entry_rule_display() if qualifying else "",
        by_total=stage.decides_placings and not Stage.objects.qualifying_after(stage),
        time_limit=stage.time_limit_minutes,
        time_rule=str(stage.get_time_rule_display()) if stage.time_limit_minutes else "",
        movement=_movement_words(stage),
    )


def _movement_words(stage: Stage) -> str:
    if stage.movement == Stage.Movement.MOVE:
        return ngettext(
            "After the game before, the lowest total at each table moves up a table and the "
            "highest down (table 1 is the top table); the others stay.",
            "After the game before, the %(count)s lowest totals at each table move up a table "
            "and the %(count)s highest down (table 1 is the top table); the others stay.",
            stage.move_count,
        ) % {"count": stage.move_count}
    if stage.movement == Stage.Movement.RESEAT:
        return gettext("After the game before, everyone is reseated, avoiding repeat tablemates.")
    return ""


def tiebreak_order(tournament: Tournament) -> list[tuple[str, str]]:
    """The tournament's tie-break rules in its order: (label, what it compares)."""
    return [
        (Tiebreak(rule).label, TIEBREAK_MEANING.get(rule, ""))
        for rule in tournament.tiebreak_rules
        if rule in Tiebreak.values
    ]


def how_it_works_page(request: HttpRequest, slug: str) -> HttpResponse:
    """The tournament's rules, for anyone: no login, like the standings page. Rendered for each
    request (a few small queries); an unchanged page costs a 304."""
    tournament = get_object_or_404(Tournament, slug=slug)
    preset = PRESETS[tournament.preset]
    try:
        deal = deal_rows(preset.deal(tournament.domino_set))
    except ValueError:  # a set the preset has no deal for: no table to show
        deal = []
    stages = list(tournament.stages.with_table_count().order_by("order"))
    rules = [stage_rules(stage, tables=stage.table_count or None) for stage in stages]
    context = {
        "tournament": tournament,
        "tiles": tiles_in_set(tournament.domino_set),
        "preset": preset,
        "preset_label": tournament.get_preset_display(),
        "deal": deal,
        "stages": rules,
        "no_playoff": tournament.placed_by_total,
        "tiebreaks": tiebreak_order(tournament),
        "decisions": [method.label for method in DecisionMethod],
        "final_places": FINAL_PLACES_DECIDED,
        "divisions": list(tournament.divisions.all()),
        # When it takes entries (the page's version is its content: it changes as they open).
        "entries_open": entries_open(tournament),
        "entries_from": tournament.entries_open_at,
        "entries_soon": tournament.entries_open_at is not None
        and timezone.now() < tournament.entries_open_at,
        "entries_until": tournament.entries_close_at,
    }
    response = render(request, "scoring/how_it_works.html", context)
    # The page's version is the page itself, but for the CSRF token of a signed-in person's forms
    # (new for every request): a changed setting, stage or wording makes a new one.
    digest = hashlib.blake2b(CSRF_VALUE.sub(b"", response.content), digest_size=8).hexdigest()
    etag = _etag("how", tournament.pk, digest)
    if (unchanged := _fresh_or_304(request, etag)) is not None:
        return unchanged
    response["ETag"] = etag
    return response
