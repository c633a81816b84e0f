"""Headless Chromium driven over the DevTools protocol, for report tests and benchmarks.

Debian's ``chromium`` package is enough (no webdriver, no Node): the browser is started with a
remote-debugging port on 127.0.0.1 and a fresh profile, and one page is driven over its
websocket with ``websockets`` (already installed with Prefect). Console messages, uncaught
exceptions and log entries are collected, so a test can assert that a page loads cleanly.
"""

from __future__ import annotations

import itertools
import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

from tests.processes import stop_process

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
)
"""Flags for Chromium as root in a container, with nothing reaching the network on its own."""


def find_chromium() -> str | None:
    """Return the path of a Chromium binary, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Page:
    """One browser tab over the DevTools protocol."""

    def __init__(self, ws_url: str) -> None:
        self._ws = connect(ws_url, max_size=None, open_timeout=20)
        self._ids = itertools.count(1)
        self.console: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.events: list[dict[str, Any]] = []
        for method in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.send(method)

    def close(self) -> None:
        """Close the websocket."""
        self._ws.close()

    def _record(self, msg: dict[str, Any]) -> None:
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", "")))
                            for a in params.get("args", []))
            self.console.append({"type": params.get("type"), "text": text})
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append(str(details.get("exception", {}).get("description")
                                   or details.get("text")))
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            if entry.get("level") == "error":
                self.errors.append(f"{entry.get('source')}: {entry.get('text')} "
                                   f"{entry.get('url', '')}".strip())
        elif method:
            self.events.append(msg)

    def send(self, method: str, params: dict[str, Any] | None = None,
             *, timeout: float = 60.0) -> dict[str, Any]:
        """Send a command and return its result, recording events met meanwhile.

        Raises:
            RuntimeError: When the browser answers with an error.
            TimeoutError: When no answer comes within ``timeout`` seconds.
        """
        msg_id = next(self._ids)
        self._ws.send(json.dumps({"id": msg_id, "method": method, "params": params or {}}))
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(method)
            msg = json.loads(self._ws.recv(timeout=remaining))
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return dict(msg.get("result", {}))
            self._record(msg)

    def wait_event(self, method: str, *, timeout: float = 60.0) -> dict[str, Any]:
        """Wait for an event (returning at once if it was already recorded)."""
        for i, ev in enumerate(self.events):
            if ev.get("method") == method:
                return self.events.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(method)
            msg = json.loads(self._ws.recv(timeout=remaining))
            if msg.get("method") == method:
                return msg
            self._record(msg)

    def navigate(self, url: str, *, timeout: float = 60.0) -> float:
        """Open ``url`` and wait for its load event; return the wall time taken, in seconds."""
        self.events.clear()
        t0 = time.perf_counter()
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired", timeout=timeout)
        return time.perf_counter() - t0

    def eval(self, expression: str) -> Any:
        """Evaluate a JavaScript expression in the page and return its JSON value.

        Raises:
            RuntimeError: When the expression throws.
        """
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                             "awaitPromise": True})
        if "exceptionDetails" in res:
            raise RuntimeError(str(res["exceptionDetails"]))
        return res.get("result", {}).get("value")


@contextmanager
def chromium_page(binary: str | None = None, *, width: int = 1200,
                  height: int = 900) -> Iterator[Page]:
    """Start headless Chromium with a fresh profile and yield one page; stop it afterwards.

    Raises:
        FileNotFoundError: When no Chromium binary is found.
        TimeoutError: When the browser does not open its debugging port within 30 s.
    """
    binary = binary or find_chromium()
    if binary is None:
        raise FileNotFoundError("chromium")
    profile = Path(tempfile.mkdtemp(prefix="affidavit-chromium-"))
    port = _free_port()
    proc = subprocess.Popen(
        [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--remote-debugging-port={port}",
         "--remote-debugging-address=127.0.0.1", f"--window-size={width},{height}",
         "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    page: Page | None = None
    try:
        deadline = time.monotonic() + 30
        targets: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list",
                                            timeout=2) as r:
                    targets = [t for t in json.load(r) if t.get("type") == "page"]
                if targets:
                    break
            except OSError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"chromium exited with code {proc.returncode}")
            time.sleep(0.1)
        if not targets:
            raise TimeoutError("chromium did not open its debugging port")
        page = Page(targets[0]["webSocketDebuggerUrl"])
        yield page
    finally:
        if page is not None:
            page.close()
        stop_process(proc, 10)
        shutil.rmtree(profile, ignore_errors=True)
