"""Payload templates read a plain event's text only where parsing it would give the same.

A template (``inspector.core.adapters.template``) is learned from one plain
event and cuts its payload around the values that vary. Its promise: when
:meth:`Template.values` answers for a payload, ``orjson.loads`` of that
payload is the template's JSON with those values put in; when the bytes are
anything else — a hole that holds more than one value, a value of another
kind, a broken escape — it does not answer, and the adapter parses the event
as before. Streams normalize to the same trace with templates and without.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.streams import GENERATORS, stream_of_size
from inspector.core.adapters import template as templates
from inspector.core.adapters.template import Learner, Template, learn
from inspector.core.normalizer import Normalizer
from inspector.core.trace import Trace

from .test_core_fast_paths import _record

ROOT = Path(__file__).resolve().parent.parent
REAL_FOLDERS = [ROOT / "tests" / "fixtures" / "real", ROOT.parent / "shared" / "fixtures" / "real"]

CHAT = (
    b'{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o",'
    b'"choices":[{"index":0,"delta":{"content":" the"},"logprobs":null,"finish_reason":null}]}'
)
CHAT_TEXT = ("choices", 0, "delta", "content")


def _learned(payload: bytes, path: Any) -> Template:
    template = learn(payload, orjson.loads(payload), path)
    assert template is not None
    return template


def _put(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    copy = orjson.loads(orjson.dumps(data))
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return copy


def _holds(template: Template, payload: bytes | str) -> None:
    """The template's promise for one payload (see the module docstring)."""
    text = template.text(payload)
    if text is not None:
        assert orjson.loads(payload) == _put(template.data, CHAT_TEXT, text), payload


def test_a_chat_chunk_is_cut_around_its_text() -> None:
    template = _learned(CHAT, CHAT_TEXT)
    cut = template.by_type[bytes]
    assert cut.head.endswith(b'"delta":{"content":')
    assert cut.tail == b'},"logprobs":null,"finish_reason":null}]}'
    other = CHAT.replace(b'" the"', b'"caf\\u00e9 \\"x\\" \xe2\x82\xac"')
    assert template.text(other) == 'café "x" €'
    assert template.text(other.decode()) == 'café "x" €'  # a frame's data: text


@pytest.mark.parametrize(
    "hole",
    [
        b'""',  # empty: not a text delta
        b"12",  # another kind of value
        b"null",
        b'{"a":"b"}',
        b'["x"]',
        b'"a"},"x":{"content":"b"',  # two values and the bytes between them
        b'"a","content":"b"',
        b'"unterminated',
        b'"bad escape \\q"',
        b'"lone \\ud800 surrogate"',
        b'"raw \x01 control"',
        b'"bad utf-8 \xff"',
        b'"a" "b"',
        b"",
    ],
)
def test_a_hole_that_is_not_exactly_one_text_gives_no_answer(hole: bytes) -> None:
    template = _learned(CHAT, CHAT_TEXT)
    payload = template.by_type[bytes].head + hole + template.by_type[bytes].tail
    assert template.text(payload) is None


@pytest.mark.parametrize(
    "payload",
    [
        CHAT.replace(b'" the"', b'"\\u0041"'),  # written with other escapes than orjson's
        CHAT.replace(b'" the"', b'"gpt-4o"'),  # the same text is another value too
        CHAT.replace(b'" the"', b'"content"').replace(b'"delta":{"content"', b'"delta":{"x"'),
        CHAT.replace(b'" the"', b'"\\u0001"'),  # a sentinel
        # found once as a value, but the text's own value is written otherwise
        CHAT.replace(b'" the"', b'"\\u0041"').replace(b'"chatcmpl-1"', b'"A"'),
    ],
)
def test_no_template_where_the_hole_cannot_be_found_for_sure(payload: bytes) -> None:
    data = orjson.loads(payload)
    assert learn(payload, data, CHAT_TEXT) is None


def test_a_text_that_is_also_a_key_is_found_where_it_is_a_value() -> None:
    payload = CHAT.replace(b'" the"', b'"index"')
    template = _learned(payload, CHAT_TEXT)
    assert template.text(CHAT) == " the"


def test_a_duplicate_key_keeps_the_value_json_keeps() -> None:
    payload = CHAT.replace(b'{"content":" the"}', b'{"content":"a","content":" the"}')
    template = _learned(payload, CHAT_TEXT)
    changed = payload.replace(b'"a"', b'"zz"')
    assert template.text(changed) is None  # the first one is a literal piece
    last = payload.replace(b'" the"', b'"yy"')
    assert template.text(last) == "yy"
    _holds(template, last)


def test_white_space_around_values_is_kept_in_the_pieces() -> None:
    payload = b'{"candidates": [{"content": {"parts": [{"text": "Paris"}], "role": "model"}}]}'
    template = _learned(payload, ("candidates", 0, "content", "parts", 0, "text"))
    assert template.text(payload.replace(b'"Paris"', b'"Rome"')) == "Rome"
    assert template.text(payload.replace(b'"Paris"', b' "Rome" ')) == "Rome"


#: Bytes that break JSON in every way a hole could: quotes, escapes, delimiters,
#: digits, control characters, invalid UTF-8.
HOSTILE = st.lists(
    st.sampled_from(
        [b'"', b"\\", b"\\u", b"00", b"d8", b"dc", b"41", b",", b"}", b"]", b"{", b"[", b":",
         b"a", b" ", b"\n", b"\x01", b"\xff", b"\xc3", b"\xa9", b"1", b"-", b".", b"e",
         b'"content"', b'"x":', b"null", b"true", b"n", b"/", b"b", b"t"]
    ),
    max_size=14,
).map(b"".join)  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(hole=HOSTILE)
def test_any_bytes_in_a_text_hole_answer_only_what_json_says(hole: bytes) -> None:
    template = _learned(CHAT, CHAT_TEXT)
    cut = template.by_type[bytes]
    for payload in (cut.head + hole + cut.tail, cut.head + b'"' + hole + b'"' + cut.tail):
        _holds(template, payload)
        try:
            text = payload.decode()
        except UnicodeDecodeError:
            continue
        _holds(template, text)


def test_learning_backs_off_while_events_keep_differing() -> None:
    learner = Learner(CHAT_TEXT)
    tried = []
    real_learn = templates.learn

    def counting(payload: Any, data: Any, path: Any) -> Any:
        tried.append(payload)
        return real_learn(payload, data, path)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(templates, "learn", counting)
        for n in range(100):
            payload = CHAT.replace(b'"created":1', b'"created":%d' % n)
            learner.missed(payload, orjson.loads(payload))
        assert len(tried) == 7  # at events 0, 2, 5, 10, 19, 36, 69
        learner.used()
        learner.missed(CHAT, orjson.loads(CHAT))
        assert len(tried) == 8


# -- whole streams -----------------------------------------------------------


def _normalized(body: bytes, provider: str, size: int) -> Trace:
    normalizer = Normalizer(provider, "st_templates")
    for start in range(0, len(body), size):
        normalizer.feed(body[start : start + size])
    return normalizer.finish()


def _both_ways(body: bytes, provider: str, size: int) -> tuple[Any, Any]:
    with_templates = _record(_normalized(body, provider, size))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(templates, "learn", lambda payload, data, path: None)
        without = _record(_normalized(body, provider, size))
    return with_templates, without


def _real_streams() -> list[tuple[str, Path]]:
    found = []
    for folder in REAL_FOLDERS:
        for provider in sorted(GENERATORS):
            found += [(provider, path) for path in sorted((folder / provider).glob("*.sse"))]
    return found


@pytest.mark.parametrize(("provider", "path"), _real_streams(), ids=lambda x: str(x)[-40:])
def test_real_streams_normalize_the_same_with_templates_and_without(
    provider: str, path: Path
) -> None:
    body = path.read_bytes()
    for size in (len(body) + 1, 97):
        ran, plain = _both_ways(body, provider, size)
        assert ran == plain


def _hostile_frames(provider: str) -> list[bytes]:
    """The benchmark stream with its text frames' holes swapped for hostile bytes."""
    body = stream_of_size(provider, 8_000)
    marker = orjson.dumps(" stream")
    swaps = [
        b'"a"},"x":{"content":"b"', b'"unterminated', b"12", b'""', b'"\\ud800"', b'"a" "b"',
        b'"\xff"', b'" ok"', b'"\\u0020esc"', b"null", b'"a","delta":"b"', b'"a","text":"b"',
    ]  # fmt: skip
    return [body.replace(marker, swap, 1 + n) for n, swap in enumerate(swaps)]


#: The adapters that cut their plain events with templates.
TEMPLATED = ("anthropic", "gemini", "openai-chat")


@pytest.mark.parametrize("provider", sorted(GENERATORS))
def test_hostile_holes_in_a_run_normalize_the_same_with_templates_and_without(
    provider: str,
) -> None:
    used = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Learner, "used", lambda self: used.append(self))
        for body in _hostile_frames(provider):
            for size in (4096, 1 << 20):
                ran, plain = _both_ways(body, provider, size)
                assert ran == plain, body
    assert bool(used) == (provider in TEMPLATED)  # the runs did read texts off templates


@pytest.mark.parametrize("provider", TEMPLATED)
@pytest.mark.parametrize("name", [b"delta", b"error", b"message"])
def test_an_event_of_another_sse_type_is_not_read_off_the_template(
    provider: str, name: bytes
) -> None:
    body = stream_of_size(provider, 8_000)
    line = b"data: " + body.split(b"data: ")[8].split(b"\n")[0].rstrip(b"\r")
    named = body.replace(line, b"event: " + name + b"\n" + line, 1)
    assert named != body
    for size in (4096, 1 << 20):
        ran, plain = _both_ways(named, provider, size)
        assert ran == plain


@settings(max_examples=300, deadline=None)
@given(
    holes=st.lists(
        st.one_of(
            st.text(max_size=6).map(orjson.dumps),  # a text, or the empty one (not plain)
            st.text(min_size=1, max_size=6).map(orjson.dumps),
            HOSTILE,
            HOSTILE.map(lambda h: b'"' + h + b'"'),
        ),
        max_size=12,
    ),
    start=st.integers(0, 3),
    as_text=st.booleans(),
)
def test_a_stretch_read_at_once_is_what_reading_it_payload_by_payload_gives(
    holes: list[bytes], start: int, as_text: bool
) -> None:
    # Cut.read checks a stretch of four payloads or more as columns first: it must
    # take exactly the payloads, and texts, that one Template.text after another takes.
    template = _learned(CHAT, CHAT_TEXT)
    cut = template.by_type[bytes]
    payloads: list[Any] = [cut.head + hole + cut.tail for hole in holes]
    if as_text:
        try:
            payloads = [p.decode() for p in payloads]
        except UnicodeDecodeError:
            return
    start = min(start, len(payloads))
    expected: list[str] = []
    for payload in payloads[start:]:
        text = template.text(payload)
        if text is None:
            break
        expected.append(text)
    texts: list[str] = []
    taken = template.by_type[type(payloads[0]) if payloads else bytes].read(
        payloads, start, [], None, texts
    )
    assert (taken, texts) == (len(expected), expected)
