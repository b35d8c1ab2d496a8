"""The solver's node budget per position where none is given (docs/design.md, "The solver"):
written here alone, at the bottom layer, so the solver, ``dominosim.action_values``'
``solver`` method, the ``oracle`` strategy's row and ``skill``'s ``--budget`` help read the
one number (tests/test_facts.py)."""

#: nodes per position
SOLVER_BUDGET = 2_000_000
