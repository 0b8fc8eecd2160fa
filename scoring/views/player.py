"""A player's public page: where they sit now, their round-by-round scores, and where they stand in
every stage, with what the ranking counts mid-stage and how a tie-break placed them."""

import hashlib
from collections.abc import Iterable
from typing import Any

from django.db.models import Model, OuterRef, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import format_html

from config.http_cache import not_modified
from scoring import standings, time_called
from scoring.models import Placing, RoundResult, Score, StandingRow
from scoring.public import _etag
from scoring.services import games
from tables.models import Seat
from tournaments.csvfiles import whole_number
from tournaments.models import Player, Stage, Tournament
from tournaments.selectors import players_matching
from tournaments.text import folded


def player_page(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """Where a player sits now, their round-by-round scores and rank in every stage. Its
    version is read first, in three queries (an unchanged page is a 304 without the rest)."""
    # With whether the last stage places everyone by total (the menu's "Final placings").
    last_stage = Stage.objects.filter(tournament_id=OuterRef("tournament_id"))
    player = get_object_or_404(
        Player.objects.select_related("tournament").annotate(
            placed=Subquery(last_stage.last_decides_placings())
        ),
        tournament__slug=slug,
        number=number,
    )
    tournament = player.tournament
    tournament.placed_by_total = bool(player.placed)
    # Each stage with its standings' header (none before its first build); order_by() here and
    # below: the models' default orderings would join the tournament and more to each query.
    # And what the version needs of the results: their own line of each snapshot (its digest)
    # and when their table's confirmed results last changed (a submission shows nothing here).
    own_line = StandingRow.objects.filter(stage=OuterRef("stage_id"), player=OuterRef("player_id"))
    own_table = RoundResult.objects.filter(
        table=OuterRef("table_id"), status=RoundResult.Status.CONFIRMED
    ).order_by("-updated_at")
    seated = Seat.objects.filter(player=player).select_related("table", "stage__standings")
    seated = seated.order_by().annotate(
        line=Subquery(own_line.order_by().values("digest")[:1]),
        table_changed=Subquery(own_table.values("updated_at")[:1]),
    )
    seats = {seat.stage_id: seat for seat in seated.defer("stage__standings__table_digests")}
    placing = (
        Placing.objects.filter(tournament=tournament, player=player)
        .select_related("division")
        .order_by()
        .first()
    )
    etag = _version(player, seats.values(), placing)
    if (unchanged := not_modified(request, etag)) is not None:
        return unchanged
    rows = {row.stage_id: row for row in StandingRow.objects.filter(player=player).order_by()}
    went_out = set(
        Score.objects.filter(
            player=player, went_out=True, result__status=RoundResult.Status.CONFIRMED
        )
        .order_by()
        .values_list("result__stage_id", "result__round_no")
    )
    names = _neighbours(rows.values())
    stages = []
    # The stages the player has a seat in, the latest first.
    seated_in = sorted((seat.stage for seat in seats.values()), key=lambda s: -s.order)
    for stage in seated_in:
        if stage.status == Stage.Status.PENDING:
            continue
        row = rows.get(stage.pk)
        meta = getattr(stage, "standings", None)
        scores = row.scores if row else {}
        # Like with like (scoring.rules.progress): the rank counts the rounds every table has
        # confirmed; the player's later rounds are shown, marked provisional.
        through = meta.ranked_through if meta else 0
        called = time_called.time_called_summary(stage)
        if called:  # this player's table only
            number = seats[stage.pk].table.number
            called["after"] = [(n, last) for n, last in called["after"] if n == number]
        stages.append(
            {
                "stage": stage,
                "seat": seats[stage.pk],
                "moved": games.moved_text(
                    stage, seats[stage.pk].table.number, seats[stage.pk].from_table
                ),
                "row": row,
                # A shared place as the standings show it: "1=".
                "rank": _place(row.rank, row.tied) if row else "",
                "table_rank": _place(row.table_rank, row.table_tied) if row else "",
                "through": through,
                "called": called,
                "decided": bool(meta)
                and time_called.decided(
                    stage, through, counted=meta.results_counted, expected=meta.results_expected
                ),
                "awaiting": bool(meta and any(player.pk in flag["players"] for flag in meta.flags)),
                "tiebreaks": [
                    standings.separation_text(separation, names)
                    for separation in (row.tiebreaks if row else ())
                ],
                # (round, engine, pips, went out, missed: before a late entry sat down,
                # counted by the stage's rule, as on the table's sheet; provisional)
                "rounds": [
                    (
                        n,
                        stage.engine(n),
                        scores.get(str(n)),
                        (stage.pk, n) in went_out,
                        n < seats[stage.pk].from_round,
                        n > through,
                    )
                    for n in range(1, stage.rounds + 1)
                ],
            }
        )
    now = stages[0] if stages and stages[0]["stage"].status == Stage.Status.SEATED else None
    context = {
        "tournament": tournament,
        "player": player,
        "stages": stages,
        "now": now,
        "placing": placing,
    }
    response = render(request, "scoring/player.html", context)
    response["ETag"] = etag
    return response


def _version(player: Player, seats: Iterable[Seat], placing: Placing | None) -> str:
    """The page's version: every field of what it reads itself (the player, the tournament,
    each seat, its table and stage, the placing and its division) and, of each stage's results
    and snapshot, what the page shows of them: the player's own line (its digest: rank, scores,
    total, tie-breaks, advances), when their table's confirmed results last changed (who went
    out), the rounds ranked, whether the standings are decided, whether a tie of theirs awaits
    a decision, and the stage's last change that was not a result (every_page_seq: a neighbour
    in a tie-break renamed, time called). Not the stage's every result: another table's round
    that moves none of this leaves the page as it was (a 304 to the phones' safety polls)."""
    read: list[Any] = [_fields(player), _fields(player.tournament), player.placed]
    for seat in sorted(seats, key=lambda seat: seat.stage.order):
        meta = getattr(seat.stage, "standings", None)
        shown = meta and (
            meta.every_page_seq,
            meta.ranked_through,
            0 < meta.results_expected <= meta.results_counted,
            any(player.pk in flag["players"] for flag in meta.flags),
        )
        read += [_fields(seat), _fields(seat.table), _fields(seat.stage)]
        read += [seat.line, seat.table_changed, shown]
    if placing is not None:
        read += [_fields(placing), placing.division and _fields(placing.division)]
    digest = hashlib.blake2b(repr(read).encode(), digest_size=12).hexdigest()
    return _etag("player", player.pk, digest)


def _fields(instance: Model) -> tuple[Any, ...]:
    return tuple(getattr(instance, field.attname) for field in instance._meta.concrete_fields)


def _place(rank: int | None, tied: bool) -> str:
    """A place as the standings show it: "3", or "3=" shared (the "=" not read out: the page
    says "tied" after the sentence)."""
    if rank is None:
        return ""
    return format_html('{}<span aria-hidden="true">=</span>', rank) if tied else str(rank)


def _neighbours(rows) -> dict[int, str]:
    """The names of the players a tie-break placed this player against."""
    ids = {other for row in rows for s in row.tiebreaks for other in s["players"]}
    names = Player.objects.filter(pk__in=ids).order_by().values_list("pk", "name")
    return dict(names) if ids else {}


FIND_WORDS = 8  # words of a query that count; a page of matches is at most FIND_MATCHES
FIND_MATCHES = 50


def find_player(request: HttpRequest, slug: str) -> HttpResponse:
    """Find a player by badge number, or by words of the name or club in any order, with or
    without accents ("ruth baker" finds Ruth Ann Baker, "pena" Gloria Peña)."""
    tournament = get_object_or_404(Tournament, slug=slug)
    query = request.GET.get("q", "").strip()[:200]
    matches: list[Player] = []
    more = False
    digits = query.lstrip("#").strip()
    by_number = digits.isascii() and digits.isdigit()
    if by_number:
        number = whole_number(digits)  # None for more digits than any badge has
        player = tournament.players.filter(number=number).first() if number is not None else None
        if player is not None:
            return redirect("player-page", slug=slug, number=player.number)
    elif query:
        words = " ".join(list(dict.fromkeys(folded(query).split()))[:FIND_WORDS])
        found = players_matching(tournament, words, with_club=True)
        more = len(found) > FIND_MATCHES
        chosen = found[:FIND_MATCHES]
        matches = sorted(Player.objects.filter(pk__in=chosen), key=lambda p: p.name.casefold())
    context = {
        "tournament": tournament,
        "query": query,
        "matches": matches,
        "more": more,
        "by_number": by_number,
    }
    return render(request, "scoring/find_player.html", context)
