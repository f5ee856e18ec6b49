"""Running claims: batches in child processes (jax imported once per batch), a time limit per
claim, and each outcome kept in the cache by the claim's text, the pinned blobs and the installed
versions (a warm run starts no process). The child processes are the command's (`env.Pythons`)."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reader import providers
from reader.cache import Cache
from reader.claims.env import CHILD, Env, Pythons
from reader.pins import LockEntry
from reader.progress import say
from reader.providers import Provider, as_json, how

RUNNER = hashlib.sha1(CHILD.read_bytes()).hexdigest()[:12]
"""The child's code: a change to how claims run is a change to every outcome."""


@dataclass(frozen=True)
class Spec:
    """One claim to run: its name (the note's id), the page's setup and the example."""

    name: str
    setup: str
    text: str


@dataclass(frozen=True)
class Example:
    """One `>>>` example's outcome."""

    line: int
    """0-based line of the example in the claim's text."""
    source: str
    want: str
    got: str
    ok: bool


@dataclass(frozen=True)
class Outcome:
    """What a claim did in one environment."""

    ok: bool
    examples: tuple[Example, ...] = ()
    error: str = ""
    """Why it did not run to the end: its setup failed, it timed out, its process died."""

    def behaviour(self) -> tuple[object, ...]:
        """What two runs are compared by: pass or fail, each example's output, the error."""
        return (self.ok, self.error, tuple((e.source, e.got) for e in self.examples))

    def first_failure(self) -> Example | None:
        return next((e for e in self.examples if not e.ok), None)


def pins_digest(locks: Mapping[str, LockEntry]) -> str:
    """One hash of every pinned blob."""
    h = hashlib.sha1()
    for name in sorted(locks):
        h.update(f"{name}\0{locks[name].commit}\0".encode())
        for path, blob in sorted(locks[name].files.items()):
            h.update(f"{path}\0{blob}\0".encode())
    return h.hexdigest()


@dataclass(frozen=True)
class Claimed:
    """What a claim's outcome reads: the child's code, the environment (`Env.fingerprint`: its
    Python and the installed versions), every pinned blob (`pins_digest`), the claim's setup and
    text; the producer's way to them: the claim, the environment and the time limit."""

    runner: str
    env: str
    pins: str
    setup: str
    text: str
    spec: Spec | None = how()
    where: Env | None = how()
    timeout: float = how(0.0)
    pythons: Pythons | None = how()


def _claim(inputs: Claimed) -> Outcome:
    assert inputs.spec is not None and inputs.where is not None and inputs.pythons is not None
    return _run_batch([("", inputs.spec)], inputs.where, inputs.timeout, inputs.pythons)[""]


def claimed(spec: Spec, env: Env, pins: str, timeout: float = 0.0, pythons: Pythons | None = None) -> Claimed:
    """A claim's outcome's inputs."""
    return Claimed(RUNNER, env.fingerprint(), pins, spec.setup, spec.text, spec, env, timeout, pythons)


def _outcome(data: Mapping[str, Any]) -> Outcome:
    examples = tuple(Example(int(e["line"]), str(e["source"]), str(e["want"]), str(e["got"]),
                             bool(e["ok"])) for e in data.get("examples", ()))
    return Outcome(bool(data["ok"]), examples, str(data.get("error", "")))


def kept(spec: Spec, env: Env, pins: str, cache: Cache) -> Outcome | None:
    """The outcome kept in the cache for `spec` in `env` at `pins` (None when it has not run)."""
    return providers.kept(CLAIM, claimed(spec, env, pins), cache)


def _as_json(o: Outcome) -> dict[str, Any]:
    return {"ok": o.ok, "error": o.error,
            "examples": [{"line": e.line, "source": e.source, "want": e.want, "got": e.got,
                          "ok": e.ok} for e in o.examples]}


CLAIM: Provider[Claimed, Outcome] = Provider("claim", Claimed, _claim, as_json(dict, _as_json, _outcome), lasting=True)
"""A claim's outcome in one environment (kept across reader's code versions: `RUNNER` is an input)."""


def run_claims(specs: Sequence[Spec], env: Env, pins: str, cache: Cache | None, timeout: float,
               pythons: Pythons, jobs: int = 1) -> list[Outcome]:
    """Each claim's outcome in `env`, in order: from the cache, or run in `jobs` child processes
    that `pythons` starts (a claim that runs past `timeout` seconds fails, and its batch goes on in
    a new process)."""
    each = [claimed(s, env, pins, timeout, pythons) for s in specs]
    keys = [providers.key(CLAIM, c) for c in each]
    inputs = dict(zip(keys, each, strict=True))  # equal claims: one run
    found: dict[str, Outcome] = {}
    for key in dict.fromkeys(keys):
        hit = providers.kept(CLAIM, inputs[key], cache)
        if hit is not None:
            found[key] = hit
    todo = {k: s for k, s in zip(keys, specs, strict=True) if k not in found}
    if todo:
        say(f"running {len(todo)} claim{'s' if len(todo) != 1 else ''} at {env.label}")
        batches = [list(todo.items())[i::max(1, jobs)] for i in range(max(1, jobs))]
        ran: dict[str, Outcome] = {}
        threads = [threading.Thread(target=lambda b=b: ran.update(_run_batch(b, env, timeout, pythons)))
                   for b in batches if b]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for key, outcome in ran.items():
            found[key] = outcome
            if not outcome.error.startswith(("timed out", "its process")):
                providers.keep(CLAIM, inputs[key], outcome, cache)
    return [found[k] for k in keys]


def _run_batch(batch: list[tuple[str, Spec]], env: Env, timeout: float,
               pythons: Pythons) -> dict[str, Outcome]:
    """Run a batch in one child; one that stops (a time limit, a crash) is restarted on the rest."""
    out: dict[str, Outcome] = {}
    left = list(batch)
    while left:
        out.update(_child(left, env, timeout, pythons))
        left = [(k, s) for k, s in left if k not in out]
    return out


def _child(batch: list[tuple[str, Spec]], env: Env, timeout: float, pythons: Pythons) -> dict[str, Outcome]:
    payload = json.dumps([{"key": k, "name": s.name, "setup": s.setup, "text": s.text}
                          for k, s in batch])
    out: dict[str, Outcome] = {}
    child = pythons.stream([env.python, "-I", str(CHILD)], payload.encode(), {"JAX_PLATFORMS": "cpu"})
    running, deadline = batch[0][0], time.monotonic() + timeout
    try:
        while True:
            line = child.line(deadline)
            if line is None:  # the time limit: the claim fails, the rest go to a new child
                out[running] = Outcome(False, error=f"timed out after {timeout:g} s")
                break
            if not line:
                tail = child.tail().strip().splitlines()[-3:]
                out[running] = Outcome(False, error=f"its process exited ({child.code()}): "
                                                    + " | ".join(tail))
                break
            event = json.loads(line)
            if "start" in event:
                running, deadline = event["start"], time.monotonic() + timeout
            else:
                out[event["result"]["key"]] = _outcome(event["result"])
                if len(out) == len(batch):
                    break
    finally:
        child.close()
    return out
