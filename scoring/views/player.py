"""A player's public page: where they sit now, their round-by-round scores, and where they stand in
every stage, with what the ranking counts mid-stage and how a tie-break placed them."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.html import format_html

from scoring import games, standings, time_called
from scoring.models import Placing, RoundResult, Score, StandingRow
from tables.models import Seat
from tournaments.models import Player, Stage


def player_page(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """Where a player sits now, their round-by-round scores and rank in every stage."""
    player = get_object_or_404(
        Player.objects.select_related("tournament"), tournament__slug=slug, number=number
    )
    tournament = player.tournament
    # Each stage with its standings' header (none before its first build); order_by() here and
    # below: the models' default orderings would join the tournament and more to each query.
    seated = Seat.objects.filter(player=player).select_related("table", "stage__standings")
    seated = seated.order_by()
    seats = {seat.stage_id: seat for seat in seated.defer("stage__standings__table_digests")}
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
    placing = (
        Placing.objects.filter(tournament=tournament, player=player)
        .select_related("division")
        .order_by()
        .first()
    )
    now = stages[0] if stages and stages[0]["stage"].status == Stage.Status.SEATED else None
    context = {
        "tournament": tournament,
        "player": player,
        "stages": stages,
        "now": now,
        "placing": placing,
    }
    return render(request, "scoring/player.html", context)


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
