"""An invitation opened by someone not signed in is held in their session while they sign in or
sign up, and accepted as soon as they have an account."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from tournaments.links import absolute_url
from tournaments.models import Invitation, Staff

SESSION_KEY = "roundhouse_invitation"


def hold(request: HttpRequest, invitation: Invitation) -> None:
    request.session[SESSION_KEY] = invitation.key


def holding(request: HttpRequest) -> Invitation | None:
    """The invitation this session holds, whatever its state (accepted by someone else since)."""
    key = request.session.get(SESSION_KEY) if hasattr(request, "session") else None
    if not key:
        return None
    return Invitation.objects.select_related("tournament").filter(key=key).first()


def held(request: HttpRequest) -> Invitation | None:
    """The invitation this session holds, while it can still be accepted."""
    invitation = holding(request)
    if invitation is None or invitation.status != Invitation.Status.PENDING:
        return None
    return invitation


def drop(request: HttpRequest) -> None:
    request.session.pop(SESSION_KEY, None)


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


def refused(request: HttpRequest, invitation: Invitation, problem: str) -> HttpResponse:
    """The invitation's page saying why it cannot be accepted (409); the session lets it go, so
    that where sign-up is open, signing up again makes a plain account."""
    drop(request)
    context = {
        "invitation": invitation,
        "tournament": invitation.tournament,
        "problem": problem,
        "signup_open": True,
    }
    return render(request, "accounts/join.html", context, status=409)


def invitation_url(request: HttpRequest, invitation: Invitation) -> str:
    """The invitation's link, whole (for a mail, a QR code or the Staff page)."""
    return absolute_url(request, reverse("join", kwargs={"key": invitation.key}))
