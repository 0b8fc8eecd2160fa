"""The v1 API of a tournament's staff and invitations (docs/API.md), for organisers."""

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.invitations import invitation_url
from accounts.mail import send_invitation
from config.api import NamesUnusedFields, found
from config.api_schema import refused
from tournaments.api import tournament_or_404
from tournaments.models import Invitation, Staff
from tournaments.models.staff import MOST_DEVICES
from tournaments.permissions import require_organiser
from tournaments.services import staff as staffing


class AddStaffSerializer(NamesUnusedFields, serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=Staff.Role.choices)
    password = serializers.CharField(
        write_only=True,
        required=False,
        allow_blank=True,
        max_length=128,
        trim_whitespace=False,  # a password is kept as typed
        help_text="The new account's password.",
    )


class StaffSerializer(NamesUnusedFields, serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = Staff
        fields = ["id", "username", "role", "joined_via", "joined_at", "last_seen_at"]
        read_only_fields = ["id", "username", "joined_via", "joined_at", "last_seen_at"]


class InvitationSerializer(NamesUnusedFields, serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    status = serializers.ChoiceField(choices=Invitation.Status.choices, read_only=True)
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    accepted_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    expires_at = serializers.DateTimeField(
        required=False, help_text="Default: in ROUNDHOUSE_INVITATION_DAYS days (7)."
    )
    email = serializers.EmailField(
        required=False, allow_blank=True, help_text="Where to mail the link (optional)."
    )
    devices = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MOST_DEVICES,
        error_messages={
            "min_value": _("A link is for 1 to 50 tablets."),
            "max_value": _("A link is for 1 to 50 tablets."),
        },
        help_text=(
            "1 (the default): one person's invitation, or one tablet's. 2 to 50: one link that "
            "up to that many tablets join, each without an account (an official's only)."
        ),
    )
    uses = serializers.IntegerField(
        read_only=True, help_text="How many joined with it: at most `devices`."
    )

    class Meta:
        model = Invitation
        fields = [
            "id",
            "role",
            "url",
            "email",
            "expires_at",
            "status",
            "created_by",
            "created_at",
            "accepted_by",
            "accepted_at",
            "revoked_at",
            "devices",
            "uses",
        ]
        read_only_fields = [
            "id",
            "url",
            "status",
            "created_by",
            "created_at",
            "accepted_by",
            "accepted_at",
            "revoked_at",
            "uses",
        ]

    def get_url(self, invitation: Invitation) -> str:
        return invitation_url(self.context["request"], invitation)


class StaffListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=StaffSerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        members = tournament.staff.select_related("user").order_by("role", "user__username")
        return Response(StaffSerializer(members, many=True).data)

    @extend_schema(
        request=AddStaffSerializer,
        responses={
            201: AddStaffSerializer,
            409: refused(
                "The username is an existing account's: send them an invitation; or they are on "
                "this tournament's staff already: PATCH their role."
            ),
        },
        description=(
            "For scripts that provision tablets: a new account, made with the password given, "
            "and its role. An existing account (its username in any case or width of letters) "
            "joins only by accepting an invitation (POST .../invitations/): 409, the same "
            "whatever password is sent, and nobody is given a role. One on this tournament's "
            "staff already: 409 naming PATCH .../staff/{id}/, which changes a role."
        ),
    )
    def post(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        serializer = AddStaffSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        staff = staffing.add_staff(
            tournament=tournament, by=request.user, **serializer.validated_data
        )
        return Response(
            {"username": staff.user.get_username(), "role": staff.role},
            status=status.HTTP_201_CREATED,
        )


class StaffDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    def _staff(self, request: Request, slug: str, staff_id: int) -> Staff:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        return found(Staff.objects.select_related("user"), pk=staff_id, tournament=tournament)

    @extend_schema(request=StaffSerializer, responses=StaffSerializer)
    def patch(self, request: Request, slug: str, staff_id: int) -> Response:
        member = self._staff(request, slug, staff_id)
        serializer = StaffSerializer(member, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        if "role" in serializer.validated_data:
            member = staffing.change_role(
                staff=member, role=serializer.validated_data["role"], by=request.user
            )
        return Response(StaffSerializer(member).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, slug: str, staff_id: int) -> Response:
        member = self._staff(request, slug, staff_id)
        staffing.remove_staff(staff=member, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class InvitationListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=InvitationSerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        invitations = tournament.invitations.select_related("created_by", "accepted_by")
        context = {"request": request}
        return Response(InvitationSerializer(invitations, many=True, context=context).data)

    @extend_schema(request=InvitationSerializer, responses={201: InvitationSerializer})
    def post(self, request: Request, slug: str) -> Response:
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        serializer = InvitationSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        invitation = staffing.create_invitation(
            tournament=tournament, by=request.user, **serializer.validated_data
        )
        body = InvitationSerializer(invitation, context={"request": request}).data
        if invitation.email:
            problem = send_invitation(request, invitation)
            body["mail_sent"] = problem is None
            if problem:  # the invitation stands; the caller hands the link over otherwise
                body["detail"] = problem
        return Response(body, status=status.HTTP_201_CREATED)


class InvitationDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={
            204: None,
            409: refused(
                "A one-person invitation accepted already: remove the person from the staff "
                "instead."
            ),
        },
        description=(
            "Revoke: the link stops working. A one-person invitation: 409 once it was accepted "
            "(remove the person). A link for several tablets (`devices` > 1): 204 whatever its "
            "state, and every tablet that joined with it is signed out (its session and token "
            "end, its role goes)."
        ),
    )
    def delete(self, request: Request, slug: str, invitation_id: int) -> Response:
        """Revoke: the link stops working. 409 once a one-person invitation was accepted
        (remove the person); a link for several tablets signs all its tablets out."""
        tournament = tournament_or_404(slug)
        require_organiser(request.user, tournament)
        invitation = found(Invitation, pk=invitation_id, tournament=tournament)
        staffing.revoke_invitation(invitation=invitation, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
