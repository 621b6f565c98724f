#!/usr/bin/python3
"""A JACK MIDI client (python3-jack-client) that plays notes into a port, each at a JACK frame.

    jack_send.py DEST_PORT SPACING_FRAMES CHANNEL:NOTE:VELOCITY ...

Connects its output port to DEST_PORT (saying `connected`), waits a second, then sends the notes one after another, SPACING_FRAMES
apart, the first about 0.1 s on, each a note-on at its frame (and its note-off 1000 frames
later). Prints `sent FRAME CHANNEL NOTE VELOCITY` per note (FRAME on JACK's frame clock) and
`done` once every note has been written, then stays in the graph until stopped (at most a
minute). The server is $JACK_DEFAULT_SERVER's.
"""
import sys
import threading
import time

import jack

dest, spacing = sys.argv[1], int(sys.argv[2])
notes = [tuple(int(x) for x in arg.split(":")) for arg in sys.argv[3:]]
client = jack.Client("midi-sender", no_start_server=True)
port = client.midi_outports.register("out")
pending = []  # (frame, bytes), in order
lock = threading.Lock()
done = threading.Event()
loaded = False


@client.set_process_callback
def process(frames):
    port.clear_buffer()
    start = client.last_frame_time
    with lock:
        while pending and pending[0][0] < start + frames:
            frame, message = pending.pop(0)
            port.write_midi_event(max(0, frame - start), message)
        if loaded and not pending:
            done.set()


client.activate()
client.connect(port, dest)
# A client joining the graph can cost an xrun: the notes start a second after it says so.
print("connected", flush=True)
time.sleep(1.0)
base = client.frame_time + client.samplerate // 10
events = []
for k, (channel, note, velocity) in enumerate(notes):
    frame = base + k * spacing
    events.append((frame, bytes([0x90 | (channel - 1), note, velocity])))
    events.append((frame + 1000, bytes([0x80 | (channel - 1), note, 64])))
    print(f"sent {frame} {channel} {note} {velocity}", flush=True)
with lock:
    pending.extend(sorted(events, key=lambda e: e[0]))
    loaded = True
if not done.wait(timeout=30):
    print("timed out", flush=True)
    sys.exit(1)
print("done", flush=True)
# Leaving the graph can cost an xrun too: stay until stopped (SIGTERM), at most a minute.
time.sleep(60)
client.deactivate()
client.close()
