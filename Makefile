# The two commands: `make run` (set up and serve the back office with demo data) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
STAMP := $(VENV)/.installed-stamp
PYTEST_ARGS ?=

.PHONY: install run test lint typecheck importlint check migrate seed bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(BIN)/python manage.py migrate --noinput

seed: migrate
	$(BIN)/python manage.py seed --show-logins

run: seed
	@echo "Serving the back office on http://$(HOST):$(PORT)/ (Ctrl-C stops it)"
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy --strict tables/games

importlint: install
	$(BIN)/lint-imports

check: lint typecheck importlint test

# Every script of bench/ but the API bench's settings and URLconf, which its web process loads.
bench: install
	for script in bench/*.py; do \
		case $$script in bench/api_bench_*) continue ;; esac; \
		$(BIN)/python $$script || exit 1; \
	done

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache .hypothesis
