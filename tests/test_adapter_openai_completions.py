"""OpenAI legacy Completions (and compatible servers): whole normalized sequences."""

from __future__ import annotations

from .framing_support import compact, run, sse

START = ("stream.start", "openai-completions", None, "gpt-3.5-turbo-instruct")


def chunk(text: str, reason: str | None = None, index: int = 0) -> dict[str, object]:
    return {
        "id": "cmpl-1",
        "object": "text_completion",
        "model": "gpt-3.5-turbo-instruct",
        "choices": [{"text": text, "index": index, "logprobs": None, "finish_reason": reason}],
    }


def completions(*frames: dict[str, object] | str) -> list[tuple[object, ...]]:
    return compact(run([sse(frames)], "openai-completions", "sse"))


def test_text_finish_reason_usage_then_done() -> None:
    usage = {
        "object": "text_completion",
        "choices": [],
        "usage": {"prompt_tokens": 4, "completion_tokens": 2},
    }
    assert completions(chunk("Hel"), chunk("lo"), chunk("", "stop"), usage, "[DONE]") == [
        START,
        ("block.start", 0, "text", "text"),
        ("block.delta", 0, "text", "Hel"),
        ("block.delta", 0, "text", "lo"),
        ("block.stop", 0),
        ("stream.done", "stop", "stop", (4, 2)),
    ]


def test_length() -> None:
    assert completions(chunk("a", "length"), "[DONE]")[-1] == (
        "stream.done",
        "length",
        "length",
        (None, None),
    )


def test_a_finish_reason_without_done_is_interrupted() -> None:
    trace = run([sse([chunk("a"), chunk("", "stop")])], "openai-completions", "sse")
    assert trace.outcome == "interrupted (transport)"
    assert "[DONE] never did" in trace.terminal_event["error"]["message"]  # type: ignore[index]


def test_done_without_a_finish_reason_closes_warns_and_completes_other() -> None:
    assert completions(chunk("a"), "[DONE]") == [
        START,
        ("block.start", 0, "text", "text"),
        ("block.delta", 0, "text", "a"),
        ("block.stop", 0),
        ("stream.warning", "no_finish_reason"),
        ("stream.done", "other", None, (None, None)),
    ]


def test_an_error_chunk_fails() -> None:
    events = completions(chunk("a"), {"error": {"message": "overloaded", "type": "server_error"}})
    assert events[-1] == ("stream.error", "failed", "server_error", "server_error")


# Several choices (v1.1): tests/test_several_choices.py.


def test_an_unmapped_field_warns_once_with_its_path_and_the_text_still_flows() -> None:
    frames: list[dict[str, object] | str] = [chunk("a"), chunk("b"), chunk("c"), chunk("", "stop")]
    frames[1]["choices"][0]["tokens"] = [1]  # type: ignore[index]
    frames[2]["choices"][0]["tokens"] = [2]  # type: ignore[index]
    frames[2]["x_server"] = "v"  # type: ignore[index]
    trace = run([sse([*frames, "[DONE]"])], "openai-completions", "sse")
    warnings = [e["path"] for e in trace.events if e.get("code") == "unread_field"]
    assert warnings == ["choices[].tokens", "x_server"]
    texts = [e["delta"]["text"] for e in trace.events if e["type"] == "block.delta"]
    assert texts == ["a", "b", "c"]


def test_vllm_stop_reason_and_logprobs_are_read_only_to_be_ignored() -> None:
    last = chunk("", "stop")
    last["choices"][0].update(stop_reason="\n", logprobs={"tokens": ["x"]})  # type: ignore[index]
    assert ("stream.warning", "unread_field") not in completions(chunk("a"), last, "[DONE]")
