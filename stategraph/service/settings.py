"""How the service configures each tenant's memory: rule packs, grounder, reversals, judge.

Both tenant backends (:mod:`stategraph.service.tenants`, :mod:`stategraph.service.pg_tenants`)
build a tenant's memory through :class:`MemorySettings`, so ``serve`` and ``mcp`` link text
memories as the CLI does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stategraph.errors import JudgeConfigError
from stategraph.judge.base import Judge
from stategraph.judge.settle import JudgeBudget
from stategraph.memory import Memory
from stategraph.store.sqlite import SQLiteStore

__all__ = ["JUDGES", "MemorySettings", "memory_factory_for"]

JUDGES = ("openai", "sampling", "auto")
"""What ``--judge`` may name: the judge the environment configures (``openai``), the MCP
client's model through sampling (``sampling``), or the client's model when it offers sampling
and else the environment's judge when one is configured (``auto``)."""


@dataclass(frozen=True)
class MemorySettings:
    """How the service configures a tenant's memory: what the CLI's write commands take.

    The rule packs and the grounder decide which memories a text links to, so they are kept
    in the tenant's store, as ``stategraph add --rules ... --grounder ...`` keeps them: a write
    stores them (when they differ from what the store holds), and every later reader, the
    CLI's included, reads them back from the store. A read passes none of its own, so reading
    never writes. The judge is this process's (its endpoint and key come from the
    environment), never stored.

    Attributes:
        rules: rule packs (``"all"``, names, or paths); None: the store's own.
        grounder: a registered grounder's name; None: the store's own.
        reversals: what a new fact that reads as reversing or replacing a holding one does
            (``"supersede"`` or ``"ask"``, :class:`~stategraph.Memory`); None: the store's own.
        judge: asked about what logic leaves undecided, on every write; None: no judge.
        sampling: ask the model of the MCP client a tool call comes from, when the client
            declared sampling (:mod:`stategraph.service.mcp_sampling`), before ``judge``.
        judge_budget: what one revision may spend on the judge; None: the default.
    """

    rules: Sequence[str] | str | None = None
    grounder: str | None = None
    reversals: str | None = None
    judge: Judge | None = None
    sampling: bool = False
    judge_budget: JudgeBudget | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> MemorySettings:
        """The settings of ``serve``'s and ``mcp``'s command line as JSON (``rules``,
        ``grounder``, ``reversals``; ``judge``: one of :data:`JUDGES`, or true for ``openai``,
        the judge the environment configures built here, in the process that asks it;
        ``judge_seconds``: the revision's judge deadline).

        Raises:
            JudgeConfigError: ``openai`` without the judge's environment variables, or a
                ``judge`` that is none of :data:`JUDGES`.
        """
        wanted = config.get("judge") or None
        wanted = "openai" if wanted is True else wanted
        if wanted is not None and wanted not in JUDGES:
            raise JudgeConfigError("--judge", f"must be one of {', '.join(JUDGES)}", ["judge"])
        judge = None
        if wanted in ("openai", "auto"):
            from stategraph.judge import OpenAIJudge

            try:
                judge = OpenAIJudge.from_env()
            except JudgeConfigError:
                if wanted == "openai":
                    raise
        seconds = config.get("judge_seconds")
        return cls(
            rules=config.get("rules"),
            grounder=config.get("grounder"),
            reversals=config.get("reversals"),
            judge=judge,
            sampling=wanted in ("sampling", "auto"),
            judge_budget=None if seconds is None else JudgeBudget(seconds=float(seconds)),
        )

    def judge_now(self) -> Judge | None:
        """The judge of the write being served: the MCP client's model when ``sampling`` is
        on and the tool call's client offers it, else ``judge``."""
        if self.sampling:
            from stategraph.service.mcp_sampling import client_judge

            fallback = "the configured judge decides" if self.judge else "it goes to confirmation"
            found = client_judge(fallback)
            if found is not None:
                return found
        return self.judge

    def memory(self, store: SQLiteStore, write: bool) -> Memory:
        """The tenant's memory over ``store``; with ``write``, the settings are kept in it."""
        options: dict[str, Any] = {"judge": self.judge_now(), "judge_budget": self.judge_budget}
        if write:
            return Memory(
                store=store,
                rules=self.rules,
                grounder=self.grounder,
                reversals=self.reversals,
                **options,
            )
        return Memory(store=store, **options)

    def check(self) -> None:
        """Fail now, not at a tenant's first write, on a rule pack, grounder or reversal
        policy that does not exist (tried on a throwaway memory).

        Raises:
            StategraphError: the library's error naming the pack or the grounder.
        """
        with Memory(
            store=SQLiteStore(":memory:"),
            rules=self.rules,
            grounder=self.grounder,
            reversals=self.reversals,
        ):
            pass


def memory_factory_for(
    given: Callable[[SQLiteStore], Memory] | None, settings: MemorySettings | None
) -> Callable[[SQLiteStore, bool], Memory]:
    """A backend's memory factory: the caller's own if given, else ``settings``'."""
    if given is not None:
        return lambda store, write: given(store)
    return (settings or MemorySettings()).memory
