"""The final results, for everyone: the page (it prints cleanly: the stylesheet's print rules),
the same as a PDF download, and a certificate for each placed player, to print.

Before the final has placed everyone, the page says plainly that the results are not final and
shows only the stages already closed; the PDF and the certificates, which exist only for a
decided event, answer 404 with that same page, so a link to them followed early explains
itself."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _

from scoring import standings, time_called
from scoring.results import (
    CERTIFICATE_PLACES,
    FinalResults,
    certificate_place,
    certificate_prize,
    certificates_for,
    event_dates,
    final_results,
)
from scoring.standings_html import standings_table
from tournaments.csvfiles import whole_number
from tournaments.models import Tournament


def _results(slug: str) -> FinalResults:
    return final_results(get_object_or_404(Tournament, slug=slug))


def _page(request: HttpRequest, results: FinalResults, *, status: int = 200) -> HttpResponse:
    tournament = results.tournament
    context = {
        "tournament": tournament,
        "results": results,
        "dates": event_dates(results),
        "stages": [
            {
                "stage": stage,
                "table": standings_table(
                    tournament, stage, standings.standings_meta(stage), page=None
                ),
                "time_called": time_called.time_called_summary(stage),
            }
            for stage in results.stages
        ],
    }
    return render(request, "scoring/results.html", context, status=status)


def results_page(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, _results(slug))


def results_download(request: HttpRequest, slug: str) -> HttpResponse:
    """The final results as a PDF, in the request's language."""
    results = _results(slug)
    if not results.decided:
        return _page(request, results, status=404)
    # Here, not at the top: reportlab stays out of the web workers until a PDF is asked for.
    from scoring import results_pdf

    pdf = results_pdf.results_pdf(results, event_dates(results))
    response = HttpResponse(pdf, content_type="application/pdf")
    prefix = "practice-" if results.tournament.practice else ""  # as the CSV files say it
    response["Content-Disposition"] = f'attachment; filename="{prefix}{slug}-results.pdf"'
    patch_vary_headers(response, ["Accept-Language", "Cookie"])
    return response


def certificates(request: HttpRequest, slug: str) -> HttpResponse:
    """A certificate for each player placed 1st to ?places= (the podium unless asked), one per
    printed page. A number of places that is not a whole number from 1 to the last place is
    refused (400) and the form says why; no certificates are shown then. Players tied on a
    place all get one: with ?places=3, both of two players third."""
    results = _results(slug)
    if not results.decided:
        return _page(request, results, status=404)
    # Places run 1 to at most the number of players placed (of the largest division).
    last = max(len(group.placings) for group in results.divisions or [results])
    asked = request.GET.get("places", "").strip()
    places = whole_number(asked) if asked else min(CERTIFICATE_PLACES, last)
    error = ""
    if places is None or not 1 <= places <= last:
        error = _(
            "Enter the last place to print certificates for, a whole number from 1 to "
            "%(last)s: “%(value)s” is not one."
        ) % {"last": last, "value": asked[:20]}
    chosen = [] if error else certificates_for(results, places)
    context = {
        "tournament": results.tournament,
        "dates": event_dates(results),
        "certificates": [
            (placed, certificate_place(placed), certificate_prize(placed)) for placed in chosen
        ],
        "places": asked if error else places,
        "last": last,
        "error": error,
    }
    return render(request, "scoring/certificates.html", context, status=400 if error else 200)
