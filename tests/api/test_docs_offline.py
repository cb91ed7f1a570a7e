"""The API's documentation pages work on a closed network: Swagger UI and ReDoc, with every script,
stylesheet and image from the project's own static files (drf-spectacular-sidecar)."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

ASSET = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""")
SCRIPT_URL = re.compile(r"""["'](https?://[^"']+)["']""")


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/docs/", "/api/redoc/"])
def test_the_documentation_loads_nothing_from_outside(url):
    response = Client().get(url)
    assert response.status_code == 200
    page = response.content.decode()
    assets = ASSET.findall(page)
    assert assets, page
    for asset in assets:
        assert asset.startswith("/"), f"{url} loads {asset}"
    # nor does any inline script name an outside address
    assert [address for address in SCRIPT_URL.findall(page) if "testserver" not in address] == []
    # and every static asset it names is one of the project's static files
    for asset in assets:
        if asset.startswith("/static/"):
            assert finders.find(asset.removeprefix("/static/")), asset
