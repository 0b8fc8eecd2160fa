"""The players' way in at a table that reports its own rounds: a code typed (or the card's QR
code, which opens the second page), then the player's badge number, and the phone is that seat
(tables/reporting.py). Its table's page is scoring's (scoring/views/seat_table.py), which these
pages redirect to by name.

A wrong code says nothing but that no table has it; a wrong badge number names the table, which
the code already told. Every failed try is counted per address (config.throttles.TABLE_CODES),
as the API's claim counts them: after too many, a 429 that says how long to wait. No page here is
kept by a shared cache: each is a form, and a claim signs the browser in."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from config import throttles
from config.refusals import PageRefusal
from tables import reporting
from tables.models import CODE_LENGTH, Table


def too_many(request: HttpRequest, wait: int) -> HttpResponse:
    """429, saying how many seconds to wait (the entrants' page for the same)."""
    response = render(request, "entries/too_many.html", {"wait": wait}, status=429)
    response["Retry-After"] = str(wait)
    return response


@never_cache
@require_http_methods(["GET", "HEAD"])
def seat_start(request: HttpRequest) -> HttpResponse:
    """Type the table's code (from the card): then the badge page of that code. A code that
    cannot be one (not six letters and digits) is said here, and counts as no try."""
    typed = request.GET.get("code")
    error = ""
    if typed is not None:
        code = reporting.normalised_code(typed)
        if len(code) == CODE_LENGTH:
            return redirect("seat-claim", code=code)
        error = _(
            "A table's code is %(length)s letters and digits, printed on the table's card: "
            "check the card."
        ) % {"length": CODE_LENGTH}
    context = {"typed": typed or "", "error": error, "code_length": CODE_LENGTH}
    return render(request, "tables/seat_start.html", context, status=400 if error else 200)


def _claim_page(
    request: HttpRequest, table: Table, *, status: int = 200, **context
) -> HttpResponse:
    context = {
        "table": table,
        "stage": table.stage,
        "tournament": table.stage.tournament,
        "current": reporting.claim_of(request.user),
        **context,
    }
    if "refused" not in context:  # a table whose players do not report now: said, no form
        with PageRefusal() as refusal:
            reporting.refuse_unless_players_report(table)
        context["refused"] = refusal.text
    return render(request, "tables/seat_claim.html", context, status=status)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def seat_claim(request: HttpRequest, code: str) -> HttpResponse:
    """The table of this code, and its players' badge numbers: a player types theirs and the
    phone becomes their seat. A browser signed in as someone else (an official) is told first
    that claiming signs them out, and asked again."""
    # Counted before it is answered, in the same count as the API's claims (take: tries sent at
    # once cannot all slip in under the limit); every answer but a wrong code or badge hands
    # its try back.
    if (wait := throttles.TABLE_CODES.take(request)) is not None:
        return too_many(request, wait)
    response = _seat_claim(request, code)
    if response.status_code not in (400, 404):
        throttles.TABLE_CODES.give_back(request)
    return response


def _seat_claim(request: HttpRequest, code: str) -> HttpResponse:
    normal = reporting.normalised_code(code)
    table = (
        Table.objects.select_related("stage__tournament").filter(code=normal).first()
        if len(normal) == CODE_LENGTH
        else None
    )
    if table is None:
        return render(request, "tables/seat_no_table.html", status=404)
    if normal != code:
        return redirect("seat-claim", code=normal)
    if request.method != "POST":
        return _claim_page(request, table)
    number = request.POST.get("number", "").strip()
    signed_in = request.user.is_authenticated and reporting.claim_of(request.user) is None
    if signed_in and not request.POST.get("sign_out"):
        return _claim_page(request, table, number=number, sign_out=True)
    seat = reporting.seat_to_claim(normal, number)
    if seat is None:
        if number.isdigit():
            error = _("Badge %(number)s is not at table %(table)s: check your badge.") % {
                "number": number,
                "table": table.number,
            }
            return _claim_page(request, table, status=404, number=number, error=error)
        error = _("Type the number on your badge, in digits.")
        return _claim_page(request, table, status=400, number=number, error=error)
    with PageRefusal() as refusal:
        claim, _token = reporting.claim_seat(seat)
    if refusal:
        return _claim_page(request, table, status=refusal.status, refused=refusal.text)
    login(request, claim.user, backend=reporting.SEAT_BACKEND)
    messages.success(
        request,
        _("This phone is now %(seat)s at table %(table)s.")
        % {"seat": reporting.seat_named(seat), "table": table.number},
    )
    response = redirect("seat-table")
    # The entry page's address carries no language: it follows the one the claim was made in.
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        request.LANGUAGE_CODE,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )
    return response
