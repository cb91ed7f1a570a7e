"""OpenAPI descriptions of the project's own authentication schemes."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class TerminalTokenScheme(OpenApiAuthenticationExtension):
    target_class = "casino.authentication.TerminalTokenAuthentication"
    name = "terminalCredential"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Terminal <credential>`: the credential issued to a registered terminal "
            "(shown once, hashed at rest, expiring, revocable).",
        }
