"""The fault vocabulary and the playback plan: which bytes go out, when, and how it ends."""

from __future__ import annotations

import pytest

from inspector.serve.faults import (
    Close,
    FaultError,
    Faults,
    Send,
    Stall,
    frame_ends,
    parse_faults,
    plan,
)

BODY = b"data: one\n\ndata: two\n\ndata: [DONE]\n\n"
CHUNKS = [(0.0, BODY[:15]), (0.5, BODY[15:]), (1.0, b"")]
PING = b": ping\n\n"


def sent(steps: list) -> bytes:
    return b"".join(s.data for s in steps if isinstance(s, Send))


def test_without_faults_every_chunk_is_sent_at_its_time_then_a_clean_close() -> None:
    assert plan(CHUNKS, Faults(), speed=1.0, ping=PING) == [
        Send(0.0, BODY[:15]),
        Send(0.5, BODY[15:]),
        Close("cut"),
    ]


def test_speed_divides_the_times_and_zero_means_no_delays() -> None:
    assert [s.at for s in plan(CHUNKS, Faults(), speed=2.0, ping=PING)[:2]] == [0.0, 0.25]
    assert [s.at for s in plan(CHUNKS, Faults(), speed=0.0, ping=PING)[:2]] == [0.0, 0.0]
    assert [s.at for s in plan(CHUNKS, Faults(speed=0.5), speed=0, ping=PING)[:2]] == [0.0, 1.0]


@pytest.mark.parametrize("how", ["cut", "drop", "reset"])
def test_the_body_ends_after_n_bytes_the_way_asked(how: str) -> None:
    steps = plan(CHUNKS, Faults(**{how: 20}), speed=0, ping=PING)
    assert sent(steps) == BODY[:20]
    assert steps[-1] == Close(how)


def test_an_end_past_the_body_sends_it_all() -> None:
    steps = plan(CHUNKS, Faults(reset=10_000), speed=0, ping=PING)
    assert sent(steps) == BODY
    assert steps[-1] == Close("reset")


def test_a_recording_that_ended_broken_is_replayed_broken_unless_asked_otherwise() -> None:
    assert plan(CHUNKS, Faults(), speed=0, ping=PING, recorded_close="reset")[-1] == Close("reset")
    assert plan(CHUNKS, Faults(cut=5), speed=0, ping=PING, recorded_close="reset")[-1] == Close(
        "cut"
    )


def test_rechunking_keeps_every_byte_and_the_time_of_its_first_byte() -> None:
    steps = plan(CHUNKS, Faults(chunk=1), speed=1.0, ping=PING)
    pieces = [s for s in steps if isinstance(s, Send)]
    assert [len(p.data) for p in pieces] == [1] * len(BODY)
    assert sent(steps) == BODY
    assert (pieces[14].at, pieces[15].at) == (0.0, 0.5)


def test_a_stall_with_pings_waits_for_the_next_frame_boundary() -> None:
    steps = plan(CHUNKS, Faults(stall=3, stall_at=13, ping_every=0.5), speed=0, ping=PING)
    stall = steps.index(Stall(3.0, 0.5, PING))
    assert (
        b"".join(s.data for s in steps[:stall] if isinstance(s, Send))
        == b"data: one\n\ndata: two\n\n"
    )
    assert sent(steps) == BODY


def test_a_silent_stall_happens_exactly_at_the_byte_asked() -> None:
    steps = plan(CHUNKS, Faults(stall=3, stall_at=13, ping_every=0), speed=0, ping=PING)
    stall = steps.index(Stall(3.0, 0.0, PING))
    assert b"".join(s.data for s in steps[:stall] if isinstance(s, Send)) == BODY[:13]


def test_a_stall_past_the_end_happens_before_the_close() -> None:
    steps = plan(CHUNKS, Faults(stall=1, stall_at=10_000, ping_every=0.1), speed=0, ping=PING)
    assert isinstance(steps[-2], Stall) and isinstance(steps[-1], Close)


def test_frame_boundaries_are_ends_of_events_not_of_comment_lines() -> None:
    assert frame_ends(b"data: a\n: c\ndata: b\n\ndata: x\r\n\r\ndata: y") == [21, 32]


def test_faults_from_the_query_and_from_the_header_the_query_winning() -> None:
    faults = parse_faults({"chunk": "3", "alt": "sse"}, "reset=100; chunk=7, stall=0.5")
    assert faults == Faults(reset=100, chunk=3, stall=0.5)
    assert faults.describe() == "reset=100 stall=0.5 chunk=3"


@pytest.mark.parametrize(
    ("query", "header", "message"),
    [
        ({"cut": "ten"}, None, "fault cut='ten': expected a whole number"),
        ({"chunk": "0"}, None, "fault chunk='0': expected a whole number of bytes from 1"),
        ({"stall": "-1"}, None, "expected seconds"),
        ({"status": "200"}, None, "expected an HTTP error status"),
        ({"cut": "1", "reset": "2"}, None, "cut and reset all end the body"),
        ({}, "explode=1", "unknown fault 'explode'"),
        ({}, "reset", "is not NAME=VALUE"),
    ],
)
def test_bad_fault_requests_are_refused_with_a_reason(
    query: dict[str, str], header: str | None, message: str
) -> None:
    with pytest.raises(FaultError, match=message):
        parse_faults(query, header)
