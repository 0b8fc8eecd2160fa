"""URL converters: ids a database can hold (a longer number is a 404, not an overflow)."""

from django.urls import register_converter


class IdConverter:
    regex = "[0-9]{1,18}"  # below 2**63, the largest id PostgreSQL and SQLite store

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
