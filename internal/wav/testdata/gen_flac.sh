#!/bin/sh
# Writes stereo.wav (0.25 s of two 16-bit channels at 8 kHz: a tone and a
# chirp, from Python's math module) and stereo.flac, the same samples
# encoded by Debian's reference FLAC encoder (apt-get install flac), for
# TestDecodeFLAC: FLAC is lossless, so both decode to the same samples.
# Run from the repository root: sh internal/wav/testdata/gen_flac.sh
set -e
cd internal/wav/testdata
/usr/bin/python3 - <<'PY'
import math, struct
rate, n = 8000, 2000
frames = b"".join(struct.pack("<hh", int(12000 * math.sin(2 * math.pi * 440 * i / rate)),
                              int(-20000 * math.sin(2 * math.pi * (100 + i / 4) * i / rate))) for i in range(n))
hdr = b"RIFF" + struct.pack("<I", 36 + len(frames)) + b"WAVE" + b"fmt " + struct.pack("<IHHIIHH", 16, 1, 2, rate, rate * 4, 4, 16)
open("stereo.wav", "wb").write(hdr + b"data" + struct.pack("<I", len(frames)) + frames)
PY
flac --silent --force --best -o stereo.flac stereo.wav
