"""Clubs: the organisations that own tournaments, their organisers, and their roster of members
linked to the players they entered as."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tournaments.models import Player, Tournament


class Club(models.Model):
    name = models.CharField(_("Name"), max_length=120)
    slug = models.SlugField(_("Web address"), max_length=60, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ClubOrganiser(models.Model):
    """Someone who manages the club's roster and tournaments (a tournament's own organisers keep
    their roles in tournaments)."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="organisers")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="club_roles"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "user"], name="clubs_cluborganiser_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.club}"


class ClubTournament(models.Model):
    """The club owns the tournament: its players are linked to the club's members."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="owned")
    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="club_ownership"
    )

    def __str__(self) -> str:
        return f"{self.club}: {self.tournament}"


class Member(models.Model):
    """A person on a club's roster. Contact (email, phone) is for the club's organisers only; an
    erased member keeps only an anonymised name (services.erase_member)."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="members")
    name = models.CharField(_("Name"), max_length=120)
    member_number = models.CharField(
        _("Member number"),
        max_length=40,
        blank=True,
        help_text=_("Optional; unique in the club."),
    )
    household = models.CharField(_("Household"), max_length=120, blank=True)
    email = models.EmailField(_("Email"), blank=True)
    phone = models.CharField(_("Phone"), max_length=40, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    erased_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["club", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "member_number"],
                condition=~Q(member_number=""),
                name="clubs_member_number_unique",
            ),
            models.CheckConstraint(name="clubs_member_name_set", condition=~Q(name="")),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.member_number})" if self.member_number else self.name


class PlayerLink(models.Model):
    """A tournament's player is this member: made by an organiser's choice or by member number,
    never by a name alone."""

    class How(models.TextChoices):
        NUMBER = "number", _("By member number")
        NAME = "name", _("Chosen by name")
        IMPORT = "import", _("By member number at import")

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="member_link")
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="links")
    how = models.CharField(max_length=10, choices=How.choices)
    linked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    linked_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                name="clubs_playerlink_how_known",
                condition=Q(how__in=["number", "name", "import"]),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} = {self.member}"
