"""Reading cassette YAML without ever running what it names.

vcrpy writes cassettes with PyYAML, and older ones carry Python tags
(``!!python/unicode``, ``!!python/object:vcr.request.Request``,
``!!python/object/apply:…``). A full or unsafe loader would import and call
what such a tag names. This loader is PyYAML's *safe* loader (the C one when
available) with one addition: a tag it does not know becomes data — the
scalar tags that only spell a value (``python/unicode``, ``python/str``,
``python/bytes``, ``python/tuple``…) become that value, and every other tag
becomes an :class:`Inert` record holding the tag and its content built by the
same safe rules. Nothing is imported, nothing is called.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import yaml

__all__ = ["Inert", "YamlError", "load_yaml"]

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_PY: Final = "tag:yaml.org,2002:python/"


class YamlError(ValueError):
    """The text is not YAML we can read; the message says where."""


@dataclass(frozen=True)
class Inert:
    """A node whose tag names code (``!!python/object/apply:os.system``): kept as data only."""

    tag: str
    value: Any


class _InertLoader(_Base):  # type: ignore[misc]
    """The safe loader, with unknown tags turned into data instead of errors."""


def _scalar_or_seq(loader: Any, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)


def _python_tag(loader: Any, suffix: str, node: yaml.Node) -> Any:
    # Tags that only spell a plain value are that value; the rest stay inert.
    if suffix in ("str", "unicode") and isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if suffix == "bytes" and isinstance(node, yaml.ScalarNode):
        return loader.construct_yaml_binary(node)
    if suffix in ("tuple", "list") and isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    if suffix == "dict" and isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    if suffix == "none":
        return None
    return Inert(_PY + suffix, _scalar_or_seq(loader, node))


def _unknown_tag(loader: Any, tag_suffix: str, node: yaml.Node) -> Any:
    return Inert(str(node.tag), _scalar_or_seq(loader, node))


_InertLoader.add_multi_constructor(_PY, _python_tag)
_InertLoader.add_multi_constructor("!", _unknown_tag)
_InertLoader.add_multi_constructor("tag:", _unknown_tag)


def load_yaml(text: bytes | str) -> Any:
    """The first YAML document of ``text``, built by the safe rules above."""
    loader = _InertLoader(text)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlError(f"not valid YAML{where}: {problem}") from None
    except RecursionError:
        raise YamlError("the YAML is nested too deeply to read") from None
    finally:
        loader.dispose()
