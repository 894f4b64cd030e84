"""Anonymizing one recording: the body byte for byte, the header record by rule."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from inspector.capture import Recording
from inspector.core.trace import TransportEnd
from inspector.export import anonymize
from inspector.export.rewrite import data_values

KEY = "sk-proj-" + "Q7" * 20


def chat(delta: dict[str, Any], **extra: Any) -> bytes:
    chunk = {"id": "chatcmpl-AbCdEf0123456789", "object": "chat.completion.chunk",
             "model": "gpt-4o", "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
             **extra}  # fmt: skip
    return b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n"


def recording(*chunks: bytes, header: dict[str, Any] | None = None) -> Recording:
    return Recording(
        "test.jsonl",
        "capture" if header is not None else "raw",
        header,
        [(i * 0.25, c) for i, c in enumerate(chunks)],
        TransportEnd("eof", 1.0),
    )


def body_of(rec: Recording, **options: bool) -> bytes:
    return anonymize(rec, **options).recording.body


def frames(body: bytes) -> list[Any]:
    return [orjson.loads(b"\n".join(body[s:e] for s, e in spans)) for spans in data_values(body)]


# -- the body keeps its length, syntax and offsets ---------------------------------


def test_keep_mode_changes_ids_only_and_keeps_every_json_document_valid() -> None:
    body = chat({"content": "Hello, world"}) + chat({"content": "!"})
    out = body_of(recording(body))
    assert len(out) == len(body)
    before, after = frames(body), frames(out)
    assert [f["choices"] for f in after] == [f["choices"] for f in before]
    assert after[0]["id"] == after[1]["id"] != before[0]["id"]
    assert after[0]["id"].startswith("chatcmpl-")


def test_mask_mode_masks_text_character_for_character() -> None:
    body = chat({"content": "Héllo 42, wörld!"})
    [frame] = frames(body_of(recording(body), mask_text=True))
    # "é" and "ö" take two bytes: their "x" is the two-byte Cyrillic "х".
    assert frame["choices"][0]["delta"]["content"] == "xхxxx 00, xхxxx!"


def test_mask_mode_masks_tool_argument_values_across_fragments_and_keeps_keys() -> None:
    def call(arguments: str) -> bytes:
        return chat({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]})

    body = call('{"city": "Pa') + call('ris", "days": 3, "tags": ["a') + call('"]}')
    out = frames(body_of(recording(body), mask_text=True))
    joined = "".join(
        f["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] for f in out
    )
    assert json.loads(joined) == {"city": "xxxxx", "days": 3, "tags": ["x"]}


def test_a_chunk_that_splits_a_utf8_character_still_splits_its_masked_form() -> None:
    body = chat({"content": "Привет"})
    cut = body.index("р".encode()) + 1  # inside the two bytes of "р"
    result = anonymize(recording(body[:cut], body[cut:]), mask_text=True).recording
    first, second = (data for _, data in result.chunks)
    assert (len(first), len(second)) == (cut, len(body) - cut)
    assert first.endswith("х".encode()[:1])
    assert second.startswith("х".encode()[1:])


def test_a_chunk_that_splits_a_json_escape_still_splits_it_at_the_same_byte() -> None:
    body = chat({"content": "é"}).replace("é".encode(), b"\\u00e9")
    cut = body.index(b"\\u00e9") + 3
    result = anonymize(recording(body[:cut], body[cut:]), mask_text=True).recording
    first, second = (data for _, data in result.chunks)
    assert first.endswith(b"\\u0") and second.startswith(b"445")


def test_times_and_chunk_sizes_are_kept() -> None:
    body = chat({"content": "abc def"}) * 3
    rec = recording(body[:7], body[7:40], body[40:])
    out = anonymize(rec, mask_text=True).recording
    assert [(t, len(d)) for t, d in out.chunks] == [(t, len(d)) for t, d in rec.chunks]
    assert out.end == rec.end


def test_a_data_value_over_several_lines_is_rewritten_in_place() -> None:
    body = b'data: {"choices": [{"index": 0,\ndata: "delta": {"content": "Secret words"}}]}\n\n'
    out = body_of(recording(body), mask_text=True)
    assert out == body.replace(b"Secret words", b"xxxxxx xxxxx")


def test_an_event_cut_short_at_the_end_is_masked_up_to_the_cut() -> None:
    body = chat({"content": "done"}) + b'data: {"choices": [{"index": 0, "delta": {"content": "Hal'
    out = body_of(recording(body), mask_text=True)
    assert out.endswith(b'"content": "xxx')


def test_past_malformed_json_the_rest_of_the_value_is_free_text() -> None:
    body = b'data: {"choices": oops Secret 42}\n\n'
    assert body_of(recording(body), mask_text=True) == b'data: {"choices": xxxx xxxxxx 00}\n\n'
    assert body_of(recording(body)) == body


def test_sentinels_comments_and_event_names_are_kept_but_searched_for_secrets() -> None:
    body = b": ping " + KEY.encode() + b"\n\nevent: message\ndata: [DONE]\n\n"
    out = body_of(recording(body), mask_text=True)
    assert KEY.encode() not in out
    assert out.startswith(b": ping [openai-key*")
    assert out.endswith(b"\n\nevent: message\ndata: [DONE]\n\n")
    assert len(out) == len(body)


def test_a_secret_split_across_two_deltas_is_removed_from_both() -> None:
    body = chat({"content": "key " + KEY[:10]}) + chat({"content": KEY[10:] + " end"})
    ledger = anonymize(recording(body)).ledger
    texts = [f["choices"][0]["delta"]["content"] for f in frames(body_of(recording(body)))]
    joined = "".join(texts)
    assert KEY not in joined
    assert joined == "key " + "[openai-key" + "*" * (len(KEY) - 12) + "] end"
    assert ledger.removed == {"openai-key": 1}


def test_a_secret_written_with_json_escapes_is_found() -> None:
    escaped = KEY.replace("-", "\\u002d").encode()
    body = b'data: {"choices": [{"index": 0, "delta": {"content": "' + escaped + b'"}}]}\n\n'
    out = body_of(recording(body))
    assert KEY not in json.loads(out[6:])["choices"][0]["delta"]["content"]
    assert len(out) == len(body)


def test_signatures_become_placeholders_of_the_same_length() -> None:
    signature = "EqQBCkYIBRgCKkBq+/Zz0123456789=="
    body = (
        b"event: content_block_delta\n"
        b'data: {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", '
        b'"signature": "' + signature.encode() + b'"}}\n\n'
    )
    [frame] = frames(body_of(recording(body)))
    replaced = frame["delta"]["signature"]
    assert len(replaced) == len(signature) and replaced != signature


def test_the_echoed_instructions_are_masked_unless_the_request_is_kept() -> None:
    body = (
        b'data: {"type": "response.created", "response": {"id": "resp_0123456789abcdef", '
        b'"instructions": "Be terse."}}\n\n'
    )
    assert frames(body_of(recording(body)))[0]["response"]["instructions"] == "xx xxxxx."
    kept = frames(body_of(recording(body), keep_request=True))[0]["response"]["instructions"]
    assert kept == "Be terse."


def test_an_http_error_body_is_read_as_json() -> None:
    body = json.dumps({"error": {"message": f"bad key {KEY}", "code": "invalid_api_key"}}).encode()
    rec = recording(body, header={"type": "header", "response": {"status": 401}})
    out = json.loads(anonymize(rec).recording.body)
    assert KEY not in out["error"]["message"]
    assert out["error"]["code"] == "invalid_api_key"


# -- the header record ----------------------------------------------------------------


def header_of(header: dict[str, Any], **options: bool) -> dict[str, Any]:
    rec = recording(chat({"content": "x"}), header={"type": "header", **header})
    result = anonymize(rec, **options).recording.header
    assert result is not None
    return result


def test_secret_headers_are_redacted_and_request_ids_pseudonymized() -> None:
    out = header_of({
        "request": {"headers": {"Authorization": f"Bearer {KEY}", "x-api-key": "k" * 20,
                                "content-type": "application/json"}},
        "response": {"headers": {"set-cookie": "a=b", "x-request-id": "req_0123456789abcdef",
                                 "openai-organization": "org-abc"}},
    })  # fmt: skip
    assert out["request"]["headers"] == {
        "Authorization": "[redacted]", "x-api-key": "[redacted]",
        "content-type": "application/json",
    }  # fmt: skip
    response = out["response"]["headers"]
    assert response["set-cookie"] == response["openai-organization"] == "[redacted]"
    assert response["x-request-id"].startswith("req_")
    assert response["x-request-id"] != "req_0123456789abcdef"


def test_headers_as_a_list_of_pairs_are_handled_too() -> None:
    out = header_of({"request": {"headers": [["x-goog-api-key", "AIza" + "z" * 35]]}})
    assert out["request"]["headers"] == [["x-goog-api-key", "[redacted]"]]


def test_the_url_loses_its_user_info_and_secret_query_parameters() -> None:
    url = "https://me:pw123456@host/v1/models/m:stream?alt=sse&key=AIzaXYZ&x=1"
    out = header_of({"request": {"url": url}})
    assert out["request"]["url"] == "https://host/v1/models/m:stream?alt=sse&x=1"


def test_the_prompt_is_removed_but_its_shape_kept() -> None:
    body = {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "Secret system prompt"},
            {"role": "assistant", "tool_calls": [{"id": "call_0123456789ab", "type": "function",
             "function": {"name": "lookup", "arguments": '{"q": "private"}'}}]},
            {"role": "tool", "tool_call_id": "call_0123456789ab", "content": "private result"},
        ],
        "tools": [{"type": "function", "function": {"name": "lookup", "description": "Find."}}],
    }  # fmt: skip
    out = header_of({"request": {"body": body}})["request"]["body"]
    system, assistant, tool = out["messages"]
    assert system == {"role": "system", "content": "[removed]"}
    call = assistant["tool_calls"][0]
    assert call["function"]["name"] == "lookup"
    assert json.loads(call["function"]["arguments"]) == {"q": "[removed]"}
    assert tool["content"] == "[removed]"
    assert tool["tool_call_id"] == call["id"] != "call_0123456789ab"
    assert out["tools"] == body["tools"]


def test_keep_request_keeps_the_prompt_but_not_its_secrets() -> None:
    body = {"messages": [{"role": "user", "content": f"Hello, my key is {KEY}"}]}
    out = header_of({"request": {"body": body}}, keep_request=True)["request"]["body"]
    assert (
        out["messages"][0]["content"]
        == "Hello, my key is [openai-key" + "*" * (len(KEY) - 12) + "]"
    )


def test_ids_in_the_request_match_their_pseudonyms_in_the_stream() -> None:
    stream = chat({"tool_calls": [{"index": 0, "id": "call_SameIdEverywhere01",
                                   "function": {"name": "f", "arguments": "{}"}}]})  # fmt: skip
    header = {"type": "header", "request": {"body": {"messages": [
        {"role": "tool", "tool_call_id": "call_SameIdEverywhere01", "content": "r"}]}}}  # fmt: skip
    result = anonymize(recording(stream, header=header)).recording
    assert result.header is not None
    in_request = result.header["request"]["body"]["messages"][0]["tool_call_id"]
    [frame] = frames(result.body)
    assert frame["choices"][0]["delta"]["tool_calls"][0]["id"] == in_request


def test_the_transport_error_text_is_scrubbed() -> None:
    rec = recording(chat({"content": "x"}), header={"type": "header"})
    rec.end = TransportEnd("reset", 2.0, f"reset while using {KEY}")
    end = anonymize(rec).recording.end
    assert end is not None and KEY not in (end.error or "")
    assert (end.reason, end.time) == ("reset", 2.0)


# -- the fast path: documents of a shape seen before ------------------------------


def _all_bodies() -> list[tuple[str, bytes]]:
    from pathlib import Path

    from inspector.capture import load_recording

    corpus = Path(__file__).parent / "data" / "export"
    found = [(p.name, load_recording(p).body) for p in sorted(corpus.iterdir())
             if p.suffix in (".jsonl", ".sse") and p.name != "planted.json"]  # fmt: skip
    key = "sk-proj-" + "Q" * 40
    escaped = key.replace("-", "\\\\u002d")
    frames = [
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": f'{{"k": "{escaped[:9]}'}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": escaped[9:] + '"}'}},
        {"type": "content_block_delta", "index": 1,
         "delta": {"type": "text_delta", "text": "Привет a1 \u00e9 \\ \" mail me@example.org"}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "x"}},
        {"id": "msg_1", "a1": "b", "a2": "c"}, {"id": "msg_1", "a2": "b", "a1": "c"},
    ]  # fmt: skip
    body = b"".join(b"data: " + orjson.dumps(f) + b"\n\n" for f in frames * 3)
    found.append(("escapes", body))
    # Two choices of one shape interleaved, each spelling half a key in turn: the
    # stream key (choice index, a number) keeps them apart, the same id repeats,
    # and a Responses-style item_id (a string) tells two texts apart too.
    halves = (key[:20], key[20:])
    interleaved = [
        {"id": "chatcmpl-1", "choices": [{"index": i, "delta": {"content": halves[n % 2]}}]}
        for n in range(4) for i in (0, 1)
    ] + [
        {"type": "response.output_text.delta", "item_id": item, "output_index": 0,
         "content_index": 0, "delta": half}
        for half in halves for item in ("msg_a", "msg_b")
    ]  # fmt: skip
    body = b"".join(b"data: " + orjson.dumps(f) + b"\n\n" for f in interleaved)
    found.append(("interleaved", body))
    return found


@pytest.mark.parametrize("mask", [False, True], ids=["keep", "mask"])
def test_the_shape_cache_rewrites_exactly_like_reading_every_document_afresh(
    monkeypatch: pytest.MonkeyPatch, mask: bool
) -> None:
    from inspector.export import rewrite
    from inspector.export.ledger import Context
    from inspector.export.pseudonyms import Pseudonymizer

    def run(
        body: bytes, shortcuts: rewrite.Shortcuts = rewrite.FAST
    ) -> tuple[bytes, dict[str, int]]:
        ctx = Context(Pseudonymizer(b"key"), mask_text=mask)
        whole_json = body.lstrip()[:1] in (b"{", b"[")
        out = rewrite.rewrite_body(body, ctx, whole_json=whole_json, shortcuts=shortcuts)
        return out, dict(ctx.ledger.removed)

    bodies = _all_bodies()
    fast = [run(body) for _, body in bodies]
    slow = [run(body, rewrite.Shortcuts(templates=False)) for _, body in bodies]
    for (name, _), a, b in zip(bodies, fast, slow, strict=True):
        assert a == b, name


@pytest.mark.parametrize("max_nuls", [4096, -1], ids=["mask-given-up", "mask-kept"])
def test_the_final_scan_tells_covered_bytes_from_nul_bytes_of_the_stream(
    monkeypatch: pytest.MonkeyPatch, max_nuls: int
) -> None:
    # The final scan reads covered bytes as NUL; a NUL the stream itself holds
    # outside strings is not covered, so a secret around it is still removed,
    # while one inside a handled string (a NUL right after it) is left to that string.
    from inspector.export.rewrite import outside

    monkeypatch.setattr(outside, "_MAX_NULS", max_nuls)
    pem = b"-----BEGIN RSA PRIVATE KEY-----\x00MIIEabc\x00-----END RSA PRIVATE KEY-----"
    body = (
        b": \x00" + KEY.encode() + b"\x00\n\n"
        + chat({"content": "nul \x00" + KEY + "\x00 end"})
        + b"event: e\x00" + KEY.encode() + b"\ndata: {}\n\n"
        + b": " + pem + b"\n\n"
    )  # fmt: skip
    out = body_of(recording(body))
    assert KEY.encode() not in out
    assert len(out) == len(body)
    assert out.count(b"[openai-key") == 3
    assert b"MIIE" not in out
    assert out.endswith(b"[private-key" + b"*" * (len(pem) - 13) + b"]\n\n")
    assert out.startswith(b": \x00[openai-key")
    texts = [f["choices"][0]["delta"]["content"] for f in frames(out) if f]
    assert texts == ["nul \x00[openai-key" + "*" * (len(KEY) - 12) + "]\x00 end"]


NUL_PIECES = [
    chat({"content": "plain"}),
    chat({"content": KEY}),
    chat({"content": "nul \x00" + KEY[:10]}),
    b'data: {"choices": [{"delta": {"content": "broken \x00' + KEY.encode() + b"\x00\n\n",
    b'data: {"id": "x\x00y", "choices": [{"delta": {"content": "a\x00'
    + KEY.encode()
    + b'"}}]}\n\n',
    b": \x00" + KEY.encode() + b"\n\n",
    b"event: e\x00" + KEY[:20].encode() + b"\ndata: {}\n\n",
    b"data: \x00\x00\n\n",
    b"\x00" + KEY.encode()[:12],
    # covered ranges wider than the ones blanked from a NUL string of their own width
    chat({"content": "w" * 1100 + "\x00" + KEY}),
    chat({"content": "v" * 5000}),
    b": -----BEGIN RSA PRIVATE KEY-----\n\n",
    b": -----END RSA PRIVATE KEY-----\n\n",
]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(NUL_PIECES), max_size=12))
@example([NUL_PIECES[-2], NUL_PIECES[7], NUL_PIECES[-1]])  # a key's block around covered NULs
def test_the_final_scan_gives_the_same_body_whether_it_keeps_a_mask_or_not(
    pieces: list[bytes],
) -> None:
    # Two ways to tell covered bytes from the stream's own NULs: the covered
    # bytes blanked in place and put back (few NULs), or a mask of them
    # (many NULs). They must remove exactly the same secrets.
    from inspector.export.rewrite import outside

    body = b"".join(pieces)
    outputs = []
    for max_nuls in (1 << 20, -1):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(outside, "_MAX_NULS", max_nuls)
            outputs.append(body_of(recording(body)))
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) == len(body)
