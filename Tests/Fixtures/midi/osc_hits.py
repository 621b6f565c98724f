#!/usr/bin/python3
"""Plays hits into a brain over one OSC-over-TCP connection, as a network client would.

    osc_hits.py PORT SPACING_SECONDS DRUM:VELOCITY ...

Connects to 127.0.0.1:PORT (saying `connected`), waits a second, then sends each
`/drum/hit s DRUM f VELOCITY` SPACING_SECONDS apart (OSC 1.0 over TCP: each packet after its
length in 4 bytes, big-endian), and says `done`. One process for the whole take: a process
started for each hit (oscsend) loads a busy machine enough to make a JACK server's periods late.
"""
import socket
import struct
import sys
import time


def padded(text):
    data = text.encode() + b"\0"
    return data + b"\0" * (-len(data) % 4)


port, spacing = int(sys.argv[1]), float(sys.argv[2])
hits = [(drum, float(velocity)) for drum, velocity in (arg.split(":") for arg in sys.argv[3:])]
with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
    print("connected", flush=True)
    time.sleep(1.0)
    for drum, velocity in hits:
        packet = padded("/drum/hit") + padded(",sf") + padded(drum) + struct.pack(">f", velocity)
        connection.sendall(struct.pack(">I", len(packet)) + packet)
        time.sleep(spacing)
    time.sleep(0.2)
print("done", flush=True)
