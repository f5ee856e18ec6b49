"""What a command loads before it runs: only its own module, and for `reader check` none of the
heavy libraries a warm check does without (libcst, GitPython, filelock, tomlkit)."""

from __future__ import annotations

import json
import subprocess
import sys

from reader.cli import build_parser
from reader.commands import COMMANDS

LOADED = """
import json, sys
from reader.cli import build_parser
build_parser({argv!r})
print(json.dumps(sorted(m for m in sys.modules if m.startswith(("reader.commands.", "libcst", "git",
                                                                  "filelock", "tomlkit")))))
"""


def loaded_after(argv: list[str]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", LOADED.format(argv=argv)], capture_output=True,
                          text=True, check=True, timeout=120)
    return json.loads(done.stdout)


def test_a_named_command_loads_its_module_alone():
    assert loaded_after(["-C", "somewhere", "check", "--format", "json"]) == ["reader.commands.check"]


def test_check_loads_no_parser_git_or_lock_library():
    assert not [m for m in loaded_after(["check"]) if not m.startswith("reader.")]


def test_help_and_unknown_commands_list_every_command():
    for argv in ([], ["--help"], ["no-such-command"], ["-C", "check"]):
        commands = [m for m in loaded_after(argv) if m.startswith("reader.commands.")]
        assert commands == sorted(f"reader.commands.{c}" for c in COMMANDS), argv


def test_the_parser_of_one_command_parses_it_as_the_full_parser_does():
    argv = ["-C", "proj", "check", "--format", "github"]
    assert vars(build_parser(argv).parse_args(argv)) == vars(build_parser().parse_args(argv))


def test_the_build_loads_markdown_only_to_render_prose():
    """A warm build that renders no note or prose does without Markdown and pymdownx (35 ms)."""
    code = ("import sys; import reader.site, reader.annotations.load; "
            "from reader.render.common.markdown import render_markdown; "
            "before = sorted(m for m in sys.modules if m.startswith(('markdown', 'pymdownx'))); "
            "render_markdown('*a*'); print(before, 'markdown' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          timeout=120)
    assert done.stdout.split() == ["[]", "True"]
