"""network_types and paper_network: building blocks of the main model (codebook rules)."""

from __future__ import annotations

from detect_snippets import KERAS, TF_LOW, TORCH_MODEL, TORCH_TRAIN, value

from miner.audit.detect.networks import decide

CRNN = """import torch.nn as nn


class CRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(1, 64, 3), nn.ReLU(), nn.Conv2d(64, 128, 3))
        self.rnn = nn.LSTM(128, 256, bidirectional=True)
        self.fc = nn.Linear(512, 37)
"""
GAN = """import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.ConvTranspose2d(100, 64, 4), nn.ConvTranspose2d(64, 3, 4))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 64, 4), nn.LeakyReLU(0.2), nn.Conv2d(64, 1, 4))


netG, netD = Generator(), Discriminator()
d_loss = bce(netD(real), ones) + bce(netD(netG(z).detach()), zeros)
d_loss.backward()
g_loss = bce(netD(netG(z)), ones)  # adversarial loss
g_loss.backward()
"""
DQN = """import gym
import torch
import torch.nn as nn


class QNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 64)
        self.fc2 = nn.Linear(64, 2)


env = gym.make("CartPole-v0")
memory = ReplayBuffer(10000)
q_values = policy_net(state)
target_net.load_state_dict(policy_net.state_dict())
loss.backward()
"""
GCN = """import torch
from torch_geometric.nn import GCNConv


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = GCNConv(16, 32)
        self.conv2 = GCNConv(32, 7)
"""
TRANSFORMER = """import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(512, 8)
        self.encoder = nn.TransformerEncoder(layer, 6)
        self.attn = nn.MultiheadAttention(512, 8)
        self.out = nn.Linear(512, 10)
"""
MLP = """from keras.models import Sequential
from keras.layers import Dense, Dropout

model = Sequential()
model.add(Dense(500, activation="relu", input_dim=100))
model.add(Dropout(0.1))
model.add(Dense(500, activation="relu"))
model.add(Dense(10, activation="softmax"))
model.compile(loss="categorical_crossentropy", optimizer="adam")
model.fit(x, y)
"""


def test_cnn_with_a_dense_head_is_cnn_only(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"model.py": TORCH_MODEL, "train.py": TORCH_TRAIN})
    assert value(labels, "network_types") == ["cnn"]
    assert value(labels, "paper_network") == "CNN"
    evidence = labels["network_types"].evidence[0]
    assert evidence.path == "model.py" and "Conv2d" in evidence.text and evidence.line > 0


def test_conv_and_lstm_model_is_cnn_rnn(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"crnn.py": CRNN, "train.py": TORCH_TRAIN})
    assert value(labels, "network_types") == ["cnn", "rnn"]
    assert value(labels, "paper_network") == "CNN/RNN"


def test_gan_with_convolutional_generator(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"gan.py": GAN})
    assert value(labels, "network_types") == ["cnn", "gan"]
    assert value(labels, "paper_network") == "GAN"
    # image generators fed by data generators are no GAN
    labels, _ = audit({"train.py": KERAS + "gen = ImageDataGenerator()\ntrain_generator = 1\n"})
    assert "gan" not in value(labels, "network_types")  # type: ignore[operator]


def test_an_optional_gan_beside_a_bigger_main_model_is_not_the_main_model(audit) -> None:  # type: ignore[no-untyped-def]
    files = {f"models/crnn_{i}.py": CRNN for i in range(6)}
    files["vocoder/gan.py"] = GAN
    labels, _ = audit(files)
    assert value(labels, "paper_network") == "CNN/RNN"


def test_deep_rl_agent(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"agent.py": DQN})
    assert "drl" in value(labels, "network_types")  # type: ignore[operator]
    assert value(labels, "paper_network") == "Others"


def test_rl_named_by_the_readme_introduction(audit) -> None:  # type: ignore[no-untyped-def]
    readme = "# Trader\n\nUsing a deep actor-critic model with reinforcement learning.\n"
    rnn = "import lasagne\nl = lasagne.layers.RecurrentLayer(l_in, 20)\n"
    labels, _ = audit({"README.md": readme, "agent.py": rnn})
    assert value(labels, "network_types") == ["drl", "rnn"]


def test_graph_and_transformer_models_are_others(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"model.py": GCN})
    assert value(labels, "network_types") == ["gnn"]
    assert value(labels, "paper_network") == "Others"
    labels, _ = audit({"model.py": TRANSFORMER})
    assert value(labels, "network_types") == ["transformer"]
    assert value(labels, "paper_network") == "Others"


def test_a_stand_alone_mlp_beside_a_cnn_is_kept(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"MLP.py": MLP, "FCN.py": KERAS})
    assert value(labels, "network_types") == ["cnn", "mlp"]
    assert value(labels, "paper_network") == "Others"
    labels, _ = audit({"MLP.py": MLP})
    assert value(labels, "network_types") == ["mlp"]


def test_readme_words_strengthen_but_never_invent_layer_types(audit) -> None:  # type: ignore[no-untyped-def]
    readme = "# Music\n\nA recurrent network that draws inspiration from convolutional networks.\n"
    lstm = "from theano_lstm import LSTM, StackedCells\ncells = StackedCells(8, celltype=LSTM)\n"
    labels, _ = audit({"README.md": readme, "model.py": lstm})
    assert value(labels, "network_types") == ["rnn"]


def test_a_type_the_readme_does_not_name_needs_more_code(audit) -> None:  # type: ignore[no-untyped-def]
    readme = "# Driver\n\nA deep convolutional network followed by an LSTM.\n"
    model = CRNN + "\n\nclass Alt(nn.Module):\n    enc = nn.TransformerEncoder(layer, 2)\n"
    labels, _ = audit({"README.md": readme, "model.py": model})
    assert value(labels, "network_types") == ["cnn", "rnn"]


def test_caffe_prototxt_layers_count(audit) -> None:  # type: ignore[no-untyped-def]
    proto = 'layer { type: "Convolution" }\nlayer { type: "Convolution" }\nlayer { type: "LSTM" }\n'
    labels, _ = audit({"models/train_val.prototxt": proto})
    assert value(labels, "network_types") == ["cnn", "rnn"]


def test_vendored_and_test_code_do_not_decide(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit(
        {
            "model.py": TF_LOW,
            "third_party/s2s/rnn.py": "import tensorflow as tf\n" + "tf.nn.dynamic_rnn(c)\n" * 9,
        }
    )
    assert value(labels, "network_types") == ["cnn"]


def test_readme_only_repository_takes_the_readme_words(audit) -> None:  # type: ignore[no-untyped-def]
    readme = "# Prices\n\nWe train a simple AlexNet-like convolutional neural network.\n"
    labels, _ = audit({"README.md": readme})
    assert value(labels, "network_types") == ["cnn"]


def test_nothing_found_is_an_empty_set_and_others(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"a.py": "print(1)\n"})
    assert value(labels, "network_types") == []
    assert value(labels, "paper_network") == "Others"


def test_decide_thresholds() -> None:
    assert decide({"cnn": 100.0, "rnn": 20.0}, {}, {}) == {"cnn"}
    assert decide({"cnn": 100.0, "rnn": 30.0}, {}, {}) == {"cnn", "rnn"}
    assert decide({"cnn": 100.0, "rnn": 10.0}, {"rnn": 0.5}, {}) == {"cnn", "rnn"}
    assert decide({"cnn": 100.0, "gan": 10.0}, {}, {}) == {"cnn"}
    assert decide({"cnn": 100.0, "gan": 10.0}, {"gan": 0.5}, {"gan": 1.0}) == {"cnn", "gan"}
    assert decide({"mlp": 10.0}, {}, {}) == {"mlp"}
    # a README naming a GAN below its introduction halves the share the code needs
    assert decide({"cnn": 100.0, "gan": 15.0}, {}, {}) == {"cnn"}
    assert decide({"cnn": 100.0, "gan": 15.0}, {"gan": 0.2}, {}) == {"cnn", "gan"}
    assert decide({"cnn": 100.0, "gan": 10.0}, {"gan": 0.2}, {}) == {"cnn"}


VIT = """import torch.nn as nn


class PatchEmbed(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, kernel_size=16, stride=16)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        attn = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        return self.proj(attn @ v)


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, 4 * dim)
"""
DDPM_UNET = """import torch.nn as nn


class ResnetBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.norm1 = nn.GroupNorm(32, c)
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.norm2 = nn.GroupNorm(32, c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)


class AttnBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.norm = nn.GroupNorm(32, c)
        self.q = nn.Conv2d(c, c, 1)
        self.k = nn.Conv2d(c, c, 1)
        self.v = nn.Conv2d(c, c, 1)


class UNet(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.down = nn.ModuleList([ResnetBlock(c), nn.Conv2d(c, c, 3, stride=2)])
        self.mid = nn.ModuleList([ResnetBlock(c), AttnBlock(c), ResnetBlock(c)])
        self.up = nn.ModuleList([ResnetBlock(c), nn.ConvTranspose2d(c, c, 4, stride=2)])
        self.out = nn.Conv2d(c, 3, 3, padding=1)
"""


def test_attention_blocks_with_layer_norms_and_mlps_are_a_transformer(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"models/vit.py": VIT, "train.py": TORCH_TRAIN})
    assert "transformer" in value(labels, "network_types")  # type: ignore[operator]
    assert value(labels, "paper_network") == "Others"


def test_attention_at_one_resolution_of_a_unet_stays_cnn(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"models/unet.py": DDPM_UNET, "train.py": TORCH_TRAIN})
    assert value(labels, "network_types") == ["cnn"]
    assert value(labels, "paper_network") == "CNN"


def test_language_model_loaded_through_hugging_face_is_a_transformer(audit) -> None:  # type: ignore[no-untyped-def]
    train = (
        "import torch\nfrom transformers import AutoModelForCausalLM, Trainer\n\n"
        "model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)\n"
        "trainer = Trainer(model=model, args=training_args)\ntrainer.train()\n"
    )
    labels, _ = audit({"train.py": train})
    assert value(labels, "network_types") == ["transformer"]


def test_a_model_loaded_through_auto_model_outweighs_an_option_named_like_a_layer(audit) -> None:  # type: ignore[no-untyped-def]
    train = (
        "import torch\nfrom transformers import AutoModel, Trainer\n\n"
        "model = AutoModel.from_pretrained(args.model_name_or_path, trust_remote_code=True)\n"
        "model = ipex.optimize(model, level='O1', conv_bn_folding=False)\n"
        "trainer = Trainer(model=model, args=training_args)\ntrainer.train()\n"
    )
    labels, _ = audit({"main.py": train})
    assert value(labels, "paper_network") == "Others"
    assert "transformer" in value(labels, "network_types")  # type: ignore[operator]


def test_adversarial_losses_in_a_separate_loss_file_are_a_gan(audit) -> None:  # type: ignore[no-untyped-def]
    networks = GAN.split("netG, netD")[0]
    loss = (
        "import torch\n\n"
        "class StyleLoss:\n"
        "    def accumulate(self, real, z):\n"
        "        gen_logits = self.run_D(self.run_G(z))\n"
        "        loss_Gmain = torch.nn.functional.softplus(-gen_logits)\n"
        "        loss_Gmain.mean().backward()\n"
        "        loss_Dreal = torch.nn.functional.softplus(-self.run_D(real))\n"
        "        loss_Dreal.mean().backward()\n"
    )
    readme = "# AliasFree\n\nAlias-free generative adversarial networks.\n"
    files = {"README.md": readme, "training/networks.py": networks, "training/loss.py": loss}
    labels, _ = audit(files)
    assert value(labels, "paper_network") == "GAN"


def test_a_generator_and_discriminator_without_adversarial_losses_are_no_gan(audit) -> None:  # type: ignore[no-untyped-def]
    pretrain = (
        "import tensorflow as tf\n\n"
        "generator = build_transformer(config, masked_inputs, scope='generator')\n"
        "mlm_output = get_masked_lm_output(masked_inputs, generator)\n"
        "discriminator = build_transformer(config, fake_inputs, scope='discriminator')\n"
        "disc_output = get_discriminator_output(fake_inputs, discriminator)\n"
        "total_loss = mlm_output.loss + 50.0 * disc_output.loss\n"
        "train_op = tf.train.AdamOptimizer(1e-4).minimize(total_loss)\n"
    )
    readme = "# Replaced tokens\n\nA discriminator, similar to the one of a GAN, learns.\n"
    labels, _ = audit({"README.md": readme, "run_pretraining.py": pretrain})
    assert "gan" not in value(labels, "network_types")  # type: ignore[operator]


def test_venue_lines_and_images_do_not_push_the_readme_description_out_of_the_intro(audit) -> None:  # type: ignore[no-untyped-def]
    readme = (
        "# Taming Things\n\n##### CVPR (Oral)\n\n![teaser](teaser.png)\n\n"
        "[Paper](x) by A. Author and B. Author and C. Author\n\n"
        "tl;dr We train a convolutional VQGAN with an adversarial loss.\n"
    )
    files = {f"models/unet_{i}.py": DDPM_UNET for i in range(4)}
    files["losses/perceptual.py"] = GAN
    labels, _ = audit({"README.md": readme, **files})
    assert value(labels, "paper_network") == "GAN"
    plain = readme.replace("VQGAN with an adversarial loss", "model")
    labels, _ = audit({"README.md": plain, **files})
    assert value(labels, "paper_network") == "CNN"


def test_an_encoder_trained_against_a_discriminator_is_adversarial(audit) -> None:  # type: ignore[no-untyped-def]
    coach = (
        "import torch\n\n"
        "class Coach:\n"
        "    def __init__(self):\n"
        "        self.optimizer = torch.optim.Adam(self.net.encoder.parameters())\n"
        "        self.discriminator = LatentCodesDiscriminator(512, 4)\n"
        "        self.discriminator_optimizer = torch.optim.Adam(self.discriminator.parameters())\n"
        "    def train(self, batch):\n"
        "        loss = self.calc_loss(batch)\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "        self.discriminator_optimizer.step()\n"
    )
    readme = "# Encoder\n\nAn encoder for StyleGAN image manipulation.\n"
    files = {"README.md": readme, "models/encoder.py": TORCH_MODEL}
    labels, _ = audit({"training/coach.py": coach, **files})
    assert "gan" in value(labels, "network_types")  # type: ignore[operator]
    # a discriminator only loaded to score samples is no adversarial training
    scorer = "import torch\n\nD = Discriminator()\nD.load_state_dict(torch.load(p))\nprint(D(x))\n"
    labels, _ = audit({"score.py": scorer, **files})
    assert "gan" not in value(labels, "network_types")  # type: ignore[operator]
    # a dict of losses called `loss_d` in a trainer names no discriminator
    nerf = (
        "import torch\n\nclass System:\n"
        "    def training_step(self, batch):\n"
        "        loss_d = self.loss(self.model(batch), batch)\n"
        "        loss = sum(lo.mean() for lo in loss_d.values())\n"
        "        loss.backward()\n        self.opt.step()\n"
        "trainer.fit(System())\n"
    )
    labels, _ = audit({"train.py": nerf, **files})
    assert "gan" not in value(labels, "network_types")  # type: ignore[operator]


def test_a_type_named_only_in_a_comparison_is_not_the_model(audit) -> None:  # type: ignore[no-untyped-def]
    files = {f"models/unet_{i}.py": DDPM_UNET for i in range(4)}
    files["autoencoder/losses.py"] = GAN
    readme = "# Diffusion\n\nDiffusion models beat GANs on image synthesis.\n"
    labels, _ = audit({"README.md": readme, **files})
    assert value(labels, "paper_network") == "CNN"
    readme = "# Diffusion\n\nA diffusion model whose decoder is trained as a GAN.\n"
    labels, _ = audit({"README.md": readme, **files})
    assert value(labels, "paper_network") == "GAN"
    for compared in (
        "Diffusion models were shown to surpass GANs in terms of diversity.",
        "Although many attempts using GANs have been made, quality is far from satisfactory.",
        "Previous methods based on GANs are unstable; we use diffusion.",
    ):
        labels, _ = audit({"README.md": f"# Diffusion\n\n{compared}\n", **files})
        assert value(labels, "paper_network") == "CNN", compared


def test_a_conversation_named_conv_in_a_chat_model_is_no_convolution(audit) -> None:  # type: ignore[no-untyped-def]
    train = (
        "import torch\nfrom transformers import AutoModelForCausalLM, Trainer\n"
        "from chat.conversation import get_conversation_template\n\n"
        "def preprocess(sources):\n"
        "    conv = get_conversation_template('vicuna')\n"
        "    roles = {'human': conv.roles[0], 'gpt': conv.roles[1]}\n"
        "    conv.messages = []\n"
        "    conv.append_message(conv.roles[0], sources[0])\n"
        "    return conv.get_prompt()\n\n"
        "model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)\n"
        "trainer = Trainer(model=model, args=training_args)\ntrainer.train()\n"
    )
    labels, _ = audit({"train.py": train})
    assert value(labels, "network_types") == ["transformer"]
    # Without a conversation template, `self.conv1` layers are convolutions by name.
    cnn = "import torch.nn as nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n" + (
        "        x = self.conv1(x)\n        x = self.conv2(x)\n        return self.conv3(x)\n"
    )
    labels, _ = audit({"model.py": cnn, "train.py": TORCH_TRAIN})
    assert "cnn" in value(labels, "network_types")  # type: ignore[operator]


def test_generators_and_discriminators_in_the_readme_name_adversarial_training(audit) -> None:  # type: ignore[no-untyped-def]
    files = {f"models/unet_{i}.py": DDPM_UNET for i in range(4)}
    files["losses/perceptual.py"] = GAN
    intro = "# Vid\n\nVideo to video translation.\n\nIt is fast.\n\nIt is big.\n\nIt is new.\n\n"
    readme = intro + "## Training\n\nWe use 4 GPUs for generators and 4 for discriminators.\n"
    labels, _ = audit({"README.md": readme, **files})
    assert value(labels, "paper_network") == "GAN"
    labels, _ = audit({"README.md": intro, **files})
    assert value(labels, "paper_network") == "CNN"
    # without adversarial code the words alone add nothing
    labels, _ = audit({"README.md": readme, **{f"models/unet_{i}.py": DDPM_UNET for i in range(4)}})
    assert value(labels, "paper_network") == "CNN"
