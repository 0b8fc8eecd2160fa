"""Pages of people and access: the signed-in home, an invitation opened, a tournament's staff."""

from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.db.models import Max
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts import invitations
from accounts.forms import InvitationForm, RoleForm
from accounts.invitations import invitation_url
from accounts.mail import send_invitation
from clubs.selectors import clubs_of
from config.refusals import PageRefusal
from scoring.models import RoundResult
from tournaments.console import organised_tournament
from tournaments.models import Invitation, Staff, Stage, Tournament
from tournaments.permissions import may_create_tournaments
from tournaments.selectors import (
    FINISHED,
    IN_PLAY,
    NOT_STARTED,
    listed_tournaments,
    tournament_status,
)
from tournaments.services import staff as staffing


def qr_svg(url: str) -> str:
    """The link as an SVG QR code (inline markup, no script or style attribute)."""
    import segno  # here, not at the top: only the staff pages draw a QR code

    return segno.make(url, error="m").svg_inline(scale=6, border=2, dark="#111", light="#fff")


def _progress(tournament: Tournament) -> dict:
    """Where the tournament is: not started, in play (the stage and its latest round entered)
    or finished."""
    status = tournament_status(tournament)
    if status != IN_PLAY:
        return {"status": status}
    stage = tournament.stages.exclude(status=Stage.Status.PENDING).order_by("order").last()
    latest = RoundResult.objects.filter(table__stage=stage).aggregate(n=Max("round_no"))["n"]
    return {"status": status, "stage": stage, "round": latest or 1}


def home(request: HttpRequest) -> HttpResponse:
    """Signed in: "My tournaments" (in play, to come, over; practice and hidden ones too), each
    with the links of the person's role, then the others listed.
    Anyone else: every listed tournament (tournaments.selectors.listed_tournaments)."""
    tournaments = listed_tournaments(request.user)
    mine = []
    if request.user.is_authenticated:
        roles = dict(Staff.objects.filter(user=request.user).values_list("tournament_id", "role"))
        for tournament in Tournament.objects.all():
            role = Staff.Role.ORGANISER if request.user.is_superuser else roles.get(tournament.pk)
            if role:
                mine.append({"tournament": tournament, "role": role, **_progress(tournament)})
        # What is in play first, then what is to come, then what is over (each newest first).
        standing = {IN_PLAY: 0, NOT_STARTED: 1, FINISHED: 2}
        mine.sort(key=lambda entry: standing[entry["status"]])
        ids = {entry["tournament"].pk for entry in mine}
        tournaments = [t for t in tournaments if t.pk not in ids]
    context = {
        "mine": mine,
        "tournaments": tournaments,
        "may_create": may_create_tournaments(request.user),
        "my_clubs": clubs_of(request.user),
    }
    return render(request, "accounts/home.html", context)


def join(request: HttpRequest, key: str) -> HttpResponse:
    """An invitation's link: accept it (signed in), or sign in, create an account, or (an
    official on a shared tablet) go on without one. A link for several tablets offers only the
    last: an account is refused it (staffing.refuse_accounts), and the session does not hold it
    for a sign-up."""
    invitation = get_object_or_404(
        Invitation.objects.select_related("tournament", "created_by", "accepted_by"), key=key
    )
    timezone.activate(invitation.tournament.zone)  # its times, as the tournament's pages say them
    problem = staffing.unusable_reason(invitation)
    if request.method == "POST" and problem is None:
        with PageRefusal() as refusal:
            if request.POST.get("as") == "tablet":
                staff = staffing.join_on_tablet(invitation=invitation)
                login(request, staff.user, backend="accounts.backends.UsernameBackend")
            elif invitation.for_tablets:
                staffing.refuse_accounts(invitation)
            elif request.user.is_authenticated:
                staff = staffing.accept_invitation(invitation=invitation, user=request.user)
            else:
                return redirect(f"{reverse('account_login')}?next={request.path}")
        if refusal:
            problem = refusal.text
        else:
            return redirect(invitations.welcome(request, staff))
    if problem is None and not request.user.is_authenticated and not invitation.for_tablets:
        invitations.hold(request, invitation)  # accepted as soon as they sign up or sign in
    context = {
        "invitation": invitation,
        "tournament": invitation.tournament,
        "problem": problem,
        "signup_open": True,  # holding the invitation opens sign-up in either mode
    }
    return render(request, "accounts/join.html", context, status=409 if problem else 200)


INVITE_INITIAL = {"role": "official", "days": settings.ROUNDHOUSE_INVITATION_DAYS}


def _staff_context(request: HttpRequest, tournament: Tournament, **forms) -> dict:
    members = list(tournament.staff.select_related("user").order_by("role", "user__username"))
    organisers = sum(1 for member in members if member.role == Staff.Role.ORGANISER)
    now = timezone.now()
    invitations_made = list(
        tournament.invitations.select_related("created_by", "accepted_by", "revoked_by")
    )
    pending = [i for i in invitations_made if i.status_at(now) == Invitation.Status.PENDING]
    for invitation in pending:
        invitation.url = invitation_url(request, invitation)
    return {
        "tournament": tournament,
        "members": members,
        "last_organiser": organisers <= 1,
        "pending": pending,
        "past": [i for i in invitations_made if i not in pending],
        "events": tournament.staff_events.select_related("invitation")[:50],
        "invite_form": forms.get("invite_form")
        or InvitationForm(
            initial={"role": "official", "days": settings.ROUNDHOUSE_INVITATION_DAYS, "devices": 1}
        ),
        "role_choices": Staff.Role.choices,
    }


@login_required
def staff_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Everyone with a role, how they joined and when last seen; invitations made, pending and
    past; the log of who gave or took which role. Organisers only."""
    tournament = organised_tournament(request, slug)
    invite_form = None
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "invite":
            invite_form = InvitationForm(request.POST)
            if invite_form.is_valid():
                return _invite(request, tournament, invite_form)
        elif action in ("role", "remove", "revoke"):
            return _change(request, tournament, action)
    context = _staff_context(request, tournament, invite_form=invite_form)
    failed = invite_form is not None and invite_form.errors
    return render(request, "accounts/staff.html", context, status=400 if failed else 200)


def _invite(request: HttpRequest, tournament: Tournament, form: InvitationForm) -> HttpResponse:
    data = form.cleaned_data
    invitation = staffing.create_invitation(
        tournament=tournament,
        role=data["role"],
        by=request.user,
        email=data["email"],
        expires_at=timezone.now() + timedelta(days=data["days"]),
        devices=data["devices"],
    )
    if invitation.email and (problem := send_invitation(request, invitation)):
        messages.warning(request, problem)
    elif invitation.email:
        messages.success(
            request, _("The invitation was mailed to %(email)s.") % {"email": invitation.email}
        )
    return redirect("manage-invitation", slug=tournament.slug, invitation_id=invitation.pk)


def _change(request: HttpRequest, tournament: Tournament, action: str) -> HttpResponse:
    """Change a role, remove someone, or revoke an invitation; a refusal is said at the top."""
    with PageRefusal() as refusal:
        if action == "revoke":
            invitation = get_object_or_404(
                Invitation, pk=request.POST.get("invitation"), tournament=tournament
            )
            signed_in = invitation.staff_joined.filter(joined_via=Staff.Joined.TABLET).count()
            staffing.revoke_invitation(invitation=invitation, by=request.user)
            if invitation.for_tablets and signed_in:
                messages.success(
                    request,
                    ngettext(
                        "The link was revoked: it no longer works, and its tablet is signed out.",
                        "The link was revoked: it no longer works, and its %(count)s tablets "
                        "are signed out.",
                        signed_in,
                    )
                    % {"count": signed_in},
                )
            else:
                messages.success(
                    request, _("The invitation was revoked: its link no longer works.")
                )
        else:
            member = get_object_or_404(
                Staff.objects.select_related("user"),
                pk=request.POST.get("staff"),
                tournament=tournament,
            )
            name = member.user.get_username()
            if action == "remove":
                staffing.remove_staff(staff=member, by=request.user)
                messages.success(request, _("%(user)s was removed.") % {"user": name})
            else:
                form = RoleForm(request.POST)
                if not form.is_valid():
                    messages.error(request, _("Choose official or organiser."))
                else:
                    member = staffing.change_role(
                        staff=member, role=form.cleaned_data["role"], by=request.user
                    )
                    messages.success(
                        request,
                        (
                            _("%(user)s is now an organiser.")
                            if member.role == Staff.Role.ORGANISER
                            else _("%(user)s is now an official.")
                        )
                        % {"user": name},
                    )
    if refusal:
        refusal.say(request)
    return redirect("manage-staff", slug=tournament.slug)


@login_required
def invitation_page(request: HttpRequest, slug: str, invitation_id: int) -> HttpResponse:
    """One invitation, to print or show: its QR code and link, its role, who made it and
    until when it works."""
    tournament = organised_tournament(request, slug)
    invitation = get_object_or_404(
        Invitation.objects.select_related("created_by", "accepted_by"),
        pk=invitation_id,
        tournament=tournament,
    )
    url = invitation_url(request, invitation)
    context = {
        "tournament": tournament,
        "invitation": invitation,
        "url": url,
        "qr": qr_svg(url),
        "problem": staffing.unusable_reason(invitation),
    }
    return render(request, "accounts/invitation.html", context)
