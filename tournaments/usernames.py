"""Who a typed username names: one normal form (NFKC, case-folded) for sign-in, the API's token,
the sign-in lockout, sign-up and the staff API, so that "kasey", "KASEY" and kasey in full-width
letters are one name everywhere."""

import unicodedata
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser


def username_key(username: str) -> str:
    """The normal form of a username. NFKC again after case-folding, as Unicode's NFKC_Casefold
    does: folding can leave text that is no longer normalised ("ǰ" folds to j + a combining
    caron)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", username).casefold())


def accounts_named(username: str) -> list[AbstractBaseUser]:
    """Every account whose username has the normal form of `username` (more than one only for
    accounts made before sign-up refused clashes), the exact spelling first.

    The database cannot compute the normal form (PostgreSQL has no case-folding, SQLite no
    NFKC), so the names are compared here: one column of one table, cheaper than the password
    hash that every sign-in computes anyway."""
    key = username_key(username)
    user_model = get_user_model()
    field = user_model.USERNAME_FIELD
    ids = [
        pk
        for pk, name in user_model._default_manager.values_list("pk", field).iterator()
        if username_key(name) == key
    ]
    users = list(user_model._default_manager.filter(pk__in=ids))
    return sorted(users, key=lambda user: user.get_username() != username)


def account_named(username: str) -> AbstractBaseUser | None:
    """The one account `username` names: its exact spelling, else the only account with its
    normal form. None when there is none, or when clashing accounts share the normal form and
    none is spelt exactly so (signing into either could be the wrong person's)."""
    users = accounts_named(username)
    if users and users[0].get_username() == username:
        return users[0]
    return users[0] if len(users) == 1 else None


def clashing_usernames(names: Iterable[str] | None = None) -> list[list[str]]:
    """Groups of usernames (of every account, or of `names`) that share a normal form, each
    sorted, the groups by their first."""
    if names is None:
        user_model = get_user_model()
        names = user_model._default_manager.values_list(
            user_model.USERNAME_FIELD, flat=True
        ).iterator()
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(username_key(name), []).append(name)
    return sorted(sorted(group) for group in groups.values() if len(group) > 1)


# What an admin is told to do about a group of clashing accounts. They are never merged for
# them: each may be a different person's, with their own roles and results entered.
CLASH_ADVICE = (
    "only the exact spelling signs into each; rename all but one in the admin (Users), telling "
    "their owners, or remove the ones nobody uses"
)


def clash_report(groups: list[list[str]]) -> list[str]:
    """One line per group of clashing usernames, saying what to do."""
    return [
        f"Usernames that are one name here: {', '.join(map(repr, group))}: {CLASH_ADVICE}."
        for group in groups
    ]
