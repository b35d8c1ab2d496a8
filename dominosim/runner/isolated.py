"""Users' strategies in processes of their own (``--isolate``; docs/strategies.md, "Isolation").

An :class:`IsolatedStrategy` stands in the engine for a user's strategy: it starts a fresh
Python (``python -c`` running :func:`main`, never a fork of the engine's process) with
an argument list of its own, a minimal environment and an empty working folder, which loads
the strategy's file (its sha256 checked) and makes the strategy. For each decision batch the
engine sends what the strategy's batch Observation holds (the seat, the decision, the own
hand, the open values and voids; the public fields and the seat's history only when the
strategy first reads them, as in the engine), the legal actions' arrays and the keys, as raw
bytes; the child builds the same BatchObservation and Legal, calls the strategy's ``choose``
and sends back the actions. The child holds no engine, no seed, no run folder: what it can
read is what the strategy is shown.

The child speaks to the engine in bytes it never unpickles on the engine's side (a tag byte,
then raw int64 actions, UTF-8 text or JSON): a strategy's process cannot make the engine run
code. Its errors are the engine's one-line StrategyErrors; a process that ends, crashes or
overruns ``--strategy-timeout`` is one too; it ends when the process that started it does
(:func:`dominosim.strategy.sandbox.die_with_parent`, and an end of its input).
"""

from __future__ import annotations

import atexit
import json
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dominosim import strategy
from dominosim.base import debug
from dominosim.base.errors import DominosimError, StrategyError
from dominosim.base.signals import FAULTS
from dominosim.runner.files import load_and_start, load_failure
from dominosim.strategy import sandbox
from dominosim.strategy.spec import parse_strategy

#: The folder holding the dominosim package the engine runs (the child imports the same one).
_ROOT = Path(__file__).resolve().parents[2]
#: Seconds past ``--strategy-timeout`` the engine waits before it kills a child (the child's
#: own timer says it first, in the engine's words).
GRACE = 2.0
#: Seconds a child may take to start (dominosim's imports, before any user's code).
START_SECONDS = 120.0
#: The largest message a child may send (a batch's actions are 8 bytes a decision).
MAX_MESSAGE = 1 << 28
#: What the child runs (its ``sys.argv`` is ``["-c"]``: nothing of the run's command line).
_MAIN = "from dominosim.runner.isolated import main; main()"
_BASE: list[str] = []  # the folder of the children's working folders (one per process tree)


def base_folder() -> str:
    """The folder under which each child gets an empty working folder of its own: made once
    in the run's process (its pool workers, forked later, share it) and removed when that
    process ends."""
    if not _BASE or not os.path.isdir(_BASE[0]):
        _BASE[:] = [tempfile.mkdtemp(prefix="dominosim-isolate-")]
        owner = os.getpid()
        atexit.register(_remove_base, _BASE[0], owner)
    return _BASE[0]


def _remove_base(path: str, owner: int) -> None:
    if os.getpid() == owner:  # (not a forked worker's exit)
        shutil.rmtree(path, ignore_errors=True)


def is_builtin(label: str) -> bool:
    """The strategy of ``label`` is one of dominosim's built-ins (played in the engine's
    process); every other one is a user's (:class:`IsolatedStrategy`)."""
    name = parse_strategy(label).name
    if name not in strategy.discover():
        return False
    return Path(strategy.origin(name)).parent == strategy.builtin_dir().resolve()


# ---------------------------------------------------------------------------------------------
# the engine's side


class _Ended(Exception):
    """The child ended without answering (``how``: in words)."""

    def __init__(self, how: str, last: str | None) -> None:
        super().__init__(how)
        self.how, self.last = how, last


class _Late(Exception):
    """The child did not answer in time (it has been killed)."""

    def __init__(self, last: str | None) -> None:
        super().__init__("late")
        self.last = last


class _Child:
    """A fresh Python running :func:`main`, and the engine's ends of its two pipes."""

    def __init__(self) -> None:
        from multiprocessing.connection import Connection

        self.home = tempfile.mkdtemp(prefix="s-", dir=base_folder())
        env = {"PATH": os.defpath, "PYTHONPATH": str(_ROOT), "HOME": self.home}
        env.update(TMPDIR=self.home, PYTHONDONTWRITEBYTECODE="1", LC_ALL="C.UTF-8")
        if "SYSTEMROOT" in os.environ:  # (Windows needs it to start)
            env["SYSTEMROOT"] = os.environ["SYSTEMROOT"]
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        _widen(to_w)
        _widen(from_w)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _MAIN],
                stdin=to_r,
                stdout=from_w,
                cwd=self.home,
                env=env,
                close_fds=True,
            )
        except BaseException:
            for fd in (to_w, from_r):
                os.close(fd)
            raise
        finally:
            os.close(to_r)
            os.close(from_w)
        self.out = Connection(to_w, readable=False)
        self.inp = Connection(from_r, writable=False)
        self.last: str | None = None

    def ready(self) -> None:
        """Wait for the child to have started (Python, numpy, dominosim and its built-ins
        imported: no user's code yet, so a generous bound, :data:`START_SECONDS`)."""
        if self.reply(time.monotonic() + START_SECONDS) != b"R":
            self.close()
            raise _Ended("started without saying so", None)

    def send(self, header: object, body: bytes | None = None) -> None:
        try:
            self.out.send_bytes(pickle.dumps(header, protocol=pickle.HIGHEST_PROTOCOL))
            if body is not None:
                self.out.send_bytes(body)
        except OSError:
            raise _Ended(self._how(), self.last) from None

    def reply(self, deadline: float | None) -> bytes:
        """The child's next message (its progress notes kept in ``last``); _Ended when it
        ended, _Late (killed) past ``deadline`` (``time.monotonic()``; None: no limit)."""
        while True:
            wait = 0.25 if deadline is None else max(0.0, min(0.25, deadline - time.monotonic()))
            if self.inp.poll(wait):
                try:
                    msg = self.inp.recv_bytes(MAX_MESSAGE)
                except (EOFError, OSError):
                    raise _Ended(self._how(), self.last) from None
                if msg[:1] == b"@":
                    self.last = msg[1:].decode("utf-8", "replace")
                    continue
                if msg == b"T":  # (its own timer ran out while loading)
                    self.close()
                    raise _Late(self.last)
                return msg
            if self.proc.poll() is not None and not self.inp.poll(0):
                raise _Ended(self._how(), self.last)
            if deadline is not None and time.monotonic() >= deadline:
                self.close()
                raise _Late(self.last)

    def _how(self) -> str:
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.close()
            return "stopped answering"
        self.close()
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit code {code}"

    def close(self) -> None:
        """Kill the child (whatever it does) and remove its working folder."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for c in (self.out, self.inp):
            c.close()
        shutil.rmtree(self.home, ignore_errors=True)


def _widen(fd: int) -> None:
    """A pipe that holds a whole batch (Linux: 1 MiB where allowed, else as large as allowed),
    so the engine's write of a batch does not wait, 64 KiB at a time, on the child's reads."""
    import fcntl

    setsize = getattr(fcntl, "F_SETPIPE_SZ", 1031 if sys.platform.startswith("linux") else None)
    for size in (1 << 20, 1 << 18):
        try:
            fcntl.fcntl(fd, setsize, size)
            return
        except (OSError, TypeError):
            continue


def _deadline(timeout: float) -> float | None:
    return time.monotonic() + timeout + GRACE if timeout > 0 else None


def _failed(err: StrategyError) -> bytes:
    """A strategy's error as the child sends it: its line, then its own traceback (--debug)
    after a record separator."""
    tb = getattr(err, "traceback", None) or ""
    return b"E" + str(err).encode("utf-8", "replace") + b"\x1e" + tb.encode("utf-8", "replace")


def _error(msg: bytes) -> StrategyError:
    """A child's error (``_failed``) as the engine raises it."""
    line, _, tb = msg.partition(b"\x1e")
    # (the child names its file from a folder of its own: shown from here, as in-process)
    text = re.sub(
        r" at (/\S+):(\d+)", lambda m: f" at {debug.shown_path(m[1])}:{m[2]}", _text(line)
    )
    err = StrategyError(text)
    if tb:
        err.traceback = tb.decode("utf-8", "replace")
    return err


def _text(msg: bytes) -> str:
    """A child's error message: one line of at most 1,000 characters."""
    text = " ".join(msg.decode("utf-8", "replace").split())
    return text if len(text) <= 1000 else text[:997] + "..."


def probe(
    paths: Sequence[str],
    labels: Sequence[str],
    files: Sequence[tuple[str, str, str]] = (),
    timeout: float = 0.0,
) -> dict[str, list[str]]:
    """Load the strategy files ``paths`` (or a run's recorded ``files``) and make the
    strategies ``labels`` in a fresh child process, never in this one: their errors (at
    import, in ``__init__``; an unknown name or parameter), a process that ends or overruns
    ``timeout`` seconds, are StrategyErrors. Returns the notes the strategies' names give
    (``notes``: :func:`dominosim.strategy.twin_note`) and every strategy name registered
    there (``names``)."""
    child = _Child()
    try:
        child.ready()
        whole = [str(Path(p).expanduser().absolute()) for p in paths]  # (its folder is not ours)
        child.send(("probe", whole, list(files), list(labels), timeout))
        msg = child.reply(_deadline(timeout))
    except _Ended as e:
        raise StrategyError(load_failure(e.how, e.last, paths)) from None
    except _Late as e:
        raise StrategyError(load_failure(None, e.last, paths, timeout)) from None
    finally:
        child.close()
    got = _started_reply(msg, ("notes", "names", "origins", "perfect_information"))
    out: dict = {k: [str(x) for x in got[k]] for k in ("notes", "names", "perfect_information")}
    if not isinstance(got["origins"], dict):
        raise StrategyError(_BROKEN)
    out["origins"] = {str(k): str(v) for k, v in got["origins"].items()}
    return out


def _started_reply(msg: bytes, keys: tuple[str, ...]) -> dict:
    """A child's ``S`` answer (JSON with ``keys``); its ``E`` answer or anything else is a
    StrategyError (a child is never trusted to answer well)."""
    if msg[:1] != b"S":
        raise StrategyError(_text(msg[1:]) if msg[:1] == b"E" else _BROKEN)
    try:
        got = json.loads(msg[1:])
    except ValueError:
        got = None
    if not isinstance(got, dict) or not all(k in got for k in keys):
        raise StrategyError(_BROKEN)
    return got


_BROKEN = "a strategy's process broke its protocol with the engine; fix the strategy"


class IsolatedStrategy:
    """A user's strategy played in a fresh process of its own (module docstring); ``timeout``
    seconds per decision batch (0: none), loading and making it included."""

    def __init__(self, label: str, files: Sequence[tuple[str, str, str]], timeout: float) -> None:
        self.name = self.label = label
        self.files, self.timeout = tuple(files), float(timeout or 0.0)
        self._child: _Child | None = None
        self._rules = None
        self._start()

    def _start(self) -> None:
        child = _Child()
        try:
            child.ready()
            child.send(("start", self.label, list(self.files), self.timeout))
            msg = child.reply(_deadline(self.timeout))
        except _Ended as e:
            raise StrategyError(load_failure(e.how, e.last, [self.label])) from None
        except _Late as e:
            raise StrategyError(load_failure(None, e.last, [self.label], self.timeout)) from None
        except BaseException:
            child.close()
            raise
        try:
            got = _started_reply(msg, ("name", "label"))
        except StrategyError:
            child.close()
            raise
        self.name, self.label = str(got["name"]), str(got["label"])
        self._child, self._rules = child, None

    def close(self) -> None:
        if self._child is not None:
            self._child.close()
            self._child = None

    def choose(self, obs: Any, legal: Any, keys: np.ndarray) -> np.ndarray:
        if self._child is None:
            self._start()
        child = self._child
        rules = None if obs.rules is self._rules else obs.rules
        arrays = _legal_arrays(legal) + [("keys", np.asarray(keys))]
        meta, body = pack(list(obs.held_fields().items()) + arrays)
        try:
            child.send(("batch", rules, obs.phase, len(keys), legal.along, meta), body)
            self._rules = obs.rules
            return self._answer(child, obs)
        except _Ended as e:
            self._child = None
            raise StrategyError(
                f"strategy '{self.label}' ended its process ({e.how}: os._exit, or a crash); "
                "fix the strategy"
            ) from None
        except _Late:
            self._child = None
            raise StrategyError(timeout_message(self.label, self.timeout)) from None

    def choose_one(self, obs: Any, legal: list[int], key: int) -> int:
        """One decision (the reference engine's question: ``dominosim trace``), asked of the
        strategy's process: the Observation (what the seat sees), the legal list, the key."""
        if self._child is None:
            self._start()
        try:
            self._child.send(("one", obs, list(legal), int(key)))
            msg = self._child.reply(_deadline(self.timeout))
        except _Ended as e:
            self._child = None
            raise StrategyError(
                f"strategy '{self.name}' ended its process ({e.how}: os._exit, or a crash); "
                "fix the strategy"
            ) from None
        if msg[:1] == b"A" and len(msg) == 9:
            return int(np.frombuffer(msg, dtype=np.int64, offset=1)[0])
        raise _error(msg[1:])

    def _answer(self, child: _Child, obs: Any) -> np.ndarray:
        deadline = _deadline(self.timeout)
        while True:
            msg = child.reply(deadline)
            tag = msg[:1]
            if tag == b"A" and len(msg) % 8 == 1:
                return np.frombuffer(msg, dtype=np.int64, offset=1).copy()
            if tag == b"E":
                raise _error(msg[1:])
            if tag in (b"P", b"H"):  # (a field read on first access: read it now)
                part = "public" if tag == b"P" else "history"
                child.send(pack(list(obs.lazy_fields(part).items())))
                continue
            child.close()
            raise StrategyError(
                f"strategy '{self.label}' broke its process's protocol with the engine; fix "
                "the strategy"
            )


def timeout_message(name: str, limit: float) -> str:
    """The error of a strategy overrunning ``--strategy-timeout`` (the engine's words)."""
    return (
        f"strategy '{name}' did not return a decision batch within {limit:g} s "
        "(--strategy-timeout); fix the strategy or raise the limit"
    )


def _legal_arrays(legal: Any) -> list[tuple[str, np.ndarray]]:
    """The arrays of a Legal (named ``legal.<field>``: apart from the Observation's)."""
    out = [("legal.values", legal.values), ("legal.masks", legal.masks)]
    if legal.lead is not None:
        out.append(("legal.lead", legal.lead))
    out += [("legal.draw", legal.draw), ("legal.pass_", legal.pass_), ("legal.stop", legal.stop)]
    if legal.flagless:
        out.append(("legal.flagless", np.ones(1, dtype=bool)))
    return out


def pack(arrays: list[tuple[str, np.ndarray]]) -> tuple[list, bytes]:
    """Arrays as their (name, dtype, shape) and their bytes one after the other."""
    meta, parts = [], []
    for name, a in arrays:
        a = np.ascontiguousarray(a)
        meta.append((name, a.dtype.str, a.shape))
        parts.append(a.tobytes())
    return meta, b"".join(parts)


def unpack(meta: list, body: bytes) -> dict[str, np.ndarray]:
    """:func:`pack`'s arrays again (read-only views of ``body``)."""
    out, at = {}, 0
    for name, dtype, shape in meta:
        dt = np.dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64))
        out[name] = np.frombuffer(body, dtype=dt, count=n, offset=at).reshape(shape)
        at += n * dt.itemsize
    return out


# ---------------------------------------------------------------------------------------------
# the child's side (python -c _MAIN)


class _Timeout(BaseException):
    """The child's timer ran out (not an Exception: the strategy's ``except`` lets it by)."""


def _on_alarm(signum, frame):
    raise _Timeout


class _Limit:
    """``seconds`` of the child's timer around a block (0: none)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __enter__(self) -> None:
        if self.seconds > 0:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc: object) -> None:
        if self.seconds > 0:
            signal.setitimer(signal.ITIMER_REAL, 0)


class _Remote:
    """The child's source of the fields read on first access (as the core's SeatSource):
    asked of the engine while the batch's ``choose`` runs, closed when it returns."""

    __slots__ = ("link", "rows", "state")

    def __init__(self, link: tuple, rows: np.ndarray | None, state: dict) -> None:
        self.link, self.rows, self.state = link, rows, state

    @property
    def closed(self) -> bool:
        return self.state["closed"]

    def close(self) -> None:
        self.state["closed"] = True

    def take(self, rows: np.ndarray) -> _Remote:
        rows = rows if self.rows is None else self.rows[rows]
        return _Remote(self.link, rows, self.state)

    def _fetch(self, part: str) -> dict[str, np.ndarray]:
        if part not in self.state:
            inp, out = self.link
            out.send_bytes(b"P" if part == "public" else b"H")
            meta, body = pickle.loads(inp.recv_bytes())
            self.state[part] = unpack(meta, body)
        return self.state[part]

    def public_fields(self, n: int) -> dict[str, np.ndarray]:
        got = self._fetch("public")
        return got if self.rows is None else {k: _frozen(v[self.rows]) for k, v in got.items()}

    def history(self, n: int) -> np.ndarray:
        h = self._fetch("history")["_history"]
        if self.rows is None:
            return h
        h = h[self.rows]
        return _frozen(h[:, : 1 + (int(h[:, 0].max()) if len(h) else 0)])


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a, copy=True)
    a.flags.writeable = False
    return a


def _loaded(label: str, files: list, timeout: float) -> Any:
    """The strategy of ``label``, its run's files loaded first (under the timer)."""
    with _Limit(timeout):
        strategy.discover()
        for kind, ref, digest in files:
            if kind == "path":
                _say(f"path {ref}")
                strategy.load_file(Path(ref), expect=digest)
        spec = parse_strategy(label)
        _say(f"start {spec.name}")
        return strategy.get(spec.name, **spec.kwargs)


_LINK: list = []  # (the engine's input and output connections, once made)


def _say(text: str) -> None:
    _LINK[1].send_bytes(b"@" + text.encode("utf-8", "replace"))


def _probed(paths: list, files: list, labels: list, timeout: float) -> bytes:
    with _Limit(timeout):
        strategy.discover()
        said = load_and_start(paths, files, labels, _say)
    return b"S" + json.dumps(said).encode()


def _decide(state: dict, header: tuple, body: bytes) -> bytes:
    """One decision batch: the batch Observation and Legal built again, the strategy asked."""
    from dominosim.engine.batch import strategy_raised
    from dominosim.engine.batch_observation import BatchObservation
    from dominosim.engine.legal import Legal

    _, rules, phase, n, along, meta = header
    if rules is not None:
        state["rules"] = rules
    got = unpack(meta, body)
    lg = {k[6:]: got.pop(k) for k in list(got) if k.startswith("legal.")}
    places = (*(lg[k].copy() for k in ("values", "masks")), along)
    places += (lg["lead"].copy() if "lead" in lg else None,)
    if "flagless" in lg:
        legal = Legal.without_flags(*places)
    else:
        legal = Legal(*places, *(lg[k].copy() for k in ("draw", "pass_", "stop")))
    keys = got.pop("keys").copy()
    shared = {"closed": False}
    obs = BatchObservation.from_fields(state["rules"], phase, got, _Remote(_LINK, None, shared))
    name, strat = state["label"], state["strategy"]
    try:
        with _Limit(state["timeout"]):
            out = strat.choose(obs, legal, keys)
        a = strategy.check_actions(name, out, n)
    except _Timeout:
        return b"E" + timeout_message(name, state["timeout"]).encode()
    except StrategyError as e:
        return b"E" + str(e).encode("utf-8", "replace")
    except (Exception, SystemExit) as exc:
        return _failed(strategy_raised(name, exc, strat))
    except BaseException as exc:  # (a KeyboardInterrupt or GeneratorExit of its own)
        return _failed(strategy_raised(name, exc, strat))
    finally:
        shared["closed"] = True
    return b"A" + np.ascontiguousarray(a, dtype=np.int64).tobytes()


def _decide_one(state: dict, obs: Any, legal: list, key: int) -> bytes:
    """One decision of the reference engine, with its errors in its words (reference.ask)."""
    from dominosim.game.actions import action_type_message

    strat = state["strategy"]
    name = getattr(strat, "name", type(strat).__name__)
    try:
        a = strat.choose_one(obs, legal, key)
    except StrategyError as e:
        return b"E" + str(e).encode("utf-8", "replace")
    except BaseException as exc:  # (a user strategy failing is a user error)
        from dominosim.engine.batch import strategy_raised

        return _failed(strategy_raised(name, exc, strat))
    if isinstance(a, bool) or not hasattr(a, "__index__"):
        return b"E" + action_type_message(name, a).encode("utf-8", "replace")
    try:
        return b"A" + np.int64(a.__index__()).tobytes()
    except OverflowError:
        return (
            b"E" + f"strategy '{name}' returned an illegal action {a!r}; fix the strategy".encode()
        )


def _started(state: dict, label: str, files: list, timeout: float) -> bytes:
    state["strategy"] = _loaded(label, files, timeout)
    state["label"] = getattr(state["strategy"], "label", label)
    state["timeout"] = timeout
    name = getattr(state["strategy"], "name", label)
    return b"S" + json.dumps({"name": name, "label": state["label"]}).encode()


def _serve_one(state: dict, msg: bytes) -> bytes:
    header = pickle.loads(msg)  # (from the engine: the one side that unpickles)
    kind = header[0]
    try:
        if kind == "batch":
            return _decide(state, header, _LINK[0].recv_bytes())
        if kind == "one":
            return _decide_one(state, *header[1:])
        if kind == "start":
            return _started(state, *header[1:])
        return _probed(*header[1:])
    except _Timeout:
        return b"T"
    except DominosimError as e:
        return b"E" + str(e).encode("utf-8", "replace")
    except FAULTS as e:
        text = " ".join(str(e).split())
        said = f"{type(e).__name__}{': ' + text if text else ''}"
        return b"E" + f"a strategy raised {said}; fix the strategy".encode("utf-8", "replace")


def main() -> None:
    """The child: answer the engine's messages until its input ends."""
    from multiprocessing.connection import Connection

    inp, out = Connection(os.dup(0), writable=False), Connection(os.dup(1), readable=False)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)  # (its prints go to stderr, never into the protocol)
    os.close(null)
    sandbox.die_with_parent(os.getppid())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (the run's Ctrl-C is the engine's to handle)
    signal.signal(signal.SIGALRM, _on_alarm)
    _LINK[:] = [inp, out]
    import dominosim.engine.batch  # noqa: F401 - (dominosim's own code, before any timer)

    strategy.load_builtins()
    out.send_bytes(b"R")  # (ready: the user's code, and its timer, start with the next message)
    state: dict = {}
    while True:
        try:
            msg = inp.recv_bytes()
        except (EOFError, OSError):
            break
        out.send_bytes(_serve_one(state, msg))
