"""The sandbox Bot API and the benchmark are development folders of the checkout
(sandbox/, bench/ beside bot/): neither the runtime wheel nor the Docker image holds them,
and the installed bot says in plain words that its demo needs the checkout (issue 24 §1)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bot.test_deploy_files import build_context
from tests.bot.test_layers import imported

ROOT = Path(__file__).resolve().parents[2]
DEV_FOLDERS = ("sandbox", "bench")


def test_the_runtime_wheel_holds_no_sandbox_and_no_benchmark(tmp_path: Path) -> None:
    # What the wheel packs is what setuptools' build_py lays out (offline, no wheel needed):
    # built in a copy of the checkout, the development folders beside the runtime ones.
    source = tmp_path / "src"
    source.mkdir()
    for name in ("bot", "handlers", "storage", *DEV_FOLDERS):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    out = tmp_path / "lib"
    subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py",
         "--build-lib", str(out)],
        cwd=source, check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    packed = [p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()]
    assert "bot/__main__.py" in packed and "storage/db.py" in packed
    assert "bot/views/locales/ru.toml" in packed
    strays = [p for p in packed if set(p.split("/")[:-1]) & set(DEV_FOLDERS)]
    assert not strays, strays


def test_the_image_copies_neither_the_sandbox_nor_the_benchmark() -> None:
    sources = []
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY "):
            *found, _target = line.split()[1:]
            sources += [s.rstrip("/") for s in found]
    assert "bot" in sources
    for source in sources:
        assert source.split("/")[0] not in DEV_FOLDERS, source
        assert "sandbox" not in source and "bench" not in source, source
    # Nor can a COPY of the whole context bring them: .dockerignore keeps them out.
    context = build_context(ROOT)
    assert not [f for f in context if f.split("/")[0] in DEV_FOLDERS or "/sandbox/" in f]


@pytest.mark.parametrize("command", ["demo", "run"])
def test_the_installed_bot_says_its_demo_needs_the_checkout(tmp_path: Path, command: str) -> None:
    # Outside the checkout only the installed packages are importable, as in the image.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MAFIA_BOT_TOKEN")}
    done = subprocess.run(
        [sys.executable, "-m", "bot", command],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout[-500:] + done.stderr[-2000:]
    assert "source checkout" in done.stderr and "python -m bot run" in done.stderr
    assert "Traceback" not in done.stderr
    assert not list(tmp_path.iterdir())  # nothing made: no database, no demo files


def test_only_the_demo_reaches_into_the_development_folders() -> None:
    # The runtime (bot/, handlers/, storage/) imports neither sandbox/ nor bench/, but for
    # the demo, which `python -m bot` imports only when asked to play it.
    allowed = {"bot/cli/demo.py", "bot/cli/scenarios.py"}
    wrong = []
    for package in ("bot", "handlers", "storage"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            for module in imported(path):
                parts = module.split(".")
                dev = parts[0] in DEV_FOLDERS or parts[:2] in (["bot", "sandbox"], ["bot", "bench"])
                if dev and name not in allowed:
                    wrong.append(f"{name}: {module}")
    assert not wrong, wrong
    main = ast.parse((ROOT / "bot" / "__main__.py").read_text(encoding="utf-8"))
    top_level = {
        node.module for node in main.body if isinstance(node, ast.ImportFrom) and node.module
    }
    assert not top_level & {"bot.cli.demo", "bot.cli.scenarios"}, top_level


def test_the_benchmarks_processes_start_from_the_checkout() -> None:
    """`make bench` starts the bare bot as `python -m bench.bare` from the benchmark's
    ROOT: that must be the checkout, where `bench/` is found (a ROOT one folder too high
    left the bare bot unable to start)."""
    from bench import procs

    assert procs.ROOT == ROOT
    found = subprocess.run(
        [sys.executable, "-c", "import bench.bare"], cwd=procs.ROOT, capture_output=True
    )
    assert found.returncode == 0, found.stderr.decode()
