# Every target makes .venv on first use and installs into it exactly what the lock files
# pin, each file checked against its hash, so a fresh clone needs nothing but Python 3.11
# and network to the package index. `make lock` refreshes the lock files (README).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
# Runtime only (make run, make demo), and runtime with the dev tools (everything else).
LOCK     := requirements.lock
DEV_LOCK := requirements-dev.lock
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
# The resolver that writes the lock files; installed into .venv by `make lock` only.
UV_VERSION := 0.13.8
LOCK_ARGS  ?=

.PHONY: run install check test lint browser bench demo lock clean

$(PY):
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Python 3.11 is required ($(PYTHON) not found)"; exit 1; }
	$(PYTHON) -m venv $(VENV)

# The lock files are whole (every package each needs, for every platform, resolved by
# `make lock`), so pip installs them as they are (--no-deps) rather than resolving again:
# pip 23's resolver, asked for an extra of a pinned package (pytest-cov wants
# coverage[toml]), took the index's newest release and refused it as not pinned, so an
# unchanged lock stopped installing the day a new coverage came out. `pip check` then
# proves that what was installed needs nothing missing.
# The project itself has no hash (it is this folder), and brings no dependency of its own.
$(RUN_STAMP): $(LOCK) pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --require-hashes --no-deps -r $(LOCK)
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m pip check
	touch $(RUN_STAMP)

$(DEV_STAMP): $(DEV_LOCK) pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --require-hashes --no-deps -r $(DEV_LOCK)
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m pip check
	touch $(DEV_STAMP) $(RUN_STAMP)

# The environment alone, without playing the demo: a server's set-up, and again after
# each `git pull` (README, "Upgrading"). The systemd unit hides /home and /root from the
# bot (ProtectHome=yes), so a Python that lives there is named here, before a start fails.
install: $(RUN_STAMP)
	@case "$$(readlink -f $(PY))" in /home/*|/root/*) \
		echo "note: .venv's Python is $$(readlink -f $(PY)), under a home folder; the systemd unit (ProtectHome=yes) cannot run it: make install PYTHON=/usr/bin/python3.11";; \
	esac
	@echo "installed: $(PY) ($$($(PY) -m bot --version))"

# The checks first (config, token, database, getMe), in plain words: README, "Deploying".
run: $(RUN_STAMP)
	$(PY) -m bot check
	$(PY) -m bot run

check: $(RUN_STAMP)
	$(PY) -m bot check

demo: $(RUN_STAMP)
	$(PY) -m bot demo

lint: $(DEV_STAMP)
	$(PY) -m ruff check bot handlers storage sandbox bench tests
	$(PY) -m ruff format --check bot handlers storage sandbox bench tests
	$(PY) -m mypy

# The rules core's coverage is measured on its own tests: tracing every line of the whole
# games as well would make the suite half as slow again, and they add nothing to it.
# The whole games take from 1 to 80 s each: a worker left idle takes tests from the other's
# queue (worksteal), so neither waits alone at the end behind a long one.
test: lint browser
	$(PY) -m pytest -n 2 tests/rules --cov --cov-report=term
	$(PY) -m pytest -n 2 --dist worksteal --ignore=tests/rules

# The live page's test drives the system's Chromium through its chromedriver (never a
# browser of its own download). Installed here with apt-get where that works (root, or
# sudo without a password); otherwise that one test skips and says why.
browser:
	@if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
		if command -v apt-get >/dev/null 2>&1 && \
			$$SUDO apt-get update -qq >/dev/null 2>&1 && \
			$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver \
				>/dev/null 2>&1; then \
			echo "Installed Chromium and chromedriver for the live page's test."; \
		else \
			echo "Chromium could not be installed: the live page's browser test will skip."; \
		fi; \
	fi

# The bot as its own process against the sandbox under the load of many games, next to a
# bare aiogram bot, three rounds; 20 to 27 minutes. Options: make bench BENCH_ARGS="--repeat 1 ..."
# (python -m bench --help lists them).
bench: $(DEV_STAMP)
	$(PY) -m bench $(BENCH_ARGS)

# Pins every package (the dev tools too) for Python 3.11 on any platform, with the hash of
# every file of each pinned version. Keeps the pins already there unless pyproject.toml
# needs others; `make lock LOCK_ARGS=--upgrade` moves everything to the newest allowed.
lock: | $(PY)
	$(PY) -m pip install --quiet "uv==$(UV_VERSION)"
	$(VENV)/bin/uv pip compile pyproject.toml --quiet --universal --python-version 3.11 \
		--generate-hashes --custom-compile-command "make lock" $(LOCK_ARGS) -o $(LOCK)
	$(VENV)/bin/uv pip compile pyproject.toml --quiet --universal --python-version 3.11 \
		--extra dev --generate-hashes --custom-compile-command "make lock" $(LOCK_ARGS) \
		-o $(DEV_LOCK)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .coverage
