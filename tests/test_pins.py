"""pins.toml and pins.lock: the real pins, their lock against upstream listings, bad input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reader.errors import InputError, PinError, UnsafeSourceError
from reader.pins import check_rel_path, check_url, load_lock, load_pins, read_listing
from tests.conftest import FIXTURES, REPO_ROOT


def test_real_pins_and_lock_match_upstream_listings():
    pins = load_pins(REPO_ROOT / "pins.toml")
    locks = load_lock(REPO_ROOT / "pins.lock", pins)
    assert pins["jax"].commit == "990e6a0b84138346e6a38785412f36356e0e5dc3"
    assert pins["tokamax"].commit == "964354016004720905931f1249706a1772706752"
    for name, tsv, count in [("jax", "jax-0.10.2.tsv", 113), ("tokamax", "tokamax-0.0.12.tsv", 178)]:
        listing = read_listing(FIXTURES / "upstream" / tsv)
        assert listing.commit == pins[name].commit
        expected = {p: s for p, s in listing.blobs.items() if p.endswith(".py")}
        assert locks[name].files == expected
        assert len(locks[name].files) == count


def test_permalink_uses_the_full_sha():
    pin = load_pins(REPO_ROOT / "pins.toml")["jax"]
    assert pin.permalink("jax/_src/pallas/core.py", 10, 20) == (
        "https://github.com/jax-ml/jax/blob/990e6a0b84138346e6a38785412f36356e0e5dc3"
        "/jax/_src/pallas/core.py#L10-L20")


@pytest.mark.parametrize("url", ["https://github.com/jax-ml/jax", "ssh://git@host/x.git",
                                 "git@github.com:jax-ml/jax.git", "file:///srv/jax", "../mirror/jax",
                                 "/srv/mirror/jax"])
def test_safe_urls_pass(url):
    assert check_url(url) == url


@pytest.mark.parametrize("url", ["ext::sh -c touch% /tmp/pwned", "-uhack", "--upload-pack=touch x",
                                 "fd::17", "http://example.com/x", "ftp://host/x",
                                 "git@host:-oProxyCommand=x", "https://host/x\nmore"])
def test_unsafe_urls_are_refused(url):
    with pytest.raises(UnsafeSourceError, match="refusing git source"):
        check_url(url)


@pytest.mark.parametrize("path", ["/etc", "../up", "a/../../b", "", "-rf", "a\\b"])
def test_paths_must_stay_inside(path):
    with pytest.raises(PinError, match="must be relative"):
        check_rel_path(path)


def _pins(tmp_path: Path, body: str) -> Path:
    (tmp_path / "pins.toml").write_text(body)
    return tmp_path / "pins.toml"


GOOD = '[pins.x]\nrepo = "https://h/x"\ncommit = "{sha}"\npaths = ["pkg"]\n'


@pytest.mark.parametrize("body,message,line", [
    ("[pins.x\n", "malformed TOML", 1),
    (GOOD.format(sha="990e6a0"), "not a full 40-hex sha", 3),
    (GOOD.format(sha="G" * 40), "not a full 40-hex sha", 3),
    (GOOD.format(sha="a" * 40) + "colour = 1\n", "unknown key 'colour'", 5),
    (GOOD.format(sha="a" * 40).replace('["pkg"]', '["../x"]'), "must be relative", 4),
    (GOOD.format(sha="a" * 40).replace('"https://h/x"', '"ext::sh -c x"'), "refusing git source", 2),
    (GOOD.format(sha="a" * 40).replace('paths = ["pkg"]\n', ""), "lacks 'paths'", 1),
    ('[pins.x]\nrepo = 3\ncommit = "' + "a" * 40 + '"\npaths = ["p"]\n', "must be a string", 2),
    ("", "no [pins.NAME] tables", 1),
])
def test_bad_pins_are_located(tmp_path, body, message, line):
    with pytest.raises(InputError, match=re.escape(message)) as e:
        load_pins(_pins(tmp_path, body))
    assert e.value.location.line == line
    assert str(e.value).startswith(f"{tmp_path / 'pins.toml'}:{line}: ")


def test_non_utf8_pins(tmp_path):
    (tmp_path / "pins.toml").write_bytes(b"[pins.x]\nrepo = \"\xff\"\n")
    with pytest.raises(PinError, match="not UTF-8"):
        load_pins(tmp_path / "pins.toml")


def test_lock_for_another_commit_is_refused(tmp_path):
    pins = load_pins(_pins(tmp_path, GOOD.format(sha="a" * 40)))
    (tmp_path / "pins.lock").write_text(f'[x]\ncommit = "{"b" * 40}"\n[x.files]\n"pkg/a.py" = "{"c" * 40}"\n')
    with pytest.raises(PinError, match="the lock of 'x' is for 'bbbbbbbbbbbb'"):
        load_lock(tmp_path / "pins.lock", pins)


def test_lock_with_short_blob_is_refused(tmp_path):
    pins = load_pins(_pins(tmp_path, GOOD.format(sha="a" * 40)))
    (tmp_path / "pins.lock").write_text(f'[x]\ncommit = "{"a" * 40}"\n[x.files]\n"pkg/a.py" = "abc"\n')
    with pytest.raises(PinError, match="not 40 hex digits") as e:
        load_lock(tmp_path / "pins.lock", pins)
    assert e.value.location.line == 4
