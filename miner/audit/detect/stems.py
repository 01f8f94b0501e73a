"""Lower-case stems in front of the token patterns of miner.audit.detect.signals.

Only a token containing one of these stems can match a token pattern, so most identifiers of a
file (`self`, `np`, `batch_size`) are dismissed by one regular expression, compiled as a trie.
Tests check that every pattern's examples pass this filter.
"""

from __future__ import annotations

import re

STEM_WORDS = (
    "conv", "lstm", "gru", "rnn", "recurrent", "dense", "linear", "nn.", "tf.", "keras", "torch",
    "caffe", "solver", "theano", "lasagne", "mx.", "gluon", "chainer", "layer", "model", "fit",
    "backward", "optim", "minimize", "gradient", "trainer", "train", "dataset", "download",
    "wget", "load", "attention", "transformer", "bert", "gpt", "scaled_dot", "gcn", "gat",
    "graph", "ggnn", "propagator", "propogator", "messagepassing", "sage", "gin", "cheb", "dgl",
    "spektral", "discrim", "disc_loss", "d_loss", "loss_d", "errd", "d_real", "d_fake", "netd",
    "net_d", "generator", "netg", "net_g", "g_loss", "loss_g", "errg", "gen_loss", "adversarial",
    "gan", "gym", "replay", "dqn", "ddpg", "ppo", "trpo", "a3c", "a2c", "policy", "actor",
    "q_value", "q_net", "qnet", "q_learning", "qlearning", "epsilon", "target_", "discounted",
    "experience", "resnet", "vgg", "densenet", "inception", "mobilenet", "alexnet", "squeezenet",
    "efficientnet", "xception", "nasnet", "resnext", "net", "sequential", "embedding", "pool",
    "dropout", "normalization", "batchnorm", "flatten", "activation", "concat", "relu", "softmax",
    "cross_entropy", "nll_loss", "slim", "snt.", "tflearn", "tl.layers", "brew.", "model_helper",
    "workspace.", "vl_", "dagnn", "cudnn", "t.nnet", "t.tanh", "t.dot", "t.matrix", "t.grad",
    "t.imatrix", "t.ftensor", "tensor", "l.data", "l.imagedata", "innerproduct", "deconv",
    "detector", "urlretrieve", "gdown", "urlopen", "fetch", "read_data_sets", "tfds", "step",
    "solve", "tidy", "timedistributed", "bidirectional", "padding", "upsampling", "compile",
    "ckpt", "pth", "h5", "t7", "fully_connected", "adam", "sgd", "rmsprop", "adagrad", "adadelta",
    "blstm", "leakyrelu", "trainingoptions", "restore",
    "nag", "lbfgs", "asgd", "addgradient", "build_sgd", "momentum", "ftrl", "nadam", "adamax",
    "optimizer", "critic", "reward", "attn", "_heads", "automodel", "causallm", "conditional",
    "maskedlm", "seq2seqlm", "classification", "questionanswering", "pretraining", "llama",
    "mistral", "qwen", "t5", "roberta", "clip", "whisper", "vit", "qkv", "to_q", "to_k", "to_v",
    "_proj", "query_key_value", "dot_product", "norm", "feedforward",
    "feed_forward", "mlp", "ffn", "vit", "swin", "deit", "beit", "opt", "run_d", "run_g",
    "lossd", "lossg", "gene_loss", "disc_", "l_d_", "l_g_", "jax.", "jnp.", "hk.",
    "optax.", "eqx.", "nnx.", "_vars", "opt_", "_cost", "dis_loss",
)  # fmt: skip


Trie = dict[str, "Trie"]


def trie_pattern(words: tuple[str, ...]) -> str:
    """One regular expression matching any of `words`, factored as a trie (much faster)."""
    trie: Trie = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: Trie) -> str:
        branches = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)
