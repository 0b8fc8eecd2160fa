"""Text as people type it: compared without accents, case or extra spaces."""

import unicodedata
from collections.abc import Collection

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils.text import slugify
from django.utils.translation import gettext as _


def folded(text: str) -> str:
    """Text as a search or a name check compares it: "Peña", "PENA" and "pena" alike."""
    decomposed = unicodedata.normalize("NFKD", text)
    return " ".join(
        "".join(c for c in decomposed if not unicodedata.combining(c)).split()
    ).casefold()


# Format characters that join letters in some scripts (Persian, Indic, emoji sequences) are
# part of a name; every other control or format character prints as nothing, or turns the text
# around (a right-to-left override), on pages, cards and exports.
JOINERS = {"\u200c", "\u200d"}


def hidden_character(text: str) -> str | None:
    """The code ("U+200B") of the first character of `text` that does not print (a control or
    format character, a line or paragraph separator), or None."""
    for character in text:
        if character not in JOINERS and unicodedata.category(character) in {"Cc", "Cf", "Zl", "Zp"}:
            return f"U+{ord(character):04X}"
    return None


def check_printable(**fields: str) -> None:
    """ValidationError for each field holding a character that does not print (an invisible
    space, a control character, a right-to-left override): pages, cards and exports would show
    it as nothing, or back to front."""
    found = {field: unprintable_messages(text) for field, text in fields.items()}
    errors = {field: messages for field, messages in found.items() if messages}
    if errors:
        raise ValidationError(errors)


def unprintable_messages(text: str) -> list[str]:
    code = hidden_character(text)
    if code is None:
        return []
    message = _("This contains a character that does not print (%(code)s): type it again.")
    return [message % {"code": code}]


def free_slug(
    name: str,
    taken: QuerySet,
    *,
    fallback: str,
    length: int = 50,
    reserved: Collection[str] = (),
) -> str:
    """A web address from a name that none of `taken` (the rows of the same scope: every
    tournament, a club's other seasons) has yet, nor `reserved`: "spring-rally", else
    "spring-rally-2", "spring-rally-3", ... A name with nothing to make one of gives `fallback`."""
    base = slugify(name)[:length].strip("-") or fallback
    used = set(taken.filter(slug__startswith=base).values_list("slug", flat=True))
    used.update(reserved)
    slug, n = base, 1
    while slug in used:
        n += 1
        slug = f"{base}-{n}"
    return slug
