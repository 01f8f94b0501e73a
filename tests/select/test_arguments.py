"""Values for README placeholders and required arguments: outputs get a folder of the run, data
paths a stand-in path, run names a word, device counts one, ports a fixed one, anything else
nothing."""

from __future__ import annotations

import pytest

from miner.select.arguments import (
    fill_in_value,
    fill_required,
    make_output_folders,
    one_device,
    required_arguments,
    role_of,
    usage_choices,
)


@pytest.mark.parametrize(
    ("option", "placeholder", "value"),
    [
        ("--data-path", "/path/to/imagenet/train", "{run_dir}/stand-in-data/imagenet-train"),
        ("", "[imagenet-folder]", "{run_dir}/stand-in-data/imagenet"),
        ("--output-dir", "<PATH/TO/OUTPUT/DIR>", "{run_dir}/outputs/output"),
        ("--results_dir", "$LOGDIR", "{run_dir}/outputs/logdir"),
        ("--data_dir", "$PREPROCESSED_DATA_DIR", "{run_dir}/stand-in-data/preprocessed-data"),
        ("--save_model", "./save/your_new_trained.pt", "{run_dir}/outputs/your_new_trained.pt"),
        ("--data_path", "/data/tweets.csv", "{run_dir}/stand-in-data/tweets.csv"),
        ("--outDir", "<dir>", "{run_dir}/outputs/out"),
        ("--exp_name", "<name>", "smoke"),
        ("--config", "$CONFIG", None),
        ("--resume", "/path/to/ckpt", None),
        ("--pretrained", "<PATH/TO/WEIGHTS>", None),
        ("", "path/to/model.pth", None),
        ("--field", "enter-field-here", None),
        ("--gpu_ids", "<ids>", "0"),
        ("", "<num_gpu>", "1"),
        ("", "<port>", "29500"),
        ("--gpus", "$GPUS", "1"),
        ("--nproc_per_node", "<N>", "1"),
        ("--gpu", "<gpu_id>", "0"),
        ("--master_port", "${PORT}", "29500"),
        ("--device", "<id>", None),
        ("", "<gpu_list>", None),
    ],
)
def test_a_placeholder_gets_what_its_words_say_it_is(option, placeholder, value):
    assert fill_in_value(option, placeholder) == value


def test_a_placeholder_inside_a_longer_value_is_replaced_where_it_stands():
    value = "ImageNet:split=TRAIN:root=<PATH/TO/DATASET>:extra=<PATH/TO/DATASET>"
    assert fill_in_value("train.dataset_path", value) == (
        "ImageNet:split=TRAIN:root={run_dir}/stand-in-data/dataset"
        ":extra={run_dir}/stand-in-data/dataset"
    )


def test_the_option_speaks_before_the_placeholder():
    assert role_of("--save-dir", "/path/to/data") == "output"
    assert role_of("--weights", "/path/to/data") == ""
    assert role_of("-d", "/path/to/data") == "data"


@pytest.mark.parametrize(
    ("message", "names"),
    [
        ("train.py: error: the following arguments are required: --actual_resume, --data_root",
         ("--actual_resume", "--data_root")),
        ("train.py: error: the following arguments are required: -o/--output_dir, data",
         ("--output_dir", "data")),
        ("train.py: error: argument --cfg is required", ("--cfg",)),
        ("Error: Missing option '--outdir'.", ("--outdir",)),
        ('Error: Missing option "--outdir".', ("--outdir",)),
        ("FATAL Flags parsing error: flag --data_dir=None: Flag --data_dir must have a value "
         "other than None.", ("--data_dir",)),
        ("train.py: error: unrecognized arguments: -log m30k", ()),
    ],
)  # fmt: skip
def test_required_arguments_are_read_from_each_parsers_message(message, names):
    assert required_arguments(message) == names


def test_required_arguments_are_filled_only_when_every_one_can_be():
    given = fill_required(("--outdir", "--data_root"))
    assert [(a.option, a.value, a.role) for a in given] == [
        ("--outdir", "{run_dir}/outputs/outdir", "output"),
        ("--data_root", "{run_dir}/stand-in-data/data-root", "data"),
    ]
    assert [w for a in given for w in a.words()][:2] == ["--outdir", "{run_dir}/outputs/outdir"]
    assert fill_required(("--outdir", "--actual_resume")) == ()  # a checkpoint: nothing to give
    assert fill_required(("data_dir", "image_dir")) == ()  # two positionals: order unknown
    assert fill_required(("data_dir",))[0].words() == ("{run_dir}/stand-in-data/data",)


def test_a_required_option_takes_a_toy_choice_its_usage_lists():
    usage = "usage: trainer_keras.py [-h] --task {m4,kcg,nrj,dummy} [--test]"
    choices = usage_choices(usage)
    assert choices == {"--task": ("m4", "kcg", "nrj", "dummy")}
    given = fill_required(("--task",), choices)
    assert [(a.option, a.value, a.role) for a in given] == [("--task", "dummy", "choice")]
    plain = fill_required(("--mode",), usage_choices("usage: x.py --mode {train,eval}"))
    assert plain[0].words() == ("--mode", "train")  # no toy choice: the first


def test_output_folders_are_made_under_the_run_folder_only(tmp_path):
    outputs = tmp_path / "outputs"
    make_output_folders(
        ["python", "train.py", f"--out={outputs}/logs", "--save", f"{outputs}/ckpt/model.pt",
         "--data", str(tmp_path / "stand-in-data" / "x"), "/elsewhere/folder"],
        tmp_path,
    )  # fmt: skip
    assert (outputs / "logs").is_dir() and (outputs / "ckpt").is_dir()
    assert not (outputs / "ckpt" / "model.pt").exists()
    assert not (tmp_path / "stand-in-data").exists()


@pytest.mark.parametrize(
    ("command", "expected", "notes"),
    [
        (("train.py", "-f", "exps/yolox_s.py", "-d", "8", "-b", "64"),
         ("train.py", "-f", "exps/yolox_s.py", "-d", "1", "-b", "64"), ("-d 8 -> 1",)),
        (("train.py", "--gpus=0,1,2,3"), ("train.py", "--gpus=0"), ("--gpus 0,1,2,3 -> 0",)),
        (("train.py", "--nproc_per_node=8", "--epochs", "8"),
         ("train.py", "--nproc_per_node=1", "--epochs", "8"), ("--nproc_per_node 8 -> 1",)),
        (("train.py", "--gpu_ids", "2,3"), ("train.py", "--gpu_ids", "0"), ("--gpu_ids 2,3 -> 0",)),
        (("train.py", "--gpu", "0", "-b", "8"), ("train.py", "--gpu", "0", "-b", "8"), ()),
        (("train.py", "--num_gpus", "cuda"), ("train.py", "--num_gpus", "cuda"), ()),
    ],
)  # fmt: skip
def test_a_command_asking_for_several_devices_asks_for_one(command, expected, notes):
    assert one_device(command) == (expected, notes)


def test_a_required_checkpoint_argument_asks_for_weights() -> None:
    from miner.select.arguments import weights_required

    text = "main.py: error: the following arguments are required: --actual_resume, --data_root"
    assert weights_required(text) == "--actual_resume"
    assert weights_required("error: the following arguments are required: --data_root") is None
    assert weights_required("Missing option '--pretrained-weights'.") == "--pretrained-weights"


def test_a_placeholder_inside_a_path_takes_the_repositorys_file_it_names() -> None:
    from miner.select.arguments import repository_path

    paths = frozenset({
        "config/st_gcn/ntu-xsub/train.yaml", "config/st_gcn/kinetics-skeleton/train.yaml",
        "config/st_gcn/kinetics-skeleton/test.yaml",
    })  # fmt: skip
    assert repository_path("config/st_gcn/<dataset>/train.yaml", paths) == (
        "config/st_gcn/kinetics-skeleton/train.yaml"
    )
    assert repository_path("./config/st_gcn/${DATASET}/test.yaml", paths) == (
        "config/st_gcn/kinetics-skeleton/test.yaml"
    )
    assert repository_path("data/<name>/train.csv", paths) is None  # nothing there: data
    assert repository_path("<path-to-config>", paths) is None  # a placeholder alone


def test_a_data_placeholder_takes_the_one_shipped_file_its_words_name():
    from miner.select.arguments import repository_data

    paths = frozenset({"dataset.csv", "data/train.tsv", "data/test.tsv", "train.py", "dataset.py"})
    assert repository_data("-train", "<dataset_path>", paths) == "dataset.csv"
    assert repository_data("--train", "<train_file>", paths) == "data/train.tsv"
    assert repository_data("--data", "<path>", paths) is None  # no file named by the words
    two = paths | {"other/dataset.json"}
    assert repository_data("-train", "<dataset_path>", two) is None  # which one: not ours to say
    assert repository_data("--model", "<model_path>", paths | {"model.h5"}) is None  # weights


def test_required_counts_and_batch_sizes_get_small_values():
    from miner.select.arguments import fill_required

    filled = fill_required(("--train_dir", "--output_dir", "--batch_size", "--num_epochs"))
    assert [(a.option, a.value, a.role) for a in filled][2:] == [
        ("--batch_size", "4", "batch"), ("--num_epochs", "1", "count")]  # fmt: skip
    assert filled[0].role == "data" and filled[1].role == "output"
    assert fill_required(("--learning_rate",)) == ()  # nothing a run can make up


def test_a_required_config_takes_a_configuration_the_repository_ships():
    from miner.select.arguments import fill_required, repository_config

    paths = frozenset({"resources/unet/train_config.yml", "resources/unet/test_config.yml",
                       "tests/resources/config_train.yml", ".travis.yml", "conda/meta.yaml",
                       "config.py", "train.py"})  # fmt: skip
    [config] = fill_required(("--config",), None, paths)
    assert (config.option, config.role) == ("--config", "config")
    assert config.value == "resources/unet/train_config.yml"  # training's, the shortest path
    assert "configuration" in config.note()
    assert repository_config("--config", "", frozenset({"config.py", "train.py"})) is None
    assert fill_required(("--config",), None, frozenset()) == ()
