"""The built-in strategies, declared: one row per name (issue 48), in the manner of
Gymnasium's registrations. A row names the strategy's file in the built-in folder and says
what lists of strategies need of it (its classifier, its place among them, its parameters'
defaults, its one-line description, its compiled twin), so that ``dominosim strategies``, the
skill ladder and resolving a name execute no strategy file: a file is loaded when a strategy
it defines is made (``strategy.get``), and a run loads only the files of what it seats.

``tests/test_registrations.py`` holds every row to its file's registered class (each field as
the class declares it) and every registered built-in to a row; a change to a built-in's
``params``, ``rank``, classifier or first docstring line goes with its row here.
"""

from __future__ import annotations

from dataclasses import dataclass

from dominosim.base.budget import SOLVER_BUDGET
from dominosim.strategy.spec import RANDOM


@dataclass(frozen=True)
class Registration:
    """A built-in strategy: ``name`` (as in ``--strategies``), ``file`` (its file in the
    built-in folder, ``dominosim.strategies.<stem>``), ``classifier``, ``rank``, ``params``
    (its parameters' defaults, in the class's order, as pairs), ``description`` (the first
    line of the class's docstring), ``compiled`` (the core's policy that decides for it, or
    None)."""

    name: str
    file: str
    classifier: str
    rank: int
    params: tuple[tuple[str, object], ...]
    description: str
    compiled: str | None = None

    @property
    def defaults(self) -> dict:
        """The parameters' defaults as the class's ``params`` holds them."""
        return dict(self.params)


_MC = (
    ("samples", 256),
    ("policy", "doubles-first"),
    ("max_batch", 16384),
    ("infer", True),
    ("pool", 4),
    ("temp", 4.0),
    ("points", 0.0),
    ("likelihood", "heuristic"),
)
_PIMC = (
    ("samples", 64),
    ("budget", 20000),
    ("objective", "vote"),
    ("min_solved", 8),
    ("infer", True),
    ("pool", 4),
    ("temp", 4.0),
    ("points", 0.0),
    ("likelihood", "heuristic"),
    ("extend", 0),
    ("close", 1.0),
    ("alphamu", 0),
    ("alphamu_value", "points"),
    ("partner", "solver"),
)

# fmt: off
BUILTINS: tuple[Registration, ...] = (
    Registration(RANDOM, "random.py", "random", 0, (),
                 "Uniform over the legal actions.", RANDOM),
    Registration("heaviest", "heaviest.py", "heuristic", 1, (),
                 "The largest pip sum first; ties: a double, control, the opponents' void ends.",
                 "heaviest"),
    Registration("greedy", "greedy.py", "heuristic", 2, (),
                 "The most in-play points, then the heaviest tile (with heaviest's tie-breaks).",
                 "greedy"),
    Registration("doubles-first", "doubles_first.py", "heuristic", 3, (),
                 "Doubles first (the heaviest double), then in-play points, then the heaviest "
                 "tile.", "doubles-first"),
    Registration("suit-keeper", "suit_keeper.py", "heuristic", 4, (),
                 "Keep the longest suit: points, then not spending it, then control of the "
                 "ends.", "suit-keeper"),
    Registration("blocker", "blocker.py", "heuristic", 5, (),
                 "Leave ends the opponents are known to lack (the next one first); never block "
                 "a partner.", "blocker"),
    Registration("partner", "partner.py", "heuristic", 6, (),
                 "A partnership convention: the best team heuristic, then count the tiles out "
                 "and close"),
    Registration("learned", "learned.py", "heuristic", 7, (("model", ""),),
                 "A weighted sum of each placement's features, the weights a trained model's.",
                 "learned"),
    Registration("mc", "mc.py", "search", 0, _MC,
                 "Determinized Monte Carlo: sample hidden hands, play each action out, best "
                 "mean points."),
    Registration("pimc", "pimc.py", "search", 1, _PIMC,
                 "Perfect-information Monte Carlo: sample hidden deals, solve each action "
                 "exactly, vote."),
    Registration("oracle", "oracle.py", "perfect_information", 0, (("budget", SOLVER_BUDGET),),
                 "The solver's move on the true deal: a cheating reference (perfect "
                 "information)."),
)
# fmt: on

#: the rows by name
BY_NAME: dict[str, Registration] = {r.name: r for r in BUILTINS}


#: Contents of a built-in file that play the same games, as a manifest records a built-in
#: file (the sha256 of its bytes): a run folder recorded with one of them is resumed and
#: verified with another (``runner.files.changed_strategy_file``). The built-ins' imports
#: moved to the package's current module paths and the twins' ``twin_version`` was declared
#: (issue 48), which changes no decision: the folders written before stay verifiable. Only an
#: edit that changes no game adds to a file's group; one that changes a game makes a new
#: file, refused by the folders of the old one.
SAME_GAMES: dict[str, tuple[str, ...]] = {
    "blocker.py": (
        "7e971be2f8771eca560ff1436e171d9faea5cc32833ec5ef14c44d87edd0ce0e",
        "76dc1f34f21724bd091df75656e42fd85fca70cb9519444896b48fc6e5bb30e7",
    ),
    "doubles_first.py": (
        "dad851d871db206704e01b42bf4c16a6cb3c448149f7318d9caa92b3025ac719",
        "4fbd5e543b295ebf8fb2c83156d2968d622a214af3629a7ae6730eb12b0bfa0b",
    ),
    "greedy.py": (
        "fe42bac65063bf711db5f7a7108bebbd5452d5f1bdfdde837764cd43039c2226",
        "37fc8e6b17317194847792e70077531b52b0389e9cf6f940ecb7dfb5cd6aaabc",
    ),
    "heaviest.py": (
        "61dbfc6526f1bcea9f7413cb8b31074a03575292b8a7ce658db6c790fcb0c332",
        "a016f38ad0dda47cabdad4015c53025b5313e00c5eb731c2fa412a265962cfdd",
    ),
    "learned.py": (
        "4517207ba554568e0ba7371af5e481625bb41ab7c492c9322616bd3118a3630f",
        "eb23b258598a629344d9c792e3468a189be3b2e9bb71316d49a9128b6eaa4cf0",
    ),
    "oracle.py": (
        "5313dbb70f0f39c61571231599e0bdc8c8f976fbc5e28d775df5ed7cc9f3a0e6",
        "e3096f6b5466f0387edf1c6ddfe6baa7ec9de7eecf724fab3ba5d0d4421cc0dc",
    ),
    "partner.py": (
        "23a68f84abc482f63d6b882e74ae39ed4a6c65d671642eb2c05ab806be7011e2",
        "1d50ce2c82582d40fef27d6403a3520a50dc2de0d9a9ff0c56bc9b9182452745",
    ),
    "random.py": (
        "a07ef5287572862ee22126b8c89e4b86f884ff50463969a418049d2f8abc92cb",
        "6b6e060fbbab639292682b1b9e87a6c08d6c2db70832c1a1edc40636ef26c94e",
        # (its name and twin from strategy.spec.RANDOM: issue 48)
        "f0f903776aa0f0cb2d71753a83cea51d7a652ec1caa019a7af3201b9137f21a6",
    ),
    "suit_keeper.py": (
        "9f75b8148ad97c068daf1db594d0856c652e37f498fd5ccfff2b9a5956bdd9e0",
        "9565b4abf807c4b4a57f46c52c52fa84279f6595bfe28906444cea41ba068d12",
    ),
    # (mc: infer_events split into named functions; pimc: the options alphamu and partner,
    # off by default; issues 47 and 48)
    "mc.py": (
        "7acd98c3c8b24ebda614c32b35ae0a1d88f2e179ca8c117ec2c03607469e3704",
        "b3be8d51caf49cd65a408bf3df7544b8f6358908d0b162bb5a8b9d380c8a5158",
    ),
    "pimc.py": (
        "e4381ed8728d0c2eb6056a00f8af22049323f49d7c3796594c5f6137aa9e9ed7",
        "99cd692fa622cefb6d3c13fce3247636103a94d61daf098da4a577db26276e73",
        "4d326c8472af49b7a53c8035b9683912898db6af0714daf317971dfb330406da",
        # (the leaf value of a hand over from the core, solver.leaf_values; RANDOM: issue 48)
        "1594fb908945e52f610770625f698c74e649097b58fe17ebe0e9a6dbd2c796bd",
    ),
}


def same_games(file: str, recorded: str, now: str | None) -> bool:
    """Whether the built-in file ``file`` whose content is ``now`` (its sha256) plays the
    games of its content ``recorded``: the same content, or two of :data:`SAME_GAMES`."""
    group = SAME_GAMES.get(file, ())
    return now is not None and (now == recorded or (now in group and recorded in group))
