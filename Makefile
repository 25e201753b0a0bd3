# The two commands of the README: `make demo` and `make test`. Each creates .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SPEED ?= 8

.PHONY: demo test bench lint typecheck unit soak clean

$(BIN)/chessatron: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

demo: $(BIN)/chessatron
	$(BIN)/chessatron demo --speed $(SPEED) --picture demo-table.svg

test: $(BIN)/chessatron lint typecheck unit

lint: $(BIN)/chessatron
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(BIN)/chessatron
	$(BIN)/mypy

unit: $(BIN)/chessatron
	$(BIN)/pytest -n 2

bench: $(BIN)/chessatron
	$(BIN)/python -m bench

soak: $(BIN)/chessatron
	CHESSATRON_SOAK_GAMES=2000 $(BIN)/pytest -n 2 tests/test_random_games.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build *.egg-info src/*.egg-info
