"""What a signed-in person's session may reach, and when staff were last seen."""

from datetime import timedelta

from django.contrib.auth import logout
from django.http import HttpRequest
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.translation import get_language_from_path

from tournaments.models import Staff

# How often a signed-in person's activity is written: at most once in this while.
SEEN_EVERY = timedelta(minutes=5)
SEEN_KEY = "roundhouse_seen"
# What a tablet session (an official without an account) may open besides its tournament's
# pages and the API: signing out, the language switch, and static files.
TABLET_OPEN = ("/api/", "/accounts/logout/", "/i18n/", "/static/", "/health/")


class StaffSessionMiddleware:
    """A tablet session (an official's invitation accepted without an account) reaches only its
    own tournament's pages, the API and sign-out: no account pages, no new tournament. Every
    signed-in person's last activity is noted on their roles, at most every few minutes."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and not user.has_usable_password():
            tablet = (
                Staff.objects.filter(user=user, joined_via=Staff.Joined.TABLET)
                .select_related("tournament")
                .first()
            )
            if tablet is None and not user.tournament_roles.exists():
                logout(request)  # a tablet removed in the admin: its session ends here
                user = None
            elif tablet is not None and not self._allowed(request.path, tablet.tournament.slug):
                return redirect("enter", slug=tablet.tournament.slug)
        response = self.get_response(request)
        # Activity is a request that went through: a refused one changes nothing, this included.
        if user is not None and user.is_authenticated and response.status_code < 400:
            self._seen(request, user)
        return response

    @staticmethod
    def _allowed(path: str, slug: str) -> bool:
        language = get_language_from_path(path)  # its tournament's public pages, /es/t/<slug>/
        if language is not None:
            path = path.removeprefix(f"/{language}")
        return path.startswith((f"/t/{slug}/", *TABLET_OPEN))

    @staticmethod
    def _seen(request: HttpRequest, user) -> None:
        now = timezone.now()
        last = request.session.get(SEEN_KEY)
        if last is not None and now.timestamp() - last < SEEN_EVERY.total_seconds():
            return
        request.session[SEEN_KEY] = now.timestamp()
        Staff.objects.filter(user=user).update(last_seen_at=now)
