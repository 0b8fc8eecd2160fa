"""`{{ player.name|bdi }}`: a name people typed, shown as text, isolated in its own `<bdi>` so that
a right-to-left name (Hebrew, Arabic) does not carry the punctuation and numbers around it into
its own direction: "#12 כהן (Tel Aviv)" stays in that order. The element is inline and unstyled,
so the layout is the one the name had without it; its direction is the name's own first strong
letter, as `dir="auto"` is.

For text only: never in an attribute (title=, aria-label=, value=) nor in <title>, where markup
is not markup. Inside `{% blocktranslate %}` it goes on the variable (`with name=x.name|bdi`), so
the sentence to translate stays as it was."""

from django import template
from django.utils.html import format_html

register = template.Library()


@register.filter
def bdi(value: object) -> str:
    """The value escaped inside <bdi>; nothing at all for an empty value (no empty element)."""
    if value is None or value == "":
        return ""
    return format_html("<bdi>{}</bdi>", value)
