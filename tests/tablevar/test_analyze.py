"""``tablevar analyze`` end to end on a short rendered clip, against its exact truth."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from hardware.recording import RecordingWriter
from simulator.look import Look
from simulator.render import Renderer
from simulator.scene_library import build_scene
from simulator.scene_margins import build_margin_scene
from simulator.truth import contact_frame, frame_truth
from tablevar.cli import main
from tablevar.commands import analyze as analyze_cmd
from vision.colour import parse_colour
from vision.model import same_colour_as

SIZE = (800, 600)
FPS = 30.0
FRAMES = 75
TRACK_KEYS = {"frame", "t_s", "ball", "figures"}
SUMMARY_KEYS = {"frames", "fps", "clock_s", "score", "calls", "ms_per_frame", "complete", "game"}


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> Path:
    """A kick-off and a pass, rendered by a straight camera at 800 x 600, 30 fps."""
    pitch = load_pitch("fistf")
    scene = build_scene("kickoff_pass", seed=3)
    camera = CameraModel.overhead(SIZE, 1300.0, 1450.0)
    renderer = Renderer(camera, pitch, Look(), seed=3)
    truth = frame_truth(scene, FPS)
    folder = tmp_path_factory.mktemp("clips") / "kickoff"
    with RecordingWriter(
        folder, fps=FPS, size_px=SIZE, table="fistf", source="sim", camera=camera
    ) as writer:
        for i in range(FRAMES):
            writer.write(renderer.render(scene.frame(i / FPS)), round(i * 1e9 / FPS), truth[i])
    return folder


@pytest.fixture(scope="module")
def analyzed(clip, tmp_path_factory) -> tuple[Path, int]:
    out = tmp_path_factory.mktemp("out")
    status = main(["analyze", str(clip), "--out", str(out), "--no-progress"])
    return out, status


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_writes_every_file_in_the_contract(analyzed):
    out, status = analyzed
    assert status == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert set(summary) == SUMMARY_KEYS
    assert summary["frames"] == FRAMES and summary["fps"] == FPS and summary["complete"]
    assert set(summary["score"]) == {"home", "away"}
    assert summary["ms_per_frame"] > 0
    cal = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    assert cal["image_size_px"] == list(SIZE)
    assert (out / "calls.jsonl").is_file()
    tracks = _lines(out / "tracks.jsonl")
    assert [t["frame"] for t in tracks] == list(range(FRAMES))
    for t in tracks:
        assert set(t) == TRACK_KEYS
        assert t["ball"] is None or set(t["ball"]) == {"x_mm", "y_mm", "moving"}
        for f in t["figures"]:
            assert set(f) == {"id", "team", "x_mm", "y_mm"} and f["team"] in ("home", "away")


def test_tracks_agree_with_the_truth(analyzed, clip):
    out, _ = analyzed
    truth = _lines(clip / "truth.jsonl")
    tracks = _lines(out / "tracks.jsonl")
    rest, flags = [], []
    for t, r in zip(truth, tracks, strict=True):
        assert abs(t["t_s"] - r["t_s"]) < 1e-6
        if t["ball"] is None or r["ball"] is None:
            continue
        flags.append(t["ball"]["moving"] == r["ball"]["moving"])
        if not t["ball"]["moving"]:
            rest.append(
                np.hypot(
                    t["ball"]["x_mm"] - r["ball"]["x_mm"], t["ball"]["y_mm"] - r["ball"]["y_mm"]
                )
            )
    assert len(rest) > 0.5 * FRAMES
    # 0.55 px/mm at this size, the ball on the centre spot and the halfway line (white on
    # white): the hardest place to measure it.
    assert np.median(rest) < 1.0
    assert np.mean(flags) > 0.95
    last_truth = np.array([[f["x_mm"], f["y_mm"]] for f in truth[FRAMES - 1]["figures"]])
    last = np.array([[f["x_mm"], f["y_mm"]] for f in tracks[-1]["figures"]])
    d = np.linalg.norm(last_truth[:, None] - last[None], axis=2).min(axis=1)
    assert np.median(d) < 1.0


def test_missing_video_is_a_one_line_error(tmp_path, capsys):
    status = main(["analyze", str(tmp_path / "nope.mp4"), "--out", str(tmp_path / "o")])
    assert status == 2
    assert "no such file" in capsys.readouterr().err


def test_truncated_recording_keeps_partial_outputs_marked_incomplete(clip, tmp_path, capsys):
    cut = tmp_path / "cut"
    cut.mkdir()
    for name in ("video.mp4", "truth.jsonl"):
        (cut / name).write_bytes((clip / name).read_bytes())
    meta = json.loads((clip / "meta.json").read_text(encoding="utf-8"))
    meta["complete"] = False  # a recording that was never closed
    (cut / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    stamps = (clip / "timestamps.csv").read_text(encoding="utf-8").splitlines()
    extra = [f"{FRAMES + i},{round((FRAMES + i) * 1e9 / FPS)}" for i in range(10)]
    (cut / "timestamps.csv").write_text("\n".join(stamps + extra) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    status = main(
        [
            "analyze",
            str(cut),
            "--out",
            str(out),
            "--no-progress",
            "--calibration",
            str(Path(__file__).parent / "missing.json"),
        ]
    )
    assert status == 2  # the calibration file is missing: told before any work
    status = main(["analyze", str(cut), "--out", str(out), "--no-progress"])
    assert status == 2
    assert "truncated" in capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["complete"] is False and summary["frames"] == FRAMES
    assert len(_lines(out / "tracks.jsonl")) == FRAMES


def test_calibration_of_another_size_is_refused(analyzed, clip, tmp_path, capsys):
    out, _ = analyzed
    cal = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    cal["image_size_px"] = [640, 480]
    cal["camera"]["size_px"] = [640, 480]
    path = tmp_path / "other.json"
    path.write_text(json.dumps(cal), encoding="utf-8")
    status = main(["analyze", str(clip), "--out", str(tmp_path / "o"), "--calibration", str(path)])
    assert status == 2
    assert "calibrat" in capsys.readouterr().err


def test_a_named_ball_colour_is_saved_and_used_again(analyzed, clip, tmp_path, capsys):
    """``--ball-colour`` goes into the written calibration.json; given that file next time,
    the colour is used without naming it again. A bad name is refused before any work."""
    out1 = tmp_path / "named"
    status = main(
        ["analyze", str(clip), "--out", str(out1), "--no-progress", "--ball-colour", "white"]
    )
    assert status == 0
    cal = json.loads((out1 / "calibration.json").read_text(encoding="utf-8"))
    assert cal["ball_colour"] == "white"
    out2 = tmp_path / "again"
    args = ["analyze", str(clip), "--out", str(out2), "--no-progress"]
    assert main([*args, "--calibration", str(out1 / "calibration.json")]) == 0
    again = json.loads((out2 / "calibration.json").read_text(encoding="utf-8"))
    assert again["ball_colour"] == "white"
    balls = [r["ball"] for r in _lines(out2 / "tracks.jsonl")]
    assert sum(b is not None for b in balls) >= 0.9 * FRAMES
    assert main([*args, "--ball-colour", "pink"]) == 2
    assert "pink" in capsys.readouterr().err


@pytest.fixture(scope="module")
def pass_clip(tmp_path_factory) -> Path:
    """A white ball at rest for 20 frames, then passed forward (the margin scene ``offside``):
    a clip picked up just before the play, at 800 x 600, 30 fps."""
    pitch = load_pitch("fistf")
    scene = build_margin_scene("offside", 35, offside=True)
    camera = CameraModel.overhead(SIZE, 1300.0, 1450.0)
    renderer = Renderer(camera, pitch, Look(), seed=3)
    truth = frame_truth(scene, FPS)
    first = contact_frame(scene.strikes[-1], FPS) - 20
    folder = tmp_path_factory.mktemp("clips") / "pass"
    with RecordingWriter(
        folder, fps=FPS, size_px=SIZE, table="fistf", source="sim", camera=camera
    ) as writer:
        for i in range(60):
            t_s = (first + i) / FPS
            writer.write(renderer.render(scene.frame(t_s)), round(i * 1e9 / FPS), truth[first + i])
    return folder


@pytest.mark.parametrize("missed", [True, False])
def test_a_ball_colour_learnt_only_from_the_roll_is_looked_for_from_the_first_frame(
    pass_clip, tmp_path, monkeypatch, capsys, missed
):
    """When the ball's colour shows only once it rolls (learning took it for a kit's, say),
    the recording is analysed again from its first frame looking for that colour: the ball
    is then placed where it stood before it was struck, and the pass judged. The colour is
    not saved as a named one. When learning listed it, one analysis is all there is."""
    white = np.array(Look().ball_bgr, np.float32)
    learn = analyze_cmd.learn_model

    def learning_that_misses_the_ball(frames, camera, pitch, config=None):
        model = learn(frames, camera, pitch, config)
        if not missed or config.ball_bgr is not None:  # a colour given: as learning had it
            return model
        kept = np.array([c for c in model.ball_colours_bgr if not same_colour_as(c, [white])])
        return dataclasses.replace(model, ball_bgr=kept[0], ball_colours_bgr=kept, ball_px=None)

    monkeypatch.setattr(analyze_cmd, "learn_model", learning_that_misses_the_ball)
    out = tmp_path / "out"
    assert main(["analyze", str(pass_clip), "--out", str(out), "--no-progress"]) == 0
    said = re.search(
        r"colour \((#[0-9a-f]{6})\) showed only once it rolled", capsys.readouterr().err
    )
    assert (said is not None) == missed
    if missed:
        assert same_colour_as(np.array(parse_colour(said[1]), np.float32), [white])
    cal = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    assert "ball_colour" not in cal
    truth = _lines(pass_clip / "truth.jsonl")
    tracks = _lines(out / "tracks.jsonl")
    still = [
        (t["ball"], r["ball"])
        for t, r in zip(truth, tracks, strict=True)
        if not t["ball"]["moving"]
    ]
    assert len(still) >= 20 and all(r is not None for _, r in still)
    err = [np.hypot(t["x_mm"] - r["x_mm"], t["y_mm"] - r["y_mm"]) for t, r in still]
    assert max(err) < 1.0
    assert any(c["kind"] == "offside" for c in _lines(out / "calls.jsonl"))
