"""Mail to entrants: each Message is kept with a Delivery per address, and each delivery is sent
by a Celery task (entries.tasks.send_delivery) that retries while the mail server does not
answer; the beat (entries.tasks.send_pending) sends what a lost task or a broker outage left.
A delivery is sent once: its row is locked while it is sent and marked sent in the same
transaction.

An entry's own mails (its receipt, its waitlist place, an offer, a place taken, a withdrawal)
go whatever it agreed to; every other message only to entries with `messages_ok`."""

import io
import logging
import smtplib
from collections.abc import Iterable
from email.mime.image import MIMEImage
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from config import task_names
from entries.models import Delivery, Entry, Message
from scoring import queue
from scoring.results import ordinal, place_text
from scoring.rules.medals import MEDAL_NAMES

log = logging.getLogger(__name__)

Kind = Message.Kind

# An entry's own mail for each status it reaches.
OWN_KINDS = {
    Entry.Status.WAITLISTED: Kind.WAITLISTED,
    Entry.Status.OFFERED: Kind.OFFER,
    Entry.Status.WITHDRAWN: Kind.WITHDRAWN,
}

# Tries of one delivery before it counts as failed; with the task's backoff (1, 2, 4 ... 60
# minutes) that is about eight hours of a mail server down.
MAX_TRIES = 12


def _subject(kind: str, tournament_name: str, *, corrected: bool = False) -> str:
    if kind == Kind.RESULTS and corrected:
        return _("The results of %(tournament)s, corrected") % {"tournament": tournament_name}
    subjects = {
        Kind.RECEIPT: _("Your entry to %(tournament)s"),
        Kind.WAITLISTED: _("You are on the waitlist for %(tournament)s"),
        Kind.OFFER: _("A place in %(tournament)s is yours to take"),
        Kind.ENTERED: _("You have a place in %(tournament)s"),
        Kind.WITHDRAWN: _("Your entry to %(tournament)s is withdrawn"),
        Kind.SEATED: _("Where you sit at %(tournament)s"),
        Kind.RESULTS: _("The results of %(tournament)s"),
    }
    return subjects[kind] % {"tournament": tournament_name}


def entry_mail(entry: Entry, status: str, *, again: bool = False) -> Message:
    """Queue the entry's own mail for the status it reached (entered: its receipt, or "you have
    a place" after an offer or an organiser's hand; `again`: the mail of the status it holds,
    sent again with its link). Sent once the transaction commits."""
    if status == Entry.Status.ENTERED and (again or entry.history.count() <= 1):
        kind = Kind.RECEIPT
    else:
        kind = OWN_KINDS.get(status, Kind.ENTERED)
    with translation.override(entry.language):
        subject = _subject(kind, entry.tournament.name)
    return queue_message(
        tournament=entry.tournament, kind=kind, subject=subject, entries=[entry], own=True
    )


def queue_message(
    *,
    tournament,
    kind: str,
    subject: str,
    entries: Iterable[Entry],
    body: str = "",
    to: str = "",
    stage=None,
    by=None,
    context: dict[int, dict[str, Any]] | None = None,
    own: bool = False,
) -> Message:
    """A message to the entries given (only those with `messages_ok` unless it is their `own`
    mail), one delivery each with its `context` (by entry id), sent after the commit."""
    message = Message.objects.create(
        tournament=tournament, kind=kind, to=to, subject=subject, body=body, stage=stage,
        created_by=by,
    )  # fmt: skip
    context = context or {}
    deliveries = Delivery.objects.bulk_create(
        Delivery(message=message, entry=entry, email=entry.email, context=context.get(entry.pk, {}))
        for entry in entries
        if (own or entry.messages_ok) and entry.email and entry.contact_erased_at is None
    )
    ids = [delivery.pk for delivery in deliveries]
    transaction.on_commit(lambda: [send(pk) for pk in ids])
    return message


def send(delivery_id: int, countdown: float | None = None) -> None:
    """Hand one delivery to the workers (inline where tasks run inline). A broker that cannot be
    reached leaves it waiting for the beat's sweep."""
    try:
        queue.send(task_names.SEND_DELIVERY, countdown=countdown, delivery_id=delivery_id)
    except Exception:
        log.warning(
            "delivery %s left for the sweep: the broker did not take it",
            delivery_id,
            exc_info=True,
        )


def origin_of(entry: Entry | None) -> str:
    return settings.PUBLIC_URL or (entry.origin if entry else "") or "http://localhost:8000"


def manage_url(entry: Entry) -> str:
    """The entry's private address, whole (for its mails)."""
    with translation.override(entry.language):
        path = reverse("entry-manage", args=[entry.tournament.slug, entry.manage_key])
    return origin_of(entry) + path


def render(delivery: Delivery) -> EmailMultiAlternatives:
    """The mail of one delivery, in its entry's language: the message's text, then the entry's
    own part (its link, its place, its seat), and a way to stop the mail."""
    message, entry = delivery.message, delivery.entry
    tournament = message.tournament
    language = entry.language if entry else settings.LANGUAGE_CODE
    with translation.override(language):
        base = origin_of(entry)
        # A system message reads in each entry's own language: its subject and its stage's name
        # are said again in it (the message keeps them in the language of the one who sent it).
        subject = message.subject
        if message.kind in _SUBJECT_KINDS:
            subject = _subject(
                message.kind, tournament.name, corrected=bool(delivery.context.get("corrected"))
            )
        context = {
            "stage_name": message.stage.display_name if message.stage else "",
            "results_lines": (
                results_lines(delivery.context) if message.kind == Kind.RESULTS else []
            ),
            "results_url": base + reverse("results", args=[tournament.slug]),
            "message": message,
            "entry": entry,
            "tournament": tournament,
            "extra": delivery.context,
            "manage_url": manage_url(entry) if entry else "",
            "unsubscribe_url": (
                base + reverse("entry-unsubscribe", args=[tournament.slug, entry.manage_key])
                if entry
                else ""
            ),
            "public_url": base + reverse("tournament-home", args=[tournament.slug]),
        }
        text = render_to_string("entries/email/message.txt", context)
        html = None
        if carries_code(message, entry):
            html = render_to_string("entries/email/message.html", context | {"text": text})
    mail = EmailMultiAlternatives(subject, text, None, [delivery.email])
    if html is not None:
        # multipart/related: the HTML part and the QR image it shows (cid:), the plain text part
        # (which has the code as text) its alternative.
        mail.mixed_subtype = "related"
        mail.attach_alternative(html, "text/html")
        image = MIMEImage(qr_png(entry.check_in_code), "png")
        image.add_header("Content-ID", f"<{QR_CID}>")
        image.add_header("Content-Disposition", "inline", filename="check-in-code.png")
        mail.attach(image)
    if context["unsubscribe_url"]:
        # RFC 8058: a mail client's one-click "unsubscribe" POSTs this body to the link.
        mail.extra_headers["List-Unsubscribe"] = f"<{context['unsubscribe_url']}>"
        mail.extra_headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return mail


# The kinds whose subject the system writes (every kind but an organiser's message).
_SUBJECT_KINDS = frozenset(Kind.values) - {Kind.ORGANISER}


def results_lines(context: dict[str, Any]) -> list[str]:
    """What a results mail tells its entry, in the active language: the place, and the place
    and medal in the division or flight (as the results page and the certificates say them)."""
    if not context.get("place"):
        return []
    lines = [_("You placed %(place)s.") % {"place": place_text(context["place"])}]
    if context.get("division") and context.get("division_place"):
        values = {"ordinal": ordinal(context["division_place"]), "division": context["division"]}
        flight = context.get("flight")
        if context.get("medal") in MEDAL_NAMES:
            values["medal"] = MEDAL_NAMES[context["medal"]]
            if flight:
                line = _("In flight %(division)s you placed %(ordinal)s: %(medal)s medal.")
            else:
                line = _("In division %(division)s you placed %(ordinal)s: %(medal)s medal.")
        elif flight:
            line = _("In flight %(division)s you placed %(ordinal)s.")
        else:
            line = _("In division %(division)s you placed %(ordinal)s.")
        lines.append(line % values)
    elif context.get("medal") in MEDAL_NAMES:
        lines.append(_("%(medal)s medal.") % {"medal": MEDAL_NAMES[context["medal"]]})
    return lines


QR_CID = "check-in-code@roundhouse"


def carries_code(message: Message, entry: Entry | None) -> bool:
    """The mails that say an entered entry's check-in code (its receipt, a place taken) carry it
    as a QR too."""
    return (
        entry is not None
        and entry.status == Entry.Status.ENTERED
        and bool(entry.check_in_code)
        and message.kind in (Kind.RECEIPT, Kind.ENTERED)
    )


def qr_png(code: str) -> bytes:
    """The check-in code as a QR image (PNG), for the kiosk's camera."""
    import segno  # here, not at the top: only these mails draw one

    buffer = io.BytesIO()
    segno.make(code, error="m", micro=False).save(buffer, kind="png", scale=8, border=4)
    return buffer.getvalue()


def qr_svg(code: str) -> str:
    """The check-in code as an inline SVG QR, for the entry's page."""
    import segno

    return segno.make(code, error="m", micro=False).svg_inline(
        scale=10, border=4, dark="#000", light="#fff"
    )


class NotSent(Exception):
    """The mail server refused or did not answer: the delivery waits for another try."""


def deliver(delivery_id: int, *, tries_left: bool) -> str:
    """Send one delivery if it still waits; what became of it ("sent", "failed", "waiting",
    or "done" when it was sent or given up before). Its row stays locked while it is sent, so a
    second sender (the sweep, a retry) waits and then finds it sent. NotSent when the server
    failed and another try may be made (`tries_left`); the last failure marks it failed."""
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(of=("self",))
            .select_related("message__tournament", "entry__tournament")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None or delivery.status != Delivery.Status.PENDING:
            return "done"
        delivery.attempts += 1
        try:
            render(delivery).send()
        except (smtplib.SMTPException, OSError) as error:
            delivery.last_error = str(error)[:300]
            if not tries_left or delivery.attempts >= MAX_TRIES:
                delivery.status = Delivery.Status.FAILED
            delivery.save(update_fields=["attempts", "last_error", "status"])
            if delivery.status == Delivery.Status.FAILED:
                log.warning("delivery %s failed for good: %s", delivery_id, error)
                return "failed"
            failed = NotSent(str(error))
        else:
            delivery.status = Delivery.Status.SENT
            delivery.sent_at = timezone.now()
            delivery.last_error = ""
            delivery.save(update_fields=["attempts", "last_error", "status", "sent_at"])
            return "sent"
    raise failed
