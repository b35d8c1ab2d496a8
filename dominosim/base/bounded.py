"""Reading a file that may be hostile: only a regular file, never more than a bound.

A run folder and a strategy folder are received data: a FIFO in place of a chunk would make a
plain ``open`` wait forever, a sparse file of terabytes would fill the memory of a plain
``read``. So every such file is looked at first (``lstat``: a link, a FIFO, a device, a folder
is not read; its size is checked against the bound of its kind), then opened without blocking
and without following a link, looked at again through the open descriptor (the same regular
file), and read or hashed in blocks, never past its bound (docs/results.md, "The results
folder").
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

BLOCK = 1 << 20  # bytes hashed at a time


class NotRegular(ValueError):
    """The path is not a regular file (a link, a FIFO, a device, a folder, a socket)."""


class TooLarge(ValueError):
    """The file is larger than the bound of its kind."""


def kind_of(mode: int) -> str:
    """What a file of ``mode`` is, in words (``a FIFO``)."""
    for test, words in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return words
    return "not a regular file"


def _open(path: str | Path, limit: int) -> tuple[int, int]:
    """An open descriptor of the regular file ``path`` and its size, at most ``limit`` bytes
    (FileNotFoundError when it is missing; NotRegular, TooLarge)."""
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        raise NotRegular(f"is {kind_of(st.st_mode)}, not a regular file")
    if st.st_size > limit:
        raise TooLarge(f"is {st.st_size:,} bytes, more than the {limit:,} such a file can have")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            raise NotRegular("was replaced while it was opened, not the regular file it was")
        if now.st_size > limit:
            raise TooLarge(
                f"is {now.st_size:,} bytes, more than the {limit:,} such a file can have"
            )
    except BaseException:
        os.close(fd)
        raise
    return fd, now.st_size


def read(path: str | Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, never more than ``limit`` (a file that grows
    past it while read is TooLarge)."""
    fd, _ = _open(path, limit)
    try:
        parts, got = [], 0
        while True:
            block = os.read(fd, min(BLOCK, limit + 1 - got))
            if not block:
                break
            parts.append(block)
            got += len(block)
            if got > limit:
                raise TooLarge(f"is more than the {limit:,} bytes such a file can have")
        return b"".join(parts)
    finally:
        os.close(fd)


def digest(path: str | Path, limit: int) -> tuple[int, str]:
    """``(size, sha256)`` of the regular file ``path`` (at most ``limit`` bytes), hashed in
    blocks: the memory used does not grow with the file."""
    fd, _ = _open(path, limit)
    h, got = hashlib.sha256(), 0
    try:
        while True:
            block = os.read(fd, BLOCK)
            if not block:
                break
            got += len(block)
            if got > limit:
                raise TooLarge(f"is more than the {limit:,} bytes such a file can have")
            h.update(block)
    finally:
        os.close(fd)
    return got, h.hexdigest()


def problem(path: str | Path, e: BaseException) -> str:
    """``PATH <what is wrong>`` for the errors of this module and OSError."""
    if isinstance(e, NotRegular | TooLarge):
        return f"{path} {e}"
    if isinstance(e, OSError):
        return f"{path} cannot be read: {e.strerror or e}"
    return f"{path}: {e}"
