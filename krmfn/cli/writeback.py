"""``--in-place``: write every changed file back, all or nothing as far as a filesystem allows.

Every target is checked before the first write (a regular file or a link to one, writable, and
unchanged since it was read); each new text goes to a temp file beside the real file, is fsync'ed,
and is renamed over it, the directory fsync'ed after. If a step fails, or SIGINT, SIGTERM or SIGHUP
comes, the files already replaced get their old text back and no temp file stays.

The renames and the rollback are a critical section: those signals are held (blocked) there, and
one that arrived is acted on after, by putting every replaced file back; a second signal during the
rollback is held too, so the rollback always finishes. The message then says exactly what state
the tree is in. A temp file is named ``.NAME.krmfn-PID.tmp``: a run finds the ones a killed run left
(its PID no longer alive), removes them and names them. A file with other hard links, or owned by
someone a rename cannot give it back to, is written in place instead (after every temp file is
complete), so that its links and owner stay.
"""

from __future__ import annotations

import os
import re
import signal
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType

from krmfn.results import ConfigError

TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.krmfn-(?P<pid>\d+)\.tmp$")
# A test hook: deliver signals to ourselves at numbered steps of the write ("TERM:3,INT:5": SIGTERM
# at the third step, SIGINT at the fifth; a step is a temp file written, a rename, a directory
# fsync'ed, a file put back). KRMFN_TEST_SIGNAL_AFTER_RENAME=SIG is the older form, after the first rename.
_SIGNAL_AT = "KRMFN_TEST_SIGNAL_AT"
_SIGNAL_AFTER_RENAME = "KRMFN_TEST_SIGNAL_AFTER_RENAME"
HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def temp_path(real: str) -> str:
    head, tail = os.path.split(real)
    return os.path.join(head, f".{tail}.krmfn-{os.getpid()}.tmp")


class Interrupted(Exception):
    """SIGINT, SIGTERM or SIGHUP during the writes: undone, then exit. ``stuck``: files that could
    not be put back (the rollback's own failure), which the message names."""

    def __init__(self, signum: int, stuck: list[str] | None = None) -> None:
        super().__init__(signum)
        self.signum = signum
        self.stuck = stuck or []

    def state(self) -> str:
        """The tree's state in one sentence."""
        if not self.stuck:
            return "interrupted: no file was changed"
        return (f"interrupted: {', '.join(self.stuck)} could not be put back and holds krmfn's new text; every "
                "other file is as it was")


@dataclass
class _Target:
    shown: str  # the path as the user gave it, for messages
    real: str  # what a symlink points to: the file written
    old: bytes
    new: bytes
    st: os.stat_result
    in_place: bool  # hard links or an owner a rename would lose
    temp: str | None = None
    replaced: bool = False


@dataclass
class WriteOutcome:
    written: list[str] = field(default_factory=list)
    leftovers: list[str] = field(default_factory=list)  # temp files of a killed run, removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_leftovers(directories: set[str]) -> list[str]:
    """Temp files a killed run left in these directories (a live run's are kept): removed, named."""
    removed = []
    for d in sorted(directories):
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for name in sorted(names):
            m = TEMP_NAME.match(name)
            if m and int(m.group("pid")) != os.getpid() and not _alive(int(m.group("pid"))):
                path = os.path.join(d, name)
                try:
                    os.unlink(path)
                    removed.append(path)
                except OSError:
                    pass
    return removed


def _check(shown: str, old: bytes, new: bytes) -> _Target:
    """Everything that can be known before the first write."""
    real = os.path.realpath(shown)
    try:
        st = os.stat(real)
    except OSError as exc:
        raise ConfigError(f"cannot write {shown} ({exc.strerror}); no file was changed") from None
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"cannot write {shown}: it is not a regular file; no file was changed")
    if not st.st_mode & 0o222 or not os.access(real, os.W_OK):
        raise ConfigError(f"cannot write {shown}: the file is read-only; no file was changed")
    with open(real, "rb") as f:
        now = f.read(len(old) + 1)
    if now != old:
        raise ConfigError(f"{shown} changed while krmfn ran; nothing was written (run krmfn again)")
    in_place = st.st_nlink > 1 or (os.geteuid() != 0 and st.st_uid != os.geteuid())
    if not in_place and not os.access(os.path.dirname(real) or ".", os.W_OK | os.X_OK):
        raise ConfigError(f"cannot write {shown}: its directory is not writable; no file was changed")
    return _Target(shown, real, old, new, st, in_place)


def _fsync_dir(path: str) -> None:
    fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_temp(t: _Target) -> None:
    t.temp = temp_path(t.real)
    fd = os.open(t.temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        _write_all(fd, t.new)
        os.fchmod(fd, stat.S_IMODE(t.st.st_mode))
        if os.geteuid() == 0:
            os.fchown(fd, t.st.st_uid, t.st.st_gid)
        elif t.st.st_gid != os.getegid():
            try:
                os.fchown(fd, -1, t.st.st_gid)
            except OSError:
                t.in_place = True
        os.fsync(fd)
    finally:
        os.close(fd)


def _unchanged(t: _Target) -> bool:
    try:
        now = os.stat(t.real)
    except OSError:
        return False
    return (now.st_ino, now.st_size, now.st_mtime_ns) == (t.st.st_ino, t.st.st_size, t.st.st_mtime_ns)


def _write_all(fd: int, text: bytes) -> None:
    view = memoryview(text)
    while view:
        view = view[os.write(fd, view):]


def _overwrite(path: str, text: bytes) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        _write_all(fd, text)
        os.ftruncate(fd, len(text))
        os.fsync(fd)
    finally:
        os.close(fd)


class _Steps:
    """Numbered steps of a write, for the test hook that signals at one (no hook: nothing)."""

    def __init__(self) -> None:
        self.at: dict[int, int] = {}
        spec = os.environ.get(_SIGNAL_AT, "")
        for part in filter(None, spec.split(",")):
            name, _, step = part.partition(":")
            self.at[int(step)] = getattr(signal, f"SIG{name}")
        self.n = 0

    def __call__(self) -> None:
        self.n += 1
        if self.n in self.at:
            os.kill(os.getpid(), self.at[self.n])


def _commit(t: _Target, step: _Steps) -> None:
    if not _unchanged(t):
        raise ConfigError(f"{t.shown} changed while krmfn ran; no file was changed (run krmfn again)")
    if t.in_place:
        t.replaced = True  # from the first byte written, it needs putting back
        _overwrite(t.real, t.new)
        step()
    else:
        assert t.temp is not None
        os.replace(t.temp, t.real)
        t.temp = None
        t.replaced = True  # marked with the rename itself, before the fsync: a failure there still undoes it
        step()
        _fsync_dir(t.real)
        step()


def _undo(t: _Target, step: _Steps) -> bool:
    """Put the old text back; False when it could not be (the caller names the file)."""
    try:
        if t.in_place:
            _overwrite(t.real, t.old)
        else:
            back = _Target(t.shown, t.real, t.new, t.old, t.st, False)
            _write_temp(back)
            assert back.temp is not None
            os.replace(back.temp, t.real)
            _fsync_dir(t.real)
        step()
        return True
    except OSError:
        return False


@contextmanager
def _held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP held while the block runs: one that comes waits, pending."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _taken() -> int | None:
    """The first held signal that arrived (each one taken, so none fires when they are let through)."""
    first = None
    while signal.sigpending() & set(HELD):
        info = signal.sigtimedwait(HELD, 0)
        if info is None:
            break
        first = first or info.si_signo
    return first


@contextmanager
def _signals_raise() -> Iterator[None]:
    def handler(signum: int, _frame: FrameType | None) -> None:
        raise Interrupted(signum)
    saved = {s: signal.signal(s, handler) for s in HELD}
    try:
        yield
    finally:
        for s, h in saved.items():
            signal.signal(s, h)


def _clean(targets: list[_Target]) -> None:
    for t in targets:
        if t.temp is not None:
            try:
                os.unlink(t.temp)
            except OSError:
                pass
            t.temp = None


def write_back(changes: list[tuple[str, bytes, bytes]]) -> WriteOutcome:
    """Write each (path, text read, new text); raise ConfigError naming the user's file on failure,
    Interrupted on a signal (every file as it was, or the ones that could not be put back named)."""
    outcome = WriteOutcome()
    targets = [_check(path, old, new) for path, old, new in changes]
    seen: dict[str, str] = {}
    for t in targets:
        if t.real in seen:
            raise ConfigError(f"{t.shown} and {seen[t.real]} are one file; no file was changed")
        seen[t.real] = t.shown
    outcome.leftovers = remove_leftovers({os.path.dirname(t.real) or "." for t in targets})
    step = _Steps()
    after_rename = os.environ.get(_SIGNAL_AFTER_RENAME)
    if after_rename and len(targets) > 1:  # the older hook: after the first rename, before its fsync
        step.at[sum(not t.in_place for t in targets) + 1] = getattr(signal, f"SIG{after_rename}")
    with _signals_raise():
        current: _Target | None = None
        try:
            for t in targets:
                current = t
                if not t.in_place:
                    _write_temp(t)
                    step()
        except BaseException as exc:
            with _held():
                _clean(targets)
                late = _taken()
            if isinstance(exc, OSError) and current is not None:
                raise ConfigError(f"cannot write {current.shown} ({exc.strerror}); no file was changed") from None
            if late is not None and not isinstance(exc, Interrupted):
                raise Interrupted(late) from None
            raise
        with _held():  # the critical section: every rename, or every rename undone
            try:
                for t in targets:
                    current = t
                    _commit(t, step)
                signum = _taken()
                if signum is not None:
                    raise Interrupted(signum)
            except BaseException as exc:
                stuck = [t.shown for t in reversed(targets) if t.replaced and not _undo(t, step)]
                _clean(targets)
                signum = _taken()
                if isinstance(exc, Interrupted):
                    raise Interrupted(exc.signum, stuck) from None
                if signum is not None:
                    raise Interrupted(signum, stuck) from None
                if isinstance(exc, OSError) and current is not None:
                    raise ConfigError(f"cannot write {current.shown} ({exc.strerror}); no file was changed") from None
                raise
    outcome.written = [t.shown for t in targets]
    return outcome
