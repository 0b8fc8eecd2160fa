"""The Celery app `config`: `celery -A config worker` and `celery -A config beat`."""

import gc
import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def freeze_start_up_objects(**kwargs: object) -> None:
    """Move what start-up allocated (Django, the models, the URL maps) out of the garbage
    collector's view: a rebuild's tens of thousands of new objects trigger full collections,
    which otherwise walk all of it each time (docs/PERFORMANCE.md, the standings rebuild)."""
    gc.freeze()
