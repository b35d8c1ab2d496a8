"""``python -m dominosim`` runs the command line."""

from dominosim.cli import entry

if __name__ == "__main__":
    entry()
