"""The v1 API of entries: anyone enters while entries are open and manages their entry at its
private address; a tournament's organisers list and change every entry (docs/API.md, "Entries
before the day")."""

from django.http import StreamingHttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, Throttled
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config import throttles
from config.api import NamesUnusedFields, found
from config.api_schema import refused
from entries import exports, rules
from entries.models import Entry, Payment
from entries.selectors import entry_data
from entries.services import checking_in, entering, payments, privacy
from scoring.api import FirstRendererNegotiation
from scoring.exports import csv_lines
from tournaments.api import tournament_or_404
from tournaments.api_divisions import DivisionNameField
from tournaments.links import absolute_url, site_origin
from tournaments.permissions import require_organiser
from tournaments.services.divisions import OLDEST


class EntrySerializer(NamesUnusedFields, serializers.Serializer):
    """What an entrant sends (and may change at the entry's address)."""

    name = serializers.CharField(max_length=120)
    email = serializers.CharField(max_length=254, help_text="The entry's link is mailed here.")
    phone = serializers.CharField(max_length=40, allow_blank=True, required=False)
    household = serializers.CharField(
        max_length=120,
        allow_blank=True,
        required=False,
        help_text="People of one household are seated apart.",
    )
    age = serializers.IntegerField(min_value=0, max_value=OLDEST, allow_null=True, required=False)
    birth_year = serializers.IntegerField(min_value=1, allow_null=True, required=False)
    division = DivisionNameField(max_length=80)
    club = serializers.CharField(max_length=120, allow_blank=True, required=False)
    chapter = serializers.CharField(max_length=120, allow_blank=True, required=False)
    messages_ok = serializers.BooleanField(
        help_text="Agreed to mail about the event (where to sit, the results, the organisers' "
        "news). The entry's own receipts and offers are mailed either way."
    )


class EntryChangeSerializer(EntrySerializer):
    """A change at the entry's address: its details, not its age (its division is decided)."""

    age = None
    birth_year = None
    division = None


class EntryAnswerSerializer(serializers.ModelSerializer):
    """An entry as its entrant sees it at its private address."""

    number = serializers.SerializerMethodField(help_text="The badge number, once entered.")
    division = serializers.SlugRelatedField(slug_field="name", read_only=True, allow_null=True)
    email = serializers.CharField(read_only=True, help_text="Empty once the details are erased.")
    check_in_code = serializers.SerializerMethodField(
        help_text="Typed or scanned at the kiosk on the day; once entered."
    )
    fee_due = serializers.DecimalField(max_digits=8, decimal_places=2, read_only=True)
    paid = serializers.SerializerMethodField(help_text="Paid so far, net of refunds.")
    manage_url = serializers.SerializerMethodField()
    page_url = serializers.SerializerMethodField(help_text="The entry's page, for a person.")

    class Meta:
        model = Entry
        fields = [
            "id", "status", "waitlist_position", "offer_expires_at", "number", "name", "email",
            "phone", "household", "age", "birth_year", "division", "club", "chapter",
            "messages_ok", "check_in_code", "fee_due", "paid", "manage_url", "page_url",
        ]  # fmt: skip
        read_only_fields = fields

    def get_number(self, entry: Entry) -> int | None:
        return entry.player.number if entry.player_id else None

    def get_check_in_code(self, entry: Entry) -> str | None:
        return entry.check_in_code if entry.status == Entry.Status.ENTERED else None

    def get_paid(self, entry: Entry) -> str:
        return f"{rules.paid(entry):.2f}"

    def get_manage_url(self, entry: Entry) -> str:
        return absolute_url(self.context["request"], reverse("api-entry", args=[entry.manage_key]))

    def get_page_url(self, entry: Entry) -> str:
        path = reverse("entry-manage", args=[entry.tournament.slug, entry.manage_key])
        return absolute_url(self.context["request"], path)


class OrganiserEntrySerializer(EntryAnswerSerializer):
    """An entry as the tournament's organisers see it."""

    manage_url = None
    page_url = None

    class Meta(EntryAnswerSerializer.Meta):
        fields = [
            *[f for f in EntryAnswerSerializer.Meta.fields if f not in ("manage_url", "page_url")],
            "entered_at",
        ]
        read_only_fields = fields

    def get_check_in_code(self, entry: Entry) -> str | None:
        return entry.check_in_code


class OrganiserChangeSerializer(NamesUnusedFields, serializers.Serializer):
    """An organiser's change: details, the fee due, a status (entered: enter by hand; refused;
    withdrawn) or a place on the waitlist."""

    name = serializers.CharField(max_length=120, required=False)
    email = serializers.CharField(max_length=254, required=False)
    phone = serializers.CharField(max_length=40, allow_blank=True, required=False)
    household = serializers.CharField(max_length=120, allow_blank=True, required=False)
    division = DivisionNameField(max_length=80)
    club = serializers.CharField(max_length=120, allow_blank=True, required=False)
    chapter = serializers.CharField(max_length=120, allow_blank=True, required=False)
    messages_ok = serializers.BooleanField(required=False)
    fee_due = serializers.DecimalField(max_digits=8, decimal_places=2, min_value=0, required=False)
    status = serializers.ChoiceField(
        choices=["entered", "refused", "withdrawn"],
        required=False,
        help_text="entered: enter a waiting, offered, expired or refused entry by hand (over the "
        "cap if need be); refused: turn down a waiting or offered entry; withdrawn: withdraw it.",
    )
    waitlist_position = serializers.IntegerField(
        min_value=1, required=False, help_text="Move a waiting entry to this place (1 is next)."
    )


def _details(data: dict) -> entering.Details:
    return entering.Details(**{k: v for k, v in data.items() if v is not None or k == "division"})


# The private address's answers beyond its shape: a wrong one is a 404, and too many wrong ones
# from one address a 429 (config/throttles.py ENTRY_KEYS).
KEY_ANSWERS = {
    404: refused("There is no entry at this address.", "Error"),
    429: refused("Too many wrong private addresses from this address in a minute.", "Error"),
}

ENTER_CONFLICT = refused(
    "Entries are closed (not yet open, past their closing time, or the first stage seated), the "
    "tournament is full without a waitlist, or the same name and email already hold an entry "
    "(its link is mailed again); nothing was stored."
)


class EntryListApi(APIView):
    permission_classes = [AllowAny]  # anyone enters; the list is the organisers'

    @extend_schema(
        responses={
            200: OrganiserEntrySerializer(many=True),
            401: refused("Not signed in.", "Error"),
            403: refused("Not an organiser of this tournament.", "Error"),
        }
    )
    def get(self, request: Request, slug: str) -> Response:
        """Every entry, in the order they came, with its status, place, code and fees
        (organisers only)."""
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        entering.apply_expiry(tournament)
        entries = tournament.entries.select_related("player", "division", "tournament")
        return Response(OrganiserEntrySerializer(entries, many=True).data)

    @extend_schema(
        request=EntrySerializer,
        responses={
            201: EntryAnswerSerializer,
            409: ENTER_CONFLICT,
            429: refused("Too many entries from this address in a minute.", "Error"),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        """Enter the tournament: `entered` while places are free (a player from then on, with a
        badge number), else `waitlisted` with a place; the entry's link is mailed."""
        tournament = tournament_or_404(slug)
        if (wait := throttles.ENTRIES.wait(request._request)) is not None:
            raise Throttled(wait)
        throttles.ENTRIES.mark(request._request)
        serializer = EntrySerializer(data=request.data, context={"tournament": tournament})
        serializer.is_valid(raise_exception=True)
        entry = entering.enter(
            tournament=tournament,
            details=_details(serializer.validated_data),
            origin=site_origin(request._request),
            language=request.LANGUAGE_CODE,
        )
        answer = EntryAnswerSerializer(entry, context={"request": request})
        return Response(answer.data, status=status.HTTP_201_CREATED)


def entry_at(request: Request, key: str) -> Entry:
    """The entry whose private address this is; a wrong one is a 404 that says nothing more,
    and too many wrong ones from an address a 429."""
    if (wait := throttles.ENTRY_KEYS.wait(request._request)) is not None:
        raise Throttled(wait)
    entry = Entry.objects.select_related("tournament", "player", "division").filter(manage_key=key)
    found_entry = entry.first() if key else None
    if found_entry is None:
        throttles.ENTRY_KEYS.mark(request._request)
        raise NotFound(_("There is no entry at this address."))
    entering.apply_expiry(found_entry.tournament)
    found_entry.refresh_from_db()
    return found_entry


class EntryApi(APIView):
    """The entrant's own entry at its private address (no account)."""

    permission_classes = [AllowAny]
    authentication_classes = []  # the key in the address is the credential

    @extend_schema(responses={200: EntryAnswerSerializer, **KEY_ANSWERS})
    def get(self, request: Request, key: str) -> Response:
        entry = entry_at(request, key)
        return Response(EntryAnswerSerializer(entry, context={"request": request}).data)

    @extend_schema(
        request=EntryChangeSerializer, responses={200: EntryAnswerSerializer, **KEY_ANSWERS}
    )
    def patch(self, request: Request, key: str) -> Response:
        """Change the entry's details (name, email, phone, household, club, chapter, messages)."""
        entry = entry_at(request, key)
        serializer = EntryChangeSerializer(
            data=request.data, partial=True, context={"tournament": entry.tournament}
        )
        serializer.is_valid(raise_exception=True)
        entry = entering.update(entry, changes=dict(serializer.validated_data))
        return Response(EntryAnswerSerializer(entry, context={"request": request}).data)

    @extend_schema(
        responses={
            204: OpenApiResponse(description="Withdrawn."),
            409: refused("Already out."),
            **KEY_ANSWERS,
        }
    )
    def delete(self, request: Request, key: str) -> Response:
        """Withdraw the entry; a place freed before seating is offered to the first waiting."""
        entering.withdraw(entry_at(request, key))
        return Response(status=status.HTTP_204_NO_CONTENT)


class AcceptOfferApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(
        request=None,
        responses={
            200: EntryAnswerSerializer,
            409: refused("No place offered is open."),
            **KEY_ANSWERS,
        },
    )
    def post(self, request: Request, key: str) -> Response:
        """Take the place offered: `entered`, a player from now on."""
        entry = entering.accept_offer(entry_at(request, key))
        return Response(EntryAnswerSerializer(entry, context={"request": request}).data)


class OrganiserEntryApi(APIView):
    permission_classes = [IsAuthenticated]

    def _entry(self, request: Request, slug: str, entry_id: int) -> Entry:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        return found(tournament.entries.select_related("tournament", "player"), pk=entry_id)

    @extend_schema(responses=OrganiserEntrySerializer)
    def get(self, request: Request, slug: str, entry_id: int) -> Response:
        return Response(OrganiserEntrySerializer(self._entry(request, slug, entry_id)).data)

    @extend_schema(request=OrganiserChangeSerializer, responses=OrganiserEntrySerializer)
    def patch(self, request: Request, slug: str, entry_id: int) -> Response:
        """Change an entry's details or fee due, enter, refuse or withdraw it, or move it on
        the waitlist."""
        entry = self._entry(request, slug, entry_id)
        serializer = OrganiserChangeSerializer(
            data=request.data, partial=True, context={"tournament": entry.tournament}
        )
        serializer.is_valid(raise_exception=True)
        changes = dict(serializer.validated_data)
        new_status = changes.pop("status", None)
        position = changes.pop("waitlist_position", None)
        if changes:
            entry = entering.update(entry, changes=changes, by=request.user)
        if position is not None:
            entry = entering.move(entry, position=position, by=request.user)
        if new_status == Entry.Status.ENTERED:
            entry = entering.admit(entry, by=request.user)
        elif new_status == Entry.Status.REFUSED:
            entry = entering.refuse(entry, by=request.user)
        elif new_status == Entry.Status.WITHDRAWN:
            entry = entering.withdraw(entry, by=request.user)
        entry.refresh_from_db()
        return Response(OrganiserEntrySerializer(entry).data)


class EntryDataApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(
        responses={
            200: OpenApiResponse(
                response=OpenApiTypes.OBJECT,
                description="The entry's data: `tournament`, `entry` (every detail kept), "
                "`payments`, `messages` (each mail with its text), `downloaded_at`.",
            ),
            **KEY_ANSWERS,
        }
    )
    def get(self, request: Request, key: str) -> Response:
        """Everything kept about the entry, for its entrant to download."""
        return Response(entry_data(entry_at(request, key)))


class EraseEntryApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(
        request=None,
        responses={
            200: EntryAnswerSerializer,
            409: refused("The entry's contact details were erased already."),
            **KEY_ANSWERS,
        },
    )
    def post(self, request: Request, key: str) -> Response:
        """Erase the entrant's email, phone, age and year of birth now, from the entry, its
        history and its mails. A waiting or offered entry, or one entered before its first stage
        is seated, is withdrawn first (`status` says so); after, the results keep the name."""
        entry, _withdrawn = privacy.erase_by_entrant(entry_at(request, key))
        entry.refresh_from_db()
        return Response(EntryAnswerSerializer(entry, context={"request": request}).data)


class PaymentSerializer(serializers.ModelSerializer):
    """A payment as the organisers see it (a refund negative)."""

    amount = serializers.DecimalField(max_digits=8, decimal_places=2, read_only=True)
    recorded_by = serializers.SerializerMethodField()

    class Meta:
        model = Payment
        fields = ["id", "entry", "amount", "method", "note", "recorded_by", "recorded_at"]
        read_only_fields = fields

    def get_recorded_by(self, payment: Payment) -> str | None:
        return payment.recorded_by.get_username() if payment.recorded_by else None


class PaymentRequestSerializer(serializers.Serializer):
    """A payment to record; its values are checked by the service (each wrong one by field)."""

    amount = serializers.CharField(
        help_text='A decimal string ("10.00"); a refund is negative ("-10.00").'
    )
    method = serializers.CharField(help_text="cash, cheque, card, transfer, waived or refund.")
    note = serializers.CharField(allow_blank=True, required=False, max_length=300)


class PaymentDeleteSerializer(serializers.Serializer):
    reason = serializers.CharField(help_text="Why it was recorded by mistake (kept in history).")


def _organised_entry(request: Request, slug: str, entry_id: int) -> Entry:
    tournament = tournament_or_404(slug)
    require_organiser(request.user, tournament)
    return found(tournament.entries.select_related("tournament", "player"), pk=entry_id)


class PaymentListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=PaymentSerializer(many=True))
    def get(self, request: Request, slug: str, entry_id: int) -> Response:
        """The entry's payments, oldest first (organisers only)."""
        entry = _organised_entry(request, slug, entry_id)
        payments = entry.payments.select_related("recorded_by")
        return Response(PaymentSerializer(payments, many=True).data)

    @extend_schema(request=PaymentRequestSerializer, responses={201: PaymentSerializer})
    def post(self, request: Request, slug: str, entry_id: int) -> Response:
        """Record a payment: cash, cheque, card, transfer or waived (positive), or a refund
        (negative, at most the money paid). A payment recorded by mistake is deleted instead
        (DELETE .../payments/{id}/)."""
        entry = _organised_entry(request, slug, entry_id)
        data = request.data if isinstance(request.data, dict) else {}
        payment = payments.record_payment(
            entry=entry,
            amount=data.get("amount"),
            method=data.get("method"),
            note=data.get("note", ""),
            by=request.user,
        )
        return Response(PaymentSerializer(payment).data, status=status.HTTP_201_CREATED)


class PaymentApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=PaymentDeleteSerializer,
        responses={
            204: OpenApiResponse(description="Deleted; its history keeps it."),
            400: refused("No reason given: say why it was recorded by mistake.", "ValidationError"),
        },
    )
    def delete(self, request: Request, slug: str, entry_id: int, payment_id: int) -> Response:
        """Delete a payment recorded by mistake, saying why: its history keeps who recorded it,
        who deleted it, and the reason."""
        entry = _organised_entry(request, slug, entry_id)
        payment = found(entry.payments.all(), pk=payment_id)
        data = request.data if isinstance(request.data, dict) else {}
        payments.delete_payment(payment=payment, by=request.user, reason=data.get("reason", ""))
        return Response(status=status.HTTP_204_NO_CONTENT)


class EntriesExportApi(APIView):
    """entries.csv and payments.csv, as the other exports (scoring.api.ExportCsvApi)."""

    permission_classes = [IsAuthenticated]
    content_negotiation_class = FirstRendererNegotiation

    @extend_schema(
        operation_id="tournaments_entries_exports_retrieve",
        description="entries.csv or payments.csv, for organisers, named <slug>-<name>.csv "
        "(practice-<slug>-<name>.csv for a practice tournament); UTF-8 with a byte-order mark.",
        responses={(200, "text/csv"): OpenApiTypes.STR},
    )
    def get(self, request: Request, slug: str, name: str) -> StreamingHttpResponse:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        header, rows = exports.EXPORTS[name]
        response = StreamingHttpResponse(
            csv_lines(header, rows(tournament)), content_type="text/csv; charset=utf-8"
        )
        prefix = "practice-" if tournament.practice else ""
        response["Content-Disposition"] = (
            f'attachment; filename="{prefix}{tournament.slug}-{name}.csv"'
        )
        return response


class CheckInCodeSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="The entry's check-in code (any case, spaces allowed).")


class CheckedInSerializer(serializers.Serializer):
    name = serializers.CharField()
    number = serializers.IntegerField()
    status = serializers.CharField(help_text="checked_in")
    already = serializers.BooleanField(help_text="Checked in before: nothing changed.")
    detail = serializers.CharField(help_text="What the kiosk says, in the request's language.")


def checked_in_answer(result: checking_in.CheckedIn) -> dict:
    player = result.player
    said = (
        _("Welcome, #%(number)s %(name)s: you were already checked in.")
        if result.already
        else _("Welcome, #%(number)s %(name)s: you are checked in.")
    )
    return {
        "name": player.name,
        "number": player.number,
        "status": player.status,
        "already": result.already,
        "detail": said % {"number": player.number, "name": player.name},
    }


def unknown_code_text() -> str:
    return _("That code is not one of this tournament's: check it or go to the desk.")


class SelfCheckInApi(APIView):
    """The kiosk's door: anyone, with a code; only wrong codes are limited per address."""

    permission_classes = [AllowAny]
    authentication_classes = []  # the code is the credential; no session, no CSRF

    @extend_schema(
        request=CheckInCodeSerializer,
        responses={
            200: CheckedInSerializer,
            404: refused("No entry of this tournament has the code.", "Error"),
            409: refused("Withdrawn, or a stage that would seat the player is being played: go "
                         "to the desk."),
            429: refused("More than 10 wrong codes from this address in a minute.", "Error"),
        },
    )  # fmt: skip
    def post(self, request: Request, slug: str) -> Response:
        """Check in with the entry's code: 200 with the player's name and number."""
        tournament = tournament_or_404(slug)
        data = request.data if isinstance(request.data, dict) else {}
        code = checking_in.normalised(data.get("code"))
        entry = checking_in.entry_with_code(tournament, code)
        if entry is None:
            # Right codes are never limited; wrong ones are counted and, past the limit, 429.
            if (wait := throttles.CHECK_IN_CODES.wait(request._request)) is not None:
                raise Throttled(wait)
            throttles.CHECK_IN_CODES.mark(request._request)
            raise NotFound(unknown_code_text())
        result = checking_in.check_in_by_code(tournament=tournament, entry=entry)
        return Response(checked_in_answer(result))
