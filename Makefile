# Every target makes .venv on first use and installs the project into it,
# so a fresh clone needs nothing but Python 3.11 and network to the package index.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench demo clean

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Python 3.11 is required ($(PYTHON) not found)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m bot run

demo: $(STAMP)
	$(PY) -m bot demo

lint: $(STAMP)
	$(PY) -m ruff check bot handlers storage tests
	$(PY) -m mypy

test: lint
	$(PY) -m pytest --cov --cov-report=term

# The bot as its own process against the sandbox under the load of many games, next to a
# bare aiogram bot; 7 to 9 minutes. Options: make bench BENCH_ARGS="--measure 30 ..."
# (python -m bot.bench --help lists them).
bench: $(STAMP)
	$(PY) -m bot.bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .coverage
