"""The entrants' pages, no account needed: the entry form, the entry's own page at its private
address (see, change, withdraw, take an offered place, download or erase its data) and stopping
the mail. None is kept by a shared cache: each is a form, or personal."""

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from config import throttles
from config.refusals import PageRefusal
from entries import rules
from entries.forms import EntryChangeForm, EntryForm
from entries.models import Entry
from entries.selectors import entry_data
from entries.services import entering, mail, privacy
from tournaments.exceptions import StateConflict
from tournaments.links import site_origin
from tournaments.models import Tournament


def _too_many(request: HttpRequest, tournament: Tournament | None, wait: int) -> HttpResponse:
    context = {"tournament": tournament, "wait": wait}
    response = render(request, "entries/too_many.html", context, status=429)
    response["Retry-After"] = str(wait)
    return response


def _places(tournament: Tournament) -> dict:
    free = rules.places_free(tournament)
    waiting = tournament.entries.filter(status=Entry.Status.WAITLISTED).count()
    return {"free": free, "waiting": waiting, "capacity": tournament.capacity}


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def register(request: HttpRequest, slug: str) -> HttpResponse:
    """The entry form: entered while places are free, else on the waitlist; then the entry's
    own page, whose link is mailed too."""
    tournament = get_object_or_404(Tournament, slug=slug)
    entering.apply_expiry(tournament)
    closed = rules.closed_reason(tournament)
    form = EntryForm(request.POST or None, tournament=tournament)
    status = 200
    if request.method == "POST" and not closed:
        if (wait := throttles.ENTRIES.wait(request)) is not None:
            return _too_many(request, tournament, wait)
        throttles.ENTRIES.mark(request)
        if form.is_valid():
            data = form.cleaned_data
            details = entering.Details(
                name=data["name"],
                email=data["email"],
                phone=data["phone"],
                household=data["household"],
                birth_year=data.get("birth_year"),
                division=data.get("division"),
                club=data["club"],
                chapter=data["chapter"],
                messages_ok=data["messages_ok"],
            )
            with PageRefusal(StateConflict, ValidationError) as refusal:
                entry = entering.enter(
                    tournament=tournament,
                    details=details,
                    origin=site_origin(request),
                    language=request.LANGUAGE_CODE,
                )
                messages.success(
                    request,
                    _("Your entry is in. Its link is mailed to %(email)s: keep it.")
                    % {"email": entry.email}
                    if entry.status == Entry.Status.ENTERED
                    else _(
                        "You are number %(place)s on the waitlist. Its link is mailed to "
                        "%(email)s: keep it."
                    )
                    % {"place": entry.waitlist_position, "email": entry.email},
                )
                return redirect("entry-manage", slug=tournament.slug, key=entry.manage_key)
            refusal.onto(form)
            status = refusal.status
        else:
            status = 400
    context = {
        "tournament": tournament,
        "form": form,
        "closed": closed,
        "entries_open": not closed,  # the menu's "Enter", this page
        "fee": rules.fee_for(tournament, None) if tournament.entry_fee else None,
        **_places(tournament),
    }
    return render(request, "entries/register.html", context, status=status)


def _entry_or_404(request: HttpRequest, slug: str, key: str) -> Entry | HttpResponse:
    """The entry at this private address, or the 404 that says nothing more (429 after too many
    wrong ones from one address)."""
    if (wait := throttles.ENTRY_KEYS.wait(request)) is not None:
        return _too_many(request, None, wait)
    entry = (
        Entry.objects.select_related("tournament", "player", "division")
        .filter(manage_key=key, tournament__slug=slug)
        .first()
    )
    if entry is None:
        throttles.ENTRY_KEYS.mark(request)
        return render(request, "entries/no_entry.html", status=404)
    entering.apply_expiry(entry.tournament)
    entry.refresh_from_db()
    return entry


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def manage(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """The entry's own page: where it stands (entered with its badge and check-in code, its
    place on the waitlist, a place to take), its details to change, and a way out."""
    entry = _entry_or_404(request, slug, key)
    if isinstance(entry, HttpResponse):
        return entry
    form = EntryChangeForm(
        request.POST if request.POST.get("action") == "change" else None, instance=entry
    )
    status = 200
    if request.method == "POST":
        action = request.POST.get("action")
        with PageRefusal(StateConflict, ValidationError) as refusal:
            if action == "accept":
                entering.accept_offer(entry)
                messages.success(request, _("The place is yours: you are entered."))
                return redirect("entry-manage", slug=slug, key=key)
            if action == "change" and form.is_valid():
                changes = {name: form.cleaned_data[name] for name in form.changed_data}
                entering.update(entry, changes=changes)
                messages.success(request, _("Your entry is changed."))
                return redirect("entry-manage", slug=slug, key=key)
        if refusal:
            if action == "change":
                refusal.onto(form)
            else:
                refusal.say(request)
                return redirect("entry-manage", slug=slug, key=key)
            status = refusal.status
        elif action == "change":
            status = 400
        entry.refresh_from_db()
    context = {
        "tournament": entry.tournament,
        "entry": entry,
        "form": form,
        "paid": rules.paid(entry),
        "contact_days": settings.ROUNDHOUSE_CONTACT_DAYS,
        "qr_svg": (
            mark_safe(mail.qr_svg(entry.check_in_code))  # segno's own markup, the code escaped
            if entry.status == Entry.Status.ENTERED and entry.check_in_code
            else ""
        ),
    }
    return render(request, "entries/manage.html", context, status=status)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def withdraw(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """Withdrawing asks first; done, the page says how to come back (enter again while entries
    are open, or ask the organisers)."""
    entry = _entry_or_404(request, slug, key)
    if isinstance(entry, HttpResponse):
        return entry
    if request.method == "POST":
        with PageRefusal() as refusal:
            entering.withdraw(entry)
            messages.success(
                request,
                _(
                    "Your entry is withdrawn. Changed your mind? Enter again while entries are "
                    "open, or ask the organisers."
                ),
            )
        if refusal:
            refusal.say(request)
        return redirect("entry-manage", slug=slug, key=key)
    return render(request, "entries/confirm_withdraw.html", {"tournament": entry.tournament,
                                                             "entry": entry})  # fmt: skip


@csrf_exempt  # one-click unsubscribe (RFC 8058) posts from the mail client; the key is the proof
@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """Stop the tournament's mail to this entry: asked on the page (a mail client opening the link
    changes nothing), done by its button or a mail client's one-click POST. The entry's own
    receipts still come."""
    entry = _entry_or_404(request, slug, key)
    if isinstance(entry, HttpResponse):
        return entry
    done = False
    if request.method == "POST":
        entering.update(entry, changes={"messages_ok": False})
        done = True
    context = {"tournament": entry.tournament, "entry": entry, "done": done}
    return render(request, "entries/unsubscribe.html", context)


@require_POST
def resubscribe(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """Undo an unsubscribe from its own page."""
    entry = _entry_or_404(request, slug, key)
    if isinstance(entry, HttpResponse):
        return entry
    with PageRefusal() as refusal:
        entering.update(entry, changes={"messages_ok": True})
        messages.success(request, _("The tournament's mail will come again."))
    if refusal:
        refusal.say(request)
    return redirect("entry-manage", slug=slug, key=key)


@never_cache
@require_http_methods(["GET", "HEAD"])
def download(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """Everything kept about the entry, as a JSON file: its details, payments and mails."""
    entry = _entry_or_404(request, slug, key)
    if isinstance(entry, HttpResponse):
        return entry
    dumps = {"indent": 2, "ensure_ascii": False}
    response = JsonResponse(entry_data(entry), json_dumps_params=dumps)
    response["Content-Disposition"] = f'attachment; filename="entry-{slug}.json"'
    return response


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def erase(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """Erasing the entrant's details asks first, saying what becomes of the entry: withdrawn
    before play begins, kept (its name in the results) after."""
    entry = _entry_or_404(request, slug, key)
    if isinstance(entry, HttpResponse):
        return entry
    if request.method == "POST":
        with PageRefusal() as refusal:
            entry, withdrawn = privacy.erase_by_entrant(entry)
            messages.success(
                request,
                _("Your entry is withdrawn and your contact details are erased.")
                if withdrawn
                else _("Your contact details are erased."),
            )
        if refusal:
            refusal.say(request)
        return redirect("entry-manage", slug=slug, key=key)
    context = {
        "tournament": entry.tournament,
        "entry": entry,
        "withdraws": rules.erase_withdraws(entry),
    }
    return render(request, "entries/confirm_erase.html", context)
