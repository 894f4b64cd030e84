"""The inspector's version, in a module of its own so any layer may name it."""

from typing import Final

__all__ = ["__version__"]

#: Kept equal to ``project.version`` in pyproject.toml.
__version__: Final = "0.1.0"
