"""Stand-in files for public benchmark data sets read from a path: the missing path read off a
log line, the data set it names, layouts that the data sets' own readers accept, and never a
write outside the run's folders."""

from __future__ import annotations

import csv
import json
import zipfile

import pytest
from PIL import Image

from miner.select.standins.assists import read_assists
from miner.select.standins.benchmark_files import match_benchmark, missing_path, stand_in_files
from miner.select.standins.benchmark_layouts import TIME_SERIES


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("FileNotFoundError: [Errno 2] No such file or directory: '../dataset/ETTh1.csv'",
         "../dataset/ETTh1.csv"),
        ("FileNotFoundError: [Errno 2] File b'./data/ETT/ETTh1.csv' does not exist: "
         "b'./data/ETT/ETTh1.csv'", "./data/ETT/ETTh1.csv"),
        ("OSError: No such file: /tmp/x/src/data/train.json", "/tmp/x/src/data/train.json"),
        ("AssertionError: ./datasets/maps/trainA is not a valid directory",
         "./datasets/maps/trainA"),
        ("ValueError: path '/data/coco' does not exist", "/data/coco"),
        ("ValueError: Failed to find file: ./data/cityscapes/leftImg8bit/train/a.png.",
         "./data/cityscapes/leftImg8bit/train/a.png"),
        ("RuntimeError: shapes do not match", None),
    ],
)  # fmt: skip
def test_the_missing_path_is_read_off_each_kind_of_message(line, path):
    assert missing_path(line) == path


@pytest.mark.parametrize(
    ("path", "dataset", "root"),
    [
        ("./data/ETT/ETTh1.csv", "ETTh1.csv (Informer/Autoformer time series)",
         "data/ETT/ETTh1.csv"),
        ("dataset/electricity/electricity.csv", "electricity.csv (Informer/Autoformer time series)",
         "dataset/electricity/electricity.csv"),
        ("data/solar_AL.txt", "solar_AL.txt (LSTNet multivariate time series)",
         "data/solar_AL.txt"),
        ("/data/coco/annotations/instances_train2017.json", "COCO", "/data/coco"),
        ("coco/val2017", "COCO", "coco"),
        ("./data/nerf_synthetic/lego/transforms_train.json", "NeRF Blender scene",
         "data/nerf_synthetic/lego"),
        ("./data/nerf_llff_data/fern/poses_bounds.npy", "LLFF scene", "data/nerf_llff_data/fern"),
        ("datasets/facades/train", "facades (pix2pix/CycleGAN)", "datasets/facades"),
        ("./datasets/horse2zebra/trainA", "horse2zebra (pix2pix/CycleGAN)", "datasets/horse2zebra"),
        ("datasets/maps", "maps (pix2pix/CycleGAN)", "datasets/maps"),
        ("datasets/cifar10-32x32.zip", "cifar10-32x32.zip (dataset_tool image archive)",
         "datasets/cifar10-32x32.zip"),
        ("/run/stand-in-data/afhqv2-512x512.zip", "afhqv2-512x512.zip (dataset_tool image archive)",
         "/run/stand-in-data/afhqv2-512x512.zip"),
        ("Data/gowalla/train.txt", "gowalla (NGCF user-item interactions)", "Data/gowalla"),
        ("../data/amazon-book/test.txt", "amazon-book (NGCF user-item interactions)",
         "../data/amazon-book"),
        ("./data/LJSpeech-1.1/metadata.csv", "LJ Speech", "data/LJSpeech-1.1"),
        ("/home/user/LJSpeech-1.1/wavs", "LJ Speech", "/home/user/LJSpeech-1.1"),
        ("/run/home/data/VOCdevkit/VOC2007/ImageSets/Main/trainval.txt",
         "PASCAL VOC 2007 and 2012", "/run/home/data/VOCdevkit"),
        ("data/VOC/VOC2012/JPEGImages", "PASCAL VOC 2007 and 2012", "data/VOC"),
        ("./data/cora/cora.content", "cora (LINQS citation graph)", "data/cora"),
        ("data/citeseer/citeseer.cites", "citeseer (LINQS citation graph)", "data/citeseer"),
    ],
)  # fmt: skip
def test_a_missing_path_names_its_data_set_and_the_root_to_write(path, dataset, root):
    found = match_benchmark(path)
    assert found is not None
    assert (found.benchmark, str(found.root)) == (dataset, root)


@pytest.mark.parametrize(
    "path",
    [
        "data/train.csv",  # a project's own file: no public layout to copy
        "outputs/maps/run1",  # a common word, not in a data folder nor followed by a split
        "cityscapes/leftImg8bit/train",  # Cityscapes' own layout, not pix2pix's
        "coco/annotations/my_labels.json",  # another annotation file than COCO's
        "ETTh1.csv.bak",
        "data/images.zip",  # an archive that states no size: no layout to copy
        "data/train.txt",  # a split file in a folder that names no interaction set
        "data/cora/cora.npz",  # another form of the graph than LINQS' text files
    ],
)
def test_paths_that_only_look_like_a_data_set_are_left_alone(path):
    assert match_benchmark(path) is None


def test_a_time_series_file_has_the_real_columns_rows_and_dates(tmp_path):
    line = "FileNotFoundError: [Errno 2] File b'./data/ETT/ETTh1.csv' does not exist"
    written = stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report")
    assert written is not None
    with (tmp_path / "data/ETT/ETTh1.csv").open() as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["date", "HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]
    assert len(rows) - 1 == TIME_SERIES["ETTh1.csv"].rows == 17420  # Informer's borders need it
    assert rows[1][0] == "2016-07-01 00:00:00" and rows[2][0] == "2016-07-01 01:00:00"
    assert all(float(v) >= 0 for v in rows[1][1:])


def test_a_wide_table_keeps_its_columns_and_loses_rows(tmp_path):
    written = stand_in_files("No such file or directory: 'traffic.txt'", tmp_path, (tmp_path,),
                             tmp_path / "report")  # fmt: skip
    assert written is not None
    lines = (tmp_path / "traffic.txt").read_text().splitlines()
    assert len(lines[0].split(",")) == 862 and 4000 <= len(lines) < 17544
    assert not lines[0].startswith("date")  # LSTNet's files have no header


def test_a_coco_root_has_the_real_categories_boxes_and_images(tmp_path):
    line = (
        "FileNotFoundError: [Errno 2] No such file or directory: "
        "'coco/annotations/instances_train2017.json'"
    )
    written = stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report")
    assert written is not None and written.classes == 80
    document = json.loads((tmp_path / "coco/annotations/instances_train2017.json").read_text())
    categories = {c["id"]: c["name"] for c in document["categories"]}
    assert len(categories) == 80 and categories[1] == "person" and categories[90] == "toothbrush"
    assert 12 not in categories  # COCO's ids have gaps
    image = document["images"][0]
    with Image.open(tmp_path / "coco/train2017" / image["file_name"]) as picture:
        assert picture.size == (image["width"], image["height"])
    for annotation in document["annotations"]:
        x, y, w, h = annotation["bbox"]
        assert annotation["category_id"] in categories and w > 0 and h > 0
        assert len(annotation["segmentation"][0]) == 8
    assert (tmp_path / "coco/annotations/instances_val2017.json").exists()


def test_a_nerf_scene_has_poses_that_look_at_the_origin_and_rgba_images(tmp_path):
    line = "No such file or directory: './data/nerf_synthetic/lego/transforms_train.json'"
    assert stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report") is not None
    scene = tmp_path / "data/nerf_synthetic/lego"
    for split in ("train", "val", "test"):
        meta = json.loads((scene / f"transforms_{split}.json").read_text())
        frame = meta["frames"][0]
        matrix = frame["transform_matrix"]
        position = [row[3] for row in matrix[:3]]
        backward = [row[2] for row in matrix[:3]]  # the camera looks down its -z axis
        norm = sum(v * v for v in position) ** 0.5
        assert all(abs(p / norm - b) < 1e-6 for p, b in zip(position, backward, strict=True))
        with Image.open(scene / (frame["file_path"] + ".png")) as picture:
            assert picture.mode == "RGBA" and picture.size == (800, 800)


def test_an_llff_scene_reads_as_the_nerf_loaders_read_it(tmp_path):
    import numpy

    line = "No such file or directory: './data/nerf_llff_data/fern/poses_bounds.npy'"
    assert stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report") is not None
    scene = tmp_path / "data/nerf_llff_data/fern"
    # load_llff.py's `_load_data(basedir, factor=8)`: the rows, then the images of the factor
    poses_arr = numpy.load(scene / "poses_bounds.npy")
    poses = poses_arr[:, :-2].reshape([-1, 3, 5]).transpose([1, 2, 0])
    bounds = poses_arr[:, -2:].transpose([1, 0])
    images = sorted((scene / "images_8").glob("*.png"))
    assert poses.shape[-1] == len(images) == 20 and (bounds > 0).all()
    with Image.open(images[0]) as first, Image.open(scene / "images" / images[0].name) as full:
        assert first.size == (32, 24) and full.size == (256, 192)
    assert (poses[:, 4, 0] == [192, 256, 1.1 * 256]).all()
    # its change of axes ([right, -down, back]) gives forward-facing cameras: identity rotations
    opengl = numpy.concatenate([poses[:, 1:2], -poses[:, 0:1], poses[:, 2:]], 1)
    assert numpy.allclose(opengl[:3, :3, 0], numpy.eye(3))


@pytest.mark.parametrize("name", ["train-v1.1.json", "dev-v2.0.json"])
def test_a_squad_file_has_answers_that_are_spans_of_their_context(tmp_path, name):
    line = f"FileNotFoundError: [Errno 2] No such file or directory: 'data/{name}'"
    assert stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report") is not None
    document = json.loads((tmp_path / "data" / name).read_text())
    assert document["version"] == name[-8:-5]
    impossible = 0
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            context = paragraph["context"]
            for qa in paragraph["qas"]:
                impossible += bool(qa.get("is_impossible"))
                for answer in qa["answers"] + qa.get("plausible_answers", []):
                    start = answer["answer_start"]
                    assert context[start : start + len(answer["text"])] == answer["text"]
    assert (impossible > 0) is name.endswith("v2.0.json")


def test_lj_speech_has_a_pipe_separated_transcript_for_every_clip(tmp_path):
    import wave

    line = (
        "FileNotFoundError: [Errno 2] No such file or directory: './data/LJSpeech-1.1/metadata.csv'"
    )
    written = stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report")
    assert written is not None and written.root == tmp_path / "data" / "LJSpeech-1.1"
    rows = (written.root / "metadata.csv").read_text().splitlines()
    assert len(rows) == 64
    for row in rows:
        clip, text, normalized = row.split("|")
        assert text == normalized and text.endswith(".")
        with wave.open(str(written.root / "wavs" / f"{clip}.wav")) as audio:
            assert (audio.getnchannels(), audio.getsampwidth(), audio.getframerate()) == (
                1,
                2,
                22050,
            )
            assert 1.0 <= audio.getnframes() / 22050 <= 2.5


def test_paired_and_unpaired_layouts_for_image_translation(tmp_path):
    line = "AssertionError: ./datasets/facades/trainA is not a valid directory"
    assert stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report") is not None
    root = tmp_path / "datasets/facades"
    for folder in ("train", "val", "test", "trainA", "trainB", "testA", "testB"):
        assert len(list((root / folder).glob("*.jpg"))) == 8
    with Image.open(next((root / "train").glob("*.jpg"))) as pair:
        assert pair.size == (512, 256)  # A and B side by side


def test_nothing_is_written_outside_the_run_or_over_what_is_there(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    outside = "No such file or directory: '../elsewhere/ETTh1.csv'"
    assert stand_in_files(outside, run, (run,), tmp_path / "report") is None
    assert not (tmp_path / "elsewhere").exists()
    absolute = f"No such file or directory: '{tmp_path}/home/data/ETTh1.csv'"
    assert stand_in_files(absolute, run, (run,), tmp_path / "report") is None
    (run / "datasets/facades").mkdir(parents=True)
    (run / "datasets/facades/README").write_text("the project's own")
    there = "No such file or directory: 'datasets/facades/train'"
    assert stand_in_files(there, run, (run,), tmp_path / "report") is None


def test_the_stand_in_is_reported_as_stand_in_data_with_its_shapes(tmp_path):
    line = "FileNotFoundError: [Errno 2] No such file or directory: 'data/exchange_rate.csv'"
    stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report")
    assists = read_assists(tmp_path / "report")
    assert assists.labels == ("stand-in data",)
    (served,) = assists.served
    assert served.loader == "files: exchange_rate.csv (Informer/Autoformer time series)"
    assert served.arrays == (("exchange_rate.csv", (7588, 9), "mixed"),)
    assert "No such file or directory: 'data/exchange_rate.csv'" in served.reason


def test_an_image_archive_reads_as_the_dataset_tool_family_reads_it(tmp_path):
    line = "Error: --data: [Errno 2] No such file or directory: 'datasets/cifar10-32x32.zip'"
    written = stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report")
    assert written is not None and written.classes == 10
    with zipfile.ZipFile(tmp_path / "datasets/cifar10-32x32.zip") as archive:
        # the family's ImageFolderDataset: sorted image names, one shape, labels by name
        names = sorted(n for n in archive.namelist() if n.endswith(".png"))
        labels = dict(json.loads(archive.read("dataset.json"))["labels"])
        shapes = set()
        for name in names:
            with archive.open(name) as member, Image.open(member) as image:
                shapes.add((image.size, image.mode))
    assert len(names) == 16 and shapes == {((32, 32), "RGB")}
    assert all(0 <= labels[name] < 10 for name in names)
    line = "FileNotFoundError: [Errno 2] No such file or directory: 'data/ffhq-256x128.zip'"
    stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report")
    with zipfile.ZipFile(tmp_path / "data/ffhq-256x128.zip") as archive:
        assert json.loads(archive.read("dataset.json")) == {"labels": None}
        with archive.open("00000/img00000000.png") as member, Image.open(member) as image:
            assert image.size == (256, 128)


def test_a_placeholders_image_folder_is_written_where_the_code_reads_images(tmp_path):
    import glob

    from miner.select.data_reruns import _image_folder
    from miner.select.standins.image_folder import ImageLayout, image_layout

    copy, logs = tmp_path / "copy", tmp_path / "logs"
    (copy / "data").mkdir(parents=True)
    (copy / "data/dataset.py").write_text(
        "import glob, os\nfrom PIL import Image\n"
        "def items(root):\n    return sorted(glob.glob(os.path.join(root, '*.jpg')))\n"
    )
    assert image_layout(copy) == ImageLayout((".jpg",), class_folders=False)
    missing = logs / "stand-in-data/images"
    line = f"FileNotFoundError: [Errno 2] No such file or directory: '{missing}'"
    written = _image_folder(line, copy, logs)
    assert written is not None and written.files == 16
    files = sorted(glob.glob(str(missing / "*.jpg")))
    with Image.open(files[0]) as image:
        assert len(files) == 16 and image.size == (256, 256)
    assert read_assists(logs / "standins").labels == ("stand-in data",)
    # never outside the run's stand-in folder, never twice, never for code that reads no images
    elsewhere = f"No such file or directory: '{copy}/data/train'"
    assert _image_folder(elsewhere, copy, logs) is None
    assert _image_folder(line, copy, logs) is None
    text = tmp_path / "text"
    (text / "src").mkdir(parents=True)
    (text / "src/load.py").write_text("rows = open(path).read().split()\n")
    again = line.replace("images", "corpus")
    assert image_layout(text) is None and _image_folder(again, text, logs) is None


def test_an_interaction_set_has_a_test_item_for_every_user_it_trains(tmp_path):
    from miner.select.standins.interaction_layouts import write_interactions

    written = write_interactions(tmp_path / "Data" / "gowalla", 0)
    rows = [[int(v) for v in line.split()] for line in (written.root / "train.txt").open()]
    tests = dict(tuple(int(v) for v in line.split()) for line in (written.root / "test.txt").open())
    assert len(rows) == len(tests) == 200 and [r[0] for r in rows] == list(range(200))
    for user, *items in rows:
        assert len(set(items)) == 7 and tests[user] not in items
    header = (written.root / "item_list.txt").read_text().splitlines()
    assert header[0] == "org_id remap_id" and len(header) == 301


def test_pascal_voc_has_both_years_with_boxes_lists_and_masks_of_the_twenty_classes(tmp_path):
    import xml.etree.ElementTree as ET

    import numpy
    from PIL import Image

    from miner.select.standins.voc_layouts import VOC_CLASSES

    line = ("FileNotFoundError: [Errno 2] No such file or directory: "
            "'home/data/VOCdevkit/VOC2007/ImageSets/Main/trainval.txt'")  # fmt: skip
    written = stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report")
    assert written is not None and written.root == tmp_path / "home/data/VOCdevkit"
    for year in ("2007", "2012"):
        base = written.root / f"VOC{year}"
        ids = (base / "ImageSets/Main/trainval.txt").read_text().split()
        assert len(ids) == 16 and len((base / "ImageSets/Main/test.txt").read_text().split()) == 8
        for image_id in ids:
            tree = ET.parse(base / "Annotations" / f"{image_id}.xml")
            width = int(tree.findtext("size/width") or 0)
            for obj in tree.findall("object"):
                assert obj.findtext("name") in VOC_CLASSES and obj.findtext("difficult") == "0"
                assert 1 <= int(obj.findtext("bndbox/xmin") or 0) < int(
                    obj.findtext("bndbox/xmax") or 0) <= width  # fmt: skip
            with Image.open(base / "JPEGImages" / f"{image_id}.jpg") as image:
                assert image.size == (500, 375)
            with Image.open(base / "SegmentationClass" / f"{image_id}.png") as mask:
                assert mask.mode == "P" and set(numpy.unique(numpy.array(mask))) <= {
                    0, 255, *range(1, 21)}  # fmt: skip
        rows = (base / "ImageSets/Main/aeroplane_trainval.txt").read_text().splitlines()
        assert len(rows) == 16 and all(row.split()[1] in ("1", "-1") for row in rows)


def test_a_citation_graph_reads_as_pygcn_reads_it(tmp_path):
    import numpy as np

    line = "OSError: ./data/cora/cora.content not found."  # numpy's genfromtxt
    written = stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report")
    assert written is not None and written.classes == 7
    # pygcn's load_data: ids, a 0/1 word vector and a class name a line; citations by id
    content = np.genfromtxt(tmp_path / "data/cora/cora.content", dtype=np.dtype(str))
    assert content.shape == (2708, 1435) and len(set(content[:, -1])) == 7
    features = content[:, 1:-1].astype(np.float32)
    assert set(np.unique(features)) == {0.0, 1.0} and features.sum(axis=1).min() > 0
    ids = {int(i): n for n, i in enumerate(content[:, 0])}
    edges = np.genfromtxt(tmp_path / "data/cora/cora.cites", dtype=np.int32)
    assert edges.shape == (5429, 2) and all(int(e) in ids for e in edges.flatten())
    # written once: a second missing line for the same graph adds nothing
    assert stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report") is None


def test_a_citation_graph_shipped_without_its_content_gets_content_for_its_own_papers(tmp_path):
    import numpy as np

    folder = tmp_path / "data" / "cora"
    folder.mkdir(parents=True)
    (folder / "cora.cites").write_text("35\t1033\n35\t103482\n1033\t35\n", encoding="utf-8")
    line = "OSError: ./data/cora/cora.content not found."
    written = stand_in_files(line, tmp_path, (tmp_path,), tmp_path / "report")
    assert written is not None and written.files == 1
    content = np.genfromtxt(folder / "cora.content", dtype=np.dtype(str))
    assert [int(i) for i in content[:, 0]] == [35, 1033, 103482]
    assert (folder / "cora.cites").read_text(encoding="utf-8").startswith("35\t1033")  # kept


def test_a_library_readers_folder_gets_split_and_class_folders_after_a_bare_failed_check(tmp_path):
    """timm's `create_dataset` asserts `os.path.exists(root)` without naming the path: the
    stand-in path the run put in its command is the one written, in the layout of the readers
    that walk class folders (train/ and val/, a folder a class)."""
    from miner.codebook import Evidence
    from miner.select.data_reruns import stand_in_files_for
    from miner.select.ladder import Marks
    from miner.select.smoke_records import SmokeOptions
    from miner.select.standins.image_folder import ImageLayout, image_layout
    from miner.select.training import Training

    copy, logs = tmp_path / "copy", tmp_path / "logs"
    copy.mkdir()
    (copy / "train.py").write_text("from timm.data import create_dataset, create_loader\n")
    assert image_layout(copy) == ImageLayout((".png",), class_folders=True)
    data = logs / "stand-in-data/image-net-dataset"
    check = Evidence("train.log", 31, "assert os.path.exists(root)", "smoke.needs_data.assert")
    command = f"python train.py {data} --model fastvit_t8 --output {logs}/outputs/out"
    failed = Training("needs_data", check, 1, 1.0, True, command, Marks(), None, False, False,
                      False)  # fmt: skip
    notes: list[str] = []
    assert stand_in_files_for(failed, copy, copy, logs, SmokeOptions(tmp_path / "out"), notes)
    for split in ("train", "val"):
        folders = sorted(p.name for p in (data / split).iterdir())
        assert folders == ["class_0", "class_1"]
        assert len(list((data / split / "class_1").glob("*.png"))) == 4
    assert not list(data.glob("*.png")) and "image-net-dataset" in notes[0]
    # the outputs folder is not data, and a check that names a path is read from its words
    assert not (logs / "outputs").exists()
    other = Training("needs_data", Evidence("train.log", 3, "assert x", "smoke.needs_data"), 1,
                     1.0, True, command.replace("image-net", "other"), Marks(), None, False,
                     False, False)  # fmt: skip
    assert not stand_in_files_for(other, copy, copy, logs, SmokeOptions(tmp_path / "out"), [])
