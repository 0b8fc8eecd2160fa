"""The page of a phone that claimed a seat (tables/seat_pages.py): its table, who sits where, each
round's state, and what the seat can do with it: enter the next round (on the officials' own
entry page, scoring/views/entry.py, with its offline queue), confirm a round another seat
entered, dispute a round that is wrong. Without JavaScript every action is a form posted here.

Only the seat's own table is reachable: the page is the signed-in seat's, so no address names a
table. A browser that is no seat (or whose claim ended) is sent to type a code."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from config.refusals import PageRefusal
from scoring import selectors, services
from scoring.exceptions import VersionChanged
from scoring.models import RoundResult
from scoring.services import disputes
from scoring.views.entry import meta
from tables import reporting
from tables.models import Seat, SeatClaim
from tournaments.exceptions import StateConflict
from tournaments.models import Stage


def entered_by(seat: Seat | None) -> str:
    """Who entered a round's scores as they stand, given the seat that did (reporting.seat_of
    or seats_of): a seat by its name, else an official."""
    return reporting.seat_named(seat) if seat is not None else _("an official")


def _rounds(claim: SeatClaim, sheet: selectors.Sheet) -> list[dict]:
    """Each round of the seat's table: its state, its scores, who entered them, and whether
    this seat entered them (then another player confirms)."""
    table = claim.seat.table
    statuses = selectors.round_statuses(table.stage).get(table.pk, {})
    results = {r.round_no: r for r in RoundResult.objects.filter(table=table)}
    seats = reporting.seats_of(r.submitted_by_id for r in results.values())  # one query
    rows = []
    for round_no, status in sorted(statuses.items()):
        result = results.get(round_no)
        entered = seats.get(result.submitted_by_id) if result is not None else None
        by = entered_by(entered) if result is not None else ""
        mine = entered is not None and entered == claim.seat
        rows.append(
            {
                "round_no": round_no,
                "status": status,
                "result": result,
                "by": by,
                "mine": mine,
                "scores": [
                    {
                        "seat": seat,
                        "pips": sheet.round(round_no).pips.get(seat.player_id),
                        "went_out": sheet.round(round_no).went_out == seat.player_id,
                    }
                    for seat in sheet.seats
                    if seat.player_id in sheet.round(round_no).pips
                ]
                if result is not None
                else [],
            }
        )
    return rows


def _seat_claim(request: HttpRequest) -> SeatClaim | None:
    return reporting.claim_of(request.user)


@never_cache
@require_http_methods(["GET", "HEAD"])
def seat_table(request: HttpRequest) -> HttpResponse:
    """The seat's table: seats, totals, rounds, and the big button for the next round."""
    claim = _seat_claim(request)
    if claim is None:
        return redirect("seat-start")
    table = claim.seat.table
    stage = table.stage
    sheet = selectors.table_sheet(table)
    rounds = _rounds(claim, sheet)
    next_round = next((r for r in rounds if r["status"] == "missing"), None)
    # Newest first, up to the next round to enter: a phone at 200% text is not a scroll past a
    # dozen empty rounds; the ones after it are said in a line.
    to_come = [r["round_no"] for r in rounds if r["status"] == "missing" and r is not next_round]
    shown = [r for r in rounds if r["status"] != "missing" or r is next_round][::-1]
    with PageRefusal() as refusal:
        reporting.refuse_unless_players_report(table)
    context = {
        "claim": claim,
        "seat": claim.seat,
        "table": table,
        "stage": stage,
        "tournament": stage.tournament,
        "seats": [
            {"seat": seat, "total": sheet.totals().get(seat.player_id, 0)} for seat in sheet.seats
        ],
        "rounds": shown,
        "to_come": (to_come[0], to_come[-1]) if to_come else None,
        "next_round": next_round,
        "refused": refusal.text,
        "open": stage.status != Stage.Status.CLOSED and not refusal,
    }
    return render(request, "scoring/seat_table.html", context)


def _own_result(claim: SeatClaim, round_no: int) -> RoundResult:
    return get_object_or_404(
        RoundResult.objects.select_related("table__stage", "submitted_by"),
        table=claim.seat.table,
        round_no=round_no,
    )


@require_POST
def seat_confirm(request: HttpRequest, round_no: int) -> HttpResponse:
    """Confirm a round another seat (or an official) entered: the scores the page showed
    (If-Match), never the seat's own entry (the service says who confirms instead)."""
    claim = _seat_claim(request)
    if claim is None:
        return redirect("seat-start")
    result = _own_result(claim, round_no)
    try:
        with PageRefusal(StateConflict, ValidationError) as refusal:
            reporting.refuse_unless_players_report(claim.seat.table)
            services.confirm_round_result(
                result=result,
                by=request.user,
                if_match=request.POST.get("if_match") or None,
                meta=meta(request),
            )
    except VersionChanged:
        messages.error(
            request,
            _(
                "Round %(round)s was changed on another phone after this page showed it: "
                "read it again below before you confirm."
            )
            % {"round": round_no},
        )
        return redirect("seat-table")
    if refusal:
        refusal.say(request)
    else:
        messages.success(request, _("Round %(round)s is confirmed.") % {"round": round_no})
    return redirect("seat-table")


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def seat_dispute(request: HttpRequest, round_no: int) -> HttpResponse:
    """Say a round is wrong: it then counts nowhere and waits for an official, who settles it
    (confirms it as it stands, or corrects it). A note is all it asks."""
    claim = _seat_claim(request)
    if claim is None:
        return redirect("seat-start")
    result = _own_result(claim, round_no)
    table = claim.seat.table
    note, errors, status = request.POST.get("note", ""), [], 200
    if request.method == "POST":
        with PageRefusal(StateConflict, ValidationError) as refusal:
            reporting.refuse_unless_players_report(table)
            disputes.dispute_round(
                table=table, round_no=round_no, by=request.user, note=note, meta=meta(request)
            )
        if not refusal:
            messages.success(
                request,
                _(
                    "Round %(round)s is disputed: it counts for nobody until an official "
                    "settles it. Tell an official at the desk."
                )
                % {"round": round_no},
            )
            return redirect("seat-table")
        if isinstance(refusal.error, StateConflict):
            refusal.say(request)
            return redirect("seat-table")
        errors, status = refusal.lines, refusal.status
    context = {
        "claim": claim,
        "table": table,
        "stage": table.stage,
        "tournament": table.stage.tournament,
        "result": result,
        "round_no": round_no,
        "by": entered_by(reporting.seat_of(result.submitted_by_id)),
        "rows": _scores(result),
        "note": note,
        "errors": errors,
        "note_length": disputes.NOTE_LENGTH,
        "back": reverse("seat-table"),
    }
    return render(request, "scoring/seat_dispute.html", context, status=status)


def _scores(result: RoundResult) -> list[dict]:
    """The round's scores as they stand, in seat order, for the dispute page to show what is
    disputed."""
    seats = {s.player_id: s for s in result.table.seats.select_related("player")}
    rows = [
        {"seat": seats[score.player_id], "pips": score.pips, "went_out": score.went_out}
        for score in result.scores.all()
        if score.player_id in seats
    ]
    return sorted(rows, key=lambda row: row["seat"].position)  # as the table's page lists them
