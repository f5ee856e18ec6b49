"""Bad input end to end through the CLI: pins.toml, pins.lock, annotations, the outline, arguments.

Every case runs `reader` on a copy of a small project that was fetched, checked and built, and
asserts one located line (`reader: error: path:line: what is wrong; what to do` on stderr, or
`reader check`'s `path:line: message; what to do` on stdout), exit code 2, no traceback, and the
built `site/` and the cache byte for byte as they were.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from reader.cli import main
from reader.inputs import MAX_INPUT_BYTES
from tests.small_project import Small, build_small, tree_digest

LOCATED = re.compile(r"^(?P<where>[^\s:]+(?::\d+)?): (?P<what>\S.*); (?P<todo>\S.*)$")
HUGE = 50 * 1024 * 1024

Setup = Callable[[Small, Path], None]


@dataclass(frozen=True)
class Case:
    setup: Setup
    where: str
    """The location the one line starts with (`{root}` stands for the project's resolved path)."""
    says: str
    argv: tuple[str, ...] = ("build", "--jobs", "1")

    @property
    def stream(self) -> str:
        """`reader check` prints annotation problems on stdout; everything else is on stderr."""
        return "out" if self.argv[0] == "check" and self.where.startswith("annotations/") else "err"


def edit(rel: str, old: str, new: str) -> Setup:
    """Replace `old` by `new` once; a lone surrogate in `new` (`\udcff`) writes that raw byte."""
    def setup(small: Small, _outside: Path) -> None:
        path = small.root / rel
        text = path.read_text()
        assert old in text, (rel, old)
        path.write_bytes(text.replace(old, new, 1).encode("utf-8", "surrogateescape"))
    return setup


def write(rel: str, data: str | bytes) -> Setup:
    def setup(small: Small, _outside: Path) -> None:
        path = small.root / rel
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return setup


def huge(rel: str) -> Setup:
    """A 50 MiB file of comment lines: valid TOML or YAML, only too big."""
    def setup(small: Small, _outside: Path) -> None:
        (small.root / rel).write_bytes(b"# padding\n" * (HUGE // 10))
    return setup


def sparse(rel: str) -> Setup:
    """A 1 TiB sparse file: reading it whole would fail long before it could be parsed."""
    def setup(small: Small, _outside: Path) -> None:
        with open(small.root / rel, "wb") as f:
            f.truncate(1 << 40)
    return setup


def directory(rel: str) -> Setup:
    def setup(small: Small, _outside: Path) -> None:
        path = small.root / rel
        path.unlink(missing_ok=True)
        path.mkdir()
    return setup


def symlink_out(rel: str) -> Setup:
    """`rel` becomes a link to a valid annotation file outside the project."""
    def setup(small: Small, outside: Path) -> None:
        target = outside / "elsewhere" / "evil.yaml"
        target.parent.mkdir(parents=True)
        target.write_text((small.root / "annotations/tour.yaml").read_text()
                          .replace("slug: tour", "slug: evil").replace("tour-blockspec", "evil"))
        (small.root / rel).symlink_to(target)
    return setup


def folder_out(small: Small, outside: Path) -> None:
    """annotations/ itself becomes a link to a folder outside the project."""
    target = outside / "elsewhere"
    target.mkdir()
    (target / "tour.yaml").write_text((small.root / "annotations/tour.yaml").read_text())
    (small.root / "annotations/tour.yaml").unlink()
    (small.root / "annotations").rmdir()
    (small.root / "annotations").symlink_to(target)


def both(*setups: Setup) -> Setup:
    def setup(small: Small, outside: Path) -> None:
        for s in setups:
            s(small, outside)
    return setup


def duplicate_article(small: Small, _outside: Path) -> None:
    text = (small.root / "annotations/tour.yaml").read_text()
    (small.root / "annotations/tour2.yaml").write_text(text.replace("slug: tour", "slug: tour2"))


NOTE = "  - id: {id}\n    symbol: {symbol}\n    body: x\n"
BOMB = ('title: &a ["x", "x", "x", "x", "x", "x", "x", "x"]\n'
        + "".join(f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
                  for p, c in zip("abcdefgh", "bcdefghi", strict=True)))
CHECK = ("check",)

CASES: dict[str, Case] = {
    # pins.toml ---------------------------------------------------------------------------------
    "pins: malformed TOML": Case(edit("pins.toml", "[pins.small]", "[pins.small"),
                                 "pins.toml:1", "malformed TOML"),
    "pins: malformed TOML, seen by check": Case(edit("pins.toml", "[pins.small]", "[pins.small"),
                                                "pins.toml:1", "malformed TOML", CHECK),
    "pins: empty file": Case(write("pins.toml", ""), "pins.toml:1", "no [pins.NAME] tables"),
    "pins: not UTF-8": Case(edit("pins.toml", "paths", "# caf\udcff\npaths"), "pins.toml:4",
                            "not UTF-8 (byte 0xff"),
    "pins: wrong type": Case(edit("pins.toml", '"https://example.invalid/small.git"', "3"),
                             "pins.toml:2", "'repo' of pin 'small' must be a string"),
    "pins: paths not a list": Case(edit("pins.toml", '["pkg"]', '"pkg"'), "pins.toml:4",
                                   "'paths' of pin 'small' must be a non-empty list of strings"),
    "pins: unknown key": Case(edit("pins.toml", "paths", 'colour = "red"\npaths'), "pins.toml:4",
                              "unknown key 'colour' in [pins.small]"),
    "pins: unknown table": Case(edit("pins.toml", "[pins.small]", "[pin.small]"), "pins.toml:1",
                                "unknown table or key 'pin'"),
    "pins: key given twice": Case(edit("pins.toml", "commit", 'repo = "https://x.invalid/y"\ncommit'),
                                  "pins.toml:3", "malformed TOML: key 'repo' given twice in one table"),
    "pins: bad pin name": Case(edit("pins.toml", "[pins.small]", "[pins.Small]"), "pins.toml:1",
                               "pin name 'Small' is not lower-case"),
    "pins: short sha": Case(edit("pins.toml", 'commit = "', 'commit = "abc1234" #'), "pins.toml:3",
                            "commit 'abc1234' of pin 'small' is not a full 40-hex sha"),
    "pins: non-hex sha": Case(edit("pins.toml", 'commit = "', 'commit = "' + "g" * 40 + '" #'),
                              "pins.toml:3", "is not a full 40-hex sha"),
    "pins: bad release": Case(edit("pins.toml", "paths", 'release = "small>=1"\npaths'),
                              "pins.toml:4", "release 'small>=1' is not 'name==version'"),
    "pins: ext:: URL": Case(edit("pins.toml", "https://example.invalid/small.git", "ext::sh -c touch% pwned"),
                            "pins.toml:2", "refusing git source 'ext::sh -c touch% pwned'"),
    "pins: option injection": Case(edit("pins.toml", "https://example.invalid/small.git",
                                        "--upload-pack=touch pwned"),
                                   "pins.toml:2", "refusing git source '--upload-pack=touch pwned'"),
    "pins: leading dash": Case(edit("pins.toml", "https://example.invalid/small.git", "-oProxyCommand=x"),
                               "pins.toml:2", "refusing git source '-oProxyCommand=x'"),
    "pins: scp URL with an option": Case(edit("pins.toml", "https://example.invalid/small.git",
                                              "git@host:-oProxyCommand=x"),
                                         "pins.toml:2", "refusing git source"),
    "pins: path with ..": Case(edit("pins.toml", '["pkg"]', '["pkg/../../etc"]'), "pins.toml:4",
                               "path 'pkg/../../etc' must be relative and inside the repository"),
    "pins: absolute path": Case(edit("pins.toml", '["pkg"]', '["/etc"]'), "pins.toml:4",
                                "path '/etc' must be relative"),
    "pins: 50 MiB file": Case(huge("pins.toml"), "pins.toml:1",
                              "the file is 50.0 MiB, over the 4.0 MiB reader accepts"),
    "pins: a folder": Case(directory("pins.toml"), "pins.toml:1", "not a regular file"),
    # pins.lock ---------------------------------------------------------------------------------
    "lock: malformed TOML": Case(edit("pins.lock", '"pkg/core.py" =', '"pkg/core.py" == '),
                                 "pins.lock:6", "malformed TOML"),
    "lock: empty file": Case(write("pins.lock", ""), "pins.lock:1", "pin 'small' is not in the lock"),
    "lock: not UTF-8": Case(write("pins.lock", b"[small]\n\xfe\n"), "pins.lock:2", "not UTF-8"),
    "lock: short blob sha": Case(edit("pins.lock", '"pkg/core.py" = "', '"pkg/core.py" = "abc" #'),
                                 "pins.lock:6", "blob sha of 'pkg/core.py' is not 40 hex digits"),
    "lock: short blob sha, seen by check": Case(edit("pins.lock", '"pkg/core.py" = "', '"pkg/core.py" = "abc" #'),
                                                "pins.lock:6", "is not 40 hex digits", CHECK),
    "lock: blob not a string": Case(edit("pins.lock", '"pkg/core.py" = "', '"pkg/core.py" = 7 #'),
                                    "pins.lock:6", "is not 40 hex digits"),
    "lock: another commit": Case(edit("pins.lock", 'commit = "', 'commit = "' + "b" * 40 + '" #'),
                                 "pins.lock:1", "the lock of 'small' is for 'bbbbbbbbbbbb'"),
    "lock: unknown pin": Case(edit("pins.lock", "[small]\n", '[other]\ncommit = "x"\n[other.files]\n\n[small]\n'),
                              "pins.lock:1", "lock entry 'other' names no pin in pins.toml"),
    "lock: files not a table": Case(edit("pins.lock", "\n[small.files]\n", "files = 3\n[x]\n"),
                                    "pins.lock:1", "lock entry 'small' lacks a [small.files] table"),
    "lock: path with ..": Case(edit("pins.lock", '"pkg/core.py"', '"pkg/../../etc/passwd.py"'),
                               "pins.lock:6", "must be relative and inside the repository"),
    "lock: absolute path": Case(edit("pins.lock", '"pkg/core.py"', '"/etc/passwd"'),
                                "pins.lock:6", "path '/etc/passwd' must be relative"),
    "lock: path with a bidi control": Case(edit("pins.lock", '"pkg/core.py"', '"pkg/core\u202e.py"'),
                                           "pins.lock:6", "holds a control or invisible character"),
    "lock: path outside the pin": Case(edit("pins.lock", '"pkg/core.py"', '"other/core.py"'),
                                       "pins.lock:6", "'other/core.py' is outside the paths of pin 'small'"),
    "lock: 50 MiB file": Case(huge("pins.lock"), "pins.lock:1", "over the 4.0 MiB reader accepts"),
    # annotation files, as the build loads them -----------------------------------------------------
    "yaml: malformed": Case(edit("annotations/tour.yaml", "phase: 1", "phase: [1"),
                            "annotations/tour.yaml:4", "malformed YAML"),
    "yaml: wrong type": Case(edit("annotations/tour.yaml", "phase: 1", "phase: one"),
                             "annotations/tour.yaml:3", "`phase` must be an integer, not a string"),
    "yaml: unknown key": Case(edit("annotations/tour.yaml", "order: 1", "order: 1\nsumary: x"),
                              "annotations/tour.yaml:6", "unknown key 'sumary' in the file (did you mean 'summary'?)"),
    "yaml: not UTF-8": Case(edit("annotations/tour.yaml", "The spec.", "The sp\udce9c."),
                            "annotations/tour.yaml:15", "not UTF-8 (byte 0xe9"),
    "yaml: empty file": Case(write("annotations/tour.yaml", ""), "annotations/tour.yaml:1",
                             "the file is not a YAML mapping"),
    "yaml: 50 MiB file": Case(huge("annotations/tour.yaml"), "annotations/tour.yaml:1",
                              "the file is 50.0 MiB, over the 4.0 MiB reader accepts"),
    "yaml: 1 TiB sparse file": Case(sparse("annotations/tour.yaml"), "annotations/tour.yaml:1",
                                    "the file is 1024.0 GiB, over the 4.0 MiB"),
    "yaml: a folder": Case(directory("annotations/big.yaml"), "annotations/big.yaml:1",
                           "not a regular file"),
    "yaml: link out of the project": Case(symlink_out("annotations/evil.yaml"), "annotations/evil.yaml:1",
                                          "a symbolic link to"),
    "yaml: link out of the project, seen by check": Case(symlink_out("annotations/evil.yaml"),
                                                         "annotations/evil.yaml:1", "outside the project",
                                                         CHECK),
    "yaml: annotations/ links out of the project": Case(folder_out, "annotations/tour.yaml:1",
                                                        "outside the project", CHECK),
    "yaml: alias bomb": Case(write("annotations/tour.yaml", BOMB), "annotations/tour.yaml:2",
                             "YAML anchors and aliases"),
    "yaml: brackets nested deep": Case(edit("annotations/tour.yaml", "kernels: [lab_one]",
                                            "kernels: " + "[" * 100_000), "annotations/tour.yaml:9",
                                       "brackets nested more than 64 deep"),
    "yaml: the outline malformed": Case(edit("track.yaml", "phases:", "phases: ["), "track.yaml:4",
                                        "malformed YAML"),
    "yaml: the outline not a mapping": Case(write("track.yaml", "- a\n"), "track.yaml:1",
                                            "expected 'title', 'summary' and a list of 'phases'"),
    # annotation files against the pinned code, as `reader check` sees them --------------------------
    "check: unknown symbol": Case(edit("annotations/tour.yaml", "notes:\n", "notes:\n" + NOTE.format(
        id="n1", symbol="Blockspec")), "annotations/tour.yaml:13",
        "note 'n1': symbol 'Blockspec' not found in pkg/core.py@", CHECK),
    "check: unknown fact": Case(edit("annotations/tour.yaml", "and [[lab", "{{fact:no.such.fact}} and [[lab"),
                                "annotations/tour.yaml:10", "unknown fact 'no.such.fact'", CHECK),
    "check: unknown kernel": Case(edit("annotations/tour.yaml", "[lab_one]", "[lab_two]"),
                                  "annotations/tour.yaml:9",
                                  "unknown kernel 'lab_two': no kernels/lab_two.py (did you mean 'lab_one'?)",
                                  CHECK),
    "check: unknown page": Case(edit("annotations/tour.yaml", "and [[lab", "[[page:tuor]] and [[lab"),
                                "annotations/tour.yaml:10", "link to unknown page 'tuor' (did you mean 'tour'?)",
                                CHECK),
    "check: duplicate ids": Case(duplicate_article, "annotations/tour2.yaml:13",
                                 "duplicate note id 'tour-blockspec' (first at annotations/tour.yaml:13)",
                                 CHECK),
    "check: read path with ..": Case(edit("annotations/tour.yaml", "kernels:", "  - path: pkg/../../../etc/passwd\nkernels:"),
                                     "annotations/tour.yaml:9", "path 'pkg/../../../etc/passwd' is outside the pins",
                                     CHECK),
    "check: absolute read path": Case(edit("annotations/tour.yaml", "kernels:", "  - path: /etc/passwd\nkernels:"),
                                      "annotations/tour.yaml:9", "path '/etc/passwd' is outside the pins", CHECK),
    # arguments ----------------------------------------------------------------------------------
    "cli: unknown pin": Case(both(), "pins.toml:1", "unknown pin 'nosuch'; known pins: small",
                             ("fetch", "nosuch")),
    "cli: --site is the project": Case(both(), "{root}", "would replace the project itself",
                                       ("build", "--site", ".")),
    "cli: --site is a file": Case(both(), "{root}/pins.toml", "the site folder is a file",
                                  ("build", "--site", "pins.toml")),
    "cli: --site holds other files": Case(both(), "{root}/docs", "holds files that are not a built site",
                                          ("build", "--site", "docs")),
    "cli: unsafe mirror": Case(both(), "READER_MIRROR_SMALL", "refusing git source 'ext::sh -c touch% pwned'",
                               ("fetch", "--refresh")),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Small:
    return build_small(tmp_path_factory.mktemp("small"))


@pytest.fixture
def small(built: Small, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Small:
    copy = built.copy(tmp_path)
    monkeypatch.setenv("READER_CACHE", str(copy.cache))
    monkeypatch.setenv("READER_MIRROR_SMALL", str(built.upstream))
    monkeypatch.chdir(copy.root)
    return copy


def one_located_line(case: Case, out: str, err: str) -> str:
    """The one problem line the case printed, after checking that nothing else was printed."""
    if case.stream == "out":
        lines = out.splitlines()
        assert len(lines) == 1, out
        return lines[0]
    lines = err.splitlines()
    errors = [line.removeprefix("reader: error: ") for line in lines if line.startswith("reader: error: ")]
    assert len(errors) == 1, err
    assert all(line.startswith("  ") for line in lines if not line.startswith("reader: error: ")), err
    return errors[0]


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_one_located_line_exit_2_and_changes_nothing(small, tmp_path, monkeypatch,
                                                                 capsys, name):
    case = CASES[name]
    outside = tmp_path / "outside"
    outside.mkdir()
    case.setup(small, outside)
    if name == "cli: unsafe mirror":
        monkeypatch.setenv("READER_MIRROR_SMALL", "ext::sh -c touch% pwned")
    site, cache = tree_digest(small.root / "site"), tree_digest(small.cache)
    project = tree_digest(small.root)

    code = main(list(case.argv))
    out, err = capsys.readouterr()

    assert code == 2, (out, err)
    assert "Traceback" not in out + err
    line = one_located_line(case, out, err)
    match = LOCATED.match(line)
    assert match, line
    assert match["where"] == case.where.format(root=small.root.resolve()), line
    assert case.says in line, line
    assert tree_digest(small.root / "site") == site
    after = tree_digest(small.cache)
    if case.argv[0] == "check":  # `reader check` keeps what it computed, whatever it finds
        assert {k: after.get(k) for k in cache} == cache
        assert all(k.startswith("derived/") for k in after.keys() - cache.keys())
    else:
        assert after == cache
    assert tree_digest(small.root) == project  # nothing written, nothing left behind
    assert not list(small.root.rglob("pwned")) and not (outside / "pwned").exists()
    for path in small.root.rglob("*"):  # keep tmp small: the big files go now
        if path.is_file() and not path.is_symlink() and path.stat().st_size > MAX_INPUT_BYTES:
            path.unlink()


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if n.startswith("yaml:")
                                  and c.where.startswith("annotations/") and c.argv[0] == "build"])
def test_a_mistake_in_an_annotation_file_stops_the_build_before_any_page(small, tmp_path,
                                                                         monkeypatch, capsys, name):
    CASES[name].setup(small, tmp_path)
    monkeypatch.setattr("reader.site._build_locked", lambda *a: pytest.fail("the build went on"))
    assert main(list(CASES[name].argv)) == 2
    assert capsys.readouterr().err.startswith(f"reader: error: {CASES[name].where}")


def test_the_suite_covers_what_the_issue_names():
    kinds = {name.split(":")[0] for name in CASES}
    assert kinds == {"pins", "lock", "yaml", "check", "cli"} and len(CASES) >= 30


def test_missing_project_files_are_named(small, tmp_path, monkeypatch, capsys):
    (small.root / "pins.toml").unlink()
    assert main(["fetch"]) == 2
    assert capsys.readouterr().err == ("reader: error: pins.toml: file not found; run reader from "
                                       "the project root (or pass -C DIR)\n")
    nowhere = tmp_path / "nowhere"
    assert main(["-C", str(nowhere), "build"]) == 2
    assert capsys.readouterr().err == (f"reader: error: {nowhere}/mkdocs.yml: mkdocs.yml not found; "
                                       "run reader build from the project root (or pass -C DIR)\n")
    assert not nowhere.exists()


def test_an_unreadable_file_anywhere_is_a_located_error_not_a_traceback(small, monkeypatch, capsys):
    """The CLI's last line of defence: an OSError from a file no reader module expected."""
    import reader.commands.fetch as fetch_command

    def broken(args):
        raise PermissionError(13, "Permission denied", str(small.root / "pins.toml"))

    monkeypatch.setattr(fetch_command, "run", broken)
    assert main(["fetch"]) == 2
    assert capsys.readouterr().err == (
        f"reader: error: {small.root / 'pins.toml'}: cannot use the file: Permission denied; check "
        "that it exists, is the right kind of file and can be read\n")


def test_a_symlink_in_the_pinned_paths_is_never_locked_or_served(tmp_path, monkeypatch, capsys):
    """Upstream may hold `pkg/link.py -> /etc/passwd`: its blob is a path, not code. `reader lock`
    leaves it out, and a lock that names it anyway gets nothing for it from git."""
    from reader.cache import Cache
    from reader.corpus import Project
    from reader.fetch import GitSource, fetch_pin
    from tests.conftest import git
    from tests.small_project import write_small

    small = write_small(tmp_path)
    (small.upstream / "pkg" / "link.py").symlink_to("/etc/passwd")
    git(small.upstream, "add", "-A")
    git(small.upstream, "commit", "-q", "-m", "a link")
    commit = git(small.upstream, "rev-parse", "HEAD")
    link_blob = git(small.upstream, "rev-parse", "HEAD:pkg/link.py")
    pins = small.root / "pins.toml"
    pins.write_text(pins.read_text().replace(small.commit, commit))
    monkeypatch.setenv("READER_CACHE", str(small.cache))
    monkeypatch.setenv("READER_MIRROR_SMALL", str(small.upstream))
    monkeypatch.chdir(small.root)
    assert main(["lock"]) == 0
    assert "small @ " in capsys.readouterr().out
    lock = (small.root / "pins.lock").read_text()
    assert '"pkg/core.py"' in lock and "link.py" not in lock
    (small.root / "pins.lock").write_text(lock.replace('[small.files]\n',
                                                       f'[small.files]\n"pkg/link.py" = "{link_blob}"\n'))
    project = Project.load(small.root)
    cache = Cache(small.cache)
    report = fetch_pin(project.pins["small"], project.locks["small"], cache,
                       [GitSource(cache, str(small.upstream))])
    assert report.missing == ("pkg/link.py",) and report.served == 2
    assert not cache.has_blob(link_blob)
