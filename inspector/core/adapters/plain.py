"""What a *plain* frame is, written once per adapter, and the engine that runs it.

Most frames of a stream carry one more fragment of the block being written and
nothing else. An adapter says what such a frame looks like in a
:class:`Plain` description — where its text is, the exact keys it may have at
each object on the way, the values some keys must have, the fields it may
update (the model, the id, the usage) — and the normalizer takes whole runs of
them at once: their texts go to the machine in bulk, instead of a
:class:`~inspector.core.actions.Delta` per frame through ``Adapter.feed``.

A frame is plain only if it is exactly the description's shape: a key outside
the declared key set of its object, a value of another type, a list of more
than one item on the way to the text, an empty text — anything else and the
run stops there, and ``feed`` (the straightforward path, which knows every
rule) maps the frame. So the description never has to be complete, only
right: what it accepts, ``feed`` would map to ``[Delta(lane, text)]`` plus the
same field updates.

Speed
-----
A run costs about one ``orjson.loads`` and a few subscripts per frame, and
much of a stream repeats byte for byte but for the text (see
:mod:`.template`), where only the text is read. So the checks cannot be
interpreted from the description frame by frame (that would cost more than
the parse): :func:`compile_runners` writes each shape's checks out as one
Python function, once per adapter class, which runs a whole run in one loop
— the code a hand-written loop would be, generated from the description, so
a new adapter gets it by writing its description. The generated source is
made from the description's constants only (never from stream data), and
:func:`runner_source` shows it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Final

import orjson

from .template import Learner, Path

__all__ = [
    "NOT_PARSED",
    "Each",
    "Last",
    "Param",
    "Plain",
    "Runner",
    "Shape",
    "compile_runners",
    "runner_source",
]

#: What a run returns as "no parsed JSON to hand on" (None is valid JSON).
NOT_PARSED: Final[Any] = object()
#: What no value of a frame is (``x is _NOTHING`` is never true).
_NOTHING: Final[Any] = object()


@dataclass(frozen=True, slots=True)
class Param:
    """A value a plain frame must have that depends on the lane: the block being written.

    ``Adapter.lane`` gives the values of a shape's params, in the order
    :attr:`Shape.params` lists them; ``kind`` is their type (``type(value) is
    kind`` is checked: a bool is not an int).
    """

    name: str
    kind: type = int


@dataclass(frozen=True, slots=True)
class Shape:
    """One kind of plain frame.

    ``text``: the path of the text, from the frame's JSON object; a ``str``
    step is a key of an object, an ``int`` step (0) the one item of a list of
    exactly one item. ``keys``: for the root ``()`` and every object on that
    path, the keys it may have (no other). ``equal``: values at paths one key
    below an object of the path — a constant (a ``frozenset``: one of them),
    or a :class:`Param`; ``defaults`` gives the value assumed where such a key
    is absent (without one the key must be there). ``null``: keys that may
    only be ``null`` where present. ``events``: the SSE event types the frame
    may come as (None: any). ``templates``: whether the frames of this shape
    repeat but for the text, so a :class:`~.template.Learner` is worth it.
    """

    text: Path
    keys: Mapping[Path, frozenset[str]]
    equal: Mapping[Path, Any] = field(default_factory=dict)
    defaults: Mapping[Path, Any] = field(default_factory=dict)
    null: tuple[Path, ...] = ()
    events: frozenset[str] | None = None
    templates: bool = False

    @property
    def params(self) -> tuple[Param, ...]:
        """The lane's values this shape compares with, in ``equal``'s order."""
        return tuple(value for value in self.equal.values() if isinstance(value, Param))


@dataclass(frozen=True, slots=True)
class Last:
    """A top-level field every plain frame may update: the last one that has a ``kind`` wins.

    Nearly every frame has it (a model, an id), so it is read once, from the
    run's last frame; only when that one lacks it are the others parsed again.
    """

    key: str
    kind: type


@dataclass(frozen=True, slots=True)
class Each:
    """A top-level field a plain frame rarely has (a usage): looked for in each frame.

    The last value of type ``kind`` wins, set through ``convert`` when given.
    """

    key: str
    kind: type
    convert: Callable[[Any], Any] | None = None


@dataclass(frozen=True, eq=False)
class Plain:
    """An adapter's description of its plain frames.

    ``shapes``: by the key ``Adapter.lane`` names (the lane's block kind, say).
    ``fields``: the adapter attributes a plain frame updates, each from a
    :class:`Last` or :class:`Each` top-level field: the field map that
    ``feed`` applies to every frame, for the frames ``feed`` never sees;
    ``sets``: attributes a plain frame sets to a constant.
    Each shape's run function is compiled when the description is made
    (:attr:`runners`).
    """

    shapes: Mapping[Hashable, Shape]
    fields: Mapping[str, Last | Each] = field(default_factory=dict)
    #: Adapter attributes any plain frame sets to a constant (Gemini's ``produced``).
    sets: Mapping[str, Any] = field(default_factory=dict)
    runners: Mapping[Hashable, Runner] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "runners", compile_runners(self))


#: ``runner(adapter, events, payloads, start, params, learner) -> (texts, stopped)``:
#: the texts of the plain frames from ``start`` on, and the parsed JSON of the frame
#: that stopped them (:data:`NOT_PARSED` when there is none, or it did not parse).
Runner = Callable[
    [Any, Sequence[str], Sequence[Any], int, tuple[Any, ...], Learner | None],
    tuple[list[str], Any],
]


def compile_runners(plain: Plain) -> dict[Hashable, Runner]:
    """One compiled run function per shape of ``plain`` (see the module docstring)."""
    runners: dict[Hashable, Runner] = {}
    for key, shape in plain.shapes.items():
        source, names = _source(shape, plain.fields, plain.sets)
        namespace: dict[str, Any] = dict(names)
        exec(compile(source, f"<plain run {key!r}>", "exec"), namespace)
        runners[key] = namespace["run"]
    return runners


def runner_source(plain: Plain, key: Hashable) -> str:
    """The Python source :func:`compile_runners` makes for shape ``key`` (to read it)."""
    return _source(plain.shapes[key], plain.fields, plain.sets)[0]


def note_again(
    adapter: Any, payloads: Sequence[Any], start: int, count: int, lasts: Mapping[str, Last]
) -> None:
    """Each :class:`Last` field from the last of ``count`` frames that has one.

    For a run whose last frame lacked one: the frames are parsed again (not
    kept while the run was checked: holding every frame of a chunk costs more
    than this rare second parse).
    """
    documents = [orjson.loads(payloads[i]) for i in range(start, start + count)]
    for name, spec in lasts.items():
        for document in reversed(documents):
            value = document.get(spec.key)
            if type(value) is spec.kind:
                setattr(adapter, name, value)
                break


# -- writing the run function --------------------------------------------------------


class _Writer:
    """Lines of Python, and the constants they name."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[str, Any] = {}

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def const(self, value: Any) -> str:
        """A name bound to ``value`` in the function's globals."""
        for name, known in self.names.items():
            if known is value:
                return name
        name = f"C{len(self.names)}"
        self.names[name] = value
        return name


def _checks(shape: Shape, w: _Writer, root: str, depth: int, params: list[str]) -> None:
    """Lines that ``break`` unless ``root`` is the shape; they leave its text in ``text``.

    Runs inside a ``try`` that takes KeyError, TypeError and IndexError as
    "not plain": of what ``orjson`` returns only a dict takes a str key and
    only a list or str an int index, so a wrong shape on the way down raises.
    """
    var: dict[Path, str] = {(): root}
    for n, step in enumerate(shape.text):
        here, parent = shape.text[: n + 1], var[shape.text[:n]]
        name = "text" if n == len(shape.text) - 1 else f"v{n}"
        if isinstance(step, int):
            if step != 0:
                raise ValueError(f"{shape.text}: a list step must be 0 (the list's one item)")
            w.line(depth, f"if len({parent}) != 1: break")
            w.line(depth, f"{name} = {parent}[0]")
        else:
            w.line(depth, f"{name} = {parent}[{step!r}]")
        var[here] = name
    w.line(depth, "if type(text) is not str or not text: break")
    objects = [shape.text[:n] for n in range(len(shape.text)) if isinstance(shape.text[n], str)]
    missing = set(objects) ^ set(shape.keys)
    if missing:
        raise ValueError(f"{shape.text}: key sets must be given for exactly {objects}")
    for path in objects:
        keys = shape.keys[path]
        required = {shape.text[len(path)]} | {
            p[-1] for p in shape.equal if p[:-1] == path and p not in shape.defaults
        }
        if not required <= keys:
            raise ValueError(f"{path}: {sorted(required - keys)} not in its key set")
        # All keys required: a length is the cheaper exact test.
        if required == keys:
            w.line(depth, f"if len({var[path]}) != {len(keys)}: break")
        else:
            w.line(depth, f"if not {w.const(keys)}.issuperset({var[path]}): break")
    for path, value in shape.equal.items():
        found = var.get(path[:-1])
        if found is None or not isinstance(path[-1], str):
            raise ValueError(f"{path}: equal paths are keys of an object on the text's path")
        parent = found
        if path in shape.defaults:
            got = f"{parent}.get({path[-1]!r}, {w.const(shape.defaults[path])})"
        else:
            got = f"{parent}[{path[-1]!r}]"
        w.line(depth, f"x = {got}")
        if isinstance(value, Param):
            n = shape.params.index(value)
            # (``same``: the param itself if of its kind, else a value nothing is)
            test = f"type(x) is not {w.const(value.kind)} or x != {params[n]}"
            w.line(depth, f"if x is not S{n} and ({test}): break")
        elif isinstance(value, frozenset):
            w.line(depth, f"if x not in {w.const(value)}: break")
        elif type(value) is int:
            # orjson gives the interpreter's one object for a small int: one identity
            # test decides the usual frame (one that is not it still may be equal).
            ref = w.const(value)
            w.line(depth, f"if x is not {ref} and (type(x) is not {w.const(int)} or x != {ref}):")
            w.line(depth + 1, "break")
        else:
            w.line(depth, f"if type(x) is not {w.const(type(value))} or x != {value!r}: break")
    for path in shape.null:
        found = var.get(path[:-1])
        if found is None:
            raise ValueError(f"{path}: null paths are keys of an object on the text's path")
        w.line(depth, f"if {found}.get({path[-1]!r}) is not None: break")


def _source(
    shape: Shape, fields: Mapping[str, Last | Each], sets: Mapping[str, Any]
) -> tuple[str, dict[str, Any]]:
    w = _Writer()
    w.names.update(
        loads=orjson.loads, JSONDecodeError=orjson.JSONDecodeError, NOT_PARSED=NOT_PARSED,
        note_again=note_again, islice=islice,
    )  # fmt: skip
    lasts = {name: spec for name, spec in fields.items() if isinstance(spec, Last)}
    eaches = {name: spec for name, spec in fields.items() if isinstance(spec, Each)}
    params = [f"P{n}" for n in range(len(shape.params))]
    w.line(0, "def run(adapter, events, payloads, start, params, learner):")
    if params:
        w.line(1, f"{', '.join(params)}, = params")
        for n, param in enumerate(shape.params):
            kind = w.const(param.kind)
            w.line(1, f"S{n} = P{n} if type(P{n}) is {kind} else {w.const(_NOTHING)}")
    w.line(1, "texts = []")
    w.line(1, "append = texts.append")
    w.line(1, "last = None  # the run's last plain frame's JSON (the others die young)")
    if shape.templates:
        w.line(1, "stopped = NOT_PARSED")
    for name in eaches:
        w.line(1, f"e_{name} = NOT_PARSED")
    names = "None"
    if shape.events is not None:
        # A decoder's run of data-only events is all "message": one C-level count.
        w.line(1, 'named = events.count("message") != len(events)')
        names = f"({w.const(shape.events)} if named else None)"
    if shape.templates:
        w.line(1, "cut = None")
        w.line(1, "if learner is not None and start < len(payloads):")
        w.line(2, "cut = learner.cut_for(payloads[start])")
        if params:
            # A template learned in another lane holds that lane's values: check it here.
            w.line(2, "ok = False")
            w.line(2, "while cut is not None:  # (once: a loop to break out of)")
            w.line(3, "try:")
            _checks(shape, w, "cut.data", 4, params)
            w.line(4, "ok = True")
            w.line(3, "except (KeyError, TypeError, IndexError):")
            w.line(4, "pass")
            w.line(3, "break")
            w.line(2, "if not ok:")
            w.line(3, "cut = None")
        w.line(1, f"names = {names}")
        _template_loop(shape, w, params, eaches)
    else:
        _plain_loop(shape, w, params, eaches)
    w.line(1, "if last is not None:")
    for name, value in sets.items():
        w.line(2, f"adapter.{name} = {w.const(value)}")
    if lasts:
        got = []
        for n, spec in enumerate(lasts.values()):
            w.line(2, f"l{n} = last.get({spec.key!r})")
            got.append(f"type(l{n}) is {w.const(spec.kind)}")
        w.line(2, f"if {' and '.join(got)}:")
        for n, name in enumerate(lasts):
            w.line(3, f"adapter.{name} = l{n}")
        w.line(2, "else:")
        w.line(3, f"note_again(adapter, payloads, start, len(texts), {w.const(lasts)})")
    elif not sets:
        w.line(2, "pass")
    for name, each in eaches.items():
        w.line(1, f"if e_{name} is not NOT_PARSED:")
        value = f"{w.const(each.convert)}(e_{name})" if each.convert else f"e_{name}"
        w.line(2, f"adapter.{name} = {value}")
    w.line(1, "return texts, stopped")
    return "\n".join(w.lines) + "\n", w.names


def _template_loop(shape: Shape, w: _Writer, params: list[str], eaches: Mapping[str, Each]) -> None:
    """The loop over frames, reading a stretch off the template where one matches."""
    w.line(1, "hits = 0")
    w.line(1, "i, count = start, len(payloads)")
    w.line(1, "while i < count:")
    w.line(2, "if cut is not None:")
    w.line(3, "# Payloads of the template's bytes around their text: only it is read.")
    w.line(3, "read = cut.read(payloads, i, events, names, texts)")
    w.line(3, "if read:")
    w.line(4, "last = cut.data")
    _note_each(w, eaches, "last", 4)
    w.line(4, "hits += read")
    w.line(4, "i += read")
    w.line(4, "if i == count:")
    w.line(5, "break")
    w.line(2, "payload = payloads[i]")
    w.line(2, "try:")
    w.line(3, "data = loads(payload)")
    w.line(2, "except JSONDecodeError:")
    w.line(3, "break")
    w.line(2, "stopped = data")
    _frame_checks(shape, w, params, eaches, 2)
    w.line(2, "stopped = NOT_PARSED")
    w.line(2, "if learner is not None and learner.missed(payload, data):")
    w.line(3, "cut = learner.cut_for(payload)")
    w.line(2, "i += 1")
    w.line(1, "if hits:")
    w.line(2, "learner.used()")


def _plain_loop(shape: Shape, w: _Writer, params: list[str], eaches: Mapping[str, Each]) -> None:
    """The loop over frames for a shape without templates: a frame, a parse.

    The parses are one C-level ``map``: a payload that is not JSON raises out
    of the loop, and only a run of plain frames before it can have got there.
    ``data`` is the frame that broke the loop, or :data:`NOT_PARSED`.
    """
    w.line(1, "data = NOT_PARSED")
    w.line(1, "try:")
    frames = "map(loads, islice(payloads, start, None))"
    if shape.events is not None:
        w.line(2, f"for i, data in enumerate({frames}, start):")
    else:
        w.line(2, f"for data in {frames}:")
    _frame_checks(shape, w, params, eaches, 3)
    w.line(2, "else:")
    w.line(3, "data = NOT_PARSED  # every frame was plain")
    w.line(1, "except JSONDecodeError:")
    w.line(2, "data = NOT_PARSED")
    w.line(1, "stopped = data")


def _frame_checks(
    shape: Shape, w: _Writer, params: list[str], eaches: Mapping[str, Each], depth: int
) -> None:
    """Both loops' body for one parsed frame: break unless it is plain, else take its text."""
    w.line(depth, "try:")
    _checks(shape, w, "data", depth + 1, params)
    if shape.events is not None:
        w.line(depth + 1, f"if named and events[i] not in {w.const(shape.events)}: break")
    w.line(depth, "except (KeyError, TypeError, IndexError):")
    w.line(depth + 1, "break")
    _note_each(w, eaches, "data", depth)
    w.line(depth, "last = data")
    w.line(depth, "append(text)")


def _note_each(w: _Writer, eaches: Mapping[str, Each], document: str, depth: int) -> None:
    for name, spec in eaches.items():
        w.line(depth, f"if {spec.key!r} in {document}:  # (rare: a single lookup when absent)")
        w.line(depth + 1, f"x = {document}[{spec.key!r}]")
        w.line(depth + 1, f"if type(x) is {w.const(spec.kind)}:")
        w.line(depth + 2, f"e_{name} = x")
