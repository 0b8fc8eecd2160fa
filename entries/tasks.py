"""The entries app's Celery tasks: a mail sent with retries, the beat's sweep of mail still
waiting, offers that ran out, and contact details kept past their time."""

from celery import shared_task
from django.db.utils import OperationalError
from django.utils import timezone

from entries.models import Delivery, Entry
from entries.services import entering, mail, privacy
from tournaments.models import Tournament


@shared_task(bind=True, max_retries=mail.MAX_TRIES)
def send_delivery(self, *, delivery_id: int) -> str:
    """Send one mail; while the mail server fails, try again after 1, 2, 4 ... up to 60 minutes.
    Inline (make run, no broker) a failure waits for the next sweep instead of retrying at once."""
    eager = bool(self.request.is_eager)
    try:
        # Inline too, a failure is a try counted: the delivery waits for the sweep, and fails
        # for good only after MAX_TRIES (mail.deliver).
        return mail.deliver(
            delivery_id, tries_left=eager or self.request.retries < self.max_retries
        )
    except (mail.NotSent, OperationalError) as error:
        if eager:
            return "waiting"
        countdown = min(60 * 2**self.request.retries, 3600)
        raise self.retry(exc=error, countdown=countdown) from error


@shared_task
def send_pending(older_than_seconds: float = 300) -> int:
    """Resend the mails still waiting after a while (a task lost with its broker, a failure
    inline); the ones being retried are skipped by their lock or found sent. Returns how many."""
    since = timezone.now() - timezone.timedelta(seconds=older_than_seconds)
    waiting = Delivery.objects.filter(
        status=Delivery.Status.PENDING, message__created_at__lte=since
    ).values_list("pk", flat=True)
    ids = list(waiting[:500])
    for pk in ids:
        mail.send(pk)
    return len(ids)


@shared_task
def expire_offers() -> int:
    """Offers not taken in time, expired and passed on, in every tournament holding one."""
    holding = Tournament.objects.filter(
        entries__status=Entry.Status.OFFERED, entries__offer_expires_at__lte=timezone.now()
    ).distinct()
    return sum(entering.apply_expiry(tournament) for tournament in holding)


@shared_task
def erase_old_contacts() -> int:
    """Entrants' contact details erased ROUNDHOUSE_CONTACT_DAYS after their tournament's last
    day (once a day, from beat). Returns how many entries."""
    return privacy.erase_old_contacts()
