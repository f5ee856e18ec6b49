"""pins.toml and pins.lock: the real pins, their lock against upstream listings, bad input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reader.cache import blob_sha
from reader.errors import InputError, PinError, UnsafeSourceError
from reader.pins import check_rel_path, check_url, load_lock, load_pins
from tests.conftest import REPO_ROOT


def _recorded_commit(path: Path, name: str) -> str:
    """The commit a release records about itself: `_git_hash = '...'` or `NAME: Final[str] = "..."`."""
    m = re.search(rf"^{name}\b[^=]*=\s*['\"]([0-9a-f]{{40}})['\"]", path.read_text(), re.MULTILINE)
    assert m, f"{path} records no {name}"
    return m.group(1)


def test_real_pins_are_the_commits_the_installed_releases_record():
    """jax 0.12.0.1 and tokamax 0.0.17 (installed by the `labs` extra) name their own commits."""
    import importlib.metadata as md

    pins = load_pins(REPO_ROOT / "pins.toml")
    for name, record, field in [("jax", "jax/version.py", "_git_hash"),
                                ("tokamax", "tokamax/_src/version.py", "TOKAMAX_GIT_REVISION")]:
        dist = md.distribution(name)
        assert pins[name].release == f"{name}=={dist.version}"
        assert pins[name].commit == _recorded_commit(Path(str(dist.locate_file(record))), field)
    assert pins["jax"].commit == "dc4af684446e65ee98eee8090e1ff6f8211473fb"
    assert pins["tokamax"].commit == "c03469fc8b20c835e7b9effaeaa5a410df14536a"


def test_real_lock_matches_the_installed_releases_byte_for_byte():
    """Every locked file is in the installed release with the locked blob sha: 319 jax files (113
    under its paths: 112 under the two pallas paths and `jax/_src/tpu_info.py`; 206 modules they
    import, its `context`) and 627 tokamax files."""
    import importlib.metadata as md

    pins = load_pins(REPO_ROOT / "pins.toml")
    locks = load_lock(REPO_ROOT / "pins.lock", pins)
    for name, count in [("jax", 319), ("tokamax", 627)]:
        dist = md.distribution(name)
        shipped = {p: blob_sha(Path(str(dist.locate_file(p))).read_bytes()) for p in locks[name].files
                   if Path(str(dist.locate_file(p))).is_file()}
        assert shipped == locks[name].files
        assert len(locks[name].files) == count
        assert all(pins[name].covers(p) and p.endswith(".py") for p in locks[name].files)
    assert sum(not pins["jax"].in_context(p) for p in locks["jax"].files) == 113


def test_permalink_uses_the_full_sha():
    pin = load_pins(REPO_ROOT / "pins.toml")["jax"]
    assert pin.permalink("jax/_src/pallas/core.py", 10, 20) == (
        "https://github.com/jax-ml/jax/blob/dc4af684446e65ee98eee8090e1ff6f8211473fb"
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
    (GOOD.format(sha="a" * 40) + 'context = "lib"\n', "'context' of pin 'x' must be a list of strings", 5),
    (GOOD.format(sha="a" * 40) + 'context = ["../lib"]\n', "must be relative", 5),
])
def test_bad_pins_are_located(tmp_path, body, message, line):
    with pytest.raises(InputError, match=re.escape(message)) as e:
        load_pins(_pins(tmp_path, body))
    assert e.value.location.line == line
    assert str(e.value).startswith(f"{tmp_path / 'pins.toml'}:{line}: ")


def test_context_paths_are_pinned_but_not_read_by_the_track(tmp_path):
    pin = load_pins(_pins(tmp_path, GOOD.format(sha="a" * 40) + 'context = ["lib", "x/y.py"]\n'))["x"]
    assert pin.all_paths == ("pkg", "lib", "x/y.py")
    assert pin.covers("lib/z.py") and pin.covers("x/y.py") and pin.covers("pkg/a.py") and not pin.covers("x/z.py")
    assert pin.in_context("lib/z.py") and not pin.in_context("pkg/a.py")
    assert load_pins(_pins(tmp_path, GOOD.format(sha="a" * 40)))["x"].context == ()


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
