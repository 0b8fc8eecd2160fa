"""The console's Messages page (organisers, as every console page): a message written to a
group, asked once more before it goes ("Send to 23 people?"), and every message sent, the
system's own included, with its counts, who failed and why, and the failed tried again."""

from django.contrib import messages as page_messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from config.refusals import PageRefusal
from entries import message_selectors
from entries.forms import MessageForm
from entries.services import messages
from tournaments.console import _console, focus_first_error, organised_tournament
from tournaments.models import Tournament

# Messages listed on the page, the newest first (the API lists every one).
LISTED = 100


def _page(
    request: HttpRequest,
    tournament: Tournament,
    *,
    form: MessageForm | None = None,
    asking: int | None = None,
    status: int = 200,
) -> HttpResponse:
    sizes = message_selectors.group_sizes(tournament)
    form = form or MessageForm(sizes=sizes)
    focus_first_error(form)
    listed = list(message_selectors.messages(tournament)[:LISTED])
    failures = message_selectors.failures([m.pk for m in listed if m.failed])
    for message in listed:
        message.failures = failures.get(message.pk, [])
    context = {
        "section_template": "entries/console/messages.html",
        "message_form": form,
        "asking": asking,  # how many the message will reach: the page asks before it sends
        "sent_messages": listed,
        "group_sizes": sizes,
    }
    return _console(request, tournament, status=status, section="messages",
                    section_context=context)  # fmt: skip


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def messages_page(request: HttpRequest, slug: str) -> HttpResponse:
    """The page; its form's POST asks first how many it will reach, and sends once confirmed."""
    tournament = organised_tournament(request, slug)
    if request.method != "POST":
        return _page(request, tournament)
    sizes = message_selectors.group_sizes(tournament)
    form = MessageForm(request.POST, sizes=sizes)
    if not form.is_valid():
        return _page(request, tournament, form=form, status=400)
    data = form.cleaned_data
    if not sizes[data["to"]]:
        form.add_error("to", messages.nobody_reached())
        return _page(request, tournament, form=form, status=400)
    if request.POST.get("confirm") == "no":  # "Change it": the form again, as it was
        return _page(request, tournament, form=form)
    if request.POST.get("confirm") != "yes":
        return _page(request, tournament, form=form, asking=sizes[data["to"]])
    with PageRefusal(ValidationError) as refusal:
        message = messages.send_message(tournament=tournament, by=request.user, **data)
        count = message.deliveries.count()
        page_messages.success(
            request,
            ngettext(
                "“%(subject)s” is going to %(count)s person.",
                "“%(subject)s” is going to %(count)s people.",
                count,
            )
            % {"subject": message.subject, "count": count},
        )
        return redirect("manage-messages", slug=slug)
    refusal.onto(form)
    return _page(request, tournament, form=form, status=refusal.status)


@login_required
@require_POST
def retry_message(request: HttpRequest, slug: str, message_id: int) -> HttpResponse:
    tournament = organised_tournament(request, slug)
    message = get_object_or_404(tournament.messages, pk=message_id)
    count = messages.retry_failed(message)
    page_messages.success(
        request,
        ngettext(
            "The failed mail of “%(subject)s” is tried again: %(count)s address.",
            "The failed mail of “%(subject)s” is tried again: %(count)s addresses.",
            count,
        )
        % {"subject": message.subject, "count": count}
        if count
        else _("“%(subject)s” has no failed mail to try again.") % {"subject": message.subject},
    )
    return redirect("manage-messages", slug=slug)
