"""gitio: git never waits on a password prompt, whichever call asks a server."""

from __future__ import annotations

import http.server
import threading
from pathlib import Path

import pytest

from reader import gitio
from reader.errors import GitError


class _AuthWall(http.server.BaseHTTPRequestHandler):
    """Answers every request with 401 and a Basic challenge, as a private repository does."""

    def do_GET(self):
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="private"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_args):
        pass


@pytest.fixture
def private_url(monkeypatch):
    # Plain http keeps the server small; the URL policy (https, ssh, file) is tested in test_pins.
    monkeypatch.setattr(gitio, "check_url", lambda url, *_a: url)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AuthWall)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/private.git"
    server.shutdown()


@pytest.fixture
def askpass(tmp_path, monkeypatch) -> Path:
    """A credential helper that records being asked; git would run it instead of a terminal prompt."""
    marker = tmp_path / "asked"
    script = tmp_path / "askpass.sh"
    script.write_text(f"#!/bin/sh\necho \"$1\" >> {marker}\necho secret\n")
    script.chmod(0o755)
    monkeypatch.setenv("GIT_ASKPASS", str(script))
    monkeypatch.setenv("SSH_ASKPASS", str(script))
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "1")
    return marker


def test_reachable_never_asks_for_a_password(private_url, askpass):
    assert gitio.reachable(private_url) is False
    assert not askpass.exists(), "git asked for credentials: " + askpass.read_text()


def test_remote_ref_never_asks_for_a_password(private_url, askpass):
    with pytest.raises(GitError):
        gitio.remote_ref(private_url, "v1")
    assert not askpass.exists(), "git asked for credentials: " + askpass.read_text()


def test_the_helper_would_be_asked_without_the_guard(private_url, askpass):
    """The fixture is real: plain git, with the environment as set, does run the helper."""
    import subprocess

    subprocess.run(["git", "ls-remote", private_url], capture_output=True, timeout=30)
    assert askpass.exists()
