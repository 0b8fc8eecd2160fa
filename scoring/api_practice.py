"""The v1 API of a practice tournament's reset."""

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api_schema import refused
from scoring.services import practice
from tournaments.api import TournamentSerializer, tournament_or_404
from tournaments.permissions import require_organiser


class ResetPracticeApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        description="Reset a practice tournament after its rehearsal (organisers; officials "
        "403): every seat, result, tie-break decision, standing and placing removed, the stages "
        "a close created removed and the others pending again. Its players and their check-ins, "
        "divisions, stages' settings and staff stay, so the real event starts from it (PATCH "
        "practice: false). Resetting twice is harmless. 409 for a tournament that is not "
        "practice, and nothing changes.",
        request=None,
        responses={
            200: TournamentSerializer,
            409: refused(
                "It is not a practice tournament: correct a result, or unseat a stage, instead."
            ),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        tournament = practice.reset_practice(tournament=tournament, by=request.user)
        return Response(TournamentSerializer(tournament).data)
