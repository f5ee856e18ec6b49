"""Progress: counted stages as lines when stderr is not a terminal, bars on one, nothing with
`--quiet`; for `reader fetch` and `reader build` of the small project, as child processes."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from reader.progress import Lines, Quiet, Reporter, counted, current, reporting, say, stage, track
from tests.small_project import reader, write_small


def test_a_stage_ends_with_a_line_of_its_count(capsys):
    with reporting(Reporter()):
        assert list(counted("scanning files", iter("abc"), 3)) == ["a", "b", "c"]
        with stage("nothing to do", 0):
            pass
    err = capsys.readouterr().err
    assert err.startswith("  scanning files: 3/3 in ") and "nothing to do" not in err


def test_quiet_says_nothing_and_no_command_means_quiet(capsys):
    with reporting(Quiet()) as progress:
        progress("generating pages")
        list(counted("scanning files", range(4), 4))
    assert isinstance(current(), Quiet)  # outside any command (a library call, `mkdocs build`)
    list(counted("scanning files", range(4), 4))
    assert capsys.readouterr().err == ""


def test_say_goes_to_the_active_reporter_and_lines_show_no_counts(capsys):
    say("outside any command")
    with reporting(Lines()):
        say("fetching up")
        with stage("fetching files", 2) as s:
            s.advance(2)
    assert capsys.readouterr().err == "  fetching up\n"


def test_track_counts_the_futures_that_ran(capsys):
    with reporting(Reporter()), ThreadPoolExecutor(1) as pool:
        blocker = pool.submit(lambda: None)
        futures = [blocker, pool.submit(lambda: None)]
        track("highlighting files", futures)
        for f in futures:
            f.result()
    assert "highlighting files: 2/2 in " in capsys.readouterr().err


@pytest.fixture(scope="module")
def fetched(tmp_path_factory: pytest.TempPathFactory):
    """The small project fetched by `reader fetch` (plain lines: its stderr is a pipe)."""
    small = write_small(tmp_path_factory.mktemp("progress"))
    done = reader(small, "fetch")
    assert done.returncode == 0, done.stderr
    return small, done.stderr


def test_fetch_shows_its_files_as_a_line_when_not_a_terminal(fetched):
    _small, err = fetched
    assert "small: fetching files: 2/2 in " in err


def test_build_shows_each_stage_as_a_line_when_not_a_terminal(fetched, tmp_path):
    small, _ = fetched
    done = reader(small, "build", "--site", str(tmp_path / "lines"))
    assert done.returncode == 0, done.stderr
    err = done.stderr
    assert "  generating pages\n" in err
    for line in ("scanning files: 2/2", "rendering pages: ", "laying out pages: ", "checking links: "):
        assert f"  {line}" in err, line
    assert "\x1b[" not in err and "━" not in err  # no terminal codes, no bar


def test_quiet_build_and_fetch_show_nothing(fetched, tmp_path):
    small, _ = fetched
    done = reader(small, "build", "--quiet", "--site", str(tmp_path / "quiet"))
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("built ")
    again = reader(small, "fetch", "-q")
    assert again.returncode == 0 and again.stderr == "" and "verified" in again.stdout


@pytest.mark.skipif(shutil.which("script") is None, reason="needs util-linux script for a pty")
def test_build_on_a_terminal_draws_bars(fetched, tmp_path):
    small, _ = fetched
    command = shlex.join([sys.executable, "-m", "reader", "build", "--site", str(tmp_path / "tty")])
    done = subprocess.run(["script", "-qec", command, "/dev/null"], cwd=small.root,
                          env=small.env(TERM="xterm", COLUMNS="100"), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout
    shown = done.stdout  # the pty: stdout and stderr together
    assert "━" in shown and "laying out pages" in shown and "\x1b[" in shown
    assert "laying out pages: " not in shown  # a bar, not the closing line
    assert (tmp_path / "tty" / "index.html").is_file()
    assert Path(tmp_path / "tty").is_dir()


def test_the_author_notes_are_one_counted_line_and_verbose_lists_them(fetched, tmp_path):
    """A build prints its stages and one summary: a placeholder that links nowhere yet (the small
    project's lab link: it has no lab registry) is a note for the track's author, counted in one
    line with the site generator's end of life; `--verbose` lists them."""
    small, _ = fetched
    done = reader(small, "build", "--site", str(tmp_path / "notes"))
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0].startswith("built 10 pages into ") and "(" not in out[0]
    assert out[1:] == ["  2 notes for the track's author (1 placeholder that links nowhere yet, "
                       "1 other): reader build --verbose lists them"]
    assert "note:" not in done.stderr and "nowhere" not in done.stderr
    verbose = reader(small, "build", "--verbose", "--site", str(tmp_path / "notes")).stdout.splitlines()
    assert "  note: lab lab_one links nowhere yet" in verbose and "(pages " in verbose[0]
    assert any(line.startswith("  Material for MkDocs 9.") and "end of life" in line for line in verbose)
    assert not any("other version" in line for line in out + verbose)  # one version in the cache


def test_a_build_that_removed_another_codes_results_says_why_it_made_everything_again(fetched, tmp_path):
    """A build after a change of reader's code makes everything again: even without --verbose it
    says so, in one line, once it has removed the results the other code made."""
    small, _ = fetched
    small = small.copy(tmp_path)
    older = small.cache / "derived" / "0123456789abcdef" / "highlight" / "ab" / "abcd"
    older.parent.mkdir(parents=True)
    older.write_text("made by another version of reader's code")
    done = reader(small, "build", "--site", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr
    assert ("  removed the cached results of 1 other version of reader's code: results are kept by "
            "the code that made them, so a build after a change of reader makes them again") \
        in done.stdout.splitlines()
    assert not (small.cache / "derived" / "0123456789abcdef").exists()
    again = reader(small, "build", "--site", str(tmp_path / "site"))
    assert "other version" not in again.stdout
