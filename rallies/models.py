"""Rallies: several events (tournaments) with one entry for all, and the chapters their players
play for. A rally's chapter standings are read from its events' placings when asked
(rallies.selectors), never stored: a placing decided, corrected or undone, or a chapter named
again on an entry's page, shows at the next look (docs/DESIGN.md, "Rallies and chapters")."""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from entries.models import Entry
from tournaments.models import Tournament

# The points table a new rally starts with: 1st to 8th place (the Nevada rulebook's shape).
DEFAULT_POINTS = [10, 8, 6, 5, 4, 3, 2, 1]


def new_rally_key() -> str:
    """The secret in a rally entry's private address (its schedule): 32 random bytes."""
    return secrets.token_urlsafe(32)


def default_points() -> list[int]:
    return list(DEFAULT_POINTS)


class Rally(models.Model):
    name = models.CharField(_("Name"), max_length=120)
    slug = models.SlugField(_("Web address"), max_length=60, unique=True)
    # One table for every event of the rally: place -> points (1st place first); a place beyond
    # the table scores nothing.
    points_table = models.JSONField(_("Points by place"), default=default_points)
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="rallies", verbose_name=_("Organisers")
    )
    # Set when an organiser closes the rally before every event is decided: the standings are
    # final and "most points" is said.
    closed_at = models.DateTimeField(_("Closed"), null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "pk"]
        verbose_name_plural = "rallies"
        constraints = [
            models.CheckConstraint(name="rallies_rally_name_set", condition=~Q(name="")),
            models.CheckConstraint(name="rallies_rally_slug_set", condition=~Q(slug="")),
        ]

    def __str__(self) -> str:
        return self.name


class RallyEvent(models.Model):
    """One of the rally's events, with the times it is played (a tournament keeps only its
    days): the entry form refuses two events whose times overlap."""

    rally = models.ForeignKey(Rally, on_delete=models.CASCADE, related_name="events")
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    starts_at = models.DateTimeField(_("Starts"))
    ends_at = models.DateTimeField(_("Ends"))

    class Meta:
        ordering = ["rally", "starts_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["rally", "tournament"], name="rallies_event_once"),
            models.CheckConstraint(
                name="rallies_event_ends_after_start", condition=Q(ends_at__gt=F("starts_at"))
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rally}: {self.tournament}"

    def overlaps(self, other: "RallyEvent") -> bool:
        return self.starts_at < other.ends_at and other.starts_at < self.ends_at


class Chapter(models.Model):
    """A chapter players play for: its name is what their entries say (Entry.chapter)."""

    rally = models.ForeignKey(Rally, on_delete=models.CASCADE, related_name="chapters")
    name = models.CharField(_("Name"), max_length=120)

    class Meta:
        ordering = ["rally", "name", "pk"]
        constraints = [
            models.UniqueConstraint(Lower("name"), "rally", name="rallies_chapter_name_unique"),
            models.CheckConstraint(name="rallies_chapter_name_set", condition=~Q(name="")),
        ]

    def __str__(self) -> str:
        return self.name


class RallyEntry(models.Model):
    """One entry for several of the rally's events: an Entry in each (made by the entries
    services, fees and waitlists as for one event), and the private address of the player's
    own schedule."""

    rally = models.ForeignKey(Rally, on_delete=models.CASCADE, related_name="rally_entries")
    name = models.CharField(_("Name"), max_length=120)
    chapter = models.ForeignKey(
        Chapter, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    entries = models.ManyToManyField(Entry, related_name="+")
    manage_key = models.CharField(max_length=64, unique=True, default=new_rally_key, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["rally", "created_at", "pk"]
        verbose_name_plural = "rally entries"

    def __str__(self) -> str:
        return f"{self.name} ({self.rally})"
