"""Limits per client address on the doors anyone may knock at: entering a tournament, guessing an
entry's private address, a check-in code or a table's code.

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

    def _window(self, request: HttpRequest, now: float) -> tuple[str, float]:
        """This address's count in the current window of `seconds`, and when the window ends."""
        window = int(now // self.seconds)
        address = f"{client_ip(request) or 'unknown'}:w{window}"
        return redis_keys.throttle(self.scope, address), (window + 1) * self.seconds

    def take(self, request: HttpRequest) -> int | None:
        """Count a knock before it is answered, in one step (the cache's atomic increment): None
        while the address is within `count` in this window, else the seconds until the window
        ends. For a door that many requests from one address may knock at at once, where
        wait-then-mark would let them all through before any is counted; a knock that turns out
        right is handed back (give_back). A fixed window: at most `count` in each minute."""
        now = time.time()
        key, ends = self._window(request, now)
        try:
            cache.add(key, 0, timeout=self.seconds * 2)
            taken = cache.incr(key)
        except Exception:  # the cache down, or the key gone between add and incr
            log.warning("%s: cache unavailable, not limited", self.scope)
            return None
        request.__dict__.setdefault("_throttle_taken", {})[self.scope] = key
        if taken <= self.count:
            return None
        return max(int(ends - now) + 1, 1)

    def give_back(self, request: HttpRequest) -> None:
        """Uncount the knock `take` counted for this request (it was a right one)."""
        key = request.__dict__.get("_throttle_taken", {}).pop(self.scope, None)
        if key is None:
            return
        try:
            cache.decr(key)
        except Exception:
            log.warning("%s: cache unavailable, a knock not given back", self.scope)

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
# A table's code and a badge number claim a seat (tables/api.py ClaimSeatApi): failed claims a
# minute (take/give_back: phones at one table claim at once), past which every claim from the
# address waits, right or wrong.
TABLE_CODES = AddressLimit("table-codes", 10)
