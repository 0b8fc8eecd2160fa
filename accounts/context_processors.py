"""What the navigation bar shows a signed-in person: their home, and in a tournament where
they have a role, its Manage and Score entry pages; to a seat's phone, its table and seat."""

from django.conf import settings
from django.http import HttpRequest

from accounts import invitations
from tables import reporting
from tournaments.models import Staff


def navigation(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {
            "signup_open": settings.ROUNDHOUSE_SIGNUP == "open",
            "held_invitation": invitations.held(request),
        }
    claim = reporting.claim_of(user)
    if claim is not None:  # a player's phone: no account, no staff pages
        return {"seat_claim": claim, "seat_name": reporting.seat_named(claim.seat)}
    match = getattr(request, "resolver_match", None)
    slug = match.kwargs.get("slug") if match else None
    nav = {"has_account": user.has_usable_password()}
    if slug:
        if user.is_superuser:
            role = Staff.Role.ORGANISER
        else:
            role = (
                Staff.objects.filter(user=user, tournament__slug=slug)
                .values_list("role", flat=True)
                .first()
            )
        if role:
            nav.update(nav_slug=slug, nav_role=role)
    return nav
