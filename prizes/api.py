"""The v1 API of prizes, for a tournament's organisers (docs/API.md, "Prizes"): a scope's prize
table read (with what it pays now) and replaced, announced and unlocked; and prizes.csv."""

from django.http import Http404, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import NamesUnusedFields
from prizes import exports, selectors, services
from prizes.models import PrizeTable
from prizes.views import division_of
from scoring.api import FirstRendererNegotiation
from scoring.exports import csv_lines
from scoring.results import final_results
from tournaments.api import tournament_or_404
from tournaments.models import Division, Tournament
from tournaments.permissions import require_organiser


class SentBackIgnored(NamesUnusedFields):
    """A table read and sent back whole (GET, then PUT) is accepted: its worked-out fields
    (cash, pot, awards ...) are dropped before the unknown ones are named."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            data = {
                k: v for k, v in data.items() if not getattr(self.fields.get(k), "read_only", False)
            }
        return super().to_internal_value(data)


class PrizeRowSerializer(SentBackIgnored, serializers.Serializer):
    place = serializers.IntegerField(
        allow_null=True, required=False, help_text="1, 2, 3 ...; null for the booby prize."
    )
    amount = serializers.DecimalField(
        max_digits=10, decimal_places=2, allow_null=True, required=False,
        help_text="Cash, in the tournament's currency (a table of typed amounts).",
    )  # fmt: skip
    percent = serializers.DecimalField(
        max_digits=5, decimal_places=2, allow_null=True, required=False,
        help_text="A share of the pot (a table paid from the fees); at most 100 in all.",
    )  # fmt: skip
    item = serializers.CharField(allow_blank=True, required=False, max_length=200)
    cash = serializers.DecimalField(
        max_digits=10, decimal_places=2, read_only=True, allow_null=True,
        help_text="What it pays: the amount, or the share of the pot rounded down.",
    )  # fmt: skip


class AwardSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    name = serializers.CharField()
    place = serializers.IntegerField()
    cash = serializers.DecimalField(max_digits=10, decimal_places=2, allow_null=True)
    items = serializers.ListField(child=serializers.CharField())
    shared_by = serializers.IntegerField(help_text="Players tied on the place (1: not tied).")
    booby = serializers.BooleanField()


class PrizeTableSerializer(SentBackIgnored, serializers.Serializer):
    scope = serializers.CharField(read_only=True, help_text="event, or division-<id>.")
    basis = serializers.ChoiceField(choices=PrizeTable.Basis.choices)
    step = serializers.ChoiceField(
        choices=["0.01", "1.00", "5.00", "10.00"], required=False,
        help_text="Percentages' cash rounded down to this (default 1.00).",
    )  # fmt: skip
    remainder_to = serializers.ChoiceField(
        choices=PrizeTable.RemainderTo.choices, required=False,
        help_text="What rounding leaves: the house (default) or the first place.",
    )  # fmt: skip
    prizes = PrizeRowSerializer(many=True)
    currency = serializers.CharField(read_only=True)
    version = serializers.IntegerField(read_only=True)
    announced_at = serializers.DateTimeField(read_only=True, allow_null=True)
    pot = serializers.DecimalField(
        max_digits=10, decimal_places=2, read_only=True, allow_null=True,
        help_text="The fees shared (kept at the announcement); null for typed amounts.",
    )  # fmt: skip
    remainder = serializers.DecimalField(
        max_digits=10, decimal_places=2, read_only=True, allow_null=True
    )
    house = serializers.DecimalField(
        max_digits=10, decimal_places=2, read_only=True, allow_null=True
    )
    awards = AwardSerializer(many=True, read_only=True)


class AnnounceSerializer(serializers.Serializer):
    version = serializers.IntegerField(
        required=False, help_text="The version read: refused (409) if the table changed since."
    )


class UnlockSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=300, help_text="Why; kept in the table's log.")


def _scope(request: Request, slug: str, scope: str) -> tuple[Tournament, Division | None]:
    tournament = tournament_or_404(slug)
    require_organiser(request.user, tournament)
    try:
        return tournament, division_of(tournament, scope)
    except Http404:
        raise NotFound("This tournament has no such division.") from None


def table_answer(tournament: Tournament, division: Division | None) -> dict:
    table = selectors.tables_of(tournament).get(division.pk if division else None)
    answer = {
        "scope": selectors.scope_key(division),
        "basis": PrizeTable.Basis.AMOUNTS,
        "step": "1.00",
        "remainder_to": PrizeTable.RemainderTo.HOUSE,
        "prizes": [],
        "currency": tournament.currency,
        "version": 0,
        "announced_at": None,
        "pot": None,
        "remainder": None,
        "house": None,
        "awards": [],
    }
    if table is None:
        return answer
    worked = selectors.worked_out(table)
    results = final_results(tournament)
    players = {p.player.pk: p.player for p in results.placings}
    answer |= {
        "basis": table.basis,
        "step": f"{table.step:.2f}",
        "remainder_to": table.remainder_to,
        "prizes": [
            {**row, "cash": worked.cash_of(prize)}
            for row, prize in zip(services.rows_of(table), worked.prizes, strict=True)
        ],
        "version": table.version,
        "announced_at": table.announced_at,
        "pot": worked.pot,
        "remainder": worked.remainder,
        "house": worked.house,
        "awards": [
            {
                "number": players[a.player].number,
                "name": players[a.player].name,
                "place": a.place,
                "cash": a.cash,
                "items": list(a.items),
                "shared_by": a.shared_by,
                "booby": a.booby,
            }
            for a in selectors.awards_of(worked, results)
        ],
    }
    return answer


class PrizeTableApi(APIView):
    """A scope's prize table: GET it with what it pays now, PUT it whole (refused, 409, once
    announced)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: PrizeTableSerializer})
    def get(self, request: Request, slug: str, scope: str) -> Response:
        tournament, division = _scope(request, slug, scope)
        return Response(PrizeTableSerializer(table_answer(tournament, division)).data)

    @extend_schema(
        request=PrizeTableSerializer,
        responses={200: PrizeTableSerializer},
    )
    def put(self, request: Request, slug: str, scope: str) -> Response:
        tournament, division = _scope(request, slug, scope)
        body = PrizeTableSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        from_fees = data["basis"] != PrizeTable.Basis.AMOUNTS
        rows, booby = [], None
        for row in data["prizes"]:
            cash = row.get("percent") if from_fees else row.get("amount")
            other = row.get("amount") if from_fees else row.get("percent")
            if other is not None:
                field = "amount" if from_fees else "percent"
                raise serializers.ValidationError(
                    {"prizes": [f"{field} does not go with basis {data['basis']}: "
                                f"{'percent' if from_fees else 'amount'} does."]}
                )  # fmt: skip
            parsed = services.Row(row.get("place"), cash, row.get("item", ""))
            if row.get("place") is None:
                if booby is not None:
                    raise serializers.ValidationError({"prizes": ["One booby prize at most."]})
                booby = parsed
            else:
                rows.append(parsed)
        services.save_table(
            tournament=tournament, division=division, basis=data["basis"], rows=rows,
            booby=booby, step=data.get("step", "1.00"),
            remainder_to=data.get("remainder_to", PrizeTable.RemainderTo.HOUSE), by=request.user,
        )  # fmt: skip
        return Response(PrizeTableSerializer(table_answer(tournament, division)).data)


class AnnouncePrizesApi(APIView):
    """Announce a scope's table: the results show it, and it is locked with its pot."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=AnnounceSerializer, responses={200: PrizeTableSerializer})
    def post(self, request: Request, slug: str, scope: str) -> Response:
        tournament, division = _scope(request, slug, scope)
        body = AnnounceSerializer(data=request.data if isinstance(request.data, dict) else {})
        body.is_valid(raise_exception=True)
        services.announce(
            tournament=tournament,
            division=division,
            by=request.user,
            version=body.validated_data.get("version"),
        )
        return Response(PrizeTableSerializer(table_answer(tournament, division)).data)


class UnlockPrizesApi(APIView):
    """Unlock an announced table, saying why (kept in its log): it leaves the results."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=UnlockSerializer, responses={200: PrizeTableSerializer})
    def post(self, request: Request, slug: str, scope: str) -> Response:
        tournament, division = _scope(request, slug, scope)
        data = request.data if isinstance(request.data, dict) else {}
        services.unlock(
            tournament=tournament, division=division, reason=data.get("reason"), by=request.user
        )
        return Response(
            PrizeTableSerializer(table_answer(tournament, division)).data,
            status=status.HTTP_200_OK,
        )


class PrizesExportApi(APIView):
    """prizes.csv, as the other exports (scoring.api.ExportCsvApi)."""

    permission_classes = [IsAuthenticated]
    content_negotiation_class = FirstRendererNegotiation

    @extend_schema(
        operation_id="tournaments_prizes_export_retrieve",
        description="prizes.csv, for organisers: who gets what of each table (the treasurer's "
        "list), named <slug>-prizes.csv; UTF-8 with a byte-order mark.",
        responses={(200, "text/csv"): OpenApiTypes.STR},
    )
    def get(self, request: Request, slug: str) -> StreamingHttpResponse:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        response = StreamingHttpResponse(
            csv_lines(exports.HEADER, exports.rows(tournament)),
            content_type="text/csv; charset=utf-8",
        )
        prefix = "practice-" if tournament.practice else ""
        response["Content-Disposition"] = f'attachment; filename="{prefix}{slug}-prizes.csv"'
        return response
