"""How the service configures each tenant's memory: rule packs, grounder, judge.

Both tenant backends (:mod:`stategraph.service.tenants`, :mod:`stategraph.service.pg_tenants`)
build a tenant's memory through :class:`MemorySettings`, so ``serve`` and ``mcp`` link text
memories as the CLI does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stategraph.judge.base import Judge
from stategraph.memory import Memory
from stategraph.store.sqlite import SQLiteStore

__all__ = ["MemorySettings", "memory_factory_for"]


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
        judge: asked about what logic leaves undecided, on every write; None: no judge.
    """

    rules: Sequence[str] | str | None = None
    grounder: str | None = None
    judge: Judge | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> MemorySettings:
        """The settings of ``serve``'s and ``mcp``'s command line as JSON (``rules``,
        ``grounder``, and ``judge``: true to ask the judge the environment configures,
        built here, in the process that asks it).

        Raises:
            JudgeConfigError: ``judge`` without the judge's environment variables.
        """
        judge = None
        if config.get("judge"):
            from stategraph.judge import OpenAIJudge

            judge = OpenAIJudge.from_env()
        return cls(rules=config.get("rules"), grounder=config.get("grounder"), judge=judge)

    def memory(self, store: SQLiteStore, write: bool) -> Memory:
        """The tenant's memory over ``store``; with ``write``, the settings are kept in it."""
        if write:
            return Memory(store=store, rules=self.rules, grounder=self.grounder, judge=self.judge)
        return Memory(store=store, judge=self.judge)

    def check(self) -> None:
        """Fail now, not at a tenant's first write, on a rule pack or grounder that does not
        exist (tried on a throwaway memory).

        Raises:
            StategraphError: the library's error naming the pack or the grounder.
        """
        with Memory(store=SQLiteStore(":memory:"), rules=self.rules, grounder=self.grounder):
            pass


def memory_factory_for(
    given: Callable[[SQLiteStore], Memory] | None, settings: MemorySettings | None
) -> Callable[[SQLiteStore, bool], Memory]:
    """A backend's memory factory: the caller's own if given, else ``settings``'."""
    if given is not None:
        return lambda store, write: given(store)
    return (settings or MemorySettings()).memory
