"""Realistic code snippets and small helpers shared by the detector tests."""

from __future__ import annotations

from pathlib import Path

from miner.models import Label

Files = dict[str, "str | bytes"]


def write(root: Path, files: Files) -> Path:
    """Write `files` (relative path -> text or bytes) under `root`."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def value(labels: dict[str, Label], field: str) -> object:
    """The value of a label; sets come back as sorted lists for readable asserts."""
    v = labels[field].value
    return sorted(v) if isinstance(v, frozenset) else v


# Realistic snippets shared by the tests.
TORCH_MODEL = """import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 32, 3)
        self.conv2 = nn.Conv2d(32, 64, 3)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(64 * 6 * 6, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc(x.view(x.size(0), -1))
"""
TORCH_TRAIN = """import torch
import torch.optim as optim
from model import Net

net = Net()
optimizer = optim.SGD(net.parameters(), lr=0.01)
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(net(x), y)
    loss.backward()
    optimizer.step()
"""
TF_LOW = """import tensorflow as tf


def inference(images):
    with tf.variable_scope("conv1"):
        kernel = tf.get_variable("w", [5, 5, 3, 64])
        conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding="SAME")
        net = tf.nn.relu(conv)
    net = tf.layers.dense(tf.layers.flatten(net), 10)
    return net


x = tf.placeholder(tf.float32, [None, 32, 32, 3])
loss = tf.reduce_mean(inference(x))
train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
with tf.Session() as sess:
    sess.run(train_op)
"""
TF_KERAS = """import tensorflow as tf
from tensorflow.keras import layers


def build_model():
    model = tf.keras.Sequential([
        layers.Conv2D(32, 3, activation="relu"),
        layers.MaxPooling2D(),
        layers.Flatten(),
        layers.Dense(10),
    ])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


model = build_model()
model.fit(x_train, y_train, epochs=5)
"""
KERAS = """from keras.models import Sequential
from keras.layers import Conv2D, MaxPooling2D, Flatten, Dense

model = Sequential()
model.add(Conv2D(32, (3, 3), activation="relu", input_shape=(28, 28, 1)))
model.add(MaxPooling2D((2, 2)))
model.add(Flatten())
model.add(Dense(10, activation="softmax"))
model.compile(loss="categorical_crossentropy", optimizer="adam")
model.fit(x_train, y_train, epochs=10)
"""
