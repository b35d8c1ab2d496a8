"""The executors: in-process, the watched pool of worker processes, Dask; each yields
``play_item`` results as they finish."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from dominosim import strategy
from dominosim.base.errors import ConfigError, DominosimError, WorkerError
from dominosim.base.session import EXECUTORS
from dominosim.runner.plan import Plan, WorkItem
from dominosim.runner.worker import play_item, worker_main
from dominosim.strategy.spec import parse_strategy

# ---------------------------------------------------------------------------------------------
# executors: each yields play_item results as they finish


class _InProcess:
    def __init__(self, items):
        self.items = items

    def results(self, tick=None) -> Iterator[dict]:
        for it in self.items:
            yield play_item(it, tick)

    def stop(self) -> None:
        pass


def _death(exitcode) -> str:
    """Why a worker process ended, in words."""
    if exitcode is None:
        return "its worker process stopped answering"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        why = " (out of memory, or killed)" if name == "SIGKILL" else ""
        return f"its worker process was killed by {name}{why}"
    return f"its worker process exited with code {exitcode} (os._exit in a strategy, or a crash)"


@dataclass
class PoolWorker:
    """One worker process of the pool, the parent's end of its pipe, and the item it plays
    (None: idle)."""

    process: object
    connection: object
    item: WorkItem | None = None


class _Pool:
    """Worker processes fed one item at a time; a worker that dies is noticed at once (its
    process sentinel), so the run ends naming the chunk instead of waiting for it."""

    def __init__(self, items, workers: int):
        import multiprocess

        methods = multiprocess.get_all_start_methods()
        ctx = multiprocess.get_context("fork" if "fork" in methods else None)
        self.items = iter(items)
        self.games = ctx.Value("q", 0)  # games played in the workers, for progress
        self.workers: list[PoolWorker] = []
        for _ in range(workers):
            here, there = ctx.Pipe(duplex=True)
            others = [here, *(w.connection for w in self.workers)]
            p = ctx.Process(
                target=worker_main, args=(there, others, self.games, os.getpid()), daemon=True
            )
            p.start()
            there.close()
            self.workers.append(PoolWorker(p, here))

    def _give(self, w: PoolWorker) -> None:
        w.item = next(self.items, None)
        if w.item is not None:
            try:
                w.connection.send(w.item)
            except (OSError, ValueError):
                self._died(w)

    def _died(self, w: PoolWorker):
        w.process.join(timeout=2)
        if w.process.exitcode == -signal.SIGTERM:  # the process group was stopped: an interruption
            raise KeyboardInterrupt
        it = w.item
        raise WorkerError(f"chunk {it.group}-{it.chunk} failed: {_death(w.process.exitcode)}")

    def results(self, tick=None) -> Iterator[dict]:
        """The chunks' results as they finish; ``tick(games)`` (optional) is told the games
        played in the workers' slices about four times a second."""
        from multiprocess.connection import wait

        for w in self.workers:
            self._give(w)
        seen = 0
        while True:
            busy = [w for w in self.workers if w.item is not None]
            if not busy:
                break
            watched = [w.connection for w in busy] + [w.process.sentinel for w in busy]
            ready = set(wait(watched, timeout=5 if tick is None else 0.25))
            if tick is not None and self.games.value > seen:
                now = self.games.value
                tick(now - seen)
                seen = now
            for w in busy:
                if w.connection not in ready and w.process.sentinel not in ready:
                    continue
                value = self._receive(w)
                self._give(w)  # (busy again while the parent writes this chunk)
                yield value
        self.stop()

    def _receive(self, w: PoolWorker) -> dict:
        """The result worker ``w`` sent for its item; its error raised; its death noticed."""
        try:
            if not w.connection.poll():
                raise EOFError
            kind, value = w.connection.recv()
        except (EOFError, OSError):
            self._died(w)
        if kind == "error":
            raise value
        if kind == "crash":
            it = w.item
            raise WorkerError(f"chunk {it.group}-{it.chunk} failed: its worker stopped on {value}")
        return value

    def stop(self) -> None:
        """Kill the workers (whatever their strategies do with SIGTERM) and every process a
        strategy started there (each worker leads a process group of its own) and reap them:
        a finished run's workers are idle, an interrupted run's chunks are played again."""
        for w in self.workers:
            try:
                w.connection.close()
            except OSError:
                pass
            if w.process.is_alive():
                w.process.kill()
            _kill_group(w.process.pid)
        for w in self.workers:
            w.process.join(timeout=5)


def _kill_group(pid: int | None) -> None:
    """SIGKILL the process group a worker ``pid`` led (the processes its strategies forked),
    where there is one."""
    if pid is None or not hasattr(os, "killpg"):
        return
    try:
        if os.getpgid(pid) != pid:  # (gone, or not yet its own group: nothing of it)
            return
    except OSError:
        pass
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


class _Dask:
    def __init__(self, items, workers: int, scheduler: str | None):
        items = list(items)
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise ConfigError(
                "the dask executors need dask.distributed; install it with "
                "pip install 'dominosim[dask]' (or pip install 'dask[distributed]')"
            ) from None
        self.items = items
        self.cluster = None
        try:
            if scheduler is None:
                self.cluster = LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                )
                self.client = Client(self.cluster)
            else:
                self.client = Client(scheduler, timeout=30)
        except (OSError, TimeoutError, ValueError) as e:
            self.stop()
            where = scheduler or "a local cluster"
            raise ConfigError(f"cannot connect to the Dask scheduler {where}: {e}") from None

    def results(self, tick=None) -> Iterator[dict]:  # (progress per finished chunk)
        from dask.distributed import as_completed

        futures = self.client.map(play_item, self.items, pure=False)
        chunk_of = {
            f.key: f"{it.group}-{it.chunk}" for f, it in zip(futures, self.items, strict=True)
        }
        ac = as_completed(futures)
        del futures  # no list of futures is kept, so finished results are released
        for fut in ac:
            try:
                res = fut.result()
            except DominosimError:
                raise
            except Exception as e:  # noqa: BLE001 - a worker lost (KilledWorker), ...
                text = " ".join(str(e).split()).split(". ")[0]  # (dask's first sentence)
                raise WorkerError(
                    f"chunk {chunk_of.get(fut.key, '?')} failed on the Dask cluster: "
                    f"{type(e).__name__}: {text}"
                ) from None
            chunk_of.pop(fut.key, None)
            fut.release()
            yield res

    def stop(self) -> None:
        for x in (getattr(self, "client", None), self.cluster):
            if x is not None:
                try:
                    x.close()
                except Exception:  # noqa: BLE001 - closing is best effort
                    pass


def check_executor(executor: str, scheduler: str | None) -> None:
    """The executor settings are valid (checked before a run folder is made)."""
    if executor not in EXECUTORS:
        raise ConfigError(f"--executor must be one of {', '.join(EXECUTORS)}, not '{executor}'")
    if executor == "dask" and not scheduler:
        raise ConfigError("--executor dask needs --scheduler tcp://HOST:PORT")
    if executor != "dask" and scheduler:
        raise ConfigError("--scheduler is only used with --executor dask")
    if executor == "dask":  # (tcp only: tls:// and ucx:// need a set-up dominosim does not make)
        _check_scheduler(scheduler)


def _check_scheduler(address: str) -> None:
    """A Dask scheduler address: ``tcp://HOST:PORT`` (or ``HOST:PORT``), else one line."""
    scheme, sep, rest = str(address).rpartition("://")
    if sep and scheme != "tcp":
        raise ConfigError(
            f"--scheduler '{address}': dominosim connects to a Dask scheduler over tcp only, "
            f"not {scheme}://; give its address as tcp://HOST:PORT"
        )
    host, _, port = rest.rpartition(":")
    if not (host.strip("[]") and port.isdigit() and 1 <= int(port) <= 65535) or any(
        c.isspace() or c in "/?#@" for c in rest
    ):
        raise ConfigError(
            f"--scheduler '{address}' is not an address tcp://HOST:PORT (port 1 to 65535); "
            "give the scheduler's address, e.g. tcp://10.0.0.5:8786"
        )


def user_strategies(plan: Plan) -> bool:
    """The plan plays a strategy that is not one of dominosim's built-ins (a file of
    ``--strategy-path``, or a class the caller registered): such code never runs in the
    caller's process, so it cannot end it (docs/design.md, "Errors")."""
    if plan.strategy_paths:
        return True
    builtin = strategy.builtin_dir().resolve()
    labels = set(plan.seats).union(*plan.legs) if plan.legs else set(plan.seats)
    for label in labels:
        try:
            origin = Path(strategy.origin(parse_strategy(label).name))
        except (KeyError, DominosimError):
            return True
        if origin.parent != builtin:
            return True
    return False


def make_executor(
    items, n_items: int, workers: int, executor: str, scheduler: str | None, isolate: bool = False
):
    """The executor of a run; ``isolate``: the run plays users' strategies, so even one chunk
    or one worker is played in a worker process (a watched pool), never in this one."""
    check_executor(executor, scheduler)
    if executor == "dask":
        return _Dask(items, workers, scheduler)
    if executor == "dask-local":
        return _Dask(items, workers, None)
    if (workers <= 1 or n_items <= 1) and not isolate:
        return _InProcess(items)
    return _Pool(items, max(1, min(workers, n_items)))
