# The two commands of the README: `make demo` and `make test`. Each creates .venv on first use.
# `make docs` builds the manual (docs/, mkdocs.yml) into site/.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SPEED ?= 8
# the web page's board widget (chessground), from npm as package-lock.json pins it: scripts/web-vendor
VENDOR := src/chessatron/web/static/vendor/chessground/chessground.min.js
# the manual's search from the file system: the iframe-worker shim, from npm by the same script
DOCS_VENDOR := docs/vendor/iframe-worker/shim.js
# `make demo WEB=1` also opens the web page beside the terminal view
WEB ?=

.PHONY: demo test check docs bench lint typecheck unit soak clean firmware system messages

$(BIN)/chessatron: pyproject.toml | $(VENDOR)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

$(VENDOR) $(DOCS_VENDOR) &: package.json package-lock.json scripts/web-vendor
	scripts/web-vendor

demo: system $(BIN)/chessatron
	$(BIN)/chessatron demo --speed $(SPEED) --picture demo-table.svg $(if $(WEB),--web --open)

test: system $(BIN)/chessatron lint typecheck firmware docs unit

# The edit-test loop (under two minutes): lint, types and the tests that are not slow (tests/conftest.py's
# SLOW_MODULES: whole games, programs at a terminal, browsers, every case of a family). `make test` is
# what CI runs.
check: $(BIN)/chessatron lint typecheck
	$(BIN)/pytest -n 3 --dist worksteal -m "not slow"

# The language catalogs brought up to date with the messages the code marks (docs/languages.md: the
# workflow); prints each language's share translated.
messages: $(BIN)/chessatron
	$(BIN)/python scripts/messages

# Debian packages the tests use (Stockfish, the Arduino toolchain, espeak-ng), installed where we may.
system:
	scripts/debian-packages

lint: $(BIN)/chessatron
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts

typecheck: $(BIN)/chessatron
	$(BIN)/mypy

# The manual, strict (mkdocs.yml): a broken link or anchor, a page missing from the nav or a warning of the
# reference pages made from the code (scripts/mkdocs_hooks.py) fails it. Material's notice about its own
# future is not a warning of ours.
docs: $(BIN)/chessatron $(DOCS_VENDOR)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# Three workers on two cores: many tests wait (a browser, a program killed and resumed, a robot at real
# speed), and a third worker fills those waits (pytest took 524 s with three, 585 s with two). Work
# stealing: a worker that runs dry takes tests from the others, so that the last long tests do not run
# one after another on a single worker while the others idle.
unit: $(BIN)/chessatron
	$(BIN)/pytest -n 3 --dist worksteal

# Issue figures: robot moves and resets, how long a person waits for the robot's reply, streaming to the
# simulated GRBL, recognition of human traces, how soon the web page hears of a change, moves said aloud
# understood, from one puzzle's end to the next puzzle ready on the board, the memory a game keeps, how soon
# the table and an e-board app hear each other's moves, the share of the texts each language translates, calibration against the truth of tables built wrong, and
# lichess's whole puzzle database in the training store (5.5 million puzzles: several minutes, some 3 GiB
# in a temporary folder).
bench: $(BIN)/chessatron
	$(BIN)/python -m bench
	$(BIN)/python -m bench.replies
	$(BIN)/python -m bench.stream
	$(BIN)/python -m bench.recognition
	$(BIN)/python -m bench.web
	$(BIN)/python -m bench.voice
	$(BIN)/python -m bench.puzzles
	$(BIN)/python -m bench.memory
	$(BIN)/python -m bench.eboard
	$(BIN)/python -m bench.languages
	$(BIN)/python -m bench.calibration
	$(BIN)/python -m bench.puzzle_store

# What make test samples, at length: two thousand random games through the twin, two hundred power cuts, two
# hundred fuzzed keyboard sessions, two hundred resets from random states.
soak: $(BIN)/chessatron
	CHESSATRON_SOAK_GAMES=2000 CHESSATRON_KILLS=200 CHESSATRON_FUZZ_EXAMPLES=200 CHESSATRON_RESETS=200 \
		$(BIN)/pytest -n 2 \
		tests/test_random_games.py tests/test_play_kill.py tests/test_play_fuzz.py tests/test_reset.py

# The Arduino sensor sketch; needs Debian's arduino-core-avr and arduino-mk (`make system` installs them).
# Without them it is skipped with a warning, except in CI, where it must build.
firmware: system
	@if [ -f /usr/share/arduino/Arduino.mk ]; then $(MAKE) -C firmware; \
	elif [ -n "$$CI" ]; then echo "arduino-mk is missing: cannot build firmware/" >&2; exit 1; \
	else echo "warning: arduino-mk is missing; firmware/ not built (sudo apt-get install arduino-core-avr arduino-mk)" >&2; fi

clean:
	$(MAKE) -C firmware clean 2>/dev/null || rm -rf firmware/build-*
	rm -rf $(VENV) site node_modules src/chessatron/web/static/vendor .mypy_cache .pytest_cache .ruff_cache build *.egg-info src/*.egg-info
