"""The v1 API of a tournament's messages (organisers; docs/API.md, "Messages"): one sent to a
group, and every message listed, the system's own included, with its counts."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import NamesUnusedFields, found
from entries import message_selectors
from entries.models import Message
from entries.services import messages
from tournaments.api import tournament_or_404
from tournaments.permissions import require_organiser


class NewMessageSerializer(NamesUnusedFields, serializers.Serializer):
    to = serializers.ChoiceField(
        choices=Message.To.values,
        help_text="entrants: entered or offered a place; waitlist: waiting; players: entered and "
        "not withdrawn; not_checked_in: players registered, not checked in.",
    )
    subject = serializers.CharField(max_length=messages.SUBJECT_MAX)
    body = serializers.CharField(max_length=messages.BODY_MAX)


class FailureSerializer(serializers.Serializer):
    entry = serializers.IntegerField(source="entry_id", allow_null=True)
    name = serializers.SerializerMethodField()
    email = serializers.CharField()
    attempts = serializers.IntegerField()
    last_error = serializers.CharField(help_text="What the mail server answered, last.")

    def get_name(self, delivery) -> str:
        return delivery.entry.name if delivery.entry else ""


class MessageAnswerSerializer(serializers.ModelSerializer):
    stage = serializers.SerializerMethodField()
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    recipients = serializers.IntegerField(help_text="Deliveries: one per address.")
    sent = serializers.IntegerField()
    pending = serializers.IntegerField(help_text="Waiting to be sent, or to be tried again.")
    failed = serializers.IntegerField()
    failures = serializers.SerializerMethodField()

    class Meta:
        model = Message
        fields = [
            "id", "kind", "to", "subject", "body", "stage", "created_by", "created_at",
            "recipients", "sent", "pending", "failed", "failures",
        ]  # fmt: skip
        read_only_fields = fields

    def get_stage(self, message) -> str | None:
        return message.stage.display_name if message.stage else None

    @extend_schema(responses=FailureSerializer(many=True))
    def get_failures(self, message) -> list[dict]:
        failed = self.context.get("failures", {}).get(message.pk, [])
        return FailureSerializer(failed, many=True).data


def _answer(tournament, query) -> list[dict]:
    listed = list(query)
    failures = message_selectors.failures([m.pk for m in listed if m.failed])
    return MessageAnswerSerializer(listed, many=True, context={"failures": failures}).data


class MessageListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=MessageAnswerSerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        """Every message of the tournament, the newest first: the system's own (receipts,
        offers, seats, results) and the organisers', each with its counts and failures."""
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        return Response(_answer(tournament, message_selectors.messages(tournament)))

    @extend_schema(request=NewMessageSerializer, responses={202: MessageAnswerSerializer})
    def post(self, request: Request, slug: str) -> Response:
        """Send a message to a group: one mail to each of its entries who agreed to mail, sent
        after the answer (202: `pending` counts what is still to go)."""
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        serializer = NewMessageSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        message = messages.send_message(
            tournament=tournament, by=request.user, **serializer.validated_data
        )
        query = message_selectors.messages(tournament).filter(pk=message.pk)
        return Response(_answer(tournament, query)[0], status=status.HTTP_202_ACCEPTED)


class RetryFailedApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={202: MessageAnswerSerializer})
    def post(self, request: Request, slug: str, message_id: int) -> Response:
        """Try the message's failed deliveries again (each still goes once)."""
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        message = found(tournament.messages, pk=message_id)
        messages.retry_failed(message)
        query = message_selectors.messages(tournament).filter(pk=message.pk)
        return Response(_answer(tournament, query)[0], status=status.HTTP_202_ACCEPTED)
