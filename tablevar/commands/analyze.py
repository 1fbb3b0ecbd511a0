"""``tablevar analyze VIDEO --out DIR``: detection, tracking and rules over a whole video.

Writes into DIR (DESIGN.md section 4): ``calibration.json``, ``tracks.jsonl`` (one object per
frame), ``calls.jsonl`` and ``summary.json``. Records are written as they become final, so a
video that turns out to be truncated or unreadable part-way still leaves every frame before the
fault on disk; ``summary.json`` then says ``"complete": false`` (and the fault as ``"error"``)
and the command ends with a one-line error and a non-zero status. Once the video is done, the
teams in ``tracks.jsonl`` are named by the ends the whole recording showed
(``FistfRules.in_hindsight``), not by the belief of the moment: a clip picked up in play tells
the ends only when play on a goal shows them. Likewise the ball of the frames written before
motion told which candidate it is: it is placed where that candidate stood and rolled
(``BallInHindsight``). Calls keep what they were made with.

The outputs are written into a temporary folder inside DIR and moved into place when the run
ends: a run that fails or is interrupted never replaces a complete analysis already in DIR.

Calibration: ``--calibration FILE`` uses a ``calibration.json`` (from ``tablevar calibrate``);
otherwise the camera is calibrated automatically from the empty-table view of the video's first
``--seconds`` (the per-pixel median, in which moving figures vanish).

Ball colour: found by itself (``vision/model.py``); ``--ball-colour NAME|#rrggbb`` names it
instead (a two-tone ball's colours joined by ``+``). The choice is saved in the written
``calibration.json`` and used again when that file is given as ``--calibration``. A ball whose
colour showed only once it rolled (``Pipeline.ball_colour_from_roll``) had no place, and the
play that struck it no call, before that: the video is analysed once more from its first frame,
looking for that colour from the start instead of the colours learning lists (the ball's other
colours, a two-tone ball's other half, still learnt as it shows them), and that analysis is the
one written (the first stands if the second fails). It is not saved as a named colour.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

import cv2
import numpy as np
from tqdm import tqdm

from calibration.calibrate import calibrate, clean_view
from calibration.calibration_file import Calibration, read_calibration, write_calibration
from calibration.tables import load_pitch
from hardware.recording import META_NAME, read_meta
from hardware.sources import Frame, SourceError, VideoFileSource, native_path
from rules.games import GAMES
from rules.observation import Figures
from tablevar.button_stage import ButtonRules, read_shot_calls
from tablevar.commands.options import readout_ms, seconds
from tablevar.driver import Driver, Judged, play
from tablevar.evidence import EvidenceWriter
from tablevar.hindsight import BallInHindsight
from tablevar.pipeline import Pipeline, PipelineConfig
from tablevar.rules_stage import FistfRules
from tablevar.tracked import TrackedFrame, TracksEncoder
from vision.colour import USUAL_BALLS_BGR, parse_colours
from vision.config import VisionConfig
from vision.model import LearningError, learn_model
from vision.pick import hex_colour
from web.recordings import VIEW_NAME

CALIBRATION_FRAMES = 25
EVIDENCE_DIR = "evidence"
# In the order they are moved into place: summary.json, which says whether the run
# finished, comes last.
OUTPUT_FILES = ("calibration.json", VIEW_NAME, "tracks.jsonl", "calls.jsonl", "summary.json")
NO_FIGURES = Figures.empty()
LEARN_WAIT_S = 10.0


class AnalyzeError(ValueError):
    """The video and the calibration do not belong together."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "analyze",
        help="track ball and figures in a video and referee it",
        description="Calibrate (or read a calibration), detect and track the ball and the "
        "figures (or buttons) in every frame, apply the rules of the table's game (FISTF, "
        "button football), and write calibration.json, "
        "tracks.jsonl, calls.jsonl, summary.json and an evidence picture per call (evidence/) "
        "into the output folder.",
    )
    parser.add_argument("video", type=Path, metavar="VIDEO", help="video file or recording folder")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder")
    parser.add_argument("--calibration", type=Path, metavar="FILE", help="calibration.json")
    parser.add_argument("--table", default="fistf", help="table profile name or .toml path")
    parser.add_argument(
        "--game",
        choices=list(GAMES),
        default=None,
        help="the game to referee (default: the one the recording was refereed as, else the "
        "one the table profile names)",
    )
    parser.add_argument(
        "--seconds",
        type=seconds,
        default=2.0,
        help="calibrate from the empty-table view of the first SECONDS (default: 2)",
    )
    parser.add_argument(
        "--ball-colour",
        metavar="COLOUR",
        help=f"the ball's colour: {', '.join(USUAL_BALLS_BGR)} or #rrggbb, a two-tone ball's "
        "two joined by + (default: found by itself; saved in calibration.json)",
    )
    parser.add_argument(
        "--readout-ms",
        type=readout_ms,
        default=None,
        metavar="MS",
        dest="readout_s",
        help="the camera's rolling-shutter readout, first row to last, in ms (0: a global "
        "shutter; default: what the recording says, else anything up to the frame period)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def recorded_game(video: Path) -> str | None:
    """The game a recording folder says was refereed on it (``RecordingMeta.game``; None: a
    video file, or a recording that does not say).

    Raises:
        AnalyzeError: the recording names a game this tablevar does not know.
    """
    if not (video.is_dir() and (video / META_NAME).is_file()):
        return None
    name = read_meta(video).game
    if name is not None and name not in GAMES:
        raise AnalyzeError(
            f"{video / META_NAME}: the recording was refereed as {name!r}, a game this "
            f"tablevar does not know ({', '.join(GAMES)}); pass --game"
        )
    return name


def run(args: argparse.Namespace) -> int:
    # --game, else the game the recording was refereed as, else the one the table names.
    pitch = load_pitch(args.table, args.game or recorded_game(args.video))
    # The players' shot calls (button football) travel with a recording folder.
    shot_calls = read_shot_calls(args.video) if args.video.is_dir() else ()
    with VideoFileSource(args.video) as video:
        if args.readout_s is not None:
            if args.readout_s > 1.0 / video.fps:
                raise AnalyzeError(
                    f"--readout-ms {args.readout_s * 1000:g} is longer than the video's frame "
                    f"period ({1000.0 / video.fps:.3g} ms): give the sensor's readout time, or 0 "
                    "for a global shutter"
                )
            video.readout_s = args.readout_s
        if args.calibration is not None:
            cal = read_calibration(args.calibration)
        else:
            cal = calibrate(_empty_view(video, args.seconds), pitch)
        if tuple(cal.image_size_px) != tuple(video.size_px):
            raise AnalyzeError(
                f"the video is {video.size_px[0]}x{video.size_px[1]} but the calibration is "
                f"for {cal.image_size_px[0]}x{cal.image_size_px[1]}: calibrate this camera mode"
            )
        if args.ball_colour is not None:
            parse_colours(args.ball_colour)  # a bad name fails before any work
            cal = dataclasses.replace(cal, ball_colour=args.ball_colour)
        native_path(args.out)
        args.out.mkdir(parents=True, exist_ok=True)
        # Written aside and moved into place at the end: a run that fails never replaces a
        # complete analysis (a partial one still lands where there was none).
        staging = _staging(args.out)
        try:
            learnt = _analyze_into(staging, video, cal, pitch, args, shot_calls)
            if learnt is not None:
                staging = _again_with_colour(staging, video, cal, pitch, args, shot_calls, learnt)
            return 0
        finally:
            publish(staging, args.out)


def _staging(out: Path) -> Path:
    """A new folder inside ``out`` for outputs written aside (``publish`` moves them)."""
    return Path(tempfile.mkdtemp(prefix=".analyze-", dir=out))


def _analyze_into(
    staging: Path, video, cal: Calibration, pitch, args, shot_calls, rolled: str | None = None
) -> str | None:
    """``analyze`` into ``staging``, the calibration it uses written there first; returns
    what ``analyze`` returns."""
    write_calibration(staging / "calibration.json", cal)
    progress = not args.no_progress
    return analyze(
        video, cal, pitch, staging, progress=progress, shot_calls=shot_calls, rolled=rolled
    )


def _again_with_colour(done: Path, video, cal, pitch, args, shot_calls, colour: str) -> Path:
    """Analyse ``video`` again from its first frame looking for a ball of ``colour`` from
    the start: it was learnt from the ball's roll, so the frames before had no ball, and the
    play that struck it no call. Returns the folder of the outputs to publish: the new ones,
    or ``done`` (the first analysis, complete) when this one fails."""
    print(
        f"analyze: the ball's colour ({colour}) showed only once it rolled; analysing again "
        "from the first frame with it",
        file=sys.stderr,
    )
    staging = _staging(args.out)
    try:
        _analyze_into(staging, video, cal, pitch, args, shot_calls, rolled=colour)
    except (ValueError, OSError) as exc:
        print(f"analyze: the second analysis failed ({exc}); the first stands", file=sys.stderr)
        shutil.rmtree(staging, ignore_errors=True)
        return done
    except BaseException:  # interrupted: the first analysis is published, this one dropped
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(done, ignore_errors=True)
    return staging


def is_complete(folder: Path) -> bool:
    """Whether ``folder`` holds a finished analysis (its summary says ``complete``)."""
    try:
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(summary, dict) and summary.get("complete") is True


def publish(staging: Path, out: Path) -> bool:
    """Move the outputs of ``staging`` into ``out`` (``summary.json`` last), unless the run did
    not finish and ``out`` holds a finished analysis; then remove ``staging``.

    Returns:
        whether the outputs were moved.
    """
    try:
        if not is_complete(staging) and is_complete(out):
            return False
        old_evidence = staging / ".old-evidence"
        if (out / EVIDENCE_DIR).is_dir():
            os.replace(out / EVIDENCE_DIR, old_evidence)
        if (staging / EVIDENCE_DIR).is_dir():
            os.replace(staging / EVIDENCE_DIR, out / EVIDENCE_DIR)
        for name in OUTPUT_FILES:
            if (staging / name).is_file():
                os.replace(staging / name, out / name)
        return True
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _empty_view(video: VideoFileSource, seconds: float) -> np.ndarray:
    """Median of up to ``CALIBRATION_FRAMES`` frames spread over the first ``seconds``."""
    stride = max(1, round(video.fps * seconds / CALIBRATION_FRAMES))
    frames, t0 = [], None
    for frame in video.frames():
        t0 = frame.t_s if t0 is None else t0
        if frame.t_s - t0 > seconds or len(frames) >= CALIBRATION_FRAMES:
            break
        if frame.index % stride == 0:
            frames.append(frame.image_bgr)
    return clean_view(frames)


def analyze(
    video: VideoFileSource,
    cal: Calibration,
    pitch,
    out: Path,
    *,
    progress: bool,
    shot_calls: tuple[tuple[int, float], ...] = (),
    rolled: str | None = None,
) -> str | None:
    """Run the driver over ``video`` and write the outputs; ``rolled``: the colour an
    earlier look saw the ball roll in, looked for from the first frame (``_again_with_colour``).

    Returns:
        the ball's colour (``#rrggbb``) when none was named and the ball showed it only by
        rolling (``Pipeline.ball_colour_from_roll``: a ball of a kit's colour), else None.
    """
    # The calls read the lines' edges where the paint most likely ends, the detector sees
    # them as they look (``Calibration.called_pitch``, ``measured_pitch``).
    called, pitch = cal.called_pitch(pitch), cal.measured_pitch(pitch)
    rules = rules_for(called, cal, shot_calls)
    summary: dict[str, Any] = {
        "game": pitch.profile.game,  # a review page speaks of the game refereed
        "frames": 0,
        "fps": video.fps,
        "clock_s": 0.0,
        "score": {"home": 0, "away": 0},
        "calls": 0,
        "ms_per_frame": 0.0,
        "complete": False,
    }
    with (
        open(out / "tracks.jsonl", "w", encoding="utf-8") as tracks,
        open(out / "calls.jsonl", "w", encoding="utf-8") as calls,
    ):
        outputs = _Outputs(tracks, calls, EvidenceWriter(out, cal.camera, called))
        session = _Session(video, cal, pitch, rules, outputs, out, rolled)
        bar = tqdm(total=video.expected_frames, unit="frame", desc="analyze", disable=not progress)
        try:
            play(video, lambda frame: (session.receive(frame), bar.update()))
            if session.driver is None:
                raise SourceError(f"{video.path}: no frames decoded")
            summary["complete"] = True
        except (ValueError, OSError) as exc:
            # Kept with the partial outputs: ``review`` serves them instead of failing again.
            summary["error"] = " ".join(str(exc).split())
            raise
        finally:
            bar.close()
            driver = session.driver
            if driver is not None:
                outputs.write(driver.finish())
                outputs.write(Judged(calls=tuple(rules.finish())))
                summary.update(_summary(driver, rules, video.fps, outputs.calls_written))
            summary["frames"] = (driver.frames if driver is not None else 0) + session.skipped
            _write_json(out / "summary.json", summary)
    ball = BallInHindsight(driver.pipeline.settled_trails if driver is not None else ())
    if rules.names_changed or ball:
        _in_hindsight(out / "tracks.jsonl", rules, ball)
    learnt = driver.pipeline.ball_colour_from_roll if driver is not None else None
    if learnt is None or cal.ball_colour is not None or rolled is not None:
        return None
    return hex_colour(learnt)


def rules_for(
    pitch, cal: Calibration, shot_calls: tuple[tuple[int, float], ...] = ()
) -> FistfRules | ButtonRules:
    """The rules stage of the table's game (``rules.games``)."""
    sigma, parallax = cal.line_sigma_mm, cal.parallax_sigma_mm
    if pitch.profile.game == "button-football":
        return ButtonRules(pitch, line_sigma_mm=sigma, parallax=parallax, shot_calls=shot_calls)
    return FistfRules(pitch, line_sigma_mm=sigma, parallax=parallax, mm_per_px=cal.camera.mm_per_px)


def _in_hindsight(path: Path, rules: FistfRules | ButtonRules, ball: BallInHindsight) -> None:
    """Name the teams of every written record by the ends the whole recording showed
    (``FistfRules.in_hindsight``), and place the ball where motion later said it was
    (``BallInHindsight``); the file is replaced whole, never left half rewritten."""
    tmp = path.with_suffix(".jsonl.tmp")
    with open(path, encoding="utf-8") as src, open(tmp, "w", encoding="utf-8") as dst:
        for line in src:
            rec = ball(rules.in_hindsight(json.loads(line)))
            dst.write(json.dumps(rec, separators=(",", ":")) + "\n")
    tmp.replace(path)


class _Session:
    """The frames of one video through the driver, once the figures are on the table."""

    def __init__(
        self, video: VideoFileSource, cal: Calibration, pitch, rules, outputs, out, rolled
    ):
        self.video, self.cal, self.pitch, self.rules = video, cal, pitch, rules
        self.outputs, self.out = outputs, out
        self.config = PipelineConfig.for_frames(
            video.lossy, cal.ball_colour, video.readout_s, rolled_colour=rolled
        )
        self.driver: Driver | None = None
        self.skipped = 0
        self.t0: float | None = None

    def receive(self, frame: Frame) -> None:
        if self.t0 is None:  # the picture a person picks the ball on (calibration page)
            self.t0 = frame.t_s
            cv2.imwrite(str(self.out / VIEW_NAME), frame.image_bgr)
        if self.driver is None:
            fps = self.video.fps
            model = _learn(frame, self.cal, self.pitch, fps, self.config.vision)
            if model is None:
                empty = TrackedFrame(frame.index, round(frame.t_s - self.t0, 6), None, NO_FIGURES)
                self.outputs.write(Judged((empty,)))
                self.skipped += 1
                return
            pipeline = Pipeline(
                model, fps=fps, config=self.config, first_frame=self.skipped, t0_s=self.t0
            )
            self.driver = Driver(pipeline, self.rules)
        self.outputs.evidence.add_frame(frame.index, frame.image_bgr)
        self.outputs.write(self.driver.step(frame.image_bgr, frame.t_s))


class _Outputs:
    """Where judged frames become files: tracks.jsonl, calls.jsonl and evidence pictures."""

    def __init__(self, tracks: TextIO, calls: TextIO, evidence: EvidenceWriter) -> None:
        self.tracks, self.calls, self.evidence = tracks, calls, evidence
        self._encode = TracksEncoder()
        self.calls_written = 0

    def write(self, judged: Judged) -> None:
        self.evidence.add_frames(judged.frames)
        _write(self.tracks, [self._encode(frame) for frame in judged.frames])
        records = [call.to_record() for call in judged.calls]
        self.evidence.attach(records)  # each call's picture, before its line is written
        _write(self.calls, records)
        self.calls_written += len(records)


def _learn(frame, cal: Calibration, pitch, fps: float, config: VisionConfig):
    """The scene model from this frame; None while the figures are not yet on the table.

    A clip may begin before the figures are set up: learning waits (up to ``LEARN_WAIT_S``,
    trying twice a second: learning costs far more than a frame) for a frame that shows them,
    and earlier frames get empty records. The ball need not be in view.
    """
    if frame.index % max(1, round(fps / 2)) != 0 and frame.index < LEARN_WAIT_S * fps:
        return None
    try:
        return learn_model([frame.image_bgr], cal.camera, pitch, config)
    except LearningError:
        if frame.index < LEARN_WAIT_S * fps:
            return None
        raise


def _summary(
    driver: Driver, rules: FistfRules | ButtonRules, fps: float, calls: int
) -> dict[str, Any]:
    home, away = rules.score
    return {
        "frames": driver.frames,
        "fps": fps,
        "clock_s": round(rules.clock_s, 3),
        "score": {"home": int(home), "away": int(away)},
        "calls": calls,
        "ms_per_frame": round(driver.ms_per_frame, 3),
    }


def _write(stream: TextIO, records: list[dict[str, Any]]) -> None:
    for rec in records:
        stream.write(json.dumps(rec, separators=(",", ":")) + "\n")
    stream.flush()


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
