"""Mails that Roundhouse itself sends (allauth sends the account ones): an invitation's link."""

import logging
import smtplib

from django.core.mail import send_mail
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.translation import gettext as _

from accounts.invitations import invitation_url
from tournaments.models import Invitation

log = logging.getLogger(__name__)


def send_invitation(request: HttpRequest, invitation: Invitation) -> str | None:
    """Mail the invitation's link to its address. None when sent; otherwise what went wrong,
    for the organiser (the invitation stands, and its link can be handed over instead)."""
    context = {
        "invitation": invitation,
        "tournament": invitation.tournament,
        "url": invitation_url(request, invitation),
        "by": invitation.created_by,
    }
    subject = render_to_string("accounts/email/invitation_subject.txt", context).strip()
    body = render_to_string("accounts/email/invitation_message.txt", context)
    try:
        send_mail(subject, body, None, [invitation.email])
    except (smtplib.SMTPException, OSError) as error:
        log.warning("invitation %s not mailed to %s: %s", invitation.pk, invitation.email, error)
        return _(
            "The invitation was made, but the mail to %(email)s could not be sent (%(error)s): "
            "give them the link or the QR code instead."
        ) % {"email": invitation.email, "error": error}
    return None
