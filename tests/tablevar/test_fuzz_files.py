"""Fuzzing what a user hands the command line: recording files, calibration files, table
profiles and the one-line notation. Any content is read or refused with a ``ValueError``
naming the file (the command line prints it as one line, exit status 2), never anything else.

Each property runs ``FUZZ_EXAMPLES`` generated cases (``--hypothesis-show-statistics``
prints them).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from calibration.calibration_file import read_calibration
from calibration.tables import load_profile
from hardware.recording import RecordingWriter, read_meta, read_timestamps_ns
from rules.notation import NotationError, parse_observation
from tablevar.cli import main
from tests.fuzzing import fuzz_settings, json_values

FUZZ_EXAMPLES = 200
FUZZ = fuzz_settings(FUZZ_EXAMPLES)
SIZE_PX = (64, 48)


def _mutated(base: dict) -> st.SearchStrategy:
    """``base`` (a real file's JSON) with keys kept, replaced by anything, or dropped."""
    return st.fixed_dictionaries(
        {}, optional={k: st.one_of(st.just(v), json_values) for k, v in base.items()}
    )


def _contents(base: dict) -> st.SearchStrategy:
    return st.one_of(
        _mutated(base).map(lambda d: json.dumps(d).encode()),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.binary(max_size=200),
        _mutated(base).map(lambda d: json.dumps(d).encode() + b"\xff"),
    )


@pytest.fixture(scope="module")
def recording(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz") / "rec"
    with RecordingWriter(folder, fps=20.0, size_px=SIZE_PX, table="fistf", source="test") as w:
        for i in range(3):
            w.write(np.full((SIZE_PX[1], SIZE_PX[0], 3), 40 * i, np.uint8), i * 50_000_000)
    return folder


def _refused_naming(path: Path, exc: BaseException) -> None:
    assert isinstance(exc, ValueError), f"{type(exc).__name__}: {exc}"
    assert path.name in str(exc), str(exc)


@FUZZ
@given(data=st.data())
def test_any_meta_json_is_read_or_refused_naming_it(tmp_path_factory, recording, data):
    folder = tmp_path_factory.mktemp("meta")
    base = json.loads((recording / "meta.json").read_text("utf-8"))
    (folder / "meta.json").write_bytes(data.draw(_contents(base)))
    try:
        meta = read_meta(folder)
    except Exception as exc:
        _refused_naming(folder / "meta.json", exc)
    else:
        assert np.isfinite(meta.fps) and meta.fps > 0


timestamp_rows = st.lists(
    st.tuples(
        st.one_of(st.integers(-5, 10), st.text(max_size=5)),
        st.one_of(st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=8)),
    ),
    max_size=6,
).map(lambda rows: ("frame,t_ns\n" + "".join(f"{a},{b}\n" for a, b in rows)).encode())


@FUZZ
@given(content=st.one_of(timestamp_rows, st.binary(max_size=100)))
def test_any_timestamps_csv_is_read_or_refused_naming_it(tmp_path_factory, content):
    folder = tmp_path_factory.mktemp("ts")
    (folder / "timestamps.csv").write_bytes(content)
    try:
        read_timestamps_ns(folder)
    except Exception as exc:
        _refused_naming(folder / "timestamps.csv", exc)


@pytest.fixture(scope="module")
def calibration_base() -> dict:
    from calibration.calibration_file import Calibration
    from calibration.camera import CameraModel

    used = ("goal_line_left", "goal_line_right")
    cal = Calibration(
        table="fistf",
        image_size_px=SIZE_PX,
        camera=CameraModel.overhead(SIZE_PX, height_mm=1300.0, view_width_mm=1500.0),
        home="left",
        line_edges_mm={"goal_line_right": (-1.6, 1.4)},
        rms_px=0.1,
        rms_mm=0.5,
        per_line_px=dict.fromkeys(used, 0.1),
        per_line_mm=dict.fromkeys(used, 0.5),
        lines_used=used,
    )
    return cal.to_dict()


@FUZZ
@given(data=st.data())
def test_any_calibration_file_is_read_or_refused_naming_it(
    tmp_path_factory, calibration_base, data
):
    path = tmp_path_factory.mktemp("cal") / "calibration.json"
    camera = calibration_base["camera"]
    base = data.draw(
        st.one_of(
            st.just(calibration_base),
            _mutated(camera).map(lambda c: {**calibration_base, "camera": c}),
        )
    )
    path.write_bytes(data.draw(_contents(base)))
    try:
        cal = read_calibration(path)
    except Exception as exc:
        _refused_naming(path, exc)
    else:
        json.dumps(cal.to_dict(), allow_nan=False)  # what is read is finite


@FUZZ
@given(content=st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode)))
def test_any_table_profile_is_read_or_refused_naming_it(tmp_path_factory, content):
    path = tmp_path_factory.mktemp("table") / "club.toml"
    path.write_bytes(content)
    try:
        load_profile(path)
    except Exception as exc:
        _refused_naming(path, exc)


NOTATION_WORDS = "ball home away gk moving rest hidden flick touch r= u= ; , 1 -3.5 1e309 nan inf"
notation_words = st.sampled_from([*NOTATION_WORDS.split(), "0,0", "605,0", "x"])
notations = st.one_of(
    st.text(max_size=60),
    st.lists(notation_words, max_size=12).map(" ".join),
)


@FUZZ
@given(text=notations, t_s=st.floats(allow_nan=True, allow_infinity=True), frame=st.integers())
def test_any_notation_is_parsed_or_refused_with_a_notation_error(text, t_s, frame):
    try:
        parse_observation(text, t_s=t_s, frame=frame)
    except NotationError:
        pass


CLI_EXAMPLES = 40


@fuzz_settings(CLI_EXAMPLES)
@given(data=st.data(), name=st.sampled_from(["meta.json", "timestamps.csv"]))
def test_the_command_line_prints_one_line_for_any_damaged_recording(
    tmp_path_factory, recording, capsys, data, name
):
    import shutil

    folder = tmp_path_factory.mktemp("cli") / "rec"
    shutil.copytree(recording, folder)
    if name == "meta.json":
        base = json.loads((recording / name).read_text("utf-8"))
        content = data.draw(_contents(base))
    else:
        content = data.draw(st.one_of(timestamp_rows, st.binary(max_size=100)))
    (folder / name).write_bytes(content)
    capsys.readouterr()
    code = main(["analyze", str(folder), "--out", str(folder / "out"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("tablevar: error: ") and err.count("\n") == 1, err
