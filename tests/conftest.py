"""Suite-wide hooks."""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

import pytest

# Compiled chat templates are kept on disk between runs (streamparse.derive.compiled): the suite keeps
# its own, away from the user's cache.
os.environ.setdefault("STREAMPARSE_TEMPLATE_CACHE", tempfile.mkdtemp(prefix="streamparse-test-jinja2-"))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    # The playground's real-browser tests live in tests_browser/, outside this suite: say so, every run.
    here = (
        "chromium is installed here"
        if shutil.which("chromium") and shutil.which("chromedriver")
        else ("chromium/chromedriver are not installed here")
    )
    terminalreporter.write_line(
        f"browser tests skipped by `make test` (tests_browser/, {here}): run `make test-browser` "
        "(installs chromium + chromium-driver with apt-get as root, and selenium)"
    )


@pytest.fixture(autouse=True, scope="module")
def _forget_derived_formats() -> Any:
    """Formats derived from chat templates are registered in the global catalog; a test module that derived
    some leaves the catalog as it found it, so catalog-wide checks see the built-in formats only."""
    yield
    from streamparse.derive import clear_cache

    clear_cache(unregister=True)
