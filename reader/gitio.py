"""All git access, through GitPython: fetch one commit of a pin and read its blobs, nothing more."""

from __future__ import annotations

from pathlib import Path

import git

from reader.errors import GitError
from reader.pins import check_url

# Never let a URL pick a transport that runs commands (ext::, fd::), whatever git's defaults are.
SAFE_CONFIG = ["-c", "protocol.ext.allow=never", "-c", "protocol.fd.allow=never",
               "-c", "protocol.file.allow=always", "-c", "core.hooksPath=/dev/null"]


def _git(repo: git.Repo, *args: str) -> str:
    """Run one git command in `repo`; every failure becomes a GitError with git's own message."""
    try:
        return repo.git.execute(["git", *SAFE_CONFIG, *args], stdout_as_string=True)
    except git.GitCommandError as e:
        detail = (e.stderr or "").strip().replace("\n", " ").removeprefix("stderr: ")
        raise GitError(f"git {args[0]} failed: {detail.strip(chr(39))[:300]}") from None


def _normalize(url: str) -> str:
    check_url(url)
    path = Path(url).expanduser()
    if "://" not in url and not url.startswith("git@") and path.exists():
        return path.resolve().as_uri()
    return url


def open_store(store: Path) -> git.Repo:
    """The bare repository under the cache that holds fetched objects for one pin."""
    if (store / "HEAD").exists():
        return git.Repo(store)
    store.mkdir(parents=True, exist_ok=True)
    return git.Repo.init(store, bare=True)


def fetch_commit(store: Path, url: str, commit: str) -> git.Repo:
    """Fetch `commit` alone: depth 1, blob-less where the server allows it."""
    url = _normalize(url)
    repo = open_store(store)
    with repo.config_writer() as cfg:
        cfg.set_value('remote "origin"', "url", url)
        cfg.set_value('remote "origin"', "promisor", "true")
        cfg.set_value('remote "origin"', "partialclonefilter", "blob:none")
        cfg.set_value("extensions", "partialClone", "origin")
        cfg.set_value("core", "repositoryformatversion", "1")
    shallow = Path(repo.git_dir) / "shallow"
    if not (shallow.exists() and commit in shallow.read_text().split()):
        _git(repo, "fetch", "--quiet", "--no-tags", "--depth=1", "--filter=blob:none",
             "origin", commit)
    return repo


def list_tree(repo: git.Repo, commit: str, paths: tuple[str, ...]) -> dict[str, str]:
    """Path -> blob sha of every file under `paths` at `commit` (tree objects only, no blobs)."""
    out = _git(repo, "ls-tree", "-r", "--full-tree", commit, "--", *paths)
    tree = {}
    for line in out.splitlines():
        meta, rel = line.split("\t", 1)
        _mode, kind, sha = meta.split()
        if kind == "blob":
            tree[rel] = sha
    return tree


def read_blobs(repo: git.Repo, commit: str, shas: list[str]) -> dict[str, bytes]:
    """The bytes of each blob, fetching the missing ones from origin in one batch first."""
    absent = _missing(repo, commit)
    missing = [s for s in shas if s in absent]
    if missing:
        _git(repo, "-c", "fetch.negotiationAlgorithm=noop", "fetch", "--quiet", "--no-tags",
             "--no-write-fetch-head", "--filter=blob:none", "origin", *missing)
    out = {}
    for sha in shas:
        out[sha] = repo.odb.stream(bytes.fromhex(sha)).read()
    return out


def _missing(repo: git.Repo, commit: str) -> set[str]:
    """Objects of `commit` not yet in the store, listed without triggering a lazy fetch."""
    out = _git(repo, "rev-list", "--objects", "--missing=print", commit)
    return {line[1:] for line in out.splitlines() if line.startswith("?")}


def resolve_ref(url: str, ref: str) -> str:
    """The commit sha a tag or branch names at `url` (`git ls-remote`)."""
    url = _normalize(url)
    try:
        out = git.cmd.Git().execute(["git", *SAFE_CONFIG, "ls-remote", "--", url, ref,
                                     f"{ref}^{{}}"], stdout_as_string=True)
    except git.GitCommandError as e:
        raise GitError(f"git ls-remote failed: {(e.stderr or '').strip()[:300]}") from None
    rows = [line.split("\t") for line in out.splitlines() if line.strip()]
    peeled = [sha for sha, name in rows if name.endswith("^{}")]
    if peeled or rows:
        return (peeled or [rows[0][0]])[0]
    raise GitError(f"{ref!r} names nothing at {url}")
