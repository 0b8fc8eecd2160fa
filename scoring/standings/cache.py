"""The standings' keys in the cache: the snapshot's payload, and a rebuild queued."""

import logging

from django.core.cache import cache

from config import redis_keys

logger = logging.getLogger(__name__)


CACHE_SECONDS = 300


# The payload's shape: a release that adds to it (2: the rows' tie-breaks) reads no payload an
# earlier one cached.
PAYLOAD_VERSION = 2


def cache_key(stage_id: int) -> str:
    return redis_keys.standings(stage_id, PAYLOAD_VERSION)


def pending_key(stage_id: int) -> str:
    return redis_keys.standings_pending(stage_id)


def forget_cached(stage_id: int) -> None:
    try:
        cache.delete(cache_key(stage_id))
    except Exception:  # Redis down: the version check below never serves the old payload
        logger.warning("standings: cache unavailable after rebuilding stage %s", stage_id)
