"""Fees on the day and the kiosk, as pages: the console's Fees section (the treasurer's totals,
who owes, a payment recorded or deleted), the desk's part of it that the check-in page loads
from here (tables and tournaments import nothing of entries: their page only names this app's
address), and the self check-in kiosk.

The desk's part is an HTMX fragment: the check-in page (templates/tournaments/console/
players.html) holds a placeholder that gets `manage-desk-fees` on load and links to the Fees
page for a browser without script; each payment form posts here and the fragment comes back."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from config import throttles
from config.refusals import PageRefusal
from entries import rules
from entries.api import checked_in_answer, unknown_code_text
from entries.models import Entry, Payment
from entries.services import checking_in, payments
from tournaments.console import organised_tournament
from tournaments.exceptions import StateConflict
from tournaments.models import Tournament

# Seconds the kiosk shows an answer before it is ready for the next person.
KIOSK_RESET_SECONDS = 6


def _desk_context(tournament: Tournament, **extra) -> dict:
    return {
        "tournament": tournament,
        "rows": rules.desk_rows(tournament),
        "methods": Payment.Method.choices,
        **extra,
    }


@login_required
def fees(request: HttpRequest, slug: str) -> HttpResponse:
    """The console's Fees section: the treasurer's totals, each entry's fee and what it owes
    with a payment to record, and the payments recorded (each deletable if a mistake)."""
    tournament = organised_tournament(request, slug)
    context = _desk_context(
        tournament,
        section="fees",
        section_template="entries/console/fees.html",
        stages=tournament.stages.all(),
        totals=rules.fee_totals(tournament),
        payments=Payment.objects.filter(entry__tournament=tournament)
        .select_related("entry__player", "recorded_by")
        .order_by("-recorded_at", "-pk"),
    )
    return render(request, "tournaments/console.html", context)


@login_required
def desk_fees(request: HttpRequest, slug: str) -> HttpResponse:
    """The desk's part of the check-in page (an HTMX fragment): who owes, a payment each."""
    tournament = organised_tournament(request, slug)
    return render(request, "entries/_desk_fees.html", _desk_context(tournament))


@login_required
@require_POST
def record(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    """One step at the desk: the amount (what is owed, typed in already) and the method (cash
    unless changed) recorded for the entry; the desk's part again (HTMX), or the page it came
    from with the answer."""
    tournament = organised_tournament(request, slug)
    entry = get_object_or_404(tournament.entries.select_related("player"), pk=entry_id)
    with PageRefusal(ValidationError, StateConflict) as refusal:
        payment = payments.record_payment(
            entry=entry,
            amount=request.POST.get("amount"),
            method=request.POST.get("method", Payment.Method.CASH),
            note=request.POST.get("note", ""),
            by=request.user,
        )
        said = _("%(amount)s (%(method)s) recorded for %(name)s.") % {
            "amount": f"{payment.amount:.2f}",
            "method": payment.get_method_display(),
            "name": entry.name,
        }
    level = "error" if refusal else "success"
    text = refusal.text if refusal else said
    if request.htmx:
        context = _desk_context(tournament, said=text, said_level=level, said_entry=entry.pk)
        return render(
            request, "entries/_desk_fees.html", context, status=refusal.status if refusal else 200
        )
    (messages.error if refusal else messages.success)(request, text)
    return redirect("manage-fees", slug=slug)


@login_required
@require_POST
def delete(request: HttpRequest, slug: str, payment_id: int) -> HttpResponse:
    """A payment recorded by mistake deleted, with the reason typed: its history keeps it."""
    tournament = organised_tournament(request, slug)
    payment = get_object_or_404(Payment, pk=payment_id, entry__tournament=tournament)
    with PageRefusal(ValidationError) as refusal:
        payments.delete_payment(
            payment=payment, by=request.user, reason=request.POST.get("reason", "")
        )
        messages.success(
            request,
            _("The payment of %(amount)s for %(name)s is deleted; its history keeps it.")
            % {"amount": f"{payment.amount:.2f}", "name": payment.entry.name},
        )
    if refusal:
        refusal.say(request)
    return redirect("manage-fees", slug=slug)


@never_cache  # a form, and each answer is someone's: no shared cache keeps it
@require_http_methods(["GET", "HEAD", "POST"])
def kiosk(request: HttpRequest, slug: str) -> HttpResponse:
    """The self check-in kiosk: a code typed (or scanned, with kiosk.js where the browser reads
    QR codes), the answer big, then ready for the next person. Without script the form posts
    here and the answer page goes back to the empty kiosk by itself."""
    tournament = get_object_or_404(Tournament, slug=slug)
    context = {"tournament": tournament, "reset_seconds": KIOSK_RESET_SECONDS}
    status = 200
    if request.method == "POST":
        answer, level, status = _kiosk_answer(request, tournament)
        context |= {"answer": answer, "level": level}
    return render(request, "entries/kiosk.html", context, status=status)


def _kiosk_answer(request: HttpRequest, tournament: Tournament) -> tuple[str, str, int]:
    """What the kiosk says to a code posted without script, as the API would (the same limit)."""
    with PageRefusal(ValidationError) as refusal:
        code = checking_in.normalised(request.POST.get("code"))
    if refusal:
        return refusal.text, "error", 400
    entry: Entry | None = checking_in.entry_with_code(tournament, code)
    if entry is None:
        if throttles.CHECK_IN_CODES.wait(request) is not None:
            return _("Too many wrong codes: wait a minute, or go to the desk."), "error", 429
        throttles.CHECK_IN_CODES.mark(request)
        return unknown_code_text(), "error", 404
    with PageRefusal(StateConflict) as refusal:
        result = checking_in.check_in_by_code(tournament=tournament, entry=entry)
    if refusal:
        return refusal.text, "error", refusal.status
    return checked_in_answer(result)["detail"], "success", 200
