"""The API's request parser (DRF's ``DEFAULT_PARSER_CLASSES``). Imports no view: DRF's settings
load it while ``rest_framework.views`` is still being imported."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import (  # type: ignore[attr-defined]  # get_encoding: not in the DRF stubs
    JSONParser,
    get_encoding,
)
from rest_framework.utils import json


class JSONBodyParser(JSONParser):
    """DRF's JSON parser, refusing with a 400 problem what DRF's would let through as a 500 or
    carry on into the views:

    - a body that is not text in its charset (UTF-8 unless the ``Content-Type`` names another):
      ``invalid_encoding``;
    - a string naming a lone UTF-16 surrogate (``"\\ud800"``: a valid JSON escape with no
      character behind it): ``invalid_encoding``. UTF-8 has no form for it, so it can be neither
      stored (PostgreSQL) nor sent back: a refusal that repeats the input ("... is not a valid
      choice") made the JSON renderer fail. Refused here, where the body becomes Python values,
      it never reaches any field, today's or tomorrow's, nor any message. The request's other
      inputs cannot carry one: Django decodes the path and the query string with replacement
      characters, and headers arrive as Latin-1;
    - a body nested too deeply for Python's parser (``[[[[...]]]]`` a thousand levels down raises
      ``RecursionError``): ``parse_error``, like any malformed JSON.

    Messages name the fault, never the input."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        encoding = get_encoding(parser_context or {})
        raw = stream.read()
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as error:
            raise ParseError(
                f"The body is not {encoding} text: byte {error.start} cannot be decoded.",
                code="invalid_encoding",
            ) from error
        try:
            data = json.loads(text, parse_constant=json.strict_constant if self.strict else None)
        except RecursionError as error:
            raise ParseError("JSON parse error - the body is nested too deeply.") from error
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from error
        if names_lone_surrogate(data):
            raise ParseError(
                "A string in the body names a lone UTF-16 surrogate (an unpaired \\ud800 to \\udfff "
                "escape), which is no character.",
                code="invalid_encoding",
            )
        return data


def names_lone_surrogate(data: Any) -> bool:
    """Whether any string of parsed JSON, key or value, holds a code point UTF-8 cannot encode.
    Walks with a list, not recursion: the parser's depth is Python's recursion limit too."""
    pending = [data]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return False
