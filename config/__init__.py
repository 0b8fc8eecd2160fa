"""Project wiring: settings, URLs, the Celery app and the API error handler."""

from config.celery import app as celery_app

__all__ = ["celery_app"]
