"""The `reader` command line: parse arguments, run one command, turn ReaderError into one line."""

from __future__ import annotations

import argparse
import atexit
import errno
import gc
import importlib
import os
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

from reader import __version__, classcode
from reader.cache import default_root
from reader.commands import COMMANDS
from reader.errors import InputError, Location, ReaderError
from reader.progress import Lines, reporting


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or, given the arguments of a run that names a command, of
    that one alone: a command's module (and what it imports) loads only when it runs."""
    parser = argparse.ArgumentParser(prog="reader", description="Pallas, From the Inside: the tool behind the track.")
    parser.add_argument("--version", action="version", version=f"reader {__version__}")
    parser.add_argument("-C", "--project", default=".", metavar="DIR",
                        help="the project root holding pins.toml (default: .)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = _command(argv) if argv is not None else None
    for name in (chosen,) if chosen else COMMANDS:
        module = importlib.import_module(f"reader.commands.{name}")
        module.add_parser(sub)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The command `argv` names (its first word that is neither an option nor `-C`'s value),
    when it is one of COMMANDS."""
    args = iter(argv)
    for arg in args:
        if arg in ("-C", "--project"):
            next(args, None)
        elif not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


GC_THRESHOLD = (100_000, 50, 100)
"""The cyclic collector's thresholds for a command: reader makes millions of objects (syntax
trees, scans, pages) and few cycles; at Python's default (700) a collection runs every few
hundred allocations and rescans everything alive, which doubled a cold check's CPU."""


def main(argv: list[str] | None = None) -> int:
    gc.set_threshold(*GC_THRESHOLD)
    keep_class_code = classcode.install(default_root() / "class-code")
    code = _run(argv)
    if code == 0:  # a command that failed leaves the cache as it found it
        keep_class_code()
    return code


def _run(argv: list[str] | None) -> int:
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    try:
        with reporting(Lines()):
            return int(args.run(args) or 0)
    except ReaderError as e:
        print(f"reader: error: {e}", file=sys.stderr)
        return e.exit_code
    except BrokenPipeError:
        return 0
    except (OSError, UnicodeDecodeError) as e:
        # The last line of defence: reader's own readers raise located InputErrors for these.
        print(f"reader: error: {_os_error(e)}", file=sys.stderr)
        return InputError.exit_code
    except KeyboardInterrupt:
        print("reader: interrupted", file=sys.stderr)
        return 130


def entry() -> NoReturn:
    """The program (`reader`, `python -m reader`): `main`, then the process ends at once."""
    end(main())


def end(code: int) -> NoReturn:
    """End the process with `code` once what must run at exit has run (the atexit handlers:
    multiprocessing's children joined, temporary folders removed, logging flushed) and the
    output is flushed, without the interpreter's teardown: freeing a cold build's million
    objects one by one took 1.3 s after its last line. While a thread the normal exit would wait
    for still runs, or a profiler or tracer watches (`python -m cProfile`, coverage: they write
    their results after `main`), the exit is the normal one."""
    me = threading.current_thread()
    if any(t is not me and not t.daemon and t.is_alive() for t in threading.enumerate()) \
            or _watched():
        raise SystemExit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe, a closed stream: nothing more to say
            pass
    os._exit(code)


def _watched() -> bool:
    """Whether a profiler, a tracer or a sys.monitoring tool is set in this process."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)  # Python 3.12 on
    return monitoring is not None and any(monitoring.get_tool(i) is not None for i in range(6))


def _os_error(e: OSError | UnicodeDecodeError) -> InputError:
    """A file the system could not read (or decode) as a located error."""
    if isinstance(e, UnicodeDecodeError):
        return InputError(f"a file is not UTF-8 (byte {e.start}: {e.reason})",
                          hint="save it as UTF-8")
    where = Location(str(e.filename)) if e.filename else None
    what = e.strerror or str(e)
    if e.filename2:
        what += f" (with {e.filename2})"
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        return InputError(f"cannot write the file: {what}", where,
                          "free some space on that disk, then run it again (what was written "
                          "before is kept whole: the old site, the cache)")
    return InputError(f"cannot use the file: {what}", where,
                      "check that it exists, is the right kind of file and can be read")
