"""Signals that code itself carries, now that comments and docstrings no longer speak for it:
networks named inside longer names, string-borne signals and their hint, merged scans."""

from __future__ import annotations

import pytest

from miner.audit.detect.signals import STEMS, Hit, classify_token, merge, scan
from miner.audit.detect.sources import STRING_HINT, STRING_SIGNALS

FIRES = {
    "net.generator": ("_generator_model(", "build_generator(", "create_generator_loss("),
    "net.discriminator": ("_discriminator_model(", "build_discriminator(",
                          "create_discriminator_loss("),
    "net.rnn": ("CRNNcell(", "BCRNNlayer(", "CharRNN("),
    "net.attention": ("multihead_attn(", "self.self_attn", "split_heads(", "merge_heads("),
    "net.conv": ("lasagne.layers.Conv2DLayer(", "dnn.Conv2DDNNLayer(", "Deconv2DLayer("),
}  # fmt: skip
IGNORES = {
    "net.generator": ("train_generator", "data_generator(", "generator_output"),
    "net.rnn": ("MaskRCNN(", "FasterRCNN", "self.bcrnn"),
    "net.attention": ("attn(", "num_heads"),
}


@pytest.mark.parametrize("signal", sorted(FIRES))
def test_networks_named_inside_longer_names_fire(signal: str) -> None:
    for token in FIRES[signal]:
        assert STEMS.search(token.lower()), f"{token} is cut by the stem filter"
        assert signal in classify_token(token), (signal, token)


@pytest.mark.parametrize("signal", sorted(IGNORES))
def test_look_alikes_do_not_fire(signal: str) -> None:
    for token in IGNORES[signal]:
        assert signal not in classify_token(token), (signal, token)


def test_string_hint_admits_every_string_borne_signal() -> None:
    strings = {
        "caffe.cli_train": "['caffe', 'train', '--solver', 's.prototxt']",
        "darknet.cli_train": "'./darknet detector train cfg/voc.data cfg/yolo.cfg'",
        "keras.backend": "'KERAS_BACKEND'] = 'theano'",
        "proj.curl": "'curl -L -o data.zip http://x.org/data.zip'",
        "proj.download": "'wget http://x.org/data.tar'",
        "proj.load": "'checkpoints/model.pth'",
    }
    assert set(strings) == STRING_SIGNALS
    for signal, text in strings.items():
        assert STRING_HINT.search(text), signal
        assert signal in scan(text, STRING_SIGNALS), signal


def test_scan_only_keeps_the_signals_asked_for() -> None:
    text = "net = nn.Conv2d(1, 8, 3)\nos.system('wget http://x.org/d.zip')\n"
    assert {"net.conv", "fw.torch", "proj.download"} <= set(scan(text))
    assert set(scan(text, frozenset({"proj.download"}))) == {"proj.download"}


def test_merge_sums_counts_and_keeps_eight_samples() -> None:
    hits = {"a": Hit(2, [f"s{n}" for n in range(6)])}
    merge(hits, {"a": Hit(3, ["t1", "t2", "t3"]), "b": Hit(1, ["u"])})
    assert hits["a"].count == 5 and hits["a"].samples == [*(f"s{n}" for n in range(6)), "t1", "t2"]
    assert hits["b"].count == 1
