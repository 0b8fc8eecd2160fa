"""What the standings say, for templates: `{% load standings_text %}`."""

from django import template

from scoring.standings.text import and_names

register = template.Library()


@register.filter(name="and_names")
def and_names_filter(names) -> str:
    """["Ann", "Bo"] -> "Ann and Bo", in the active language ("Ann y Bo")."""
    return and_names(list(names)) if names else ""
