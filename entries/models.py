"""Entries taken before the day, their payments, and the messages sent to entrants.

An entry is a person asking to play: entered (a Player of the tournament from then on, linked
here), waiting on the waitlist, offered a freed place, or out (withdrawn, expired, refused). It
holds the contact details a player has nowhere else; only the tournament's organisers see them
(docs/DESIGN.md, "Entries and privacy")."""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from tournaments.models import Division, Player, Tournament

# A check-in code is read off a phone or a printed mail and typed at the kiosk: no letters that
# look alike (0/O, 1/I/L), 8 of them (32^8, about a trillion).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8


def new_manage_key() -> str:
    """The secret in an entry's private address: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def new_check_in_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Entry(models.Model):
    class Status(models.TextChoices):
        ENTERED = "entered", _("Entered")
        WAITLISTED = "waitlisted", _("Waiting")
        OFFERED = "offered", _("Offered a place")
        EXPIRED = "expired", _("Offer not taken")
        WITHDRAWN = "withdrawn", _("Withdrawn")
        REFUSED = "refused", _("Refused")

    # The statuses that hold or wait for a place; the others are out, and free the name and email
    # for a new entry.
    LIVE = (Status.ENTERED, Status.WAITLISTED, Status.OFFERED)

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.OneToOneField(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="entry"
    )
    status = models.CharField(_("Status"), max_length=12, choices=Status.choices)
    waitlist_position = models.PositiveIntegerField(_("Place on the waitlist"), null=True)
    offer_expires_at = models.DateTimeField(_("Offer open until"), null=True, blank=True)

    name = models.CharField(_("Name"), max_length=120)
    email = models.EmailField(_("Email"), max_length=254)
    phone = models.CharField(_("Phone"), max_length=40, blank=True)
    household = models.CharField(
        _("Household"),
        max_length=120,
        blank=True,
        help_text=_("People of one household are seated apart."),
    )
    age = models.PositiveSmallIntegerField(_("Age"), null=True, blank=True)
    birth_year = models.PositiveSmallIntegerField(_("Year of birth"), null=True, blank=True)
    division = models.ForeignKey(
        Division,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="entries",
        verbose_name=_("Division"),
    )
    club = models.CharField(_("Club"), max_length=120, blank=True)
    chapter = models.CharField(_("Chapter"), max_length=120, blank=True)
    messages_ok = models.BooleanField(
        _("Messages by mail"),
        default=False,
        help_text=_(
            "Agreed to be told by mail where to sit, the results and the organisers' news."
        ),
    )
    fee_due = models.DecimalField(_("Fee due"), max_digits=8, decimal_places=2, default=0)

    manage_key = models.CharField(
        max_length=64, unique=True, default=new_manage_key, editable=False
    )
    check_in_code = models.CharField(max_length=CODE_LENGTH, blank=True, editable=False)

    # Where and in which language the entrant entered: the mails sent later, from a worker with
    # no request, link to this origin (unless the site has a public address) in this language.
    origin = models.CharField(max_length=200, blank=True, editable=False)
    language = models.CharField(max_length=8, default="en", editable=False)

    entered_at = models.DateTimeField(_("Entered at"), auto_now_add=True)
    # Contact details removed after the event (services.privacy): the entry stays, nameless of
    # anything but the name the results show.
    contact_erased_at = models.DateTimeField(null=True, blank=True, editable=False)

    # Every change, by whom (the entrant at their address, an organiser) and why.
    history = HistoricalRecords(excluded_fields=["manage_key", "entered_at"])

    class Meta:
        ordering = ["tournament", "entered_at", "pk"]
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(
                Lower("name"),
                Lower("email"),
                "tournament",
                # Erased details (services.privacy) leave names alike with no email: not alike.
                condition=Q(status__in=["entered", "waitlisted", "offered"])
                & Q(contact_erased_at__isnull=True),
                name="entries_entry_one_live_per_name_and_email",
            ),
            models.UniqueConstraint(
                fields=["tournament", "waitlist_position"],
                condition=Q(waitlist_position__isnull=False),
                name="entries_entry_waitlist_position_unique",
            ),
            models.UniqueConstraint(
                fields=["tournament", "check_in_code"],
                condition=~Q(check_in_code=""),
                name="entries_entry_check_in_code_unique",
            ),
            models.CheckConstraint(
                name="entries_entry_status_known",
                condition=Q(
                    status__in=[
                        "entered",
                        "waitlisted",
                        "offered",
                        "expired",
                        "withdrawn",
                        "refused",
                    ]
                ),
            ),
            models.CheckConstraint(
                name="entries_entry_waiting_has_position",
                condition=Q(status="waitlisted", waitlist_position__gte=1)
                | (~Q(status="waitlisted") & Q(waitlist_position__isnull=True)),
            ),
            models.CheckConstraint(
                name="entries_entry_offer_has_expiry",
                condition=Q(status="offered", offer_expires_at__isnull=False)
                | ~Q(status="offered"),
            ),
            models.CheckConstraint(name="entries_entry_name_set", condition=~Q(name="")),
            models.CheckConstraint(
                name="entries_entry_fee_due_not_negative", condition=Q(fee_due__gte=0)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_status_display()})"

    @property
    def live(self) -> bool:
        return self.status in self.LIVE


class Payment(models.Model):
    class Method(models.TextChoices):
        CASH = "cash", _("Cash")
        CHEQUE = "cheque", _("Cheque")
        CARD = "card", _("Card (taken elsewhere)")
        TRANSFER = "transfer", _("Transfer")
        WAIVED = "waived", _("Waived")
        REFUND = "refund", _("Refund")

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="payments")
    # A refund is the one negative amount; a waived fee counts as settled, as paid does.
    amount = models.DecimalField(_("Amount"), max_digits=8, decimal_places=2)
    method = models.CharField(_("Method"), max_length=10, choices=Method.choices)
    note = models.CharField(_("Note"), max_length=300, blank=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    recorded_at = models.DateTimeField(auto_now_add=True)

    # A payment recorded by mistake is deleted (services.payments.delete_payment): its history
    # keeps it, with who deleted it and why, so the treasurer's totals say only what was taken.
    history = HistoricalRecords()

    class Meta:
        ordering = ["entry", "recorded_at", "pk"]
        constraints = [
            models.CheckConstraint(
                name="entries_payment_method_known",
                condition=Q(method__in=["cash", "cheque", "card", "transfer", "waived", "refund"]),
            ),
            models.CheckConstraint(
                name="entries_payment_refund_negative_others_positive",
                condition=Q(method="refund", amount__lt=0)
                | (~Q(method="refund") & Q(amount__gt=0)),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.amount} {self.method}"


class Message(models.Model):
    """A mail to some of a tournament's entrants: the system's own (a receipt, an offer, a seat,
    the results) or an organiser's. Each address it goes to is a Delivery."""

    class Kind(models.TextChoices):
        RECEIPT = "receipt", _("Entry received")
        WAITLISTED = "waitlisted", _("On the waitlist")
        OFFER = "offer", _("A place offered")
        ENTERED = "entered", _("A place taken")
        WITHDRAWN = "withdrawn", _("Entry withdrawn")
        SEATED = "seated", _("Where to sit")
        RESULTS = "results", _("Results")
        ORGANISER = "organiser", _("From the organisers")

    class To(models.TextChoices):
        ENTRANTS = "entrants", _("Everyone entered or offered a place")
        WAITLIST = "waitlist", _("Everyone waiting")
        PLAYERS = "players", _("Every player")
        NOT_CHECKED_IN = "not_checked_in", _("Players not checked in")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="messages")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    to = models.CharField(max_length=16, choices=To.choices, blank=True)
    subject = models.CharField(_("Subject"), max_length=200)
    body = models.TextField(_("Message"), max_length=5000, blank=True)
    # What a system message is about: the stage seated, for "where to sit".
    stage = models.ForeignKey(
        "tournaments.Stage", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "-created_at", "-pk"]

    def __str__(self) -> str:
        return self.subject


class Delivery(models.Model):
    """One mail of a message to one entry's address: waiting, sent once, or failed after its
    tries (the sending task retries while the mail server does not answer)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting to be sent")
        SENT = "sent", _("Sent")
        FAILED = "failed", _("Failed")

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="deliveries")
    entry = models.ForeignKey(
        Entry, on_delete=models.SET_NULL, null=True, related_name="deliveries"
    )
    email = models.EmailField(max_length=254)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)
    # The personal part of a system message (a seat, a place), rendered into its body.
    context = models.JSONField(default=dict, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["message", "pk"]
        verbose_name_plural = "deliveries"
        constraints = [
            models.UniqueConstraint(
                fields=["message", "entry"], name="entries_delivery_once_per_entry"
            ),
            models.CheckConstraint(
                name="entries_delivery_status_known",
                condition=Q(status__in=["pending", "sent", "failed"]),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.email} ({self.status})"
