from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RalliesConfig(AppConfig):
    name = "rallies"
    verbose_name = _("Rallies")
