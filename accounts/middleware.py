"""What a signed-in person's session may reach, and when staff were last seen."""

from datetime import timedelta

from django.contrib import messages
from django.contrib.auth import SESSION_KEY, get_user_model, logout
from django.http import HttpRequest
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.translation import get_language_from_path
from django.utils.translation import gettext as _

from tables import reporting
from tournaments.models import Staff
from tournaments.services.staff import TABLET_PREFIX

# How often a signed-in person's activity is written: at most once in this while.
SEEN_EVERY = timedelta(minutes=5)
SEEN_KEY = "roundhouse_seen"
# What a tablet session (an official without an account) may open besides its tournament's
# pages and the API: signing out, the language switch, and static files.
TABLET_OPEN = ("/api/", "/accounts/logout/", "/i18n/", "/static/", "/health/")


class StaffSessionMiddleware:
    """A tablet session (an official's invitation accepted without an account) reaches only its
    own tournament's pages, the API and sign-out: no account pages, no new tournament. A seat's
    phone (tables/reporting.py, no password either) keeps its session while its claim lasts. Every
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
            if (
                tablet is None
                and not user.tournament_roles.exists()
                and reporting.claim_of(user) is None  # a seat's phone, while its claim lasts
            ):
                logout(request)  # a tablet removed in the admin: its session ends here
                user = None
            elif tablet is not None and not self._allowed(request.path, tablet.tournament.slug):
                return redirect("enter", slug=tablet.tournament.slug)
        elif user is not None and not user.is_authenticated and SESSION_KEY in request.session:
            self._ended(request)  # signed in, and no more: a tablet an organiser removed?
        response = self.get_response(request)
        # Activity is a request that went through: a refused one changes nothing, this included.
        if user is not None and user.is_authenticated and response.status_code < 400:
            self._seen(request, user)
        return response

    @staticmethod
    def _ended(request: HttpRequest) -> None:
        """A session whose person can no longer sign in: when it was a tablet's (an official
        without an account, switched off when an organiser removed it), end it and say why on
        the page it lands on (the sign-in page), instead of a bare sign-in form the volunteer
        at the tablet has no account for."""
        former = (
            get_user_model()
            .objects.filter(
                pk=request.session[SESSION_KEY],
                is_active=False,
                username__startswith=TABLET_PREFIX,
            )
            .first()
        )
        if former is None or former.has_usable_password():
            return
        request.session.flush()
        messages.warning(
            request,
            _(
                "An organiser has ended this tablet's access to score entry. To enter scores "
                "again, ask an organiser for a new invitation link or QR code."
            ),
        )

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
