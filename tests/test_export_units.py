"""The building blocks of `inspector export`: lexing, masking, pseudonyms, secrets, leaks."""

from __future__ import annotations

import base64
import json

import pytest

from inspector.export.jsonlex import ESC, PAIR, RAW, UESC, decode_units, lex, render_unit
from inspector.export.leaks import needles, scan_outputs
from inspector.export.mask import mask_char, mask_json_text, mask_number
from inspector.export.pseudonyms import Pseudonymizer, signature_placeholder
from inspector.export.rules import Treatment, classify, stream_key
from inspector.redact.shapes import find_secrets, header_rule, placeholder


def masked_json(text: str) -> str:
    changes = mask_json_text(text)
    return "".join(changes.get(i, ch) for i, ch in enumerate(text))


# -- the lexer ------------------------------------------------------------------


def test_lex_gives_every_string_with_its_key_path_and_content_span() -> None:
    data = b'{"a": "x", "b": [1, "y", {"c": "z"}], "d": -2.5e3}'
    result = lex(data)
    assert result.error is None
    strings = [(t.kind, t.path, data[t.start : t.end]) for t in result.tokens]
    assert strings == [
        ("key", ("a",), b"a"),
        ("string", ("a",), b"x"),
        ("key", ("b",), b"b"),
        ("number", ("b", 0), b"1"),
        ("string", ("b", 1), b"y"),
        ("key", ("b", 2, "c"), b"c"),
        ("string", ("b", 2, "c"), b"z"),
        ("key", ("d",), b"d"),
        ("number", ("d",), b"-2.5e3"),
    ]


def test_lex_keeps_escaped_quotes_inside_a_string() -> None:
    data = rb'{"k": "say \"hi\" \\ ok"}'
    (_, value) = lex(data).tokens
    assert data[value.start : value.end] == rb"say \"hi\" \\ ok"


def test_lex_reads_a_document_cut_short_up_to_the_cut() -> None:
    result = lex(b'{"delta": {"text": "Hello wor')
    assert result.error is None
    last = result.tokens[-1]
    assert (last.path, last.terminated) == (("delta", "text"), False)


def test_lex_says_where_the_syntax_broke() -> None:
    data = b'{"a": "x" oops'
    assert lex(data).error == data.index(b"oops")


def test_lex_reads_several_documents_in_a_row() -> None:
    paths = [t.path for t in lex(b'{"a": "1"}\n[{"b": "2"}]').tokens if t.kind == "string"]
    assert paths == [("a",), (0, "b")]


# -- units: decoded characters with their wire form and width ---------------------


def test_units_know_each_characters_form_and_width_on_the_wire() -> None:
    content = 'a\\"П\\u00e9\\ud83d\\ude00😀'.encode()
    units = decode_units(content)
    assert units.chars == 'a"Пé😀😀'
    assert units.widths == [1, 2, 2, 6, 12, 4]
    assert units.forms == [RAW, ESC, RAW, UESC, PAIR, RAW]
    assert sum(units.widths) == len(content)


def test_an_undecodable_byte_is_one_unit_of_width_one() -> None:
    units = decode_units(b"a\xffb")
    assert (len(units), units.widths) == (3, [1, 1, 1])


@pytest.mark.parametrize(
    ("ch", "form", "upper", "expected"),
    [
        ("х", RAW, False, "х".encode()),
        ("x", UESC, False, b"\\u0078"),
        ("х", UESC, True, b"\\u0445"),
        ("\U0001d431", PAIR, False, b"\\ud835\\udc31"),
        ("\U0001d431", PAIR, True, b"\\uD835\\uDC31"),
    ],
)
def test_a_unit_is_rewritten_in_its_own_form(
    ch: str, form: int, upper: bool, expected: bytes
) -> None:
    assert render_unit(ch, form, upper) == expected


# -- masking ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("original", "masked"),
    [("a", "x"), ("Z", "x"), ("7", "0"), ("П", "х"), ("é", "х"), ("東", "ｘ"), ("𝔸", "𝐱"),
     ("٣", "٠"), ("３", "０"), ("𝟗", "𝟎"), (" ", " "), ("\n", "\n"), (",", ","), ("😀", "😀"),
     ("—", "—")],
)  # fmt: skip
def test_a_masked_character_keeps_its_utf8_width(original: str, masked: str) -> None:
    assert mask_char(original) == masked
    assert len(masked.encode()) == len(original.encode())


def test_masking_is_idempotent() -> None:
    for ch in "xх\uff58\U0001d4310\u0660\uff10\U0001d7ce":
        assert mask_char(ch) == ch


@pytest.mark.parametrize(
    ("number", "masked"), [(b"0", b"0"), (b"7", b"0"), (b"208", b"100"), (b"-45", b"-10")]
)
def test_a_masked_number_is_still_a_number_of_the_same_length(number: bytes, masked: bytes) -> None:
    assert mask_number(number) == masked
    json.loads(masked)


def test_json_text_masking_hides_values_and_keeps_keys_numbers_and_literals() -> None:
    text = '{"city": "Zürich 8001", "n": 12, "ok": true, "tags": ["a b", null]}'
    assert (
        masked_json(text) == '{"city": "xхxxxx 0000", "n": 12, "ok": true, "tags": ["x x", null]}'
    )


def test_json_text_masking_rewrites_unicode_escapes_in_values_only() -> None:
    text = '{"\\u00e9": "\\u00e9\\u00C9 \\"q\\" \\ud835\\udd38 \\ud83d\\ude00"}'
    out = masked_json(text)
    assert out == '{"\\u00e9": "\\u0445\\u0445 \\"x\\" \\ud835\\udc31 \\ud83d\\ude00"}'
    assert len(out) == len(text)
    assert list(json.loads(out)) == ["é"]


def test_json_text_masking_past_a_syntax_error_masks_like_text() -> None:
    assert masked_json('{"a": "b"} garbage 42') == '{"a": "x"} xxxxxxx 00'


# -- pseudonyms -------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    ["chatcmpl-AbC123dEf456GhI789", "msg_01XFDUDYJgAACzvnptvVoYEL", "toolu_01A09q90qw90lq917835",
     "call_H5DxLSFnsGhiROnUiDHmgyc8", "fc_67ccd2bed1ec8190", "rs_0a1b2c3d4e5f", "fp_f33640a400",
     "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b", "n1P6abvRFaKdz7IPkcuQ2Aw"],
)  # fmt: skip
def test_a_pseudonym_keeps_prefix_length_and_character_classes(value: str) -> None:
    pseudonym = Pseudonymizer(b"key")(value)
    assert pseudonym != value
    assert len(pseudonym) == len(value)
    prefix = value.split("_")[0] + "_" if "_" in value else value.split("-")[0] + "-"
    if prefix in ("chatcmpl-", "msg_", "toolu_", "call_", "fc_", "rs_", "fp_", "resp_"):
        assert pseudonym.startswith(prefix)
    for a, b in zip(value[len(prefix) :], pseudonym[len(prefix) :], strict=True):
        assert a.isdigit() == b.isdigit() or set(value) <= set("0123456789abcdef_-fcrspm")


def test_hex_ids_stay_hex() -> None:
    pseudonym = Pseudonymizer(b"key")("fp_f33640a400")
    assert set(pseudonym[3:]) <= set("0123456789abcdef")


def test_pseudonyms_are_consistent_within_a_table_and_distinct() -> None:
    table = Pseudonymizer(b"key")
    a, b = table("call_aaaaaaaaaaaa"), table("call_aaaaaaaaaaab")
    assert table("call_aaaaaaaaaaaa") == a
    assert a != b


def test_the_same_key_gives_the_same_pseudonyms_another_key_others() -> None:
    value = "msg_01XFDUDYJgAACzvnptvVoYEL"
    assert Pseudonymizer(b"one")(value) == Pseudonymizer(b"one")(value)
    assert Pseudonymizer(b"one")(value) != Pseudonymizer(b"two")(value)


def test_a_signature_placeholder_has_the_same_length_and_base64_shape() -> None:
    signature = base64.b64encode(b"\xfb\xff" * 40).decode()
    replaced = signature_placeholder(signature)
    assert len(replaced) == len(signature)
    assert replaced != signature
    base64.b64decode(replaced, validate=True)


# -- secrets ----------------------------------------------------------------------

SECRETS = {
    "openai-key": ["sk-proj-" + "A" * 40, "sk-svcacct-" + "b1" * 20, "sk-admin-" + "c" * 30,
                   "sk-" + "d4" * 24],
    "anthropic-key": ["sk-ant-api03-" + "e" * 40],
    "google-key": ["AIza" + "f" * 35],
    "jwt": ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.signature123"],
    "aws-access-key": ["AKIA" + "G" * 16],
    "github-token": ["ghp_" + "h" * 36, "github_pat_" + "i" * 40],
    "slack-token": ["xoxb-" + "1" * 12 + "-abc"],
    "email": ["jane.doe+test@example.co.uk"],
}  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "secret"), [(rule, s) for rule, values in SECRETS.items() for s in values]
)
def test_each_kind_of_secret_is_found_inside_text(rule: str, secret: str) -> None:
    text = f"before {secret} after"
    assert [(m.rule, text[m.start : m.end]) for m in find_secrets(text)] == [(rule, secret)]


@pytest.mark.parametrize(
    ("rule", "secret"), [(rule, s) for rule, values in SECRETS.items() for s in values]
)
def test_each_kind_of_secret_is_found_in_a_long_text_wherever_it_sits(
    rule: str, secret: str
) -> None:
    # A long text is searched for the rules' literals in windows: a secret at
    # the start, at the end, or cut by any window border is found all the same.
    filler = "lorem ipsum dolor sit amet " * 40_000  # about 1 MB: several windows
    for at in (0, len(filler), *range(262_144 - 12, 262_144 + 1), 2 * 262_144 - 5):
        text = f"{filler[:at]} {secret} {filler[at:]}"
        found = [(m.rule, text[m.start : m.end]) for m in find_secrets(text)]
        assert found == [(rule, secret)], at


def test_a_bearer_token_is_found_without_the_word_bearer() -> None:
    text = "Authorization: Bearer abcdefghijklmnop1234"
    [match] = find_secrets(text)
    assert (match.rule, text[match.start : match.end]) == ("bearer-token", "abcdefghijklmnop1234")


def test_a_secret_query_parameter_is_found_by_name() -> None:
    text = "GET https://host/x?alt=sse&key=short1234&x=1"
    [match] = find_secrets(text)
    assert text[match.start : match.end] == "short1234"


def test_ordinary_text_has_no_secrets() -> None:
    text = "The skeleton key (sk-1) is basic, and the bearer of news asked AI about it."
    assert find_secrets(text) == []


def test_a_placeholder_names_the_rule_has_the_width_and_is_no_secret_itself() -> None:
    for width in (3, 12, 60):
        text = placeholder("anthropic-key", width)
        assert len(text) == width
        assert find_secrets(text) == []
    assert placeholder("email", 20) == "[email*************]"


@pytest.mark.parametrize(
    ("name", "rule"),
    [("Authorization", "secret"), ("x-api-key", "secret"), ("X-Goog-Api-Key", "secret"),
     ("api-key", "secret"), ("openai-organization", "secret"), ("openai-project", "secret"),
     ("cookie", "secret"), ("set-cookie", "secret"), ("proxy-authorization", "secret"),
     ("x-auth-token", "secret"), ("x-forwarded-for", "client-address"),
     ("x-request-id", "request-id"), ("request-id", "request-id"), ("cf-ray", "request-id"),
     ("anthropic-ratelimit-tokens-remaining", None), ("content-type", None)],
)  # fmt: skip
def test_headers_are_treated_by_name(name: str, rule: str | None) -> None:
    assert header_rule(name) == rule


# -- what each string of a stream is ------------------------------------------------


@pytest.mark.parametrize(
    ("path", "parent", "root", "treatment"),
    [(("choices", 0, "delta", "content"), {}, {}, Treatment.TEXT),
     (("choices", 0, "delta", "tool_calls", 0, "function", "arguments"), {}, {},
      Treatment.JSON_TEXT),
     (("choices", 0, "delta", "tool_calls", 0, "function", "name"), {}, {}, Treatment.KEEP),
     (("choices", 0, "delta", "tool_calls", 0, "id"), {}, {}, Treatment.ID),
     (("id",), {}, {}, Treatment.ID), (("system_fingerprint",), {}, {}, Treatment.ID),
     (("delta", "partial_json"), {}, {}, Treatment.JSON_TEXT),
     (("delta", "signature"), {}, {}, Treatment.OPAQUE),
     (("content_block", "data"), {"type": "redacted_thinking"}, {}, Treatment.OPAQUE),
     (("delta",), {}, {"type": "response.function_call_arguments.delta"}, Treatment.JSON_TEXT),
     (("delta",), {}, {"type": "response.output_text.delta"}, Treatment.TEXT),
     (("response", "instructions"), {}, {}, Treatment.PROMPT),
     (("candidates", 0, "content", "parts", 0, "functionCall", "args", "city"), {}, {},
      Treatment.TEXT),
     (("candidates", 0, "content", "parts", 0, "thoughtSignature"), {}, {}, Treatment.OPAQUE),
     (("responseId",), {}, {}, Treatment.ID),
     (("error", "code"), {"message": "m"}, {}, Treatment.KEEP),
     (("error", "message"), {}, {}, Treatment.KEEP), (("type",), {}, {}, Treatment.KEEP)],
)  # fmt: skip
def test_strings_are_classified_by_the_key_they_sit_under(
    path: tuple[str | int, ...], parent: object, root: object, treatment: Treatment
) -> None:
    assert classify(path, parent, root) is treatment


def test_fragments_of_one_tool_call_share_a_stream_key_and_parallel_calls_do_not() -> None:
    def chunk(tool: int) -> dict[str, object]:
        return {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": tool}]}}]}

    path = ("choices", 0, "delta", "tool_calls", 0, "function", "arguments")
    assert stream_key(path, chunk(0)) == stream_key(path, chunk(0))
    assert stream_key(path, chunk(0)) != stream_key(path, chunk(1))
    anthropic = ("delta", "partial_json")
    assert stream_key(anthropic, {"index": 1}) != stream_key(anthropic, {"index": 2})


# -- the leak scan ----------------------------------------------------------------


def test_needles_include_json_url_and_base64_forms() -> None:
    forms = {form for form, _ in needles("a/b c+d@e.org-sécret")}
    assert forms == {"as is", "JSON-escaped", "URL-encoded", "base64", "case-folded"}


@pytest.mark.parametrize("prefix", [b"", b"x", b"xy", b"xyz"])
def test_a_secret_inside_a_longer_base64_text_is_found_at_any_alignment(prefix: bytes) -> None:
    secret = "sk-ant-api03-" + "q" * 30
    blob = base64.b64encode(prefix + b"header " + secret.encode() + b" trailer")
    [leak] = scan_outputs({"out.txt": b"data: " + blob}, {secret: "anthropic-key"})
    assert (leak.file, leak.rule, leak.form) == ("out.txt", "anthropic-key", "base64")


def test_a_secret_split_across_two_b64_chunks_of_a_capture_is_found() -> None:
    secret = "ghp_" + "Z" * 36
    body = f"data: {secret} П\n\n".encode()
    cut = body.index("П".encode()) + 1
    lines = [{"type": "chunk", "t": 0, "b64": base64.b64encode(body[:cut]).decode()},
             {"type": "chunk", "t": 1, "b64": base64.b64encode(body[cut:]).decode()}]  # fmt: skip
    capture = "".join(json.dumps(line) + "\n" for line in lines).encode()
    assert [leak.form for leak in scan_outputs({"c.jsonl": capture}, {secret: "github-token"})]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_secret_cut_across_text_chunks_is_found_whatever_ends_the_capture_lines(
    newline: str,
) -> None:
    secret = "sk-proj-" + "Q" * 40
    body = f"data: {secret}\n\n"
    cut = body.index("QQQ")
    lines = [{"type": "header", "format": "llm-stream-capture"},
             {"type": "chunk", "t": 0, "text": body[:cut]},
             {"type": "chunk", "t": 1, "text": body[cut:]}]  # fmt: skip
    capture = "".join(json.dumps(line) + newline for line in lines).encode()
    [leak] = scan_outputs({"c.jsonl": capture}, {secret: "openai-key"})
    where = (leak.file, leak.rule, leak.form)
    assert where == ("c.jsonl", "openai-key", "as is, in the stream body")


def test_a_leak_report_never_contains_the_secret() -> None:
    secret = "sk-proj-" + "S" * 40
    [leak] = scan_outputs({"f": f'{{"x": "{secret}"}}'.encode()}, {secret: "openai-key"})
    assert secret not in str(leak)
    assert "openai-key" in str(leak)


def test_capture_lines_write_each_chunk_as_chunk_record_does_with_the_exact_time() -> None:
    from inspector.capture_writer import chunk_record
    from inspector.core.trace import TransportEnd
    from inspector.export.capture_file import render_capture
    from inspector.inputs import Recording

    chunks = [(0.1234567891, b"data: {}\n\n"), (1.5, b"\xff\xfe not utf-8"), (2.0, "é".encode())]
    end = TransportEnd("done", 2.5, None)
    rec = Recording("x", "capture", {"type": "header"}, chunks, end)
    lines = render_capture(rec).splitlines()
    assert lines[0] == b'{"type":"header"}'
    for line, (time, data) in zip(lines[1:-1], chunks, strict=True):
        assert json.loads(line) == {**chunk_record(time, data), "t": time}
        assert list(json.loads(line)) == list(chunk_record(time, data))
    assert json.loads(lines[-1]) == {"type": "end", "t": 2.5, "reason": "done", "error": None}


def test_capture_pieces_stay_small_whatever_the_chunks_and_write_the_same_lines() -> None:
    # Large chunks come a few at a time: a piece (and the chunks held for it) is
    # bounded by bytes, not only by a count of chunks.
    from inspector.capture_writer import chunk_record
    from inspector.export.capture_file import _CAPTURE_BATCH_BYTES, capture_pieces

    big = [(i * 0.5, b"data: " + b"x" * 60_000 + b"\n\n") for i in range(40)]
    small = [(i * 0.001, b"data: {}\n\n") for i in range(1000)]
    mixed = [*small[:300], *big[:5], *small[300:], (9.0, b"\xff not utf-8")]
    for chunks in (big, small, mixed):
        pieces = list(capture_pieces({"type": "header"}, iter(chunks), None))
        largest_line = max(len(json.dumps(chunk_record(t, d))) + 1 for t, d in chunks)
        assert max(map(len, pieces[1:])) <= 2 * (_CAPTURE_BATCH_BYTES + largest_line)
        lines = b"".join(pieces[1:]).splitlines()
        assert [json.loads(line) for line in lines] == [
            {**chunk_record(t, d), "t": t} for t, d in chunks
        ]


def test_summarize_reads_compact_deltas_exactly_as_the_built_events() -> None:
    # summarize takes block.deltas from EventLog.compact without their dicts;
    # fed every event built whole it must give the same skeleton, counts and texts.
    from types import SimpleNamespace

    from benchmarks.streams import GENERATORS
    from inspector.core.normalizer import Normalizer
    from inspector.export.skeleton import summarize
    from inspector.session import load_trace

    from .golden import capture_files

    traces = [load_trace(path) for path in capture_files()]
    for provider in sorted(GENERATORS):
        normalizer = Normalizer(provider, "s")
        normalizer.feed_many([(0.0, GENERATORS[provider](20))])
        traces.append(normalizer.finish())
    compact_deltas = 0
    for trace in traces:
        whole = [(None, event, None) for event in trace.events]
        built = SimpleNamespace(events=SimpleNamespace(compact=lambda w=whole: iter(w)))
        built.state = trace.state
        assert summarize(trace, assemble=True) == summarize(built, assemble=True)  # type: ignore[arg-type]
        compact_deltas += sum(kind is not None for kind, _, _ in trace.events.compact())
    assert compact_deltas > 100
