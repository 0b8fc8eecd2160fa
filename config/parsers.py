"""The API's JSON parser: DRF's, refusing in the API's error shape the bodies that made it fail
with a 500 (a body nested thousands deep overflows Python's JSON decoder: RecursionError) or say
too little (a body that is not UTF-8 was only "not valid JSON")."""

import json
from typing import Any

from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.settings import api_settings
from rest_framework.utils.json import strict_constant


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        encoding = parsers.get_encoding(parser_context or {})
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode(encoding)
        except LookupError:
            raise ParseError(
                _("The body's charset %(charset)s is not one Roundhouse reads: send UTF-8.")
                % {"charset": encoding}
            ) from None
        except UnicodeDecodeError as error:
            raise ParseError(
                _("The body is not %(charset)s text: byte %(position)s is not %(charset)s.")
                % {"charset": encoding.upper(), "position": error.start + 1}
            ) from None
        constant = strict_constant if api_settings.STRICT_JSON else None
        try:
            return json.loads(text, parse_constant=constant)
        except RecursionError:
            raise ParseError(_("The body's JSON is nested too deeply to read.")) from None
        except ValueError as error:  # config.api.exception_handler says where, in words
            raise ParseError(f"JSON parse error - {error}") from None
