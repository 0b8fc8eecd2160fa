"""The organisers' own messages: one to a group of entries (entries/message_selectors.py
group), and the failed deliveries of a message tried again. Sent as every mail is
(entries/services/mail.py queue_message): once, after the commit, with retries."""

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from entries import message_selectors
from entries.models import Delivery, Message
from entries.services import mail
from tournaments.models import Tournament

SUBJECT_MAX = Message._meta.get_field("subject").max_length
BODY_MAX = Message._meta.get_field("body").max_length


def nobody_reached() -> str:
    return _("Nobody in this group has agreed to mail: the message would reach nobody.")


def check_message(*, to: str, subject: str, body: str) -> None:
    """Each bad value a ValidationError by field, all at once."""
    errors: dict[str, list[str]] = {}
    if to not in Message.To.values:
        errors["to"] = [
            _("Choose who the message goes to: %(groups)s.")
            % {"groups": ", ".join(Message.To.values)}
        ]
    for field, value, most in (("subject", subject, SUBJECT_MAX), ("body", body, BODY_MAX)):
        if not value.strip():
            errors[field] = [_("This field is required.")]
        elif len(value) > most:
            errors[field] = [
                _("At most %(most)s characters (this has %(count)s).")
                % {"most": most, "count": len(value)}
            ]
    if errors:
        raise ValidationError(errors)


@transaction.atomic
def send_message(
    *, tournament: Tournament, to: str, subject: str, body: str, by: AbstractBaseUser
) -> Message:
    """An organiser's message to a group, one mail to each of its entries who agreed to mail.
    Refused (nothing stored) for a bad value, or a group that reaches nobody."""
    subject, body = subject.strip(), body.strip()
    check_message(to=to, subject=subject, body=body)
    Tournament.objects.select_for_update().get(pk=tournament.pk)  # as every write of entries
    entries = list(message_selectors.group(tournament, to).select_related("tournament"))
    if not entries:
        raise ValidationError({"to": [nobody_reached()]})
    return mail.queue_message(
        tournament=tournament, kind=Message.Kind.ORGANISER, subject=subject, body=body,
        entries=entries, to=to, by=by,
    )  # fmt: skip


@transaction.atomic
def retry_failed(message: Message) -> int:
    """Put a message's failed deliveries back to waiting and send them again (after the commit);
    each still goes once. How many."""
    failed = list(
        Delivery.objects.select_for_update()
        .filter(message=message, status=Delivery.Status.FAILED)
        .values_list("pk", flat=True)
    )
    Delivery.objects.filter(pk__in=failed).update(status=Delivery.Status.PENDING, attempts=0)
    transaction.on_commit(lambda: [mail.send(pk) for pk in failed])
    return len(failed)
