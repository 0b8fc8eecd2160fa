"""Who runs a tournament: invitations, roles given, changed and taken away, each kept in the
staff log (StaffEvent) with who did it and when.

An invitation works once: the first person to accept it gets its role. An official on a shared
tablet may accept one without an account: a "tablet" user with no password, an official of
this tournament only, whose session ends when an organiser removes them. A link for several
tablets (Invitation.devices > 1) is an official's that up to that many tablets join, each
without an account; no account joins with it, and revoking it signs all its tablets out.
"""

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Group, Permission
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from rest_framework.authtoken.models import Token

from tournaments.exceptions import StateConflict
from tournaments.models import Invitation, Staff, StaffEvent, Tournament
from tournaments.models.staff import MOST_DEVICES
from tournaments.permissions import CREATE_TOURNAMENT, ORGANISERS_GROUP
from tournaments.text import unprintable_messages
from tournaments.usernames import accounts_named

# An invitation can be made to last this long at the most.
LONGEST_INVITATION = timedelta(days=90)
TABLET_PREFIX = "tablet-"


class InvitationUnusable(StateConflict):
    """The invitation was accepted, revoked or has expired; the message says which, and when."""


class TabletsOnly(InvitationUnusable):
    """An account (signing in or up) used a link for several tablets: those join without one."""


def grant_organiser(user: AbstractBaseUser) -> None:
    """Let `user` create tournaments of their own (sign-up, an organiser's role or invitation)."""
    group, created = Group.objects.get_or_create(name=ORGANISERS_GROUP)
    if created:
        app_label, codename = CREATE_TOURNAMENT.split(".")
        group.permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    user.groups.add(group)


def log(
    *,
    tournament: Tournament,
    action: str,
    by: AbstractBaseUser | None,
    subject: str = "",
    role: str = "",
    previous_role: str = "",
    invitation: Invitation | None = None,
) -> StaffEvent:
    actor = by if by is not None and by.is_authenticated else None
    return StaffEvent.objects.create(
        tournament=tournament,
        action=action,
        actor=actor,
        actor_name=actor.get_username() if actor else "",
        subject_name=subject,
        role=role,
        previous_role=previous_role,
        invitation=invitation,
    )


def _new_user(user_model: Any, username: str, password: str | None) -> Any:
    """A new account. docs/API.md asks only for a password; a name that does not print is
    refused."""
    errors: dict[str, list[str]] = {}
    if unprintable := unprintable_messages(username):
        errors["username"] = unprintable
    if not password:
        message = _("%(username)s is a new user: give a password.")
        errors["password"] = [message % {"username": repr(username)}]
    else:
        try:  # the site's password rules, as at sign-up ("abc" was accepted here)
            validate_password(password, user_model(username=username))
        except ValidationError as weak:
            errors["password"] = list(weak.messages)
    if errors:
        raise ValidationError(errors)
    return user_model.objects.create_user(username=username, password=password)


@transaction.atomic
def add_staff(
    *,
    tournament: Tournament,
    username: str,
    role: str,
    password: str | None = None,
    by: AbstractBaseUser | None = None,
) -> Staff:
    """A new account given a role in the tournament (scripts that provision tablets). An existing
    account (its username in any spelling of its normal form) joins only by accepting an
    invitation: StateConflict, the same whatever password is sent, and nobody is given a role;
    the password is never checked, so this is no way to test someone's."""
    if role not in Staff.Role.values:
        raise ValidationError({"role": [_("Choose official or organiser.")]})
    if existing := accounts_named(username):
        member = (
            Staff.objects.filter(tournament=tournament, user__in=existing)
            .select_related("user")
            .first()
        )
        if member is not None:
            raise StateConflict(
                _(
                    "%(username)s is on the staff of %(tournament)s already: change their role "
                    "with PATCH /api/v1/tournaments/%(slug)s/staff/%(id)s/ or on the Staff page."
                )
                % {
                    "username": member.user.get_username(),
                    "tournament": tournament.name,
                    "slug": tournament.slug,
                    "id": member.pk,
                }
            )
        raise StateConflict(
            _(
                "%(username)s has an account already: send them an invitation (POST "
                "/api/v1/tournaments/%(slug)s/invitations/, or the Staff page); they join when "
                "they accept it."
            )
            % {"username": repr(username), "slug": tournament.slug}
        )
    user_model = get_user_model()
    user = _new_user(user_model, user_model.normalize_username(username), password)
    return give_role(tournament=tournament, user=user, role=role, by=by)


@transaction.atomic
def give_role(
    *,
    tournament: Tournament,
    user: AbstractBaseUser,
    role: str,
    by: AbstractBaseUser | None = None,
) -> Staff:
    """Give `user` a role in the tournament, or another one, without asking them: for an account
    just made (add_staff) or one the caller answers for (the demo's). People join by invitation.
    Never the only organiser made an official."""
    if role not in Staff.Role.values:
        raise ValidationError({"role": [_("Choose official or organiser.")]})
    # Under the tournament's lock: two organisers demoting each other at once leave one.
    Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
    organisers = Staff.objects.filter(tournament=tournament, role=Staff.Role.ORGANISER)
    if role != Staff.Role.ORGANISER and list(organisers.values_list("user_id", flat=True)) == [
        user.pk
    ]:
        message = _(
            "%(username)s is the only organiser of %(tournament)s: make someone else an "
            "organiser first, or nobody could run the tournament."
        )
        raise ValidationError(
            {"role": [message % {"username": user.get_username(), "tournament": tournament.name}]}
        )
    previous = Staff.objects.filter(tournament=tournament, user=user).first()
    staff, _created = Staff.objects.update_or_create(
        tournament=tournament, user=user, defaults={"role": role}
    )
    if role == Staff.Role.ORGANISER:
        grant_organiser(user)
    if previous is None or previous.role != role:
        log(
            tournament=tournament,
            action=StaffEvent.Action.ADDED if previous is None else StaffEvent.Action.ROLE_CHANGED,
            by=by,
            subject=user.get_username(),
            role=role,
            previous_role=previous.role if previous else "",
        )
    return staff


def default_expiry() -> datetime:
    return timezone.now() + timedelta(days=settings.ROUNDHOUSE_INVITATION_DAYS)


@transaction.atomic
def create_invitation(
    *,
    tournament: Tournament,
    role: str,
    by: AbstractBaseUser,
    email: str = "",
    expires_at: datetime | None = None,
    devices: int = 1,
) -> Invitation:
    """A new invitation to `role` in the tournament; the caller shows or mails its link. With
    `devices` > 1, one link that up to that many tablets join, officials without an account."""
    if role not in Staff.Role.values:
        raise ValidationError({"role": [_("Choose official or organiser.")]})
    if not 1 <= devices <= MOST_DEVICES:
        raise ValidationError({"devices": [_("A link is for 1 to 50 tablets.")]})
    if devices > 1 and role != Staff.Role.OFFICIAL:
        raise ValidationError(
            {
                "devices": [
                    _(
                        "A link for several tablets gives the official's role (a tablet enters "
                        "scores only): choose official, or 1 for an organiser's invitation."
                    )
                ]
            }
        )
    now = timezone.now()
    expires_at = expires_at or default_expiry()
    if expires_at <= now:
        raise ValidationError({"expires_at": [_("Choose a time in the future.")]})
    if expires_at > now + LONGEST_INVITATION:
        raise ValidationError(
            {"expires_at": [_("An invitation lasts %(days)s days at the most.") % {"days": 90}]}
        )
    invitation = Invitation.objects.create(
        tournament=tournament,
        role=role,
        email=email,
        created_by=by,
        expires_at=expires_at,
        devices=devices,
    )
    log(
        tournament=tournament,
        action=StaffEvent.Action.INVITED,
        by=by,
        subject=email,
        role=role,
        invitation=invitation,
    )
    return invitation


def _when(moment: datetime) -> str:
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")


def unusable_reason(invitation: Invitation) -> str | None:
    """Why the invitation cannot be accepted (None while it can), said so that the person
    holding it knows what to ask for."""
    status = invitation.status
    if status == Invitation.Status.ACCEPTED and invitation.for_tablets:
        return _(
            "All %(devices)s tablets this link was made for have joined: it works for no more. "
            "Ask an organiser of %(tournament)s for a new link."
        ) % {"devices": invitation.devices, "tournament": invitation.tournament}
    if status == Invitation.Status.ACCEPTED:
        name = invitation.accepted_by.get_username() if invitation.accepted_by else _("someone")
        return _(
            "This invitation was accepted by %(user)s on %(when)s and works only once: ask an "
            "organiser of %(tournament)s for a new one."
        ) % {
            "user": name,
            "when": _when(invitation.accepted_at),
            "tournament": invitation.tournament,
        }
    if status == Invitation.Status.REVOKED:
        return _(
            "This invitation was revoked on %(when)s: ask an organiser of %(tournament)s for a "
            "new one."
        ) % {"when": _when(invitation.revoked_at), "tournament": invitation.tournament}
    if status == Invitation.Status.EXPIRED:
        return _(
            "This invitation expired on %(when)s: ask an organiser of %(tournament)s for a new one."
        ) % {"when": _when(invitation.expires_at), "tournament": invitation.tournament}
    return None


def lock_usable_invitation(invitation: Invitation) -> Invitation:
    """The invitation again under a row lock, held to the end of the caller's transaction: of
    two people accepting at once, one wins. InvitationUnusable when it cannot be accepted."""
    invitation = (
        Invitation.objects.select_for_update(of=("self",))
        .select_related("tournament", "accepted_by")
        .get(pk=invitation.pk)
    )
    if invitation.status != Invitation.Status.PENDING:
        # Read again for the message: after waiting for the lock, PostgreSQL gives the locked
        # row as the winner left it, but joins the account the winner made from the snapshot
        # taken before, where it does not exist yet ("accepted by someone").
        again = Invitation.objects.select_related("tournament", "accepted_by").get(pk=invitation.pk)
        raise InvitationUnusable(unusable_reason(again) or unusable_reason(invitation))
    return invitation


@transaction.atomic
def accept_invitation(*, invitation: Invitation, user: AbstractBaseUser) -> Staff:
    """Give `user` the invitation's role (an organiser keeps theirs when invited as official)
    and use the invitation up. InvitationUnusable when it was used, revoked or has expired;
    TabletsOnly for a link for several tablets."""
    invitation = lock_usable_invitation(invitation)
    refuse_accounts(invitation)
    tournament = invitation.tournament
    staff = Staff.objects.filter(tournament=tournament, user=user).first()
    previous = staff.role if staff else ""
    if staff is None:
        staff = Staff.objects.create(
            tournament=tournament,
            user=user,
            role=invitation.role,
            joined_via=Staff.Joined.INVITATION,
            last_seen_at=timezone.now(),  # accepting it is their activity
            invitation=invitation,
        )
    elif staff.role == Staff.Role.OFFICIAL and invitation.role == Staff.Role.ORGANISER:
        staff.role = Staff.Role.ORGANISER
        staff.save(update_fields=["role"])
    if staff.role == Staff.Role.ORGANISER:
        grant_organiser(user)
    invitation.accepted_by, invitation.accepted_at = user, timezone.now()
    invitation.uses = 1
    invitation.save(update_fields=["accepted_by", "accepted_at", "uses"])
    log(
        tournament=tournament,
        action=StaffEvent.Action.ACCEPTED,
        by=user,
        subject=user.get_username(),
        role=staff.role,
        previous_role=previous if previous != staff.role else "",
        invitation=invitation,
    )
    return staff


def refuse_accounts(invitation: Invitation) -> None:
    """TabletsOnly when the invitation is a link for several tablets: an account signing in or
    up with it would take a tablet's place, with whatever else the account may do."""
    if invitation.for_tablets:
        raise TabletsOnly(
            _(
                "This link is for the tablets at the tables of %(tournament)s only: each joins "
                "without an account. To join with your account, ask an organiser for an "
                "invitation of your own."
            )
            % {"tournament": invitation.tournament}
        )


@transaction.atomic
def join_on_tablet(*, invitation: Invitation) -> Staff:
    """Accept an official's invitation without an account: a user with no password who may
    enter and confirm this tournament's scores only, until an organiser removes them. A link
    for several tablets counts each one, under its row lock: of more tablets than it has room
    for joining at once, the last ones are told it is used up."""
    invitation = lock_usable_invitation(invitation)
    if invitation.role != Staff.Role.OFFICIAL:
        raise StateConflict(
            _(
                "Only an official's invitation can be used without an account: sign in, or "
                "create one."
            )
        )
    user_model = get_user_model()
    number = Staff.objects.filter(
        tournament=invitation.tournament, joined_via=Staff.Joined.TABLET
    ).count()
    while True:
        number += 1
        username = f"{TABLET_PREFIX}{invitation.tournament.slug}-{number}"[:150]
        if not user_model.objects.filter(username=username).exists():
            break
    user = user_model(username=username)
    user.set_unusable_password()
    user.save()
    staff = Staff.objects.create(
        tournament=invitation.tournament,
        user=user,
        role=Staff.Role.OFFICIAL,
        joined_via=Staff.Joined.TABLET,
        last_seen_at=timezone.now(),  # joining is the tablet's activity
        invitation=invitation,
    )
    invitation.uses += 1
    if invitation.for_tablets:  # "accepted" once all joined (Invitation.status_at)
        invitation.save(update_fields=["uses"])
    else:
        invitation.accepted_by, invitation.accepted_at = user, timezone.now()
        invitation.save(update_fields=["accepted_by", "accepted_at", "uses"])
    log(
        tournament=invitation.tournament,
        action=StaffEvent.Action.TABLET,
        by=None,
        subject=username,
        role=Staff.Role.OFFICIAL,
        invitation=invitation,
    )
    return staff


@transaction.atomic
def revoke_invitation(*, invitation: Invitation, by: AbstractBaseUser) -> Invitation:
    """Revoke an invitation not yet accepted; revoking twice, or an expired one, is harmless.
    StateConflict when it was accepted already (remove the person instead). A link for several
    tablets is revoked whatever its state, and signs out every tablet that joined with it."""
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    if invitation.for_tablets:
        _revoke(invitation, by)
        sign_out_tablets(invitation, by)
        return invitation
    if invitation.accepted_at is not None:
        raise StateConflict(
            _(
                "This invitation was accepted already: to take the role away, remove %(user)s "
                "from the staff."
            )
            % {
                "user": invitation.accepted_by.get_username()
                if invitation.accepted_by
                else _("them")
            }
        )
    _revoke(invitation, by)
    return invitation


def _revoke(invitation: Invitation, by: AbstractBaseUser) -> None:
    if invitation.revoked_at is None:
        invitation.revoked_by, invitation.revoked_at = by, timezone.now()
        invitation.save(update_fields=["revoked_by", "revoked_at"])
        log(
            tournament=invitation.tournament,
            action=StaffEvent.Action.REVOKED,
            by=by,
            subject=invitation.email,
            role=invitation.role,
            invitation=invitation,
        )


def sign_out_tablets(invitation: Invitation, by: AbstractBaseUser) -> int:
    """End every tablet that joined with the invitation: its Staff row goes, its user (no
    password) is switched off, which ends its session at its next request, and any token it
    had is deleted. Each is in the staff log, removed by `by`. How many were signed out."""
    tablets = list(
        Staff.objects.filter(invitation=invitation, joined_via=Staff.Joined.TABLET)
        .select_related("user", "tournament")
        .order_by("pk")
    )
    users = [staff.user for staff in tablets if not staff.user.has_usable_password()]
    Staff.objects.filter(pk__in=[staff.pk for staff in tablets]).delete()
    get_user_model().objects.filter(pk__in=[user.pk for user in users]).update(is_active=False)
    Token.objects.filter(user__in=users).delete()
    for staff in tablets:
        log(
            tournament=staff.tournament,
            action=StaffEvent.Action.REMOVED,
            by=by,
            subject=staff.user.get_username(),
            role=staff.role,
            invitation=invitation,
        )
    return len(tablets)


def _check_not_last_organiser(staff: Staff) -> None:
    """StateConflict when `staff` is the tournament's only organiser (under its lock, so that two
    organisers demoting each other at once leave one)."""
    Tournament.objects.select_for_update().filter(pk=staff.tournament_id).first()
    others = Staff.objects.filter(tournament_id=staff.tournament_id, role=Staff.Role.ORGANISER)
    if staff.role == Staff.Role.ORGANISER and not others.exclude(pk=staff.pk).exists():
        raise StateConflict(
            _(
                "%(user)s is the only organiser of %(tournament)s: make someone else an "
                "organiser first, or nobody could run the tournament."
            )
            % {"user": staff.user.get_username(), "tournament": staff.tournament.name}
        )


@transaction.atomic
def change_role(*, staff: Staff, role: str, by: AbstractBaseUser) -> Staff:
    """Make a member of staff an official or an organiser; never the last organiser an official,
    and a tablet (no account) never an organiser. The same role again changes nothing."""
    if role not in Staff.Role.values:
        raise ValidationError({"role": [_("Choose official or organiser.")]})
    staff = Staff.objects.select_related("user", "tournament").get(pk=staff.pk)
    if staff.role == role:
        return staff
    if staff.joined_via == Staff.Joined.TABLET:
        raise StateConflict(
            _("%(user)s is a tablet without an account: it can only enter scores.")
            % {"user": staff.user.get_username()}
        )
    _check_not_last_organiser(staff)
    previous, staff.role = staff.role, role
    staff.save(update_fields=["role"])
    if role == Staff.Role.ORGANISER:
        grant_organiser(staff.user)
    log(
        tournament=staff.tournament,
        action=StaffEvent.Action.ROLE_CHANGED,
        by=by,
        subject=staff.user.get_username(),
        role=role,
        previous_role=previous,
    )
    return staff


@transaction.atomic
def remove_staff(*, staff: Staff, by: AbstractBaseUser) -> None:
    """Take a role away: the person's next request in this tournament is refused. A tablet's
    user (no account) is switched off, which ends its session. Never the last organiser."""
    staff = Staff.objects.select_related("user", "tournament").get(pk=staff.pk)
    _check_not_last_organiser(staff)
    user, role = staff.user, staff.role
    staff.delete()
    if staff.joined_via == Staff.Joined.TABLET and not user.has_usable_password():
        user.is_active = False
        user.save(update_fields=["is_active"])
    log(
        tournament=staff.tournament,
        action=StaffEvent.Action.REMOVED,
        by=by,
        subject=user.get_username(),
        role=role,
    )
