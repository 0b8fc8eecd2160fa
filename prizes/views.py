"""The console's Prizes section, for the tournament's organisers: each scope's prize table (the
whole event, each division), its form, the cash worked out before it is announced, the
announcement (asked first: it locks the table) and the unlock (saying why). Every write goes
through prizes.services; drawn inside the console (tournaments/console.py `_console`)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from config.refusals import PageRefusal
from prizes import selectors, services
from prizes.models import PrizeTable
from scoring.results import final_results
from tournaments.console import _console, organised_tournament
from tournaments.exceptions import StateConflict
from tournaments.models import Division, Tournament

BLANK_ROWS = 3  # empty rows under the table's own, for places to add


def division_of(tournament: Tournament, scope: str) -> Division | None:
    """The division of a scope's address ('event': None); 404 for one the tournament lacks."""
    if scope == "event":
        return None
    division = tournament.divisions.filter(pk=int(scope.removeprefix("division-"))).first()
    if division is None:
        raise Http404("This tournament has no such division.")
    return division


def _scopes(tournament: Tournament) -> list[dict]:
    """Each scope with its table (None: none yet) and the cash worked out."""
    tables = selectors.tables_of(tournament)
    results = final_results(tournament)
    scopes = []
    for division in [None, *tournament.divisions.order_by("order", "name")]:
        table = tables.get(division.pk if division else None)
        worked = selectors.worked_out(table) if table else None
        scopes.append(
            {
                "division": division,
                "key": selectors.scope_key(division),
                "name": selectors.scope_name(division),
                "in_sentence": selectors.scope_in_sentence(division),
                "table": table,
                "worked": worked,
                "rows": _shown_rows(worked, tournament.currency) if worked else [],
                "winners": _winners(worked, results) if worked else [],
            }
        )
    return scopes


def _shown_rows(worked: selectors.Worked, currency: str) -> list[dict]:
    rows = []
    for prize in worked.prizes:
        cash = worked.cash_of(prize)
        rows.append(
            {
                "prize": prize,
                "cash": "" if cash is None else selectors.cash_text(cash, currency),
            }
        )
    return rows


def _winners(worked: selectors.Worked, results) -> list[dict]:
    by_player = {p.player.pk: p.player for p in results.placings}
    currency = results.tournament.currency
    return [
        {"player": by_player[a.player], "award": a, "text": selectors.award_text(a, currency)}
        for a in selectors.awards_of(worked, results)
    ]


@login_required
def prizes_section(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    context = {"section_template": "prizes/console.html", "scopes": _scopes(tournament)}
    return _console(request, tournament, section="prizes", section_context=context)


def _form_rows(table: PrizeTable | None) -> tuple[list[dict], dict]:
    """The form's rows as stored (the cash as typed: an amount, or a percentage), and blanks."""
    rows, booby = [], {"cash": "", "item": ""}
    for prize in table.prizes.all() if table else []:
        cash = prize.percent if prize.percent is not None else prize.amount
        row = {"place": prize.place or "", "cash": "" if cash is None else cash, "item": prize.item}
        if prize.place is None:
            booby = row
        else:
            rows.append(row)
    rows.sort(key=lambda r: r["place"])
    return rows + [{"place": "", "cash": "", "item": ""}] * BLANK_ROWS, booby


def _posted_rows(request: HttpRequest) -> tuple[list[services.Row], services.Row]:
    try:
        count = min(int(request.POST.get("rows", "0")), services.MOST_PLACES + BLANK_ROWS)
    except ValueError:
        count = 0
    rows = [
        services.Row(
            request.POST.get(f"place-{n}", ""),
            request.POST.get(f"cash-{n}", ""),
            request.POST.get(f"item-{n}", ""),
        )
        for n in range(count)
    ]
    booby = services.Row(
        None, request.POST.get("booby-cash", ""), request.POST.get("booby-item", "")
    )
    return rows, booby


def _scope_page(
    request: HttpRequest,
    tournament: Tournament,
    division: Division | None,
    *,
    status: int = 200,
    error: str = "",
    posted: dict | None = None,
) -> HttpResponse:
    scope = next(s for s in _scopes(tournament) if s["division"] == division)
    table = scope["table"]
    rows, booby = _form_rows(table)
    settings = {
        "basis": table.basis if table else PrizeTable.Basis.AMOUNTS,
        "step": f"{(table.step if table else 1):.2f}",
        "remainder_to": table.remainder_to if table else PrizeTable.RemainderTo.HOUSE,
    }
    if posted is not None:
        rows, booby, settings = posted["rows"], posted["booby"], posted["settings"]
    context = {
        "section_template": "prizes/scope.html",
        "scope": scope,
        "form_rows": rows,
        "booby": booby,
        "settings": settings,
        "bases": PrizeTable.Basis.choices,
        "steps": [(f"{s:.2f}", services.plain(s)) for s in PrizeTable.STEPS],
        "remainders": PrizeTable.RemainderTo.choices,
        "error": error,
        "log": table.events.select_related("actor")[:20] if table else [],
    }
    return _console(request, tournament, status=status, section="prizes", section_context=context)


@login_required
def scope_page(request: HttpRequest, slug: str, scope: str) -> HttpResponse:
    """One scope's table: its form (POST saves it), what it pays, announce and unlock."""
    tournament = organised_tournament(request, slug)
    division = division_of(tournament, scope)
    if request.method != "POST":
        return _scope_page(request, tournament, division)
    rows, booby = _posted_rows(request)
    settings = {
        "basis": request.POST.get("basis", ""),
        "step": request.POST.get("step", ""),
        "remainder_to": request.POST.get("remainder_to", ""),
    }
    with PageRefusal(ValidationError, StateConflict) as refusal:
        services.save_table(
            tournament=tournament, division=division, rows=rows, booby=booby, by=request.user,
            **settings,
        )  # fmt: skip
    if refusal:
        posted = {
            "rows": [{"place": r.place, "cash": r.cash, "item": r.item} for r in rows],
            "booby": {"cash": booby.cash, "item": booby.item},
            "settings": settings,
        }
        return _scope_page(
            request, tournament, division, status=refusal.status, error=refusal.text, posted=posted
        )
    messages.success(request, _saved_text(division))
    return redirect("manage-prizes-scope", slug=slug, scope=scope)


def _saved_text(division: Division | None) -> str:
    return _("The prizes of %(scope)s are saved. Check what they pay, then announce them.") % {
        "scope": selectors.scope_in_sentence(division)
    }


@login_required
def announce(request: HttpRequest, slug: str, scope: str) -> HttpResponse:
    """Asks first (what it pays, and that it locks the table); announced on the answer."""
    tournament = organised_tournament(request, slug)
    division = division_of(tournament, scope)
    if request.method != "POST":
        return redirect("manage-prizes-scope", slug=slug, scope=scope)
    scope_info = next(s for s in _scopes(tournament) if s["division"] == division)
    if request.POST.get("confirm") != "yes":
        context = {"tournament": tournament, "scope": scope_info}
        return render(request, "prizes/confirm_announce.html", context)
    version = request.POST.get("version", "")
    with PageRefusal(ValidationError, StateConflict) as refusal:
        services.announce(
            tournament=tournament,
            division=division,
            by=request.user,
            version=int(version) if version.isdigit() else None,
        )
        messages.success(
            request,
            _(
                "The prizes of %(scope)s are announced: the results show them and they are "
                "locked. To change them, unlock them, saying why."
            )
            % {"scope": scope_info["in_sentence"]},
        )
    if refusal:
        refusal.say(request)
    return redirect("manage-prizes-scope", slug=slug, scope=scope)


@login_required
def unlock(request: HttpRequest, slug: str, scope: str) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    division = division_of(tournament, scope)
    if request.method != "POST":
        return redirect("manage-prizes-scope", slug=slug, scope=scope)
    with PageRefusal(ValidationError, StateConflict) as refusal:
        services.unlock(
            tournament=tournament,
            division=division,
            reason=request.POST.get("reason", ""),
            by=request.user,
        )
        messages.success(
            request,
            _(
                "The prizes of %(scope)s are unlocked and no longer on the results: change "
                "them, then announce them again."
            )
            % {"scope": selectors.scope_in_sentence(division)},
        )
    if refusal:
        refusal.say(request)
    return redirect("manage-prizes-scope", slug=slug, scope=scope)
