"""A lab's notebook run, and its outputs kept in the notebook: executed top to bottom on a fresh
kernel on this machine's CPU (at the command's end: `reader.children.execute`), the outputs written
in a form that does not depend on the run (`settled`: no timings, counts in order, a cell's stream
in one piece), so that `reader notebooks --execute` commits what CI's run of the same notebook
prints (tests/test_notebooks.py compares them, numbers aside). A notebook's inputs are what is
left without its outputs: `reader notebooks --check` compares those with the lab's."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

RUN_ENV = {"JAX_PLATFORMS": "cpu", "PYTHONHASHSEED": "0"}
"""The kernel's environment on top of this process's: the CPU (interpret mode), as CI runs them."""
_NUMBER = re.compile(r"[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|\b(?:inf|nan)\b)")
_AROUND = re.compile(r" *# *")


class Executed(NamedTuple):
    """An executed notebook (with its outputs, as `settled` leaves them) and the seconds it took."""

    notebook: Any
    seconds: float


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
