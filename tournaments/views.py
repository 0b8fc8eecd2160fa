"""Pages of tournaments: the list, a new tournament from a preset, the staff of one."""

from axes.conf import settings as axes_settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from tournaments import services
from tournaments.forms import NewTournamentForm, StaffForm
from tournaments.models import Tournament
from tournaments.permissions import is_organiser, lockout_message


def locked_out(request: HttpRequest, *args: object) -> HttpResponse:
    """django-axes' lockout response (AXES_LOCKOUT_CALLABLE): a page in the site's look and the
    reader's language, where axes' own is a line of English text."""
    context = {"message": lockout_message()}
    return render(request, "registration/locked_out.html", context, status=429)


# django-axes keeps the username of a failed sign-in in a column of 255 characters.
AXES_USERNAME_MAX = 255


def axes_username(request: HttpRequest, credentials: dict | None = None) -> str | None:
    """The username django-axes records for a sign-in (AXES_USERNAME_CALLABLE): its own lookup,
    cut to what its tables hold. A longer one, as scanners send, made a failed sign-in a 500 on
    PostgreSQL, at the login page and the API's token alike (jazzband/django-axes#1381)."""
    field = axes_settings.AXES_USERNAME_FORM_FIELD
    source = credentials if credentials else getattr(request, "data", request.POST)
    username = source.get(field)
    return username[:AXES_USERNAME_MAX] if isinstance(username, str) else username


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "tournaments/home.html", {"tournaments": Tournament.objects.all()})


@login_required
def new_tournament(request: HttpRequest) -> HttpResponse:
    """A tournament from a rule preset: the preset fills its stages (Samboree: four rounds from
    double-12, then the winners' playoff). Its creator becomes its organiser."""
    form = NewTournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            tournament = services.create_tournament(
                **form.cleaned_data, by=request.user, with_stages=True
            )
        except ValidationError as error:
            for field, problems in error.message_dict.items():
                for problem in problems:
                    form.add_error(field if field in form.fields else None, problem)
        else:
            messages.success(
                request, _("%(name)s is ready: add its players next.") % {"name": tournament.name}
            )
            return redirect("manage", slug=tournament.slug)
    status = 400 if request.method == "POST" else 200
    return render(request, "tournaments/new.html", {"form": form}, status=status)


@login_required
def staff_page(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not is_organiser(request.user, tournament):
        raise PermissionDenied(
            _("Only an organiser of %(tournament)s may manage its staff.")
            % {"tournament": tournament.name}
        )
    form = StaffForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            staff, created, password_unchanged = services.add_staff(
                tournament=tournament, **form.cleaned_data
            )
        except ValidationError as error:
            for field, problems in error.message_dict.items():
                for problem in problems:
                    form.add_error(field if field in form.fields else None, problem)
        else:
            done = _("%(user)s added as %(role)s.") if created else _("%(user)s is now %(role)s.")
            role = staff.get_role_display().lower()
            messages.success(request, done % {"user": staff.user.username, "role": role})
            if password_unchanged:
                messages.warning(request, services.password_unchanged(staff.user.username))
            return redirect("manage-staff", slug=slug)
    staff = tournament.staff.select_related("user").order_by("role", "user__username")
    context = {"tournament": tournament, "form": form, "staff": staff}
    return render(request, "tournaments/staff.html", context, status=400 if form.errors else 200)
