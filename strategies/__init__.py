"""The built-in strategies, one file each (docs/strategies.md).

Each file is the module ``dominosim.strategies.<file>``: a strategy that builds on another
imports it by that name (``from dominosim.strategies import heaviest``), and loading the files
by path (``dominosim.strategy.load_file``) gives the same module objects.
"""
