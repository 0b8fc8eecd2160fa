"""The names the product gives stages, stored as a kind of name and said in the reader's language.

A stage made from a preset ("Qualifying", "Playoff", "Game") or a playoff level a worker makes
("Final", "Playoff level 2") keeps a name key, not words: words stored at creation would be in
the creator's (or the worker's) language for every reader after. A name an organiser typed has
no key and stays exactly as typed.

A name key is one of NAMES, "playoff_level:<level>" for a numbered level ("game_number:<n>" for
a numbered game), and "#<copy>" after
either when the organiser had taken the name already ("Final (2)"): NAME_KEY_PATTERN, which the
database checks too.
"""

import re

from django.conf import settings
from django.utils import translation
from django.utils.translation import pgettext_lazy

NAMES = {
    "qualifying": pgettext_lazy("stage name", "Qualifying"),
    "playoff": pgettext_lazy("stage name", "Playoff"),
    "game": pgettext_lazy("stage name", "Game"),
    "final": pgettext_lazy("stage name", "Final"),
    "playoff_level": pgettext_lazy("stage name", "Playoff level %(level)s"),
    "game_number": pgettext_lazy("stage name", "Game %(level)s"),
}

NAME_KEY_PATTERN = (
    r"^((qualifying|playoff|game|final|(playoff_level|game_number):[1-9][0-9]*)"
    r"(#([2-9]|[1-9][0-9]+))?)?$"
)
_PARTS = re.compile(NAME_KEY_PATTERN)
NUMBERED = ("playoff_level", "game_number")  # the kinds of name that carry a number


def name_key(kind: str, *, level: int | None = None, copy: int = 1) -> str:
    """The key of a name of `kind` (a key of NAMES; a "playoff_level" has its `level`), the
    `copy`-th of that name in its tournament."""
    if kind not in NAMES or (kind in NUMBERED) != (level is not None):
        raise ValueError(f"No stage name {kind!r} (level {level})")
    key = f"{kind}:{level}" if level is not None else kind
    key += f"#{copy}" if copy > 1 else ""
    if not _PARTS.match(key):
        raise ValueError(f"Not a stage name key: {key!r}")
    return key


def say(key: str) -> str:
    """The name of `key` in the active language ("" for no key: the stage's name was typed)."""
    if not key:
        return ""
    if not _PARTS.match(key):
        raise ValueError(f"Not a stage name key: {key!r}")
    key, _, copy = key.partition("#")
    kind, _, level = key.partition(":")
    name = str(NAMES[kind])
    if level:
        name = name % {"level": level}
    return f"{name} ({copy})" if copy else name


def in_site_language(key: str) -> str:
    """The name of `key` in the site's language (LANGUAGE_CODE): what the stage's `name` stores,
    for whatever reads the column alone."""
    with translation.override(settings.LANGUAGE_CODE):
        return say(key)


def in_every_language(key: str) -> set[str]:
    """The name of `key` in each of the site's languages: what a reader may see it called."""
    names = set()
    for code, _language in settings.LANGUAGES:
        with translation.override(code):
            names.add(say(key))
    return names
