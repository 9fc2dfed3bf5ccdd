"""The fields the --json of a launched series (verify, bench scaling, bench comm) carries beside
its records: "pass", "failures" (one per job that crashed, timed out or left no result of its
own) and "jobs" ({"planned", "finished"}).
"""


def check_series_fields(document, records_pass):
    """Asserts the fields and that "pass" follows from them: the records pass (`records_pass`),
    every planned job finished, and none failed."""
    for key in ("pass", "failures", "jobs"):
        assert key in document, f"the document lacks '{key}'"
    for failure in document["failures"]:
        assert set(failure) == {"job", "np", "exit_reason", "last_message"}, failure
        assert failure["exit_reason"], failure
    jobs = document["jobs"]
    assert 0 <= jobs["finished"] <= jobs["planned"], jobs
    complete = jobs["finished"] == jobs["planned"]
    assert document["pass"] == (records_pass and complete and not document["failures"]), (
        document["pass"], records_pass, jobs, document["failures"])
