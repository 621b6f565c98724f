"""Tests of tools/bench/jack-load's reading of the brain's lines and jack_midi_dump's output,
and of its pairing of each hit with its note-on.

Run from the repository root: python3 -m pytest -q tools/bench
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = importlib.machinery.SourceFileLoader("jack_load_tool", os.path.join(HERE, "jack-load"))
_spec = importlib.util.spec_from_loader("jack_load_tool", _loader)
jack_load = importlib.util.module_from_spec(_spec)
_loader.exec_module(jack_load)

LINES = """hit drum=snare velocity=0.800 pad=pad-1 latency_us=120 strike_us=5000 frame=300 brain_us=2100
dropped drum=snare reason=queue_full
hit drum=kick velocity=1.000 pad=pad-2 frame=130 brain_us=900
hit drum=snare velocity=0.800 pad=pad-3 frame=385
"""

DUMP = """    2: 99 24 7f note on  (channel  9): pitch  36, velocity 127
   44: 99 26 66 note on  (channel  9): pitch  38, velocity 102
   44: 89 24 40 note off (channel  9): pitch  36, velocity  64
    1: 99 26 66 note on  (channel  9): pitch  38, velocity 102
"""


def test_the_brains_hits_and_the_dumps_note_ons_are_read():
    assert jack_load.hits_of(LINES) == [(300, "snare", 2100), (130, "kick", 900), (385, "snare", -1)]
    assert jack_load.note_ons(DUMP) == [(2, 36), (44, 38), (1, 38)]
    assert jack_load.note_ons("  1410: 99 26 66 note on  (channel  9): pitch  38, velocity 102") == [(1410, 38)]


def test_each_note_pairs_with_its_hit_through_xruns_and_lost_notes():
    # Hits at frames 130, 300, 385, 1000; the dump's clock 1280 frames (10 periods) ahead.
    played = [(130, "snare", 0), (300, "snare", 0), (385, "snare", 0), (1000, "snare", 0)]
    ons = [(1410, 38), (1580, 38), (1665, 38), (2280, 38)]
    assert jack_load.compare(played, ons) == (4, 0, 0)
    # An xrun: the dump's clock a period further on from the third note.
    assert jack_load.compare(played, [(1410, 38), (1580, 38), (1793, 38), (2408, 38)]) == (4, 0, 0)
    # The second hit's note lost.
    assert jack_load.compare(played, [(1410, 38), (1665, 38), (2280, 38)]) == (3, 0, 1)
    # A note one frame off its hit's offset (and so that hit without a note at its offset).
    assert jack_load.compare(played, [(1410, 38), (1581, 38), (1665, 38), (2280, 38)]) == (3, 1, 1)
    # The last hit's note missing.
    assert jack_load.compare(played, ons[:3]) == (3, 0, 1)


def test_the_xruns_come_from_the_brains_summary():
    assert jack_load.xruns_of("audio: 25570 sounds started, 3 underruns, 0 hits for drums") == 3
    assert jack_load.xruns_of("nothing") is None
