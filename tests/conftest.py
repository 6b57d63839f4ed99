"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest


@pytest.fixture
def fresh_default_net():
    """ocr.ensemble.default_net loaded afresh at each call (a test changed the environment it
    reads); its cache is cleared again afterwards, so later tests load the committed reader."""
    from ocr.ensemble import default_net

    def load():
        default_net.cache_clear()
        return default_net()

    yield load
    default_net.cache_clear()
