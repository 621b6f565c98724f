"""What a drum pad's accelerometer looks like through the Linux input core, modelled for tests.

A motion-sensor node (INPUT_PROP_ACCELEROMETER) sends one frame per sample:

    EV_ABS ABS_X v, EV_ABS ABS_Y v, EV_ABS ABS_Z v, EV_MSC MSC_TIMESTAMP µs, EV_SYN SYN_REPORT

The driver (here uinput, fed by `evemu-play`) sends all three axes every frame, but a reader of
/dev/input/eventN does not see all of them: the input core (drivers/input/input.c) filters every
ABS value against the axis's last value with the axis's fuzz (`input_defuzz_abs_event`):

    |new - old| < fuzz/2      -> old                     (C integer division: 16/2 = 8)
    |new - old| < fuzz        -> (old*3 + new) / 4       (C division truncates toward zero)
    |new - old| < fuzz*2      -> (old + new) / 2
    otherwise                 -> new

and then drops the event when the filtered value equals the old one (`input_handle_abs_event`
returns INPUT_IGNORE_EVENT), so the axis keeps its last value and the reader sees no ABS event
for it in that frame. The stored value starts at the absinfo value the device was created with
(0 for an evemu description). MSC_TIMESTAMP always passes, so every frame reaches the reader
with at least MSC_TIMESTAMP + SYN_REPORT (the core drops a SYN_REPORT only from a frame that
carries nothing else).

uinput stamps events with its own clock when they are written, so a frame's time is taken from
MSC_TIMESTAMP: µs in an unsigned 32-bit counter that wraps every 2^32 µs (71.6 min). The kernel
carries event values as signed 32-bit, so evemu files print a counter >= 2^31 as a negative
number; unwrapping takes successive differences modulo 2^32.

This module is the one place the harness knows these rules: make_strikes.py uses it to write the
fixtures and their expected log, check_record.py to turn a recording made in the VM into a log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, List, Sequence, Tuple

EV_SYN, EV_ABS, EV_MSC = 0x00, 0x03, 0x04
SYN_REPORT, SYN_DROPPED = 0x00, 0x03
ABS_X, ABS_Y, ABS_Z = 0x00, 0x01, 0x02
MSC_TIMESTAMP = 0x05
AXES = (ABS_X, ABS_Y, ABS_Z)
U32 = 1 << 32


@dataclass(frozen=True)
class Event:
    """One `struct input_event`: time in µs (as an evemu file gives it), type, code, value."""

    time_us: int
    type: int
    code: int
    value: int


def c_div(a: int, b: int) -> int:
    """Integer division as C does it: truncates toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def defuzz(value: int, old: int, fuzz: int) -> int:
    """The kernel's input_defuzz_abs_event (drivers/input/input.c), to the letter."""
    if fuzz:
        if old - fuzz // 2 < value < old + fuzz // 2:
            return old
        if old - fuzz < value < old + fuzz:
            return c_div(old * 3 + value, 4)
        if old - fuzz * 2 < value < old + fuzz * 2:
            return c_div(old + value, 2)
    return value


def input_core(events: Iterable[Event], fuzz: int, initial: int = 0) -> List[Event]:
    """The events a reader of the node receives when a driver sends `events`.

    Applies the fuzz filter to ABS_X/Y/Z (all with the same fuzz, stored values starting at
    `initial`), drops ABS events whose filtered value does not change, and drops a SYN_REPORT
    whose frame is left empty. Other events pass unchanged.
    """
    stored = {code: initial for code in AXES}
    out: List[Event] = []
    frame_start = 0
    for ev in events:
        if ev.type == EV_ABS and ev.code in stored:
            value = defuzz(ev.value, stored[ev.code], fuzz)
            if value == stored[ev.code]:
                continue
            stored[ev.code] = value
            out.append(Event(ev.time_us, ev.type, ev.code, value))
        elif ev.type == EV_SYN and ev.code == SYN_REPORT:
            if len(out) > frame_start:
                out.append(ev)
            frame_start = len(out)
        else:
            out.append(ev)
    return out


@dataclass(frozen=True)
class Frame:
    """The device's state at one SYN_REPORT: raw axis values and the frame's MSC_TIMESTAMP."""

    timestamp: int  # u32 µs
    x: int
    y: int
    z: int


def frames(events: Iterable[Event], initial: Tuple[int, int, int] = (0, 0, 0)) -> List[Frame]:
    """One Frame per SYN_REPORT, as a reader that keeps the device state sees them.

    Axes not sent in a frame keep their last value (starting at `initial`). Raises ValueError on
    SYN_DROPPED (the reader lost events: the recording is not the whole stream) and on a frame
    without MSC_TIMESTAMP.
    """
    state = dict(zip(AXES, initial))
    stamp = None
    out: List[Frame] = []
    for ev in events:
        if ev.type == EV_ABS and ev.code in state:
            state[ev.code] = ev.value
        elif ev.type == EV_MSC and ev.code == MSC_TIMESTAMP:
            stamp = ev.value % U32
        elif ev.type == EV_SYN and ev.code == SYN_DROPPED:
            raise ValueError(f"SYN_DROPPED after {len(out)} frames: the reader lost events")
        elif ev.type == EV_SYN and ev.code == SYN_REPORT:
            if stamp is None:
                raise ValueError(f"frame {len(out)} (event time {ev.time_us} µs) has no MSC_TIMESTAMP")
            out.append(Frame(stamp, state[ABS_X], state[ABS_Y], state[ABS_Z]))
            stamp = None
    return out


def unwrap_us(timestamps: Sequence[int]) -> List[int]:
    """µs since the first timestamp, through wraps of the u32 counter (each step < 2^32 µs)."""
    out: List[int] = []
    total = 0
    for k, stamp in enumerate(timestamps):
        if k:
            total += (stamp - timestamps[k - 1]) % U32
        out.append(total)
    return out


Row = Tuple[float, float, float, float]


def sensor_rows(frame_list: Sequence[Frame], units_per_g: int) -> List[Row]:
    """(t s, x g, y g, z g) per frame: t from MSC_TIMESTAMP unwrapped, 0 at the first frame."""
    times = unwrap_us([f.timestamp for f in frame_list])
    return [(us / 1e6, f.x / units_per_g, f.y / units_per_g, f.z / units_per_g)
            for us, f in zip(times, frame_list)]


def format_sensor_log(rows: Iterable[Row], metadata: Sequence[Tuple[str, str]]) -> str:
    """A sensor log (docs/architecture.md, Sensor log CSV): t with 6 decimals (whole µs), g with 7 (error < 1e-7 g)."""
    lines = ["# drumpad sensor log v1"]
    lines += [f"# {key}: {value}" for key, value in metadata]
    lines.append("t,x,y,z")
    lines += [f"{t:.6f},{x:.7f},{y:.7f},{z:.7f}" for t, x, y, z in rows]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# evemu text


def format_event(ev: Event) -> str:
    """An evemu event line, `E: sec.usec type code value`, value as the kernel's signed int."""
    value = ev.value - U32 if ev.value >= 1 << 31 else ev.value
    return f"E: {ev.time_us // 1_000_000}.{ev.time_us % 1_000_000:06d} {ev.type:04x} {ev.code:04x} {value}"


def parse_events(text: str, where: str = "recording") -> Iterator[Event]:
    """The `E:` lines of an evemu recording (evemu-record output or a hand-written file)."""
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("E:"):
            continue
        fields = line[2:].split("#", 1)[0].split()
        try:
            seconds, micros = fields[0].split(".")
            yield Event(int(seconds) * 1_000_000 + int(micros), int(fields[1], 16),
                        int(fields[2], 16), int(fields[3]))
        except (ValueError, IndexError):
            raise ValueError(f"{where}:{number}: not an evemu event line: {line!r}") from None
