"""The layout of LJ Speech, the single-speaker English corpus most text-to-speech and vocoder
projects train on (Tacotron, WaveNet and WaveGlow ports, FastSpeech, Transformer-TTS, VITS):
`LJSpeech-1.1/metadata.csv`, one line per clip, `id|transcription|normalized transcription`
with no header and no quoting, beside `LJSpeech-1.1/wavs/<id>.wav`, 16-bit mono PCM at
22,050 Hz. The writer fills that folder with 64 short clips of the same form: tones with a
little noise, and sentences made of common words."""

from __future__ import annotations

import wave
from pathlib import Path, PurePosixPath

import numpy as np

from miner.select.standins.benchmark_layouts import WORDS, WrittenFiles, seeded_rng

LJSPEECH = "LJSpeech-1.1"
SAMPLE_RATE = 22_050
CLIPS = 64  # more than a batch of 32 or 64 with `drop_last=True`
CLIP_SECONDS = (1.0, 2.5)


def ljspeech_root(path: PurePosixPath) -> PurePosixPath | None:
    """The corpus folder when `path` is it or lies inside it (`data/LJSpeech-1.1/metadata.csv`,
    `LJSpeech-1.1/wavs`)."""
    if LJSPEECH not in path.parts:
        return None
    return PurePosixPath(*path.parts[: path.parts.index(LJSPEECH) + 1])


def write_ljspeech(root: Path, seed: int) -> WrittenFiles:
    """`metadata.csv` and `wavs/LJ001-00NN.wav` for CLIPS clips."""
    state = seeded_rng(seed, LJSPEECH)
    (root / "wavs").mkdir(parents=True, exist_ok=True)
    rows = []
    longest = 0
    for number in range(1, CLIPS + 1):
        clip = f"LJ001-{number:04d}"
        seconds = float(state.uniform(*CLIP_SECONDS))
        frames = int(seconds * SAMPLE_RATE)
        longest = max(longest, frames)
        pitch = float(state.uniform(110.0, 260.0))
        times = np.arange(frames) / SAMPLE_RATE
        wave_form = 0.3 * np.sin(2 * np.pi * pitch * times) + state.normal(0.0, 0.02, frames)
        samples = (np.clip(wave_form, -1.0, 1.0) * 32767).astype("<i2").tobytes()
        with wave.open(str(root / "wavs" / f"{clip}.wav"), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(SAMPLE_RATE)
            out.writeframes(samples)
        words = [WORDS[int(i)] for i in state.randint(len(WORDS), size=int(state.randint(5, 12)))]
        text = " ".join(words).capitalize() + "."
        rows.append(f"{clip}|{text}|{text}\n")
    (root / "metadata.csv").write_text("".join(rows), encoding="utf-8")
    return WrittenFiles(root, CLIPS + 1, (("wavs", (CLIPS, longest), "int16"),))
