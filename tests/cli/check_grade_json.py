"""Checks the results.json that `tplab lesson grade --json` writes: Gradescope's form (a score,
and tests with name, score, max_score and output), scores that add up, one point per lesson, and
with every grade the SHA-256 of the very source and checker it was given for.

usage: check_grade_json.py FILE SOURCE_DIR SCORE [NN=VERDICT:SCORE ...]
  SCORE: the expected total; NN=VERDICT:SCORE: lesson NN's expected verdict and score.
"""
import hashlib
import json
import math
import os
import sys


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    path, source_dir, want_total = sys.argv[1], sys.argv[2], float(sys.argv[3])
    wanted = {}
    for spec in sys.argv[4:]:
        number, rest = spec.split("=")
        verdict, score = rest.split(":")
        wanted[int(number)] = (verdict, float(score))
    grades = json.load(open(path))
    lessons = grades["extra_data"]["lessons"]
    tests = grades["tests"]
    assert lessons and tests, "no lessons or no tests"
    for t in tests:
        for key in ("name", "score", "max_score", "output"):
            assert key in t, f"test lacks {key}: {t}"
        assert 0 <= t["score"] <= t["max_score"] + 1e-12, t
    assert math.isclose(sum(t["max_score"] for t in tests), len(lessons)), "one point a lesson"
    assert math.isclose(grades["extra_data"]["max_score"], len(lessons))
    assert math.isclose(sum(t["score"] for t in tests), grades["score"], abs_tol=1e-9)
    assert math.isclose(grades["score"], want_total, abs_tol=1e-9), (grades["score"], want_total)
    for lesson in lessons:
        source = os.path.join(source_dir, lesson["source"])
        checker = os.path.join(os.path.dirname(source), "check.cpp")
        assert lesson["sha256"] == sha256(source), f"{lesson['source']}: digest differs"
        assert lesson["check_sha256"] == sha256(checker), f"{checker}: digest differs"
        mine = [t for t in tests if t["extra_data"]["lesson"] == lesson["lesson"]]
        assert mine, f"lesson {lesson['lesson']} has no test"
        assert math.isclose(sum(t["max_score"] for t in mine), 1.0), lesson
        assert math.isclose(sum(t["score"] for t in mine), lesson["score"], abs_tol=1e-9), lesson
        for t in mine:
            assert lesson["sha256"] in t["output"], f"{t['name']}: no digest in its output"
        if lesson["lesson"] in wanted:
            verdict, score = wanted[lesson["lesson"]]
            assert lesson["verdict"] == verdict, (lesson["verdict"], verdict)
            assert math.isclose(lesson["score"], score, abs_tol=1e-9), (lesson["score"], score)
    print(f"ok: {len(lessons)} lessons, {len(tests)} tests, {grades['score']:g} points, "
          "every digest that of the source checked")


if __name__ == "__main__":
    main()
