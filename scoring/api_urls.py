from django.urls import path, register_converter

from scoring import api, exports


class ExportName:
    regex = "|".join(exports.EXPORTS)

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(ExportName, "export")

urlpatterns = [
    path(
        "tournaments/<slug:slug>/exports/<export:name>.csv",
        api.ExportCsvApi.as_view(),
        name="tournament-export",
    ),
]
