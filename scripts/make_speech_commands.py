"""Write a small synthetic keyword-spotting dataset in the Speech Commands layout.

The layout of Google's Speech Commands data set, which keyword-spotting code reads as is:

    OUT/<word>/<speaker>_nohash_<n>.wav     one second, 16 kHz, mono, 16-bit PCM
    OUT/_background_noise_/<name>.wav       longer noise recordings

Each word is a chirp with its own pitch contour; each speaker shifts the pitch and tempo a little,
every clip gets its own noise. Splits that hash the speaker id (as the data set's own code does)
find speakers in every split. Standard library and NumPy only; the same --seed writes the same
bytes, so a variance experiment starts every run from identical data.

    python scripts/make_speech_commands.py OUT --words command random --unknown other \
        --speakers 40 --per-speaker 2
"""

from __future__ import annotations

import argparse
import wave
from pathlib import Path

import numpy as np

RATE = 16_000


def chirp(start_hz: float, end_hz: float, seconds: float, rng: np.random.Generator) -> np.ndarray:
    """A tone sliding from start_hz to end_hz under a smooth envelope, with a little noise."""
    n = int(RATE * seconds)
    t = np.arange(n) / RATE
    freq = np.linspace(start_hz, end_hz, n)
    phase = 2 * np.pi * np.cumsum(freq) / RATE
    envelope = np.sin(np.pi * t / seconds) ** 2
    signal = 0.6 * envelope * np.sin(phase) + 0.05 * rng.standard_normal(n)
    return signal


def clip(word_index: int, speaker: int, take: int, seed: int) -> np.ndarray:
    """One second of one word said by one speaker (deterministic in its arguments)."""
    rng = np.random.default_rng([seed, word_index, speaker, take])
    pitch = 1.0 + 0.15 * np.random.default_rng([seed, speaker]).uniform(-1, 1)
    start = (300 + 250 * word_index) * pitch
    end = (900 - 150 * word_index) * pitch
    length = 0.55 + 0.1 * rng.uniform()
    sound = chirp(start, end, length, rng)
    out = 0.01 * rng.standard_normal(RATE)
    offset = int(rng.integers(0, RATE - len(sound)))
    out[offset : offset + len(sound)] += sound
    return out


def write_wav(path: Path, samples: np.ndarray) -> None:
    """16-bit mono PCM at 16 kHz."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pcm = (np.clip(samples, -1.0, 1.0) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as fh:
        fh.setnchannels(1)
        fh.setsampwidth(2)
        fh.setframerate(RATE)
        fh.writeframes(pcm.tobytes())


def main(argv: list[str] | None = None) -> None:
    """Write the data set and print what was written."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--words", nargs="+", default=["command", "random"])
    parser.add_argument("--unknown", nargs="*", default=["other"], help="words to treat as unknown")
    parser.add_argument("--speakers", type=int, default=40)
    parser.add_argument("--per-speaker", type=int, default=2)
    parser.add_argument("--noise-seconds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    count = 0
    for index, word in enumerate([*args.words, *args.unknown]):
        for speaker in range(args.speakers):
            for take in range(args.per_speaker):
                name = f"{speaker:08x}_nohash_{take}.wav"
                write_wav(args.out / word / name, clip(index, speaker, take, args.seed))
                count += 1
    noise = np.random.default_rng([args.seed, 99]).standard_normal(RATE * args.noise_seconds)
    write_wav(args.out / "_background_noise_" / "white_noise.wav", 0.3 * noise)
    print(f"wrote {count} clips of {len(args.words) + len(args.unknown)} words and 1 noise file "
          f"to {args.out}")  # fmt: skip


if __name__ == "__main__":
    main()
