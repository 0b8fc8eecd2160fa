"""An invitation opened by someone not signed in is held in their session while they sign in or
sign up, and accepted as soon as they have an account."""

from django.contrib import messages
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _

from tournaments.links import absolute_url
from tournaments.models import Invitation, Staff
from tournaments.services.staff import InvitationUnusable, accept_invitation

SESSION_KEY = "roundhouse_invitation"


def hold(request: HttpRequest, invitation: Invitation) -> None:
    request.session[SESSION_KEY] = invitation.key


def held(request: HttpRequest) -> Invitation | None:
    """The invitation this session holds, while it can still be accepted."""
    key = request.session.get(SESSION_KEY) if hasattr(request, "session") else None
    if not key:
        return None
    invitation = Invitation.objects.select_related("tournament").filter(key=key).first()
    if invitation is None or invitation.status != Invitation.Status.PENDING:
        return None
    return invitation


def welcome(request: HttpRequest, staff: Staff) -> str:
    """Say what the new role is, and the page to start from: score entry for an official, the
    console for an organiser."""
    tournament = staff.tournament
    messages.success(
        request,
        (
            _("Welcome: you are now an organiser of %(tournament)s.")
            if staff.role == Staff.Role.ORGANISER
            else _("Welcome: you are now an official of %(tournament)s.")
        )
        % {"tournament": tournament.name},
    )
    name = "manage" if staff.role == Staff.Role.ORGANISER else "enter"
    return reverse(name, kwargs={"slug": tournament.slug})


def accept_held(request: HttpRequest) -> str | None:
    """Accept the held invitation for the signed-in user: the page to go to, or None."""
    invitation = held(request)
    request.session.pop(SESSION_KEY, None)
    if invitation is None or not request.user.is_authenticated:
        return None
    try:
        staff = accept_invitation(invitation=invitation, user=request.user)
    except InvitationUnusable as unusable:
        messages.error(request, str(unusable))
        return None
    return welcome(request, staff)


def invitation_url(request: HttpRequest, invitation: Invitation) -> str:
    """The invitation's link, whole (for a mail, a QR code or the Staff page)."""
    return absolute_url(request, reverse("join", kwargs={"key": invitation.key}))
