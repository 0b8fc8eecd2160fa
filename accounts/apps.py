from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """People and access: sign-up, invitations, staff pages and the signed-in home."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
