"""Limits per client address on the doors anyone may knock at: entering a tournament, guessing an
entry's private address or a check-in code.

DRF's throttles count every request a view answers; these count what the caller says (each entry
sent; only the wrong codes at a kiosk, where one tablet serves a whole queue), so a desk busy with
right codes is never slowed. Kept in the default cache as DRF keeps its own (a list of times per
address and door); with the cache down nobody is limited rather than everybody refused."""

import logging
import time

from django.core.cache import cache
from django.http import HttpRequest

from config import redis_keys
from config.client_ip import client_ip

log = logging.getLogger(__name__)


class AddressLimit:
    """At most `count` marks from one address in `seconds`, for the door `scope`."""

    def __init__(self, scope: str, count: int, seconds: int = 60) -> None:
        self.scope, self.count, self.seconds = scope, count, seconds

    def _key(self, request: HttpRequest) -> str:
        return redis_keys.throttle(self.scope, client_ip(request) or "unknown")

    def _recent(self, key: str, now: float) -> list[float]:
        return [at for at in cache.get(key, []) if at > now - self.seconds]

    def wait(self, request: HttpRequest) -> int | None:
        """Seconds until this address may knock again, or None if it may now."""
        now = time.time()
        try:
            recent = self._recent(self._key(request), now)
        except Exception:
            log.warning("%s: cache unavailable, not limited", self.scope)
            return None
        if len(recent) < self.count:
            return None
        return max(int(recent[-self.count] + self.seconds - now) + 1, 1)

    def mark(self, request: HttpRequest) -> None:
        """Count one knock (an entry sent, a wrong code) for this address."""
        now = time.time()
        key = self._key(request)
        try:
            recent = self._recent(key, now)
            cache.set(key, [*recent, now][-self.count * 2 :], timeout=self.seconds)
        except Exception:
            log.warning("%s: cache unavailable, a knock not counted", self.scope)


# The limits of the entries app's doors (docs/API.md).
ENTRIES = AddressLimit("entries", 60)  # entries sent from one address a minute
ENTRY_KEYS = AddressLimit("entry-keys", 20)  # wrong private addresses tried a minute
CHECK_IN_CODES = AddressLimit("check-in-codes", 10)  # wrong check-in codes a minute
TABLE_CODES = AddressLimit("table-codes", 10)
