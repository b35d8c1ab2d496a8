"""A session's options (`Session`), its status lines (`echo`) and the progress bar of a run."""

from __future__ import annotations

import sys
import time

from dominosim.base.session import Session  # (the runner's session: declared in base/)


def echo(session: Session, text: str) -> None:
    if session.echo is not None:
        session.echo(text)
    else:
        print(text, file=sys.stderr)


class Progress:
    """The progress bar of a run on stderr (when ``session.progress``, or stderr is a
    terminal): games played, games per second and time left; what the run is doing when it
    is not playing (starting workers, merging, writing the report, drawing the plots). It
    moves as slices of a chunk are played (:func:`_slices`), and a small thread refreshes it.
    It appears only after :attr:`DELAY` seconds, and so does the ``run folder:`` line (with a
    bar or without), so a run shorter than that prints its summary line only."""

    DELAY = 2.0

    def __init__(self, session: Session, total: int, done: int, path) -> None:
        from tqdm import tqdm

        self.session, self.path = session, path
        self.show = bool(session.progress if session.progress is not None else sys.stderr.isatty())
        self.bar = tqdm(
            total=total,
            initial=done,
            unit="game",
            disable=not self.show,
            file=sys.stderr,
            dynamic_ncols=True,
            smoothing=0.3,
            delay=self.DELAY,
            desc="planning",
        )
        self.base, self.ticked, self.chunked = done, 0, 0
        self.t0 = time.monotonic()
        self.announced = False
        import threading

        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._refresh, daemon=True)
        self._thread.start()

    def _visible(self) -> bool:
        return time.monotonic() - self.t0 >= self.DELAY

    def _refresh(self) -> None:
        while not self._stop.wait(0.25):
            if self._visible():
                if not self.announced:
                    self.announced = True
                    line = f"run folder: {self.path}"
                    if self.show and self.session.echo is None:
                        self.bar.write(line, file=sys.stderr)
                    else:
                        echo(self.session, line)
                if self.show:
                    self.bar.refresh()

    def phase(self, text: str) -> None:
        if self.show:
            self.bar.set_description_str(text, refresh=self._visible())

    def _move(self) -> None:
        n = self.base + max(self.ticked, self.chunked)
        if n > self.bar.n:
            self.bar.update(n - self.bar.n)

    def tick(self, games: int) -> None:
        """Games played in slices (chunks not yet finished included)."""
        self.ticked += games
        self._move()

    def chunk(self, games: int) -> None:
        """A finished chunk (the executors that do not tick move the bar this way)."""
        self.chunked += games
        self._move()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        if self.show and self.announced:  # shown by our refreshes: tqdm's close must know it
            self.bar.last_print_t = max(self.bar.last_print_t, self.bar.start_t + self.DELAY)
        self.bar.close()
