"""The child processes the stages ask for, started here, at the commands' end: a command run to its
end (`run`: a Python's installed versions), a venv made with the pinned releases installed by pip
(`install`), a child fed its input and read a line at a time against a deadline (`stream`: a batch of
claims), one started now and waited for later (`start`: the labs' artifacts), a notebook run on a
fresh kernel (`execute`). The commands hand a `Children` down (`reader.opening.open_project` puts it
in the opened project); the stages say what to run and read what came back, and import no
subprocess, nbclient or this module (the `middle-io` contract)."""

from __future__ import annotations

import copy
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from reader.claims.env import Finished
from reader.labs.outputs import RUN_ENV, Executed, settled


class Stream:
    """A child fed `payload` on its stdin, in a temporary folder of its own, its stdout read a line
    at a time (`line`), its stderr kept aside (`tail`); `close` kills it and removes the folder."""

    def __init__(self, argv: Sequence[str], payload: bytes, env: Mapping[str, str]) -> None:
        self._work = tempfile.mkdtemp(prefix="reader-claims-")
        self._err: IO[bytes] = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=self._err, cwd=self._work, env={**os.environ, **env})
        except OSError:
            self._err.close()
            shutil.rmtree(self._work, ignore_errors=True)
            raise
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._out = self._proc.stdout.fileno()
        self._proc.stdin.write(payload)
        self._proc.stdin.close()
        self._buffer = b""

    def line(self, deadline: float) -> bytes | None:
        """The next line of its stdout (b"" at its end), or None when `deadline` (`time.monotonic`)
        passes first."""
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._out], [], [], remaining)[0]:
                return None
            chunk = os.read(self._out, 65536)
            if not chunk:
                return b""
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def code(self) -> int | None:
        """Its exit status, None while it runs."""
        return self._proc.poll()

    def tail(self) -> str:
        """What it wrote to stderr."""
        self._err.seek(0)
        return self._err.read().decode(errors="replace")

    def close(self) -> None:
        self._proc.kill()
        self._proc.wait()
        self._err.close()
        shutil.rmtree(self._work, ignore_errors=True)


class Running:
    """A child started now, its stdout and stderr read together when it is waited for."""

    def __init__(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> None:
        self._proc = subprocess.Popen(list(argv), cwd=cwd, env={**os.environ, **env},
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def wait(self, timeout: float) -> str | None:
        """What it printed once it ended; None when it ran past `timeout` seconds (it is killed)."""
        try:
            output, _ = self._proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        return output.decode(errors="replace")

    def kill(self) -> None:
        self._proc.kill()
        self._proc.communicate()


@dataclass(frozen=True)
class Children:
    """Starts the child processes the stages ask for (`claims.env.Pythons`, `labs.LabChildren`)."""

    def run(self, argv: Sequence[str]) -> Finished:
        done = subprocess.run(list(argv), capture_output=True, text=True)
        return Finished(done.returncode, done.stdout, done.stderr)

    def install(self, folder: Path, reqs: Sequence[str]) -> Finished:
        """A venv at `folder` (without pip) and `reqs` installed there by this interpreter's pip,
        which honours its own settings (`PIP_INDEX_URL`, `PIP_FIND_LINKS`, `PIP_NO_INDEX`): pip's
        run, or venv's when that failed."""
        made = self.run([sys.executable, "-m", "venv", "--without-pip", str(folder)])
        if made.code:
            return made
        return self.run([sys.executable, "-m", "pip", "--python", str(folder / "bin" / "python"),
                         "install", "--disable-pip-version-check", "--quiet", *reqs])

    def stream(self, argv: Sequence[str], payload: bytes, env: Mapping[str, str]) -> Stream:
        return Stream(argv, payload, env)

    def folder(self, prefix: str) -> Path:
        """A new temporary folder (outside the cache) for a child to write into."""
        return Path(tempfile.mkdtemp(prefix=prefix))

    def remove(self, folder: Path) -> None:
        shutil.rmtree(folder, ignore_errors=True)

    def start(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> Running:
        return Running(argv, cwd, env)


def execute(nb: Any, workdir: Path, timeout: int = 900) -> Executed:
    """Run `nb` (an nbformat notebook, changed in place) top to bottom on a fresh kernel in
    `workdir`, the environment `RUN_ENV` on top of this one's; its outputs `settled`. A failing cell
    raises `nbclient.exceptions.CellExecutionError`."""
    from nbclient import NotebookClient

    start, metadata = time.perf_counter(), copy.deepcopy(nb.metadata)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(workdir)}})
    with tempfile.TemporaryDirectory(prefix="rk-") as sockets:  # IPC, not TCP: the kernel warns of TCP
        manager = client.create_kernel_manager()
        manager.transport, manager.ip = "ipc", os.path.join(sockets, "kernel")
        client.execute(env={**os.environ, **RUN_ENV})
    nb.metadata = metadata  # not the kernel's language_info, which names this Python's version
    return Executed(settled(nb), time.perf_counter() - start)


def run_notebook(path: Path, workdir: Path, timeout: int = 900) -> Executed:
    """The notebook at `path` run in `workdir` (`execute`)."""
    import nbformat

    return execute(nbformat.read(path, as_version=4), workdir, timeout)


def executed_text(text: str, timeout: int = 900) -> Executed:
    """The notebook `text` run in a folder of its own: the text with its outputs, and the seconds."""
    import nbformat

    nb = nbformat.reads(text, as_version=4)
    with tempfile.TemporaryDirectory(prefix="reader-notebook-") as workdir:
        done = execute(nb, Path(workdir), timeout)
    return Executed(nbformat.writes(done.notebook) + "\n", done.seconds)
