"""The command line's plumbing, beside its commands (``cli.py``): the group class that turns a
user error into one line on stderr and an exit code (``DominosimGroup``), ``--version``, and
the standard output set aside while a command plays."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

import click

from dominosim.base import debug, signals
from dominosim.base.errors import DominosimError, printable
from dominosim.base.version import __version__ as _pkg_version


def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version

        return version("dominosim")
    except PackageNotFoundError:
        return _pkg_version


def print_version(ctx: click.Context, value: bool) -> None:
    """``--version``: the version is looked up only when asked for (importlib.metadata costs
    a few tens of milliseconds, and every command would pay them at start-up)."""
    if value and not ctx.resilient_parsing:
        click.echo(f"dominosim {_version()}", color=ctx.color)
        ctx.exit()


def one_line(message: str) -> str:
    """A message as one printed line: whitespace runs as one space, then what is not
    printable escaped (base.errors.printable)."""
    return printable(" ".join(str(message).split()))


class DominosimGroup(click.Group):
    """A click group that turns user errors into one line on stderr and an exit code; Ctrl-C
    and SIGTERM are an interruption (130) from the start of the command to its end
    (dominosim.signals)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        with signals.handled():
            return super().main(*args, **kwargs)

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:  # (click would say "Aborted!" and exit 1)
            click.echo("error: interrupted; finished work is kept", err=True)
            raise click.exceptions.Exit(130) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except DominosimError as e:
            if ctx.meta.get("dominosim.debug") and debug.details(e):  # (--debug)
                click.echo(debug.details(e), err=True)
            click.echo(f"error: {one_line(e.message)}", err=True)
            ctx.exit(e.exit_code)
        except KeyboardInterrupt:
            click.echo("error: interrupted; finished work is kept", err=True)
            ctx.exit(130)
        except BrokenPipeError:  # stdout closed early ('| head'): end quietly, as SIGPIPE would
            quiet_stdout()
            ctx.exit(141)
        except click.UsageError as e:  # unknown command or flag, bad flag value: one line too
            usage_error(ctx, e)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as e:  # an unknown option before the command
            usage_error(ctx, e)


@contextlib.contextmanager
def stdout_aside() -> Iterator[None]:
    """While a command plays: file descriptor 1 points at stderr, so what a strategy writes
    there (``os.system("echo ...")``, ``sys.__stdout__``) never mixes with the report; the
    report is printed after, to the real stdout. (A stdout that is no file, as click's test
    runner gives, is left alone.)"""
    try:
        real = sys.stdout.fileno() == 1
    except (AttributeError, ValueError, OSError):
        real = False
    if not real:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        for f in dict.fromkeys((sys.stdout, sys.__stdout__)):  # (to stderr, where it belongs)
            try:
                f.flush()
            except (AttributeError, ValueError, OSError):
                pass
        os.dup2(saved, 1)
        os.close(saved)


def quiet_stdout() -> None:
    """Point stdout at /dev/null, so flushing it at exit raises nothing more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # (not a real file: CliRunner)
        pass


def usage_error(ctx: click.Context, e: click.UsageError) -> None:
    """Print a click usage error as one line naming the help to read; exit 2."""
    if isinstance(e, click.exceptions.NoArgsIsHelpError):  # bare 'dominosim': the help
        raise e
    where = (e.ctx or ctx).command_path
    msg = one_line(e.format_message()).rstrip(".")
    click.echo(f"error: {msg}; see '{where} --help'", err=True)
    ctx.exit(e.exit_code)
