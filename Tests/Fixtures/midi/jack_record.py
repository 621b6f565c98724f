#!/usr/bin/python3
"""Records JACK ports into one WAV file (32-bit float, one channel per port), every port from
the same JACK period, so their onsets can be compared to the frame (python3-jack-client).

    jack_record.py OUT.wav SECONDS PORT...

Prints `recording` once its ports are connected and it is recording, and `wrote OUT.wav FRAMES`
at the end. The server is $JACK_DEFAULT_SERVER's.
"""
import struct
import sys
import threading

import jack

out, seconds, sources = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
client = jack.Client("recorder", no_start_server=True)
inputs = [client.inports.register(f"in_{k}") for k in range(len(sources))]
chunks = [[] for _ in sources]
wanted = int(seconds * client.samplerate)
got = 0
started = threading.Event()
finished = threading.Event()


@client.set_process_callback
def process(frames):
    global got
    if not started.is_set() or finished.is_set():
        return
    for port, chunk in zip(inputs, chunks):
        chunk.append(bytes(port.get_buffer()))
    got += frames
    if got >= wanted:
        finished.set()


client.activate()
for source, port in zip(sources, inputs):
    client.connect(source, port)
started.set()
print("recording", flush=True)
if not finished.wait(timeout=seconds * 4 + 30):
    print("timed out", flush=True)
    sys.exit(1)
client.deactivate()
# Interleave the channels' float32 samples.
channels = [b"".join(c) for c in chunks]
frames = min(len(c) for c in channels) // 4
samples = [struct.unpack(f"<{frames}f", c[: frames * 4]) for c in channels]
data = bytearray()
for i in range(frames):
    for s in samples:
        data += struct.pack("<f", s[i])
rate, n = client.samplerate, len(channels)
header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE"
header += b"fmt " + struct.pack("<IHHIIHH", 16, 3, n, rate, rate * n * 4, n * 4, 32)
header += b"data" + struct.pack("<I", len(data))
with open(out, "wb") as f:
    f.write(header + data)
print(f"wrote {out} {frames}", flush=True)
client.close()
