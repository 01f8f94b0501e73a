"""Code signals: named patterns for framework APIs, network layers, training, data and loading.

Source text is cut into dotted identifiers (`tf.nn.conv2d`, `nn.Conv2d(`: a trailing "(" marks a
call) and each distinct identifier is classified once per process (cached), which is an order of
magnitude faster than running many regular expressions over every file. A few signals span
several tokens (`class Net(nn.Module)`, `caffe train`); those are phrases, searched only in files
that contain their trigger word. Adding a signal is one table entry.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from miner.audit.detect.stems import STEM_WORDS, trie_pattern

# Token patterns, each (scope, regex): "last" is matched in full against the token's last dotted
# component (with its "(" when called), "attr" the same but only for dotted tokens (methods and
# attributes), "full" from the token's start (a prefix match). Anchored matches fail at the first
# character, which keeps classifying thousands of distinct identifiers cheap.
Scope = str
TOKENS: dict[str, tuple[tuple[Scope, str], ...]] = {
    # framework APIs (read per language by the framework detector)
    "fw.torch": (("full", r"(?:torch\.)?nn\.(?:Conv[123]d|ConvTranspose[123]d|Linear|LSTM|GRU|RNN|"
                  r"LSTMCell|GRUCell|Sequential|ModuleList|BatchNorm[123]d|Embedding|"
                  r"MultiheadAttention|Transformer\w*|Module)\b|torch\.nn\.\w|F\.(?:conv[123]d|relu|"
                  r"linear|cross_entropy|nll_loss|softmax)\("),),
    "fw.tf_low": (("full", r"tf\.(?:nn\.(?!relu|softmax|sigmoid|tanh|elu|selu|leaky_relu|l2_loss|"
                   r"l2_normalize|dropout|moments|softplus|log_softmax|\w*cross_entropy|in_top_k|"
                   r"top_k)\w+|layers\.\w+|contrib\.(?!summary)\w+|variable_scope|get_variable|"
                   r"placeholder|Session|InteractiveSession|estimator\.\w+|Variable|"
                   r"compat\.v1\.(?!enable_eager|logging)\w+|train\.\w+Optimizer)|slim\.(?:conv2d|fully_connected|arg_scope|max_pool2d|"
                   r"batch_norm|repeat|stack|conv2d_transpose|separable_conv2d)\b|tflearn\.\w|"
                   r"snt\.\w|tl\.layers\.\w"),),
    "fw.tf_keras": (("full", r"tf\.keras\.\w|tensorflow(?:_core)?(?:\.python)?\.keras\b"),),
    "fw.keras_layer": (("last", r"(?:Dense|Conv[123]D|Convolution[123]D|Conv[123]DTranspose|"
                        r"SeparableConv2D|DepthwiseConv2D|LSTM|GRU|SimpleRNN|CuDNNLSTM|CuDNNGRU|"
                        r"ConvLSTM2D|Embedding|MaxPooling[123]D|MaxPool[123]D|AveragePooling[123]D|"
                        r"GlobalAveragePooling[123]D|GlobalMaxPooling[123]D|BatchNormalization|"
                        r"Bidirectional|TimeDistributed|Flatten|Dropout|Activation|"
                        r"UpSampling[123]D|ZeroPadding[123]D|Concatenate|LeakyReLU)\("),),
    "fw.keras_model": (("last", r"Sequential\("), ("attr", r"fit_generator\(|train_on_batch\("),
                       ("full", r"(?!re\.|regex\.)\w+(?:\.\w+)*\.compile\($|\.compile\($")),
    # JAX and the libraries that build models on it (Flax, Haiku, Equinox, Optax)
    "fw.jax": (("full", r"jax\.(?:grad|jit|value_and_grad|vmap|pmap|lax|random|nn)\b|jnp\.\w|"
                r"hk\.\w|optax\.\w|eqx\.\w|nnx\.\w|nn\.(?:compact|Dense|DenseGeneral|Conv|ConvTranspose|"
                r"Module|LayerNorm|Embed|MultiHeadDotProductAttention|scan|remat)\b"),),
    # Hugging Face classes of its TensorFlow and Flax ports (the plain classes are PyTorch)
    "fw.hf_tf": (("full", r"TF(?:Auto\w+|[A-Z]\w*(?:Model|For[A-Z]\w+|MainLayer))\b"),),
    "fw.hf_flax": (("full", r"Flax(?:Auto\w+|[A-Z]\w*(?:Model|For[A-Z]\w+))\b"),),
    "fw.mxnet": (("full", r"mx\.(?:sym|symbol|gluon|mod|nd|io|init|optimizer|autograd)\.\w|"
                  r"gluon\.(?:nn|rnn|Trainer|HybridBlock|Block)\b"),),
    "fw.theano": (("full", r"theano\.(?:function|scan|shared|tensor)\b|T\.(?:nnet|tanh|dot|matrix|"
                   r"tensor4|grad|ftensor4|imatrix)\b|lasagne\.(?:layers|updates)\b"),),
    "fw.chainer": (("full", r"chainer\.(?:Chain|ChainList|links|functions|optimizers|training|"
                    r"Variable)\b|L\.(?:Convolution2D|Linear|LSTM|BatchNormalization|"
                    r"Deconvolution2D)\("),),
    "fw.caffe": (("full", r"caffe\.(?:Net|Classifier|Detector|set_mode_gpu|set_mode_cpu|set_device|"
                  r"io\.\w|Solver|reset_all)\b"),),
    "fw.caffe_pytrain": (("full", r"caffe\.(?:SGDSolver|AdamSolver|NesterovSolver|RMSPropSolver|"
                          r"AdaGradSolver|AdaDeltaSolver|get_solver)\b|(?:\w+\.)*solver\.(?:step|"
                          r"solve)\("),),
    "fw.caffe_netspec": (("last", r"NetSpec\("), ("full", r"caffe\.layers\b|L\.(?:Convolution|"
                         r"InnerProduct|Pooling|ReLU|Data|ImageData)\(")),
    "fw.caffe2": (("full", r"brew\.\w|model_helper\b|workspace\.(?:RunNet|CreateNet|FeedBlob|"
                   r"RunNetOnce)\b"),),
    "fw.torch7": (("full", r"nn\.(?:Spatial\w+|Temporal\w+|Volumetric\w+|Sequential|Linear|"
                   r"Concat\w*|View|Reshape|LSTM|GRU|gModule|Module)\b|cudnn\.\w+\("),),
    "fw.matconvnet": (("full", r"vl_(?:simplenn\w*|nn\w+|setupnn)\b|dagnn\.\w"),),
    "fw.matlab_dl": (("full", r"(?:trainNetwork|convolution2dLayer|fullyConnectedLayer|lstmLayer|"
                      r"bilstmLayer|trainingOptions)\("),),
    "fw.darknet": (("full", r"(?:load_network|network_predict|parse_network_cfg|"
                    r"train_detector)\("),),
    "fw.tfjs": (("full", r"tf\.(?:sequential|loadLayersModel|loadGraphModel|tensor[1-4]?d?|"
                 r"tidy)\("),),
    # building blocks of networks
    "net.conv": (("last", r"(?:Conv[123]d|ConvTranspose[123]d|Conv[123]D|Conv[123]DTranspose|"
                  r"Convolution[123]D|Deconvolution[123]D|SeparableConv[12]D|DepthwiseConv2D|"
                  r"conv[123]d(?:_transpose)?|atrous_conv2d|depthwise_conv2d|separable_conv2d|"
                  r"conv_[123]d|Convolution|Deconvolution|SpatialConvolution\w*|"
                  r"SpatialFullConvolution|SpatialDilatedConvolution|TemporalConvolution|"
                  r"VolumetricConvolution|vl_nnconv|convolution2dLayer|dnn_conv|conv2d_act|"
                  r"Conv\(|ConvTranspose\(|deconv2d\w*|ConvBN\w*|ConvBlock\w*|conv_bn\w*|conv_layer|"
                  r"(?:Dilated|Transposed)?Conv[123]D(?:DNN|MM|CC)?Layer|Deconv2DLayer)\(?"),),
    # names such as `self.conv1`: convolutions by convention, except in graph networks
    "net.conv_name": (("last", r"conv\d*\(?"),),
    # a chat model's prompt templates: there `conv` is a conversation (`conv.append_message`)
    "net.conversation": (("last", r"(?:get_conversation_template|conv_templates|"
                          r"default_conversation|append_message|get_conv_template)\(?"),),
    "net.backbone": (("last", r"(?:resnet(?:18|34|50|101|152)|vgg(?:11|13|16|19)\w*|densenet\d+|"
                      r"inception_v3|mobilenet\w*|alexnet|squeezenet\w*|efficientnet\w*|"
                      r"ResNet(?:18|34|50|101|152)\w*|VGG(?:16|19)|DenseNet\d+|InceptionV3|"
                      r"InceptionResNetV2|MobileNet\w*|Xception|EfficientNet\w*|NASNet\w*|"
                      r"ResNeXt\w*|resnext\w*)\(?"),),
    "net.rnn": (("last", r"(?:LSTM|GRU|RNN|SimpleRNN|LSTMCell|GRUCell|RNNCell|BasicLSTMCell|"
                 r"BasicRNNCell|LSTMBlockCell|MultiRNNCell|CuDNNLSTM|CuDNNGRU|ConvLSTM2D|"
                 r"ConvLSTM\w*|ConvGRU\w*|TrajGRU\w*|dynamic_rnn|bidirectional_dynamic_rnn|"
                 r"static_rnn|LSTMLayer|GRULayer|RecurrentLayer|LSTMBuilder|GRUBuilder|"
                 r"VanillaLSTMBuilder|CoupledLSTMBuilder|lstmLayer|bilstmLayer|StackedLSTM|BiLSTM|"
                 r"BLSTM|lstm\w*|gru_\w+|rnn_cell|\w+LSTM\w*|\w+GRU|\w+RNN\w*)\(?"),),
    "net.attention": (("last", r"(?:MultiheadAttention|MultiHeadAttention|MultiHeadedAttention|"
                       r"multihead_attention|multi_head_attention|MultiHeadSelfAttention|"
                       r"TransformerEncoder\w*|TransformerDecoder\w*|TransformerBlock|Transformer|"
                       r"SelfAttention|self_attention|scaled_dot_product\w*|BertModel|BertFor\w+|"
                       r"GPT2\w+|VisionTransformer|multi_?head_attn\w*|MultiHeadAttn\w*|"
                       r"self_attn\w*|SelfAttn\w*|split_heads|merge_heads)\(?"),),
    # Hugging Face model classes: pre-trained transformers, whatever their task head
    "net.hf_transformer": (("full", r"(?:transformers\.)?(?:AutoModelFor\w+|"
                            r"AutoModel\.from_(?:pretrained|config)|\w+For(?:CausalLM|"
                            r"ConditionalGeneration|MaskedLM|Seq2SeqLM|SequenceClassification|"
                            r"TokenClassification|QuestionAnswering|PreTraining)|\w*(?:Llama|"
                            r"Mistral|Qwen\d*|GPT2|GPTNeoX|T5|Bert|Roberta|CLIPText|CLIPVision|"
                            r"Whisper|ViT)(?:Model|DecoderLayer|EncoderLayer|Attention))\b"),),
    # attention written by hand: a transformer block only beside its companions (below); the
    # channel and spatial attention of CNNs (SE, CBAM) is not dot-product attention
    "net.attn_block": (("last", r"(?:(?!(?:Channel|Spatial|Pixel|Coord|SE|Squeeze\w*|Triplet|"
                        r"Position|Criss\w*|ECA?|Efficient\w*)Attention)\w*Attention\w*|\w*Attn"
                        r"(?:Block|Layer|Processor|Op)?|(?:to_|c_|in_|)qkv\w*|qkv|to_[qkv]|"
                        r"[qkv]_proj|query_key_value|flash_attn\w*|"
                        r"memory_efficient_attention|\w*dot_product_attention|"
                        r"\w+Transformer(?:Block|Layer|Encoder|Decoder|Model)?\w*|"
                        r"Transformer\w+)\(?"),),
    # what a transformer block holds besides attention: layer norms and a feed-forward MLP (a
    # DDPM U-Net's attention sits beside group norms only)
    "net.tf_companion": (("last", r"(?:LayerNorm\w*|RMSNorm\w*|LayerNormalization|layer_norm|"
                          r"rms_norm|\w*FeedForward\w*|feed_forward\w*|Mlp\w*|mlp|MLP|\w*FFN\w*|"
                          r"ffn\w*)\(?"),),
    # vision-transformer backbones by name, as `net.backbone` names CNNs
    "net.tf_backbone": (("last", r"(?:\w*_)?(?:vit|deit|beit|swin|levit)[a-z]?\d*(?:_\w+)?\(?|"
                         r"(?:ViT|DeiT|BEiT|Swin|LeViT)(?:[A-Z]\w*)?\(?"),),
    "net.graph": (("last", r"(?:GCNConv|GATConv|SAGEConv|GINConv|GraphConv|ChebConv|GatedGraphConv|"
                   r"MessagePassing|GraphConvolution\w*|GraphAttention\w*|GCN\w*|\w+GAT|gcn\w*|"
                   r"GGNN\w*|ggnn\w*|graph_conv\w*|Propogator|Propagator)\(?"),
                  ("full", r"torch_geometric\b|dgl\b|spektral\b")),
    # `build_generator()`, `_generator_model()`, `create_discriminator_loss()`: the networks
    # named inside a longer name (but not a data `train_generator`)
    "net.discriminator": (("last", r"(?:discriminator\w*|Discriminator\w*|netD|net_d|D_loss|"
                           r"d_loss|loss_D|loss_d|disc_loss|errD|D_real|D_fake|"
                           r"_*(?:\w+_)?discriminator_(?:model|net|network|loss|optimizer|vars|"
                           r"variables|params)\w*|(?:build|create|make|define|get|init)_"
                           r"discriminator\w*)\(?"),),
    "net.generator": (("last", r"(?:generator|Generator|netG|net_g|G_loss|g_loss|loss_G|loss_g|"
                       r"gen_loss|errG|_*(?:\w+_)?generator_(?:model|net|network|loss|optimizer|"
                       r"vars|variables|params)\w*|(?:build|create|make|define|get|init)_"
                       r"generator\w*)\(?"),),
    # the two sides of adversarial training: each network's own loss or optimizer
    "net.d_step": (("full", r"(?:\w+\.)*(?:d_loss\w*|D_loss\w*|loss_D\w*|loss_d|lossD\w*|"
                    r"disc_loss\w*|dis_loss\w*|loss_dis\w*|errD\w*|l_d_\w+|[dD]_cost|disc_cost|"
                    r"(?:optimizer|optim|opt)_?(?:[Dd]|disc|dis)|[dD]_?(?:optimizer|optim|opt|solver|"
                    r"train_op|vars)|D_solver|run_D|train_D|\w*discriminator_(?:loss|optimizer|optim|"
                    r"opt)\w*|\w*disc_(?:optimizer|opt)\w*)\b"),),
    "net.g_step": (("full", r"(?:\w+\.)*(?:g_loss\w*|G_loss\w*|loss_G\w*|loss_g|lossG\w*|"
                    r"gen_loss\w*|gene_loss\w*|loss_gen\w*|errG\w*|l_g_\w+|[gG]_cost|gen_cost|"
                    r"(?:optimizer|optim|opt)_?(?:[Gg]|gen)|[gG]_?(?:optimizer|optim|opt|solver|"
                    r"train_op|vars)|G_solver|run_G|train_G|\w*generator_(?:loss|optimizer|optim|"
                    r"opt)\w*|\w*gen_(?:optimizer|opt)\w*)\b"),),
    "net.adversarial": (("last", r"(?:[Aa]dversarial\w*|GAN|gan_loss|DCGAN|WGAN\w*)\(?"),),
    "net.rl": (("full", r"gym\.make\("),
               ("last", r"(?:[Rr]eplay_?(?:[Bb]uffer|[Mm]emory)\w*|experience_replay|"
                r"epsilon_greedy|Q_?[Nn]etwork|q_net\w*|target_net\w*|DQN\w*|DDPG\w*|A3C|A2C|"
                r"PPO\w*|TRPO|actor_critic|ActorCritic\w*|policy_gradient\w*|[qQ]_values?|"
                r"discounted_rewards?|ValueNetwork|PolicyNetwork|QLearning\w*|q_learning|[Aa]ctor(?:_\w+)?|"
                r"[Cc]ritic(?:_\w+)?|rewards?|\w+_rewards?)\(?")),
    "net.dense": (("last", r"(?:Linear|Dense|dense|fully_connected|InnerProduct|DenseLayer|"
                   r"fullyConnectedLayer|linear)\("), ("full", r"nn\.Linear\b")),
    # what the project does with its models
    "proj.train": (("attr", r"backward\(|fit\(|fit_generator\(|train_on_batch\(|minimize\(|"
                    r"apply_gradients\(|fit_one_cycle\("),
                   ("last", r"GradientTape\(|SGDSolver\(|get_solver\("),
                   ("full", r"(?:\w+\.)*optimizer\.step\(|gluon\.Trainer\(|(?:\w+\.)*trainer\."
                    r"(?:step|run|train|fit)\(|optim\.(?:sgd|adam\w*|rmsprop|adagrad|adadelta|nag|lbfgs|cg|"
                    r"asgd)\(|"
                    r"trainNetwork\(|(?:\w+\.)*solver\.(?:step|solve)\(|lasagne\.updates\.\w+\("),
                   ("last", r"AddGradientOperators\(|build_sgd\(|GradientTape\("),
                   # a trainer's step in C++/CUDA (`m_trainer->training_step(stream, ...)`)
                   ("last", r"training_step\(")),
    "proj.optimizer": (("full", r"optim\.(?:SGD|Adam\w*|RMSprop|Adagrad|Adadelta)\(|"
                        r"tf\.train\.\w+Optimizer\(|(?:\w+\.)*optimizers\.(?:SGD|Adam|RMSprop|"
                        r"Adagrad)\("),
                       ("last", r"(?:Adam|SGD|RMSprop|Adagrad|Adadelta|Momentum|GradientDescent|"
                        r"Ftrl|Nadam|Adamax|AdamW)(?:Optimizer)?\(")),
    "proj.data_loader": (("full", r"torchvision\.datasets\b|(?:\w+\.)*datasets\.(?:MNIST|CIFAR10|"
                          r"CIFAR100|FashionMNIST|ImageNet|ImageFolder|VOCDetection|CocoDetection|"
                          r"SVHN|STL10)\b|(?:\w+\.)*keras\.datasets\b|tfds\.load\(|"
                          r"tensorflow_datasets\b|(?:\w+\.)*input_data\.read_data_sets\("),
                         ("last", r"load_dataset\(|fetch_openml\(")),
    "proj.download": (("full", r"wget\b|gdown\b"),
                      ("last", r"urlretrieve\(|download_url\(|maybe_download\w*\(|"
                       r"download_and_extract\w*\(|download\w*\(|urlopen\(")),
    "proj.load": (("last", r"load_state_dict\(|load_model\(|load_weights\(|from_pretrained\("),
                  ("full", r"torch\.load\b|(?:\w+\.)*saver\.restore\(|hub\.load\(|"
                   r"torch\.hub\.load\(|caffe\.(?:Classifier|Net)\("),
                  ("attr", r"caffemodel|t7|h5|pth|ckpt")),
}  # fmt: skip

# Signals spanning tokens: (trigger word that must occur in the text, pattern).
PHRASES: dict[str, tuple[str, str]] = {
    "model.class": (
        "class",
        r"class\s+\w+\s*\(\s*(?:torch\.nn|nn|tf\.keras|keras|tf\.keras\.models|keras\.models|"
        r"chainer|gluon|gluon\.nn)?\.?(?:Module|Model|Chain|ChainList|HybridBlock|Block)\s*\)",
    ),
    "keras.layer_class": (
        "Layer",
        r"class\s+\w+\s*\(\s*(?:tf\.keras\.|keras\.)?layers\.Layer\s*\)",
    ),
    "keras.functional": ("Model(", r"Model\(\s*(?:inputs?\s*=|\[|\w+\s*,\s*\w+)"),
    "keras.import": ("keras", r"from\s+tensorflow(?:_core)?(?:\.python)?\s+import\s+keras\b"),
    "keras.backend": ("KERAS_BACKEND", r"KERAS_BACKEND['\"]?[\s\]=:,]*['\"]?\w+"),
    "caffe.cli_train": ("caffe", r"caffe(?:\.bin|_bin)?['\"]?\s*,?\s*['\"]?\s*train\b"),
    "darknet.cli_train": ("darknet", r"\bdarknet\s+(?:detector|classifier)\s+train\b"),
    "lua.backward": (":backward", r":backward\("),
    # an optimiser's updates; those `theano.scan` returns are its loop's (`rval, updates = scan(`)
    "theano.updates": ("updates", r"\bupdates\s*=\s*(?!(?:theano\.)?scan\()[\w\[(]"),
    "rl.gym": ("gym", r"^\s*import\s+gym\b|\bfrom\s+gym\b"),
    "proj.curl": ("curl", r"\bcurl\s+-"),
    "proj.pretrained": ("pretrained", r"pretrained\s*=\s*True"),
}

# A leading "." keeps chained calls such as `Adam(lr).minimize(` recognisable as method calls.
TOKEN = re.compile(r"\.?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\(?")
STEMS = re.compile(trie_pattern(STEM_WORDS))  # a cheap filter in front of the token patterns
TOKEN_PATTERNS = {
    name: tuple((scope, re.compile(p)) for scope, p in rules) for name, rules in TOKENS.items()
}
PHRASE_PATTERNS = {name: (trigger, re.compile(p, re.M)) for name, (trigger, p) in PHRASES.items()}
_CACHE: dict[str, tuple[str, ...]] = {}
_CACHE_LIMIT = 400_000


def _fires(token: str, last: str, rules: tuple[tuple[Scope, re.Pattern[str]], ...]) -> bool:
    bare = token[1:] if token[0] == "." else token
    for scope, pattern in rules:
        if scope == "full":
            if pattern.match(bare) or (bare is not token and pattern.match(token)):
                return True
        elif (scope == "last" or last is not token) and pattern.fullmatch(last):
            return True
    return False


def classify_token(token: str) -> tuple[str, ...]:
    """The token signals `token` fires (cached across files)."""
    found = _CACHE.get(token)
    if found is None:
        if STEMS.search(token.lower()):
            last = token.rsplit(".", 1)[-1] if "." in token else token
            found = tuple(n for n, rules in TOKEN_PATTERNS.items() if _fires(token, last, rules))
        else:
            found = ()
        if len(_CACHE) >= _CACHE_LIMIT:  # a long `analyze` run must not grow without bound
            _CACHE.clear()
        _CACHE[token] = found
    return found


@dataclass
class Hit:
    """How often a signal occurs in one file and a few distinct matched texts (for evidence)."""

    count: int
    samples: list[str] = field(default_factory=list)


def scan(text: str, only: frozenset[str] | None = None) -> dict[str, Hit]:
    """Every token and phrase signal occurring in `text` (or those in `only`), with counts and
    sample matches."""
    hits: dict[str, Hit] = {}
    for token, n in Counter(TOKEN.findall(text)).items():
        for name in classify_token(token):
            if only is not None and name not in only:
                continue
            hit = hits.get(name)
            if hit is None:
                hits[name] = Hit(n, [token])
            else:
                hit.count += n
                if len(hit.samples) < 8:
                    hit.samples.append(token)
    for name, (trigger, pattern) in PHRASE_PATTERNS.items():
        if trigger not in text or (only is not None and name not in only):
            continue
        for match in pattern.finditer(text):
            hit = hits.setdefault(name, Hit(0, []))
            hit.count += 1
            if len(hit.samples) < 8 and match.group(0) not in hit.samples:
                hit.samples.append(match.group(0))
    return hits


def merge(hits: dict[str, Hit], more: dict[str, Hit]) -> None:
    """Add the hits of `more` to `hits` (counts summed, samples kept up to eight)."""
    for name, extra in more.items():
        hit = hits.get(name)
        if hit is None:
            hits[name] = extra
            continue
        hit.count += extra.count
        hit.samples.extend(s for s in extra.samples[: 8 - len(hit.samples)])


def locate(text: str, sample: str) -> tuple[int, str]:
    """1-based line and stripped text of the first occurrence of `sample` in `text` (0 if none)."""
    needle = sample.rstrip("(") if sample.endswith("(") else sample
    pos = text.find(sample)
    if pos < 0:
        pos = text.find(needle)
    if pos < 0:
        return 0, ""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text.count("\n", 0, pos) + 1, text[start : len(text) if end < 0 else end].strip()[:200]
