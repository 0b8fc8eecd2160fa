"""`{% help_link "seating" %}`: a section's Help link, to its part of the help page."""

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext

from tournaments.help import TOPIC_BY_ANCHOR

register = template.Library()


@register.simple_tag
def help_link(anchor: str) -> str:
    """A link big enough to tap, named for its section ("Help: Seating a stage"); an unknown
    topic is a mistake in the template, not a link to nowhere."""
    try:
        topic = TOPIC_BY_ANCHOR[anchor]
    except KeyError:
        raise template.TemplateSyntaxError(f"help_link: no help topic {anchor!r}") from None
    return format_html(
        '<a class="help-link" href="{}#{}" aria-label="{}">{}</a>',
        reverse("help"),
        anchor,
        gettext("Help: %(section)s") % {"section": topic.title},
        gettext("Help"),
    )
