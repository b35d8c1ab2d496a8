"""``python tests/held_run.py K ARGS...``: ``dominosim ARGS`` whose parent, once it has
written K chunks, waits (up to a minute) for a signal, so that a test's Ctrl-C or kill -9 lands
part way through a run however fast the machine plays (tests/test_interrupt.py). The runner
has no hook for it: this patches what a session counts its chunks with, then runs the
command as ``python -m dominosim`` would."""

import sys
import time

if __name__ == "__main__":  # (a spawned worker imports this file again: it only plays)
    from dominosim.cli import entry
    from dominosim.runner import session

    k, real = int(sys.argv[1]), session.Played.add

    def add(self, res: dict) -> None:
        real(self, res)
        if self.written == k:
            time.sleep(60)

    session.Played.add = add
    sys.argv = ["dominosim", *sys.argv[2:]]
    entry()
