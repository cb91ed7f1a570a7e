# The two commands: `make run` (set up and serve the back office with demo data) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
STAMP := $(VENV)/.installed-stamp
# The lanes of the suite (docs/testing.md), each on every core (pytest-xdist, a module's tests kept
# on one worker): the default lane, the soak lane (the soak-marked tests at their soak sizes) and
# the browser lane (Debian's chromium). PYTEST_ARGS replaces the default lane's arguments.
PARALLEL := -n auto --dist loadfile
PYTEST_ARGS ?= $(PARALLEL) -m "not browser"
# Runs a command on the embedded PostgreSQL server under var/postgres (started, and stopped at the
# end, unless another command already runs it), or as it is when DATABASE_URL is set. There it
# connects as the application's role (DATABASE_URL), and migrate as the owner (DATABASE_OWNER_URL,
# which then grants the application its rights: docs/operations.md); the tests connect as the
# server's superuser, which creates their databases.
ON_DATABASE := $(BIN)/python -m casino.embedded_database --
ON_DATABASE_AS_SUPERUSER := $(BIN)/python -m casino.embedded_database --superuser --
MIGRATE := $(BIN)/python manage.py migrate --noinput
SEED := $(BIN)/python manage.py seed --show-logins

.PHONY: install run test soak test-browser lint typecheck importlint check migrate seed bench clean messages

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,embedded]'
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(ON_DATABASE) $(MIGRATE)

seed: install
	$(ON_DATABASE) sh -c '$(MIGRATE) && exec $(SEED)'

# One server start for the three steps. The site is served by uvicorn, the ASGI server, so that
# the live screens' streams are served too (casino/asgi.py: with the development settings, static
# files included); it replaces the shell, so that Ctrl-C reaches it and the runner stops the
# database server once it has ended. The hints reach the streams by PostgreSQL's NOTIFY.
run: install
	$(ON_DATABASE) sh -c '$(MIGRATE) && $(SEED) \
		&& echo "Serving the back office on http://$(HOST):$(PORT)/ (Ctrl-C stops it)" \
		&& DJANGO_SETTINGS_MODULE=casino.settings.development exec $(BIN)/python -m uvicorn \
			casino.asgi:application --host $(HOST) --port $(PORT) --no-access-log --lifespan off'

test: install
	$(ON_DATABASE_AS_SUPERUSER) $(BIN)/python -m pytest $(PYTEST_ARGS)

soak: install
	$(ON_DATABASE_AS_SUPERUSER) $(BIN)/python -m pytest $(PARALLEL) -m soak --soak

test-browser: install
	$(ON_DATABASE_AS_SUPERUSER) $(BIN)/python -m pytest $(PARALLEL) -m browser

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The engine with --strict, then every app with pyproject.toml's [tool.mypy] (strict flags too,
# migrations excluded). Needs no database: the settings give mypy's Django plugin a placeholder URL.
typecheck: install
	$(BIN)/mypy --strict games
	$(BIN)/mypy casino wallet tables cardroom accounting floor

importlint: install
	$(BIN)/lint-imports

check: lint typecheck importlint test

# The translation catalogs of locale/ (Hungarian, Polish, Russian): the texts extracted again from
# the code and the templates, then compiled. Needs GNU gettext (msgfmt, xgettext); the compiled
# .mo files are committed, so that run and test never need it. Neither command connects to the
# database: a placeholder URL satisfies the settings.
MESSAGES_ENV := DATABASE_URL=$${DATABASE_URL:-postgres://127.0.0.1/unused}
messages: install
	$(MESSAGES_ENV) $(BIN)/python manage.py makemessages -l hu -l pl -l ru --no-obsolete \
		--ignore='.venv/*' --ignore='var/*'
	$(MESSAGES_ENV) $(BIN)/python manage.py compilemessages --ignore='.venv/*' --ignore='var/*'

# Every script of bench/ but the API bench's settings and URLconf, which its web process loads.
bench: install
	for script in bench/*.py; do \
		case $$script in bench/api_bench_*|bench/_*) continue ;; esac; \
		$(BIN)/python $$script || exit 1; \
	done

# Stops the embedded server first (refused while make run or make test uses it).
clean:
	if [ -x $(BIN)/python ]; then $(BIN)/python -m casino.embedded_database --stop; fi
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache .hypothesis
