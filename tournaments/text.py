"""Text as people type it: compared without accents, case or extra spaces."""

import unicodedata
from collections.abc import Collection

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils.text import slugify
from django.utils.translation import gettext as _
from idna.core import valid_contextj

# Latin letters that are letters of their own, not a letter and an accent, so that Unicode's
# decomposition leaves them as they are: a desk volunteer types "lukasz" for Łukasz, "oystein"
# for Øystein. (A transliteration library would fold every script into Latin letters as well,
# which a search by name should not do.)
LATIN_LETTERS = str.maketrans(
    {"ł": "l", "Ł": "l", "ø": "o", "Ø": "o", "đ": "d", "Đ": "d", "ħ": "h", "Ħ": "h",
     "\u0131": "i", "ŀ": "l", "Ŀ": "l", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe",
     "ð": "d", "Ð": "d", "þ": "th", "Þ": "th"}
)  # fmt: skip


def folded(text: str) -> str:
    """Text as a search or a name check compares it: "Peña", "PENA" and "pena" alike, and
    "Łukasz" as "lukasz"."""
    decomposed = unicodedata.normalize("NFKD", text).translate(LATIN_LETTERS)
    return " ".join(
        "".join(c for c in decomposed if not unicodedata.combining(c)).split()
    ).casefold()


# Characters a name may not hold: controls and format characters (they print as nothing, or
# turn the text around: a right-to-left override), line and paragraph separators, surrogates,
# private-use characters (a glyph only some font gives) and unassigned ones (a later Unicode may
# give them any meaning). Any of them lets two names that read the same differ.
REFUSED_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}
ZWNJ, ZWJ = "\u200c", "\u200d"


def _joiner_joins(text: str, index: int) -> bool:
    """Whether the zero-width (non-)joiner at `index` changes how its neighbours print: where
    IDNA allows it (RFC 5892's CONTEXTJ rules: after a virama, or a non-joiner between Arabic
    letters that join, as in Persian), or a joiner inside an emoji sequence. Anywhere else, as in
    "Ann\u200dDoe", it only makes a second spelling of a name that reads the same."""
    if valid_contextj(text, index):
        return True
    before, after = text[index - 1 : index], text[index + 1 : index + 2]
    return (
        text[index] == ZWJ
        and bool(before and after)
        and all(unicodedata.category(c) == "So" for c in (before, after))
    )


def hidden_character(text: str) -> str | None:
    """The code ("U+200B") of the first character of `text` that a name may not hold (a control
    or format character, a joiner that joins nothing, a private-use or unassigned character),
    or None."""
    for index, character in enumerate(text):
        if unicodedata.category(character) not in REFUSED_CATEGORIES:
            continue
        if character in (ZWNJ, ZWJ) and _joiner_joins(text, index):
            continue
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
