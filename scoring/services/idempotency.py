"""The Idempotency-Key store: a request sent again with its key gets the stored answer, to the
letter. The key is claimed in the transaction that makes the result, so a concurrent duplicate
waits on the key's row and then finds the answer."""

import hashlib
import json
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from scoring.exceptions import KeyReused
from scoring.models import IdempotencyRecord

KEY_LENGTH = IdempotencyRecord._meta.get_field("key").max_length


def body_hash(*parts: object) -> str:
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def check_key(key: str | None) -> None:
    """A key the page or the client could have made: the header's length is checked by the API;
    a form's hidden key is made by its page."""
    if key is not None and (len(key) > KEY_LENGTH or not key.isprintable()):
        raise ValidationError(
            {
                "idempotency_key": _(
                    "This entry's key is not one the page made: reload the page and enter the "
                    "round again."
                )
            }
        )


def stored_answer(*, user: AbstractBaseUser, key: str, digest: str) -> IdempotencyRecord | None:
    """The answer stored under the key, or None; KeyReused when it answered another request."""
    record = IdempotencyRecord.objects.filter(user=user, key=key).first()
    if record is not None and record.body_hash != digest:
        raise KeyReused(
            _(
                "This Idempotency-Key was already used for a different request. Use a new key "
                "for a new entry."
            )
        )
    return record


def claim(*, user: AbstractBaseUser, key: str, path: str, digest: str) -> IdempotencyRecord:
    """Claim the key before making anything: a concurrent duplicate blocks here until this
    transaction commits, then finds the answer (or, rolled back, claims the key itself)."""
    return IdempotencyRecord.objects.create(
        user=user,
        key=key,
        method="PUT",
        path=path,
        body_hash=digest,
        created=False,
        response_body={},
    )


def remember(record: IdempotencyRecord, *, created: bool, body: dict[str, Any], etag: str) -> None:
    """Store what the request did and answered, for its replays."""
    record.created, record.response_body, record.response_etag = created, body, etag
    record.save(update_fields=["created", "response_body", "response_etag"])
