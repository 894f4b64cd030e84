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

Aliases are counted *after expansion*, before anything is built: a YAML
alias (``*a``) stands for its anchor's whole tree, so ten lines of ten
aliases each describe 10¹⁰ values ("billion laughs") — harmless as a shared
node graph, ruinous for whatever later walks, prints or copies it. The
composed graph is measured once (each node's expanded size memoized, so the
measuring is linear in the file) and a document over
:data:`MAX_EXPANDED_NODES` nodes or :data:`MAX_EXPANDED_CHARS` characters
of scalars, as expanded, is refused; so is an alias that contains itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

import yaml

from .limits import MAX_EXPANDED_CHARS, MAX_EXPANDED_NODES

__all__ = [
    "MAX_EXPANDED_CHARS",
    "MAX_EXPANDED_NODES",
    "Inert",
    "YamlError",
    "load_yaml",
    "load_yaml_documents",
]

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


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _expanded_size(root: yaml.Node) -> tuple[int, int]:
    """(nodes, scalar characters) of ``root`` with every alias expanded; raises
    :class:`YamlError` past the budgets or for a node that contains itself."""
    sizes: dict[int, tuple[int, int]] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:  # iterative post-order: a hostile depth cannot exhaust the stack
        node, done = stack.pop()
        key = id(node)
        if done:
            children = _children(node)
            nodes = 1 + sum(sizes[id(c)][0] for c in children)
            chars = sum(sizes[id(c)][1] for c in children)
            if isinstance(node, yaml.ScalarNode):
                chars += len(node.value)
            if nodes > MAX_EXPANDED_NODES or chars > MAX_EXPANDED_CHARS:
                raise YamlError(
                    f"the YAML expands past {MAX_EXPANDED_NODES:,} values or "
                    f"{MAX_EXPANDED_CHARS // (1024 * 1024)} MiB of text once its aliases are "
                    "expanded (an alias bomb?); not read"
                )
            sizes[key] = (nodes, chars)
            open_nodes.discard(key)
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise YamlError("the YAML has an alias that contains itself; not read")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    return sizes[id(root)]


@contextmanager
def _reading(text: bytes | str) -> Iterator[_InertLoader]:
    """A loader for ``text``, its errors as :class:`YamlError`, disposed of after."""
    loader = _InertLoader(text)
    try:
        yield loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlError(f"not valid YAML{where}: {problem}") from None
    except RecursionError:
        raise YamlError("the YAML is nested too deeply to read") from None
    finally:
        loader.dispose()


def load_yaml(text: bytes | str) -> Any:
    """The first YAML document of ``text``, built by the safe rules above.

    Raises :class:`YamlError` for text that is not YAML, and for a document
    whose aliases expand past the budgets of the module docstring.
    """
    with _reading(text) as loader:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node)
        return loader.construct_document(node)


def load_yaml_documents(text: bytes | str) -> list[Any]:
    """Every YAML document of ``text`` (``---`` between them), built by the safe rules above.

    The alias budgets hold for all documents together: a file of many
    documents is as bounded as one. Raises :class:`YamlError` as
    :func:`load_yaml` does.
    """
    documents: list[Any] = []
    nodes = chars = 0
    with _reading(text) as loader:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            more_nodes, more_chars = _expanded_size(node)
            nodes, chars = nodes + more_nodes, chars + more_chars
            if nodes > MAX_EXPANDED_NODES or chars > MAX_EXPANDED_CHARS:
                raise YamlError(
                    f"the YAML documents expand past {MAX_EXPANDED_NODES:,} values or "
                    f"{MAX_EXPANDED_CHARS // (1024 * 1024)} MiB of text in all; not read"
                )
            documents.append(loader.construct_document(node))
    return documents
