"""The error hierarchy: every user-facing failure is a ReaderError carrying a Location."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Location:
    """A place in a file; `str()` gives `path:line` (or just `path` when the line is unknown)."""

    path: str
    line: int | None = None

    def __str__(self) -> str:
        return self.path if self.line is None else f"{self.path}:{self.line}"


class ReaderError(Exception):
    """Root of reader's errors. `exit_code` is what the CLI exits with."""

    exit_code = 2

    def __init__(self, message: str, location: Location | None = None, hint: str = ""):
        self.message = message
        self.location = location
        self.hint = hint
        super().__init__(str(self))

    @property
    def brief(self) -> str:
        """`location: message`, without the hint: where and why, as a page says it."""
        return f"{self.location}: {self.message}" if self.location else self.message

    def __str__(self) -> str:
        return f"{self.brief}; {self.hint}" if self.hint else self.brief


class InputError(ReaderError):
    """Bad input from the user: a pins file, a lock, an annotation, a CLI argument."""


class PinError(InputError):
    """pins.toml or pins.lock is malformed or inconsistent."""


class UnsafeSourceError(InputError):
    """A URL or path that reader refuses before any tool runs on it."""


class FetchError(ReaderError):
    """No source could provide a pinned file."""


class VerificationError(FetchError):
    """A file's bytes do not hash to the blob sha the lock records."""


class GitError(FetchError):
    """A git operation failed."""


class BuildError(ReaderError):
    """The site could not be built."""


class LabError(BuildError):
    """A lab raised (or ran out of time) while the site was built: a finding in the project's own
    code, like a stale note (exit 1). `reader build --keep-going` builds the site anyway."""

    exit_code = 1


class BusyError(ReaderError):
    """Another reader process holds what this one needs (`reader build --no-wait`)."""

    exit_code = 3
