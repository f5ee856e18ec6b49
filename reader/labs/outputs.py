"""A lab's notebook run, and its outputs kept in the notebook: executed top to bottom on a fresh
kernel (nbclient) on this machine's CPU, the outputs written in a form that does not depend on the
run (no timings, counts in order, a cell's stream in one piece), so that `reader notebooks
--execute` commits what CI's run of the same notebook prints (tests/test_notebooks.py compares
them, numbers aside). A notebook's inputs are what is left without its outputs: `reader
notebooks --check` compares those with the lab's."""

from __future__ import annotations

import copy
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

RUN_ENV = {"JAX_PLATFORMS": "cpu", "PYTHONHASHSEED": "0"}
"""The kernel's environment on top of this process's: the CPU (interpret mode), as CI runs them."""
_NUMBER = re.compile(r"[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|\b(?:inf|nan)\b)")
_AROUND = re.compile(r" *# *")


class Executed(NamedTuple):
    """An executed notebook (with its outputs, as `settled` leaves them) and the seconds it took."""

    notebook: Any
    seconds: float


def run_notebook(path: Path, workdir: Path, timeout: int = 900) -> Executed:
    """Execute the notebook at `path` top to bottom on a fresh Python kernel in `workdir`. A failing
    cell raises `nbclient.exceptions.CellExecutionError`."""
    import nbformat

    return execute(nbformat.read(path, as_version=4), workdir, timeout)


def execute(nb: Any, workdir: Path, timeout: int = 900) -> Executed:
    """Run `nb` (an nbformat notebook, changed in place) on a fresh kernel in `workdir`, the
    environment `RUN_ENV` on top of this one's; its outputs `settled`."""
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


def settled(nb: Any) -> Any:
    """`nb` with its outputs as any run of it writes them: code cells counted 1, 2, ... in order,
    no timing or other run metadata, and each cell's consecutive stream outputs of one name (the
    kernel sends them in pieces as they come) joined into one."""
    count = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        count += 1
        cell.execution_count = count
        cell.metadata.pop("execution", None)
        joined: list[Any] = []
        for out in cell.outputs:
            if out.get("output_type") == "execute_result":
                out["execution_count"] = count
            last = joined[-1] if joined else None
            if (out.get("output_type") == "stream" and last is not None and last.get("output_type") == "stream"
                    and last.get("name") == out.get("name")):
                last["text"] = last["text"] + out["text"]
            else:
                joined.append(out)
        cell.outputs = joined
    return nb


def inputs_of(text: str) -> str:
    """A notebook's text without what running it added (outputs, execution counts): as `reader
    notebooks` generates it."""
    import nbformat

    nb = nbformat.reads(text, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)
    return nbformat.writes(nb) + "\n"


def has_outputs(text: str) -> bool:
    """Whether every code cell of the notebook has run (and so carries its outputs)."""
    import nbformat

    nb = nbformat.reads(text, as_version=4)
    return all(c.execution_count is not None for c in nb.cells if c.cell_type == "code")


def executed_text(text: str, timeout: int = 900) -> Executed:
    """The notebook `text` run in a folder of its own: the text with its outputs, and the seconds."""
    import nbformat

    nb = nbformat.reads(text, as_version=4)
    with tempfile.TemporaryDirectory(prefix="reader-notebook-") as workdir:
        done = execute(nb, Path(workdir), timeout)
    return Executed(nbformat.writes(done.notebook) + "\n", done.seconds)


def printed(nb: Any) -> list[str]:
    """What each code cell printed or showed, its numbers as `#` (a float's last digits, a timing, a
    race's result, inf or nan: what one machine's run may print otherwise than another's; and the
    spaces that align them in a table), to compare two runs."""
    out = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        shown = []
        for o in cell.outputs:
            if o.get("output_type") == "stream":
                shown.append(f"{o['name']}: {o['text']}")
            elif o.get("output_type") in ("display_data", "execute_result"):
                shown.append(" ".join(sorted(o.get("data", {}))) + ": " + str(o.get("data", {}).get("text/plain", "")))
            elif o.get("output_type") == "error":
                shown.append(f"error: {o.get('ename')}: {o.get('evalue')}")
        out.append(_AROUND.sub("#", _NUMBER.sub("#", "".join(shown))))  # and the spaces that align them
    return out
