"""Debian's Chromium through selenium for the page tests: headless, its own profile, every
console message kept, and every host but 127.0.0.1 unresolvable, so a request that tries to
leave the machine fails loudly (a console error) instead of passing unseen.

Without chromium these tests fail (CI installs it: .ci/run), they do not skip.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def chromium(profile: Path, size: str = "1280,900") -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    assert Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists(), (
        "the browser test needs Debian's chromium and chromium-driver "
        "(apt-get install -y chromium chromium-driver; .ci/run does it)"
    )
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--window-size={size}",
        f"--user-data-dir={profile}",
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))


def console_errors(driver: Any) -> list[dict[str, Any]]:
    """The console's errors since the last call (reading the log empties it)."""
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def foreign_requests(driver: Any, origin: str) -> list[str]:
    """Every resource the page loaded from anywhere but ``origin`` (the command's server)."""
    names = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).concat([location.href])"
    )
    return [n for n in names if not n.startswith(origin)]
