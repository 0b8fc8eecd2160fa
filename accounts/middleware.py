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
from tables.models import SeatClaim
from tournaments.models import Staff
from tournaments.services.staff import TABLET_PREFIX

# How often a signed-in person's activity is written: at most once in this while.
SEEN_EVERY = timedelta(minutes=5)
SEEN_KEY = "roundhouse_seen"
# What a tablet session (an official without an account) may open besides its tournament's
# pages and the API: signing out, the language switch, and static files.
TABLET_OPEN = ("/api/", "/accounts/logout/", "/i18n/", "/static/", "/health/")
# What a seat's phone (tables/reporting.py) may open besides its tournament's pages: its own
# seat's pages, and what a tablet may.
SEAT_OPEN = ("/seat/", *TABLET_OPEN)


class StaffSessionMiddleware:
    """A tablet session (an official's invitation accepted without an account) reaches only its
    own tournament's pages, the API and sign-out: no account pages, no new tournament. A seat's
    phone (a player's claim of their seat) reaches its seat's pages and its tournament's, and
    is told why when its claim ends. Every signed-in person's last activity is noted on their
    roles, at most every few minutes."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        user = getattr(request, "user", None)
        claim = reporting.claim_of(user) if user is not None else None
        if claim is not None:
            if not self._seat_allowed(request.path, claim.seat.table.stage.tournament.slug):
                return redirect("seat-table")
        elif user is not None and user.is_authenticated and not user.has_usable_password():
            tablet = (
                Staff.objects.filter(user=user, joined_via=Staff.Joined.TABLET)
                .select_related("tournament")
                .first()
            )
            if tablet is None and not user.tournament_roles.exists():
                logout(request)  # a tablet removed in the admin: its session ends here
                user = None
            elif tablet is not None and not self._allowed(
                request.path, tablet.tournament.slug, TABLET_OPEN
            ):
                return redirect("enter", slug=tablet.tournament.slug)
        elif (
            user is not None
            and not user.is_authenticated
            and SESSION_KEY in request.session
            # Signed in, and no more: a tablet an organiser removed, a seat's table handed back?
            and (ended := self._ended(request)) is not None
        ):
            return ended
        response = self.get_response(request)
        # Activity is a request that went through: a refused one changes nothing, this included.
        if user is not None and user.is_authenticated and response.status_code < 400:
            self._seen(request, user)
        return response

    @staticmethod
    def _ended(request: HttpRequest):
        """A session whose person can no longer sign in: when it was a tablet's (an official
        without an account, switched off when an organiser removed it), end it and say why on
        the page it lands on (the sign-in page), instead of a bare sign-in form the volunteer
        at the tablet has no account for. A seat's phone whose claim ended (its table handed
        back to the officials) goes to the seat's first page, which says what to do instead
        (the API is answered as it is: not signed in)."""
        former = (
            get_user_model()
            .objects.filter(pk=request.session[SESSION_KEY], is_active=False)
            .filter(username__startswith=TABLET_PREFIX)
            .first()
        )
        ended_seat = (
            SeatClaim.objects.select_related("seat__table")
            .filter(user_id=request.session[SESSION_KEY], user__is_active=False)
            .first()
        )
        if ended_seat is not None:
            request.session.flush()
            messages.warning(
                request,
                _(
                    "Table %(table)s is entered by the officials now: give your scores to an "
                    "official."
                )
                % {"table": ended_seat.seat.table.number},
            )
            return None if request.path.startswith("/api/") else redirect("seat-start")
        if former is None or former.has_usable_password():
            return None
        request.session.flush()
        messages.warning(
            request,
            _(
                "An organiser has ended this tablet's access to score entry. To enter scores "
                "again, ask an organiser for a new invitation link or QR code."
            ),
        )
        return None

    @staticmethod
    def _allowed(path: str, slug: str, open_paths: tuple[str, ...]) -> bool:
        language = get_language_from_path(path)  # its tournament's public pages, /es/t/<slug>/
        if language is not None:
            path = path.removeprefix(f"/{language}")
        return path.startswith((f"/t/{slug}/", *open_paths))

    @staticmethod
    def _seat_allowed(path: str, slug: str) -> bool:
        """A seat's phone: its seat's pages and its tournament's public ones (their addresses
        carry the language), the entry pages (their views keep it to its own table), and what
        a tablet may open besides; not the console nor anyone's account."""
        language = get_language_from_path(path)
        if language is not None:
            return path.removeprefix(f"/{language}").startswith((f"/t/{slug}/", "/seat/"))
        return path.startswith((f"/t/{slug}/enter/", *SEAT_OPEN))

    @staticmethod
    def _seen(request: HttpRequest, user) -> None:
        now = timezone.now()
        last = request.session.get(SEEN_KEY)
        if last is not None and now.timestamp() - last < SEEN_EVERY.total_seconds():
            return
        request.session[SEEN_KEY] = now.timestamp()
        Staff.objects.filter(user=user).update(last_seen_at=now)
