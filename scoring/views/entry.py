"""The officials' tablet pages: pick a table, enter a round, let the players check, confirm, and
a round's history. At a table whose players report, a seat's phone enters its table's rounds on
the same entry page (reporting_table); the rest is its seat's page (scoring/views/seat_table.py).

Without JavaScript the forms post here and go through the same services as the API; with it,
scoring/static/scoring/entry.js sends the same form to the API and keeps it on the tablet until
the server has it (see that file).
"""

import uuid
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Max
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from config.client_ip import client_ip
from config.refusals import PageRefusal, refusal_status
from scoring import rules, selectors, services, standings, time_called
from scoring.exceptions import KeyReused, UnusualScores, VersionChanged, VersionRequired
from scoring.models import RoundResult, RoundResultVersion, StageStandings, TiebreakDecision
from scoring.services import clock, reopen
from scoring.services.results import check_round_result
from tables import reporting
from tables.models import SeatClaim, Table
from tournaments.exceptions import StateConflict
from tournaments.models import Stage, Tournament
from tournaments.permissions import is_organiser, is_staff_of
from tournaments.services.stage_changes import closed_message


def staffed_tournament(request: HttpRequest, slug: str) -> Tournament:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not is_staff_of(request.user, tournament):
        raise PermissionDenied(
            _("Only officials and organisers of %(tournament)s enter scores.")
            % {"tournament": tournament.name}
        )
    return tournament


def table_of(tournament: Tournament, table_id: int) -> Table:
    return get_object_or_404(
        Table.objects.select_related("stage__tournament"), pk=table_id, stage__tournament=tournament
    )


def reporting_table(
    request: HttpRequest, slug: str, table_id: int
) -> tuple[Tournament, Table, SeatClaim | None]:
    """The table whose round is entered, for its tournament's staff or a seat of this very
    table while its players report (tables/reporting.py may_report): with the seat's claim, or
    None for an official. A seat's phone at another table is told which table it reaches."""
    claim = reporting.claim_of(request.user)
    if claim is None:
        tournament = staffed_tournament(request, slug)
        return tournament, table_of(tournament, table_id), None
    tournament = get_object_or_404(Tournament, slug=slug)
    table = table_of(tournament, table_id)
    if not reporting.may_report(request.user, table):
        raise PermissionDenied(reporting.elsewhere(claim))
    return tournament, table, claim


def meta(request: HttpRequest, source: str = "web") -> services.RequestMeta:
    return services.RequestMeta(
        source=source,
        ip_address=client_ip(request),
        user_agent=request.META.get("HTTP_USER_AGENT", ""),
    )


@login_required
def enter_home(request: HttpRequest, slug: str) -> HttpResponse:
    """The tables to report, and the ties an official decides (docs/DESIGN.md: the table is flagged
    for the official, who records the decision)."""
    if reporting.claim_of(request.user) is not None:
        return redirect("seat-table")  # a seat's phone has its own table's page
    tournament = staffed_tournament(request, slug)
    retry = request.session.pop(TIEBREAK_RETRY, None)
    seated = []
    for stage in tournament.stages.filter(status=Stage.Status.SEATED).order_by("order"):
        statuses = selectors.round_statuses(stage)
        ordered = list(stage.tables.order_by("number"))
        tables = [
            {
                "table": table,
                "rounds": sorted(statuses.get(table.pk, {}).items()),
                # The round the table's link opens offline, from the copy entry.js keeps of it.
                "offline_round": offline_round(statuses.get(table.pk, {})),
            }
            for table in ordered
        ]
        flags = tiebreak_flags(
            standings.standings_meta(stage),
            {table.number: table.pk for table in ordered},
            retry,
        )
        seated.append(
            {"stage": stage, "tables": tables, "flags": flags, "clock": clock.page_clock(stage)}
        )
    context = {
        "tournament": tournament,
        "stages": seated,
        # With no stage in play: finished, between stages, or not started (said differently).
        "finished": not seated and Stage.objects.final_of(tournament) is not None,
        "between_stages": not seated
        and tournament.stages.filter(status=Stage.Status.CLOSED).exists(),
    }
    return render(request, "scoring/enter_home.html", context)


# A tie-break decision the page refused: its form, why, and what was chosen in it (the session
# holds it from the refusal to the page the person is sent back to).
TIEBREAK_RETRY = "roundhouse_tiebreak_retry"


def tiebreak_flags(
    meta: StageStandings | None, table_ids: dict[int, int], retry: dict | None = None
) -> list[dict]:
    """The snapshot's unresolved ties, each with what its decision form needs; the form a
    decision was refused in (`retry`) says why, in the form, with what was chosen still chosen."""
    flags = []
    for flag in meta.flags if meta else []:
        table_id = table_ids.get(flag["table"])
        form_id = "-".join(
            ["tiebreak", str(meta.stage_id), str(table_id or "overall")]
            + [str(player) for player in flag["players"]]
        )
        again = retry if retry and retry.get("form") == form_id else {}
        flags.append(
            {
                **flag,
                "message": standings.tie_message(flag),  # in the reader's language
                "table_id": table_id,
                "form_id": form_id,
                "refused": again.get("error", ""),
                # (player id, name, the place chosen for them before the refusal)
                "choices": [
                    (player, name, again.get("values", {}).get(f"place-{player}", ""))
                    for player, name in zip(flag["players"], flag["names"], strict=True)
                ],
                "method": again.get("values", {}).get("method", ""),
                "note": again.get("values", {}).get("note", ""),
                "methods": TiebreakDecision.Method.choices,
            }
        )
    return flags


def to_report(statuses: dict[int, str]) -> tuple[int, str] | None:
    """The first round of a table still to report (missing, or submitted and to check), with its
    status; None once every round is in."""
    for round_no, status in sorted(statuses.items()):
        if status in ("missing", "submitted"):
            return round_no, status
    return None


def offline_round(statuses: dict[int, str]) -> int:
    """The round whose entry page a table's link opens offline: the one the link opens online
    (enter_table), its entry page in place of the check page, which is not kept; else round 1."""
    first = to_report(statuses)
    return first[0] if first else 1


@login_required
def enter_table(request: HttpRequest, slug: str, table_id: int) -> HttpResponse:
    """The QR code on a table card lands here: go to the first round still to report."""
    if reporting.claim_of(request.user) is not None:
        return redirect("seat-table")
    tournament = staffed_tournament(request, slug)
    table = table_of(tournament, table_id)
    statuses = selectors.round_statuses(table.stage).get(table.pk, {})
    first = to_report(statuses)
    if first and first[1] == "missing":
        return redirect("enter-round", slug=slug, table_id=table.pk, round_no=first[0])
    if first:
        return redirect("check-round", slug=slug, table_id=table.pk, round_no=first[0])
    sheet = selectors.table_sheet(table)
    context = {"tournament": tournament, "table": table, "sheet": sheet, "totals": sheet.totals()}
    return render(request, "scoring/table_done.html", context)


def _entry_context(
    tournament: Tournament,
    table: Table,
    round_no: int,
    *,
    data: dict[str, Any] | None = None,
    errors: dict[str, list[str]] | None = None,
    key: str | None = None,
    unusual: UnusualScores | None = None,
    by: Any = None,
    seat: SeatClaim | None = None,
) -> dict[str, Any]:
    sheet = selectors.table_sheet(table)
    this_round = sheet.round(round_no)
    before = sheet.totals_before(round_no)
    result = this_round.result
    values = {pid: pips for pid, pips in this_round.pips.items()}
    went_out = "blocked" if result and result.blocked else this_round.went_out
    if data is not None:  # what the official sent, shown back with the errors
        values = {line["player"]: line.get("pips") for line in data.get("scores", [])}
        went_out = (
            "blocked"
            if data.get("blocked")
            else next(
                (line["player"] for line in data.get("scores", []) if line.get("went_out")), None
            )
        )
    # Time called during this round, scored as it stands: entered as a blocked round.
    as_stands = time_called.round_in_play_as_stands(table.stage, table.number, round_no)
    if as_stands and result is None and data is None:
        went_out = "blocked"
    errors = errors or {}
    # Asked before saving (no JavaScript): each unusual score said beside it, with the box that
    # confirms it as typed (_posted_round).
    asked = {w.player: w for w in (unusual.warnings if unusual else []) if not w.checked}
    rows = [
        {
            "seat": seat,
            "value": "" if values.get(seat.player_id) is None else values.get(seat.player_id),
            "before": before.get(seat.player_id, 0),
            "errors": errors.get(f"scores.{seat.player_id}", []),
            "warning": (
                f"{rules.plausibility.ARE_YOU_SURE} "
                + rules.warning_message(seat.player.name, asked[seat.player_id])
                if seat.player_id in asked
                else ""
            ),
            "warning_pips": asked[seat.player_id].pips if seat.player_id in asked else "",
        }
        for seat in sheet.seats
        if seat.plays_round(round_no)
    ]
    needs_reason = result is not None and result.status == RoundResult.Status.CONFIRMED
    general = [
        # A reason sent for a round that needs none has no field to be shown beside.
        *([] if needs_reason else errors.get("reason", [])),
        *errors.get("scores", []),
        *errors.get("round_no", []),
        *errors.get("idempotency_key", []),
        *errors.get("__all__", []),
    ]
    blocked_errors = [*errors.get("non_field_errors", []), *errors.get("blocked", [])]
    if errors and not general and asked:  # one message at the top: both, where to look
        general = [FIX_AND_CHECK]
    elif errors and not general:  # the top says that nothing was saved, and where to look
        general = [_("Not saved: correct what is marked below.")]
    elif asked:  # asked together with the errors, not after they are corrected
        general = [*general, CHECK_UNUSUAL]
    # Without JavaScript, the first thing to correct takes the focus as the page loads.
    wrong = next((row for row in rows if row["errors"] or row["warning"]), None)
    if wrong is not None:
        focus = f"pips-{wrong['seat'].player_id}"
    elif blocked_errors and rows:
        focus = "went-out-first"
    else:
        focus = "reason" if errors.get("reason") and needs_reason else ""
    return {
        "tournament": tournament,
        "table": table,
        "stage": table.stage,
        "round_no": round_no,
        "engine": this_round.engine,
        "result": result,
        "rows": rows,
        "went_out": went_out,
        "general_errors": general,
        # "Nobody is marked as went out" too: beside the went-out choices.
        "blocked_errors": blocked_errors,
        "focus": focus,
        "reason_errors": errors.get("reason", []),
        "needs_reason": needs_reason,
        "idempotency_key": key or uuid.uuid4().hex,
        "api_url": reverse("round-result", args=[table.pk, round_no]),
        # A seat goes back to its table's page, where another player confirms.
        "check_url": reverse("seat-table")
        if seat is not None
        else reverse("check-round", args=[tournament.slug, table.pk, round_no]),
        "seat": seat,
        "rounds": range(1, table.stage.rounds + 1),
        "clock": clock.page_clock(table.stage),
        "time_called": _time_called_notice(table, round_no, as_stands=as_stands),
        **after_close(table.stage, by),
    }


def after_close(stage: Stage, by: Any) -> dict[str, Any]:
    """What the round's pages say of a closed stage: to an organiser who may correct it, what
    the correction undoes (`undone`, asked on the form's one button); else why it cannot be
    corrected (`closed`: an organiser can, or a later stage has results)."""
    if stage.status != Stage.Status.CLOSED:
        return {"closed": "", "undone": None}
    if not is_organiser(by, stage.tournament):
        return {"closed": closed_message(stage, "results"), "undone": None}
    undone = reopen.what_reopening_undoes(stage, correction=True)
    if undone.refusal:
        return {"closed": undone.refusal, "undone": None}
    return {"closed": "", "undone": undone}


def _time_called_notice(table: Table, round_no: int, *, as_stands: bool) -> str:
    """What the entry page says of this round once time was called at the table's stage."""
    stage = table.stage
    if time_called.called_clock(stage) is None:
        return ""
    last = time_called.last_round_of(stage, table.number)
    values = {"last": last, "table": table.number, "round": round_no}
    if round_no > last:
        return time_called.unplayed_text(last, table.number, round_no)
    if as_stands:
        return str(time_called.AS_STANDS_MESSAGE)
    return _("Time was called: round %(last)s is the last round at table %(table)s.") % values


# Said at the top when unusual scores are asked about (the page's words for UnusualScores).
CHECK_UNUSUAL = gettext_lazy(
    "Not saved yet: check the scores marked below with the players. Correct them, or tick that "
    "they are right and save again."
)
# Errors and a question together: one message, not two that each begin "Not saved".
FIX_AND_CHECK = gettext_lazy(
    "Not saved: correct what is marked below, and check the unusual scores with the players: "
    "correct them, or tick that they are right, then save again."
)


def _posted_round(request: HttpRequest, table: Table, round_no: int) -> dict[str, Any]:
    """The API's body from the entry form's fields. A score is checked when its box confirms
    the very value sent (checked-<player> holds the pips asked about): a score changed after
    the question is asked about again."""
    went_out = request.POST.get("went_out", "")
    scores = []
    for seat in table.seats.all():
        if seat.plays_round(round_no):
            pips = request.POST.get(f"pips-{seat.player_id}", "").strip()
            score = {
                "player": seat.player_id,
                "pips": pips,
                "went_out": went_out == str(seat.player_id),
            }
            confirmed = request.POST.get(f"checked-{seat.player_id}", "").strip()
            if confirmed and confirmed == pips:
                score["checked"] = True
            scores.append(score)
    return {
        "blocked": went_out == "blocked",
        "scores": scores,
        "reason": request.POST.get("reason", ""),
    }


def _typed(table: Table, data: dict[str, Any]) -> str:
    """The scores a form sent, as the official would read them back."""
    names = dict(table.seats.values_list("player_id", "player__name"))
    parts = [str(_("blocked"))] if data.get("blocked") else []
    for line in data.get("scores", []):
        text = f"{names.get(line['player'], line['player'])} {line.get('pips') or '-'}"
        if line.get("went_out"):
            text += " " + str(_("(went out)"))
        parts.append(text)
    return ", ".join(parts)


@login_required
def enter_round(request: HttpRequest, slug: str, table_id: int, round_no: int) -> HttpResponse:
    tournament, table, seat = reporting_table(request, slug, table_id)
    if not 1 <= round_no <= table.stage.rounds:
        return redirect("enter-table", slug=slug, table_id=table.pk)
    if request.method == "POST" and request.POST.get("check_only"):
        return _checked_draft(table, round_no, _posted_round(request, table, round_no))
    if request.method == "POST":
        data = _posted_round(request, table, round_no)
        key = request.POST.get("idempotency_key") or None
        try:
            with PageRefusal() as refusal:
                services.submit_round_result(
                    table=table,
                    round_no=round_no,
                    data=data,
                    by=request.user,
                    if_match=request.POST.get("if_match") or None,
                    idempotency_key=key,
                    request_path=reverse("round-result", args=[table.pk, round_no]),
                    meta=meta(request),
                    ask_unusual=True,
                )
        except UnusualScores as unusual:
            # Nothing stored: the page asks, the official corrects or confirms each score.
            context = _entry_context(
                tournament,
                table,
                round_no,
                data=data,
                errors=unusual.errors,
                unusual=unusual,
                by=request.user,
                seat=seat,
            )
            return render(request, "scoring/enter_round.html", context, status=400)
        except ValidationError as error:
            errors = (
                error.message_dict if hasattr(error, "error_dict") else {"__all__": error.messages}
            )
            # Nothing was stored under the key: the form sent again gets a key of its own.
            context = _entry_context(
                tournament, table, round_no, data=data, errors=errors, by=request.user, seat=seat
            )
            return render(request, "scoring/enter_round.html", context, status=400)
        except (VersionRequired, VersionChanged, KeyReused) as error:
            # Saved on another device since this page was loaded, or an old copy of this form
            # sent again (the browser's Back button): the form shows the scores as they are now,
            # and what this official typed is said beside them, not lost.
            why = (
                _(
                    "This form was already sent, with other scores: the browser's Back button "
                    "brings back an old copy. The form now shows the round as it is saved; save "
                    "again to replace it."
                )
                if isinstance(error, KeyReused)
                else _(
                    "Someone saved scores for this round on another device after you opened it. "
                    "The form now shows them; save again to replace them."
                )
            )
            context = _entry_context(tournament, table, round_no, by=request.user, seat=seat)
            context["general_errors"] = [
                why,
                _("You typed: %(scores)s") % {"scores": _typed(table, data)},
            ]
            status = refusal_status(error)
            return render(request, "scoring/enter_round.html", context, status=status)
        if refusal:
            refusal.say(request)
            if seat is not None:
                return redirect("seat-table")
            return redirect("enter-table", slug=slug, table_id=table.pk)
        if table.stage.status == Stage.Status.CLOSED:  # the correction reopened it
            messages.success(
                request,
                _(
                    "%(stage)s is open again and what its close did is undone. Once the players "
                    "confirm this round, close it again; a game whose next game is seated from it "
                    "closes by itself."
                )
                % {"stage": table.stage.display_name},
            )
        if seat is not None:
            messages.success(
                request,
                _("Round %(round)s is saved: another player at the table confirms it.")
                % {"round": round_no},
            )
            return redirect("seat-table")
        return redirect("check-round", slug=slug, table_id=table.pk, round_no=round_no)
    context = _entry_context(tournament, table, round_no, by=request.user, seat=seat)
    return render(request, "scoring/enter_round.html", context)


def _checked_draft(table: Table, round_no: int, data: dict[str, Any]) -> JsonResponse:
    """A draft kept on the tablet, judged as if it were sent and nothing stored (entry.js, as it
    puts the draft back): the API's 400 body, each problem under its key and the unusual scores
    not checked yet in `warnings`; {} when it would be saved."""
    try:
        errors, warnings, names = check_round_result(table=table, round_no=round_no, data=data)
    except ValidationError as error:
        errors = error.message_dict if hasattr(error, "error_dict") else {}
        warnings, names = [], {}
    except StateConflict:
        errors, warnings, names = {}, [], {}  # said when it is sent
    body: dict[str, Any] = {key: [str(m) for m in messages] for key, messages in errors.items()}
    asked = [w.as_dict() for w in warnings if not w.checked]
    if asked:
        body["warnings"] = services.warnings_body(asked, names)
    return JsonResponse(body)


@login_required
def check_round(request: HttpRequest, slug: str, table_id: int, round_no: int) -> HttpResponse:
    """The players read their round and running totals; then the official confirms."""
    if reporting.claim_of(request.user) is not None:
        return redirect("seat-table")  # a seat confirms on its table's page
    tournament = staffed_tournament(request, slug)
    table = table_of(tournament, table_id)
    result = RoundResult.objects.filter(table=table, round_no=round_no).first()
    if result is None:
        return redirect("enter-round", slug=slug, table_id=table.pk, round_no=round_no)
    if request.method == "POST":
        try:
            with PageRefusal(StateConflict, ValidationError) as refusal:
                services.confirm_round_result(
                    result=result,
                    by=request.user,
                    if_match=request.POST.get("if_match") or None,
                    meta=meta(request),
                )
        except VersionChanged as error:
            messages.error(request, str(error))
            # Back to the scores as they are now, each changed one marked with what the players
            # were shown (the version the form was sent from).
            shown = RoundResult.version_in(request.POST.get("if_match", ""))
            page = reverse("check-round", args=[slug, table.pk, round_no])
            return redirect(f"{page}?since={shown}" if shown is not None else page)
        if refusal:
            refusal.say(request)
            return redirect("check-round", slug=slug, table_id=table.pk, round_no=round_no)
        confirmed = _("Round %(round)s at table %(table)s is confirmed.")
        messages.success(request, confirmed % {"round": round_no, "table": table.number})
        if result.versions.filter(action=RoundResultVersion.Action.CORRECTED).exists():
            # A confirmed round gone back to and corrected: its history, not the next round.
            return redirect("round-history", slug=slug, table_id=table.pk, round_no=round_no)
        return redirect("enter-table", slug=slug, table_id=table.pk)
    sheet = selectors.table_sheet(table)
    before = sheet.totals_before(round_no)
    this_round = sheet.round(round_no)
    was = _scores_at_version(result, request.GET.get("since", "") or _last_approved(result))
    rows = [
        {
            "seat": seat,
            "pips": this_round.pips.get(seat.player_id),
            "went_out": this_round.went_out == seat.player_id,
            "total": before.get(seat.player_id, 0) + (this_round.pips.get(seat.player_id) or 0),
            "was": was.get(seat.player_id),
        }
        for seat in sheet.seats
        if seat.player_id in this_round.pips
    ]
    for row in rows:  # only what changed is marked
        if row["was"] == (row["pips"], row["went_out"]):
            row["was"] = None
    names = {row["seat"].player_id: row["seat"].player.name for row in rows}
    context = {
        "tournament": tournament,
        "table": table,
        "stage": table.stage,
        "round_no": round_no,
        "engine": this_round.engine,
        "result": result,
        "rows": rows,
        "flags": selectors.flags_of(result.warnings, names),
    }
    return render(request, "scoring/check_round.html", context)


def _last_approved(result: RoundResult) -> str:
    """The version the players last confirmed, while a correction of it waits for them: the
    check page marks what the correction changed. "" otherwise."""
    if result.status == RoundResult.Status.CONFIRMED:
        return ""
    version = result.versions.filter(status=RoundResult.Status.CONFIRMED).aggregate(
        latest=Max("version")
    )["latest"]
    return "" if version is None else str(version)


def _scores_at_version(result: RoundResult, version: str) -> dict[int, tuple[int, bool]]:
    """player -> (pips, went out) as an earlier version of the result had them; {} unless the
    version is an earlier one of this result."""
    if not version.isascii() or not version.isdigit() or int(version) >= result.version:
        return {}
    kept = result.versions.filter(version=int(version)).values_list("scores", flat=True).first()
    return {line["player"]: (line["pips"], line["went_out"]) for line in kept or []}


@login_required
def history_page(request: HttpRequest, slug: str, table_id: int, round_no: int) -> HttpResponse:
    """Every version of a table's round: who, when, from where, what, and why."""
    tournament = staffed_tournament(request, slug)
    table = table_of(tournament, table_id)
    result = get_object_or_404(RoundResult, table=table, round_no=round_no)
    versions = list(result.versions.select_related("by").order_by("-version"))
    seats = reporting.seats_of(version.by_id for version in versions)  # a player's phone's
    for version in versions:  # its unusual scores: checked by the official, or not
        version.seat_name = (
            reporting.seat_named(seats[version.by_id]) if version.by_id in seats else ""
        )
        names = {line["player"]: line["name"] for line in version.scores}
        version.flags = selectors.flags_of(version.warnings, names)
    context = {"tournament": tournament, "table": table, "result": result, "versions": versions}
    context.update(after_close(table.stage, request.user))
    return render(request, "scoring/history.html", context)
