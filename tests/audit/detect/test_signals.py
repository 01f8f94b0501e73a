"""Code signals: each token pattern fires on its examples (and passes the stem filter), and not
on look-alikes; phrases span tokens; evidence lines are found again."""

from __future__ import annotations

import pytest

from miner.audit.detect.signals import STEMS, TOKEN, TOKENS, classify_token, locate, scan

EXAMPLES: dict[str, tuple[str, ...]] = {
    "fw.torch": ("nn.Conv2d(", "torch.nn.Linear", "F.conv2d(", "nn.Module"),
    "fw.tf_low": ("tf.nn.conv2d(", "tf.layers.dense(", "tf.contrib.layers.conv2d(", "slim.conv2d(",
                  "tf.Session(", "tflearn.layers.conv_2d(", "tf.train.AdamOptimizer("),
    "fw.tf_keras": ("tf.keras.layers.Dense(", "tensorflow.keras.layers"),
    "fw.keras_layer": ("Dense(", "layers.Conv2D(", "LSTM(", "keras.layers.BatchNormalization("),
    "fw.keras_model": ("Sequential(", "model.compile(", ".compile(", "model.fit_generator("),
    "fw.jax": ("jax.value_and_grad(", "jnp.zeros(", "nn.compact", "hk.Linear(", "optax.adam(",
               "nnx.Linear("),
    "fw.hf_tf": ("TFAutoModel.from_pretrained(", "TFBertForSequenceClassification"),
    "fw.hf_flax": ("FlaxAutoModelForCausalLM", "FlaxT5ForConditionalGeneration.from_pretrained("),
    "fw.mxnet": ("mx.sym.Convolution(", "gluon.nn"),
    "fw.theano": ("theano.function(", "T.nnet", "lasagne.layers.DenseLayer("),
    "fw.chainer": ("chainer.Chain", "L.Convolution2D("),
    "fw.caffe": ("caffe.Net(", "caffe.set_mode_gpu("),
    "fw.caffe_pytrain": ("caffe.SGDSolver(", "solver.step(", "self.solver.solve("),
    "fw.caffe_netspec": ("caffe.NetSpec(", "L.Convolution("),
    "fw.caffe2": ("brew.conv(", "workspace.RunNet("),
    "fw.torch7": ("nn.SpatialConvolution(", "cudnn.ReLU("),
    "fw.matconvnet": ("vl_simplenn(", "vl_nnconv(", "dagnn.DagNN("),
    "fw.matlab_dl": ("trainNetwork(", "convolution2dLayer("),
    "fw.darknet": ("load_network(",),
    "fw.tfjs": ("tf.sequential(", "tf.loadLayersModel("),
    "net.conv_name": ("self.conv1", "conv", "conv3("),
    "net.conversation": ("get_conversation_template(", "conv.append_message(", "conv_templates"),
    "net.conv": ("nn.Conv2d(", "Conv2D(", "nn.Conv(", "tf.nn.conv2d(", "SpatialConvolution(",
                 "conv_layer("),
    "net.backbone": ("models.resnet50(", "VGG16(", "MobileNetV2("),
    "net.rnn": ("nn.LSTM(", "GRU(", "tf.nn.dynamic_rnn(", "BasicLSTMCell(", "self.lstm",
                "lasagne.layers.LSTMLayer("),
    "net.attention": ("nn.MultiheadAttention(", "TransformerEncoderLayer(", "BertModel"),
    "net.hf_transformer": ("AutoModelForCausalLM.from_pretrained(", "LlamaForCausalLM",
                           "AutoModel.from_pretrained(", "transformers.AutoModel.from_config(",
                           "transformers.T5ForConditionalGeneration", "CLIPTextModel"),
    "net.attn_block": ("WindowAttention(", "CausalSelfAttention(", "self.qkv", "to_qkv", "q_proj",
                       "flash_attn_func(", "SwinTransformerBlock(", "BasicTransformerBlock("),
    "net.tf_companion": ("nn.LayerNorm(", "RMSNorm(", "FeedForward(", "Mlp(", "self.ffn"),
    "net.tf_backbone": ("vit_base_patch16(", "_make_pretrained_vitb16_384(", "SwinTransformer("),
    "net.d_step": ("d_loss", "optimizer_D", "loss_Dreal", "run_D(", "discriminator_optimizer",
                   "optimizerD", "self.d_optim", "disc_cost", "opt_disc", "self.d_vars",
                   "D_solver", "loss_dis"),
    "net.g_step": ("g_loss", "opt_G", "loss_Gmain", "create_generator_loss(", "gene_loss",
                   "optimizerG", "g_optim", "gen_cost", "opt_gen", "self.g_vars", "G_solver",
                   "loss_gen"),
    "net.graph": ("GCNConv(", "GraphConvolution(", "torch_geometric.nn", "dgl.nn"),
    "net.discriminator": ("Discriminator(", "netD", "d_loss"),
    "net.generator": ("Generator(", "netG", "g_loss"),
    "net.adversarial": ("adversarial_loss", "GAN"),
    "net.rl": ("gym.make(", "ReplayBuffer(", "DQN", "q_values", "actor_critic", "critic_loss",
               "rewards"),
    "net.dense": ("nn.Linear(", "Dense(", "tf.layers.dense("),
    "proj.train": ("loss.backward(", "optimizer.step(", "model.fit(", ".minimize(",
                   "optim.sgd(", "optim.nag(", "solver.step(", "trainer.train(",
                   "model.AddGradientOperators(", "optimizer.build_sgd("),
    "proj.optimizer": ("optim.Adam(", "tf.train.AdamOptimizer(", "AdamOptimizer(", "SGD(",
                       "MomentumOptimizer(", "optimizers.Nadam("),
    "proj.data_loader": ("torchvision.datasets.CIFAR10(", "keras.datasets.mnist", "tfds.load("),
    "proj.download": ("urllib.request.urlretrieve(", "download_dataset(", "wget"),
    "proj.load": ("model.load_state_dict(", "torch.load(", "model.load_weights(",
                  "weights.caffemodel", "saver.restore("),
}  # fmt: skip
NOT = {
    "fw.keras_model": ("re.compile(",),
    "proj.train": ("fit(", "backward"),
    "net.conv": ("convert(", "config"),
    "net.generator": ("ImageDataGenerator(", "train_generator"),
    "net.attn_block": (
        "ChannelAttention(",
        "SpatialAttention(",
        "SEAttention(",
        "self.attn",
        "transformers",
        "attention_mask",
        "model.wv",
    ),
    "net.tf_backbone": ("activity", "environment", "convnext("),
    "net.d_step": ("optimizer", "self.opt", "d_model", "d_vars_all", "opt_distance"),
    "net.g_step": ("optimizer", "generator", "gen_data(", "gen_costs", "g_solver_cfg"),
    "fw.tf_low": (
        "tf.nn.relu(",
        "tf.reduce_mean(",
        "tf.contrib.summary.scalar(",
        "tf.compat.v1.enable_eager_execution(",
    ),
    "fw.jax": ("jax.numpy", "nn.Conv2d("),
    "fw.hf_tf": ("TFRecordDataset(", "AutoModel", "TF_CONFIG"),
    "fw.hf_flax": ("FlaxConfig", "AutoModel"),
}


def test_every_token_signal_has_examples() -> None:
    assert set(EXAMPLES) == set(TOKENS)


@pytest.mark.parametrize("signal", sorted(EXAMPLES))
def test_token_signal_fires_on_its_examples(signal: str) -> None:
    for token in EXAMPLES[signal]:
        assert STEMS.search(token.lower()), f"{token} is cut by the stem filter"
        assert signal in classify_token(token), (signal, token)


@pytest.mark.parametrize("signal", sorted(NOT))
def test_token_signal_ignores_look_alikes(signal: str) -> None:
    for token in NOT[signal]:
        assert signal not in classify_token(token), (signal, token)


def test_tokens_keep_chained_calls_as_methods() -> None:
    tokens = TOKEN.findall("op = tf.train.AdamOptimizer(1e-3).minimize(loss)")
    assert "tf.train.AdamOptimizer(" in tokens and ".minimize(" in tokens


def test_scan_counts_tokens_and_phrases() -> None:
    text = (
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        self.c1 = nn.Conv2d(1, 2, 3)\n"
        "        self.c2 = nn.Conv2d(2, 2, 3)\n"
        "os.system('./build/tools/caffe train --solver=solver.prototxt')\n"
    )
    hits = scan(text)
    assert hits["model.class"].count == 1
    assert hits["net.conv"].count >= 2 and "nn.Conv2d(" in hits["net.conv"].samples
    assert "caffe.cli_train" in hits


def test_phrase_signals_for_keras_backend_and_lua() -> None:
    hits = scan("os.environ['KERAS_BACKEND'] = 'theano'\nlocal g = criterion:backward(o, t)\n")
    assert "keras.backend" in hits and "lua.backward" in hits


def test_locate_finds_the_line_of_a_sample() -> None:
    text = "a = 1\n\n    x = nn.LSTM(3, 4)\n"
    assert locate(text, "nn.LSTM(") == (3, "x = nn.LSTM(3, 4)")
    assert locate(text, "missing(") == (0, "")
