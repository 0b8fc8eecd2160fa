"""The API's error handler: services raise Django's ValidationError, clients get DRF's 400 shape."""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class Conflict(exceptions.APIException):
    """The request is valid but the state forbids it (409); `detail` says what to do."""

    status_code = 409
    default_detail = _("This conflicts with the current state.")
    default_code = "conflict"


def _django_errors(error: DjangoValidationError) -> dict[str, list[str]]:
    if hasattr(error, "error_dict"):
        return {
            ("non_field_errors" if field == "__all__" else field): [str(m) for m in messages]
            for field, messages in error.message_dict.items()
        }
    return {"non_field_errors": [str(m) for m in error.messages]}


def exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, DjangoValidationError):
        return Response(_django_errors(exc), status=400)
    return drf_exception_handler(exc, context)
