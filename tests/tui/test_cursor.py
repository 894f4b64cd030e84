"""The cursor's moves, search, breakpoints and timed playback (no terminal needed)."""

from __future__ import annotations

from inspector.viewmodel.cursor import SPEEDS, Cursor, Player
from inspector.viewmodel.index import TraceIndex

from .scripted import scripted_trace

# frame: 0 start | 1 open text + delta | 2 delta | 3 close | 4 ping | 5 open tool |
#        6 delta | 7 delta | 8 close | 9 finish      (10 ms apart; end of bytes at 9 s)
STREAM = [
    [["start"]],
    [["open", 0, "text"], ["delta", 0, "text", "Checking the "]],
    [["delta", 0, "text", "schedule."]],
    [["close", 0]],
    [["ping"]],
    [["open", 1, "tool_call"]],
    [["delta", 1, "json_text", '{"date": ']],
    [["delta", 1, "json_text", '"2026-07-23"}']],
    [["close", 1]],
    [["finish"]],
]


def cursor_at(position: int = 0, frames: list[list[list[object]]] = STREAM) -> Cursor:
    return Cursor(TraceIndex(scripted_trace(frames)), position)


def test_the_cursor_starts_on_a_frame_with_its_newest_event_selected() -> None:
    cursor = cursor_at(1)
    assert (cursor.position, cursor.k, cursor.event) == (1, 3, 2)


def test_moves_are_clamped_between_before_the_first_frame_and_the_end_of_bytes() -> None:
    cursor = cursor_at(0)
    assert cursor.home() and (cursor.position, cursor.event, cursor.k) == (-1, None, 0)
    assert not cursor.step(-1)
    assert cursor.end() and cursor.position == 10 and cursor.on_end_row
    assert not cursor.step(1)
    assert cursor.frame is None


def test_next_event_walks_the_events_of_one_frame_before_moving_on() -> None:
    cursor = cursor_at(0)
    cursor.step_event(1)
    assert (cursor.position, cursor.event) == (1, 1)  # block.start of frame 1
    cursor.step_event(1)
    assert (cursor.position, cursor.event) == (1, 2)  # its delta, same frame
    cursor.step_event(1)
    assert (cursor.position, cursor.event) == (2, 3)
    cursor.step_event(-1)
    cursor.step_event(-1)
    assert (cursor.position, cursor.event) == (1, 1)


def test_k_counts_the_events_as_of_the_selected_event_not_the_whole_frame() -> None:
    cursor = cursor_at(0)
    cursor.step_event(1)  # frame 1 produced block.start and a delta: select the first
    assert (cursor.position, cursor.event, cursor.k, cursor.frame_k) == (1, 1, 2, 3)
    assert cursor.index.blocks[0].text.text_at(cursor.k)[0] == ""
    cursor.step_event(1)
    assert (cursor.k, cursor.frame_k) == (3, 3)
    assert cursor.index.blocks[0].text.text_at(cursor.k)[0] == "Checking the "
    cursor.step(1)  # a frame step selects that frame's last event again
    assert (cursor.position, cursor.k, cursor.frame_k) == (2, 4, 4)


def test_previous_event_from_the_first_goes_before_the_first_frame() -> None:
    cursor = cursor_at(0)
    assert cursor.step_event(-1)
    assert (cursor.position, cursor.event) == (-1, None)
    assert not cursor.step_event(-1)


def test_selecting_an_event_moves_to_its_frame() -> None:
    cursor = cursor_at(0)
    assert cursor.select_event(8)
    assert (cursor.position, cursor.event) == (7, 8)
    assert not cursor.select_event(99)


def test_next_problem_jumps_to_the_violation_and_its_error() -> None:
    frames = [[["start"], ["open", 0, "text"]], [["ping"]], [["delta", 7, "text", "x"]], [["ping"]]]
    cursor = cursor_at(0, frames)
    assert cursor.next_problem()
    assert cursor.position == 2
    assert cursor.index.trace.events[cursor.event or 0]["type"] == "stream.error"
    assert not cursor.next_problem()


def test_search_finds_text_in_frames_and_events_and_wraps_around() -> None:
    cursor = cursor_at(0)
    hit = cursor.search("SCHEDULE")
    assert hit is not None and (hit.position, hit.wrapped) == (2, False)
    cursor.goto(hit.position)
    hit = cursor.search("schedule")
    assert hit is not None and (hit.position, hit.wrapped) == (2, True)
    # The tool's name is only in the normalized event here, not in the frame's bytes.
    hit = cursor.search("get_weather")
    assert hit is not None and hit.position == 5
    assert cursor.search("") is None


def test_breakpoints_on_a_frame_label_or_an_event_type() -> None:
    cursor = cursor_at(4)
    assert cursor.frame_breakpoint() == ("frame", "message")
    assert cursor.toggle(("event", "block.stop"))
    assert [p for p in range(10) if cursor.hits_breakpoint(p)] == [3, 8]
    assert not cursor.toggle(("event", "block.stop"))
    assert not cursor.hits_breakpoint(3)


def test_play_moves_with_the_recorded_timing() -> None:
    cursor = cursor_at(-1)
    player = Player(cursor)
    player.start(now=100.0)
    assert not player.tick(100.005)  # frame 0 arrives at 10 ms
    assert player.tick(100.025) and cursor.position == 1
    assert player.tick(100.065) and cursor.position == 5
    assert player.playing


def test_play_stops_on_a_breakpoint_and_at_the_end() -> None:
    cursor = cursor_at(-1)
    cursor.toggle(("event", "block.stop"))
    player = Player(cursor)
    player.start(now=0.0)
    player.tick(1.0)
    assert (cursor.position, player.playing, player.stopped_by) == (3, False, "breakpoint")
    player.start(now=1.0)
    player.tick(2.0)
    assert cursor.position == 8 and player.stopped_by == "breakpoint"
    player.start(now=2.0)
    player.tick(20.0)
    assert cursor.at_end and player.stopped_by == "end"


def test_playing_from_the_end_starts_over() -> None:
    cursor = cursor_at(0)
    cursor.end()
    player = Player(cursor)
    player.start(now=0.0)
    assert cursor.position == -1


def test_speed_steps_through_the_table_and_keeps_the_clock_continuous() -> None:
    cursor = cursor_at(-1)
    player = Player(cursor)
    player.start(now=0.0)
    player.tick(0.02)
    assert cursor.position == 1
    assert player.change_speed(1, now=0.02) == 2.0
    player.tick(0.031)  # 11 ms more at 2x: stream time 0.042
    assert cursor.position == 3
    for _ in range(20):
        player.change_speed(1, now=0.03)
    assert player.speed == SPEEDS[-1]
