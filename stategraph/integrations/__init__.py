"""Using stategraph as the memory of an agent framework.

- :mod:`stategraph.integrations.langgraph`: a LangGraph store (``pip install
  "stategraph[langgraph]"``);
- :mod:`stategraph.integrations.ids`: how a framework's namespaced keys become state ids;
- :mod:`stategraph.integrations.filters`: a search's filter and a namespace condition, read
  as LangGraph's stores read them.

Each integration is imported by its own module, so that importing this package needs no
framework installed.
"""

from __future__ import annotations

__all__: list[str] = []
