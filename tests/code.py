"""The project's code folders, for the tests that read the code itself (translations, actors, lock
order, private imports, money types): one list, so that a new app is scanned by all of them."""

# The Django apps, lowest layer first (pyproject.toml's import-linter layers).
APPS = ("casino", "wallet", "tables", "cardroom", "accounting", "floor")
# The apps and the pure game engines.
CODE = ("games", *APPS)
