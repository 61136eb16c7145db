"""Real-browser tests of the playground: Debian's chromium, headless, driven by selenium through Debian's
chromedriver (never a downloaded browser or driver), against the playground served by uvicorn on
127.0.0.1. ``make test-browser`` installs what they need. Screenshots go to ``$STREAMPARSE_ARTIFACTS``
(default ``.artifacts/browser`` in the checkout); their paths are printed at the end of the run."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from streamparse.playground import create_app

CHROMIUM = os.environ.get("STREAMPARSE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("STREAMPARSE_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1440,1800",
]
ARTIFACTS = Path(
    os.environ.get("STREAMPARSE_ARTIFACTS") or Path(__file__).resolve().parent.parent / ".artifacts" / "browser"
)
_SHOTS: list[Path] = []


@pytest.fixture(scope="session")
def base_url() -> Iterator[str]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the playground server did not start")
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(timeout=5)
    sock.close()


@pytest.fixture(scope="session")
def driver() -> Iterator[Any]:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not shutil.which(p)]
    if missing:  # a failure, not a skip: these tests only run where the browser is meant to be
        pytest.fail(
            f"{', '.join(missing)} not found: apt-get install -y chromium chromium-driver (make test-browser does)"
        )
    os.environ.setdefault("SE_OFFLINE", "true")  # selenium must never try to fetch a driver
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="streamparse-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    drv = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    drv.set_page_load_timeout(30)
    drv.set_script_timeout(30)
    try:
        yield drv
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture()
def screenshot(driver: Any, request: pytest.FixtureRequest) -> Any:
    """``screenshot(label)`` saves the page as ``<test>-<label>.png`` under ARTIFACTS."""

    def save(label: str = "") -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        stem = request.node.name.replace("[", "-").replace("]", "").replace("/", "_")
        path = ARTIFACTS / f"{stem}{'-' + label if label else ''}.png"
        driver.save_screenshot(str(path))
        _SHOTS.append(path)
        return path

    return save


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _SHOTS:
        terminalreporter.write_line(f"playground screenshots ({len(_SHOTS)}) in {ARTIFACTS}:")
        for path in _SHOTS:
            terminalreporter.write_line(f"  {path}")
