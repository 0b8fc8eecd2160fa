"""The v1 API's CSV exports of a tournament, for its organisers."""

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.views import APIView

from scoring import exports
from tournaments.api import tournament_or_404
from tournaments.permissions import require_organiser


class FirstRendererNegotiation(BaseContentNegotiation):
    """CSV is CSV whatever the Accept header says; errors still render as JSON."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class ExportCsvApi(APIView):
    permission_classes = [IsAuthenticated]
    content_negotiation_class = FirstRendererNegotiation

    @extend_schema(
        operation_id="tournaments_exports_retrieve",
        description="A CSV export, for organisers, named <slug>-<name>.csv (practice-<slug>-"
        "<name>.csv for a practice tournament). UTF-8 with a byte-order mark (spreadsheets "
        'need it): read it as utf-8-sig, or csv.DictReader names the first column "\\ufeffstage".',
        responses={(200, "text/csv"): OpenApiTypes.STR},
        parameters=[
            OpenApiParameter("name", str, OpenApiParameter.PATH, enum=list(exports.EXPORTS))
        ],
    )
    def get(self, request: Request, slug: str, name: str) -> StreamingHttpResponse:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        header, rows = exports.EXPORTS[name]
        response = StreamingHttpResponse(
            exports.csv_lines(header, rows(tournament)), content_type="text/csv; charset=utf-8"
        )
        # A practice tournament's files say so first: never taken for the real event's.
        prefix = "practice-" if tournament.practice else ""
        filename = f"{prefix}{tournament.slug}-{name}.csv"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
