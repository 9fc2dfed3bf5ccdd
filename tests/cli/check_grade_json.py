"""Checks the results.json that `tplab lesson grade --json` writes: Gradescope's form (a score,
and tests with name, score, max_score and output), whole points that add up exactly (one point
per tensor a check compares), and with every grade the SHA-256 of the very source and checker
it was given for.

usage: check_grade_json.py FILE SOURCE_DIR SCORE [NN=VERDICT:SCORE ...] [tests=OTHER]
  SCORE: the expected total, or "full" for every point; NN=VERDICT:SCORE: lesson NN's expected
  verdict and score; tests=OTHER: every lesson graded in both has the tests it has in the
  results.json OTHER (the same names, numbers and points), whatever state its exercise is in.
"""
import hashlib
import json
import os
import sys


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def test_list(grades, lesson):
    return [(t["number"], t["name"], t["max_score"]) for t in grades["tests"]
            if t["extra_data"]["lesson"] == lesson]


def main():
    path, source_dir, want_total = sys.argv[1], sys.argv[2], sys.argv[3]
    wanted, other = {}, None
    for spec in sys.argv[4:]:
        if spec.startswith("tests="):
            other = json.load(open(spec[len("tests="):]))
            continue
        number, rest = spec.split("=")
        verdict, score = rest.split(":")
        wanted[int(number)] = (verdict, int(score))
    grades = json.load(open(path))
    lessons = grades["extra_data"]["lessons"]
    tests = grades["tests"]
    assert lessons and tests, "no lessons or no tests"
    for t in tests:
        for key in ("name", "score", "max_score", "output"):
            assert key in t, f"test lacks {key}: {t}"
        assert whole(t["score"]) and whole(t["max_score"]), f"not whole points: {t}"
        assert 0 <= t["score"] <= t["max_score"], t
    # Gradescope adds the tests up: whole points make that sum the total exactly.
    assert sum(t["max_score"] for t in tests) == grades["extra_data"]["max_score"]
    assert sum(t["score"] for t in tests) == grades["score"]
    assert sum(lesson["score"] for lesson in lessons) == grades["score"]
    total = grades["extra_data"]["max_score"] if want_total == "full" else int(want_total)
    assert grades["score"] == total, (grades["score"], total)
    for lesson in lessons:
        source = os.path.join(source_dir, lesson["source"])
        checker = os.path.join(os.path.dirname(source), "check.cpp")
        assert lesson["sha256"] == sha256(source), f"{lesson['source']}: digest differs"
        assert lesson["check_sha256"] == sha256(checker), f"{checker}: digest differs"
        mine = [t for t in tests if t["extra_data"]["lesson"] == lesson["lesson"]]
        assert mine, f"lesson {lesson['lesson']} has no test"
        assert all(t["max_score"] == 1 for t in mine), "one point a tensor"
        assert sum(t["max_score"] for t in mine) == lesson["max_score"], lesson
        assert sum(t["score"] for t in mine) == lesson["score"], lesson
        for t in mine:
            assert lesson["sha256"] in t["output"], f"{t['name']}: no digest in its output"
            assert " grid" not in t["name"] or " q x q" in t["name"], f"a world size: {t['name']}"
        if other is not None:
            theirs = test_list(other, lesson["lesson"])
            assert test_list(grades, lesson["lesson"]) == theirs, (
                f"lesson {lesson['lesson']}: tests {test_list(grades, lesson['lesson'])}, "
                f"not {theirs}")
        if lesson["lesson"] in wanted:
            verdict, score = wanted[lesson["lesson"]]
            assert lesson["verdict"] == verdict, (lesson["verdict"], verdict)
            assert lesson["score"] == score, (lesson["score"], score)
    print(f"ok: {len(lessons)} lessons, {len(tests)} tests, {grades['score']} of "
          f"{grades['extra_data']['max_score']} points, every digest that of the source checked")


if __name__ == "__main__":
    main()
