"""The layout of LJ Speech, the single-speaker English corpus most text-to-speech and vocoder
projects train on (Tacotron, WaveNet and WaveGlow ports, FastSpeech, Transformer-TTS, VITS):
`LJSpeech-1.1/metadata.csv`, one line per clip, `id|transcription|normalized transcription`
with no header and no quoting, beside `LJSpeech-1.1/wavs/<id>.wav`, 16-bit mono PCM at
22,050 Hz. The writer fills that folder with a few short clips of the same form: tones with a
little noise, and sentences made of common words."""

from __future__ import annotations

import math
import wave
from pathlib import Path, PurePosixPath

from miner.select.standins.benchmark_layouts import WORDS, WrittenFiles, seeded_rng

LJSPEECH = "LJSpeech-1.1"
SAMPLE_RATE = 22_050
CLIPS = 16
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
        noise = state.normal(0.0, 0.02, size=frames)
        samples = bytearray()
        for i in range(frames):
            value = 0.3 * math.sin(2 * math.pi * pitch * i / SAMPLE_RATE) + float(noise[i])
            samples += int(max(-1.0, min(1.0, value)) * 32767).to_bytes(2, "little", signed=True)
        with wave.open(str(root / "wavs" / f"{clip}.wav"), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(SAMPLE_RATE)
            out.writeframes(bytes(samples))
        words = [WORDS[int(i)] for i in state.randint(len(WORDS), size=int(state.randint(5, 12)))]
        text = " ".join(words).capitalize() + "."
        rows.append(f"{clip}|{text}|{text}\n")
    (root / "metadata.csv").write_text("".join(rows), encoding="utf-8")
    return WrittenFiles(root, CLIPS + 1, (("wavs", (CLIPS, longest), "int16"),))
