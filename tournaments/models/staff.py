"""Who runs a tournament: its staff, the invitations that give a role, and the log of roles."""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tournaments.models.tournaments import Tournament


class Staff(models.Model):
    """A user's role in one tournament: organisers run it, officials enter and confirm results."""

    class Role(models.TextChoices):
        ORGANISER = "organiser", _("Organiser")
        OFFICIAL = "official", _("Official")

    class Joined(models.TextChoices):
        CREATED = "created", _("Created the tournament")
        ADDED = "added", _("Added by name")
        INVITATION = "invitation", _("Accepted an invitation")
        TABLET = "tablet", _("Tablet without an account")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="staff")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_roles"
    )
    role = models.CharField(max_length=20, choices=Role.choices)
    joined_via = models.CharField(max_length=20, choices=Joined.choices, default=Joined.ADDED)
    joined_at = models.DateTimeField(auto_now_add=True)
    # Last sign-in or page seen while signed in (accounts.middleware), at most every few minutes.
    last_seen_at = models.DateTimeField(null=True, blank=True)
    # The invitation they joined by: revoking a link for several tablets signs out its tablets.
    invitation = models.ForeignKey(
        "Invitation",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="staff_joined",
    )

    class Meta:
        verbose_name_plural = "staff"
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user"], name="tournaments_staff_one_role_per_tournament"
            ),
            models.CheckConstraint(
                name="tournaments_staff_role_known", condition=Q(role__in=["organiser", "official"])
            ),
            # A tablet session enters scores; it never runs the tournament.
            models.CheckConstraint(
                name="tournaments_staff_tablet_is_official",
                condition=~Q(joined_via="tablet") | Q(role="official"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role} of {self.tournament})"


def new_invitation_key() -> str:
    return secrets.token_urlsafe(24)


# A link for several tablets is for this many at the most.
MOST_DEVICES = 50


class Invitation(models.Model):
    """A link (and its QR code) that gives whoever opens it first a role in one tournament:
    it works once, until it expires or is revoked. A link for several tablets (devices > 1)
    is an official's; up to `devices` tablets each join with it without an account, and
    revoking it signs them all out."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting to be accepted")
        ACCEPTED = "accepted", _("Accepted")
        REVOKED = "revoked", _("Revoked")
        EXPIRED = "expired", _("Expired")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=20, choices=Staff.Role.choices)
    key = models.CharField(max_length=64, unique=True, default=new_invitation_key, editable=False)
    email = models.EmailField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    accepted_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    devices = models.PositiveSmallIntegerField(
        default=1,
        help_text="How many tablets may join with the link (1: one person or one tablet).",
    )
    # How many joined with it: a counter, not a count of Staff rows, so that removing a tablet
    # does not let another join with a link used up.
    uses = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                name="tournaments_invitation_role_known",
                condition=Q(role__in=["organiser", "official"]),
            ),
            models.CheckConstraint(
                name="tournaments_invitation_used_once",
                condition=Q(accepted_at__isnull=True) | Q(revoked_at__isnull=True),
            ),
            models.CheckConstraint(
                name="tournaments_invitation_devices_known",
                condition=Q(devices__gte=1, devices__lte=MOST_DEVICES),
            ),
            # Tablets enter scores; they never run the tournament.
            models.CheckConstraint(
                name="tournaments_invitation_devices_official",
                condition=Q(devices=1) | Q(role="official"),
            ),
            models.CheckConstraint(
                name="tournaments_invitation_uses_at_most_devices",
                condition=Q(uses__lte=models.F("devices")),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_role_display()} of {self.tournament}"

    @property
    def for_tablets(self) -> bool:
        """A link for several tablets, rather than one person's invitation."""
        return self.devices > 1

    def status_at(self, now) -> str:
        """A link for several tablets is "accepted" once all of them joined, and may be revoked
        after (which signs them out); a one-person invitation is one or the other."""
        if self.accepted_at is not None:
            return self.Status.ACCEPTED
        if self.revoked_at is not None:
            return self.Status.REVOKED
        if self.for_tablets and self.uses >= self.devices:
            return self.Status.ACCEPTED
        if self.expires_at <= now:
            return self.Status.EXPIRED
        return self.Status.PENDING

    @property
    def status(self) -> str:
        from django.utils import timezone

        return self.status_at(timezone.now())


class StaffEvent(models.Model):
    """Who gave, changed or took away a role in a tournament, and when: the Staff page's log."""

    class Action(models.TextChoices):
        CREATED = "created", _("created the tournament")
        ADDED = "added", _("added by name")
        INVITED = "invited", _("invitation made")
        ACCEPTED = "accepted", _("invitation accepted")
        REVOKED = "revoked", _("invitation revoked")
        TABLET = "tablet", _("joined on a tablet without an account")
        ROLE_CHANGED = "role_changed", _("role changed")
        REMOVED = "removed", _("removed")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="staff_events"
    )
    at = models.DateTimeField(auto_now_add=True)
    action = models.CharField(max_length=20, choices=Action.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    # Names as they were, kept when an account is deleted.
    actor_name = models.CharField(max_length=150, blank=True)
    subject_name = models.CharField(max_length=150, blank=True)
    role = models.CharField(max_length=20, choices=Staff.Role.choices, blank=True)
    previous_role = models.CharField(max_length=20, choices=Staff.Role.choices, blank=True)
    invitation = models.ForeignKey(
        Invitation, on_delete=models.SET_NULL, null=True, blank=True, related_name="events"
    )

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.subject_name}"
