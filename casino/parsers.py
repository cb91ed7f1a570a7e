"""The API's request parser (DRF's ``DEFAULT_PARSER_CLASSES``). Imports no view: DRF's settings
load it while ``rest_framework.views`` is still being imported."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class JSONBodyParser(JSONParser):
    """DRF's JSON parser, refusing a body nested too deeply for Python's parser (``[[[[...]]]]``
    a thousand levels down raises ``RecursionError``, which DRF's parser lets through as a 500)
    with the same 400 ``parse_error`` as any malformed JSON."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise ParseError("JSON parse error - the body is nested too deeply.") from error
