"""Whole games through the sandbox Bot API over HTTP, on a virtual clock."""

from __future__ import annotations

import pytest


@pytest.fixture
def over_http() -> bool:
    """This layer's tables (`table`, `hosted_table`: tests/conftest.py) play over HTTP."""
    return True
